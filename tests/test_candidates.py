"""Candidate generation: each generator proposes what it should, exact and HNSW search agree."""

from __future__ import annotations

import numpy as np
import pytest

import unspin.candidates as cand
from unspin.model import Article
from unspin.pipeline import Config, fingerprint

BASE = (
    "The harbour board voted on Tuesday to raise mooring fees by 6 percent from April, "
    "citing repairs to the north breakwater that cost 2.3 million pounds last winter. "
)


@pytest.mark.parametrize("exact_max", [10_000, 10])
def test_knn_finds_near_duplicates_exact_and_hnsw(monkeypatch, exact_max: int) -> None:
    monkeypatch.setattr(cand, "EXACT_KNN_MAX", exact_max)
    rng = np.random.default_rng(0)
    v = rng.standard_normal((300, 64)).astype("float32")
    v[1] = v[0] + 0.01 * v[2]
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    _, idx = cand._knn(v, 3)
    assert 1 in idx[0] and 0 in idx[1]


def test_generators_propose_copies_and_shared_quotes() -> None:
    quote = "“We will not let the harbour fall apart while we argue about who pays,” she said."
    docs = fingerprint(
        [
            Article("orig", BASE + "Boat owners objected at the meeting. " + quote),
            Article("copy", BASE + "Boat owners objected at the meeting."),
            Article("quoter", "A council member spoke on Friday about flood defences. " + quote),
            Article("other", "The library will open on Sundays from May, the council said."),
        ],
        Config(),
    )
    pairs = cand.candidate_pairs(docs)
    ids = {(docs[i].id, docs[j].id): why for (i, j), why in pairs.items()}
    assert "minhash" in ids[("orig", "copy")]
    assert "quote" in ids[("orig", "quoter")]
    assert all("other" not in p or "quote" not in w for p, w in ids.items())


def test_block_rows_shrink_with_the_base_and_leave_the_answer_alone(monkeypatch) -> None:
    # a block's similarity matrix stays within KNN_BLOCK_CELLS cells as the base grows
    assert cand.block_rows(1_000) == cand.KNN_BLOCK
    assert cand.block_rows(150_000) * 150_000 <= cand.KNN_BLOCK_CELLS
    assert cand.block_rows(10**9) == 16
    rng = np.random.default_rng(3)
    v = rng.standard_normal((700, 32)).astype("float32")
    v[1::7] = v[::7][: len(v[1::7])] + 0.05 * v[2::7][: len(v[1::7])]  # near pairs
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    ids = np.arange(len(v))
    whole = cand.top_neighbours(v, ids, v, ids, 4, 0.2)
    monkeypatch.setattr(cand, "KNN_BLOCK_CELLS", 700 * 37)  # 37 query rows a block
    assert cand.block_rows(700) == 37
    blocked = cand.top_neighbours(v, ids, v, ids, 4, 0.2)
    assert len(whole[0]) > len(v)  # near pairs found beside each row itself
    # the same neighbours in the same order; a product's last bit may differ with the
    # block's shape (BLAS sums in another order), as between the engines' blocks
    assert np.array_equal(whole[0], blocked[0]) and np.array_equal(whole[1], blocked[1])
    assert np.allclose(whole[2], blocked[2], rtol=0, atol=1e-6)


def test_sorted_unique_equals_np_unique():
    """The sort-based unique (NumPy's hash-based ``np.unique`` of integers is slow on
    the pair codes of a pile) gives ``np.unique``'s values, dtype and counts."""
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 7, 1000, 50_000):
        for hi in (3, 10**12):
            a = rng.integers(0, hi, n)
            assert np.array_equal(cand.sorted_unique(a), np.unique(a))
            assert cand.sorted_unique(a).dtype == np.unique(a).dtype
            got, counts = cand.sorted_unique_counts(a)
            want, wcounts = np.unique(a, return_counts=True)
            assert np.array_equal(got, want) and np.array_equal(counts, wcounts)
    i = np.array([3, 1, 1, 2, 5, 5])
    j = np.array([1, 3, 1, 4, 0, 0])
    assert cand.pair_codes(i, j, 6).tolist() == sorted({1 * 6 + 3, 0 * 6 + 5, 2 * 6 + 4})


