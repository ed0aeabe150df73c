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
    ka = _KEYS.get(a.id) or _KEYS.setdefault(a.id, StoryKeys(a))
    kb = _KEYS.get(b.id) or _KEYS.setdefault(b.id, StoryKeys(b))
    f = pair_features(a, b, 0, ka=ka, kb=kb)
    got = _SEEN[a.id, b.id] = {
        "subjects": f["subjects"],
        "subject_cross": f["subject_cross"],
        "other_day": f["other_day"],
        "lead_figures": f["lead_figures"],
        "lead_figures_n": f["lead_figures_n"],
        "top_sent": f["top_sent"],
    }
    return got


_SEEN: dict[tuple[str, str], dict[str, float]] = {}
_KEYS: dict = {}  # StoryKeys per article id (computed once per article)


#: trial features computed from the docs and the stage's features (``subject_off`` is
#: not in the pipeline; the other two are the pipeline's, recomputed)
EXTRA = {
    "subjects": lambda a, b, f: _subject_feats(a, b, f)["subjects"],
    "subject_cross": lambda a, b, f: _subject_feats(a, b, f)["subject_cross"],
    "other_day": lambda a, b, f: _subject_feats(a, b, f)["other_day"],
    "lead_figures": lambda a, b, f: _subject_feats(a, b, f)["lead_figures"],
    "lead_figures_n": lambda a, b, f: _subject_feats(a, b, f)["lead_figures_n"],
    "subject_off": lambda a, b, f: (
        _subject_feats(a, b, f)["subjects"] * float(_subject_feats(a, b, f)["subject_cross"] < 0.25)
    ),
}


def _capped(f, params) -> bool:
    """Whether a rule of ``stories.story_probability`` caps the pair at ``related``."""
    from unspin.stories import other_days, other_figures, other_subjects

    return other_subjects(f, params) or other_days(f, params) or other_figures(f, params)


def _cluster_soft(prep, params, w, b, names):
    """``story_feature_trial.cluster`` with the subject rule as the pipeline has it
    (``stories.story_probability``: at most ``related`` for two articles about other actors)."""
    from unspin.stories import cluster_component, too_far

    groups = []
    for m, cf in prep.comps:
        probs, apart = {}, set()
        for pair, f in cf.items():
            z = b + sum(wk * f[k] for wk, k in zip(w, names))
            if pair in prep.ps.reuse:
                probs[pair] = 1.0
            else:
                pr = 1 / (1 + F.math.exp(-z))
                capped = _capped(f, params)
                probs[pair] = min(pr, params.related) if capped else pr
                if too_far(f, params):
                    apart.add(pair)
        groups.extend(cluster_component(m, probs, params, apart))
    return {prep.docs[i].id: n for n, g in enumerate(groups) for i in g}


def _cluster_hard(prep, params, w, b, names):
    """``_cluster_soft`` with every capped pair (subject rule, series rule) also a
    cannot-link, as the span rule's pairs: a group never holds two articles the rules
    keep apart unless text is reused between them (its probability stays capped)."""
    from unspin.stories import cluster_component, too_far

    groups = []
    for m, cf in prep.comps:
        probs, apart = {}, set()
        for pair, f in cf.items():
            z = b + sum(wk * f[k] for wk, k in zip(w, names))
            if pair in prep.ps.reuse:
                probs[pair] = 1.0
                continue
            pr = 1 / (1 + F.math.exp(-z))
            capped = _capped(f, params)
            probs[pair] = min(pr, params.related) if capped else pr
            if capped or too_far(f, params):
                apart.add(pair)
        groups.extend(cluster_component(m, probs, params, apart))
    return {prep.docs[i].id: n for n, g in enumerate(groups) for i in g}


#: per fold, the weights and bias main's cross-validated run chose (``veto 0.1``; both
#: folds chose cut 0.65, attach 4 / 0.2 / 0.75, time scale 4.0: the shipped grid values);
#: set by ``relations --fixed`` to skip the grid search
FIXED: dict = {}
_FOLD_WEIGHTS = {
    "A": ((1.439, 1.764, 0.0, 16.964, 4.88, 1.075, -4.355, 7.135), -6.031),
    "B": ((1.443, 3.209, 0.0, 16.623, 3.593, 0.734, -5.09, 8.95), -6.915),
}

