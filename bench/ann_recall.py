"""Exact against IVF sentence or document k-NN on a real pile: recall of pairs, CPU.

Usage (from the repository root)::

    UNSPIN_SHARED=../shared PYTHONPATH=src:bench .venv/bin/python bench/ann_recall.py \\
        --corpus reuters --n 5000 --grid 2:4,4:8,4:16

Builds the throughput input (``--n`` articles of the corpus + ``--spun`` round trips,
:func:`throughput.build_input`), fingerprints it with the default config, takes the
sentence rows the sentence generator indexes over the exact-duplicate representatives
(as the pipeline does), and runs the exact search (:func:`unspin.candidates.search`) and
the IVF search (:func:`unspin.candidates.ivf_neighbours`) for each ``lists_per_sqrt:nprobe``
of ``--grid``. Reports, per setting, CPU seconds of the search (this process: one core),
the recall of the exact neighbour pairs (row, other row; itself excluded), the doc pairs
the sentence generator proposes (two or more neighbouring sentence pairs) found, lost and
gained, and whether a second run gave the same arrays. The rows are cached in
``--rows`` (an ``.npz``) so a second call skips the fingerprinting. ``--level doc``: the
rows are the representatives' document vectors, searched as the document generator
searches them (``doc_k`` + 1 nearest at ``doc_min_sim``); its doc pairs are the neighbour
pairs.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def rows_of(
    corpus: str, n: int | None, spun: int, seed: int, path: Path, level: str = "sentence"
) -> tuple:
    if path.exists():
        z = np.load(path)
        return z["mat"], z["owner"], int(z["docs"])
    from throughput import build_input

    from unspin.candidates import representatives, sentence_rows
    from unspin.pipeline import Config, LocalEngine, fingerprint

    arts, _ = build_input(corpus, n, spun, seed, 0)
    cfg = Config()
    docs = fingerprint(arts, cfg, engine=LocalEngine(0))
    rep = representatives(docs)
    sub = [d for i, d in enumerate(docs) if rep[i] == i]
    if level == "doc":
        owner, rows = list(range(len(sub))), [d.doc_vector for d in sub]
    else:
        owner, rows = sentence_rows(sub)
    mat = np.vstack([np.asarray(r, np.float32) for r in rows])
    np.savez(path, mat=mat, owner=np.asarray(owner, np.int64), docs=len(sub))
    return mat, np.asarray(owner, np.int64), len(sub)


def main() -> int:
    from unspin.candidates import CandidateParams, hit_arrays, ivf_neighbours, search

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="reuters")
    ap.add_argument("--n", type=int)
    ap.add_argument("--spun", type=int, default=200)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--rows", help="cache of the sentence rows (.npz)")
    ap.add_argument("--grid", default="4:8", help="lists_per_sqrt:nprobe,...")
    ap.add_argument("--no-exact", action="store_true", help="IVF only (timing)")
    ap.add_argument("--level", choices=["sentence", "doc"], default="sentence")
    ap.add_argument("--report", help="write the figures as JSON here")
    ap.add_argument("--train-per-list", type=int, help="IVF_TRAIN_PER_LIST to try")
    ap.add_argument("--threads", type=int, default=1, help="BLAS threads (the pipeline's 1)")
    ap.add_argument(
        "--grow",
        help="m,... : time the shipped IVF search on the rows and m-1 noisy copies of them "
        "(Gaussian 0.02 per dimension, renormalised), then stop",
    )
    args = ap.parse_args()
    from threadpoolctl import threadpool_limits

    import unspin.candidates as cand

    threadpool_limits(limits=args.threads, user_api="blas")
    if args.train_per_list:
        cand.IVF_TRAIN_PER_LIST = args.train_per_list
    tag = "" if args.level == "sentence" else "-doc"
    path = Path(args.rows or f"/tmp/unspin-rows-{args.corpus}-{args.n or 'all'}{tag}.npz")
    mat, owner, ndocs = rows_of(args.corpus, args.n, args.spun, args.seed, path, args.level)
    p = CandidateParams()
    kk, ms = p.sent_k + 1, p.sent_min_sim
    if args.level == "doc":
        kk, ms = p.doc_k + 1, p.doc_min_sim

    def doc_pairs(q: np.ndarray, c: np.ndarray) -> set:
        if args.level == "doc":  # the neighbour pairs themselves, unordered
            keep = q != c
            lo, hi = np.minimum(q[keep], c[keep]), np.maximum(q[keep], c[keep])
            return set(zip(lo.tolist(), hi.tolist()))
        a, b = hit_arrays(owner[q], owner[c], ndocs)
        return set(zip(a.tolist(), b.tolist()))

    if args.grow:
        rng = np.random.default_rng(0)
        for m in (int(x) for x in args.grow.split(",")):
            x = np.vstack(
                [mat]
                + [
                    mat + 0.02 * rng.standard_normal(mat.shape).astype(np.float32)
                    for _ in range(m - 1)
                ]
            )
            x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
            c0 = time.process_time()
            ivf_neighbours(x, np.arange(len(x)), kk, ms, p.ivf_lists_per_sqrt, p.ivf_nprobe)
            print(f"{len(x)} rows: IVF {time.process_time() - c0:.1f} CPU s", flush=True)
        return 0
    ids = np.arange(len(mat), dtype=np.int64)
    print(f"{len(mat)} {args.level} rows of {ndocs} docs (k={kk}, min_sim={ms})")
    out: dict = {"rows": len(mat), "docs": ndocs, "settings": []}
    ex = exd = None
    if not args.no_exact:
        c0 = time.process_time()
        q, c, sims = search(mat, ids, mat, ids, kk, ms)
        out["exact_cpu_s"] = time.process_time() - c0
        keep = q != c
        ex = set(zip(q[keep].tolist(), c[keep].tolist()))
        exd = doc_pairs(q, c)
        # each exact neighbour pair's similarity, for the recall by similarity band
        sim_of = {
            (min(a, b), max(a, b)): v
            for a, b, v in zip(q[keep].tolist(), c[keep].tolist(), sims[keep].tolist())
        }
        print(
            f"exact: {out['exact_cpu_s']:.1f} CPU s, {len(ex)} neighbour pairs, "
            f"{len(exd)} doc pairs"
        )
    print(
        "| lists/sqrt | nprobe | lists | CPU s | neighbour recall | doc pairs found "
        "| lost | gained | same on a rerun |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for item in args.grid.split(","):
        lps, npb = float(item.split(":")[0]), int(item.split(":")[1])
        c0 = time.process_time()
        q, c, s = ivf_neighbours(mat, ids, kk, ms, lps, npb)
        cpu = time.process_time() - c0
        q2, c2, s2 = ivf_neighbours(mat, ids, kk, ms, lps, npb)
        same = bool(np.array_equal(q, q2) and np.array_equal(c, c2) and np.array_equal(s, s2))
        keep = q != c
        ap_ = set(zip(q[keep].tolist(), c[keep].tolist()))
        apd = doc_pairs(q, c)
        row = {
            "lists_per_sqrt": lps,
            "nprobe": npb,
            "lists": int(np.ceil(lps * np.sqrt(len(mat)))),
            "cpu_s": cpu,
            "same_on_rerun": same,
            "doc_pairs": len(apd),
        }
        if ex is not None:
            row["neighbour_recall"] = len(ex & ap_) / max(1, len(ex))
            row["doc_pairs_found"] = len(exd & apd)
            row["doc_pairs_lost"] = len(exd - apd)
            row["doc_pairs_gained"] = len(apd - exd)
        if ex is not None and args.level == "doc":  # recall of the pairs by similarity
            row["recall_by_similarity"] = {}
            for lo in (0.6, 0.7, 0.8, 0.9):
                want = [k for k, v in sim_of.items() if v >= lo]
                row["recall_by_similarity"][lo] = [sum(k in apd for k in want), len(want)]
        out["settings"].append(row)
        print(
            f"| {lps:g} | {npb} | {row['lists']} | {cpu:.1f} "
            f"| {row.get('neighbour_recall', float('nan')):.4f} "
            f"| {row.get('doc_pairs_found', '-')}/{len(exd) if exd is not None else '-'} "
            f"| {row.get('doc_pairs_lost', '-')} | {row.get('doc_pairs_gained', '-')} | {same} |",
            flush=True,
        )
        for lo, (got, of) in row.get("recall_by_similarity", {}).items():
            print(f"    pairs at similarity >= {lo}: {got} / {of}")
    if args.report:
        Path(args.report).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
