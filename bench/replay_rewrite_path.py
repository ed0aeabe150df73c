"""Replay classify's whole-derivative paths on rows recorded by ``bench/fit_rewrite.py
--rows`` and count, per kind and set, the pairs taken with and without the body names
at the carried-evidence gate (``ClassifyParams.carried_body_names``).

A pair is taken when the whole-text model calls it whole, or (reworded, one day) the
rewrite model's probability reaches its cut, or lies in the band with the shorter text
carrying the longer's body details; and then only with the pieces the gate needs. The
replay reads the shipped weights and recorded features; it gives the evaluations' counts
up to the few pairs a later rule (a wire form, a template) turns away.

usage: PYTHONPATH=src python bench/replay_rewrite_path.py ROWS.jsonl [ROWS.jsonl ...]
"""

from __future__ import annotations

import json
import math
import sys
from collections import Counter, defaultdict

from unspin.classify import ClassifyParams

P = ClassifyParams()


def rewrite_prob(r: dict) -> float:
    z = P.rewrite_bias + sum(w * r[n] for n, w in zip(P.rewrite_features, P.rewrite_weights))
    return 1 / (1 + math.exp(-z))


def taken(r: dict, body: bool) -> bool:
    """Whether the pair is claimed whole, counting the body names at the gate or not."""
    prob = rewrite_prob(r)
    reworded = r["z"] < 0 and r["verbatim"] < P.copy_verbatim and not r.get("apart")
    model = reworded and prob >= P.rewrite_cut
    band = (
        reworded
        and P.rewrite_band <= prob < P.rewrite_cut
        and r["short_secondary"] >= P.rewrite_secondary
    )
    got, need = r["carried"][:2]
    if not body:
        got -= r.get("body_names", 0)
    return (r["z"] >= 0 or model or band) and got >= need


def main(paths: list[str]) -> None:
    tab: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for path in paths:
        for line in open(path):
            r = json.loads(line)
            key = (r["kind"], r.get("set") or str(r.get("fold")))
            tab[key]["n"] += 1
            tab[key]["without"] += taken(r, False)
            tab[key]["with"] += taken(r, True)
    print("| kind | set or fold | pairs | taken without body names | with them |")
    print("|---|---|---|---|---|")
    for (kind, where), t in sorted(tab.items()):
        print(f"| {kind} | {where} | {t['n']} | {t['without']} | {t['with']} |")


if __name__ == "__main__":
    main(sys.argv[1:])