#: bars of the ``same_story`` relation tried (None: main's typing, any pair >= related
#: in one story; a number: the pair's own capped probability must reach it)
BARS = (None, 0.15, 0.3, 0.4, 0.5, 0.65)


def relation_pairs(prep, s, params, w, b, names, pred, bar):
    """``same_story`` relations as ``pipeline.story_relations`` types them under ``bar``
    (None: main's rule), and the gold same-event candidate pairs without reuse."""
    got, gold = set(), set()
    for _, cf in prep.comps:
        for (i, j), f in cf.items():
            if (i, j) in prep.ps.reuse or (i, j) not in prep.ps.features:
                continue
            a, c = prep.docs[i].id, prep.docs[j].id
            if s.gold[a] == s.gold[c]:
                gold.add((a, c))
            z = b + sum(wk * f[k] for wk, k in zip(w, names))
            pr = 1 / (1 + F.math.exp(-z))
            capped = _capped(f, params)
            pc = min(pr, params.related) if capped else pr
            if pc < params.related or pred[a] != pred[c]:
                continue
            if bar is None or (pc >= bar and not capped):
                got.add((a, c))
    return got, gold


def _prf(got, gold):
    tp = len(got & gold)
    p = tp / len(got) if got else float("nan")
    r = tp / len(gold) if gold else float("nan")
    f = 2 * p * r / (p + r) if got and gold and p + r else 0.0
    return p, r, f, len(got)


