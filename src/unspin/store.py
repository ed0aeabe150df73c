"""The embedded default store: a folder (``<results>/.unspin``) holding a fingerprint cache
and article archive in SQLite (``store.sqlite``) plus a faiss index of doc vectors
(``docs.faiss``).

The cache lets a second scan skip fingerprinting, and the archive lets ``unspin add``
rerun the whole pile so incremental results equal a fresh scan. Fingerprints are keyed
by content (not article id), so identical texts under different ids share one entry.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from unspin.fingerprint import FINGERPRINT_VERSION
from unspin.model import Article, Doc, Quote, Sentence

#: bump when the tables change; a store written by a newer schema is refused
STORE_SCHEMA_VERSION = 1
STORE_DIRNAME = ".unspin"
COMMIT_EVERY = 64

_SCHEMA = """
CREATE TABLE IF NOT EXISTS docs (
    key TEXT PRIMARY KEY, embedder TEXT NOT NULL, data TEXT NOT NULL, minhash BLOB,
    n INTEGER NOT NULL, dim INTEGER NOT NULL, sentence_vectors BLOB NOT NULL,
    doc_vector BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS articles (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS index_ids (faiss_id INTEGER PRIMARY KEY, article_id TEXT NOT NULL);
"""
_ARTICLE_FIELDS = {f.name for f in dataclasses.fields(Article)}


class StoreError(RuntimeError):
    """The store folder cannot be used (corrupt, unreadable or from a newer unspin)."""


def cache_key(article: Article, embedder: str) -> str:
    """sha1 over everything that decides a Doc: fingerprint version, embedder, inputs."""
    parts = [FINGERPRINT_VERSION, embedder, article.text, article.title, article.lang]
    return hashlib.sha1(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()


class Store:
    """Fingerprint cache and article archive in a folder (default: <results>/.unspin)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.db_path = self.path / "store.sqlite"
        self.index_path = self.path / "docs.faiss"
        self.hits = self.misses = self._pending = 0
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            self._con: sqlite3.Connection | None = sqlite3.connect(self.db_path)
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
        return StoreError(
            f"cannot use the unspin store {file or self.db_path}: {e}; delete the folder "
            f"{self.path} to rebuild it (it only caches and archives earlier scans)"
        )

    @property
    def con(self) -> sqlite3.Connection:
        if self._con is None:
            raise StoreError(f"store {self.path} is closed")
        return self._con

    # ------------------------------------------------------------ fingerprint cache

    def get_doc(self, article: Article, embedder: str) -> Doc | None:
        """The cached Doc for this article's content, bound to ``article``; None on a miss."""
        try:
            row = self.con.execute(
                "SELECT data, minhash, n, dim, sentence_vectors, doc_vector FROM docs WHERE key=?",
                (cache_key(article, embedder),),
            ).fetchone()
            if row is None:
                self.misses += 1
                return None
            data, minhash, n, dim, sv, dv = row
            d = json.loads(data)
            sents = [
                Sentence(
                    index=i,
                    start=s,
                    end=e,
                    text=rest[0] if rest else article.text[s:e],
                    boilerplate=bool(bp),
                    quotes=[(a, b) for a, b in qs],
                    quoted_share=share,
                )
                for i, s, e, bp, qs, share, *rest in d["sentences"]
            ]
            doc = Doc(
                article=article,
                sentences=sents,
                lang=d["lang"],
                lang_confidence=d["lang_confidence"],
                norm_hash=d["norm_hash"],
                quotes=[Quote(s, e, t) for s, e, t in d["quotes"]],
                sentence_vectors=np.frombuffer(sv, np.float32).reshape(n, dim).copy(),
                doc_vector=np.frombuffer(dv, np.float32).copy(),
                minhash=None if minhash is None else np.frombuffer(minhash, np.uint64).tolist(),
                tokens=d["tokens"],
                keys=d["keys"],
            )
        except (sqlite3.Error, ValueError, KeyError, TypeError) as e:
            raise self._error(e) from e
        self.hits += 1
        return doc

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
                json.dumps(data, ensure_ascii=False),
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

    def save_articles(self, articles: Sequence[Article], replace: bool = False) -> None:
        """Upsert articles by id (first-seen order kept); ``replace`` drops all others first."""
        with self.con:
            if replace:
                self.con.execute("DELETE FROM articles")
            self.con.executemany(
                "INSERT INTO articles (id, data) VALUES (?, ?) "
                "ON CONFLICT(id) DO UPDATE SET data=excluded.data",
                [(a.id, json.dumps(dataclasses.asdict(a), default=str)) for a in articles],
            )
        self._pending = 0

    def load_articles(self) -> list[Article]:
        """All archived articles in first-seen order."""
        try:
            rows = self.con.execute("SELECT data FROM articles ORDER BY seq").fetchall()
            return [
                Article(**{k: v for k, v in json.loads(r[0]).items() if k in _ARTICLE_FIELDS})
                for r in rows
            ]
        except (sqlite3.Error, ValueError, TypeError) as e:
            raise self._error(e) from e

    # ------------------------------------------------------------ vector index

    def write_index(self, docs: Sequence[Doc]) -> None:
        """Write an inner-product faiss index of the doc vectors; faiss id i -> docs[i].id."""
        import faiss

        with self.con:
            self.con.execute("DELETE FROM index_ids")
            self.con.executemany(
                "INSERT INTO index_ids VALUES (?, ?)", [(i, d.id) for i, d in enumerate(docs)]
            )
        self._pending = 0
        if not docs:
            self.index_path.unlink(missing_ok=True)
            return
        vecs = np.ascontiguousarray(np.stack([d.doc_vector for d in docs]), np.float32)
        index = faiss.IndexIDMap(faiss.IndexFlatIP(vecs.shape[1]))
        index.add_with_ids(vecs, np.arange(len(docs), dtype=np.int64))
        tmp = self.index_path.with_suffix(".faiss.tmp")
        faiss.write_index(index, str(tmp))
        os.replace(tmp, self.index_path)

    def load_index(self) -> tuple[Any, list[str]] | None:
        """The faiss index and the article id of each faiss id (None if none was written)."""
        import faiss

        if not self.index_path.exists():
            return None
        try:
            index = faiss.read_index(str(self.index_path))
            ids = self.con.execute("SELECT article_id FROM index_ids ORDER BY faiss_id").fetchall()
        except (RuntimeError, sqlite3.Error) as e:
            raise self._error(e, self.index_path) from e
        if index.ntotal != len(ids):
            reason = f"{index.ntotal} vectors but {len(ids)} ids"
            raise self._error(ValueError(reason), self.index_path)
        return index, [r[0] for r in ids]

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
        """Cache sentence vectors by sentence key, so no sentence is embedded twice."""
        self._sentence_table()
        with self.con:
            self.con.executemany(
                "INSERT OR REPLACE INTO sentence_vectors VALUES (?, ?, ?)",
                [
                    (f"{embedder}:{k}", embedder, np.ascontiguousarray(v, np.float32).tobytes())
                    for k, v in vectors.items()
                ],
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
            self._has_memo = True

    def memo_get(self, kind: str, keys: Sequence[str]) -> dict[str, Any]:
        """Results stored under these keys (unpickled); keys not stored are left out.

        The memo holds per-pair, per-component and per-relation results keyed by
        everything they were computed from (see :mod:`unspin.pipeline`), so a rescan or an
        ``add`` recomputes only what its inputs changed."""
        import pickle

        self._memo_table()
        out: dict[str, Any] = {}
        try:
            for k in range(0, len(keys), 500):
                part = list(keys[k : k + 500])
                marks = ",".join("?" * len(part))
                rows = self.con.execute(
                    f"SELECT key, value FROM memo WHERE kind=? AND key IN ({marks})",
                    [kind, *part],
                ).fetchall()
                for key, value in rows:
                    out[key] = pickle.loads(value)
        except (sqlite3.Error, pickle.UnpicklingError, EOFError) as e:
            raise self._error(e) from e
        return out

    def memo_put(self, kind: str, items: dict[str, Any]) -> None:
        """Store results by key (pickled), replacing what was there."""
        import pickle

        self._memo_table()
        with self.con:
            self.con.executemany(
                "INSERT OR REPLACE INTO memo VALUES (?, ?, ?)",
                [
                    (kind, k, pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL))
                    for k, v in items.items()
                ],
            )
        self._pending = 0

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
        """Commit pending writes and close (safe to call twice)."""
        if self._con is not None:
            self._con.commit()
            self._con.close()
            self._con = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
