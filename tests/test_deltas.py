"""An add writes only what it changed (issues 12 and 14): rows whose JSON line was
stored with the result they come from are not built again, a changed table's Parquet
copy is patched from the last one with a type census, and the store's close leaves the
WAL (synced) instead of checkpointing it. Every result equals a full rescan, and every
reader reads a generation written this way as one written whole."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_incremental import TABLES, _same_as_fresh, arts_folder

import unspin
from unspin.model import Article, Relation
from unspin.output import FILES, read_tables, results_folder
from unspin.pipeline import Config

BRIDGE = (
    "The city council of Marlowe voted on Tuesday to close the old harbour bridge for "
    "eighteen months of repairs, after inspectors found cracks in two of its steel "
    "supports. Mayor Ken Vordanek said the closure would cost local shops dearly."
)
HARVEST = (
    "Farmers in the Telmar valley began the grape harvest three weeks early this year "
    "after a record dry summer, the regional growers association said on Wednesday. "
    "Yields are expected to fall by a quarter, its chairwoman Alma Restrepo said."
)
MINE = (
    "Grenfield Mining said on Monday that output at its Tarrow pit rose by a third in "
    "the quarter, and that it would hire 200 workers. Chief executive Ola Brant said "
    '"demand for copper has never been stronger" and shares rose 4 percent.'
)


def _pile() -> list[Article]:
    arts = []
    for name, text in (("bridge", BRIDGE), ("harvest", HARVEST), ("mine", MINE)):
        arts.append(Article(id=f"{name}-1", text=text + " More details will follow."))
        arts.append(Article(id=f"{name}-2", text=text + " The report was published today."))
        arts.append(
            Article(id=f"{name}-3", text=text.replace("said", "told reporters", 1) + " End.")
        )
    arts += [
        Article(id=f"sport-{k}", text=f"Team {k} won its home game {k} to nil on Saturday night.")
        for k in range(4)
    ]
    return arts


def _parquet_equal_to_a_whole_build(out: Path, fresh: Path) -> None:
    """Each result table's Parquet copy in ``out`` (patched or linked) equals the one a
    whole write of the same rows made (``fresh``, a rescan written without a previous
    generation)."""
    a, b = results_folder(out), results_folder(fresh)
    for name in TABLES:
        x, y = pq.read_table(a / f"{name}.parquet"), pq.read_table(b / f"{name}.parquet")
        x, y = x.replace_schema_metadata(None), y.replace_schema_metadata(None)
        assert x.schema.equals(y.schema) and x.equals(y), name


def test_an_add_writes_stored_rows_from_their_lines_and_equals_a_rescan(
    tmp_path, monkeypatch
) -> None:
    """An add that touches no stored story and one that joins one: the relation rows
    of the untouched stories are taken from the lines stored with their pair and
    component results (no record built for them), the changed tables' Parquet copies
    are patched by census, and the tables and Parquet copies equal a full rescan's;
    then a removal, also equal."""
    import unspin.output as out_mod

    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    base = _pile()
    unspin.scan(arts_folder(tmp_path, base), out=out, config=cfg)
    before = read_tables(out)["relations"]
    assert len(before) >= 9  # three stories of three near-copies each

    built: list[tuple[str, str]] = []
    real = Relation.to_record

    def counting(self):
        built.append((self.a, self.b))
        return real(self)

    monkeypatch.setattr(Relation, "to_record", counting)
    patched: list[str] = []
    real_patched = out_mod._patched

    def recording(rows, data, prev, name, census):
        got = real_patched(rows, data, prev, name, census)
        if got is not None:
            patched.append(name)
        return got

    monkeypatch.setattr(out_mod, "_patched", recording)

    now = list(base)
    fresh = Article(
        id="zz-fresh",
        text="The Orland symphony named a new conductor, Petra Vossberg, on Friday evening.",
    )
    joins = Article(id="zz-copy", text=MINE + " Analysts had expected less.")
    for k, extra in enumerate((fresh, joins)):
        built.clear()
        patched.clear()
        unspin.add([extra], out=out, config=cfg)
        now.append(extra)
        # only the relations of the new article's story were built (the rest read as
        # the lines stored with their results)
        rows = read_tables(out)
        story = next(s for s in rows["stories"] if extra.id in s["articles"])
        mine = {(r["a"], r["b"]) for r in rows["relations"]}
        inside = {p for p in mine if p[0] in story["articles"] and p[1] in story["articles"]}
        assert set(built) <= inside, (extra.id, set(built) - inside)
        if k == 1:
            assert len(inside) >= 3 and len(mine) > len(inside)
            assert "relations" in patched, patched  # the changed table patched by census
        assert "stories" in patched or "lineage" in patched, patched
        monkeypatch.setattr(Relation, "to_record", real)
        _same_as_fresh(out, now, cfg)
        _parquet_equal_to_a_whole_build(out, tmp_path / "fresh")
        monkeypatch.setattr(Relation, "to_record", counting)
    monkeypatch.setattr(Relation, "to_record", real)
    unspin.remove(["zz-copy", "bridge-2"], out=out, config=cfg)
    now = [a for a in now if a.id not in ("zz-copy", "bridge-2")]
    _same_as_fresh(out, now, cfg)
    _parquet_equal_to_a_whole_build(out, tmp_path / "fresh")


def test_readers_read_a_delta_written_generation(tmp_path) -> None:
    """After an add written as a delta (lines taken, tables linked, Parquet patched),
    every reader gets the tables a whole write gives: ``read_tables``, the CLI's
    ``quotes`` and ``report``, the service's snapshot, each Parquet copy row for row
    with its JSON lines, and the manifest's counts."""
    from unspin.cli import main

    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    base = _pile()
    unspin.scan(arts_folder(tmp_path, base), out=out, config=cfg)
    joins = Article(id="zz-copy", text=BRIDGE + " Traffic will use the north road.")
    result = unspin.add([joins], out=out, config=cfg)
    tables = read_tables(out)
    from unspin.output import records

    # the tables read back are the Result's records written whole (through JSON)
    whole = json.loads(json.dumps(records(result)))
    for name in FILES:
        assert tables[name] == whole[name], name
    gen = results_folder(out)
    manifest = json.loads((gen / "manifest.json").read_text(encoding="utf-8"))
    for name in FILES:
        assert manifest["counts"][name] == len(tables[name]), name
        if tables[name]:  # the Parquet copy holds the JSON lines' rows, in order
            got = pq.read_table(gen / f"{name}.parquet")
            first = got.column_names[0]
            assert got.column(first).to_pylist() == [r[first] for r in tables[name]], name
    assert any("zz-copy" in (r["a"], r["b"]) for r in tables["relations"])
    assert main(["quotes", str(out)]) == 0
    html = tmp_path / "r.html"
    assert main(["report", str(out), "--html", str(html)]) == 0
    assert "zz-copy" in html.read_text(encoding="utf-8")
    from unspin.report import ReportData

    data = ReportData.from_results(out)
    assert data.relations == whole["relations"] and data.quotes == whole["quotes"]
    assert set(data.lineage) == {x["story"] for x in whole["lineage"]}


