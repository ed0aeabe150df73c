"""Replay classify's whole-derivative paths on rows recorded by ``bench/fit_rewrite.py
--rows`` and count, per kind and set, the pairs taken: without the body names at the
carried-evidence gate (``ClassifyParams.carried_body_names`` False), with them and the
gate for every claim (session 29), and with them and the rewrite model's own claims
needing ``ClassifyParams.rewrite_min_carried`` pieces only (session 30, shipped).

A pair is taken when the whole-text model calls it whole, or (reworded, one day) the
rewrite model's probability reaches its cut, or lies in the band with the shorter text
carrying the longer's body details; and then only with the pieces the gate needs, or,
for the rewrite model's own claim (also read where the whole-text model's claim fails
the gate), ``rewrite_min_carried``. The replay reads the shipped weights and recorded
features; it gives the evaluations' counts up to the few pairs a later rule (a wire
form, a template) turns away.

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


def taken(r: dict, body: bool, model_gate: int | None) -> bool:
    """Whether the pair is claimed whole, counting the body names at the gate or not;
    ``model_gate``: the pieces the rewrite model's own claim needs (None: the gate's)."""
    prob = rewrite_prob(r)
    reworded = r["verbatim"] < P.copy_verbatim and not r.get("apart")
    model = reworded and prob >= P.rewrite_cut
    band = (
        r["z"] < 0
        and reworded
        and P.rewrite_band <= prob < P.rewrite_cut
        and r["short_secondary"] >= P.rewrite_secondary
    )
    got, need = r["carried"][:2]
    if not body:
        got -= r.get("body_names", 0)
    if (r["z"] >= 0 or (model and r["z"] < 0) or band) and got >= need:
        return True
    return model_gate is not None and model and got >= model_gate


def main(paths: list[str]) -> None:
    tab: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for path in paths:
        for line in open(path):
            r = json.loads(line)
            key = (r["kind"], r.get("set") or str(r.get("fold")))
            tab[key]["n"] += 1
            tab[key]["without"] += taken(r, False, None)
            tab[key]["with"] += taken(r, True, None)
            tab[key]["model"] += taken(r, True, P.rewrite_min_carried)
    print(
        "| kind | set or fold | pairs | taken without body names | with them (session 29) "
        "| and the rewrite model's own claims past the gate (session 30) |"
    )
    print("|---|---|---|---|---|---|")
    for (kind, where), t in sorted(tab.items()):
        print(f"| {kind} | {where} | {t['n']} | {t['without']} | {t['with']} | {t['model']} |")


if __name__ == "__main__":
    main(sys.argv[1:])
