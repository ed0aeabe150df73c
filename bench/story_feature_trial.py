"""Trial of an extra story feature under the cross-validated procedure, fast.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/story_feature_trial.py base years

The fitting procedure of ``bench/fit_story_model.py`` (same weights fit, grid and
criterion) over the four half-set pair stages (ECB+ and PAC, halves A and B) computed once
and kept in ``/tmp/stories4/halves.pkl``: fold A fits on the A halves and is scored on
the B halves with the same clustering (``cluster``), and the reverse; ``base`` is the
shipped feature set (it reproduces the fit script's fold figures exactly), ``years``
adds ``text_years_off``. A trial, not shipped: see docs/benchmarks.md, session 8.
"""

import itertools
import math
import pickle
import re
import sys
from dataclasses import replace
from pathlib import Path

import fit_story_model as F
import numpy as np
from sklearn.linear_model import LogisticRegression

from unspin.stories import FEATURES, StoryParams, cluster_component, too_far

CACHE = Path("/tmp/stories4/halves.pkl")  # delete after a change to the pair stage


def halves():
    sets = F.load_sets("/tmp/unspin_story_cache")
    if CACHE.exists():
        return sets, pickle.load(CACHE.open("rb"))
    h = {}
    for s in sets:
        for half in "AB":
            h[s.name, half] = F.prepare([d for d in s.docs if s.half[d.id] == half])
            print("prepared", s.name, half, flush=True)
    pickle.dump(h, CACHE.open("wb"))
    return sets, h


def cluster(prep, params, w, b, names):
    groups = []
    for m, cf in prep.comps:
        probs, apart = {}, set()
        for pair, f in cf.items():
            z = b + sum(wk * f[k] for wk, k in zip(w, names))
            probs[pair] = 1.0 if pair in prep.ps.reuse else 1 / (1 + math.exp(-z))
            if pair not in prep.ps.reuse and too_far(f, params):
                apart.add(pair)
        groups.extend(cluster_component(m, probs, params, apart))
    return {prep.docs[i].id: n for n, g in enumerate(groups) for i in g}


def run(sets, H, extra=None, names=FEATURES, drop=("keys",)):
    extra = extra or {}

    def aug(prep):
        comps = []
        for m, cf in prep.comps:
            comps.append(
                (
                    m,
                    {
                        pr: {
                            **f,
                            **{
                                k: fn(prep.docs[pr[0]], prep.docs[pr[1]], f)
                                for k, fn in extra.items()
                            },
                        }
                        for pr, f in cf.items()
                    },
                )
            )
        return F.Prepared(prep.docs, prep.ps, comps)

    H = {k: aug(v) for k, v in H.items()}
    names = tuple(names) + tuple(extra)
    keep = [k for k, f in enumerate(names) if f not in drop]
    out = {}
    for fold in "AB":
        rng = np.random.default_rng(0)
        best = ()
        for scale in F.TIME_SCALES:
            tr = {s.name: F.rescale(H[s.name, fold], scale) for s in sets}
            X, y = [], []
            for s in sets:
                for _, cf in tr[s.name].comps:
                    for (i, j), f in cf.items():
                        a, bb = tr[s.name].docs[i].id, tr[s.name].docs[j].id
                        if s.group is not None and s.group[a] != s.group[bb] and rng.random() > 0.1:
                            continue
                        X.append([f[k] for k in names])
                        y.append(int(s.gold[a] == s.gold[bb]))
            model = LogisticRegression(C=10.0, max_iter=2000).fit(np.array(X)[:, keep], np.array(y))
            coef = dict(zip(keep, model.coef_[0]))
            w = tuple(round(float(coef.get(k, 0.0)), 3) for k in range(len(names)))
            bias = round(float(model.intercept_[0]), 3)
            base = replace(StoryParams(), time_scale_days=scale)
            for values in itertools.product(*F.GRID.values()):
                params = replace(base, **dict(zip(F.GRID, values)))
                per = []
                for s in sets:
                    pred = cluster(tr[s.name], params, w, bias, names)
                    ari, _, _, f1, _ = F.scores([d.id for d in tr[s.name].docs], s.gold, pred)
                    per.append((ari + f1) / 2)
                strict = (
                    params.same_story,
                    -params.attach_max,
                    params.attach_bar,
                    params.attach_link,
                )
                cand = (round(float(np.mean(per)), 4), strict, -scale, params, w, bias)
                best = max(best, cand, key=lambda c: c[:3]) if best else cand
        params, w, bias = best[3], best[4], best[5]
        held = "B" if fold == "A" else "A"
        chosen = ", ".join(f"{k}={getattr(params, k)}" for k in (*F.GRID, "time_scale_days"))
        print(f"fold {fold}: {chosen} w={dict(zip(names, w))} b={bias}")
        for s in sets:
            prep = F.rescale(H[s.name, held], params.time_scale_days)
            pred = cluster(prep, params, w, bias, names)
            ids = [d.id for d in prep.docs]
            r = (*F.scores(ids, s.gold, pred), F.pairs_together(ids, s.gold, pred))
            out[fold, s.name] = r
            print(f"  {s.name} held-out: {F._fmt(r)}")
    for s in sets:
        m = [np.mean([out[f, s.name][k] for f in "AB"]) for k in (0, 3, 5)]
        print(f"mean {s.name}: ARI {m[0]:.3f} F1 {m[1]:.3f} together {m[2]:.3f}")
    return out


YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")


def _latest(doc):
    ys = {int(y) for y in YEAR.findall(doc.article.text)}
    pub = doc.article.published_at
    if pub and pub[:4].isdigit():
        p = int(pub[:4])
        ys = {y for y in ys if y <= p} | {p}
    return max(ys) if ys else None


def text_years_off(a, b, f):
    """Where a publication time is missing: how far apart the latest years the texts
    (or a known publication) put them, 0 when unknown."""
    if f["dated"]:
        return 0.0
    la, lb = _latest(a), _latest(b)
    if la is None or lb is None:
        return 0.0
    return min(1.0, abs(la - lb) / 3.0)


if __name__ == "__main__":
    sets, H = halves()
    for which in sys.argv[1:]:
        print("=====", which, flush=True)
        if which == "base":
            run(sets, H)
        elif which == "years":
            run(sets, H, {"text_years_off": text_years_off})
