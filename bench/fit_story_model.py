"""Fit the story model on half of the ECB+ dev topics; report the other half.

Usage: .venv/bin/python bench/fit_story_model.py [--fold A|B] [--drop keys] [--no-fit]
Fold A fits on odd-numbered topics and reports on even ones (B the reverse). Fitting
has two steps, both on the training topics only: the logistic weights over
``unspin.stories.FEATURES`` (pairs of the same topic: the look-alike events), then the
clustering cut-offs (average-linkage cut and the fragment-attachment pass) by a grid
search for the best mean of ARI and B-cubed F1. The weights shipped in
``unspin.stories.StoryParams`` come from fold A; the held-out figures of both folds go
into docs/benchmarks.md. Fingerprints are cached in ``--cache`` (a pickle in /tmp).
"""

from __future__ import annotations

import argparse
import itertools
import os
import pickle
import sys
from collections import Counter
from dataclasses import replace

import numpy as np
from common import ecbplus
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import adjusted_rand_score

from unspin.evaluate.metrics import bcubed
from unspin.fingerprint import FINGERPRINT_VERSION
from unspin.pipeline import Config, analyse, fingerprint, pair_stage, story_components
from unspin.stories import (
    FEATURES,
    StoryParams,
    cluster_component,
    component_features,
    story_probability,
)

GRID = {
    "same_story": (0.55, 0.6, 0.65, 0.7, 0.75),
    "attach_max": (0, 2, 4, 6),
    "attach_bar": (0.2, 0.3, 0.4),
    "attach_link": (0.65, 0.75, 0.85),
}


def cached_docs(arts, cfg: Config, path: str):
    """Fingerprinted docs, from the pickle at ``path`` when it holds these articles."""
    key = (FINGERPRINT_VERSION, cfg.embedder, [(a.id, a.text) for a in arts])
    if path and os.path.exists(path):
        with open(path, "rb") as fh:
            got_key, docs = pickle.load(fh)
        if got_key == key:
            return docs
    docs = fingerprint(arts, cfg)
    if path:
        with open(path, "wb") as fh:
            pickle.dump((key, docs), fh)
    return docs


def scores(ids, sub, pred) -> tuple[float, float, float, float, int]:
    """ARI, B-cubed precision, recall, F1 and the number of predicted stories."""
    ari = adjusted_rand_score([sub[i] for i in ids], [pred[i] for i in ids])
    b3 = bcubed({i: sub[i] for i in ids}, {i: pred[i] for i in ids})
    return ari, b3.precision, b3.recall, b3.f1, len({pred[i] for i in ids})


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fold", choices="AB", default="A")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--no-fit", action="store_true", help="evaluate the shipped StoryParams")
    ap.add_argument("--drop", default="", help="comma-separated features to leave out")
    ap.add_argument("--cache", default="/tmp/unspin_ecbplus_docs.pkl", help="'' for none")
    args = ap.parse_args()
    arts, sub, top = ecbplus()
    cfg = Config()
    docs = cached_docs(arts, cfg, args.cache)
    train_odd = args.fold == "A"
    is_train = {d.id: (int(top[d.id]) % 2 == 1) == train_odd for d in docs}
    train = [d for d in docs if is_train[d.id]]
    if args.no_fit:
        return evaluate(docs, sub, is_train, StoryParams(), args.verbose)
    ps = pair_stage(train, cfg)
    comps = [
        (m, component_features(train, m, ps.features, ps.feature_fn))
        for m in story_components(train, ps, cfg)
    ]
    X, y = [], []
    rng = np.random.default_rng(0)
    for _, cf in comps:
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

    # clustering cut-offs on the training topics (pair stage and features computed once)
    base = StoryParams(weights=w, bias=bias)
    probs = {
        pair: 1.0 if pair in ps.reuse else story_probability(f, base)
        for _, cf in comps
        for pair, f in cf.items()
    }
    ids_tr = [d.id for d in train]
    best: tuple = ()
    for values in itertools.product(*GRID.values()):
        params = replace(base, **dict(zip(GRID, values)))
        if params.related > params.same_story:
            continue
        groups = [g for m, _ in comps for g in cluster_component(m, probs, params)]
        pred = {train[i].id: n for n, g in enumerate(groups) for i in g}
        ari, _, _, f1, _ = scores(ids_tr, sub, pred)
        # ties: the stricter setting (higher cut, fewer and harder attachments)
        strict = (params.same_story, -params.attach_max, params.attach_bar, params.attach_link)
        cand = (round((ari + f1) / 2, 4), strict, params, ari, f1)
        best = max(best, cand, key=lambda c: c[:2]) if best else cand
    _, _, params, ari, f1 = best
    chosen = ", ".join(f"{k}={getattr(params, k)}" for k in GRID)
    print(f"chosen on the training topics: {chosen} (train ARI {ari:.3f}, B-cubed F1 {f1:.3f})")
    return evaluate(docs, sub, is_train, params, args.verbose)


def evaluate(docs, sub, is_train, params: StoryParams, verbose: bool) -> int:
    """Print ARI and B-cubed on the held-out topics and on all ECB+ dev articles."""
    for name, part in (("held-out", [d for d in docs if not is_train[d.id]]), ("all", docs)):
        res = analyse(part, Config(stories=params))
        pred = {a: s.id for s in res.stories for a in s.articles}
        ids = [d.id for d in part]
        ari, p, r, f1, n = scores(ids, sub, pred)
        print(
            f"{name} ({len(ids)} articles, {len({sub[i] for i in ids})} subtopics, {n} stories):"
            f" ARI {ari:.3f}, B-cubed P {p:.3f} R {r:.3f} F1 {f1:.3f}"
        )
        if verbose and name == "held-out":
            for s in res.stories:
                print(s.id, len(s.articles), Counter(sub[a] for a in s.articles).most_common())
    return 0


if __name__ == "__main__":
    sys.exit(main())
