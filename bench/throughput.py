"""Throughput of a scan on real articles (BBC News), per stage, in one run.

Usage: .venv/bin/python bench/throughput.py [--n 2225]
Reports articles/s for fingerprinting (sentence split, language, MinHash, embeddings)
and for the pair stages (candidates, alignment, typing, stories), and peak RSS.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from common import SHARED, jsonl

from unspin.model import Article
from unspin.pipeline import Config, analyse, fingerprint


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2225)
    args = ap.parse_args()
    rows = jsonl(SHARED / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz")[: args.n]
    arts = [Article(id=r["id"], text=r["title"] + "\n\n" + r["text"]) for r in rows]
    cfg = Config()
    t0 = time.perf_counter()
    docs = fingerprint(arts, cfg)
    t1 = time.perf_counter()
    res = analyse(docs, cfg)
    t2 = time.perf_counter()
    n_sent = sum(len(d.sentences) for d in docs)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"articles: {len(arts)}, sentences: {n_sent}")
    print(f"fingerprint: {t1 - t0:.1f} s ({len(arts) / (t1 - t0):.1f} articles/s)")
    print(f"pairs+stories: {t2 - t1:.1f} s ({len(arts) / (t2 - t1):.1f} articles/s)")
    print(f"total: {t2 - t0:.1f} s; peak RSS {rss:.0f} MB")
    counts: dict[str, int] = {}
    for r in res.relations:
        counts[r.relation] = counts.get(r.relation, 0) + 1
    print(f"relations: {counts}; stories: {len(res.stories)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
