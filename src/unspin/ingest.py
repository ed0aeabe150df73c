"""Ingest: turn files and folders into ``Article`` records plus ``InputError`` reports.

Bad input never raises: every file, line or record ends up either as an article or as
an error (``severity="error"``: skipped; ``"warning"``: kept with a caveat), so a scan
can always say what it did with each input. Only bad options raise ``ValueError``.
Texts are decoded, newline-normalised and BOM-stripped but otherwise left untouched,
because later stages keep character offsets into ``Article.text`` (the few repairs made
are one character for one character: a byte that does not decode, a lone surrogate, a
control character, each becomes U+FFFD, with a warning).

Reading is bounded whatever the input (docs/security.md): only regular files are
opened (FIFOs, devices and sockets are refused, so nothing blocks or reads forever);
files are read in chunks, and gzip is inflated in chunks, with the size limits checked
while reading; JSON Lines and CSV are read line by line, so one bad line, one stray
byte or one NUL costs that line only; JSON nesting is bounded. Symbolic links and
unreadable folders met inside a folder are reported, not silently skipped.
"""

from __future__ import annotations

import codecs
import csv
import dataclasses
import html as html_lib
import json
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, BinaryIO

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
#: Bytes read (and inflated) per step: the most any one read holds beyond the limits.
READ_CHUNK = 1 << 20
#: The first bytes of a file (after gzip) that decide its encoding and whether it is text.
SNIFF_BYTES = 1 << 20
#: A file whose first bytes hold more than this share of control bytes (NUL and the
#: like; not tab, newlines, form feed or escape) is binary. A stray NUL in a text is
#: far below it: it is replaced in its record, not a reason to drop the file.
BINARY_SHARE = 0.05
#: ... and at least this many of them (one stray control byte in a short text is a typo)
BINARY_MIN_BYTES = 4
#: Records nested deeper than this (JSON objects and lists) are cut there: a deeper
#: field is dropped with a warning; a deeper article field skips the record.
MAX_JSON_DEPTH = 64
_GZIP_MAGIC = b"\x1f\x8b"
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\r\x0b\x0c\x1b")
#: control characters replaced in article texts (C0 except whitespace, and DEL): NUL and
#: the like carry no news, and C libraries downstream read NUL as the end of the text
_CONTROL_CHARS = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: regular-file check: what a path that is not one is, for the error message
_KINDS = (
    (stat.S_ISDIR, "folder"),
    (stat.S_ISFIFO, "named pipe (FIFO)"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
    (stat.S_ISSOCK, "socket"),
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
    #: bytes read from one file (after gzip); past it a single-document file is skipped
    #: and a JSON Lines or CSV file keeps the records before it. A ``.json`` or
    #: ``.parquet`` file is parsed whole, so this also bounds the memory it takes.
    max_file_bytes: int = 256 << 20
    #: bytes of one JSON Lines line or CSV line, and of one text, Markdown or HTML file
    #: (after gzip); a longer one is skipped with an error, without being held in memory
    max_record_bytes: int = 32 << 20
    #: records read from one file (JSON, JSON Lines, CSV, Parquet); the rest is skipped
    #: with an error: a small file of tiny records inflated from gzip cannot fill memory
    max_records: int = 200_000

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
        for name in ("max_chars", "max_file_bytes", "max_record_bytes", "max_records"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)}")
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


class _TooLarge(Exception):
    """The file went past ``max_file_bytes`` while being read."""


def display_path(path: str | os.PathLike[str]) -> str:
    """A path as text that can always be written out: bytes of a file name that are not
    UTF-8 (kept by Python as lone surrogates) are shown as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def iter_files(
    paths: Sequence[str | os.PathLike[str]], errors: list[InputError] | None = None
) -> Iterator[Path]:
    """Yield the files under ``paths`` (folders recursively) in a stable sorted order.

    Hidden files and folders (``.git``, ``.unspin/``) inside folders are skipped; a path
    named explicitly is always used. Nonexistent paths are left to :func:`read_paths`.
    Inside a folder, symbolic links are not followed (a scraped tree may link anywhere,
    e.g. to a private folder; name the target to read it) and folders that cannot be
    read are not silently passed over: both are reported to ``errors`` when given.
    """
    for p in map(Path, paths):
        if not p.is_dir():
            yield p
            continue
        found = []

        def unreadable(e: OSError, top: Path = p) -> None:
            if errors is not None:
                where = display_path(e.filename or top)
                errors.append(InputError(where, "", f"cannot read folder: {e.strerror or e}"))

        for root, dirs, files in os.walk(p, onerror=unreadable):
            for name in [*dirs, *files]:
                full = Path(root, name)
                if not name.startswith(".") and full.is_symlink() and errors is not None:
                    kind = "folder" if full.is_dir() else "file"
                    errors.append(
                        InputError(
                            display_path(full),
                            "",
                            f"symbolic link to a {kind} inside a folder: not followed "
                            f"(name {display_path(os.path.realpath(full))} to read it)",
                        )
                    )
            dirs[:] = [d for d in dirs if not d.startswith(".") and not Path(root, d).is_symlink()]
            found += [
                Path(root, f)
                for f in files
                if not f.startswith(".") and not Path(root, f).is_symlink()
            ]
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
            errors.append(InputError(display_path(p), "", "no such file or directory"))
            continue
        before = len(errors)
        files = list(iter_files([p], errors))
        if not files and len(errors) == before:
            errors.append(
                InputError(display_path(p), "", "no (non-hidden) files in folder", "warning")
            )
        for path in files:
            if progress:
                progress(display_path(path))
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


def read_record(
    label: str, number: int, location: str, record: Any, options: IngestOptions | None = None
) -> tuple[list[Article], list[InputError]]:
    """One record (a dict, as a JSON Lines or Parquet file holds it) read as the reader
    of the file ``label`` reads its record ``number`` at ``location``: field names,
    ``doc_id``, the id of a record without one, stripped metadata, checked dates, limits,
    with the same errors and warnings (for engines that read records themselves)."""
    reader = _FileReader(Path(label), options or IngestOptions())
    reader.records(iter([(number, location, record)]))
    return reader.articles, reader.errors


def read_file(
    path: str | os.PathLike[str], options: IngestOptions | None = None
) -> tuple[list[Article], list[InputError]]:
    """Read the articles of one file (format from its extension, gzip transparently)."""
    reader = _FileReader(Path(path), options or IngestOptions())
    try:
        reader.read()
    except _Skip as e:
        reader.error(e.reason, e.location)
    except (RecursionError, MemoryError, Exception) as e:  # noqa: BLE001
        # a bug, not the input's fault; still, one file must not end the run for the others
        reader.error(f"could not be read (unexpected {type(e).__name__}: {e})")
    return reader.articles, reader.errors


def _open_regular(path: Path) -> BinaryIO:
    """Open ``path`` for reading if it is a regular file (never blocks on a FIFO)."""

    def kind(mode: int) -> str:
        return next((name for test, name in _KINDS if test(mode)), "special file")

    try:
        st = os.stat(path)
    except OSError as e:
        raise _Skip(f"cannot read file: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):
        raise _Skip(f"not a regular file but a {kind(st.st_mode)}: not read")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise _Skip(f"cannot read file: {e.strerror or e}") from None
    st = os.fstat(fd)  # it may have been swapped since the first look
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise _Skip(f"not a regular file but a {kind(st.st_mode)}: not read")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb", buffering=0)


def _raw_chunks(fh: BinaryIO) -> Iterator[bytes]:
    while chunk := fh.read(READ_CHUNK):
        yield chunk


def _inflate(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    """Inflate gzip data (several members allowed) in pieces of at most ``READ_CHUNK``."""
    d = zlib.decompressobj(31)
    pending = first
    source = iter(rest)
    while True:
        while pending:
            out = d.decompress(pending, READ_CHUNK)
            pending = d.unconsumed_tail
            if out:
                yield out
            if d.eof:
                pending = d.unused_data
                if pending.strip(b"\x00"):
                    d = zlib.decompressobj(31)  # the next gzip member
                else:
                    return
        while out := d.decompress(b"", READ_CHUNK):  # output still held back
            yield out
        pending = next(source, b"")
        if not pending:
            break
    if not d.eof:
        raise EOFError("truncated gzip file (it ends before its last member does)")


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if first:
        yield first
    yield from rest


class _Stream:
    """The bytes of one file, gzip inflated, in chunks, with the size limit checked as
    they arrive (past it, iteration raises ``_TooLarge`` after the bytes up to the
    limit); ``head`` is the start of the data, to sniff its encoding and type."""

    def __init__(self, fh: BinaryIO, limit: int) -> None:
        raw = _raw_chunks(fh)
        first = next(raw, b"")
        self.gzipped = first[:2] == _GZIP_MAGIC
        self._src = _inflate(first, raw) if self.gzipped else _chain(first, raw)
        self.limit, self.read_bytes = limit, 0
        self._buffer: list[bytes] = []
        self._over = False
        self._broken: str | None = None  # why the gzip data ended early
        head = b""
        while len(head) < SNIFF_BYTES and (chunk := self._next()) is not None:
            self._buffer.append(chunk)
            head += chunk
        self.head = head[:SNIFF_BYTES]
        more = self._next()
        if more is not None:
            self._buffer.append(more)
        #: whether ``head`` is the whole file
        self.complete = more is None and not self._over and len(head) == len(self.head)

    def _next(self) -> bytes | None:
        """The next chunk, cut at the limit (then ``_over`` is set); None at the end."""
        if self._over or self._broken:
            return None
        try:
            chunk = next(self._src, None)
        except (OSError, EOFError, zlib.error) as e:
            self._broken = f"corrupt gzip file: {e}"
            return None
        if chunk is not None and self.read_bytes + len(chunk) > self.limit:
            chunk, self._over = chunk[: self.limit - self.read_bytes], True
        if chunk is not None:
            self.read_bytes += len(chunk)
        return chunk

    def __iter__(self) -> Iterator[bytes]:
        while self._buffer:
            yield self._buffer.pop(0)
        while (chunk := self._next()) is not None:
            yield chunk
        if self._over:
            raise _TooLarge()
        if self._broken:  # the data before the damage has been read
            raise _Skip(self._broken)


def _lines(chunks: Iterator[bytes], limit: int) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, line)`` without its newline; ``None`` for a line longer than
    ``limit`` bytes, which is skipped as it is read instead of being held."""
    n, parts, size, too_long = 0, [], 0, False
    for chunk in chunks:
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not too_long:
                size += len(piece)
                if size > limit:
                    too_long, parts = True, []
                else:
                    parts.append(piece)
            if end < 0:
                break
            n += 1
            yield n, None if too_long else b"".join(parts).removesuffix(b"\r")
            parts, size, too_long, start = [], 0, False, end + 1
    if parts or too_long:
        yield n + 1, None if too_long else b"".join(parts).removesuffix(b"\r")


class _FileReader:
    """Reads one file, collecting its articles and errors."""

    def __init__(self, path: Path, options: IngestOptions) -> None:
        self.path, self.options, self.name = path, options, display_path(path)
        self.articles: list[Article] = []
        self.errors: list[InputError] = []
        base = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
        self.stem, self.ext = os.path.splitext(display_path(base))
        self.ext = self.ext.lower()
        self.encoding = "utf-8"
        #: whether bytes that do not decode are an error (a forced or BOM-declared
        #: encoding) or are replaced with U+FFFD and warned about (a detected one)
        self.strict = False

    def error(self, reason: str, location: str = "", severity: str = "error") -> None:
        self.errors.append(InputError(self.name, location, reason, severity))

    def read(self) -> None:
        opts = self.options
        with _open_regular(self.path) as fh:
            stream = _Stream(fh, opts.max_file_bytes)
            if self.ext == ".parquet":
                return self.read_parquet(self._whole(stream, opts.max_file_bytes))
            known = self.ext in TEXT_EXTS + HTML_EXTS + RECORD_EXTS
            try:
                self.choose_encoding(stream.head, stream.complete)
            except _Skip:
                if known:
                    raise
                raise _Skip(f"unsupported file type {self.ext or '(no extension)'!r}") from None
            if self.ext in (".jsonl", ".ndjson"):
                return self.read_jsonl(self.text_lines(stream))
            if self.ext == ".csv":
                return self.read_csv(stream)
            limit = opts.max_file_bytes if self.ext == ".json" else opts.max_record_bytes
            text = self.decode(self._whole(stream, limit))
        if self.ext in HTML_EXTS:
            self.read_html(text)
        elif self.ext == ".json":
            self.read_json(text)
        else:
            self.read_text(text)

    def _whole(self, stream: _Stream, limit: int) -> bytes:
        """The whole file, refused as soon as it passes ``limit`` bytes."""
        parts, size = [], 0
        try:
            for chunk in stream:
                size += len(chunk)
                if size > limit:
                    raise _TooLarge()
                parts.append(chunk)
        except _TooLarge:
            what = "unpacked " if stream.gzipped else ""
            raise _Skip(f"file too large: more than {limit:,} {what}bytes") from None
        return b"".join(parts)

    # ------------------------------------------------------------ decoding

    def choose_encoding(self, head: bytes, complete: bool) -> None:
        """The file's encoding from its first bytes: forced, else BOM, else UTF-8 unless
        most non-ASCII bytes fail as UTF-8 (a stray bad byte is replaced in its line),
        else a charset guess. Refuses binary data."""
        forced = self.options.encoding
        bom = next((e for b, e in _BOMS if head.startswith(b)), None)
        if forced or bom:
            self.encoding, self.strict = forced or bom or "utf-8", True
            if codecs.lookup(self.encoding).name.startswith("utf-8"):
                self._refuse_binary(head)
            return
        self._refuse_binary(head)
        sample = head if complete else head[: max(0, len(head) - 3)]
        text = sample.decode("utf-8", "replace")
        bad = text.count("\ufffd") - sample.count(b"\xef\xbf\xbd")
        non_ascii = len(text) - len(text.encode("ascii", "ignore")) - text.count("\ufffd")
        if bad <= non_ascii:
            self.encoding = "utf-8"
            return
        matches = list(charset_normalizer.from_bytes(sample))
        if not matches:
            raise _Skip("binary file, not text (no text encoding fits)")
        best, guessed = matches[0], str(matches[0])
        close = [m for m in matches[1:] if m.chaos <= best.chaos + _RIVAL_MARGIN]
        rivals = sorted({m.encoding for m in close if str(m) != guessed})
        if rivals or best.chaos > _MAX_CHAOS or best.coherence < _MIN_COHERENCE:
            also = f"; could also be {', '.join(rivals)}" if rivals else ""
            self.error(
                f"encoding guessed as {best.encoding} (unsure{also}); "
                "set the encoding option if the text looks wrong",
                severity="warning",
            )
        self.encoding = best.encoding

    def _refuse_binary(self, head: bytes) -> None:
        n = len(head) - len(head.translate(None, _CONTROL_BYTES))
        if n >= BINARY_MIN_BYTES and n > BINARY_SHARE * len(head):
            raise _Skip("binary file, not text")

    def decode(self, raw: bytes, location: str = "") -> str:
        """Bytes -> text in the file's encoding; bytes that do not decode are an error
        under a declared encoding, else replaced with U+FFFD (with a warning)."""
        enc = "utf-8-sig" if self.encoding in ("utf-8", "utf_8") else self.encoding
        try:
            return _normalise(raw.decode(enc))
        except UnicodeDecodeError as e:
            if self.strict:
                raise _Skip(
                    f"cannot decode as {self.encoding}: {e.reason} at byte {e.start}", location
                ) from None
            n = raw.decode(enc, "replace").count("\ufffd") - raw.decode(enc, "ignore").count(
                "\ufffd"
            )
            self.error(
                f"{n} byte(s) not valid {self.encoding} (first at byte {e.start}) "
                "replaced with U+FFFD",
                location,
                "warning",
            )
            return _normalise(raw.decode(enc, "replace"))

    def text_lines(self, stream: _Stream) -> Iterator[tuple[int, str | None]]:
        """Decoded lines (``None``: too long, already reported). UTF-8 and the one-byte
        and CJK codecs split on the newline byte, so a bad byte stays in its line; UTF-16
        and UTF-32 are decoded as they stream, then split."""
        limit = self.options.max_record_bytes
        try:
            if codecs.lookup(self.encoding).name.startswith(("utf-16", "utf-32")):
                decoder = codecs.getincrementaldecoder(self.encoding)("strict")

                def decoded() -> Iterator[bytes]:
                    try:
                        for chunk in stream:
                            yield decoder.decode(chunk).encode("utf-8")
                        yield decoder.decode(b"", final=True).encode("utf-8")
                    except UnicodeDecodeError as e:
                        raise _Skip(f"cannot decode as {self.encoding}: {e.reason}") from None

                self.encoding, self.strict = "utf-8", True
                chunks: Iterator[bytes] = decoded()
            else:
                chunks = iter(stream)
            for n, raw in _lines(chunks, limit):
                if raw is None:
                    self.error(f"line too long: more than {limit:,} bytes", f"line {n}")
                    yield n, None
                    continue
                try:
                    yield n, self.decode(raw, f"line {n}")
                except _Skip as e:
                    self.error(e.reason, e.location)
                    yield n, None
        except _TooLarge:
            self.error(
                f"file too large: more than {self.options.max_file_bytes:,} bytes; "
                "the lines after this one were not read",
                f"line {n + 1}" if "n" in locals() else "",
            )
        except _Skip as e:
            self.error(
                f"{e.reason}; the lines after this one were not read",
                f"line {n + 1}" if "n" in locals() else "",
            )

    # ------------------------------------------------------------ articles

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
        n_control = len(_CONTROL_CHARS.findall(text))
        if n_control:
            first = _CONTROL_CHARS.search(text)
            code = f"U+{ord(first.group(0)):04X}" if first else ""
            self.error(
                f"{n_control} control character(s) in the text (first {code}) replaced with U+FFFD",
                location,
                "warning",
            )
            text = _CONTROL_CHARS.sub("\ufffd", text)
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
        """Main text and metadata of a web page, via trafilatura; metadata as plain text."""
        try:
            doc = trafilatura.bare_extraction(html, with_metadata=True, include_comments=False)
        except Exception as e:  # noqa: BLE001 - broken markup must not stop a scan
            raise _Skip(f"HTML extraction failed: {type(e).__name__}: {e}") from None
        text = _normalise(getattr(doc, "text", None) or "")
        if not text.strip():
            raise _Skip("no main text found in HTML")
        self.add(
            text,
            fields={f: _markup_free(_as_str(getattr(doc, a, None))) for f, a in _HTML_META.items()},
        )

    def read_json(self, text: str) -> None:
        """A list of records, an object wrapping one, or a single record."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            if e.msg == "Extra data":  # really JSON Lines under a .json name
                lines = ((n, line) for n, line in enumerate(text.split("\n"), 1))
                return self.read_jsonl(lines)
            raise _Skip(f"invalid JSON: {e.msg} (column {e.colno})", f"line {e.lineno}") from None
        except RecursionError:
            raise _Skip("invalid JSON: nested too deeply to parse") from None
        except ValueError as e:  # e.g. an integer with more digits than Python converts
            raise _Skip(f"invalid JSON: {e}") from None
        if isinstance(data, dict):
            key = next((k for k in JSON_LIST_KEYS if isinstance(data.get(k), list)), None)
            data = data[key] if key else [data]
        if not isinstance(data, list):
            raise _Skip("JSON must be a list of records or an object")
        self.records((i, f"record {i}", rec) for i, rec in enumerate(data, 1))

    def read_jsonl(self, lines: Iterator[tuple[int, str | None]]) -> None:
        """One JSON record per line; a bad line is reported and the rest still read."""

        def parse() -> Iterator[tuple[int, str, Any]]:
            for n, line in lines:
                if line is None or not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as e:
                    self.error(f"invalid JSON: {e.msg} (column {e.colno})", f"line {n}")
                    continue
                except RecursionError:
                    self.error("invalid JSON: nested too deeply to parse", f"line {n}")
                    continue
                except ValueError as e:
                    self.error(f"invalid JSON: {e}", f"line {n}")
                    continue
                yield n, f"line {n}", rec

        self.records(parse())

    def read_csv(self, stream: _Stream) -> None:
        """A header row, then one record per row; ragged rows are reported and skipped."""
        # article texts easily exceed csv's default 128 KiB field limit
        csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))

        def text() -> Iterator[str]:
            for _, line in self.text_lines(stream):
                yield "" if line is None else line + "\n"

        rows = csv.reader(text())

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
        """A Parquet table, one record per row (needs pyarrow); its unpacked size is
        checked from its metadata before any column is read."""
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise _Skip("reading .parquet needs pyarrow: pip install pyarrow") from None
        try:
            pf = pq.ParquetFile(pa.BufferReader(raw))
            meta = pf.metadata
            unpacked = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
            if unpacked > self.options.max_file_bytes:
                raise _Skip(
                    f"file too large: {unpacked:,} bytes unpacked "
                    f"(limit {self.options.max_file_bytes:,})"
                )
            rows = pf.read().to_pylist()
        except _Skip:
            raise
        except Exception as e:  # noqa: BLE001 - pyarrow raises many kinds on a bad file
            raise _Skip(f"invalid Parquet file: {e}") from None
        self.records((i, f"record {i}", rec) for i, rec in enumerate(rows, 1))

    def records(self, items: Iterator[tuple[int, str, Any]]) -> None:
        """Map records to articles: our field names via ``options.fields``, rest to meta."""
        seen, errors_before = 0, len(self.errors)
        for number, location, rec in items:
            seen += 1
            if seen > self.options.max_records:
                self.error(
                    f"more than {self.options.max_records:,} records in one file: "
                    "this one and the rest were not read",
                    location,
                )
                break
            if not isinstance(rec, dict):
                self.error(f"record is not an object but {type(rec).__name__}", location)
                continue
            names = {f: f for f in FIELDS}
            if "id" not in rec and "doc_id" in rec:
                names["id"] = "doc_id"
            names.update(self.options.fields)
            rec = self.bounded(rec, set(names.values()), location)
            if rec is None:
                continue
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

    def bounded(self, rec: dict, ours: set[str], location: str) -> dict | None:
        """The record with fields nested deeper than ``MAX_JSON_DEPTH`` dropped and lone
        surrogates (which no UTF-8 output can hold) replaced; None if an article field
        itself is too deep (reported)."""
        deep = [k for k, v in rec.items() if _depth(v, MAX_JSON_DEPTH) > MAX_JSON_DEPTH - 1]
        mine = [k for k in deep if k in ours]
        if mine:
            self.error(f"field {mine[0]!r} nested more than {MAX_JSON_DEPTH} levels deep", location)
            return None
        if deep:
            self.error(
                f"field(s) {', '.join(map(repr, map(str, deep)))} nested more than "
                f"{MAX_JSON_DEPTH} levels deep: dropped",
                location,
                "warning",
            )
            rec = {k: v for k, v in rec.items() if k not in deep}
        fixed: list[str] = []
        rec = {_clean(k, fixed, str(k)): _clean(v, fixed, str(k)) for k, v in rec.items()}
        if fixed:
            where = ", ".join(sorted(set(map(repr, fixed))))
            self.error(
                f"lone surrogate(s) (text that is not valid Unicode) in {where} "
                "replaced with U+FFFD",
                location,
                "warning",
            )
        return rec


def valid_article(article: Article) -> Article:
    """``article`` (given to the API directly, not read by ingest) with lone surrogates in
    its strings replaced by U+FFFD, one for one, as ingest does: text that is not valid
    Unicode cannot be encoded by the language detector, the store or the outputs."""
    fixed: list[str] = []
    values = {
        f: _clean(getattr(article, f), fixed, f)
        for f in ("id", "text", "title", "url", "outlet", "published_at", "lang")
    }
    if not fixed:
        return article
    meta = article.meta if _depth(article.meta, MAX_JSON_DEPTH) < MAX_JSON_DEPTH else {}
    return dataclasses.replace(article, **values, meta=_clean(meta, fixed, "meta"))


def _depth(value: Any, cap: int) -> int:
    """How deeply ``value`` nests lists and dicts (0 for a scalar), counted without
    recursion and only up to ``cap`` + 1."""
    best, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (list, dict)):
            if d + 1 > cap:
                return d + 1
            best = max(best, d + 1)
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return best


def _clean(value: Any, fixed: list[str], name: str) -> Any:
    """``value`` with lone surrogates in its strings replaced (depth already bounded)."""
    if isinstance(value, str):
        if _SURROGATE.search(value):
            fixed.append(name)
            return _SURROGATE.sub("\ufffd", value)
        return value
    if isinstance(value, list):
        return [_clean(v, fixed, name) for v in value]
    if isinstance(value, dict):
        return {_clean(k, fixed, name): _clean(v, fixed, name) for k, v in value.items()}
    return value


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


_SCRIPT = re.compile(r"<(script|style)\b[^>]*>.*?(?:</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>|<[^>]*$")


def _markup_free(value: str | None) -> str | None:
    """A page's metadata value as text: scripts, styles and tags removed, entities
    decoded, whitespace collapsed (a title or site name is text, never markup)."""
    if value is None:
        return None
    text = _TAG.sub(" ", _SCRIPT.sub(" ", value))
    text = " ".join(html_lib.unescape(text).split())
    return text or None


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
