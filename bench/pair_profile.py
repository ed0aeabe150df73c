"""CPU of the pair and change stages of one scan, without the encoder (issue 14).

Usage (``SRC``: the ``src`` folder of the checkout to time, so two checkouts can be
compared in one run on the same input; ``PYTHONHASHSEED=0`` to compare their tables)::

    PYTHONHASHSEED=0 .venv/bin/python bench/pair_profile.py SRC INPUT.jsonl OUT \
        --cache /tmp/vectors [--embedder use] [--workers 0] [--profile PREFIX]

Articles are prepared afresh on every run; only the sentence vectors are read from (and
first written to) the store ``--cache``, so after one run that filled it the encoder is
out of the measure. Nothing else is memoised: every pair and every relation's changes
are computed. The seven tables are written to ``OUT`` (compare two checkouts' with
``cmp``). ``--profile PREFIX``: one worker, cProfile around the pair stage (candidates,
alignment, typing, story features) and around the changes stage, written to
``PREFIX.pairs.prof`` and ``PREFIX.changes.prof``, their top self-time functions printed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from typing import Any


class VectorsOnly:
    """A store seen only as a sentence-vector cache: no docs read or kept, no memo."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def get_docs(self, articles, embedder, **kw):
        return [None] * len(articles)

    def put_doc(self, doc, embedder) -> None:
        return None

    def get_sentence_vectors(self, keys, embedder):
        return self.store.get_sentence_vectors(keys, embedder)

    def put_sentence_vectors(self, vectors, embedder) -> None:
        self.store.put_sentence_vectors(vectors, embedder)


def _profiled(prof: Any, fn):
    def run(*a, **k):
        prof.enable()
        try:
            return fn(*a, **k)
        finally:
            prof.disable()

    return run


def _top(path: str, n: int) -> None:
    import pstats

    print(f"--- {path}: top {n} by self time")
    pstats.Stats(path).sort_stats("tottime").print_stats(n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", help="the src folder of the checkout to time")
    ap.add_argument("input")
    ap.add_argument("out")
    ap.add_argument("--cache", required=True, help="store folder of the sentence vectors")
    ap.add_argument("--embedder", default="use")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--profile", default=None, help="prefix of the two .prof files")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    sys.path.insert(0, args.src)
    import unspin
    import unspin.pipeline as pl
    from unspin.api import _read_inputs
    from unspin.output import write_results
    from unspin.store import Store

    workers = 1 if args.profile else args.workers
    config = pl.Config(embedder=args.embedder, workers=workers)
    articles, errors = _read_inputs([args.input], None)
    store = Store(args.cache)
    cache = VectorsOnly(store)
    engine = pl.LocalEngine(config.workers)
    t0, c0 = time.perf_counter(), os.times()
    limit = getattr(pl, "blas_threads", None)
    with limit(config.blas_threads) if limit is not None else contextlib.nullcontext():
        docs = pl.fingerprint(articles, config, cache=cache, engine=engine)
    c1 = os.times()
    profs: dict[str, Any] = {}
    if args.profile:
        import cProfile

        profs = {"pairs": cProfile.Profile(), "changes": cProfile.Profile()}
        pl.pair_stage = _profiled(profs["pairs"], pl.pair_stage)
        pl.result_changes = _profiled(profs["changes"], pl.result_changes)
    # as a scan runs it (unspin.api): under the BLAS limit, where the checkout has one
    limit = getattr(pl, "blas_threads", None)
    with limit(config.blas_threads) if limit is not None else contextlib.nullcontext():
        result = pl.analyse(docs, config, errors, engine=engine, memo=None, cache=cache)
        pl.provenance(result, lambda r: pl.result_changes(r, config, engine, None), None)
    c2 = os.times()
    store.close()
    write_results(result, args.out)

    def cpu(a, b) -> float:
        fields = ("user", "system", "children_user", "children_system")
        return sum(getattr(b, f) - getattr(a, f) for f in fields)

    print(
        f"{unspin.__file__}: {len(docs)} docs, {len(result.relations)} relations; "
        f"wall {time.perf_counter() - t0:.1f} s; CPU fingerprint {cpu(c0, c1):.1f} s, "
        f"after it {cpu(c1, c2):.1f} s; load {os.getloadavg()[0]:.1f}"
    )
    print("stages, wall s:", {k: round(v, 1) for k, v in engine.timings.items()})
    print("stages, CPU s: ", {k: round(v, 1) for k, v in engine.cpu.items()})
    for name, prof in profs.items():
        path = f"{args.profile}.{name}.prof"
        prof.dump_stats(path)
        _top(path, args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
