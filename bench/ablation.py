"""Which evidence earns its keep: each typing feature's and each direction evidence's
share of the right decisions on a derivative-routes evaluation.

Usage: .venv/bin/python bench/ablation.py PAIRS_JSONL [--markdown]

PAIRS_JSONL is the per-pair file of `unspin eval routes ... --out DIR` (DIR/pairs.jsonl),
whose rows carry each relation's recorded evidence (``relations.jsonl`` ``evidence``).
For every named evidence the decision is recomputed with that evidence's contribution
taken out (its weight set to 0, the rest of the fitted model as it is, NOT refitted):

* typing: the whole-derivative log-odds less the feature's contribution against the
  cut (``ClassifyParams.whole_cut``); a pair that stops being whole is typed wrong; a pair
  that becomes whole without having been (its copy/spun split was never computed) is
  counted wrong and reported in ``became whole``;
* direction: the direction score less the evidence's contribution against
  ``direction_margin``; undecided counts wrong.

Exact for the evidence as recorded (the recomputed full model reproduces every recorded
decision; the script checks this and reports mismatches). Pairs the whole model does not
type (across languages: the translation rule) keep their type.
"""

from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict
from pathlib import Path

from unspin.classify import ClassifyParams
from unspin.evaluate.route_eval import GROUPS, ROUTES


def _typing_z(ev: list[dict], drop: str | None) -> float | None:
    parts = [e for e in ev if e["stage"] == "type" and e["name"] != "kept_share"]
    if not parts:
        return None
    return sum(e["weight"] for e in parts if e["name"] != drop)


def _direction_z(ev: list[dict], drop: str | None) -> float:
    return sum(e["weight"] for e in ev if e["stage"] == "direction" and e["name"] != drop)


def _typed_right(row: dict, drop: str | None, cut: float, stats: dict) -> bool:
    exp = ROUTES[row["kind"]].relation
    z = _typing_z(row.get("evidence", []), drop)
    if z is None:  # not typed by the whole model (translation rule, duplicate)
        return row.get("predicted") == exp
    recorded_whole = row.get("predicted") in ("copy", "spun")
    whole = z >= cut
    if not whole:
        return False
    if not recorded_whole:
        stats["became whole"] += 1
        return False
    return row["predicted"] == exp


def _direction_right(row: dict, drop: str | None, margin: float) -> bool:
    ev = row.get("evidence", [])
    if any(e["name"] == "published" for e in ev):
        return row.get("direction") == "right"
    z = _direction_z(ev, drop)
    if z == 0 or abs(z) < margin or "relation_a" not in row:  # no evidence: undecided
        return False
    a = row["relation_a"]
    b = row["b"] if row["a"] == a else row["a"]
    return (a if z > 0 else b) == row["source"]


def ablate(rows: list[dict], p: ClassifyParams) -> tuple[dict, dict, dict]:
    """Per route group: counts of right decisions with each evidence taken out."""
    cut = math.log(p.whole_cut / (1 - p.whole_cut))
    method_of = {k: r.method for k, r in ROUTES.items()}
    group_of = {m: name for name, methods in GROUPS for m in methods}
    typing: dict = defaultdict(lambda: defaultdict(int))
    direc: dict = defaultdict(lambda: defaultdict(int))
    stats: dict = defaultdict(int)
    names_t = ["(none)", *p.whole_features]
    names_d = ["(none)", *p.direction_evidence]
    for row in rows:
        if row.get("kind") not in ROUTES:
            continue
        g = group_of.get(method_of[row["kind"]], row["kind"])
        typing[g]["n"] += 1
        direc[g]["n"] += 1
        found = row.get("predicted") in ("duplicate", "copy", "spun", "translation", "partial")
        if not found:
            continue
        for name in names_t:
            typing[g][name] += _typed_right(row, None if name == "(none)" else name, cut, stats)
        for name in names_d:
            direc[g][name] += _direction_right(
                row, None if name == "(none)" else name, p.direction_margin
            )
        # the recomputed full model must reproduce the recorded decisions
        if _direction_right(row, None, p.direction_margin) != (row.get("direction") == "right"):
            stats["direction mismatches"] += 1
        if _typed_right(row, None, cut, stats) != (row.get("verdict") == "typed right"):
            stats["typing mismatches"] += 1
    return typing, direc, stats


def _table(title: str, counts: dict, names: list[str]) -> str:
    groups = sorted(counts)
    head = (
        f"| {title} taken out | " + " | ".join(f"{g} (n={counts[g]['n']})" for g in groups) + " |"
    )
    lines = [head, "|---|" + "---|" * len(groups)]
    for name in names:
        cells = []
        for g in groups:
            base, got, n = counts[g]["(none)"], counts[g][name], counts[g]["n"]
            cell = f"{got / n:.3f}" if n else "–"
            if name != "(none)" and got != base:
                cell += f" ({got - base:+d})"
            cells.append(cell)
        label = "nothing (the fitted model)" if name == "(none)" else f"`{name}`"
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pairs", type=Path)
    args = ap.parse_args()
    rows = [json.loads(x) for x in args.pairs.read_text(encoding="utf-8").splitlines() if x]
    p = ClassifyParams()
    typing, direc, stats = ablate(rows, p)
    print(_table("typing feature", typing, ["(none)", *p.whole_features]))
    print()
    print(_table("direction evidence", direc, ["(none)", *p.direction_evidence]))
    print()
    print(
        "Share of all labelled pairs of the group typed as expected / directed right "
        "(undecided and not found count wrong); in brackets the change in pairs against the "
        "fitted model. " + ", ".join(f"{k}: {v}" for k, v in sorted(stats.items()))
        if stats
        else "recomputed decisions match the recorded ones"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
