"""Resident memory of a scan's main process and its workers, stage by stage (issue 14).

Usage (from the repository root or a ``git archive`` copy of it)::

    UNSPIN_SHARED=/work/shared PYTHONPATH=src:bench .venv/bin/python bench/rss_stages.py \
        --n 5000 --report OUT.json [--out TABLES]

Runs :func:`throughput.run_unspin` (the throughput bench's unspin run: fingerprint,
analyse and provenance as ``unspin scan`` runs them without a store) in this process on
the first ``--n`` articles of Reuters plus its 200 round-trip copies, with a thread that
reads the resident memory of this process and of each worker every 0.25 s and keeps the
largest per (stage, process kind). A stage's workers are labelled with the last stage
the engine's timer closed before them ("after corpus / worker": the alignment stage's
workers). Also reported: the engine's per-stage figures, the largest RSS of this process
and of its workers (``getrusage``), CPU s (process and workers) and wall. ``--out``
writes the result tables (``unspin.output.write_results``), to compare checkouts.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path

import throughput

from unspin import pipeline

EVERY = 0.25  # seconds between samples


def _rss_mb(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * 4096 / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


class StageSampler:
    """Largest RSS per (last closed stage, main or worker), sampled in a thread."""

    def __init__(self) -> None:
        self.stage = "start"
        self.peak: dict[tuple[str, str], float] = {}
        real = pipeline.LocalEngine._add

        def add(engine, stage: str, t0: float, c0: float) -> None:
            real(engine, stage, t0, c0)
            self.stage = stage

        pipeline.LocalEngine._add = add  # type: ignore[method-assign]
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        me = os.getpid()
        while True:
            try:
                kids = Path(f"/proc/{me}/task/{me}/children").read_text().split()
            except OSError:
                kids = []
            for kind, pid in [("main", me)] + [("worker", int(k)) for k in kids]:
                key = (self.stage, kind)
                self.peak[key] = max(self.peak.get(key, 0.0), _rss_mb(pid))
            time.sleep(EVERY)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=5000, help="first N Reuters articles")
    ap.add_argument("--spun", type=int, default=200, help="round-trip copies added")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--report", required=True, help="figures as JSON here")
    ap.add_argument("--out", help="result tables written here")
    args = ap.parse_args()
    arts, _ = throughput.build_input("reuters", args.n or None, args.spun, 14, 0)
    sampler = StageSampler()
    t0 = time.perf_counter()
    rep = throughput.run_unspin(arts, args.workers)
    rep["wall"] = time.perf_counter() - t0
    rep["sampled_mb"] = {f"after {s} / {k}": round(v) for (s, k), v in sampler.peak.items()}
    usage = {w: resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)}
    rep["max_rss_main_mb"] = usage[resource.RUSAGE_SELF].ru_maxrss / 1024
    rep["max_rss_workers_mb"] = usage[resource.RUSAGE_CHILDREN].ru_maxrss / 1024
    rep["cpu_s"] = sum(u.ru_utime + u.ru_stime for u in usage.values())
    if args.out:
        from unspin.output import write_results

        write_results(throughput._LAST_RESULT[0], args.out)
    Path(args.report).write_text(json.dumps(rep))
    keys = ("wall", "cpu_s", "max_rss_main_mb", "max_rss_workers_mb", "relations", "stories")
    print({k: rep[k] for k in keys})
    print(rep["sampled_mb"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
