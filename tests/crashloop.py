"""Kill and concurrency trials over real writers (shared by tests and bench/robustness.py).

``kill_trials``: scans and adds into one results folder, each killed with SIGKILL at a
random moment: half at a random time, half exactly at one of the writer's crash points
(each rename and symbolic-link switch, each file write and sync, the store's commits,
the Parquet writes, the pruning). After every kill the previous results must be whole
(every table, the manifest and every Parquet copy from one generation, counts agreeing)
and be the results of either the run before or the run killed (if it had finished),
and the store must open and read without repair.

``concurrent_trials``: several ``unspin add`` processes into one folder at once; every
one must exit 0 and every article must be in the store and in the results.

Writers are forked from a process that has imported unspin and loaded spaCy but run
nothing (so no thread pool is copied into a child mid-use), which makes a trial cost
its work, not a Python start.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

STORY = (
    "{title}\n\nCrews at the {place} harbour walked out on {day} after talks on pay broke "
    'down, the union said. "We have waited {n} months for a fair offer," said union '
    "leader Dara Kessling. Services to the islands were cancelled for the day. The ferry "
    "company said it regretted the disruption and hoped to resume talks on {day}.\n"
)
PLACES = ["north", "south", "east", "west", "old", "new", "inner", "outer", "upper", "lower"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


def article_text(k: int) -> str:
    return STORY.format(
        title=f"Strike {k} at the {PLACES[k % 10]} harbour",
        place=PLACES[k % 10],
        day=DAYS[k % 5],
        n=k + 2,
    )


def write_articles(folder: Path, ids: list[int]) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    for k in ids:
        (folder / f"a{k:04d}.txt").write_text(article_text(k), encoding="utf-8")
    return [f"a{k:04d}" for k in ids]


# ---------------------------------------------------------------- checking a folder


def check_results(out: Path) -> set[str]:
    """The article ids of the current results, after checking they are whole: every
    table and Parquet copy from the manifest's generation, with the manifest's counts.
    Raises AssertionError when not."""
    import pyarrow.parquet as pq

    from unspin.output import FILES, read_jsonl, results_folder

    base = results_folder(out)
    manifest = json.loads((base / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["generation"] == base.name, "manifest of another generation"
    for name in FILES:
        via_link = out / f"{name}.jsonl"
        rows = read_jsonl(base / f"{name}.jsonl")
        assert len(rows) == manifest["counts"][name], f"{name}: count differs from manifest"
        assert via_link.resolve() == (base / f"{name}.jsonl").resolve(), f"{name} link"
        table = pq.read_table(base / f"{name}.parquet")
        assert table.num_rows == len(rows), f"{name}.parquet: {table.num_rows} rows"
    return {r["id"] for r in read_jsonl(base / "articles.jsonl")}


def check_store(out: Path) -> set[str]:
    """The store's article ids; the store must open, read and report its index."""
    from unspin.store import Store

    with Store(out / ".unspin") as st:
        ids = {a.id for a in st.load_articles()}
        st.stats()
        st.load_index()
    return ids


# ---------------------------------------------------------------- forked writers

#: crash points: (module, attribute) of the functions a writer is killed inside
CRASH_POINTS = [
    ("os", "replace"),
    ("os", "symlink"),
    ("os", "fsync"),
    ("unspin.output", "_write_file"),
    ("unspin.output", "_write_bytes"),
    ("os", "link"),
    ("unspin.output", "_write_parquet_rows"),
    ("unspin.output", "_patched"),
    ("unspin.output", "_prune"),
    ("unspin.output", "_switch"),
    ("unspin.store", "Store.save_articles"),
    ("unspin.store", "Store.write_index"),
    ("unspin.store", "_write_rows"),
    ("unspin.store", "Store.commit"),
    ("unspin.store", "_sync_wal"),
    ("unspin.store", "Store.close"),
    ("pyarrow.parquet", "write_table"),
]


def _resolve(module: str, attr: str) -> tuple[Any, str]:
    import importlib

    obj = importlib.import_module(module)
    *path, name = attr.split(".")
    for p in path:
        obj = getattr(obj, p)
    return obj, name


