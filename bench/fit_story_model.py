"""Fit the story model's logistic weights on half of the ECB+ dev topics.

Usage: .venv/bin/python bench/fit_story_model.py [--fold A|B]
Fold A fits on odd-numbered topics and reports on even ones (B the reverse). The
weights shipped in unspin.stories.StoryParams come from fold A; the held-out ARI of
both folds goes into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from common import ecbplus
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import adjusted_rand_score

from unspin.pipeline import Config, analyse, fingerprint, pair_stage, story_components
from unspin.stories import FEATURES, StoryParams, component_features


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fold", choices="AB", default="A")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--no-fit", action="store_true", help="evaluate the shipped StoryParams")
    ap.add_argument("--drop", default="", help="comma-separated features to leave out")
    args = ap.parse_args()
    arts, sub, top = ecbplus()
    cfg = Config()
    docs = fingerprint(arts, cfg)
    train_odd = args.fold == "A"
    is_train = {d.id: (int(top[d.id]) % 2 == 1) == train_odd for d in docs}
    train = [d for d in docs if is_train[d.id]]
    if args.no_fit:
        return evaluate(docs, sub, is_train, StoryParams(), args.verbose)
    ps = pair_stage(train, cfg)
    X, y = [], []
    rng = np.random.default_rng(0)
    for members in story_components(train, ps, cfg):
        cf = component_features(train, members, ps.features, ps.feature_fn)
        for (i, j), f in cf.items():
            if top[train[i].id] != top[train[j].id] and rng.random() > 0.1:
                continue  # all same-topic pairs (the hard ones), 10% of the rest
            X.append([f[k] for k in FEATURES])
            y.append(int(sub[train[i].id] == sub[train[j].id]))
    keep = [k for k, f in enumerate(FEATURES) if f not in args.drop.split(",")]
    model = LogisticRegression(C=10.0, max_iter=1000).fit(np.array(X)[:, keep], np.array(y))
    coef = dict(zip(keep, model.coef_[0]))
    w = tuple(round(float(coef.get(k, 0.0)), 3) for k in range(len(FEATURES)))
    bias = round(float(model.intercept_[0]), 3)
    print(f"fold {args.fold}: fitted on {len(y)} pairs: weights={w} bias={bias}")
    ids_tr = [d.id for d in train]
    best = (-1.0, 0.5)
    for cut in np.arange(0.3, 0.91, 0.05):
        res = analyse(train, Config(stories=StoryParams(weights=w, bias=bias, same_story=cut)))
        pred = {a: s.id for s in res.stories for a in s.articles}
        ari = adjusted_rand_score([sub[i] for i in ids_tr], [pred[i] for i in ids_tr])
        best = max(best, (ari, round(float(cut), 2)))
    print(f"cut chosen on the training topics: {best[1]} (train ARI {best[0]:.3f})")
    return evaluate(
        docs, sub, is_train, StoryParams(weights=w, bias=bias, same_story=best[1]), args.verbose
    )


def evaluate(docs, sub, is_train, params: StoryParams, verbose: bool) -> int:
    """Print the held-out ARI and the ARI over all ECB+ dev articles."""
    for name, part in (("held-out", [d for d in docs if not is_train[d.id]]), ("all", docs)):
        res = analyse(part, Config(stories=params))
        pred = {a: s.id for s in res.stories for a in s.articles}
        ids = [d.id for d in part]
        ari = adjusted_rand_score([sub[i] for i in ids], [pred[i] for i in ids])
        print(
            f"{name} ARI ({len(ids)} articles, {len({sub[i] for i in ids})} subtopics): {ari:.3f}"
        )
        if verbose and name == "held-out":
            from collections import Counter

            for s in res.stories:
                print(s.id, len(s.articles), Counter(sub[a] for a in s.articles).most_common())
    return 0


if __name__ == "__main__":
    sys.exit(main())
