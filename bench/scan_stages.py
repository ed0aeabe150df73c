"""Wall and CPU seconds of one scan, stage by stage (the local engine's stage timer).

Usage (``SRC``: the ``src`` folder of the checkout to time, so two checkouts can be
compared in one run on the same input; ``PYTHONHASHSEED=0`` to compare their tables)::

    PYTHONHASHSEED=0 .venv/bin/python bench/scan_stages.py SRC INPUT.jsonl OUT [--embedder hashing]

The scan writes its tables to ``OUT`` without a store (nothing cached).
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", help="the src folder of the checkout to time")
    ap.add_argument("input")
    ap.add_argument("out")
    ap.add_argument("--embedder", default="hashing")
    args = ap.parse_args()
    sys.path.insert(0, args.src)
    import unspin
    import unspin.pipeline as pl

    engines: list = []
    real_init = pl.LocalEngine.__init__

    def recording_init(self, *a, **k):  # the scan's engine, to print its stage timer
        real_init(self, *a, **k)
        engines.append(self)

    pl.LocalEngine.__init__ = recording_init
    t0, c0 = time.perf_counter(), os.times()
    config = pl.Config(embedder=args.embedder)
    unspin.scan([args.input], out=args.out, config=config, store=False)
    c1 = os.times()
    cpu = sum(getattr(c1, f) - getattr(c0, f) for f in ("user", "system"))
    cpu += sum(getattr(c1, f) - getattr(c0, f) for f in ("children_user", "children_system"))
    print(f"{unspin.__file__}: wall {time.perf_counter() - t0:.1f} s, CPU {cpu:.1f} s")
    for e in engines:
        print("stages, wall s:", {k: round(v, 1) for k, v in e.timings.items()})
        print("stages, CPU s: ", {k: round(v, 1) for k, v in e.cpu.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
