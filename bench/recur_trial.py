"""A recurring topic as evidence against one event, on read Reuters pairs (session 18, issue 11).

Usage:
  PYTHONPATH=src:bench .venv/bin/python bench/subject_trial.py stage SKIP N CACHE STAGE.pkl
  PYTHONPATH=src:bench .venv/bin/python bench/recur_trial.py STAGE.pkl... [--refs 0,1,2,3,4]
      [--labels bench/reuters_same_story_read.tsv] [--auc]

Each STAGE.pkl is one Reuters window's kept pair stage (dated). For each setting of
``StoryParams.recur_ref`` (0: off, as main) the story stage of this checkout runs over the
window; the read pairs of ``--labels`` (pair ids and verdicts only) that main's setting
types ``same_story`` are looked up: how many stay ``same_story`` (right kept / wrong
kept) and how many move. Beside it the strongest simple baselines, tuned the same way: a
bar on the days between the two articles, and a bar on the TF-IDF cosine of the two
texts (fitted on the window). Out of fold by window: the setting with the most right kept
minus 9 times the wrong kept (a claim is worth making when it is right 9 times in 10, the
target's share; ties to the weaker setting) chosen on the other windows and reported on
the held-out one. ``--auc``: each feature's ROC AUC (right vs wrong) per window.
Tuning only: the figures are pairs already read, not a fresh sample.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter
from dataclasses import replace

from crowd_trial import labels

import unspin.pipeline as P


def auc(pos: list[float], neg: list[float]) -> float:
    """ROC AUC of scores: the chance a right pair scores above a wrong one (ties half)."""
    if not pos or not neg:
        return float("nan")
    s = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return s / (len(pos) * len(neg))


def tfidf_cos(arts, pairs) -> dict[tuple[str, str], float]:
    """TF-IDF cosine (fitted on the window's texts) of each pair."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    ids = {a.id: k for k, a in enumerate(arts)}
    m = TfidfVectorizer(sublinear_tf=True).fit_transform([a.text for a in arts])
    return {p: float((m[ids[p[0]]] @ m[ids[p[1]]].T).toarray()[0, 0]) for p in pairs}


def run(stage: str, settings: list[tuple], lab: dict) -> dict:
    """Per setting, the read pairs' relation; and main's features of the read pairs."""
    with open(stage, "rb") as fh:
        arts, docs, full = pickle.load(fh)
    P.pair_stage = lambda *args, **kw: full
    out: dict = {"rel": {}, "counts": {}}
    for st in settings:
        cfg = P.Config()
        ref, mode, claim = st
        cfg = replace(
            cfg, stories=replace(cfg.stories, recur_ref=ref, recur_mode=mode, recur_claim=claim)
        )
        res = P.analyse(docs, cfg)
        rel = {tuple(sorted((r.a, r.b))): r for r in res.relations}
        out["rel"][st] = {p: rel[p].relation if p in rel else None for p in lab}
        out["counts"][st] = Counter(r.relation for r in res.relations)
        if st == settings[0]:
            out["feats"] = {p: dict(rel[p].features or {}) for p in lab if p in rel}
            out["conf"] = {p: rel[p].confidence for p in lab if p in rel}
    base = {p for p, k in out["rel"][settings[0]].items() if k == "same_story"}
    out["base"] = base
    out["tfidf"] = tfidf_cos(arts, sorted(base))
    out["name"] = f"{docs[0].id}..{docs[-1].id} ({len(docs)})"
    return out


def tally(kept: set, base: set, lab: dict) -> Counter:
    t: Counter = Counter()
    for p in base:
        t[("right" if lab[p] else "wrong") + ("_kept" if p in kept else "_moved")] += 1
    return t


def utility(t: Counter) -> int:
    return t["right_kept"] - 9 * t["wrong_kept"]


def fmt(t: Counter) -> str:
    k = t["right_kept"] + t["wrong_kept"]
    share = f"{t['right_kept'] / k:.2f}" if k else "-"
    return (
        f"kept {t['right_kept']} / {t['wrong_kept']} ({share}), "
        f"moved {t['right_moved']} / {t['wrong_moved']}"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("stages", nargs="+")
    ap.add_argument("--refs", default="1,2,3,4,6")
    ap.add_argument("--modes", default="time,all")
    ap.add_argument("--claim", default="0,1")
    ap.add_argument("--labels", default="bench/reuters_same_story_read.tsv")
    ap.add_argument("--auc", action="store_true")
    a = ap.parse_args()
    lab = labels(a.labels)
    off = (0.0, "time", False)
    settings = [off] + [
        (float(r), m, bool(int(c)))
        for m in a.modes.split(",")
        for c in a.claim.split(",")
        for r in a.refs.split(",")
    ]
    table: dict = {}
    families: dict[str, list] = {}
    for stage in a.stages:
        w = run(stage, settings, {p: v for p, v in lab.items()})
        base = w["base"]
        print(f"\nwindow {w['name']} ({stage}): read same_story pairs {len(base)}")
        for st in settings:
            kept = {p for p in base if w["rel"][st][p] == "same_story"}
            table[(stage, ("recur", st))] = t = tally(kept, base, lab)
            c = w["counts"][st]
            print(
                f"  recur {st}: same_story {c['same_story']} related {c['related']}"
                f" spun {c['spun']}: {fmt(t)}"
            )
        for bar in (0.5, 1, 1.5, 2, 3, 4, 6, 1e9):
            kept = {p for p in base if w["feats"][p].get("days", -1) <= bar}
            table[(stage, ("days", bar))] = t = tally(kept, base, lab)
            print(f"  baseline days apart <= {bar:g}: {fmt(t)}")
        for bar in (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
            kept = {p for p in base if w["tfidf"][p] >= bar}
            table[(stage, ("tfidf", bar))] = t = tally(kept, base, lab)
            print(f"  baseline TF-IDF cosine >= {bar:g}: {fmt(t)}")
        if a.auc:
            pos = [p for p in base if lab[p]]
            neg = [p for p in base if not lab[p]]
            for k in ("recur", "crowd", "days", "doc_sim", "top_sent", "keys_local", "details"):

                def val(p, k=k):
                    return w["feats"][p].get(k, 0.0)

                print(f"  AUC {k}: {auc([val(p) for p in pos], [val(p) for p in neg]):.2f}")
            print(
                f"  AUC conf: {auc([w['conf'][p] for p in pos], [w['conf'][p] for p in neg]):.2f}"
            )
            print(
                f"  AUC tfidf: {auc([w['tfidf'][p] for p in pos], [w['tfidf'][p] for p in neg]):.2f}"
            )
            for p in sorted(base, key=lambda p: w["feats"][p].get("recur", 0)):
                f = w["feats"][p]
                print(
                    f"    {'R' if lab[p] else 'W'} recur {f.get('recur', 0):4.1f} days "
                    f"{f.get('days', -1):5.2f} crowd {f.get('crowd', 0):5.1f} conf "
                    f"{w['conf'][p]:.2f} {p[0]} {p[1]}"
                )
    families = {
        "recurrence discount": [("recur", s) for s in settings],
        "baseline: days apart (tuned)": [("days", b) for b in (1e9, 6, 4, 3, 2, 1.5, 1, 0.5)],
        "baseline: TF-IDF cosine (tuned)": [
            ("tfidf", b) for b in (0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
        ],
    }
    for label, vs in families.items():
        print(f"\n{label}")
        for held in a.stages:
            others = [s for s in a.stages if s != held]
            best = max(
                vs, key=lambda v: (sum(utility(table[(s, v)]) for s in others), -vs.index(v))
            )
            print(f"  held {held}: chosen {best}: {fmt(table[(held, best)])}")
        tot: Counter = Counter()
        for held in a.stages:
            others = [s for s in a.stages if s != held]
            best = max(
                vs, key=lambda v: (sum(utility(table[(s, v)]) for s in others), -vs.index(v))
            )
            tot.update(table[(held, best)])
        print(f"  out of fold by window: {fmt(tot)}")
        best = max(vs, key=lambda v: (sum(utility(table[(s, v)]) for s in a.stages), -vs.index(v)))
        tot = Counter()
        for s in a.stages:
            tot.update(table[(s, best)])
        print(f"  in sample (chosen {best}): {fmt(tot)}")
        for v in vs:
            tot = Counter()
            for s in a.stages:
                tot.update(table[(s, v)])
            print(f"    {v}: {fmt(tot)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
