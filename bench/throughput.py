"""Throughput of unspin beside plain MinHash-LSH dedup (datasketch, rensa), in one run.

Usage (from the repository root, after ``make setup``)::

    PYTHONPATH=src:bench .venv/bin/python bench/throughput.py --corpus bbc --corpus reuters
    PYTHONPATH=src:bench .venv/bin/python bench/throughput.py --corpus synthetic \
        --synthetic-n 100000

For each corpus the input is the corpus itself plus Apertium round-trip spun copies
(English -> Spanish -> English) of ``--spun`` of its articles, chosen with a fixed seed.
Each system runs in a child process of its own on the same input file, one after the
other in the same run (the machine is shared: compare rows of one run, not across runs),
and reports wall time, articles/s, peak memory of its process tree (PSS summed over the
process and its workers, sampled every 0.2 s, and the largest single RSS), the stage
breakdown (unspin's engine timer) and recall of the spun copies: a copy counts as found
when the system pairs it with its original (unspin: any reuse relation; the baselines:
the LSH reports the pair as near duplicates). The load average at the start and end of
each run is printed: other jobs on the machine slow every row.

``synthetic``: new articles recombined from real sentences of Reuters-21578 and BBC News:
each sentence is the first half of one real sentence and the second half of another,
so the articles read like news, share no whole sentence by construction of the corpus
(but do share half sentences), and the corpus can be made at any size.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import SHARED

from unspin.evaluate.derivatives import ApertiumTranslator, _MTCache, read_corpus
from unspin.evaluate.metrics import expand_duplicates
from unspin.model import REUSE_RELATIONS, Article

CORPORA = {
    "bbc": SHARED / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz",
    "reuters": SHARED / "data" / "reuters21578" / "reuters21578.jsonl.gz",
}
MT_CACHE = Path(os.environ.get("UNSPIN_MT_CACHE", Path(tempfile.gettempdir()) / "unspin-mt.jsonl"))
SHINGLE = 3
NUM_PERM = 128
LSH_THRESHOLD = 0.5  # the usual near-duplicate setting of both libraries' examples


# ---------------------------------------------------------------- inputs


def spun_copies(arts: list[Article], n: int, seed: int) -> list[tuple[str, Article]]:
    """(original id, round-trip copy) for ``n`` articles picked with ``seed``."""
    rng = random.Random(seed)
    picked = rng.sample(arts, min(n, len(arts)))
    mt = _MTCache(ApertiumTranslator(), MT_CACHE)
    paras = [[p for p in a.text.split("\n") if p.strip()] for a in picked]
    flat = mt.roundtrip([p for ps in paras for p in ps])
    out, k = [], 0
    for a, ps in zip(picked, paras):
        text = "\n\n".join(flat[k : k + len(ps)])
        k += len(ps)
        out.append((a.id, Article(id=f"spun-{a.id}", text=text)))
    return out


def synthetic(n: int, seed: int) -> list[Article]:
    """``n`` articles of spliced real sentences (see the module docstring)."""
    from unspin.normalise import split_sentences

    rng = random.Random(seed)
    pool: list[str] = []
    lengths: list[int] = []
    for path in CORPORA.values():
        for a in read_corpus(path):
            spans = split_sentences(a.text)
            lengths.append(len(spans))
            pool.extend(a.text[s:e] for s, e in spans if len(a.text[s:e].split()) >= 4)
    out = []
    for i in range(n):
        sents = []
        for _ in range(max(2, rng.choice(lengths))):
            x, y = rng.choice(pool).split(), rng.choice(pool).split()
            sents.append(" ".join(x[: len(x) // 2] + y[len(y) // 2 :]))
        title = sents[0].rstrip(".")
        out.append(Article(id=f"syn-{i}", text=title + "\n\n" + " ".join(sents[1:])))
    return out


def build_input(corpus: str, n: int | None, spun: int, seed: int, synthetic_n: int):
    if corpus == "synthetic":
        arts = synthetic(synthetic_n, seed)
    else:
        arts = read_corpus(CORPORA[corpus])
    arts = arts[:n] if n else arts
    copies = spun_copies(arts, spun, seed) if spun else []
    return arts + [c for _, c in copies], [(o, c.id) for o, c in copies]


# ---------------------------------------------------------------- memory


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        todo.extend(int(k) for k in kids)
    return out


def _pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class PeakMemory:
    """Largest summed PSS of a process tree, sampled in a thread."""

    def __init__(self, pid: int, every: float = 0.2) -> None:
        self.pid, self.every, self.peak_kb = pid, every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_kb = max(self.peak_kb, sum(_pss_kb(p) for p in _tree(self.pid)))
            self._stop.wait(self.every)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak_kb


# ---------------------------------------------------------------- systems (child side)


def _shingles(text: str) -> list[str]:
    from unspin.fingerprint import shingles
    from unspin.normalise import normalise_text, words

    return shingles(words(normalise_text(text)), SHINGLE) or ["<empty>"]


def run_datasketch(arts: list[Article]) -> dict:
    from datasketch import MinHash, MinHashLSH

    t0 = time.perf_counter()
    lsh = MinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM)
    sigs = []
    for i, a in enumerate(arts):
        m = MinHash(num_perm=NUM_PERM, seed=1)
        m.update_batch([s.encode() for s in _shingles(a.text)])
        lsh.insert(i, m)
        sigs.append(m)
    t1 = time.perf_counter()
    pairs = {
        (arts[min(i, j)].id, arts[max(i, j)].id)
        for i, m in enumerate(sigs)
        for j in lsh.query(m)
        if j != i
    }
    t2 = time.perf_counter()
    return {"stages": {"minhash": t1 - t0, "lsh query": t2 - t1}, "pairs": sorted(pairs)}


def run_rensa(arts: list[Article]) -> dict:
    from rensa import RMinHash, RMinHashLSH

    t0 = time.perf_counter()
    lsh = RMinHashLSH(threshold=LSH_THRESHOLD, num_perm=NUM_PERM, num_bands=16)
    sigs = []
    for i, a in enumerate(arts):
        m = RMinHash(num_perm=NUM_PERM, seed=1)
        m.update(_shingles(a.text))
        lsh.insert(i, m)
        sigs.append(m)
    t1 = time.perf_counter()
    pairs = set()
    for i, m in enumerate(sigs):
        for j in lsh.query(m):
            if j != i and m.jaccard(sigs[j]) >= LSH_THRESHOLD:
                pairs.add((arts[min(i, j)].id, arts[max(i, j)].id))
    t2 = time.perf_counter()
    return {"stages": {"minhash": t1 - t0, "lsh query": t2 - t1}, "pairs": sorted(pairs)}


_LAST_RESULT: list = []


def run_unspin(arts: list[Article], workers: int) -> dict:
    from unspin.pipeline import (
        Config,
        LocalEngine,
        _cpu,
        analyse,
        blas_threads,
        fingerprint,
        provenance,
        result_changes,
    )

    cfg = Config(workers=workers)
    if os.environ.get("UNSPIN_BENCH_SENT_EXACT_MAX"):  # --sent-exact-max
        from dataclasses import replace

        cand = replace(
            cfg.candidates, sent_exact_max=int(os.environ["UNSPIN_BENCH_SENT_EXACT_MAX"])
        )
        cfg = replace(cfg, candidates=cand)
    engine = LocalEngine(workers)
    # as `unspin scan` runs it without a store (unspin.api._run_limited): under the BLAS
    # limit, the provenance stage with the lineage built story by story
    with blas_threads(cfg.blas_threads):
        docs = fingerprint(arts, cfg, engine=engine)
        res = analyse(docs, cfg, engine=engine)
        t1, c1 = time.perf_counter(), _cpu()
        provenance(res, lambda r: result_changes(r, cfg, engine))
        t2 = time.perf_counter()
    # the provenance stage's CPU (process and workers) less the changes map's
    cpu_quotes = _cpu() - c1 - engine.cpu.get("changes", 0.0)
    _LAST_RESULT.append(res)  # written by child() after the CPU is read (--out)
    stages = dict(engine.timings)
    stages["quotations, lineage"] = t2 - t1 - engine.timings.get("changes", 0.0)
    cpu = dict(engine.cpu)
    cpu["quotations, lineage"] = cpu_quotes
    counts: dict[str, int] = {}
    for r in res.relations:
        counts[r.relation] = counts.get(r.relation, 0) + 1
    # duplicate groups are stars (docs/schema.md): pairs scored through their closure
    closed = expand_duplicates(res.relations)
    reuse = {(r.a, r.b): r.relation for r in closed if r.relation in REUSE_RELATIONS}
    return {
        "stages": stages,
        "cpu": cpu,
        "rss": dict(getattr(engine, "rss", {})),
        "pairs": sorted(reuse),
        "types": {f"{a} {b}": t for (a, b), t in reuse.items()},
        "relations": counts,
        "stories": len(res.stories),
        "sentences": sum(len(d.sentences) for d in docs),
        "distinct_sentences": len({s.text for d in docs for s in d.sentences}),
    }


def child(system: str, path: str, out: str, workers: int) -> int:
    with open(path, "rb") as fh:
        arts = pickle.load(fh)
    t0 = time.perf_counter()
    if system == "unspin":
        rep = run_unspin(arts, workers)
    elif system == "datasketch":
        rep = run_datasketch(arts)
    else:
        rep = run_rensa(arts)
    rep["wall"] = time.perf_counter() - t0
    rep["max_rss_mb"] = (
        max(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
        )
        / 1024
    )
    rep["cpu_s"] = sum(
        getattr(resource.getrusage(w), f)
        for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        for f in ("ru_utime", "ru_stime")
    )
    if _LAST_RESULT and os.environ.get("UNSPIN_BENCH_OUT"):  # --out: to compare checkouts
        from unspin.output import write_results

        write_results(_LAST_RESULT[0], os.environ["UNSPIN_BENCH_OUT"])
    Path(out).write_text(json.dumps(rep))
    return 0


# ---------------------------------------------------------------- parent


def run_system(system: str, path: Path, workers: int) -> dict:
    out = path.with_suffix(f".{system}.json")
    cmd = [sys.executable, __file__, "--child", system, str(path), str(out), str(workers)]
    load0 = os.getloadavg()[0]
    p = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")})
    mem = PeakMemory(p.pid)
    code = p.wait()
    peak = mem.stop()
    if code != 0:
        raise SystemExit(f"{system} failed with exit code {code}")
    rep = json.loads(out.read_text())
    rep["peak_pss_mb"] = peak / 1024
    rep["load"] = (load0, os.getloadavg()[0])
    return rep


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(*sys.argv[2:5], int(sys.argv[5]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", choices=[*CORPORA, "synthetic"])
    ap.add_argument("--n", type=int, help="first N articles of each corpus")
    ap.add_argument("--spun", type=int, default=200, help="round-trip spun copies to add")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--synthetic-n", type=int, default=100_000)
    ap.add_argument("--systems", default="datasketch,rensa,unspin")
    ap.add_argument("--workers", type=int, default=0, help="unspin's processes (0: per core)")
    ap.add_argument("--report", help="also write every figure as JSON here")
    ap.add_argument(
        "--sent-exact-max",
        type=int,
        help="unspin's CandidateParams.sent_exact_max (IVF sentence search above it)",
    )
    ap.add_argument("--out", help="unspin's result tables written here (one corpus)")
    args = ap.parse_args()
    if args.out:
        os.environ["UNSPIN_BENCH_OUT"] = str(Path(args.out).resolve())
    if args.sent_exact_max is not None:
        os.environ["UNSPIN_BENCH_SENT_EXACT_MAX"] = str(args.sent_exact_max)
    report = {}
    for corpus in args.corpus or ["bbc"]:
        arts, spun = build_input(corpus, args.n, args.spun, args.seed, args.synthetic_n)
        tmp = Path(tempfile.mkdtemp(prefix="unspin-bench-")) / f"{corpus}.pkl"
        with open(tmp, "wb") as fh:
            pickle.dump(arts, fh)
        # the input's size in text, not only in articles: growth between corpora whose
        # articles differ in length is read per word too (docs/benchmarks.md)
        size = {
            "words": sum(len(a.text.split()) for a in arts),
            "chars": sum(len(a.text) for a in arts),
        }
        print(
            f"\n## {corpus}: {len(arts)} articles ({len(spun)} spun copies), "
            f"{size['words']} words, {size['chars']} characters"
        )
        print(
            "| system | wall s | articles/s | peak PSS MB | max RSS MB | CPU s | spun recall "
            "| load avg start/end |"
        )
        print("|---|---|---|---|---|---|---|---|")
        rows = {}
        for system in args.systems.split(","):
            rep = run_system(system, tmp, args.workers)
            found = {tuple(p) for p in rep["pairs"]}
            hit = [(o, c) for o, c in spun if tuple(sorted((o, c))) in found]
            rep["spun_recall"] = len(hit) / max(1, len(spun))
            if "types" in rep:
                types = rep["types"]
                rep["spun_typed_spun"] = sum(
                    types.get(" ".join(sorted((o, c)))) == "spun" for o, c in spun
                ) / max(1, len(spun))
            rep["articles_per_s"] = len(arts) / rep["wall"]
            rows[system] = rep
            print(
                f"| {system} | {rep['wall']:.1f} | {rep['articles_per_s']:.1f} "
                f"| {rep['peak_pss_mb']:.0f} | {rep['max_rss_mb']:.0f} | {rep['cpu_s']:.0f} "
                f"| {rep['spun_recall']:.3f} | {rep['load'][0]:.1f} / {rep['load'][1]:.1f} |",
                flush=True,
            )
        for system, rep in rows.items():
            stages = ", ".join(f"{k} {v:.1f} s" for k, v in rep["stages"].items())
            print(f"- {system} stages: {stages}")
            if system == "unspin":
                cpu = ", ".join(f"{k} {v:.1f} s" for k, v in rep["cpu"].items())
                print(f"- unspin CPU per stage (process + workers): {cpu}")
                rss = ", ".join(f"{k} {a:.0f}/{b:.0f}" for k, (a, b) in rep["rss"].items())
                if rss:
                    print(f"- unspin RSS MB at each stage's end, now/peak (main process): {rss}")
                print(
                    f"- unspin: {rep['sentences']} sentences ({rep['distinct_sentences']} "
                    f"distinct), relations {rep['relations']}, {rep['stories']} stories, "
                    f"round trips typed spun {rep['spun_typed_spun']:.3f}"
                )
        report[corpus] = {"articles": len(arts), "spun": len(spun), **size, "systems": rows}
    if args.report:
        Path(args.report).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
