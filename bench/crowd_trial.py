"""The crowding correction of the story model on read Reuters pairs (session 17, issue 11).

Usage:
  PYTHONPATH=src:bench .venv/bin/python bench/subject_trial.py stage SKIP N CACHE STAGE.pkl
  PYTHONPATH=src:bench .venv/bin/python bench/crowd_trial.py STAGE.pkl... [--refs 0,2,4,10]
      [--bars 0,0.9,0.99] [--labels bench/reuters_same_story_read.tsv] [--out FILE.json]

Each STAGE.pkl is one Reuters window's kept pair stage (``subject_trial.py stage``: dated,
fingerprints from the store). For each ``crowd_ref`` in ``--refs`` (0: no correction, as
main) the story stage of this checkout runs over the window, and for each bar in
``--bars`` (a trial rule, not shipped) the ``same_story`` claims of crowded pairs
(``crowd`` above ``crowd_ref``) below it are dropped, with and without the time
discount. The read pairs of ``--labels`` (every Reuters ``same_story`` verdict read by hand
in sessions 12-16; pair ids and verdicts only) that lie in the window are looked up: of
those typed ``same_story`` without the correction, how many stay ``same_story`` (right
kept / wrong kept) and how many move. Beside it the strongest simple baseline: main's
model with a bar on every pair's own probability, tuned the same way. Then out of fold
by window: the setting chosen on the other windows (the most right kept minus 9 times
the wrong kept: a claim is worth making when it is right 9 times in 10, the target's
share; ties to the weaker setting) and reported on the held-out one, and in sample.
Tuning only; the figures are pairs already read, not a fresh sample.
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections import Counter
from dataclasses import replace

from common import read_verdicts

import unspin.pipeline as P


def typed(stage: str, refs: list[float]) -> tuple[str, dict[float, dict], dict[float, Counter]]:
    """Each candidate pair's (relation, confidence, crowd) in one window for each
    ``crowd_ref`` (the bars of :func:`claims` are applied afterwards)."""
    with open(stage, "rb") as fh:
        _arts, docs, full = pickle.load(fh)
    P.pair_stage = lambda *args, **kw: full
    rels, counts = {}, {}
    for ref in refs:
        cfg = P.Config()
        cfg = replace(cfg, stories=replace(cfg.stories, crowd_ref=ref))
        res = P.analyse(docs, cfg)
        rels[ref] = {
            tuple(sorted((r.a, r.b))): (
                r.relation,
                r.confidence,
                (r.features or {}).get("crowd", 0),
            )
            for r in res.relations
        }
        counts[ref] = Counter(r.relation for r in res.relations)
    return f"{docs[0].id}..{docs[-1].id} ({len(docs)})", rels, counts


def claims(rel: dict, ref: float, bar: float, every: bool = False) -> set[tuple[str, str]]:
    """The ``same_story`` pairs with a bar on the claim's own probability (a trial rule,
    not shipped: ``bar``), for the pairs of a crowded component (``crowd`` > ``ref`` > 0),
    or, ``every`` (the baseline), for every pair whatever its component."""
    out = set()
    for pair, (kind, conf, crowd) in rel.items():
        if kind != "same_story":
            continue
        if conf < bar and (every or (ref > 0 and crowd > ref)):
            continue
        out.add(pair)
    return out


def tally(kept: set, base: set, lab: dict) -> dict[str, int]:
    """Of the read pairs typed same_story without the correction (``base``), right /
    wrong kept as same_story and moved (to any other relation)."""
    t = Counter()
    for pair, right in lab.items():
        if pair not in base:
            continue
        t[("right" if right else "wrong") + ("_kept" if pair in kept else "_moved")] += 1
    return {k: t[k] for k in ("right_kept", "wrong_kept", "right_moved", "wrong_moved")}


def utility(t: dict[str, int]) -> int:
    return t["right_kept"] - 9 * t["wrong_kept"]


def _fmt(t: dict[str, int]) -> str:
    kept = t["right_kept"] + t["wrong_kept"]
    share = f"{t['right_kept'] / kept:.2f}" if kept else "-"
    return (
        f"kept right {t['right_kept']} / wrong {t['wrong_kept']} (share right {share}), "
        f"moved right {t['right_moved']} / wrong {t['wrong_moved']}"
    )


def select(table: dict, windows: list[str], variants: list) -> object:
    """The variant with the most right minus 9 times the wrong kept over ``windows``
    (ties to the earlier, weaker one)."""
    return max(
        variants, key=lambda v: (sum(utility(table[(w, v)]) for w in windows), -variants.index(v))
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("stages", nargs="+")
    ap.add_argument("--refs", default="0,2,4,10")
    ap.add_argument("--bars", default="0,0.5,0.8,0.9,0.95,0.98,0.99,0.995,0.999")
    ap.add_argument("--labels", default="bench/reuters_same_story_read.tsv")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    refs = [float(x) for x in a.refs.split(",")]
    if refs[0] != 0:
        refs = [0.0, *refs]
    bars = [float(x) for x in a.bars.split(",")]
    lab = read_verdicts(a.labels)
    table: dict = {}
    variants = [("crowd", r, b) for r in refs for b in bars if r > 0 or b == 0]
    # the bar alone: crowded pairs (crowd > ref) need their undiscounted probability
    bar_only = [("bar", r, b) for r in refs if r > 0 for b in bars if b > 0]
    baseline = [("every", 0.0, b) for b in bars]
    for stage in a.stages:
        name, rels, counts = typed(stage, refs)
        base = claims(rels[0.0], 0.0, 0.0)
        print(f"\nwindow {name} ({stage})")
        for ref in refs:
            print(f"  crowd_ref {ref:g}: relations {dict(sorted(counts[ref].items()))}")
        for v in variants + bar_only + baseline:
            kind, ref, bar = v
            if kind == "bar":  # no discount: the probabilities of crowd_ref 0, its crowds
                kept = claims(rels[0.0], ref, bar)
            else:
                kept = claims(rels[ref], ref, bar, every=kind == "every")
            table[(stage, v)] = t = tally(kept, base, lab)
            what = {
                "crowd": f"crowd_ref {ref:g}, crowded pairs need {bar:g}",
                "bar": f"no time discount, crowded (crowd > {ref:g}) claims need {bar:g}",
                "every": f"baseline: own probability >= {bar:g} for every pair (no crowding)",
            }[kind]
            print(f"  {what}: same_story {len(kept)}; read pairs {_fmt(t)}")
    if len(a.stages) > 1:
        for label, vs in (
            ("time discount (crowd_ref) and a bar on crowded pairs", variants),
            ("a bar on crowded pairs without the time discount", bar_only),
            ("baseline (tuned the same way)", baseline),
        ):
            if not vs:
                continue
            print(f"\nout of fold by window, {label}: chosen on the other windows")
            total = Counter()
            for held in a.stages:
                best = select(table, [s for s in a.stages if s != held], vs)
                total.update(table[(held, best)])
                print(f"  held {held}: chosen {best} -> {_fmt(table[(held, best)])}")
            print(f"  all held-out: {_fmt(total)}")
            best = select(table, a.stages, vs)
            total = Counter()
            for st in a.stages:
                total.update(table[(st, best)])
            print(f"  in sample (chosen on all windows {best}): {_fmt(total)}")
    if a.out:
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump({f"{s} {v}": t for (s, v), t in table.items()}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
