"""What the recorded evidence of `unspin eval routes --out DIR` runs says, pile by pile.

Usage:
    python bench/evidence_census.py [--group NAME=DIR,DIR,...]... [--rewrite-claims] DIR...

Each DIR is an ``--out`` folder of ``unspin eval routes`` (its ``pairs.jsonl``: every
labelled pair and every unlabelled reuse claim, with the evidence recorded for it).
Groups (``--group``; default one group per DIR) are summed. Printed per group:

* found / typed as labelled / direction right / undecided / wrong, and unlabelled claims;
* per direction evidence, over the found labelled pairs: how often its recorded
  contribution pointed at the true source and how often away, with the summed weights
  (a contribution of weight 0, recorded and not weighed, is left out);
* for the pairs directed wrong: which evidence pointed wrong with the largest weight, and
  how many would point right with one evidence's recorded contribution taken out (the
  recorded weights only: taking one out would not rerun the stage's gates, leads and
  deciders, so this bounds what dropping it could do; it is not a rerun);
* with ``--rewrite-claims``: every pair the rewrite-of-one-text model claimed (its
  ``rewrite.*`` contributions are recorded), labelled or not, with the model's inputs.

Reads result files only; nothing is recomputed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path


def _rows(folder: Path) -> list[dict]:
    path = folder / "pairs.jsonl"
    if not path.is_file():
        raise SystemExit(f"{folder}: no pairs.jsonl (an `unspin eval routes --out` folder?)")
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _direction(rows: list[dict]) -> list[tuple[dict, bool, list[dict]]]:
    """(row, whether ``a`` is the true source, its weighed direction contributions) for
    each found labelled pair."""
    out = []
    for r in rows:
        if not r.get("labelled") or r.get("verdict") == "missed":
            continue
        ev = [
            e
            for e in r.get("evidence") or []
            if e.get("stage") == "direction" and e.get("weight", 0.0) != 0.0
        ]
        out.append((r, r.get("source") == r.get("a"), ev))
    return out


def census(name: str, folders: list[Path], rewrite_claims: bool) -> None:
    rows = [r for f in folders for r in _rows(f)]
    lab = [r for r in rows if r.get("labelled")]
    found = sum(r.get("verdict") != "missed" for r in lab)
    typed = sum(r.get("verdict") == "typed right" for r in lab)
    dirs = Counter(r.get("direction") for r in lab)
    print(f"## {name} ({len(folders)} piles)")
    print(
        f"labelled {len(lab)}: found {found}, typed {typed}, direction right "
        f"{dirs['right']} / undecided {dirs['undecided']} / wrong {dirs['wrong']}; "
        f"unlabelled claims {len(rows) - len(lab)}"
    )
    per: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0, 0.0])
    top: Counter = Counter()
    fixes: Counter = Counter()
    wrong = 0
    for r, a_source, ev in _direction(rows):
        sign = 1.0 if a_source else -1.0
        for e in ev:
            ok = e["weight"] * sign > 0
            s = per[e["name"]]
            s[0 if ok else 1] += 1
            s[2 if ok else 3] += abs(e["weight"])
        if r.get("direction") != "wrong":
            continue
        wrong += 1
        against = sorted((e for e in ev if e["weight"] * sign < 0), key=lambda e: -abs(e["weight"]))
        top[against[0]["name"] if against else "(none recorded)"] += 1
        z = sum(e["weight"] for e in ev)
        for e in against:
            if (z - e["weight"]) * sign > 0:
                fixes[e["name"]] += 1
    print("| evidence | points right | points wrong | weight right | weight wrong |")
    print("|---|---|---|---|---|")
    for k, (nr, nw, wr, ww) in sorted(per.items(), key=lambda x: -(x[1][2] + x[1][3])):
        print(f"| {k} | {int(nr)} | {int(nw)} | {wr:.1f} | {ww:.1f} |")
    if wrong:
        print(f"directed wrong: {wrong}; largest weight pointing wrong: {dict(top)}")
        print(f"... pointing right with that one contribution taken out: {dict(fixes)}")
    if rewrite_claims:
        print("rewrite-model claims (labelled: the labelled pair; unlabelled: a false claim")
        print("unless read otherwise):")
        for r in rows:
            ev = {
                e["name"][len("rewrite.") :]: e
                for e in r.get("evidence") or []
                if e["name"].startswith("rewrite.")
            }
            if "doc_sim" not in ev:
                continue
            z = sum(e["weight"] for e in ev.values())
            vals = " ".join(f"{k}={e['value']:.3g}" for k, e in ev.items() if k != "bias")
            kind = r.get("kind") or "unlabelled"
            print(f"  {r['a']} / {r['b']}: {kind}, z {z:.2f}: {vals}")
    print()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--group", action="append", default=[], help="NAME=DIR,DIR,...")
    ap.add_argument("--rewrite-claims", action="store_true")
    args = ap.parse_args(argv)
    groups: list[tuple[str, list[Path]]] = []
    for g in args.group:
        name, _, dirs = g.partition("=")
        if not name or not dirs:
            ap.error(f"--group {g!r}: write NAME=DIR,DIR,...")
        groups.append((name, [Path(d) for d in dirs.split(",") if d]))
    groups += [(d.name, [d]) for d in args.dirs]
    if not groups:
        ap.error("give at least one folder or --group")
    for name, folders in groups:
        census(name, folders, args.rewrite_claims)
    return 0


if __name__ == "__main__":
    sys.exit(main())
