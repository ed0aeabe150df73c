"""What each candidate generator costs and adds (does it earn its time?).

Usage: PYTHONPATH=src:bench .venv/bin/python bench/generators.py bbc [--n N] [--store DIR]

For every generator of :mod:`unspin.candidates`: its time, the pairs it proposes, the
pairs no other generator proposes, and what those pairs become when aligned and
classified (reuse relations by type) and how many reach the story model's ``related``
cut-off (``same_story``/``related`` candidates). Fingerprints are cached in ``--store``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict

from throughput import CORPORA

from unspin.candidates import (
    CandidateParams,
    _add,
    doc_knn_pairs,
    minhash_pairs,
    quote_pairs,
    sent_knn_pairs,
)
from unspin.evaluate.derivatives import read_corpus
from unspin.pipeline import Config, LocalEngine, corpus_context, fingerprint, pair_work
from unspin.store import Store
from unspin.stories import story_probability


def same_text(docs, out) -> None:
    by_hash = defaultdict(list)
    for i, d in enumerate(docs):
        by_hash[d.norm_hash].append(i)
    for members in by_hash.values():
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                _add(out, members[x], members[y], "same_text")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", choices=sorted(CORPORA))
    ap.add_argument("--n", type=int)
    ap.add_argument("--store", default="/tmp/unspin-generators-store")
    args = ap.parse_args()
    arts = read_corpus(CORPORA[args.corpus])[: args.n]
    cfg = Config()
    engine = LocalEngine()
    with Store(args.store) as st:
        docs = fingerprint(arts, cfg, cache=st, engine=engine)
    p = CandidateParams()
    gens = {
        "same_text": lambda out: same_text(docs, out),
        "minhash": lambda out: minhash_pairs(docs, p.lsh_threshold, out),
        "doc_knn": lambda out: doc_knn_pairs(docs, p.doc_k, p.doc_min_sim, out),
        "sent_knn": lambda out: sent_knn_pairs(docs, p.sent_k, p.sent_min_sim, out),
        "quote": lambda out: quote_pairs(docs, p, out),
    }
    found: dict[str, set] = {}
    secs: dict[str, float] = {}
    for name, fn in gens.items():
        out: dict = defaultdict(set)
        t0 = time.perf_counter()
        fn(out)
        secs[name] = time.perf_counter() - t0
        found[name] = set(out)
    ctx = corpus_context(docs, cfg, engine)
    print(f"{args.corpus}: {len(docs)} articles, {sum(len(d.sentences) for d in docs)} sentences")
    print("| generator | s | pairs | only this one | reuse among those | related or closer |")
    print("|---|---|---|---|---|---|")
    for name in gens:
        others = set().union(*(v for k, v in found.items() if k != name))
        only = sorted(found[name] - others)
        res = engine.map_pairs(pair_work, only, ctx)
        kinds = Counter(r[0].relation for r in res if r[0] is not None)
        story = sum(
            1
            for r in res
            if r[0] is None and story_probability(r[1], cfg.stories) >= cfg.stories.related
        )
        print(
            f"| {name} | {secs[name]:.1f} | {len(found[name])} | {len(only)} "
            f"| {dict(kinds) or 0} | {story} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
