"""How many lines of each result table one `unspin add` rewrites.

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/add_churn.py OUT [--corpus bbc] [--n 1500] \
        [--embedder hashing]

Scans the first N articles of the corpus into OUT, then adds an edited copy of the first
stored article (from the 101st) that carries three or more quotations, and prints, per
table, how many of its lines after the add were not lines of it before: what the add
wrote anew, what a reader of the tables (the service's next snapshot, a diff of two
runs) reads anew, and how stable the ids in it are.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from add_latency import edited_copy, pile

import unspin
from unspin.pipeline import Config

TABLES = ("quotes", "lineage", "stories", "relations", "changes", "articles")


def _lines(out: Path, name: str) -> set[str]:
    return set((out / f"{name}.jsonl").read_text(encoding="utf-8").splitlines())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--corpus", choices=["bbc", "reuters", "mix"], default="bbc")
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--embedder", default="hashing")
    args = ap.parse_args(argv)
    arts, _ = pile(args.corpus, args.n)
    cfg = Config(embedder=args.embedder)
    shutil.rmtree(args.out, ignore_errors=True)
    unspin.scan(arts, out=args.out, config=cfg)
    before = {name: _lines(args.out, name) for name in TABLES}
    src = next((a for a in arts[100:] if a.text.count('"') >= 6), None)
    if src is None:
        print("no stored article with three quotations to copy", file=sys.stderr)
        return 1
    unspin.add([edited_copy(src)], out=args.out, config=cfg)
    print(f"added an edited copy of {src.id!r} to {len(arts)} articles")
    for name in TABLES:
        after = _lines(args.out, name)
        print(f"{name}: {len(after - before[name])} of {len(after)} lines new or changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
