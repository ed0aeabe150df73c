"""Subject agreement in the story model: cross-validated trial and Reuters replay (session 11).

Usage:
  PYTHONPATH=src:bench .venv/bin/python bench/subject_trial.py halves OUT.pkl
  PYTHONPATH=src:bench .venv/bin/python bench/subject_trial.py reuters SKIP N CACHE OUT.pkl
  PYTHONPATH=src:bench .venv/bin/python bench/subject_trial.py cv HALVES.pkl FEATURESET...
  PYTHONPATH=src:bench .venv/bin/python bench/subject_trial.py replay HALVES.pkl REUTERS.pkl \\
      FEATURESET [--sample K --seed S --chars C]

``halves`` keeps the pair stages of the four half-sets (ECB+ and PAC, halves A and B; as
``bench/story_feature_trial.py``, with this checkout's story features, which include
``subjects`` and ``subject_cross`` whether the model reads them or not). ``reuters``
keeps one Reuters slice's pair stage (dated, fingerprints from the store CACHE). ``cv``
runs ``bench/fit_story_model.py``'s procedure (``story_feature_trial.run``: fit on one
half of each set, scored on the other) for each feature set: ``base`` (the shipped
features) or ``base+subjects+subject_cross`` and the like. ``replay`` fits the feature set
on all of both sets (the procedure's ``all`` fit), clusters the Reuters slice with it and
with the shipped model, and prints the ``same_story`` counts and a seeded sample of the
pairs (both openings) to read by hand. Tuning only: the figures to report come from
``bench/fit_story_model.py`` and ``bench/reuters_typing.py`` with the shipped params.
"""

from __future__ import annotations

import argparse
import pickle
import random
import sys
from functools import partial

import fit_story_model as F
import story_feature_trial as T

from unspin.stories import FEATURES, StoryParams


def _subject_feats(a, b, f) -> dict[str, float]:
    """The pipeline's subject features, recomputed with this checkout's code (a kept
    pair stage may be older than the subject rule)."""
    from unspin.stories import StoryKeys, pair_features

    got = _SEEN.get((a.id, b.id))
    if got is not None:
        return got
    ka, kb = StoryKeys(a), StoryKeys(b)
    f = pair_features(a, b, 0, ka=ka, kb=kb)
    got = _SEEN[a.id, b.id] = {
        "subjects": f["subjects"],
        "subject_cross": f["subject_cross"],
        "other_day": f["other_day"],
    }
    return got


_SEEN: dict[tuple[str, str], dict[str, float]] = {}


#: trial features computed from the docs and the stage's features (``subject_off`` is
#: not in the pipeline; the other two are the pipeline's, recomputed)
EXTRA = {
    "subjects": lambda a, b, f: _subject_feats(a, b, f)["subjects"],
    "subject_cross": lambda a, b, f: _subject_feats(a, b, f)["subject_cross"],
    "other_day": lambda a, b, f: _subject_feats(a, b, f)["other_day"],
    "subject_off": lambda a, b, f: (
        _subject_feats(a, b, f)["subjects"] * float(_subject_feats(a, b, f)["subject_cross"] < 0.25)
    ),
}


def _cluster_soft(prep, params, w, b, names):
    """``story_feature_trial.cluster`` with the subject rule as the pipeline has it
    (``stories.story_probability``: at most ``related`` for two articles about other actors)."""
    from unspin.stories import cluster_component, other_days, other_subjects, too_far

    groups = []
    for m, cf in prep.comps:
        probs, apart = {}, set()
        for pair, f in cf.items():
            z = b + sum(wk * f[k] for wk, k in zip(w, names))
            if pair in prep.ps.reuse:
                probs[pair] = 1.0
            else:
                pr = 1 / (1 + F.math.exp(-z))
                capped = other_subjects(f, params) or other_days(f, params)
                probs[pair] = min(pr, params.related) if capped else pr
                if too_far(f, params):
                    apart.add(pair)
        groups.extend(cluster_component(m, probs, params, apart))
    return {prep.docs[i].id: n for n, g in enumerate(groups) for i in g}


def names_of(spec: str) -> tuple[str, ...]:
    parts = spec.split("+")
    if parts[0] != "base":
        raise SystemExit(f"feature set {spec!r}: must start with 'base'")
    return (*FEATURES, *(p for p in parts[1:] if p not in EXTRA))


def extra_of(spec: str) -> dict:
    return {p: EXTRA[p] for p in spec.split("+")[1:] if p in EXTRA}


def load_halves(path: str):
    sets = F.load_sets("/tmp/unspin_story_cache")
    try:
        with open(path, "rb") as fh:
            return sets, pickle.load(fh)
    except FileNotFoundError:
        pass
    h = {}
    for s in sets:
        for half in "AB":
            h[s.name, half] = F.prepare([d for d in s.docs if s.half[d.id] == half])
            print("prepared", s.name, half, flush=True)
    with open(path, "wb") as fh:
        pickle.dump(h, fh)
    return sets, h


