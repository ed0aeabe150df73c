"""A recurring topic as evidence against a ``same_story`` claim, on read Reuters pairs
(session 18, issue 11).

Usage:
  PYTHONPATH=src:bench .venv/bin/python bench/subject_trial.py stage SKIP N CACHE STAGE.pkl
  PYTHONPATH=src:bench .venv/bin/python bench/recur_trial.py STAGE.pkl... [--ship 0.5]
      [--labels bench/reuters_same_story_read.tsv] [--list]

Each STAGE.pkl is one Reuters window's kept pair stage (dated). The story stage of this
checkout runs over the window twice: with the recurrence rule off (``recur_days`` 0: main's
claims) and at ``--ship``. The read pairs of ``--labels`` (pair ids and verdicts only) that
the rule-off run types ``same_story`` are looked up: how many stay ``same_story`` (right
kept / wrong kept) and how many move. The rule acts on the claim only (stories do not
move), so each setting of the grid ``BARS`` is read off the rule-off run's ``recur``
features; the ``--ship`` run checks that reading against the pipeline (the kept sets must
be equal). Beside it the strongest simple baselines, tuned the same way: a bar on the days
between the two articles, and a bar on the TF-IDF cosine of the two texts (fitted on the
window). Out of fold by window: the setting with the most right kept minus 9 times the
wrong kept (a claim is worth making when it is right 9 times in 10, the target's share;
ties to the weaker setting) chosen on the other windows, reported on the held-out one.
Each input's ROC AUC (right vs wrong claims) per window shows which evidence keeps its
direction across windows. Tuning only: the figures are pairs already read, not a fresh
sample.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter
from dataclasses import replace

from common import read_verdicts

import unspin.pipeline as P

#: the rule's settings (``recur`` at least this is no claim; 1e9: off), weakest first
BARS = (1e9, 4.0, 3.0, 2.0, 1.5, 1.0, 0.5)
DAYS = (1e9, 6.0, 4.0, 3.0, 2.0, 1.5, 1.0, 0.5)
TFIDF = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
AUC_INPUTS = ("recur", "days", "crowd", "doc_sim", "top_sent", "keys_local", "details")


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


def typed(docs, recur_days: float) -> tuple[dict, Counter, object]:
    """Relations by sorted pair, their counts by type, and the stories of one run."""
    cfg = P.Config()
    cfg = replace(cfg, stories=replace(cfg.stories, recur_days=recur_days))
    res = P.analyse(docs, cfg)
    rel = {tuple(sorted((r.a, r.b))): r for r in res.relations}
    return rel, Counter(r.relation for r in res.relations), res.stories


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
    ap.add_argument("--ship", type=float, default=0.5)
    ap.add_argument("--labels", default="bench/reuters_same_story_read.tsv")
    ap.add_argument("--list", action="store_true", help="each read claim's inputs")
    a = ap.parse_args()
    lab = read_verdicts(a.labels)
    table: dict = {}
    for stage in a.stages:
        with open(stage, "rb") as fh:
            arts, docs, full = pickle.load(fh)
        P.pair_stage = lambda *args, full=full, **kw: full
        off, c_off, s_off = typed(docs, 0.0)
        on, c_on, s_on = typed(docs, a.ship)
        base = {p for p in lab if p in off and off[p].relation == "same_story"}
        feats = {p: off[p].features or {} for p in base}
        tf = tfidf_cos(arts, sorted(base))
        print(
            f"\nwindow {docs[0].id}..{docs[-1].id} ({len(docs)}, {stage}): read claims {len(base)}"
        )
        print(
            f"  off: {dict(sorted(c_off.items()))}\n  on ({a.ship:g}): {dict(sorted(c_on.items()))}"
        )
        reuse_off = {
            p: r.relation for p, r in off.items() if r.relation not in ("same_story", "related")
        }
        reuse_on = {
            p: r.relation for p, r in on.items() if r.relation not in ("same_story", "related")
        }
        print(f"  reuse relations identical: {reuse_off == reuse_on} ({len(reuse_off)})")
        print(f"  stories identical: {[x.articles for x in s_off] == [x.articles for x in s_on]}")
        moved = {
            p
            for p, r in off.items()
            if r.relation == "same_story" and on[p].relation != "same_story"
        }
        gained = {
            p
            for p, r in on.items()
            if r.relation == "same_story" and off[p].relation != "same_story"
        }
        print(
            f"  same_story claims moved {len(moved)} "
            f"(to {dict(Counter(on[p].relation for p in moved))}), gained {len(gained)}"
        )
        for t in BARS:
            kept = {p for p in base if not feats[p].get("recur", 0.0) >= t}
            table[(stage, ("recur", t))] = tally(kept, base, lab)
            if t == a.ship:
                real = {p for p in base if on[p].relation == "same_story"}
                assert real == kept, "the pipeline's claims differ from the rule read off"
        for t in DAYS:
            kept = {p for p in base if feats[p].get("days", -1.0) <= t}
            table[(stage, ("days", t))] = tally(kept, base, lab)
        for t in TFIDF:
            kept = {p for p in base if tf[p] >= t}
            table[(stage, ("tfidf", t))] = tally(kept, base, lab)
        pos = [p for p in base if lab[p]]
        neg = [p for p in base if not lab[p]]
        row = []
        for k in AUC_INPUTS:
            v = auc([feats[p].get(k, 0.0) for p in pos], [feats[p].get(k, 0.0) for p in neg])
            row.append(f"{k} {v:.2f}")
        v = auc([off[p].confidence for p in pos], [off[p].confidence for p in neg])
        row.append(f"probability {v:.2f}")
        row.append(f"tfidf {auc([tf[p] for p in pos], [tf[p] for p in neg]):.2f}")
        print("  AUC (right above wrong): " + ", ".join(row))
        for v in (
            [("recur", t) for t in BARS]
            + [("days", t) for t in DAYS]
            + [("tfidf", t) for t in TFIDF]
        ):
            print(f"  {v[0]} {v[1]:g}: {fmt(table[(stage, v)])}")
        if a.list:
            for p in sorted(
                base, key=lambda p: (feats[p].get("recur", 0.0), feats[p].get("days", -1))
            ):
                f = feats[p]
                print(
                    f"    {'R' if lab[p] else 'W'} recur {f.get('recur', 0):4.1f} "
                    f"days {f.get('days', -1):5.2f} "
                    f"crowd {f.get('crowd', 0):5.1f} p {off[p].confidence:.2f} {p[0]} {p[1]}"
                )
    families = {
        "recurrence rule (recur_days)": [("recur", t) for t in BARS],
        "baseline: days apart, tuned": [("days", t) for t in DAYS],
        "baseline: TF-IDF cosine, tuned": [("tfidf", t) for t in TFIDF],
    }
    for label, vs in families.items():
        print(f"\n{label}")
        tot: Counter = Counter()
        for held in a.stages:
            others = [s for s in a.stages if s != held]
            best = max(
                vs, key=lambda v: (sum(utility(table[(s, v)]) for s in others), -vs.index(v))
            )
            tot.update(table[(held, best)])
            print(f"  held {held}: chosen {best[1]:g}: {fmt(table[(held, best)])}")
        print(f"  out of fold by window: {fmt(tot)}")
        best = max(vs, key=lambda v: (sum(utility(table[(s, v)]) for s in a.stages), -vs.index(v)))
        tot = Counter()
        for s in a.stages:
            tot.update(table[(s, best)])
        print(f"  in sample (chosen {best[1]:g}): {fmt(tot)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
