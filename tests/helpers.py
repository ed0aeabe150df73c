"""Small builders shared by the aligner and template tests: docs from sentence lists, and
sentence vectors set by hand so a test controls the similarities it is about."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from unspin.fingerprint import prepare
from unspin.model import Article, Doc


def doc_of(doc_id: str, sentences: list[str]) -> Doc:
    """A prepared doc whose sentences are exactly ``sentences``."""
    d = prepare(Article(id=doc_id, text=" ".join(sentences)))
    assert [s.text for s in d.sentences] == sentences
    return d


def embed(a: Doc, b: Doc, pairs: dict[tuple[int, int], float]) -> None:
    """Unit vectors: every sentence its own direction, except ``pairs`` (i, j) -> cosine."""
    n_a, n_b = len(a.sentences), len(b.sentences)
    dim = n_a + n_b
    va = np.eye(dim, dtype=np.float32)[:n_a]
    vb = np.eye(dim, dtype=np.float32)[n_a : n_a + n_b].copy()
    for (i, j), c in pairs.items():
        vb[j] = c * va[i] + np.sqrt(1 - c * c) * vb[j]
    a.sentence_vectors, b.sentence_vectors = va, vb
    # unit length, as the pipeline's document vectors are
    a.doc_vector = va.mean(axis=0) / np.linalg.norm(va.mean(axis=0))
    b.doc_vector = vb.mean(axis=0) / np.linalg.norm(vb.mean(axis=0))


def embed_line_by_line(a: Doc, b: Doc, cos: float) -> None:
    """Two docs of as many sentences whose k-th sentences face each other at ``cos``."""
    n = len(a.sentences)
    assert n == len(b.sentences)
    embed(a, b, {(k, k): cos for k in range(n)})


def aligned_docs(sa: list[str], sb: list[str], cos: float) -> tuple[Doc, Doc]:
    """Two docs of these sentences whose k-th sentences face each other at ``cos`` (others
    orthogonal): tests of the aligner's rules, not of the embedder."""
    a, b = doc_of("a", sa), doc_of("b", sb)
    embed_line_by_line(a, b, cos)
    return a, b


def count_calls(monkeypatch, module, name: str) -> dict[str, int]:
    """Replace ``module.name`` by a wrapper that counts its calls (``["n"]``, which a
    test may reset) and calls the original."""
    real = getattr(module, name)
    calls = {"n": 0}

    def counting(*args, **kwargs):
        calls["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def record_calls(monkeypatch, owner, name: str, what) -> list:
    """Replace ``owner.name`` by a wrapper that appends ``what(*args)`` of each call to the
    list returned (which a test may clear) and calls the original."""
    real = getattr(owner, name)
    seen: list = []

    def recording(*args, **kwargs):
        seen.append(what(*args, **kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return seen


#: a wire item as Reuters-21578 distributes it: fixed-width lines that stop mid-sentence,
#: an indented line opening a paragraph (:func:`unspin.normalise.hard_wrapped`)
WRAPPED = (
    "Texas Commerce Bancshares Inc said its\n"
    "Houston bank filed an application with the\n"
    "Comptroller of the Currency to create the largest\n"
    "banking network in the county, the chairman said.\n"
    "    The bank said the network would link 31 banks\n"
    "having 13.5 billion dlrs in assets.\n"
)


def bench_module(name: str):
    """The module ``bench/<name>.py``, loaded from its file (bench is no package)."""
    import importlib.util

    bench = Path(__file__).resolve().parents[1] / "bench"
    if str(bench) not in sys.path:  # its siblings (``from common import ...``), as a run has
        sys.path.insert(0, str(bench))
    path = bench / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[name] = mod  # as an import does (dataclasses look their module up there)
    spec.loader.exec_module(mod)
    return mod
