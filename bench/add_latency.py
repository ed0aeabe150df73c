"""How long `unspin add` of one article takes on a store of N articles, beside a full scan.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/add_latency.py [--n 2000] [--embedder use]

Scans the first N BBC articles into a fresh results folder (timed), adds article N+1
(timed: its answer, the relations a full rescan would give, is written to the folder),
then removes it again (timed), and checks that the folder equals a fresh scan of the
N + 1 articles (every table).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from throughput import CORPORA

import unspin
from unspin.evaluate.derivatives import read_corpus
from unspin.output import read_tables
from unspin.pipeline import Config


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--embedder", default="use")
    ap.add_argument("--check", action="store_true", help="also compare with a fresh scan")
    ap.add_argument(
        "--vectors-from",
        help="a store whose cached sentence vectors to start from (e.g. the one "
        "bench/generators.py leaves), so the first scan embeds nothing",
    )
    args = ap.parse_args()
    arts = read_corpus(CORPORA["bbc"])[: args.n + 1]
    cfg = Config(embedder=args.embedder)
    out = Path(tempfile.mkdtemp(prefix="unspin-add-")) / "res"
    t0 = time.perf_counter()
    src = out.parent / "in.jsonl"
    import json

    src.write_text(
        "".join(json.dumps({"id": a.id, "text": a.text}) + "\n" for a in arts[:-1]),
        encoding="utf-8",
    )
    if args.vectors_from:
        from unspin.store import Store

        with Store(args.vectors_from) as a, Store(out / ".unspin") as b:
            a._sentence_table()
            rows = a.con.execute("SELECT key, embedder, vec FROM sentence_vectors").fetchall()
            b._sentence_table()
            with b.con:
                b.con.executemany("INSERT OR REPLACE INTO sentence_vectors VALUES (?,?,?)", rows)
    t0 = time.perf_counter()
    unspin.scan([src], out=out, config=cfg)
    t1 = time.perf_counter()
    unspin.add([arts[-1]], out=out, config=cfg)
    t2 = time.perf_counter()
    unspin.remove([arts[-1].id], out=out, config=cfg)
    t3 = time.perf_counter()
    print(
        f"store of {args.n} articles ({args.embedder}): scan {t1 - t0:.1f} s, "
        f"add one {t2 - t1:.2f} s, remove it {t3 - t2:.2f} s"
    )
    if args.check:
        fresh = unspin.scan([src], out=out.parent / "fresh", config=cfg, store=False)
        same = all(
            read_tables(out)[t] == read_tables(out.parent / "fresh")[t]
            for t in ("relations", "stories", "changes", "quotes", "lineage")
        )
        print(f"after remove, equal to a fresh scan of {len(fresh.docs)}: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
