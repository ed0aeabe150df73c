"""The baselines people use today, run on the same data as unspin in the same run.

* MinHash-LSH near-duplicate detection with datasketch (the field's standard): word
  5-gram shingles, 128 permutations, LSH at Jaccard 0.5 (datasketch's documented default
  use; ``threshold`` is a parameter).
* TF-IDF cosine (scikit-learn) over word unigrams+bigrams with a threshold tuned on a
  training split (``tune_threshold``), never on the items it is evaluated on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from unspin.model import Article
from unspin.normalise import words

Pair = tuple[str, str]


def _pair(a: str, b: str) -> Pair:
    return (a, b) if a < b else (b, a)


def minhash_pairs(
    articles: Sequence[Article], threshold: float = 0.5, num_perm: int = 128, k: int = 5
) -> dict[Pair, float]:
    """Pairs that MinHash-LSH proposes, with their estimated Jaccard similarity."""
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    hashes = {}
    for a in articles:
        toks = words(a.text)
        grams = {" ".join(toks[i : i + k]) for i in range(max(1, len(toks) - k + 1))}
        m = MinHash(num_perm=num_perm, seed=1)
        m.update_batch([g.encode("utf-8") for g in grams])
        hashes[a.id] = m
        lsh.insert(a.id, m)
    out: dict[Pair, float] = {}
    for aid, m in hashes.items():
        for other in lsh.query(m):
            if other != aid:
                out[_pair(aid, other)] = float(m.jaccard(hashes[other]))
    return out


def tfidf_matrix(texts: Sequence[str]):
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True)
    return vec.fit_transform(texts)


def tfidf_pairs(articles: Sequence[Article], min_score: float = 0.3) -> dict[Pair, float]:
    """Every pair with TF-IDF cosine >= ``min_score`` (sparse product, no Python all-pairs)."""
    if len(articles) < 2:
        return {}
    m = tfidf_matrix([a.text for a in articles])
    sims = (m @ m.T).tocoo()
    ids = [a.id for a in articles]
    return {
        _pair(ids[i], ids[j]): float(s)
        for i, j, s in zip(sims.row, sims.col, sims.data)
        if i < j and s >= min_score
    }


def tfidf_sentence_scores(pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """TF-IDF cosine of each sentence pair (vocabulary fitted on all the sentences)."""
    texts = [t for p in pairs for t in p]
    m = tfidf_matrix(texts)
    a, b = m[0::2], m[1::2]
    return np.asarray(a.multiply(b).sum(axis=1)).ravel()


def tune_threshold(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """The score cut that maximises F1 on a training split."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=bool)
    if not len(s) or not y.any():
        return 0.5
    # every distinct score as the cut, at once: pairs at or above it, and true ones
    order = np.argsort(-s, kind="stable")
    s_desc, y_desc = s[order], y[order]
    last = np.r_[s_desc[1:] != s_desc[:-1], True]  # the last pair of each distinct score
    n_pred = np.arange(1, len(s) + 1)[last]
    tp = np.cumsum(y_desc)[last]
    f1 = 2 * tp / (n_pred + y.sum())
    f1[tp == 0] = -1.0
    # ties of the best F1 go to the lowest cut, as a scan upwards would find first
    cuts = s_desc[last]
    best = np.flatnonzero(f1 == f1.max())
    return float(cuts[best].min())