def _above_kth_by_partition(
    sim: np.ndarray, k: int, bar: np.floating
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``candidates._above_kth`` as it was first written (every row partitioned, a 2-D
    ``nonzero``): the reference the fast path is tested against."""
    m = sim.shape[1]
    kth = np.partition(sim, m - k, axis=1)[:, m - k]
    r, c = np.nonzero(sim >= np.maximum(kth, bar)[:, None])
    return r, c, sim[r, c]


def test_above_kth_equals_cutting_every_row_at_its_kth_value():
    """The exact k-NN's fast cut (partition only the rows with more than k cells at the
    bar, hits found in the flat block) keeps the very cells, in the same order, as
    partitioning every row (the first version): rows with no hit, fewer than k, exactly
    k, more than k, and ties at the k-th value."""
    rng = np.random.default_rng(11)
    for t in range(60):
        rows, cols = int(rng.integers(1, 40)), int(rng.integers(2, 90))
        sim = rng.uniform(-1, 1, size=(rows, cols)).astype(np.float32)
        if t % 3 == 0:  # templated rows: many cells far above the bar
            sim[rng.integers(0, rows, rows // 2 + 1)] = np.float32(0.95)
        if t % 3 == 1:  # ties at the k-th value and at the bar itself
            sim[:, ::3] = np.float32(0.8)
        for k in (1, 3, 6, 7):
            if cols <= k:
                continue
            for bar in (np.float32(-2.0), np.float32(0.5), np.float32(0.8), np.float32(0.99)):
                fast = cand._above_kth(sim, k, bar)
                slow = _above_kth_by_partition(sim, k, bar)
                for f, s in zip(fast, slow):
                    assert f.dtype.kind == s.dtype.kind
                    assert np.array_equal(f, s), (t, k, bar)


def test_above_kth_differs_from_a_plain_bar_where_rows_have_more_than_k():
    """The test above can fail: a cut at the bar alone keeps more than k cells of a row
    that has more (what the partition of those rows is there to cut)."""
    sim = np.array([[0.9, 0.95, 0.91, 0.2], [0.1, 0.9, 0.2, 0.3]], dtype=np.float32)
    r, c, v = cand._above_kth(sim, 2, np.float32(0.5))
    assert list(zip(r.tolist(), c.tolist())) == [(0, 1), (0, 2), (1, 1)]


def _coarse_rows(rng, n: int, dim: int = 8) -> np.ndarray:
    """Rows whose inner products are exact in float32 (multiples of 1/8, few of them):
    every way of multiplying gives the same bits, and ties are everywhere."""
    return (rng.integers(-2, 3, size=(n, dim)) / 8.0).astype(np.float32)


def test_self_search_equals_the_search_of_the_rows_against_themselves(monkeypatch):
    """The tiled search that multiplies each pair of tiles once gives the very arrays,
    in the same order, as every query block against every row: rows in one tile or many,
    a last tile shorter than the others, ties at the k-th value and at the bar,
    duplicated rows, and fewer rows in a tile than k; mapped or not."""
    monkeypatch.setattr(cand, "SELF_TILE_MIN", 4)
    monkeypatch.setattr(cand, "SELF_TILES", 5)
    rng = np.random.default_rng(30)

    def mapper(fn, items, ctx):
        return [fn(ctx, x) for x in items]

    for t in range(40):
        n = int(rng.integers(2, 70))
        vecs = _coarse_rows(rng, n)
        if t % 4 == 0:  # duplicated rows: ties of whole lists
            vecs[rng.integers(0, n, n // 2 + 1)] = vecs[0]
        ids = np.arange(n, dtype=np.int64)
        for k, bar in ((1, 0.0), (3, 0.1), (6, -1.0), (7, 0.25)):
            want = cand.search(vecs, ids, vecs, ids, k, bar)
            for m in (None, mapper):
                got = cand.self_search(vecs, ids, k, bar, m)
                for w, g in zip(want, got):
                    assert w.dtype == g.dtype
                    assert np.array_equal(w, g), (t, n, k, bar)


def test_self_search_multiplies_each_pair_of_tiles_once(monkeypatch):
    """The point of it: a pile cut into t tiles takes t (t + 1) / 2 tile products, not
    t^2 (the test above can fail if it took a shortcut; this one if it did not)."""
    monkeypatch.setattr(cand, "SELF_TILE_MIN", 4)
    monkeypatch.setattr(cand, "SELF_TILES", 4)
    calls = []
    real = cand._tile_tops

    def counted(sim, *a):
        calls.append(sim.shape)
        return real(sim, *a)

    monkeypatch.setattr(cand, "_tile_tops", counted)
    vecs = _coarse_rows(np.random.default_rng(1), 16)
    cand.self_search(vecs, np.arange(16, dtype=np.int64), 3, 0.0)
    assert calls == [(4, 4)] * 6  # the 6 pairs of 4 tiles apart; the 4 own tiles beside


def test_self_search_of_no_rows_is_empty():
    q, b, s = cand.self_search(np.zeros((0, 8), dtype=np.float32), np.zeros(0, np.int64), 3, 0.5)
    assert len(q) == len(b) == len(s) == 0 and s.dtype == np.float32


def test_pair_list_keeps_its_index_arrays() -> None:
    """The candidate list carries its index arrays (no list of tuples converted again);
    it pickles with them, a plain list gives the same arrays, and arrays that are not
    its pairs are refused."""
    import pickle

    import numpy as np

    from unspin.candidates import PairList, pair_index_arrays

    ei, ej = np.array([0, 0, 2], dtype=np.int64), np.array([1, 3, 5], dtype=np.int64)
    pl = PairList(zip(ei.tolist(), ej.tolist()), ei, ej)
    assert pl == [(0, 1), (0, 3), (2, 5)]
    got = pair_index_arrays(pl)
    assert got[0] is ei and got[1] is ej
    back = pickle.loads(pickle.dumps(pl))
    assert back == pl and isinstance(back, PairList) and back.ej.tolist() == [1, 3, 5]
    plain = pair_index_arrays(list(pl))
    assert plain[0].tolist() == [0, 0, 2] and plain[1].tolist() == [1, 3, 5]
    assert [a.tolist() for a in pair_index_arrays([])] == [[], []]
    with pytest.raises(ValueError):
        PairList([(0, 1)], ei, ej)