def relations_cv(sets, H, cluster, label, figures_veto=0.25):
    """``story_feature_trial.run``'s procedure (fit on one half of each set, grid
    search on it, scored on the other half) with ``cluster``; then, on the held-out
    halves, the ``same_story`` relation's pairwise precision and recall against the
    gold same-event candidate pairs for each bar of :data:`BARS`, and the bar chosen on
    the training halves (best mean relation F1 over both sets)."""
    import itertools

    import numpy as np
    from sklearn.linear_model import LogisticRegression

    extra = {
        k: EXTRA[k]
        for k in ("subjects", "subject_cross", "other_day", "lead_figures", "lead_figures_n")
    }
    H = {
        k: F.Prepared(
            v.docs,
            v.ps,
            [
                (
                    m,
                    {
                        pr: {
                            **f,
                            **{x: fn(v.docs[pr[0]], v.docs[pr[1]], f) for x, fn in extra.items()},
                        }
                        for pr, f in cf.items()
                    },
                )
                for m, cf in v.comps
            ],
        )
        for k, v in H.items()
    }
    names = FEATURES
    keep = [k for k, f in enumerate(names) if f != "keys"]
    res = {}
    for fold in "AB":
        rng = np.random.default_rng(0)
        best = ()
        if FIXED:
            # the fold's weights and grid choice from main's cross-validated run (session
            # 11/12, ``veto 0.1``): the same model, only the rule under trial changes
            w, bias = FIXED[fold]
            params = F.replace(StoryParams(), figures_veto=figures_veto)
            best = (0, (), 0, params, w, bias)
        for scale in () if FIXED else F.TIME_SCALES:
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
            base = F.replace(StoryParams(), time_scale_days=scale, figures_veto=figures_veto)
            for values in itertools.product(*F.GRID.values()):
                params = F.replace(base, **dict(zip(F.GRID, values)))
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
        # the relation's bar on the training halves
        tr = {s.name: F.rescale(H[s.name, fold], params.time_scale_days) for s in sets}
        bar_f1 = {}
        for bar in BARS:
            fs = []
            for s in sets:
                pred = cluster(tr[s.name], params, w, bias, names)
                fs.append(
                    _prf(*relation_pairs(tr[s.name], s, params, w, bias, names, pred, bar))[2]
                )
            bar_f1[bar] = float(np.mean(fs))
        chosen = max((b for b in BARS if b is not None), key=lambda b: (bar_f1[b], b))
        held = "B" if fold == "A" else "A"
        print(
            f"[{label}] fold {fold}: cut={params.same_story} attach={params.attach_max}/"
            f"{params.attach_bar}/{params.attach_link} scale={params.time_scale_days}; "
            f"bar chosen on training halves {chosen} (train F1 by bar "
            + ", ".join(f"{b}: {v:.3f}" for b, v in bar_f1.items())
            + ")",
            flush=True,
        )
        for s in sets:
            prep = F.rescale(H[s.name, held], params.time_scale_days)
            pred = cluster(prep, params, w, bias, names)
            ids = [d.id for d in prep.docs]
            r = (*F.scores(ids, s.gold, pred), F.pairs_together(ids, s.gold, pred))
            print(f"  {s.name} held-out: {F._fmt(r)}")
            for bar in BARS:
                p, rc, f1, n = _prf(*relation_pairs(prep, s, params, w, bias, names, pred, bar))
                mark = " (chosen)" if bar == chosen else (" (main)" if bar is None else "")
                print(f"    same_story bar {bar}: P {p:.3f} R {rc:.3f} F1 {f1:.3f} n {n}{mark}")
                res[label, fold, s.name, bar] = (p, rc, f1, n)
            res[label, fold, s.name, "ari"] = r
            res[label, fold, s.name, "chosen"] = chosen
    for s in sets:
        ari = np.mean([res[label, f, s.name, "ari"][0] for f in "AB"])
        tog = np.mean([res[label, f, s.name, "ari"][5] for f in "AB"])
        print(f"[{label}] mean {s.name}: ARI {ari:.3f} together {tog:.3f}")
        for bar in BARS:
            p = np.mean([res[label, f, s.name, bar][0] for f in "AB"])
            r = np.mean([res[label, f, s.name, bar][1] for f in "AB"])
            print(f"    bar {bar}: P {p:.3f} R {r:.3f}")
        p = np.mean([res[label, f, s.name, res[label, f, s.name, "chosen"]][0] for f in "AB"])
        r = np.mean([res[label, f, s.name, res[label, f, s.name, "chosen"]][1] for f in "AB"])
        print(f"    bar chosen per fold: P {p:.3f} R {r:.3f}")
    return res


def _main_story_relations(docs, pairs, reuse, scored, story_of, sp):
    """``pipeline.story_relations`` as on main (d61b34b): ``same_story`` for every pair of
    one story whatever its own probability (the reasons shortened)."""
    from unspin.model import Relation

    out = []
    for pair in pairs:
        if pair in reuse or pair not in scored or scored[pair][0] < sp.related:
            continue
        i, j = pair
        pr, f = scored[pair]
        kind = "same_story" if story_of[i] == story_of[j] else "related"
        a, b = sorted((docs[i].id, docs[j].id))
        conf = round(pr if kind == "same_story" else 1 - pr, 4)
        out.append(Relation(a=a, b=b, relation=kind, confidence=conf, reasons=[], features=f))
    return out


