"""The crowding correction of the story model on read Reuters pairs (session 17, issue 11).

Usage:
  PYTHONPATH=src:bench .venv/bin/python bench/subject_trial.py stage SKIP N CACHE STAGE.pkl
  PYTHONPATH=src:bench .venv/bin/python bench/crowd_trial.py STAGE.pkl... [--refs 0,5,10]
      [--labels bench/reuters_same_story_read.tsv] [--out FILE.json]

Each STAGE.pkl is one Reuters window's kept pair stage (``subject_trial.py stage``: dated,
fingerprints from the store). For each ``crowd_ref`` in ``--refs`` (0: no correction, as
main) the story stage of this checkout runs over every window, and the read pairs of
``--labels`` (every Reuters ``same_story`` verdict read by hand in sessions 12-16; pair
ids and verdicts only) that lie in the window are looked up: how many of the pairs
typed ``same_story`` without the correction (``crowd_ref`` 0) stay ``same_story`` (right
kept / wrong kept) and how many move to ``related``, and the window's relation counts.
Then, out of fold by window: ``crowd_ref`` chosen on the other windows (the most right
kept minus 9 times the wrong kept: a pair is worth claiming when it is right 9 times in
10, the target's share; ties to the weaker correction) and reported on the held-out one.
Tuning only; the figures are pairs already read, not a fresh sample.
"""

from __future__ import annotations

import argparse
import csv
import json
import pickle
import sys
from collections import Counter
from dataclasses import replace

import unspin.pipeline as P


def labels(path: str) -> dict[tuple[str, str], bool]:
    """Read verdicts by pair (sorted ids): True right, False wrong."""
    out: dict[tuple[str, str], bool] = {}
    with open(path, encoding="utf-8") as fh:
        rows = csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t")
        for r in rows:
            out[tuple(sorted((r["a"], r["b"])))] = r["verdict"] == "right"
    return out


def typed(stage: str, refs: list[float]) -> tuple[str, dict[float, dict], dict[float, Counter]]:
    """The relation of every candidate pair of one window for each ``crowd_ref``."""
    with open(stage, "rb") as fh:
        _arts, docs, full = pickle.load(fh)
    P.pair_stage = lambda *args, **kw: full
    rels, counts = {}, {}
    for ref in refs:
        cfg = P.Config()
        cfg = replace(cfg, stories=replace(cfg.stories, crowd_ref=ref))
        res = P.analyse(docs, cfg)
        rels[ref] = {tuple(sorted((r.a, r.b))): r.relation for r in res.relations}
        counts[ref] = Counter(r.relation for r in res.relations)
    return f"{docs[0].id}..{docs[-1].id} ({len(docs)})", rels, counts


def tally(rel: dict, base: dict, lab: dict) -> dict[str, int]:
    """Of the read pairs typed same_story at ``crowd_ref`` 0 (``base``), right / wrong kept
    as same_story and moved (to any other relation)."""
    t = Counter()
    for pair, right in lab.items():
        if base.get(pair) != "same_story":
            continue
        kept = rel.get(pair) == "same_story"
        t[("right" if right else "wrong") + ("_kept" if kept else "_moved")] += 1
    return {k: t[k] for k in ("right_kept", "wrong_kept", "right_moved", "wrong_moved")}


def utility(t: dict[str, int]) -> int:
    return t["right_kept"] - 9 * t["wrong_kept"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("stages", nargs="+")
    ap.add_argument("--refs", default="0,2,5,10,20,40")
    ap.add_argument("--labels", default="bench/reuters_same_story_read.tsv")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    refs = [float(x) for x in a.refs.split(",")]
    if refs[0] != 0:
        refs = [0.0, *refs]
    lab = labels(a.labels)
    table = {}
    for stage in a.stages:
        name, rels, counts = typed(stage, refs)
        print(f"\nwindow {name} ({stage})")
        for ref in refs:
            t = tally(rels[ref], rels[0.0], lab)
            table[(stage, ref)] = t
            kept = t["right_kept"] + t["wrong_kept"]
            share = f"{t['right_kept'] / kept:.2f}" if kept else "-"
            print(
                f"  crowd_ref {ref:g}: same_story {counts[ref]['same_story']}, related "
                f"{counts[ref]['related']}; read pairs kept right {t['right_kept']} / wrong "
                f"{t['wrong_kept']} (share right {share}), moved right {t['right_moved']} "
                f"/ wrong {t['wrong_moved']}"
            )
    if len(a.stages) > 1:
        print("\nout of fold by window (crowd_ref chosen on the other windows)")
        total = Counter()
        for held in a.stages:
            others = [s for s in a.stages if s != held]
            best = max(refs, key=lambda r: (sum(utility(table[(s, r)]) for s in others), -r))
            t = table[(held, best)]
            total.update(t)
            print(f"  held {held}: chosen crowd_ref {best:g} -> {t}")
        kept = total["right_kept"] + total["wrong_kept"]
        share = total["right_kept"] / max(kept, 1)
        print(f"  all held-out: {dict(total)}; share right of kept {share:.2f}")
    if a.out:
        with open(a.out, "w", encoding="utf-8") as fh:
            json.dump({f"{s} {r:g}": t for (s, r), t in table.items()}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