def test_a_closed_store_leaves_a_synced_wal_that_a_killed_writer_does_not_lose(
    tmp_path, monkeypatch
) -> None:
    """Closing a store after writes leaves its WAL (no checkpoint on each close) and
    syncs it; a writer killed right after closing loses nothing: another process opens
    the store and reads every committed value."""
    import unspin.store as us

    synced: list[Path] = []
    real = us._sync_wal
    monkeypatch.setattr(us, "_sync_wal", lambda db: (synced.append(db), real(db)))
    path = tmp_path / "st"
    st = us.Store(path)
    st.memo_put("t", {f"k{k}": "x" * 1000 for k in range(200)})
    st.close()
    assert synced == [st.db_path]
    wal = st.db_path.with_name("store.sqlite-wal")
    assert wal.exists() and wal.stat().st_size > 0  # left for the next run, not merged

    pid = os.fork()
    if pid == 0:  # a writer killed right after its close returned
        try:
            w = us.Store(path)
            w.memo_put("t", {"late": [1, 2, 3]})
            w.close()
        finally:
            os.kill(os.getpid(), signal.SIGKILL)
    os.waitpid(pid, 0)
    # a fresh process (no connection of this one's) reads both writes
    code = (
        "import sys, json; from unspin.store import Store; st = Store(sys.argv[1]); "
        "got = st.memo_get('t', ['k7', 'late']); print(json.dumps([len(got['k7']), got['late']]))"
    )
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [Path(us.__file__).parents[1]]))},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == [1000, [1, 2, 3]]
    con = sqlite3.connect(st.db_path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


@pytest.mark.parametrize("keepers", [1])
def test_store_keepers_are_bounded_per_process(tmp_path, monkeypatch, keepers) -> None:
    """The idle connections that keep WALs are bounded (the oldest closed first), and a
    store closed after its keeper was let go checkpoints as before (still whole)."""
    import unspin.store as us

    monkeypatch.setattr(us, "WAL_KEEPERS", keepers)
    paths = [tmp_path / f"s{k}" for k in range(3)]
    for p in paths:
        with us.Store(p) as st:
            st.memo_put("t", {"a": 1})
    mine = [k for k in us._KEEPERS if k[0] == os.getpid()]
    assert len(mine) <= keepers
    for p in paths:
        with us.Store(p) as st:
            assert st.memo_get("t", ["a"]) == {"a": 1}


def test_stored_docs_read_tokens_and_keys_on_first_use_equal_a_whole_read(tmp_path) -> None:
    """A lazily read stored doc parses its ``tokens`` and ``keys`` (the end of its JSON)
    on first use: equal to the doc read whole, through pickling (to a worker) and
    assignment; a row written in another key order, or text holding the mark inside a
    string, is read whole."""
    import pickle

    import unspin.store as us
    from unspin.fingerprint import prepare

    text = 'He said: ", "tokens": [1] and \\\\", "keys": x. Then the mayor left on Monday.'
    arts = [Article(id="a", text=text), Article(id="b", text=BRIDGE)]
    cfg = Config(embedder="hashing")
    unspin.scan(arts, out=tmp_path / "res", config=cfg)
    with us.Store(tmp_path / "res" / ".unspin") as st:
        whole = st.get_docs(arts, "hashing")
        lazy = st.get_docs(arts, "hashing", lazy=True)
        for w, d in zip(whole, lazy):
            assert d.__dict__["_tail"] is not None  # not parsed yet
            assert d.keys == w.keys and d.tokens == w.tokens and d.keys
            assert d.__dict__["_tail"] is None
        again = st.get_docs(arts, "hashing", lazy=True)
        for w, d in zip(whole, again):
            back = pickle.loads(pickle.dumps(d))
            assert back.tokens == w.tokens and back.keys == w.keys
            d.keys = ["x"]
            assert d.keys == ["x"] and d.tokens == w.tokens
    data = json.dumps({"tokens": [["a"]], "keys": ["k"], "sentences": [], "quotes": []})
    assert us._split_tail(data) is None  # another order: read whole
    d = prepare(Article(id="c", text=text))
    row = json.dumps(
        {
            "sentences": [],
            "quotes": [[0, 5, '", "tokens": ']],
            "lang": "en",
            "lang_confidence": 1.0,
            "norm_hash": "h",
            "tokens": d.tokens,
            "keys": ["k"],
        }
    )
    head, tail = us._split_tail(row)
    assert {**head, **json.loads(tail)} == json.loads(row)


def test_a_reader_keeping_a_line_memo_parses_only_new_lines(tmp_path) -> None:
    """``read_tables`` with a ``LineMemo`` (as the service rebuilds its snapshot after
    each write) reads the same tables as a plain read, before and after an add, and
    parses again only the lines the add changed: every other row is the last read's
    dict."""
    from unspin.output import LineMemo

    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, _pile()), out=out, config=cfg)
    memo = LineMemo()
    first = read_tables(out, memo)
    assert first == read_tables(out)
    total = sum(len(rows) for rows in first.values())
    assert memo.parsed == total and memo.reused == 0
    again = read_tables(out, memo)  # nothing written since: nothing parsed
    assert again == first and memo.parsed == 0 and memo.reused == total
    assert all(x is y for name in FILES for x, y in zip(first[name], again[name]))
    unspin.add(
        [Article(id="bridge-4", text=BRIDGE + " Repairs begin next week.")], out=out, config=cfg
    )
    after = read_tables(out, memo)
    assert after == read_tables(out)
    old_rows = {id(r) for rows in again.values() for r in rows}
    shared = sum(id(r) in old_rows for rows in after.values() for r in rows)
    assert 0 < memo.parsed < sum(len(rows) for rows in after.values())
    assert shared == memo.reused and memo.reused > 0
    assert any(r["id"] == "bridge-4" for r in after["articles"])