def typing(stage: str, rule: str, out: str | None, k: int, seed: int, chars: int) -> None:
    """The whole pipeline's output over a kept pair stage (``stage``), with main's story
    rules (``rule`` main: the figures rule off, main's ``same_story`` typing) or this
    checkout's; then the relation counts and a seeded sample of ``k`` ``same_story`` pairs
    with both openings, as ``bench/reuters_typing.py`` prints them."""
    import json
    from collections import Counter

    import unspin.pipeline as P

    with open(stage, "rb") as fh:
        arts, docs, full = pickle.load(fh)
    P.pair_stage = lambda *args, **kw: full
    cfg = P.Config()
    if rule == "main":
        cfg = F.replace(cfg, stories=F.replace(cfg.stories, figures_veto=0.0))
        P.story_relations = _main_story_relations
    # "asis": the checkout on PYTHONPATH as it is (main's src: main's story stage itself)
    res = P.analyse(docs, cfg)
    counts = Counter(r.relation for r in res.relations)
    print(f"rule {rule}: reuters {len(docs)} articles from {docs[0].id}")
    print("relations:", dict(sorted(counts.items())), f"stories: {len(res.stories)}")
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            for r in res.relations:
                row = {"a": r.a, "b": r.b, "relation": r.relation, "confidence": r.confidence}
                fh.write(json.dumps(row | {"reasons": r.reasons, "features": r.features}) + "\n")
    text = {x.id: x.text for x in arts}
    rels = [r for r in res.relations if r.relation == "same_story"]
    for n, r in enumerate(random.Random(seed).sample(rels, min(k, len(rels))), 1):
        print(f"\n=== same_story #{n}: {r.a} / {r.b} conf {r.confidence}")
        for reason in r.reasons:
            print("   ", reason)
        for side in (r.a, r.b):
            print(f"  [{side}] " + " ".join(text[side][:chars].split()))


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
    ap.add_argument(
        "cmd", choices=("halves", "reuters", "cv", "veto", "replay", "relations", "stage", "typing")
    )
    ap.add_argument("--rule", default="branch", help="typing: main, branch or asis (see typing)")
    ap.add_argument("--out", default=None, help="typing: relations as JSON lines")
    ap.add_argument("args", nargs="*")
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chars", type=int, default=300)
    ap.add_argument("--weights", default=None, help="w1,...,wn,bias for replay (no fit)")
    ap.add_argument("--cut", type=float, default=None)
    ap.add_argument("--fixed", action="store_true", help="relations: main's fold fits, no grid")
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
        drop = ("keys", "subjects", "subject_cross", "other_day", "lead_figures", "lead_figures_n")
        for t in a.args[1:]:
            print("===== subject_veto", t, flush=True)
            day = {"+day": True, "-day": False}.get(t[-4:], StoryParams.other_day_related)
            t = t[:-4] if t[-4:] in ("+day", "-day") else t
            T.StoryParams = partial(StoryParams, subject_veto=float(t), other_day_related=day)
            T.cluster = _cluster_soft
            extra = {
                k: EXTRA[k]
                for k in (
                    "subjects",
                    "subject_cross",
                    "other_day",
                    "lead_figures",
                    "lead_figures_n",
                )
            }
            T.run(sets, H, extra, names=FEATURES, drop=drop)
    elif a.cmd == "relations":
        # the same_story relation's pairwise precision / recall under each bar, with the
        # clustering of main ("soft": capped pairs at most related) or with capped pairs
        # as cannot-links ("hard")
        sets, H = load_halves(a.args[0])
        if a.fixed:
            FIXED.update(_FOLD_WEIGHTS)
        # each spec: soft|hard[:FIGURES_VETO] (the figures rule's threshold, 0: off)
        for spec in a.args[1:] or ("soft", "hard"):
            how, _, fv = spec.partition(":")
            cl = {"soft": _cluster_soft, "hard": _cluster_hard}[how]
            relations_cv(sets, H, cl, spec, float(fv) if fv else StoryParams().figures_veto)
    elif a.cmd == "stage":
        # one Reuters slice's pair stage (fingerprints from the store CACHE), kept so that
        # main's and this checkout's story rules type the same pairs (the pair stage is
        # the same code on both)
        from eval_duplicates import load

        from unspin.pipeline import Config, fingerprint, pair_stage
        from unspin.store import Store

        skip, n, cache, out = int(a.args[0]), int(a.args[1]), a.args[2], a.args[3]
        arts = load("reuters", n, skip=skip, dates=True)
        store = Store(cache)
        docs = fingerprint(arts, Config(), cache=store)
        store.close()
        full = pair_stage(docs, Config())
        with open(out, "wb") as fh:
            pickle.dump((arts, docs, full), fh)
        print("pair stage of", len(docs), "articles,", len(full.pairs), "candidate pairs")
    elif a.cmd == "typing":
        typing(a.args[0], a.rule, a.out, a.sample, a.seed, a.chars)
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
