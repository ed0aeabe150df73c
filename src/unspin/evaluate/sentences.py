"""Sentence-pair tasks (MRPC, STS-B, PAN paraphrase pairs) with unspin's own scorer.

The scorer is the aligner's: embedding cosine, word overlap (Dice, containment) and
word 3-gram containment. For paraphrase decisions a logistic rule over those features
is fitted per fold (10-fold cross-validation on the training split), so no threshold
is ever set on the items it is scored on.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from unspin.align import containment, dice, verbatim
from unspin.embed import Embedder, get_embedder
from unspin.normalise import content_words

FEATURES = ("cosine", "dice", "containment", "verbatim", "length_ratio")


def sentence_features(
    pairs: Sequence[tuple[str, str]], embedder: Embedder | None = None
) -> np.ndarray:
    """``(n, len(FEATURES))`` features of each sentence pair."""
    emb = embedder or get_embedder("use")
    flat = [t for p in pairs for t in p]
    vecs = emb.encode(flat)
    cos = np.clip(np.sum(vecs[0::2] * vecs[1::2], axis=1), 0.0, 1.0)
    rows = []
    for (a, b), c in zip(pairs, cos):
        ta, tb = content_words(a), content_words(b)
        la, lb = max(1, len(a)), max(1, len(b))
        rows.append(
            [c, dice(ta, tb), containment(ta, tb), verbatim(a, b), min(la, lb) / max(la, lb)]
        )
    return np.asarray(rows, dtype=float)


def combined_score(features: np.ndarray) -> np.ndarray:
    """The aligner's pair score: cosine lifted by word overlap (see unspin.align)."""
    cos, lex = features[:, 0], np.maximum(features[:, 1], 0.8 * features[:, 2])
    return np.maximum(cos, 0.5 * cos + 0.5 * lex)


def cv_decisions(features: np.ndarray, labels: Sequence[bool], folds: int = 10, seed: int = 0):
    """Out-of-fold paraphrase decisions from a logistic rule fitted on the other folds."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold

    y = np.asarray(labels, dtype=bool)
    pred = np.zeros(len(y), dtype=bool)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(features, y):
        model = LogisticRegression(max_iter=1000).fit(features[train], y[train])
        pred[test] = model.predict(features[test])
    return pred
