"""The embedded default store: a folder (``<results>/.unspin``) holding a fingerprint cache
and article archive in SQLite (``store.sqlite``) plus the doc vectors of an index
(``docs.f32``, appended per add; :meth:`Store.load_index` makes the faiss index).

The cache lets a second scan skip fingerprinting, and the archive lets ``unspin add``
rerun the whole pile so incremental results equal a fresh scan. Fingerprints are keyed
by content (not article id), so identical texts under different ids share one entry.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import hashlib
import json
import os
import socket
import sqlite3
import sys
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from unspin.durable import write_synced
from unspin.fingerprint import (
    FINGERPRINT_VERSION,
    NOUN_CAPITALS,
    article_language,
    other_calendar_words,
)
from unspin.model import Article, Doc, Quote, Sentence, key_json
from unspin.normalise import (
    NAME_INFLECTING,
    hard_wrapped,
    has_arabic_letters,
    has_cjk_letters,
    has_devanagari_letters,
    has_ordinal_stop,
    quote_marks_changed,
    quotes_run_on,
    words,
)

#: bump when the tables change; a store written by a newer schema is refused
STORE_SCHEMA_VERSION = 1
STORE_DIRNAME = ".unspin"
#: the SQLite database of a store, in its folder
DB_NAME = "store.sqlite"
COMMIT_EVERY = 64
#: a memo value pickled to more than this many bytes is kept in a file of its own in
#: the store's ``MEMO_DIRNAME`` folder, its memo row holding ``_MEMO_FILE_MARK``, the
#: file's name and its length (:meth:`Store.memo_put`)
MEMO_FILE_MIN = 1 << 20
MEMO_DIRNAME = "memo"
_MEMO_FILE_MARK = b"unspin-memo-file:"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    key TEXT PRIMARY KEY, embedder TEXT NOT NULL, data TEXT NOT NULL, minhash BLOB,
    n INTEGER NOT NULL, dim INTEGER NOT NULL, sentence_vectors BLOB NOT NULL,
    doc_vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS articles (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS index_ids (faiss_id INTEGER PRIMARY KEY, article_id TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS index_file (
    id INTEGER PRIMARY KEY CHECK (id = 0), gen INTEGER NOT NULL, dim INTEGER NOT NULL);
"""
_ARTICLE_FIELDS = {f.name for f in dataclasses.fields(Article)}
#: the field of an archived article's JSON holding its hashed keys (:meth:`Store.save_articles`)
_ARCHIVED_KEYS = "_keys"


#: seconds a writer waits for another writer's lock on a store or results folder
LOCK_WAIT = 600.0
#: seconds between tries while waiting for a lock
LOCK_POLL = 0.2
#: the lock file inside a locked folder (its content names the holder)
LOCK_NAME = ".lock"
#: seconds SQLite waits on a busy database before giving up (a transient error)
SQLITE_BUSY_TIMEOUT = 60.0
#: permissions of everything the store and the results writer create: owner only
DIR_MODE, FILE_MODE = 0o700, 0o600


class StoreError(RuntimeError):
    """The store folder cannot be used (corrupt, unreadable or from a newer unspin)."""


class LockError(StoreError):
    """Another writer holds a store or results folder and did not let go in time."""


def private_dir(path: Path) -> Path:
    """Create ``path`` (and parents) owner-only (0700); an existing folder keeps its mode."""
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        os.chmod(path, DIR_MODE)
    return path


def lang_of(article: Article) -> str | None:
    """The article's language as :func:`unspin.fingerprint.prepare` takes it (declared, or
    detected); None for a text the detector cannot read (lone surrogates: ingest
    replaces them before any doc is made)."""
    try:
        return article_language(article)[0]
    except (UnicodeError, ValueError):
        return None


def _other_calendar(text: str) -> bool:
    other = other_calendar_words()
    return any(w in other for w in words(text))


def cache_key(article: Article, embedder: str) -> str:
    """sha1 over everything that decides a Doc: fingerprint version, embedder, inputs.

    A hard-wrapped text (:func:`unspin.normalise.hard_wrapped`) is read in paragraphs
    since fingerprint version fp-9's code, which read it line by line: its key carries
    a mark of that, so its docs cached before are not reused (every other text's docs
    are the same as they were, and keep their keys). So is a text with a German ordinal
    before a capitalised word ("am 3. Oktober", :func:`unspin.normalise.has_ordinal_stop`),
    which earlier code cut into two sentences there, and a text with a quotation in
    marks earlier code did not read (:func:`unspin.normalise.quote_marks_changed`), or
    with one that runs on past a paragraph's end (:func:`unspin.normalise.quotes_run_on`),
    which earlier code read within one paragraph only; and a text with Han, kana or Hangul
    letters, whose tagged names earlier code did not read into its keys
    (:func:`unspin.normalise.tagged_names`), or with Arabic letters, whose rare words it
    did not read, or read with the clitics written onto them
    (:func:`unspin.normalise.rare_script_words`); and a text with a month or weekday name
    other than an English one (:func:`unspin.fingerprint.other_calendar_words`), which
    earlier code keyed in Spanish only, and by its own spelling; and a text in a language
    that capitalises every noun (:data:`unspin.fingerprint.NOUN_CAPITALS`, detected as
    :func:`unspin.fingerprint.prepare` does), whose common nouns earlier code keyed as
    names; and a text in a language whose names take case endings
    (:data:`unspin.normalise.NAME_INFLECTING`), whose names' stems earlier code did not
    key (:func:`unspin.normalise.name_stem`)."""
    version = FINGERPRINT_VERSION + ("+wrap" if hard_wrapped(article.text) else "")
    if has_ordinal_stop(article.text):  # split after the ordinal by earlier code
        version += "+ord"
    if quote_marks_changed(article.text):  # its quotations were not read by earlier code
        version += "+q"
    if quotes_run_on(article.text):  # read within one paragraph by earlier code
        version += "+runs"
    if has_cjk_letters(article.text):  # its Japanese, Korean or Chinese names: keys now
        version += "+cjk"
    if has_devanagari_letters(article.text):  # its rare Hindi words: keys now
        version += "+deva"
    if has_arabic_letters(article.text):  # its rare Arabic words: keys now
        version += "+arab3"  # "+arab": read with clitics; "+arab2": unstemmed
        if article.lang == "fa" or "\u06a9" in article.text or "\u06cc" in article.text:
            version += "+fa"  # Persian rare words: keys now
        if any(c in article.text for c in "\u06c1\u06d2\u0679\u0688\u0691"):
            version += "+ur"  # Urdu's letters: its rare words keys now
    if _other_calendar(article.text):  # month or weekday names keyed since session 51
        version += "+cal"
    lang = lang_of(article)
    if lang in NOUN_CAPITALS:  # its common nouns no story keys since session 51
        version += "+nouns"
    if lang in NAME_INFLECTING:  # its names' stems story keys since session 52
        version += "+stems"
    parts = [version, embedder, article.text, article.title, article.lang]
    # surrogatepass: a text that is not valid Unicode still has a key (ingest replaces
    # lone surrogates, but articles handed to the API directly are not read by ingest)
    raw = key_json(parts).encode("utf-8", "surrogatepass")
    return hashlib.sha1(raw).hexdigest()


