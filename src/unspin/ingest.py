"""Ingest: turn files and folders into ``Article`` records plus ``InputError`` reports.

Bad input never raises: every file, line or record ends up either as an article or as
an error (``severity="error"``: skipped; ``"warning"``: kept with a caveat), so a scan
can always say what it did with each input. Only bad options raise ``ValueError``.
Texts are decoded, newline-normalised and BOM-stripped but otherwise left untouched,
because later stages keep character offsets into ``Article.text``.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import json
import os
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

import charset_normalizer
import trafilatura

from unspin.model import Article, InputError

#: Article fields a record can supply (``IngestOptions.fields`` maps these to input names).
FIELDS = ("id", "text", "title", "url", "outlet", "published_at", "lang")
TEXT_EXTS = (".txt", ".md")
HTML_EXTS = (".html", ".htm")
RECORD_EXTS = (".json", ".jsonl", ".ndjson", ".csv", ".parquet")
#: Wrappers a ``.json`` object may hold its record list under.
JSON_LIST_KEYS = ("articles", "records", "data")
#: Article field -> trafilatura metadata attribute, for HTML pages.
_HTML_META = {"title": "title", "url": "url", "outlet": "sitename", "published_at": "date"}
#: Detection is "unsure" above this chaos, below this coherence, or with close rivals.
_MAX_CHAOS, _MIN_COHERENCE, _RIVAL_MARGIN = 0.1, 0.3, 0.05
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass
class IngestOptions:
    """How to read inputs; validated on creation so mistakes fail before any work."""

    #: our field name -> the input's field name, e.g. ``{"text": "body", "id": "newid"}``
    fields: dict[str, str] = field(default_factory=dict)
    #: longer texts are skipped with an error
    max_chars: int = 2_000_000
    #: force this encoding instead of detecting one
    encoding: str | None = None

    def __post_init__(self) -> None:
        unknown = sorted(set(self.fields) - set(FIELDS))
        if unknown:
            raise ValueError(
                f"unknown field(s) {', '.join(map(repr, unknown))} in field mapping; "
                f"expected some of: {', '.join(FIELDS)} (mapped to the input's own names)"
            )
        bad = [k for k, v in self.fields.items() if not isinstance(v, str) or not v]
        if bad:
            raise ValueError(f"field mapping for {', '.join(bad)} must be a non-empty name")
        if self.max_chars <= 0:
            raise ValueError(f"max_chars must be > 0, got {self.max_chars}")
        if self.encoding is not None:
            try:
                codecs.lookup(self.encoding)
            except LookupError:
                raise ValueError(f"unknown encoding {self.encoding!r}") from None


class _Skip(Exception):
    """A whole file cannot be used; carries the reason (and where, if known)."""

    def __init__(self, reason: str, location: str = "") -> None:
        super().__init__(reason)
        self.reason, self.location = reason, location


def iter_files(paths: Sequence[str | os.PathLike[str]]) -> Iterator[Path]:
    """Yield the files under ``paths`` (folders recursively) in a stable sorted order.

    Hidden files and folders (``.git``, ``.unspin/``) inside folders are skipped; a path
    named explicitly is always used. Nonexistent paths are left to :func:`read_paths`.
    """
    for p in map(Path, paths):
        if not p.is_dir():
            yield p
            continue
        found = []
        for root, dirs, files in os.walk(p):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            found += [Path(root, f) for f in files if not f.startswith(".")]
        yield from sorted(found, key=lambda f: f.relative_to(p).parts)


def read_paths(
    paths: Sequence[str | os.PathLike[str]],
    options: IngestOptions | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Article], list[InputError]]:
    """Read every article under ``paths``; ids are made unique across all files.

    ``progress`` is called with each file's path before it is read.
    """
    options = options or IngestOptions()
    articles: list[Article] = []
    errors: list[InputError] = []
    first_seen: dict[str, Article] = {}
    for p in paths:
        if not os.path.exists(p):
            errors.append(InputError(str(p), "", "no such file or directory"))
            continue
        files = list(iter_files([p]))
        if not files:
            errors.append(InputError(str(p), "", "no (non-hidden) files in folder", "warning"))
        for path in files:
            if progress:
                progress(str(path))
            found, errs = read_file(path, options)
            errors += errs
            for a in found:
                if a.id in first_seen:
                    errors.append(_rename_duplicate(a, first_seen))
                first_seen[a.id] = a
                articles.append(a)
    return articles, errors


def _rename_duplicate(a: Article, first_seen: dict[str, Article]) -> InputError:
    """Give ``a`` the next free ``id~N`` (duplicates are kept apart, never merged)."""
    first, n = first_seen[a.id], 2
    while f"{a.id}~{n}" in first_seen:
        n += 1
    old, a.id = a.id, f"{a.id}~{n}"
    where = f"{first.input} {first.location}".strip()
    reason = f"duplicate id {old!r} (first seen in {where}): renamed to {a.id!r}"
    return InputError(a.input, a.location, reason, "warning")


def read_file(
    path: str | os.PathLike[str], options: IngestOptions | None = None
) -> tuple[list[Article], list[InputError]]:
    """Read the articles of one file (format from its extension, gzip transparently)."""
    reader = _FileReader(Path(path), options or IngestOptions())
    try:
        reader.read()
    except _Skip as e:
        reader.error(e.reason, e.location)
    return reader.articles, reader.errors


class _FileReader:
    """Reads one file, collecting its articles and errors."""

    def __init__(self, path: Path, options: IngestOptions) -> None:
        self.path, self.options, self.name = path, options, str(path)
        self.articles: list[Article] = []
        self.errors: list[InputError] = []
        base = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
        self.stem, self.ext = os.path.splitext(base)
        self.ext = self.ext.lower()

    def error(self, reason: str, location: str = "", severity: str = "error") -> None:
        self.errors.append(InputError(self.name, location, reason, severity))

    def read(self) -> None:
        try:
            raw = self.path.read_bytes()
        except OSError as e:
            raise _Skip(f"cannot read file: {e.strerror or e}") from None
        if raw[:2] == b"\x1f\x8b":
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError, zlib.error) as e:
                raise _Skip(f"corrupt gzip file: {e}") from None
        if self.ext == ".parquet":
            return self.read_parquet(raw)
        known = self.ext in TEXT_EXTS + HTML_EXTS + RECORD_EXTS
        try:
            text = self.decode(raw)
        except _Skip:
            if known:
                raise
            raise _Skip(f"unsupported file type {self.ext or '(no extension)'!r}") from None
        if self.ext in HTML_EXTS:
            self.read_html(text)
        elif self.ext == ".json":
            self.read_json(text)
        elif self.ext in (".jsonl", ".ndjson"):
            self.read_jsonl(text)
        elif self.ext == ".csv":
            self.read_csv(text)
        else:
            self.read_text(text)

    def decode(self, raw: bytes) -> str:
        """Bytes -> text: forced encoding, else BOM, UTF-8, then charset detection."""
        enc = self.options.encoding or next((e for b, e in _BOMS if raw.startswith(b)), None)
        if enc:
            try:
                text = raw.decode(enc)
            except UnicodeDecodeError as e:
                raise _Skip(f"cannot decode as {enc}: {e.reason} at byte {e.start}") from None
            if "\x00" in text:
                raise _Skip("binary file, not text")
            return _normalise(text)
        if b"\x00" in raw:
            raise _Skip("binary file, not text")
        try:
            return _normalise(raw.decode("utf-8-sig"))
        except UnicodeDecodeError:
            pass
        matches = list(charset_normalizer.from_bytes(raw))
        if not matches:
            raise _Skip("binary file, not text (no text encoding fits)")
        best, text = matches[0], str(matches[0])
        close = [m for m in matches[1:] if m.chaos <= best.chaos + _RIVAL_MARGIN]
        rivals = sorted({m.encoding for m in close if str(m) != text})
        if rivals or best.chaos > _MAX_CHAOS or best.coherence < _MIN_COHERENCE:
            also = f"; could also be {', '.join(rivals)}" if rivals else ""
            self.error(
                f"encoding guessed as {best.encoding} (unsure{also}); "
                "set the encoding option if the text looks wrong",
                severity="warning",
            )
        return _normalise(text)

    def add(
        self,
        text: str,
        location: str = "",
        fields: dict[str, str | None] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Check one text and its metadata and keep it as an article (or an error)."""
        if not text.strip():
            return self.error("empty text", location)
        if len(text) > self.options.max_chars:
            return self.error(
                f"text too long: {len(text):,} characters (limit {self.options.max_chars:,})",
                location,
            )
        values = {k: (fields or {}).get(k) for k in FIELDS if k != "text"}
        when = values["published_at"]
        if when is not None and not _is_iso(when):
            self.error(
                f"published_at {when!r} is not ISO 8601 (e.g. 2024-05-01T12:00:00Z): ignored",
                location,
                "warning",
            )
            values["published_at"] = None
        values["id"] = values["id"] or self.stem
        self.articles.append(
            Article(text=text, input=self.name, location=location, meta=meta or {}, **values)
        )

    def read_text(self, text: str) -> None:
        """Plain text / markdown: the whole file is the text, its first line the title."""
        title = next((line.strip() for line in text.split("\n") if line.strip()), None)
        if title and self.ext == ".md":
            title = title.lstrip("#").strip() or None
        self.add(text, fields={"title": title})

    def read_html(self, html: str) -> None:
        """Main text and metadata of a web page, via trafilatura."""
        try:
            doc = trafilatura.bare_extraction(html, with_metadata=True, include_comments=False)
        except Exception as e:  # noqa: BLE001 - broken markup must not stop a scan
            raise _Skip(f"HTML extraction failed: {e}") from None
        text = _normalise(getattr(doc, "text", None) or "")
        if not text.strip():
            raise _Skip("no main text found in HTML")
        self.add(text, fields={f: _as_str(getattr(doc, a, None)) for f, a in _HTML_META.items()})

    def read_json(self, text: str) -> None:
        """A list of records, an object wrapping one, or a single record."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            if e.msg == "Extra data":  # really JSON Lines under a .json name
                return self.read_jsonl(text)
            raise _Skip(f"invalid JSON: {e.msg} (column {e.colno})", f"line {e.lineno}") from None
        if isinstance(data, dict):
            key = next((k for k in JSON_LIST_KEYS if isinstance(data.get(k), list)), None)
            data = data[key] if key else [data]
        if not isinstance(data, list):
            raise _Skip("JSON must be a list of records or an object")
        self.records((i, f"record {i}", rec) for i, rec in enumerate(data, 1))

    def read_jsonl(self, text: str) -> None:
        """One JSON record per line; a bad line is reported and the rest still read."""

        def parse() -> Iterator[tuple[int, str, Any]]:
            for n, line in enumerate(text.split("\n"), 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    self.error(f"invalid JSON: {e.msg} (column {e.colno})", f"line {n}")
                    continue
                yield n, f"line {n}", rec

        self.records(parse())

    def read_csv(self, text: str) -> None:
        """A header row, then one record per row; ragged rows are reported and skipped."""
        # article texts easily exceed csv's default 128 KiB field limit
        csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))
        rows = csv.reader(io.StringIO(text, newline=""))

        def parse() -> Iterator[tuple[int, str, Any]]:
            header: list[str] | None = None
            line = 1
            try:
                for row in rows:
                    start, line = line, rows.line_num + 1
                    if not row:
                        continue
                    if header is None:
                        header = [h.strip() for h in row]
                    elif len(row) != len(header):
                        self.error(
                            f"row has {len(row)} fields but the header has {len(header)}",
                            f"row {start}",
                        )
                    else:
                        yield start, f"row {start}", dict(zip(header, row))
            except csv.Error as e:
                self.error(f"invalid CSV: {e} (rest of file skipped)", f"row {line}")

        self.records(parse())

    def read_parquet(self, raw: bytes) -> None:
        """A Parquet table, one record per row (needs pyarrow)."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise _Skip("reading .parquet needs pyarrow: pip install pyarrow") from None
        try:
            rows = pq.read_table(pa.BufferReader(raw)).to_pylist()
        except (pa.ArrowException, OSError) as e:
            raise _Skip(f"invalid Parquet file: {e}") from None
        self.records((i, f"record {i}", rec) for i, rec in enumerate(rows, 1))

    def records(self, items: Iterator[tuple[int, str, Any]]) -> None:
        """Map records to articles: our field names via ``options.fields``, rest to meta."""
        seen, errors_before = 0, len(self.errors)
        for number, location, rec in items:
            seen += 1
            if not isinstance(rec, dict):
                self.error(f"record is not an object but {type(rec).__name__}", location)
                continue
            names = {f: f for f in FIELDS}
            if "id" not in rec and "doc_id" in rec:
                names["id"] = "doc_id"
            names.update(self.options.fields)
            text = rec.get(names["text"])
            if not isinstance(text, str):
                got = "no" if text is None else f"a non-text ({type(text).__name__})"
                self.error(
                    f"{got} text field {names['text']!r}; fields available: "
                    f"{', '.join(map(str, rec)) or '(none)'} (map one with the fields option)",
                    location,
                )
                continue
            values = {f: _as_str(rec.get(k)) for f, k in names.items() if f != "text"}
            values["id"] = values["id"] or f"{self.stem}:{number}"
            meta = {k: v for k, v in rec.items() if k not in names.values()}
            self.add(_normalise(text), location, values, meta)
        if not seen and len(self.errors) == errors_before:
            self.error("no records found", severity="warning")


def _normalise(text: str) -> str:
    """Newlines to ``\\n`` and no BOM; nothing else, so offsets stay meaningful."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def _as_str(value: Any) -> str | None:
    """A metadata value as a stripped string (dates as ISO 8601); empty -> None."""
    if value is None:
        return None
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return _normalise(str(value)).strip() or None


def _is_iso(value: str) -> bool:
    """Whether ``value`` is an ISO 8601 date or datetime (a trailing ``Z`` allowed)."""
    v = value.strip()
    if v.endswith(("Z", "z")):
        v = v[:-1] + "+00:00"
    try:
        datetime.fromisoformat(v)
    except ValueError:
        return False
    return True
