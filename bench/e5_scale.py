"""Document cosines of pairs of different NTREX documents within one language, in the
second space (e5, as :func:`unspin.second.plan` computes document vectors: centred
sentence vectors weighted by length) beside the main encoder's: how far each language's
cosines sit from English ones (docs/benchmarks.md, session 38).

Usage: PYTHONPATH=src:bench .venv/bin/python bench/e5_scale.py NTREX_JSONL CACHE_DIR \
    [--langs eng,hin] [--pair ID_A ID_B]
(CACHE_DIR: a Store whose cached fingerprints and e5 vectors are reused and filled.)
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys

import numpy as np

from unspin.model import Article, Doc
from unspin.pipeline import Config, fingerprint
from unspin.second import SecondParams, _encode, centred
from unspin.store import Store


def e5_doc_vector(d: Doc, store: Store) -> np.ndarray:
    """The second space's document vector of ``d`` (as ``unspin.second.plan`` sets it)."""
    v = centred(_encode([s.text for s in d.sentences], SecondParams().embedder, store))
    mask = [not s.boilerplate for s in d.sentences]
    if not any(mask):
        mask = [True] * len(mask)
    w = np.array([len(s.text) for s, m in zip(d.sentences, mask) if m])
    x = (v[mask] * w[:, None]).sum(axis=0)
    return x / (np.linalg.norm(x) or 1.0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ntrex")
    ap.add_argument("cache")
    ap.add_argument("--langs", default="eng,hin")
    ap.add_argument("--pair", nargs=2, metavar="DOC", help="two doc_ids to report")
    args = ap.parse_args()
    store = Store(args.cache)
    rows = [json.loads(line) for line in open(args.ntrex, encoding="utf-8")]
    q = [0.5, 0.9, 0.99, 1.0]
    for lang in args.langs.split(","):
        mine = [r for r in rows if r["lang"] == lang]
        arts = [Article(id=r["id"], text=r["text"], title=r.get("title")) for r in mine]
        docs = fingerprint(arts, Config(), cache=store)
        doc_id = {r["id"]: r["doc_id"] for r in mine}
        e5 = np.stack([e5_doc_vector(d, store) for d in docs])
        main_ = np.stack([d.doc_vector for d in docs])
        se, sm, at = [], [], {}
        for i, j in itertools.combinations(range(len(docs)), 2):
            a, b = doc_id[docs[i].id], doc_id[docs[j].id]
            if a == b:
                continue
            at[frozenset((a, b))] = len(se)
            se.append(float(e5[i] @ e5[j]))
            sm.append(float(main_[i] @ main_[j]))
        se_, sm_ = np.array(se), np.array(sm)
        print(f"{lang}: {len(docs)} docs, {len(se)} pairs of different documents")
        print(f"  e5   quantiles {q}: {np.round(np.quantile(se_, q), 3).tolist()}")
        print(f"  main quantiles {q}: {np.round(np.quantile(sm_, q), 3).tolist()}")
        if args.pair and frozenset(args.pair) in at:
            k = at[frozenset(args.pair)]
            re_, rm = int((se_ > se[k]).sum()) + 1, int((sm_ > sm[k]).sum()) + 1
            print(
                f"  {args.pair[0]} / {args.pair[1]}: e5 {se[k]:.3f} (rank {re_}), "
                f"main {sm[k]:.3f} (rank {rm})"
            )
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
