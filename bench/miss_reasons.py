"""Where classify loses the labelled derivatives of routes piles: per pair, the readings
that decided it, and a count of the missed ones by the step that turned them away.

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/miss_reasons.py CACHE PILE [PILE ...] \
        [--kinds condensed] [--rows ROWS.jsonl]

``PILE``: a routes folder (``articles.jsonl``, ``labels.jsonl``, as ``unspin eval
make-routes`` and ``bench/lang_routes.py`` write them); ``CACHE``: a Store folder for the
fingerprints (its pair results are not read: every pair is classified afresh, in this
process, so the readings can be recorded). For each labelled pair whose kind contains one
of ``--kinds`` (default: every kind) it records the whole-text model's probability, the
rewrite model's probability and body-details share where they were read, the pieces
carried and needed (:func:`unspin.evidence.carried_evidence`) and classify's last
reasons; a missed pair (no reuse relation) is put in one group:

* ``series`` / ``template`` / ``form``: called whole, then read as two items of one series,
  one template filled in twice, or one wire form;
* ``gate``: called whole (or a rewrite), with fewer pieces carried than the claim needs;
* ``band``: the rewrite model between ``rewrite_band`` and ``rewrite_cut`` without the
  body-details share;
* ``whole-mid``: the whole-text model 0.3 to its cut, the rewrite model under its band;
* ``weak``: both models low (the whole-text model under 0.3, the rewrite model under
  its band): nothing in the features reads it as one text;
* ``other``: turned away by another rule (its reason is printed with ``--rows``).

Session 43 (docs/benchmarks.md) read the 28 non-English rewrite piles of sessions 41–42
with it. Reads only; one worker (the readings are recorded in this process).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import unspin.classify as classify
from unspin.evaluate.route_eval import read_routes
from unspin.evidence import secondary_share
from unspin.model import REUSE_RELATIONS
from unspin.pipeline import Config, analyse, fingerprint
from unspin.store import Store

GROUPS = ("series", "template", "form", "gate", "band", "whole-mid", "weak", "other")


class Recorder:
    """Wraps classify's readings of each pair (whole-text model, rewrite reading, pieces
    carried, the final answer) and keeps the last of each per pair."""

    def __init__(self) -> None:
        self.seen: dict[frozenset[str], dict] = defaultdict(dict)
        self._real = {
            n: getattr(classify, n)
            for n in ("whole_score", "_rewrite_reading", "carried_evidence", "reuse_type")
        }

    def install(self) -> None:
        real = self._real

        def whole_score(c):
            z, contrib = real["whole_score"](c)
            d = self.seen[frozenset((c.a.id, c.b.id))]
            d["whole"] = classify.logistic(z)
            d["whole_cut"] = classify.whole_model(c)[2]
            return z, contrib

        def rewrite_reading(c, a, b, p, band=True):
            out = real["_rewrite_reading"](c, a, b, p, band)
            d = self.seen[frozenset((a.id, b.id))]
            d["rewrite"] = classify.logistic(classify.rewrite_score(c)[0])
            if band:
                d["second"] = secondary_share(c)
            return out

        def carried_evidence(c, named_phrases=False):
            got, need = real["carried_evidence"](c, named_phrases)
            self.seen[frozenset((c.a.id, c.b.id))]["carried"] = [got, need]
            return got, need

        def reuse_type(a, b, al, p, *args, **kwargs):
            out = real["reuse_type"](a, b, al, p, *args, **kwargs)
            self.seen[frozenset((a.id, b.id))]["reasons"] = out[2][-2:]
            return out

        classify.whole_score = whole_score
        classify._rewrite_reading = rewrite_reading
        classify.carried_evidence = carried_evidence
        classify.reuse_type = reuse_type

    def uninstall(self) -> None:
        for name, fn in self._real.items():
            setattr(classify, name, fn)


def group(d: dict, p: classify.ClassifyParams) -> str:
    """The step that turned a missed pair away, from its recorded readings."""
    why = " | ".join(d.get("reasons") or [])
    whole, rewrite = d.get("whole", 0.0), d.get("rewrite")
    if "two items of one series" in why:
        return "series"
    if "one template filled in twice" in why and "not a whole copy" in why:
        return "template"
    if "wire form" in why:
        return "form"
    if "not a whole derivative" in why:
        return "gate"
    if rewrite is not None and p.rewrite_band <= rewrite < p.rewrite_cut:
        return "band"
    if rewrite is not None and rewrite >= p.rewrite_cut:
        return "other"
    if rewrite is None and whole >= d.get("whole_cut", p.whole_cut):
        return "other"
    return "whole-mid" if whole >= 0.3 else "weak"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cache")
    ap.add_argument("piles", nargs="+")
    ap.add_argument("--kinds", default="", help="comma-separated parts of label kinds")
    ap.add_argument("--rows", help="write every recorded pair here (JSON Lines)")
    args = ap.parse_args()
    kinds = [k for k in args.kinds.split(",") if k]
    rec = Recorder()
    rec.install()
    try:
        counts, rows = _read(args.piles, args.cache, kinds, rec)
    finally:
        rec.uninstall()
    for kind, c in sorted(counts.items()):
        n = sum(c.values())
        parts = ", ".join(f"{g} {c[g]}" for g in GROUPS if c[g])
        print(f"{kind}: {n} labelled, found {c['found']}; missed: {parts or 'none'}")
    if args.rows:
        with open(args.rows, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return 0


def _read(
    piles: list[str], cache: str, kinds: list[str], rec: Recorder
) -> tuple[dict[str, Counter], list[dict]]:
    """Each pile analysed afresh with the readings recorded: counts per kind (the
    language suffix left out) and one row per labelled pair."""
    cfg = Config(workers=1)
    store = Store(cache)
    counts: dict[str, Counter] = defaultdict(Counter)
    rows = []
    for pile in map(Path, piles):
        rec.seen.clear()
        arts, labels = read_routes(pile)  # as the evaluation reads the pile
        res = analyse(fingerprint(arts, cfg, cache=store), cfg, cache=None)
        rel = {frozenset((r.a, r.b)): r for r in res.relations}
        for lab in labels:
            kind = lab.get("kind", "")
            if kinds and not any(k in kind for k in kinds):
                continue
            key = frozenset((lab["a"], lab["b"]))
            r = rel.get(key)
            found = r is not None and r.relation in REUSE_RELATIONS
            d = rec.seen.get(key, {})
            g = "found" if found else group(d, cfg.classify)
            counts[kind.rsplit("_", 1)[0]][g] += 1
            rows.append(
                {"pile": pile.name, "kind": kind, "a": lab["a"], "b": lab["b"],
                 "relation": r.relation if r else None, "group": g, **d}
            )  # fmt: skip
    store.close()
    return counts, rows


if __name__ == "__main__":
    sys.exit(main())
