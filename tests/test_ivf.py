"""The IVF sentence search: finds the exact search's neighbours on a clustered set,
deterministic, independent of the rows' order; the sentence generator switches to it
above ``CandidateParams.sent_exact_max`` rows."""

from __future__ import annotations

import numpy as np

import unspin.candidates as cand
from unspin.candidates import CandidateParams

#: the share of the exact top-6 lists the IVF search must find on the clustered set
#: below (measured 0.977 with the shipped 2 lists per sqrt(n), 16 probes)
MIN_RECALL = 0.95


def clustered(n: int = 6000, d: int = 64, centres: int = 60, noise: float = 1.5) -> np.ndarray:
    """Unit rows around ``centres`` random centres (median neighbour similarity ~0.5),
    with every 50th row given a near-duplicate in place of the row after it."""
    rng = np.random.default_rng(0)
    c = rng.standard_normal((centres, d)).astype(np.float32)
    x = c[rng.integers(0, centres, n)] + noise * rng.standard_normal((n, d)).astype(np.float32)
    for i in range(0, n - 1, 50):
        x[i + 1] = x[i] + 0.05 * rng.standard_normal(d).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    return x.astype(np.float32)


def _pairs(q: np.ndarray, c: np.ndarray) -> set[tuple[int, int]]:
    return set(zip(q.tolist(), c.tolist()))


def test_ivf_finds_most_exact_neighbours_and_every_near_duplicate() -> None:
    x = clustered()
    ids = np.arange(len(x), dtype=np.int64)
    p = CandidateParams()
    q0, c0, _ = cand.top_neighbours(x, ids, x, ids, 6, 0.0)
    q1, c1, s1 = cand.ivf_neighbours(x, ids, 6, 0.0, p.ivf_lists_per_sqrt, p.ivf_nprobe)
    exact, approx = _pairs(q0, c0), _pairs(q1, c1)
    assert len(exact & approx) / len(exact) >= MIN_RECALL
    assert len(approx) <= len(exact)  # at most k per row, as the exact lists
    # every planted near-duplicate pair found both ways; every row its own neighbour
    planted = {(i, i + 1) for i in range(0, len(x) - 1, 50)}
    assert planted | {(b, a) for a, b in planted} <= approx
    assert {(i, i) for i in range(len(x))} <= approx
    # the similarities are the true ones
    assert np.allclose(s1, np.sum(x[q1] * x[c1], axis=1), atol=1e-5)
    # a few probes find fewer
    q2, c2, _ = cand.ivf_neighbours(x, ids, 6, 0.0, p.ivf_lists_per_sqrt, 1)
    assert len(exact & _pairs(q2, c2)) < len(exact & approx)


def test_ivf_is_deterministic_and_independent_of_row_order() -> None:
    x = clustered(n=3000)
    ids = np.arange(len(x), dtype=np.int64)
    a = cand.ivf_neighbours(x, ids, 6, 0.3, 2.0, 16)
    b = cand.ivf_neighbours(x, ids, 6, 0.3, 2.0, 16)
    for u, v in zip(a, b):
        assert np.array_equal(u, v)
    # the same pile in another order: the same centroids (the sample is chosen by
    # content), so the same neighbour pairs
    perm = np.random.default_rng(1).permutation(len(x))
    c = cand.ivf_neighbours(x[perm], ids, 6, 0.3, 2.0, 16)
    moved = _pairs(perm[c[0]], perm[c[1]])
    assert moved == _pairs(a[0], a[1])


def test_content_hash_depends_on_the_row_alone() -> None:
    x = clustered(n=500)
    h = cand.content_hash(x)
    assert len(set(h.tolist())) == len(x)
    assert np.array_equal(cand.content_hash(x[::-1])[::-1], h)
    assert np.array_equal(cand.content_hash(x[7:8]), h[7:8])


def _library_notices(n: int, towns: int) -> list:
    """``n`` templated notices of ``towns`` towns' libraries (ids x0, x1, ...)."""
    from unspin.model import Article

    return [
        Article(
            f"x{i}",
            f"The library in town number {i % towns} will open on Sundays from May. "
            f"Staff at branch {i} said the hours were set after a survey of readers.",
        )
        for i in range(n)
    ]


def test_sentence_generator_uses_ivf_above_sent_exact_max(ivf_calls) -> None:
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint

    base = (
        "The harbour board voted on Tuesday to raise mooring fees by six percent from April. "
        "It cited repairs to the north breakwater that cost two million pounds last winter. "
        "Boat owners objected at the meeting and asked for a delay of one whole year. "
    )
    arts = [Article("a", base), Article("b", base.replace("Tuesday", "Monday"))]
    arts += _library_notices(30, towns=30)
    docs = fingerprint(arts, Config(embedder="hashing"))
    calls = ivf_calls
    exact = cand.sent_knn_arrays(docs, 5, 0.82, params=CandidateParams())
    assert calls == []
    approx = cand.sent_knn_arrays(docs, 5, 0.82, params=CandidateParams(sent_exact_max=4))
    assert len(calls) == 1 and calls[0] > 4
    # the copy found both ways (the approximate search may trade a templated pair for
    # another: measured on Reuters in bench/ann_recall.py)
    assert (0, 1) in set(zip(*[a.tolist() for a in approx]))
    assert (0, 1) in set(zip(*[a.tolist() for a in exact]))


def test_document_generator_uses_ivf_above_doc_exact_max(ivf_calls) -> None:
    """Above ``CandidateParams.doc_exact_max`` documents the document k-NN is the IVF
    search; with every list probed it finds what the exact search finds."""
    from unspin.pipeline import Config, fingerprint

    docs = fingerprint(_library_notices(40, towns=7), Config(embedder="hashing"))
    p = CandidateParams()
    exact = cand.doc_knn_arrays(docs, p.doc_k, p.doc_min_sim)
    assert ivf_calls == []
    below = (len(docs), p.ivf_lists_per_sqrt, p.ivf_nprobe)
    same = cand.doc_knn_arrays(docs, p.doc_k, p.doc_min_sim, ivf=below)
    assert ivf_calls == [] and all(np.array_equal(a, b) for a, b in zip(exact, same))
    # every list probed and every doc a neighbour (k over the pile: no tie at the k-th
    # place, where templated texts have many, is broken one way or the other)
    everywhere = (len(docs) - 1, p.ivf_lists_per_sqrt, 10_000)
    approx = cand.doc_knn_arrays(docs, 60, p.doc_min_sim, ivf=everywhere)
    assert ivf_calls == [len(docs)]
    assert _pairs(*approx) == _pairs(*cand.doc_knn_arrays(docs, 60, p.doc_min_sim))
    # the generator passes the bar from its parameters
    ivf_calls.clear()
    cand.generator_arrays(docs, CandidateParams(doc_exact_max=10))
    assert len(docs) in ivf_calls
    ivf_calls.clear()
    cand.generator_arrays(docs, CandidateParams())
    assert ivf_calls == []
