"""Reuse claims on ECB+ dev and PAC dev: each set scanned as one pile, every reuse relation
written as a JSON line (set, a, b, relation, confidence, whether the two articles are of
one event). Both sets are independent coverage but where an outlet copied another, so
every claim is one to read (issue 11: quoting a common source is no reuse).

usage: PYTHONPATH=src:bench .venv/bin/python bench/reuse_claims.py OUT.jsonl [--cache DIR]

``--cache``: a folder of stores ``DIR/ecb`` and ``DIR/pac`` holding the sets'
fingerprints; each is copied to a temporary folder first, so the cache is never written.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from common import ecbplus, pac

import unspin
from unspin.model import REUSE_RELATIONS


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--cache", default="", help="folder with stores ecb/ and pac/")
    args = ap.parse_args()
    arts, sub, _ = ecbplus()
    pac_arts, event = pac()
    with open(args.out, "w") as out:
        for name, pile, label in (("ecb", arts, sub), ("pac", pac_arts, event)):
            with tempfile.TemporaryDirectory() as tmp:
                store: Path | bool = False
                if args.cache and (Path(args.cache) / name).is_dir():
                    store = Path(tmp) / "s"
                    shutil.copytree(Path(args.cache) / name, store)
                res = unspin.scan(pile, store=store)
            n = 0
            for r in res.relations:
                if r.relation in REUSE_RELATIONS:
                    n += 1
                    row = dict(
                        set=name,
                        a=r.a,
                        b=r.b,
                        rel=r.relation,
                        conf=r.confidence,
                        same=label[r.a] == label[r.b],
                    )
                    out.write(json.dumps(row) + "\n")
            print(f"{name}: {len(pile)} articles, {n} reuse claims", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