def _dumps(obj: Any) -> str:
    """JSON for a TEXT column; all-ASCII escapes when a string is not valid Unicode (a
    lone surrogate), which SQLite could not store."""
    text = json.dumps(obj, ensure_ascii=False, default=str)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(obj, default=str)
    return text


# ---------------------------------------------------------------- writer lock

_held: dict[str, int] = {}  # lock file -> how many times this process holds it
_held_lock = threading.Lock()


def lock_holder(folder: str | os.PathLike) -> dict[str, Any] | None:
    """What the lock file of ``folder`` says about its holder (pid, host, command,
    since); None when there is none. The file may name a writer that has since exited:
    the lock itself (``flock``) dies with its process, the note stays."""
    try:
        return json.loads((Path(folder) / LOCK_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def describe_holder(info: dict[str, Any] | None) -> str:
    if not info:
        return "another process (it left no note)"
    return (
        f"pid {info.get('pid')} on {info.get('host')} ({info.get('command')}), "
        f"since {info.get('since')}"
    )


@contextmanager
def writer_lock(
    folder: str | os.PathLike,
    wait: float | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold the writer lock of ``folder`` (a store or results folder) for the block.

    One writer at a time: another waits up to ``wait`` seconds (``LOCK_WAIT``), telling
    ``on_wait`` once who holds the lock, then raises :class:`LockError` naming the holder
    before it has changed anything. The lock is an ``flock`` on ``folder/.lock``, so a
    killed writer never leaves a stale lock. Re-entrant within a process.
    """
    folder = private_dir(Path(folder))
    path = str((folder / LOCK_NAME).resolve())
    with _held_lock:
        if _held.get(path):
            _held[path] += 1
            reentered = True
        else:
            reentered = False
    if reentered:
        try:
            yield
        finally:
            with _held_lock:
                _held[path] -= 1
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), FILE_MODE)
    try:
        deadline = time.monotonic() + (LOCK_WAIT if wait is None else wait)
        told = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as e:
                if e.errno not in (errno.EWOULDBLOCK, errno.EACCES, errno.EAGAIN):
                    raise StoreError(f"cannot lock {folder}: {e.strerror or e}") from e
            who = describe_holder(lock_holder(folder))
            if time.monotonic() >= deadline:
                raise LockError(
                    f"{folder} is in use by another unspin writer: {who}. Gave up after "
                    f"{LOCK_WAIT if wait is None else wait:.0f} s; nothing was changed. Run "
                    "again when it has finished (the lock is released when it exits)"
                )
            if not told and on_wait is not None:
                on_wait(f"waiting for {folder}: in use by {who}")
                told = True
            time.sleep(LOCK_POLL)
        note = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "command": " ".join(sys.argv) or sys.executable,
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(note) + "\n").encode("utf-8", "backslashreplace"), 0)
        with _held_lock:
            _held[path] = 1
        try:
            yield
        finally:
            with _held_lock:
                _held.pop(path, None)
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)  # releases the flock


_UNREAD = object()


class StoredDoc(Doc):
    """A Doc read from a store without its sentence vectors: they are read from the
    store on first use (:meth:`Store.sentence_vectors_of`), so an add reads the
    vectors of the docs its work touches (the new articles' pairs, the components they
    join), not the whole pile's (about 28 MB at Reuters 2,000). Equal to the Doc it
    stands for (the same fields); pickled and copied with its vectors read."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.__dict__["_vectors"] = _UNREAD
        self.__dict__["_source"] = None
        self.__dict__["_rows"] = None
        self.__dict__["_tail"] = None
        self.__dict__["_minhash_raw"] = None
        super().__init__(*args, **kwargs)

    def _read_tail(self) -> None:
        """Parse the stored row's ``tokens`` and ``keys`` (:func:`_split_tail`) now."""
        tail = self.__dict__.get("_tail")
        if tail is not None:
            d = json.loads(tail)
            self.__dict__["_tokens"], self.__dict__["_keys"] = d["tokens"], d["keys"]
            self.__dict__["_tail"] = None

    @property  # type: ignore[override]
    def tokens(self) -> list[list[str]]:  # noqa: D102
        self._read_tail()
        return self.__dict__["_tokens"]

    @tokens.setter
    def tokens(self, value: list[list[str]]) -> None:
        self._read_tail()
        self.__dict__["_tokens"] = value

    @property  # type: ignore[override]
    def keys(self) -> list[str]:  # noqa: D102
        self._read_tail()
        return self.__dict__["_keys"]

    @keys.setter
    def keys(self, value: list[str]) -> None:
        self._read_tail()
        self.__dict__["_keys"] = value

    @property  # type: ignore[override]
    def minhash(self) -> list[int] | None:  # noqa: D102
        raw = self.__dict__.get("_minhash_raw")
        if raw is not None:  # the stored digest as a list on first use
            self.__dict__["_minhash"] = np.frombuffer(raw, np.uint64).tolist()
            self.__dict__["_minhash_raw"] = None
        return self.__dict__["_minhash"]

    @minhash.setter
    def minhash(self, value: list[int] | None) -> None:
        self.__dict__["_minhash"] = value
        self.__dict__["_minhash_raw"] = None

    @property  # type: ignore[override]
    def sentences(self) -> list[Sentence]:  # noqa: D102
        rows = self.__dict__.get("_rows")
        if rows is not None:
            self.__dict__["_sentences"] = _sentences_of(self.article, rows)
            self.__dict__["_rows"] = None
        return self.__dict__["_sentences"]

    @sentences.setter
    def sentences(self, value: list[Sentence]) -> None:
        self.__dict__["_sentences"] = value
        self.__dict__["_rows"] = None

    def sentence_counts(self) -> tuple[int, int]:
        """How many sentences, and how many of them boilerplate: from the stored rows
        while the sentences are not built (an add counts every doc's for the articles
        table and reads the sentences of a few)."""
        rows = self.__dict__.get("_rows")
        if rows is None:
            return super().sentence_counts()
        counts = self.__dict__.get("_counts")
        if counts is None or counts[0] is not rows:  # asked for three times per add
            counts = self.__dict__["_counts"] = (rows, len(rows), sum(bool(r[3]) for r in rows))
        return counts[1], counts[2]

    @property  # type: ignore[override]
    def sentence_vectors(self) -> np.ndarray | None:  # noqa: D102
        v = self.__dict__["_vectors"]
        if v is _UNREAD:
            store_path, key, n, dim = self.__dict__["_source"]
            v = _read_vectors(store_path, key, n, dim)
            self.__dict__["_vectors"] = v
        return v

    @sentence_vectors.setter
    def sentence_vectors(self, value: np.ndarray | None) -> None:
        self.__dict__["_vectors"] = value
        self.__dict__["_source"] = None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Doc):
            return NotImplemented
        return all(
            _same(getattr(self, f.name), getattr(other, f.name)) for f in dataclasses.fields(Doc)
        )

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_vectors"] = self.sentence_vectors
        state["_source"] = None
        state["_sentences"] = self.sentences
        state["_rows"] = None
        state["_tokens"], state["_keys"], state["_tail"] = self.tokens, self.keys, None
        state["_minhash"], state["_minhash_raw"] = self.minhash, None
        state.pop("_counts", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return a is b or (a is not None and b is not None and np.array_equal(a, b))
    return bool(a == b)


#: read-only connections for lazy vectors, per process, thread and database file (a
#: forked worker must not use its parent's connection, SQLite's are per thread, and a
#: closed store has none)
_READERS: dict[tuple, sqlite3.Connection] = {}
#: the Store that last read lazy docs, per store folder (its connection serves them
#: while it is open, in its process)
_OPEN: dict[str, Store] = {}
#: per store folder, what the last :meth:`Store.load_articles` of this process made of
#: each archive row: the row's JSON -> the Article and the keys kept with it. A process
#: that reads one store again (the service, at every write) makes no new Article for a
#: row unchanged since, so the docs bound to it can be kept too (:data:`_DOC_READS`).
#: Only the last read's rows are held.
_ARCHIVE_READS: dict[str, dict[str, tuple[Article, Any]]] = {}
#: per store folder, the StoredDocs the last lazy :meth:`Store.get_docs` of this process
#: returned, by (cache key, article id); one is given again only for the very Article
#: object it is bound to (an archive row unchanged since: :data:`_ARCHIVE_READS`), with
#: its sentence vectors dropped (read again on first use, as a new one's are). A doc
#: row is never changed under its key (the key hashes what it was made from), so a
#: kept doc is the one a new read would build; what a run sets on a doc is either set
#: again by every run (``cross_lingual``, the second encoder's vectors) or a per-doc
#: cache that checks what it was computed from (facts, story keys, the cut).
_DOC_READS: dict[str, dict[tuple[str, str], Doc]] = {}

#: memo kinds whose keys hash what their values are computed from (the code version,
#: the settings, the articles' keys; see :mod:`unspin.pipeline`), so a process may keep
#: what it read. Not everything: a pair result whose corpus answers moved is computed
#: again and stored under its key (:func:`unspin.pipeline.same_answers`), so
#: :meth:`Store.memo_put` drops the kept value of every key it writes, and a process
#: drops all it kept of a store when another process wrote to its memo since
#: (:meth:`Store._memo_check`)
CONTENT_MEMO_KINDS = frozenset({"pair", "local", "component", "inner", "changes", "speakers"})
#: values of :data:`CONTENT_MEMO_KINDS` kept per store folder, most recently used last,
#: when :func:`keep_memo_values` is on (the service: every add reads back the stored
#: results of the pile's pairs, articles and components, ~8,000 values at 20,000
#: articles, whose unpickling was ~10% of an add)
_MEMO_KEPT: dict[str, OrderedDict[tuple[str, str], Any]] = {}
#: at most this many kept values per store folder (the least recently used go first)
MEMO_KEEP_MAX = 100_000
_MEMO_KEEP = {"on": False}
#: per store folder: the generation of the doc-vector file this process last wrote or
#: checked and the arrays whose values its rows hold (row i: the i-th), so an add that
#: appends to it compares no row of a doc whose vector is the same array (20,000 rows
#: stacked and compared: ~0.1 s of every add)
_INDEX_SEEN: dict[str, tuple[int, list[Any]]] = {}


#: per store folder: the memo's write token (:meth:`Store._memo_check`) this process last
#: read or wrote; a kept value is served only while the token is still that one
_MEMO_SEEN: dict[str, str | None] = {}
_UNSEEN = object()


def keep_memo_values(on: bool = True) -> None:
    """Keep (or stop keeping, and drop) the memo values of :data:`CONTENT_MEMO_KINDS`
    this process reads, so a long-running process (the service) does not read and
    unpickle them again at every write (what it writes is read, and kept, next time).
    The kept objects are shared by the Results of successive runs: callers treat what
    :meth:`Store.memo_get` returns as read-only."""
    _MEMO_KEEP["on"] = on
    if not on:
        _MEMO_KEPT.clear()
        _MEMO_SEEN.clear()


def memo_values_kept() -> bool:
    """Whether this process keeps memo values (:func:`keep_memo_values`)."""
    return _MEMO_KEEP["on"]


def _read_vectors(store_path: str, key: str, n: int, dim: int) -> np.ndarray:
    """The sentence vectors of the doc cached under ``key`` in the store at
    ``store_path``: through the open Store of this process when there is one, else
    through a read-only connection of this process's own."""
    st = _OPEN.get(store_path)
    try:
        if (
            st is not None
            and st._con is not None
            and st._pid == os.getpid()
            and st._thread == threading.get_ident()
        ):
            con = st._con
        else:
            db = Path(store_path) / "store.sqlite"
            info = db.stat()
            k = (os.getpid(), threading.get_ident(), store_path, info.st_dev, info.st_ino)
            con = _READERS.get(k)
            if con is None:
                con = _READERS[k] = sqlite3.connect(
                    f"file:{db}?mode=ro", uri=True, timeout=SQLITE_BUSY_TIMEOUT
                )
        row = con.execute("SELECT sentence_vectors FROM docs WHERE key=?", (key,)).fetchone()
    except (OSError, sqlite3.Error) as e:
        raise StoreError(f"cannot read sentence vectors from the store {store_path}: {e}") from e
    if row is None:
        raise StoreError(
            f"the store {store_path} no longer holds the fingerprint {key} read from it "
            "(deleted while a run was reading it); run again"
        )
    return np.frombuffer(row[0], np.float32).reshape(n, dim)


def _sentences_of(article: Article, rows: list[list[Any]]) -> list[Sentence]:
    """The Sentences of a doc's stored rows (:meth:`Store.put_doc`)."""
    return [
        Sentence(
            index=i,
            start=s,
            end=e,
            text=rest[0] if rest else article.text[s:e],
            boilerplate=bool(bp),
            quotes=[(a, b) for a, b in qs],
            quoted_share=share,
        )
        for i, s, e, bp, qs, share, *rest in rows
    ]


#: where a stored doc's ``tokens`` and ``keys`` begin in its JSON (:meth:`Store.put_doc`
#: writes them last)
_TAIL_MARK = ', "tokens": '
#: what the rest of a stored doc's JSON must hold for it to be read without the tail
_HEAD_KEYS = {"sentences", "quotes", "lang", "lang_confidence", "norm_hash"}


def _split_tail(data: str) -> tuple[dict[str, Any], str] | None:
    """A stored doc's JSON (:meth:`Store.put_doc`) parsed without its ``tokens`` and
    ``keys`` (three quarters of its text, and read for the few docs an add's work
    touches): the object before them, parsed, and the JSON object of the two, left for
    :class:`StoredDoc` to parse on first use. The mark can only be the top-level key:
    inside a JSON string a quotation mark is escaped, so ``, "`` cannot occur there, and
    no nested object has that key; still, the split is used only when both halves parse
    as objects with exactly the expected keys (their union is then the whole object),
    else None (the caller parses it whole)."""
    # the first occurrence is the only one (see above): found scanning the head only
    at = data.find(_TAIL_MARK)
    if at < 0:
        return None
    try:
        head = json.loads(data[:at] + "}")
    except ValueError:
        return None
    tail = "{" + data[at + 2 :]
    if not isinstance(head, dict) or "tokens" in head or "keys" in head:
        return None
    if not _HEAD_KEYS <= head.keys():  # written in another order: parsed whole
        return None
    if not tail.startswith('{"tokens": ') or ', "keys": ' not in tail:
        return None
    return head, tail


def _doc_from_row(article: Article, row: tuple, lazy: tuple[str, str] | None = None) -> Doc:
    """A cached Doc (the docs table's columns) bound to ``article``; with ``lazy``
    (the store's path and the doc's key) a :class:`StoredDoc` whose sentence vectors
    are read, and whose Sentences are built, on first use (``row`` then holds None for
    the vectors): an add reads the sentences of the few docs its work touches."""
    data, minhash, n, dim, sv, dv = row
    tail = _split_tail(data) if lazy is not None else None
    d = json.loads(data) if tail is None else tail[0]
    fields = dict(
        article=article,
        sentences=[] if lazy is not None else _sentences_of(article, d["sentences"]),
        lang=d["lang"],
        lang_confidence=d["lang_confidence"],
        norm_hash=d["norm_hash"],
        quotes=[Quote(s, e, t) for s, e, t in d["quotes"]],
        doc_vector=np.frombuffer(dv, np.float32),
        minhash=None
        if minhash is None or lazy is not None
        else np.frombuffer(minhash, np.uint64).tolist(),
        tokens=d["tokens"] if tail is None else [],
        keys=d["keys"] if tail is None else [],
    )
    if lazy is not None:
        doc = StoredDoc(**fields)
        if tail is not None:
            doc.__dict__["_tail"] = tail[1]
        if minhash is not None:  # read as a list only where used (new docs' pairs)
            doc.__dict__["_minhash"], doc.__dict__["_minhash_raw"] = None, minhash
        doc.__dict__["_vectors"] = _UNREAD
        doc.__dict__["_source"] = (lazy[0], lazy[1], n, dim)
        doc.__dict__["_rows"] = d["sentences"]
        return doc
    # read-only views of the row's bytes (nothing writes a doc's vectors in place;
    # a copy of every vector of the pile cost more than the rest of reading it)
    return Doc(**fields, sentence_vectors=np.frombuffer(sv, np.float32).reshape(n, dim))


#: idle read connections kept open per process, one per store database
#: (:func:`_keep_wal`); the oldest is closed beyond this many (a process that opens many
#: stores, as the tests do, holds a few files open, not one per store)
WAL_KEEPERS = 4
_KEEPERS: dict[tuple, sqlite3.Connection] = {}
_KEEPERS_LOCK = threading.Lock()


def _keep_wal(db: Path) -> bool:
    """Hold one idle connection to database ``db`` open in this process (made once, with
    one read, so it holds its shared lock), so that another connection's close is not
    the last one and does not checkpoint the WAL (:meth:`Store.close`). False when it
    cannot be opened (the close then checkpoints, as before)."""
    try:
        info = db.stat()
    except OSError:
        return False
    key = (os.getpid(), info.st_dev, info.st_ino)
    with _KEEPERS_LOCK:
        if key in _KEEPERS:
            return True
        try:
            con = sqlite3.connect(
                db, timeout=SQLITE_BUSY_TIMEOUT, check_same_thread=False, isolation_level=None
            )
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error:
            return False
        _KEEPERS[key] = con
        mine = [k for k in _KEEPERS if k[0] == os.getpid()]
        for k in mine[: max(0, len(mine) - WAL_KEEPERS)]:
            try:
                _KEEPERS.pop(k).close()
            except sqlite3.Error:
                pass
        return True


#: the doc vector file's header: ``_INDEX_MAGIC``, then the generation and the vectors'
#: width as 8-byte little-endian integers (:meth:`Store.write_index`)
_INDEX_MAGIC = b"unspinV1"
INDEX_HEADER = 24


def _index_header(gen: int, dim: int) -> bytes:
    return _INDEX_MAGIC + int(gen).to_bytes(8, "little") + int(dim).to_bytes(8, "little")


def _write_rows(path: Path, offset: int, rows: np.ndarray) -> None:
    """Write ``rows`` at byte ``offset`` of the file ``path`` (cut there first: rows a
    killed writer left past it go) and sync it before anything names them."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.ftruncate(fd, offset)
        os.lseek(fd, offset, os.SEEK_SET)
        write_synced(fd, np.ascontiguousarray(rows, np.float32).tobytes())
    finally:
        os.close(fd)


def _sync_wal(db: Path) -> None:
    """``fsync`` the WAL of database ``db`` and its folder (the WAL may be new since the
    last checkpoint): every committed transaction durable, as a checkpoint leaves it."""
    wal = db.with_name(db.name + "-wal")
    try:
        fd = os.open(wal, os.O_RDONLY)
    except FileNotFoundError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    fd = os.open(db.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Store:
    """Fingerprint cache and article archive in a folder (default: <results>/.unspin)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.db_path = self.path / DB_NAME
        self.index_path = self.path / "docs.faiss"  # earlier versions' index (removed)
        self.vectors_path = self.path / "docs.f32"
        self.hits = self.misses = self._pending = 0
        self._pid, self._thread = os.getpid(), threading.get_ident()
        #: keys kept with the archived articles the last load_articles returned, by the
        #: Article object's id() (with the object: a reused id() is no match), and the
        #: embedder name their cache keys are for
        self._archived: dict[int, tuple[Article, str, str]] = {}
        self._archived_embedder: str | None = None
        try:
            private_dir(self.path)
            if not self.db_path.exists():  # owner-only from the start (SQLite gives its
                # journal and WAL files the database file's permissions)
                os.close(os.open(self.db_path, os.O_WRONLY | os.O_CREAT, FILE_MODE))
            self._con: sqlite3.Connection | None = sqlite3.connect(
                self.db_path, timeout=SQLITE_BUSY_TIMEOUT
            )
        except (OSError, sqlite3.Error) as e:
            raise self._error(e) from e
        try:
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.execute("PRAGMA synchronous=NORMAL")
            version = self._con.execute("PRAGMA user_version").fetchone()[0]
            if version > STORE_SCHEMA_VERSION:
                raise StoreError(
                    f"store {self.path} has schema version {version}, but this unspin reads "
                    f"only up to {STORE_SCHEMA_VERSION}; upgrade unspin or delete the folder"
                )
            self._con.executescript(_SCHEMA)
            self._con.execute(f"PRAGMA user_version={STORE_SCHEMA_VERSION}")
            self._con.commit()
        except sqlite3.Error as e:
            self._con.close()
            raise self._error(e) from e
        except StoreError:
            self._con.close()
            raise

    def _error(self, e: BaseException, file: Path | None = None) -> StoreError:
        """A StoreError that says what to do: wait and retry for a busy store or a
        failing disk or permission (deleting would lose the archive for nothing); rebuild
        only for a store that is corrupt."""
        where = file or self.db_path
        msg = str(e).lower()
        if isinstance(e, sqlite3.OperationalError) and ("locked" in msg or "busy" in msg):
            return StoreError(
                f"the unspin store {where} is busy (another process is writing to it): {e}; "
                "try again when it has finished"
            )
        transient = isinstance(e, OSError) or (
            isinstance(e, sqlite3.OperationalError)
            and any(w in msg for w in ("disk", "i/o", "permission", "readonly", "unable to open"))
        )
        if transient:
            return StoreError(
                f"cannot use the unspin store {where}: {e}; check the folder's permissions "
                "and free space, then try again (the store itself is not damaged)"
            )
        return StoreError(
            f"cannot use the unspin store {where}: {e}; it looks damaged: delete the folder "
            f"{self.path} to rebuild it (it only caches and archives earlier scans; rescan "
            "the articles afterwards)"
        )

    @property
    def con(self) -> sqlite3.Connection:
        if self._con is None:
            raise StoreError(f"store {self.path} is closed")
        return self._con

    # ------------------------------------------------------------ fingerprint cache

    _DOC_COLUMNS = "data, minhash, n, dim, sentence_vectors, doc_vector"
    _LAZY_COLUMNS = "data, minhash, n, dim, NULL, doc_vector"

    def get_doc(self, article: Article, embedder: str) -> Doc | None:
        """The cached Doc for this article's content, bound to ``article``; None on a miss."""
        return self.get_docs([article], embedder)[0]

    def get_docs(
        self, articles: Sequence[Article], embedder: str, lazy: bool = False
    ) -> list[Doc | None]:
        """:meth:`get_doc` for many articles, read in a few queries (one per 500).
        ``lazy``: :class:`StoredDoc` s, whose sentence vectors are read on first use."""
        keys = [self._cache_key(a, embedder) for a in articles]
        rows: dict[str, tuple] = {}
        cols = self._LAZY_COLUMNS if lazy else self._DOC_COLUMNS
        where = str(self.path.resolve()) if lazy else ""
        kept: dict[tuple[str, str], Doc] = {}
        if lazy:
            _OPEN[where] = self
            last = _DOC_READS.get(where, {})
            for a, key in zip(articles, keys):
                doc = last.get((key, a.id))
                if doc is not None and doc.article is a:
                    if doc.__dict__.get("_source") is not None:
                        doc.__dict__["_vectors"] = _UNREAD  # read again when used
                    kept[(key, a.id)] = doc
        try:
            uniq = list(dict.fromkeys(k for a, k in zip(articles, keys) if (k, a.id) not in kept))
            for k in range(0, len(uniq), 500):
                part = uniq[k : k + 500]
                marks = ",".join("?" * len(part))
                for key, *row in self.con.execute(
                    f"SELECT key, {cols} FROM docs WHERE key IN ({marks})", part
                ):
                    rows[key] = tuple(row)
            out: list[Doc | None] = []
            made: dict[tuple[str, str], Doc] = {}
            for a, key in zip(articles, keys):
                doc = kept.get((key, a.id))
                row = rows.get(key) if doc is None else None
                if doc is None and row is None:
                    self.misses += 1
                    out.append(None)
                    continue
                self.hits += 1
                if doc is None:
                    doc = _doc_from_row(a, row, (where, key) if lazy else None)
                made[(key, a.id)] = doc
                out.append(doc)
            if lazy:
                _DOC_READS[where] = made
        except (sqlite3.Error, ValueError, KeyError, TypeError) as e:
            raise self._error(e) from e
        return out

    def _cache_key(self, a: Article, embedder: str) -> str:
        """:func:`cache_key`, taken from the archive when it was kept there for this
        embedder name (the tag :meth:`load_articles` was given holds it)."""
        got = self._archived.get(id(a)) if embedder == self._archived_embedder else None
        if got is not None and got[0] is a:
            return got[1]
        return cache_key(a, embedder)

    def put_doc(self, doc: Doc, embedder: str) -> None:
        """Cache an embedded Doc's fingerprint data (not its article) under its content key."""
        if doc.sentence_vectors is None or doc.doc_vector is None:
            raise ValueError(f"doc {doc.id!r} has no vectors; embed it before caching")
        text = doc.article.text
        sents = []
        for s in doc.sentences:
            row = [s.index, s.start, s.end, s.boilerplate, s.quotes, s.quoted_share]
            if s.text != text[s.start : s.end]:
                row.append(s.text)  # re-slicing would not give it back
            sents.append(row)
        data = {
            "sentences": sents,
            "quotes": [[q.start, q.end, q.text] for q in doc.quotes],
            "lang": doc.lang,
            "lang_confidence": doc.lang_confidence,
            "norm_hash": doc.norm_hash,
            "tokens": doc.tokens,
            "keys": doc.keys,
        }
        sv = np.ascontiguousarray(doc.sentence_vectors, np.float32)
        mh = None if doc.minhash is None else np.array(doc.minhash, np.uint64).tobytes()
        self.con.execute(
            "INSERT OR REPLACE INTO docs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                cache_key(doc.article, embedder),
                embedder,
                _dumps(data),
                mh,
                sv.shape[0],
                sv.shape[1] if sv.ndim == 2 else len(doc.doc_vector),
                sv.tobytes(),
                np.ascontiguousarray(doc.doc_vector, np.float32).tobytes(),
            ),
        )
        self._pending += 1
        if self._pending >= COMMIT_EVERY:
            self.commit()

    # ------------------------------------------------------------ article archive

    def save_articles(
        self,
        articles: Sequence[Article],
        replace: bool = False,
        keys: Sequence[list[str] | None] | None = None,
    ) -> None:
        """Upsert articles by id (first-seen order kept); ``replace`` drops all others first.
        ``keys``: per article, what its hashed keys were worked out with and the keys
        (``[tag, cache key, article key]``, :func:`unspin.pipeline.archive_keys`), kept in
        the same JSON as the article (``_ARCHIVED_KEYS``: a reader of the archive takes
        them only with its own tag, and only from the row they were made from)."""
        rows = []
        for k, a in enumerate(articles):
            data = dataclasses.asdict(a)
            if keys is not None and keys[k] is not None:
                data[_ARCHIVED_KEYS] = keys[k]
            rows.append((a.id, _dumps(data)))
        with self.con:
            if replace:
                self.con.execute("DELETE FROM articles")
            self.con.executemany(
                "INSERT INTO articles (id, data) VALUES (?, ?) "
                "ON CONFLICT(id) DO UPDATE SET data=excluded.data",
                rows,
            )
        self._pending = 0

    def delete_articles(self, ids: Sequence[str]) -> None:
        """Drop archived articles by id (the others keep their order)."""
        with self.con:
            self.con.executemany("DELETE FROM articles WHERE id=?", [(i,) for i in ids])
        self._pending = 0

    def load_articles(
        self, keys_tag: str | None = None, cache_name: str | None = None
    ) -> list[Article]:
        """All archived articles in first-seen order. ``keys_tag``: the keys kept with an
        article under this tag (:meth:`save_articles`) are remembered for the Article
        objects returned (:meth:`archived_keys`; its cache keys for the embedder name
        ``cache_name``, which the tag must stand for), so a run does not hash them again."""
        try:
            rows = self.con.execute("SELECT data FROM articles ORDER BY seq").fetchall()
            out = []
            known = self._archived = {}
            self._archived_embedder = cache_name if keys_tag is not None else None
            where = str(self.path.resolve())
            last, seen = _ARCHIVE_READS.get(where, {}), {}
            for (raw,) in rows:
                made = last.get(raw)
                if made is None:  # a row new or changed since this process last read it
                    d = json.loads(raw)
                    a = Article(**{k: v for k, v in d.items() if k in _ARTICLE_FIELDS})
                    made = (a, d.get(_ARCHIVED_KEYS))
                seen[raw] = made
                a, got = made
                if keys_tag is not None and type(got) is list and len(got) == 3:
                    if got[0] == keys_tag and type(got[1]) is str and type(got[2]) is str:
                        known[id(a)] = (a, got[1], got[2])
                out.append(a)
            _ARCHIVE_READS[where] = seen
            return out
        except (sqlite3.Error, ValueError, TypeError) as e:
            raise self._error(e) from e

    def archived_keys(self, article: Article) -> tuple[str, str] | None:
        """The cache key and article key kept with ``article`` in the archive, when it is
        an Article object the last :meth:`load_articles` returned (with a ``keys_tag``),
        else None (the caller hashes it). The object itself is matched, not its fields: a
        run changes no field of an archived Article, and an article replaced under its id
        is another object."""
        got = self._archived.get(id(article))
        if got is None or got[0] is not article:
            return None
        return got[1], got[2]

    # ------------------------------------------------------------ vector index

    def write_index(self, docs: Sequence[Doc]) -> None:
        """Keep the doc vectors for an inner-product index (:meth:`load_index`); row i ->
        docs[i].id.

        The vectors are a float32 file (``docs.f32``: :data:`INDEX_HEADER` bytes, then
        the rows), the ids the ``index_ids`` table. When the file holds the first docs
        already (the same ids in order, the same vectors: an add appends its articles to
        the archive), only the new docs' rows are written after them and their ids
        added (:meth:`_append_index`); otherwise the file is written whole."""
        if docs and self._append_index(docs):
            return
        if not docs:
            with self.con:
                self.con.execute("DELETE FROM index_ids")
                self.con.execute("DELETE FROM index_file")
            self._pending = 0
            self.vectors_path.unlink(missing_ok=True)
            self.index_path.unlink(missing_ok=True)
            return
        vecs = np.ascontiguousarray(np.stack([d.doc_vector for d in docs]), np.float32)
        gen = int.from_bytes(os.urandom(7), "big")
        tmp = self.vectors_path.with_suffix(".f32.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, FILE_MODE)
        try:
            write_synced(fd, _index_header(gen, vecs.shape[1]) + vecs.tobytes())
        finally:
            os.close(fd)
        os.replace(tmp, self.vectors_path)
        # the file first, then the ids and its generation in one commit: a writer killed
        # between leaves ids of the last generation, which the file no longer matches
        with self.con:
            self.con.execute("DELETE FROM index_ids")
            self.con.executemany(
                "INSERT INTO index_ids VALUES (?, ?)", [(i, d.id) for i, d in enumerate(docs)]
            )
            self.con.execute("DELETE FROM index_file")
            self.con.execute("INSERT INTO index_file VALUES (0, ?, ?)", (gen, vecs.shape[1]))
        self._pending = 0
        self.index_path.unlink(missing_ok=True)  # the faiss file of earlier versions
        _INDEX_SEEN[str(self.path.resolve())] = (gen, [d.doc_vector for d in docs])

    def _index_rows(self) -> tuple[np.ndarray, list[str], int] | None:
        """The kept vectors (memory-mapped), the ids and the file's generation; None when
        none were written or the file is not the generation the ids were committed with
        (a writer killed between the two: stale, not damaged)."""
        try:
            row = self.con.execute("SELECT gen, dim FROM index_file WHERE id = 0").fetchone()
            rows = self.con.execute(
                "SELECT faiss_id, article_id FROM index_ids ORDER BY faiss_id"
            ).fetchall()
        except sqlite3.Error as e:
            raise self._error(e) from e
        if row is None or (rows and rows[-1][0] != len(rows) - 1):
            return None  # none written, or ids not the rows 0..n-1 (not this write's)
        ids = [r[1] for r in rows]
        gen, dim = row
        try:
            with open(self.vectors_path, "rb") as fh:
                head = fh.read(INDEX_HEADER)
            size = self.vectors_path.stat().st_size
        except FileNotFoundError:
            return None
        except OSError as e:
            raise self._error(e, self.vectors_path) from e
        if len(head) < INDEX_HEADER or head[:8] != _INDEX_MAGIC:
            raise self._error(ValueError("not a vector file of unspin"), self.vectors_path)
        if head != _index_header(gen, dim):
            return None  # another generation's file
        if size < INDEX_HEADER + len(ids) * dim * 4:
            raise self._error(ValueError("shorter than its rows"), self.vectors_path)
        if not ids:
            return np.zeros((0, dim), np.float32), ids, gen
        mat = np.memmap(
            self.vectors_path,
            dtype=np.float32,
            mode="r",
            offset=INDEX_HEADER,
            shape=(len(ids), dim),
        )
        return mat.view(np.ndarray), ids, gen

    def _append_index(self, docs: Sequence[Doc]) -> bool:
        """Write the rows of the docs after the kept ones' and add their ids (the rows
        synced first, then the ids committed: a writer killed before the commit leaves
        rows past the committed ones, which are never read and are written over next);
        False (nothing written) when the kept rows are not the first docs' (missing,
        stale, other ids or vectors)."""
        try:
            kept = self._index_rows()
        except StoreError:
            return False
        if kept is None:
            return False
        mat, ids, gen = kept
        n = len(ids)
        if n > len(docs) or [d.id for d in docs[:n]] != ids:
            return False
        if mat.shape[1] != len(docs[0].doc_vector):
            return False
        where = str(self.path.resolve())
        seen = _INDEX_SEEN.get(where)
        # rows of one file generation are never written over (a rewrite is a new one):
        # a doc whose vector is the very array this process saw in its row holds it; the
        # other rows are compared (an add's new doc is read back from the store next time)
        prev = seen[1] if seen is not None and seen[0] == gen else []
        todo = [i for i in range(n) if i >= len(prev) or docs[i].doc_vector is not prev[i]]
        if todo and not np.array_equal(mat[todo], np.stack([docs[i].doc_vector for i in todo])):
            return False
        if n < len(docs):
            vecs = np.ascontiguousarray(np.stack([d.doc_vector for d in docs[n:]]), np.float32)
            _write_rows(self.vectors_path, INDEX_HEADER + n * mat.shape[1] * 4, vecs)
            with self.con:
                self.con.executemany(
                    "INSERT INTO index_ids VALUES (?, ?)",
                    [(i, docs[i].id) for i in range(n, len(docs))],
                )
            self._pending = 0
        _INDEX_SEEN[where] = (gen, [d.doc_vector for d in docs])
        return True

    def load_index(self) -> tuple[Any, list[str]] | None:
        """A faiss inner-product index of the kept doc vectors (faiss id i: row i) and the
        article id of each faiss id (None if none was written, or if a killed writer
        left ids and vectors from different writes)."""
        import faiss

        kept = self._index_rows()
        if kept is None:
            return None
        mat, ids, _ = kept
        index = faiss.IndexIDMap(faiss.IndexFlatIP(mat.shape[1]))
        if ids:
            index.add_with_ids(
                np.ascontiguousarray(mat, np.float32), np.arange(len(ids), dtype=np.int64)
            )
        return index, ids

    # ------------------------------------------------------------ sentence vectors

    def _sentence_table(self) -> None:
        if not getattr(self, "_has_sentences", False):
            self.con.execute(
                "CREATE TABLE IF NOT EXISTS sentence_vectors ("
                "key TEXT PRIMARY KEY, embedder TEXT NOT NULL, vec BLOB NOT NULL)"
            )
            self._has_sentences = True

    def get_sentence_vectors(self, keys: Sequence[str], embedder: str) -> dict[str, np.ndarray]:
        """Cached vectors of the sentences with these keys (see
        :func:`unspin.fingerprint.sentence_key`); keys not cached are left out."""
        self._sentence_table()
        out: dict[str, np.ndarray] = {}
        try:
            for k in range(0, len(keys), 500):
                part = [f"{embedder}:{x}" for x in keys[k : k + 500]]
                marks = ",".join("?" * len(part))
                rows = self.con.execute(
                    f"SELECT key, vec FROM sentence_vectors WHERE key IN ({marks})", part
                ).fetchall()
                for key, vec in rows:
                    out[key.split(":", 1)[1]] = np.frombuffer(vec, np.float32)
        except sqlite3.Error as e:
            raise self._error(e) from e
        return out

    def put_sentence_vectors(self, vectors: dict[str, np.ndarray], embedder: str) -> None:
        """Cache sentence vectors by sentence key, so no sentence is embedded twice.

        The rows are made one at a time as SQLite takes them: a scan of all of Reuters
        puts ~300,000 vectors, whose bytes made as one list held ~600 MB (issue 14)."""
        self._sentence_table()
        with self.con:
            self.con.executemany(
                "INSERT OR REPLACE INTO sentence_vectors VALUES (?, ?, ?)",
                (
                    (f"{embedder}:{k}", embedder, np.ascontiguousarray(v, np.float32).tobytes())
                    for k, v in vectors.items()
                ),
            )
        self._pending = 0

    # ------------------------------------------------------------ memo of derived results

    def _memo_table(self) -> None:
        if not getattr(self, "_has_memo", False):
            self.con.execute(
                "CREATE TABLE IF NOT EXISTS memo ("
                "kind TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, "
                "PRIMARY KEY (kind, key))"
            )
            # one row: a token written with every memo write (:meth:`_memo_check`)
            self.con.execute(
                "CREATE TABLE IF NOT EXISTS memo_token ("
                "id INTEGER PRIMARY KEY CHECK (id = 0), token TEXT NOT NULL)"
            )
            self._has_memo = True

    def _memo_check(self) -> None:
        """Drop this process's kept memo values of the store if another process wrote to
        the memo since this process last read or wrote it (once per Store: a run holds
        the writer lock, so no other process writes during it).

        A value kept from a read is no longer the stored one when a value is stored again
        under its key (a pair result whose corpus answers moved): :meth:`memo_put` drops
        this process's kept copy, but another process's write (``unspin add`` from the
        CLI beside a running service) cannot. Every memo write stores a new random token
        with its values; a token other than the one this process last saw means another
        writer came in between."""
        if getattr(self, "_memo_checked", False) or not _MEMO_KEEP["on"]:
            return
        self._memo_checked = True
        where = str(self.path.resolve())
        row = self.con.execute("SELECT token FROM memo_token WHERE id = 0").fetchone()
        token = row[0] if row else None
        if _MEMO_SEEN.get(where, _UNSEEN) != token:
            _MEMO_KEPT.pop(where, None)
            _MEMO_SEEN[where] = token

    def memo_get(self, kind: str, keys: Sequence[str]) -> dict[str, Any]:
        """Results stored under these keys (unpickled); keys not stored are left out.

        The memo holds per-pair, per-component and per-relation results keyed by
        everything they were computed from (see :mod:`unspin.pipeline`), so a rescan or an
        ``add`` recomputes only what its inputs changed."""
        import pickle

        self._memo_table()
        self._memo_check()
        out: dict[str, Any] = {}
        kept = self._memo_kept(kind)
        if kept is not None:
            for key in keys:
                value = kept.get((kind, key))
                if value is not None:
                    kept.move_to_end((kind, key))
                    out[key] = value
            keys = [key for key in keys if key not in out]
        try:
            for k in range(0, len(keys), 500):
                part = list(keys[k : k + 500])
                marks = ",".join("?" * len(part))
                rows = self.con.execute(
                    f"SELECT key, value FROM memo WHERE kind=? AND key IN ({marks})",
                    [kind, *part],
                ).fetchall()
                for key, value in rows:
                    if value.startswith(_MEMO_FILE_MARK):
                        value = self._memo_file_read(value)
                        if value is None:
                            continue  # its file lost: as if never stored
                    out[key] = got = pickle.loads(value)
                    if kept is not None and got is not None:
                        kept[(kind, key)] = got
        except (sqlite3.Error, pickle.UnpicklingError, EOFError) as e:
            raise self._error(e) from e
        if kept is not None:
            while len(kept) > MEMO_KEEP_MAX:
                kept.popitem(last=False)
        return out

    def _memo_kept(self, kind: str) -> OrderedDict[tuple[str, str], Any] | None:
        """This store's kept values (:func:`keep_memo_values`), if ``kind``'s are kept."""
        if not _MEMO_KEEP["on"] or kind not in CONTENT_MEMO_KINDS:
            return None
        return _MEMO_KEPT.setdefault(str(self.path.resolve()), OrderedDict())

    def memo_put(self, kind: str, items: dict[str, Any]) -> None:
        """Store results by key (pickled), replacing what was there. A value pickled to
        more than ``MEMO_FILE_MIN`` bytes (a run's kept state: pair, neighbour, form,
        statistics) goes to a file of its own (:meth:`_memo_file_write`), its row holding
        only the file's name: SQLite would write it twice (WAL, then the checkpoint,
        each synced) and free the old value's pages (3 s for two 10 MB neighbour states
        at 20,000 articles; the file, 0.05 s)."""
        import pickle

        self._memo_table()
        self._memo_check()  # before this write's token hides another writer's
        files: list[tuple[str, str, str]] = []
        token = uuid.uuid4().hex

        def rows() -> Iterator[tuple[str, str, bytes]]:
            # made one at a time as SQLite takes them: a scan's pair results pickled as
            # one list held hundreds of MB at once (issue 14)
            for k, v in items.items():
                data = pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)
                if len(data) > MEMO_FILE_MIN:
                    name = self._memo_file_write(kind, k, data)
                    files.append((kind, k, name))
                    data = _MEMO_FILE_MARK + f"{name}:{len(data)}".encode()
                yield (kind, k, data)

        with self.con:
            self.con.executemany("INSERT OR REPLACE INTO memo VALUES (?, ?, ?)", rows())
            self.con.execute("INSERT OR REPLACE INTO memo_token VALUES (0, ?)", (token,))
        self._pending = 0
        if _MEMO_KEEP["on"]:
            _MEMO_SEEN[str(self.path.resolve())] = token
        kept = self._memo_kept(kind)
        if kept is not None:  # a value kept from a read is no longer the stored one
            for k in items:
                kept.pop((kind, k), None)
        for kind, k, name in files:  # the values these files held are no longer named
            self._memo_file_prune(kind, k, keep=name)

    @property
    def memo_dir(self) -> Path:
        """Where memo values over ``MEMO_FILE_MIN`` bytes are kept, one file each."""
        return self.path / MEMO_DIRNAME

    @staticmethod
    def _memo_file_prefix(kind: str, key: str) -> str:
        return hashlib.sha1(f"{kind}\0{key}".encode()).hexdigest()[:20]

    def _memo_file_write(self, kind: str, key: str, data: bytes) -> str:
        """Write ``data`` to a new owner-only file named for ``(kind, key)`` and sync
        it (before the row naming it is committed, so a committed row never names a
        file not yet written); returns its name."""
        folder = private_dir(self.memo_dir)
        name = f"{self._memo_file_prefix(kind, key)}-{os.getpid()}-{time.time_ns()}.pkl"
        fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
        try:
            write_synced(fd, data)
        finally:
            os.close(fd)
        return name

    def _memo_file_read(self, ref: bytes) -> bytes | None:
        """The bytes of the file a memo row names; None when it is missing or not of
        the length the row recorded (a cache entry lost, not a damaged store)."""
        try:
            name, size = ref[len(_MEMO_FILE_MARK) :].decode().rsplit(":", 1)
            if "/" in name or name.startswith("."):
                return None
            data = (self.memo_dir / name).read_bytes()
        except (OSError, ValueError):
            return None
        return data if len(data) == int(size) else None

    def _memo_file_prune(self, kind: str, key: str, keep: str) -> None:
        """Remove the files of ``(kind, key)`` other than ``keep`` (the values it held
        before, and any a killed writer left unnamed)."""
        prefix = self._memo_file_prefix(kind, key)
        for p in self.memo_dir.glob(f"{prefix}-*.pkl"):
            if p.name != keep:
                p.unlink(missing_ok=True)

    # ------------------------------------------------------------ housekeeping

    def stats(self) -> dict[str, int]:
        """Counts: cached docs, archived articles, indexed docs, cache hits/misses so far."""
        count = lambda t: self.con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]  # noqa: E731
        return {
            "docs": count("docs"),
            "articles": count("articles"),
            "indexed": count("index_ids"),
            "hits": self.hits,
            "misses": self.misses,
        }

    def commit(self) -> None:
        self.con.commit()
        self._pending = 0

    def close(self) -> None:
        """Commit pending writes, make them durable and close (safe to call twice).

        SQLite checkpoints the WAL into the database when the last connection to it
        closes (0.1-0.6 s after an add at Reuters 5,000: the add's pages copied and the
        file synced). The process keeps one idle reader connection per store
        (:func:`_keep_wal`), so closing leaves the WAL for the next run to read instead;
        what the checkpoint's syncs gave, the WAL file's own ``fsync`` here gives (the
        commits run with ``synchronous=NORMAL``, unsynced): a run that returned has its
        writes on disk, and one killed at any instant leaves a WAL that the next opener
        reads up to its last commit. The WAL is still checkpointed by SQLite's automatic
        checkpoint (``wal_autocheckpoint`` pages, during commits) and when the process's
        last connection closes (at exit)."""
        if self._con is not None:
            self._con.commit()
            kept = _keep_wal(self.db_path)
            if kept:
                _sync_wal(self.db_path)
            self._con.close()
            self._con = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
