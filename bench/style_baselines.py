"""Two simple direction baselines for model-written rewrites, beside the headline figures:
"the longer text is the source" and the style model alone ("the text that reads more
model-written is the rewrite", no other evidence). Each is given the labelled pair (it
does not have to find it) and is tuned on the tune rewrites only: the length baseline's
margin (undecided when the longer text is less than ``1 + m`` times the shorter) and the
style baseline's log-odds margin, each the one with the most right minus wrong on the 60
tune rewrites. The style of the tune texts (the style model's training data) is read
out of fold (``--oof``, written by ``bench/fit_model_style.py``; ``--oof ''`` for tune
rewrites written after the model was fitted). Undecided counts wrong.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/style_baselines.py
           [--tune /work/deriv3/routes-tune] [--held /work/deriv3/routes-held]
           [--pac /work/rewrites-pac] [--oof /work/mstyle-train/oof.json]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
from common import SHARED
from fit_model_style import oof_key

from unspin.evidence import model_style, style_logit
from unspin.normalise import words


def route_pairs(folder: Path) -> list[tuple[str, str, str]]:
    """(kind, source text, rewrite text) of a routes folder's model-written rewrites."""
    arts = {}
    for line in open(folder / "articles.jsonl", encoding="utf-8"):
        r = json.loads(line)
        arts[r["id"]] = r["text"]
    out = []
    for line in open(folder / "labels.jsonl", encoding="utf-8"):
        x = json.loads(line)
        if x["kind"].startswith("rewrite_"):
            out.append((x["kind"], arts[x["source"]], arts[x["derivative"]]))
    return out


def pac_pairs(folder: Path) -> list[tuple[str, str, str]]:
    """(style, source text, rewrite text) of the PAC dev rewrites."""
    pac = {}
    for line in open(SHARED / "data" / "pac_dev" / "articles.jsonl", encoding="utf-8"):
        r = json.loads(line)
        pac[r["id"]] = r
    man = json.loads((folder / "manifest.json").read_text())
    out = []
    for m in man["items"]:
        s = pac[m["source_id"]]
        src = f"{s['title']}\n\n{s['text']}" if s.get("title") else s["text"]
        out.append((m["style"], src, (folder / m["style"] / m["file"]).read_text()))
    return out


def length_call(src: str, der: str, m: float) -> str:
    ls, ld = len(words(src)), len(words(der))
    if max(ls, ld) < (1 + m) * min(ls, ld) or ls == ld:
        return "undecided"
    return "right" if ls > ld else "wrong"


def style_call(ps: float | None, pd: float | None, m: float) -> str:
    if ps is None or pd is None:
        return "undecided"
    gap = style_logit(pd) - style_logit(ps)
    if abs(gap) < m or gap == 0:
        return "undecided"
    return "right" if gap > 0 else "wrong"


def _tune(calls: list, grid: list[float]) -> float:
    best = max(
        grid,
        key=lambda m: (
            sum(c(m) == "right" for c in calls) - sum(c(m) == "wrong" for c in calls),
            -m,
        ),
    )
    return best


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tune", default="/work/deriv3/routes-tune")
    ap.add_argument("--held", default="/work/deriv3/routes-held")
    ap.add_argument("--pac", default="/work/rewrites-pac")
    ap.add_argument(
        "--oof",
        default="/work/mstyle-train/oof.json",
        help="out-of-fold styles of the style model's training texts; '' when the tune "
        "rewrites are not among them (a set written after the model was fitted)",
    )
    args = ap.parse_args()
    oof = json.loads(Path(args.oof).read_text()) if args.oof else {}

    def style(text: str, out_of_fold: bool) -> float | None:
        if out_of_fold and oof_key(text) in oof:
            return oof[oof_key(text)]
        return model_style(text)

    tune = route_pairs(Path(args.tune))
    tp = [(k, s, d, style(s, True), style(d, True)) for k, s, d in tune]
    grid_len = [round(x, 2) for x in np.arange(0.0, 0.51, 0.05)]
    grid_sty = [round(x, 2) for x in np.arange(0.0, 3.01, 0.25)]
    m_len = _tune([lambda m, s=s, d=d: length_call(s, d, m) for _, s, d, _, _ in tp], grid_len)
    m_sty = _tune([lambda m, a=a, b=b: style_call(a, b, m) for *_, a, b in tp], grid_sty)
    print(f"tuned on the {len(tp)} tune rewrites: length margin {m_len}, style margin {m_sty}")
    sets = [("tune (in-sample for the margins)", tp)]
    if args.held:
        sets.append(
            (
                "held routes",
                [
                    (k, s, d, style(s, False), style(d, False))
                    for k, s, d in route_pairs(Path(args.held))
                ],
            )
        )
    if args.pac:
        sets.append(
            (
                "PAC dev rewrites",
                [
                    (k, s, d, style(s, False), style(d, False))
                    for k, s, d in pac_pairs(Path(args.pac))
                ],
            )
        )
    for name, rows in sets:
        print(f"\n{name} (right / undecided / wrong; right share, undecided counted wrong)")
        by: dict[str, list] = {}
        for r in rows:
            by.setdefault(r[0], []).append(r)
        by["all"] = rows
        for k, rs in by.items():
            cl = Counter(length_call(s, d, m_len) for _, s, d, _, _ in rs)
            cs = Counter(style_call(a, b, m_sty) for *_, a, b in rs)
            n = len(rs)
            lc = f"{cl['right']}/{cl['undecided']}/{cl['wrong']} ({cl['right'] / n:.3f})"
            sc = f"{cs['right']}/{cs['undecided']}/{cs['wrong']} ({cs['right'] / n:.3f})"
            print(f"  {k:18s} n={n:3d}  longer is source {lc}  style only {sc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