def _count_docs_built(monkeypatch) -> list[str]:
    """The ids of the stored docs built from their rows from now on (a list it fills)."""
    import unspin.store as store_mod

    built: list[str] = []
    real = store_mod._doc_from_row

    def counting(article, row, lazy=None):
        built.append(article.id)
        return real(article, row, lazy)

    monkeypatch.setattr(store_mod, "_doc_from_row", counting)
    return built


def test_adds_in_one_process_reuse_its_articles_and_docs_and_equal_rescans(
    tmp_path, monkeypatch
) -> None:
    """A process that adds to one store again and again (the service) makes Article and
    doc objects only for archive rows new or changed since its last read: the second
    add builds the doc of the first add's article alone; a row changed by another
    writer (an article replaced under its id) is read again. Each result equals a full
    rescan."""
    import unspin.store as store_mod

    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    arts = _pile()
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
    built = _count_docs_built(monkeypatch)
    first = Article(id="bridge-4", text=BRIDGE + " Repairs begin next week.")
    unspin.add([first], out=out, config=cfg)  # this process's first read: every doc built
    assert len(built) == len(arts)
    built.clear()
    second = Article(id="mine-4", text=MINE + " The union welcomed the news.")
    unspin.add([second], out=out, config=cfg)
    assert built == ["bridge-4"]  # the one doc this process had not read from the store
    arts += [first, second]
    _same_as_fresh(out, arts, cfg)
    # another writer replaces an article under its id: its row changed, so it is read
    # again (a new Article and doc), and the result is the rescan's
    other = store_mod.Store(out / ".unspin")
    changed = Article(id="harvest-2", text=HARVEST + " Prices rose at once.")
    other.save_articles([changed])
    other.close()
    built.clear()
    third = Article(id="sport-9", text="Team 9 lost its away game on Sunday afternoon.")
    unspin.add([third], out=out, config=cfg)
    assert "harvest-2" not in built  # its new text has no doc yet: fingerprinted afresh
    assert set(built) <= {"mine-4"}
    arts = [changed if a.id == "harvest-2" else a for a in arts] + [third]
    _same_as_fresh(out, arts, cfg)


def test_preload_reads_what_the_first_add_would(tmp_path, monkeypatch) -> None:
    """``unspin.api.preload`` (the service's start-up) reads every stored doc, so the
    first add after it builds none of them again; a folder with no store reads none."""
    import unspin.store as store_mod
    from unspin.api import preload

    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    arts = _pile()
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
    store_mod._DOC_READS.clear()
    store_mod._ARCHIVE_READS.clear()
    assert preload(out, cfg) == len(arts)
    # each preloaded doc carries its story headline, so the add labels without reading
    import unspin.stories as stories_mod

    read: list[str] = []
    real = stories_mod._headline
    monkeypatch.setattr(stories_mod, "_headline", lambda d: read.append(d.id) or real(d))
    built = _count_docs_built(monkeypatch)
    new = Article(id="bridge-4", text=BRIDGE + " Repairs begin next week.")
    unspin.add([new], out=out, config=cfg)
    assert built == []
    assert not set(read) & {a.id for a in arts}  # no stored article's headline again
    _same_as_fresh(out, [*arts, new], cfg)
    assert preload(tmp_path / "nothing-here", cfg) == 0
    assert not (tmp_path / "nothing-here").exists()  # and nothing was created there