def _install(hook: Callable[[str], None]) -> None:
    """Wrap every crash point so ``hook(point)`` runs on each call (before and after)."""
    for module, attr in CRASH_POINTS:
        owner, name = _resolve(module, attr)
        real = getattr(owner, name)
        point = f"{module}.{attr}"

        def wrapped(*a, __real=real, __point=point, **k):
            hook(__point + ":before")
            result = __real(*a, **k)
            hook(__point + ":after")
            return result

        setattr(owner, name, wrapped)


def _work(kind: str, out: Path, src: list[Path]) -> None:
    import unspin
    from unspin.pipeline import Config

    cfg = Config(embedder="hashing")
    if kind == "scan":
        unspin.scan(src, out=out, config=cfg)
    else:
        unspin.add(src, out=out, config=cfg)


def _fork(fn: Callable[[], None]) -> int:
    pid = os.fork()
    if pid == 0:  # the child: never return into the caller (pytest)
        code = 1
        try:
            fn()
            code = 0
        except BaseException:  # noqa: BLE001
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    return pid


def _wait(pid: int, timeout: float) -> int:
    """Wait for a child; kill it (and fail) if it hangs."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError(f"writer {pid} hung for {timeout:.0f} s")


def _prepare() -> None:
    """Import what writers use and load spaCy in this process, running nothing else."""
    import pyarrow.parquet  # noqa: F401

    import unspin.api  # noqa: F401
    from unspin.changes import _nlp

    _nlp()


def calibrate(kind: str, out: Path, src: list[Path]) -> tuple[float, dict[str, int]]:
    """Run one writer to the end in a child: its time and how often it passes each point."""
    log = out.parent / f"calls-{os.getpid()}-{kind}.log"

    def run() -> None:
        fh = open(log, "w")  # noqa: SIM115 - the child exits without closing

        def hook(point: str) -> None:
            fh.write(point + "\n")
            fh.flush()

        _install(hook)
        _work(kind, out, src)

    start = time.monotonic()
    status = _wait(_fork(run), 300)
    took = time.monotonic() - start
    assert os.waitstatus_to_exitcode(status) == 0, "calibration run failed"
    counts: dict[str, int] = {}
    for line in log.read_text().split():
        counts[line] = counts.get(line, 0) + 1
    log.unlink()
    return took, counts


def kill_trials(work: Path, n: int = 50, seed: int = 13) -> dict[str, Any]:
    """Writers (alternately scan and add) into one folder until ``n`` were killed (a
    timed kill may come after the writer finished); returns counts.

    Every trial checks the folder after the kill (AssertionError on a failure)."""
    _prepare()
    rng = random.Random(seed)
    out, inputs = work / "out", work / "inputs"
    next_id = 0

    def new_input(count: int) -> Path:
        nonlocal next_id
        folder = inputs / f"batch{next_id:04d}"
        write_articles(folder, list(range(next_id, next_id + count)))
        next_id += count
        return folder

    first = new_input(4)
    status = _wait(_fork(lambda: _work("scan", out, [first])), 600)
    assert os.waitstatus_to_exitcode(status) == 0
    results = check_results(out)
    times: dict[str, float] = {}
    points: dict[str, dict[str, int]] = {}
    import shutil

    for kind in ("scan", "add"):
        probe = work / f"probe-{kind}"
        shutil.copytree(out, probe, symlinks=True)
        times[kind], points[kind] = calibrate(kind, probe, [new_input(2)])
        shutil.rmtree(probe)
    stats = {"trials": 0, "killed": 0, "at_points": 0, "finished": 0, "failures": 0}
    for t in range(3 * n):
        if stats["killed"] >= n:
            break
        kind = "scan" if t % 2 == 0 else "add"
        store_before = check_store(out)
        if kind == "scan":
            src = [inputs / p for p in sorted(os.listdir(inputs))][-rng.randint(1, 3) :]
            src_ids: set[str] = set()
            for folder in src:
                src_ids |= {f.stem for f in folder.glob("*.txt")}
            expected = src_ids
        else:
            src = [new_input(rng.randint(1, 2))]
            expected = store_before | {f.stem for f in src[0].glob("*.txt")}
        at_point = t % 4 in (1, 2)
        if at_point:
            point, count = rng.choice(sorted(points[kind].items()))
            nth = rng.randint(1, count)
            seen = [0]

            def hook(p: str, point=point, nth=nth, seen=seen) -> None:
                if p == point:
                    seen[0] += 1
                    if seen[0] == nth:
                        os.kill(os.getpid(), signal.SIGKILL)

            def run(kind=kind, src=src, hook=hook) -> None:
                _install(hook)
                _work(kind, out, src)

            pid = _fork(run)
            status = _wait(pid, 300)
            stats["at_points"] += 1
        else:
            pid = _fork(lambda kind=kind, src=src: _work(kind, out, src))
            time.sleep(rng.uniform(0, times[kind] * 1.1))
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            status = _wait(pid, 300)
        killed = os.WIFSIGNALED(status)
        stats["trials"] += 1
        stats["killed"] += killed
        stats["finished"] += not killed
        if not killed:
            assert os.waitstatus_to_exitcode(status) == 0, "an unkilled writer failed"
        now = check_results(out)
        check_store(out)
        if now != results and now != expected:
            stats["failures"] += 1
            raise AssertionError(
                f"trial {t} ({kind}): results hold neither the previous run nor this one"
            )
        if not killed:
            assert now == expected, f"trial {t}: a finished {kind} lost articles"
        results = now
    return stats


def kill_at(work: Path, point: str) -> dict[str, Any]:
    """A scan of four articles, then an add of two killed (SIGKILL) at ``point`` (a crash
    point's ``module.attr:before`` or ``:after``), then the same add again, unkilled.
    Returns what the store's index held after the kill and after the second add, with
    the archive's ids (AssertionError when the results or the store are not whole)."""
    from unspin.store import Store

    _prepare()
    out, inputs = work / "out", work / "inputs"
    write_articles(inputs / "a", [0, 1, 2, 3])
    write_articles(inputs / "b", [4, 5])
    status = _wait(_fork(lambda: _work("scan", out, [inputs / "a"])), 600)
    assert os.waitstatus_to_exitcode(status) == 0

    def hook(p: str) -> None:
        if p == point:
            os.kill(os.getpid(), signal.SIGKILL)

    def run() -> None:
        _install(hook)
        _work("add", out, [inputs / "b"])

    status = _wait(_fork(run), 300)
    killed = os.WIFSIGNALED(status)
    check_results(out)

    def index_ids() -> list[str] | None:
        with Store(out / ".unspin") as st:
            got = st.load_index()
            return None if got is None else got[1]

    after_kill = index_ids()
    status = _wait(_fork(lambda: _work("add", out, [inputs / "b"])), 300)
    assert os.waitstatus_to_exitcode(status) == 0
    check_results(out)
    with Store(out / ".unspin") as st:
        archive = [a.id for a in st.load_articles()]
    return {
        "killed": killed,
        "after_kill": after_kill,
        "after_add": index_ids(),
        "archive": archive,
    }


def concurrent_trials(work: Path, trials: int = 2, writers: int = 4) -> dict[str, Any]:
    """``trials`` rounds of ``writers`` concurrent ``unspin add`` processes; returns
    counts. Every article asked for must be in the store and in the results."""
    stats = {"trials": 0, "adds": 0, "exit_0": 0, "articles_asked": 0, "articles_lost": 0}
    for t in range(trials):
        out = work / f"c{t}"
        base = write_articles(work / f"c{t}-base", [0, 1])
        subprocess.run(
            [
                sys.executable,
                "-m",
                "unspin",
                "scan",
                str(work / f"c{t}-base"),
                "--out",
                str(out),
                "-q",
                "--embedder",
                "hashing",
            ],
            check=True,
        )
        asked = set(base)
        procs = []
        for w in range(writers):
            folder = work / f"c{t}-w{w}"
            asked |= set(write_articles(folder, [100 * (w + 1) + k for k in range(3)]))
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "unspin",
                        "add",
                        str(folder),
                        "--out",
                        str(out),
                        "-q",
                        "--embedder",
                        "hashing",
                    ],
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
        codes = []
        for p in procs:
            _, err = p.communicate(timeout=900)
            codes.append(p.returncode)
            assert p.returncode == 0, err
        results, store = check_results(out), check_store(out)
        stats["trials"] += 1
        stats["adds"] += writers
        stats["exit_0"] += sum(c == 0 for c in codes)
        stats["articles_asked"] += len(asked)
        stats["articles_lost"] += len(asked - results) + len(asked - store)
        assert results == asked and store == asked, (
            f"lost: results {sorted(asked - results)}, store {sorted(asked - store)}"
        )
    return stats
