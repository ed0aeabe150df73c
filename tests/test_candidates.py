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
