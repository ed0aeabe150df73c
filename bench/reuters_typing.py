"""Reuse typing on a Reuters-21578 subset: relation counts and seeded samples to read by hand.

Usage: .venv/bin/python bench/reuters_typing.py [--n 3000] [--skip 0] [--dates] [--cache DIR]
           [--out FILE.jsonl] [--sample spun=40,copy=10,partial=10] [--seed 0] [--chars 400]
Runs the whole pipeline on the first N Reuters articles with a body (fingerprints cached in
DIR, a Store, so reruns after a change to align/classify skip the embedding), prints the
counts per relation type, then for a seeded sample of each type both texts' openings, the
aligned coverage and the typing reasons, to be judged by hand (is it a rewrite of the
same item, an update of the same story, a template with other names and figures?).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter

from eval_duplicates import load

from unspin.pipeline import Config, analyse, fingerprint
from unspin.store import Store


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--cache", default=None)
    ap.add_argument("--out", default=None, help="write relations (without passages) here")
    ap.add_argument("--sample", default="spun=40,copy=10,partial=10")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chars", type=int, default=400)
    ap.add_argument("--skip", type=int, default=0, help="start at the SKIP-th article with a body")
    ap.add_argument("--dates", action="store_true", help="give each article its Reuters DATE")
    ap.add_argument("--fingerprint-only", action="store_true", help="fill the cache and stop")
    args = ap.parse_args()
    arts = load("reuters", args.n, skip=args.skip, dates=args.dates)
    text = {a.id: a.text for a in arts}
    cfg = Config()
    t0 = time.perf_counter()
    store = Store(args.cache) if args.cache else None
    docs = fingerprint(arts, cfg, cache=store)
    if store is not None:
        store.commit()
        store.close()
    t1 = time.perf_counter()
    if args.fingerprint_only:
        print(f"fingerprinted {len(arts)} articles in {t1 - t0:.0f} s")
        return 0
    res = analyse(docs, cfg)
    t2 = time.perf_counter()
    counts = Counter(r.relation for r in res.relations)
    print(f"reuters first {len(arts)} articles with a body")
    print(f"fingerprint {t1 - t0:.0f} s, pairs+stories {t2 - t1:.0f} s")
    print("relations:", dict(sorted(counts.items())), f"stories: {len(res.stories)}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            for r in res.relations:
                row = {"a": r.a, "b": r.b, "relation": r.relation, "confidence": r.confidence}
                row |= {"reasons": r.reasons, "features": r.features}
                fh.write(json.dumps(row) + "\n")
    rng = random.Random(args.seed)
    for spec in filter(None, args.sample.split(",")):
        kind, k = spec.split("=")
        rels = [r for r in res.relations if r.relation == kind]
        for n, r in enumerate(rng.sample(rels, min(int(k), len(rels))), 1):
            print(f"\n=== {kind} #{n}: {r.a} / {r.b} conf {r.confidence}")
            for reason in r.reasons:
                print("   ", reason)
            for side in (r.a, r.b):
                opening = " ".join(text[side][: args.chars].split())
                print(f"  [{side}] {opening}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
