"""PAC dev with and without the crowding correction (session 17): the shipped story model.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/crowd_pac.py [--refs 0,2,4]
           [--param crowd_ref] [--feature crowd] [--set pac|ecb]

``--param`` / ``--feature``: another ``StoryParams`` setting and the relation feature it
reads (session 18: ``--param recur_ref --feature recur``, the recurrence discount).
``--set ecb``: ECB+ dev instead (undated; halves by topic parity as
``bench/fit_story_model.py`` cuts them: A the odd topics, the shipped weights' training
half; gold events its subtopics), for rules that read more than time (session 18,
``sstory4``: ``--param notice_max_chars --feature notice_pos``).

PAC dev is the only dated labelled set of the story targets (ECB+ and NTREX carry no
publication times, so the correction, a discount of ``time_near``, cannot touch them).
Scans PAC dev once (fingerprints once), then the story stage for each ``crowd_ref``:
story ARI against the gold events, the share of gold event pairs in one story, and the
``same_story`` relation's precision / recall over gold same-event pairs, on the whole
set and on each half (A and B as
``bench/fit_story_model.py`` cuts them; the shipped weights were fitted on A, so B is
held out), and how many pairs have ``crowd`` above the setting.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from itertools import combinations

from common import ecbplus
from fit_story_model import ecb_fold, pac, pac_fold
from sklearn.metrics import adjusted_rand_score

from unspin.pipeline import Config, analyse, fingerprint


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--refs", default="0,2,4")
    ap.add_argument("--param", default="crowd_ref")
    ap.add_argument("--feature", default="crowd")
    ap.add_argument("--set", choices=("pac", "ecb"), default="pac")
    a = ap.parse_args()
    if a.set == "pac":
        arts, gold = pac()
        half_of = {x.id: pac_fold(gold[x.id]) for x in arts}
    else:
        arts, gold, topic = ecbplus()
        half_of = {x.id: ecb_fold(topic[x.id]) for x in arts}
    docs = fingerprint(arts, Config())
    for ref in (float(x) for x in a.refs.split(",")):
        cfg = Config()
        cfg = replace(cfg, stories=replace(cfg.stories, **{a.param: ref}))
        res = analyse(docs, cfg)
        story = {m: k for k, s in enumerate(res.stories) for m in s.articles}
        claimed = {tuple(sorted((r.a, r.b))) for r in res.relations if r.relation == "same_story"}
        crowd = [(r.features or {}).get(a.feature, 0.0) for r in res.relations]
        row = [
            f"{a.param} {ref:g}: relations {len(crowd)}, with {a.feature} > 0 "
            f"{sum(c > 0 for c in crowd)}, > ref {sum(c > ref for c in crowd)}, "
            f"max {max(crowd, default=0):g}"
        ]
        for half in ("all", "A", "B"):
            ids = [x.id for x in arts if half == "all" or half_of[x.id] == half]
            ari = adjusted_rand_score([gold[i] for i in ids], [story.get(i, i) for i in ids])
            same = {p for p in combinations(sorted(ids), 2) if gold[p[0]] == gold[p[1]]}
            together = sum(story.get(x) == story.get(y) for x, y in same) / max(len(same), 1)
            mine = {p for p in claimed if p[0] in set(ids) and p[1] in set(ids)}
            prec = len(mine & same) / max(len(mine), 1)
            rec = len(mine & same) / max(len(same), 1)
            row.append(
                f"{half}: ARI {ari:.3f}, event pairs together {together:.3f}, "
                f"same_story P {prec:.3f} R {rec:.3f} ({len(mine)} claimed)"
            )
        print("\n  ".join(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
