"""Two notices of one template for two subjects as evidence against a ``same_story``
claim, on read Reuters pairs (session 18, branch ``sstory4``, issue 11).

Usage:
  PYTHONPATH=src:bench .venv/bin/python bench/notice_trial.py STAGE.pkl...
      [--labels bench/reuters_same_story_read.tsv] [--exclude s18_] [--list]

Each STAGE.pkl is one Reuters window's kept pair stage (``bench/subject_trial.py stage``).
The story stage of this checkout runs over the window with the notice rule off
(``notice_max_chars`` 0: main's claims), on as shipped, and once with the widest grid
setting to read every pair's ``notice_chars`` / ``notice_pos``. The read pairs of
``--labels`` (sets whose name starts with ``--exclude`` left out: the judge's) that the
rule-off run types ``same_story`` are looked up; each grid setting (``HEAD`` words x
``CHARS``) is read off the features, the shipped one checked against the pipeline
(asserted), reuse relations and stories checked identical. Beside it the strongest
simple baseline tuned the same way: no claim between two short texts (both at most a
bar of characters). Settings are chosen two ways, out of fold by window (chosen on the
other windows): the most right minus 9 x wrong kept (the target's break-even, as
``recur_trial.py``), and the highest share right among settings that keep at least 95%
of the right claims (the 9 x criterion, on pairs far below 0.9 right, prefers no claim
at all). Tuning only: pairs already read, not a fresh sample.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter
from dataclasses import replace

from common import read_verdicts
from recur_trial import fmt, tally, utility

import unspin.pipeline as P

HEAD = (1, 2, 3)
CHARS = (0, 400, 600, 800, 1000, 1200, 1500, 2000)
BASE_CHARS = (0, 300, 400, 600, 800, 1000, 1500, 2000)


def typed(docs, **kw):
    cfg = P.Config()
    cfg = replace(cfg, stories=replace(cfg.stories, **kw))
    res = P.analyse(docs, cfg)
    return {tuple(sorted((r.a, r.b))): r for r in res.relations}, res.stories


def choose(table, stages, grid, key):
    out, tot = {}, Counter()
    for held in stages:
        # ties to the weaker setting (fewer characters, then fewer headline words)
        best = max(
            grid,
            key=lambda g: (
                key([table[(s, g)] for s in stages if s != held]),
                -g[1],
                -g[0] if isinstance(g[0], int) else 0,
            ),
        )
        out[held] = best
        tot.update(table[(held, best)])
    return out, tot


def by_utility(ts):
    return sum(utility(t) for t in ts)


def by_share(ts):
    t = sum(ts, Counter())
    right = t["right_kept"] + t["right_moved"]
    if t["right_kept"] < 0.95 * right:
        return -1.0
    k = t["right_kept"] + t["wrong_kept"]
    return t["right_kept"] / k if k else 0.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("stages", nargs="+")
    ap.add_argument("--labels", default="bench/reuters_same_story_read.tsv")
    ap.add_argument("--exclude", default="s18_")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    lab = read_verdicts(a.labels, a.exclude)
    ship = P.Config().stories
    table: dict = {}
    grid = [(h, c) for h in HEAD for c in CHARS if c or h == 1]  # (1, 0): off
    for stage in a.stages:
        with open(stage, "rb") as fh:
            arts, docs, full = pickle.load(fh)
        P.pair_stage = lambda *args, full=full, **kw: full
        off, s_off = typed(docs, notice_max_chars=0)
        on, s_on = typed(docs)
        wide, _ = typed(docs, notice_max_chars=max(CHARS), notice_head_words=max(HEAD))
        base = {p for p in lab if p in off and off[p].relation == "same_story"}
        feats = {p: wide[p].features or {} for p in base}
        print(f"\nwindow {docs[0].id}..{docs[-1].id} ({len(docs)}): read claims {len(base)}")
        print(f"  off: {dict(Counter(r.relation for r in off.values()))}")
        print(f"  on:  {dict(Counter(r.relation for r in on.values()))}")
        reuse = {"same_story", "related"}
        r_off = {p: r.relation for p, r in off.items() if r.relation not in reuse}
        r_on = {p: r.relation for p, r in on.items() if r.relation not in reuse}
        print(f"  reuse relations identical: {r_off == r_on} ({len(r_off)})")
        print(f"  stories identical: {[x.articles for x in s_off] == [x.articles for x in s_on]}")
        moved = [p for p, r in off.items() if r.relation == "same_story" != on[p].relation]
        gained = [p for p, r in on.items() if r.relation == "same_story" != off[p].relation]
        print(f"  same_story claims moved {len(moved)}, gained {len(gained)}")
        for h, c in grid:
            kept = {
                p
                for p in base
                if not (
                    c
                    and feats[p].get("notice_chars", 1e9) <= c
                    and 0 < feats[p].get("notice_pos", 0) <= h
                )
            }
            table[(stage, (h, c))] = tally(kept, base, lab)
            if (h, c) == (ship.notice_head_words, ship.notice_max_chars):
                real = {p for p in base if on[p].relation == "same_story"}
                assert real == kept, "the pipeline's claims differ from the rule read off"
        for c in BASE_CHARS:
            kept = {p for p in base if not (c and feats[p].get("notice_chars", 1e9) <= c)}
            table[(stage, ("short", c))] = tally(kept, base, lab)
        for g in grid:
            print(f"  head {g[0]} chars {g[1]}: {fmt(table[(stage, g)])}")
        for c in BASE_CHARS:
            print(f"  baseline short <= {c}: {fmt(table[(stage, ('short', c))])}")
        if a.list:
            for p in sorted(base, key=lambda p: (feats[p].get("notice_pos", 0), p)):
                f = feats[p]
                if f.get("notice_pos", 0):
                    print(
                        f"    {'R' if lab[p] else 'W'} pos {f['notice_pos']:g} "
                        f"chars {f['notice_chars']:g} {p[0]} {p[1]}"
                    )
    bgrid = [("short", c) for c in BASE_CHARS]
    for name, g in (("notice rule", grid), ("baseline: both texts short, tuned", bgrid)):
        for crit, key in (("right - 9 x wrong", by_utility), ("share, >= 95% right", by_share)):
            chosen, tot = choose(table, a.stages, g, key)
            print(f"\n{name}, chosen by {crit}, out of fold by window: {fmt(tot)}")
            for s in a.stages:
                print(f"  held {s}: chosen {chosen[s]}: {fmt(table[(s, chosen[s])])}")
        for v in g:
            tot = sum((table[(s, v)] for s in a.stages), Counter())
            print(f"  in sample {v}: {fmt(tot)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
