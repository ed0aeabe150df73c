"""The exact self k-NN two ways on real sentence vectors: every query block against every
row (``candidates.search``) beside each pair of tiles once (``candidates.self_search``),
in one process; CPU seconds and whether the neighbour pairs agree (issue 14).

usage: OPENBLAS_NUM_THREADS=1 PYTHONPATH=src python bench/self_knn.py STORE.sqlite N [N ...]
    [--embedder use-m3]

``STORE.sqlite``: a store's database (its ``sentence_vectors`` table), e.g. the cache of
``bench/cached_eval.py``; the first ``N`` vectors by key are searched.
"""

from __future__ import annotations

import argparse
import sqlite3
import time

import numpy as np

from unspin.candidates import search, self_search


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("store")
    ap.add_argument("n", nargs="+", type=int)
    ap.add_argument("--embedder", default="use-m3")
    args = ap.parse_args()
    db = sqlite3.connect(f"file:{args.store}?mode=ro", uri=True)
    rows = db.execute(
        "select vec from sentence_vectors where embedder = ? order by key", (args.embedder,)
    )
    vecs = np.stack([np.frombuffer(v, dtype=np.float32) for (v,) in rows])
    print(f"{len(vecs)} vectors of {args.embedder}")
    for n in args.n:
        mat = np.ascontiguousarray(vecs[:n])
        ids = np.arange(len(mat), dtype=np.int64)
        for k, bar in ((6, 0.82), (21, 0.5)):
            t = time.process_time()
            a = search(mat, ids, mat, ids, k, bar)
            ta = time.process_time() - t
            t = time.process_time()
            b = self_search(mat, ids, k, bar)
            tb = time.process_time() - t
            same = all(np.array_equal(x, y) for x, y in zip(a[:2], b[:2]))
            diff = float(np.abs(a[2] - b[2]).max()) if same and len(a[2]) else float("nan")
            print(
                f"n={len(mat)} k={k} cut={bar}: search {ta:.1f} CPU s, self_search {tb:.1f} "
                f"CPU s; neighbour pairs identical: {same}; similarities within {diff:.1e}"
            )


if __name__ == "__main__":
    main()
