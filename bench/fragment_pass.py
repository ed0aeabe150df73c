"""The stories stage's fragment pass (``stories.attach_fragments``) on a real pile's
components: CPU seconds of the shipped function beside a reference that sums every
fragment-group mean again on every pass (the code before session 32), and whether they
give the same groups.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/fragment_pass.py [--n 1500] [--cache DIR]

Scans the first N Reuters articles with a body (dates given; one process, fingerprints
cached in DIR), records the inputs of every call of the pass, then times both functions
on them, twice each, alternating.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from eval_duplicates import load

import unspin.stories as stories
from unspin.pipeline import Config, analyse, fingerprint
from unspin.store import Store

# the reference the tests check the shipped pass against: the pass as written before its
# means were kept (every fragment-group mean summed again on every pass)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_stories import _attach_every_mean_again as every_mean_again  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--cache", default="/tmp/unspin_fragment_cache")
    args = ap.parse_args()
    arts = load("reuters", args.n, skip=0, dates=True)
    cfg = Config(workers=1)
    st = Store(args.cache)
    docs = fingerprint(arts, cfg, cache=st)
    st.commit()
    calls = []
    shipped = stories.attach_fragments

    def record(groups, prob, p, block=None):
        calls.append(
            ([list(g) for g in groups], prob.copy(), p, None if block is None else block.copy())
        )
        return shipped(groups, prob, p, block)

    stories.attach_fragments = record
    try:
        analyse(docs, cfg, cache=None)
    finally:
        stories.attach_fragments = shipped
    print(f"{len(calls)} components, {sum(len(c[1]) for c in calls)} articles")
    ref = None
    for name, fn in (("reference", every_mean_again), ("shipped", shipped)) * 2:
        t = time.process_time()
        out = [fn([list(g) for g in G], P, p, B) for G, P, p, B in calls]
        print(f"{name}: {time.process_time() - t:.2f} CPU s")
        if ref is None:
            ref = out
        elif out != ref:
            print("groups differ", file=sys.stderr)
            return 1
    print("groups identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