def same_story_pairs(prep, params, w, b, names) -> set[tuple[str, str]]:
    """Candidate pairs without reuse, probability >= ``related``, in one story."""
    pred = T.cluster(prep, params, w, b, names)
    out = set()
    for _, cf in prep.comps:
        for (i, j), f in cf.items():
            if (i, j) in prep.ps.reuse or (i, j) not in prep.ps.features:
                continue
            z = b + sum(wk * f[k] for wk, k in zip(w, names))
            if 1 / (1 + F.math.exp(-z)) < params.related:
                continue
            a, c = prep.docs[i].id, prep.docs[j].id
            if pred[a] == pred[c]:
                out.add(tuple(sorted((a, c))))
    return out


def fit_all(sets, H, names):
    """The procedure's ``all`` fit (both halves of both sets), as fit_story_model."""
    full = {}
    for s in sets:
        docs = s.docs
        full[s.name] = F.prepare(docs)
    return full


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=("halves", "reuters", "cv", "veto", "replay"))
    ap.add_argument("args", nargs="*")
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chars", type=int, default=300)
    ap.add_argument("--weights", default=None, help="w1,...,wn,bias for replay (no fit)")
    ap.add_argument("--cut", type=float, default=None)
    a = ap.parse_args()
    if a.cmd == "halves":
        load_halves(a.args[0])
    elif a.cmd == "reuters":
        from eval_duplicates import load

        from unspin.pipeline import Config, fingerprint
        from unspin.store import Store

        skip, n, cache, out = int(a.args[0]), int(a.args[1]), a.args[2], a.args[3]
        arts = load("reuters", n, skip=skip, dates=True)
        store = Store(cache)
        docs = fingerprint(arts, Config(), cache=store)
        store.close()
        prep = F.prepare(docs)
        with open(out, "wb") as fh:
            pickle.dump(prep, fh)
        print("prepared", len(docs), "articles,", sum(len(cf) for _, cf in prep.comps), "pairs")
    elif a.cmd == "cv":
        sets, H = load_halves(a.args[0])
        for spec in a.args[1:]:
            print("=====", spec, flush=True)
            T.run(sets, H, extra_of(spec), names=names_of(spec))
    elif a.cmd == "veto":
        # the shipped features fitted as they are; the subject rule a cannot-link in the
        # clustering the grid search and the held-out halves use (0: off, the baseline)
        sets, H = load_halves(a.args[0])
        # a threshold may end in "+day" (the series rule on) or "-day" (off; the default
        # is the shipped StoryParams.other_day_related)
        drop = ("keys", "subjects", "subject_cross", "other_day")
        for t in a.args[1:]:
            print("===== subject_veto", t, flush=True)
            day = {"+day": True, "-day": False}.get(t[-4:], StoryParams.other_day_related)
            t = t[:-4] if t[-4:] in ("+day", "-day") else t
            T.StoryParams = partial(StoryParams, subject_veto=float(t), other_day_related=day)
            T.cluster = _cluster_soft
            extra = {k: EXTRA[k] for k in ("subjects", "subject_cross", "other_day")}
            T.run(sets, H, extra, names=FEATURES, drop=drop)
    elif a.cmd == "replay":
        with open(a.args[1], "rb") as fh:
            prep = pickle.load(fh)
        names = names_of(a.args[2])
        base = StoryParams()
        if a.weights:
            vals = [float(x) for x in a.weights.split(",")]
            w, b = tuple(vals[:-1]), vals[-1]
            params = base if a.cut is None else F.replace(base, same_story=a.cut)
        else:
            raise SystemExit("replay needs --weights (from a cv or fit run)")
        main_pairs = same_story_pairs(prep, base, base.weights, base.bias, FEATURES)
        new_pairs = same_story_pairs(prep, params, w, b, names)
        print(f"same_story pairs: shipped {len(main_pairs)}, {a.args[2]} {len(new_pairs)}")
        print(f"kept {len(main_pairs & new_pairs)}, new {len(new_pairs - main_pairs)}")
        from eval_duplicates import load

        text = {d.id: d.article.text for d in prep.docs}
        del load
        rng = random.Random(a.seed)
        feats = {}
        for _, cf in prep.comps:
            for (i, j), f in cf.items():
                feats[tuple(sorted((prep.docs[i].id, prep.docs[j].id)))] = f
        for n, pair in enumerate(rng.sample(sorted(new_pairs), min(a.sample, len(new_pairs))), 1):
            f = feats[pair]
            print(
                f"\n=== #{n}: {pair[0]} / {pair[1]} cross {f['subject_cross']:.2f} "
                f"subjects {f['subjects']:.0f} doc {f['doc_sim']:.2f} keys_local "
                f"{f['keys_local']:.2f} days {f['days']:.1f}"
            )
            for side in pair:
                print(f"  [{side}] " + " ".join(text[side][: a.chars].split()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
