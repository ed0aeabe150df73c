"""How long `unspin add` of one article takes on a store of N articles.

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/add_latency.py --corpus mix --n 20000 \
        --embedder hashing --base /work/speed-data/add-mix-20000-hashing [--check] [--profile]

Builds (once; reused when ``--base`` already holds it) a results folder of the first N
articles of the corpus (``bbc``, ``reuters``, or ``mix``: all of Reuters-21578 then BBC
News up to N), timed. Then, each on a fresh copy of that folder, adds one article and
times the call (its answer, the relations a full rescan would give, is written to the
folder): ``fresh``, an article of the other corpus that is not in the store (BBC's last),
and ``copy``, an edited copy of a stored article (a reuse pair and a story component
change). Then removes the added article again (timed). ``--check`` compares the folder
after each add with a fresh scan of the same articles (every table; slow for large N).
``--profile`` writes a cProfile of each add beside the copy (kept as
``BASE/add-TRIAL.prof``). ``--dump DIR`` writes each add's result tables to
``DIR/TRIAL.json``; ``--same-as DIR`` compares them with another checkout's dump of the
same adds (on its own base of the same articles; the articles' ``input``, the base's own
input file, left out): an add of one code equal to another's. ``--pin-code-version HASH``
takes HASH as the memo keys' code version, so a checkout whose rule modules differ from
the code that built the base reads its stored results (timing only; ``--same-as`` checks
that its tables are still the base code's).
``--warm`` first loads
what a running service has loaded (the models, by the service's own warm-up compare, and
the Parquet writer), so the adds are timed as ``POST /articles`` runs them; without it,
the first add that needs them pays the loading, as a fresh ``unspin add`` process does.
``--trials ''`` only builds the base: run the script again to time adds in a process
other than the one that built the store (as the CLI and a restarted service do). Each add
prints its engine stages. ``--service N`` then makes N adds one after another into one
copy through the service's writer (as a running server does, keeping what it keeps
between writes), each timed.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from throughput import CORPORA

import unspin
from unspin.evaluate.derivatives import read_corpus
from unspin.model import Article
from unspin.output import read_tables
from unspin.pipeline import Config

TABLES = ("relations", "stories", "changes", "quotes", "lineage")

#: what ``--timers`` times (inclusive wall seconds and calls per add; the names of the
#: functions each module imported are timed too): the passes an add makes over the pile
TIMED = (
    "unspin.store:Store.load_articles",
    "unspin.store:Store.get_docs",
    "unspin.pipeline:fingerprint",
    "unspin.pipeline:analyse",
    "unspin.pipeline:pair_stage",
    "unspin.candidates:grouped_candidate_list",
    "unspin.pipeline:pile_quote_keys",
    "unspin.pipeline:corpus_context",
    "unspin.pipeline:pair_keys",
    "unspin.pipeline:same_answers",
    "unspin.pipeline:LocalEngine.map_pairs",
    "unspin.pipeline:PairStage.without_members",
    "unspin.pipeline:story_components",
    "unspin.pipeline:_stories_by_part",
    "unspin.pipeline:_map_components",
    "unspin.pipeline:_component_keys",
    "unspin.pipeline:story_relations",
    "unspin.stories:make_stories",
    "unspin.pipeline:quote_speakers",
    "unspin.pipeline:provenance",
    "unspin.quotes:quote_groups",
    "unspin.pipeline:story_lineage",
    "unspin.pipeline:result_changes",
    "unspin.store:Store.memo_get",
    "unspin.store:Store.memo_put",
    "unspin.store:Store.delete_articles",
    "unspin.store:Store.save_articles",
    "unspin.store:Store.write_index",
    "unspin.store:Store.close",
    "unspin.output:write_results",
    "unspin.output:records",
    "unspin.output:_table_bytes",
    "unspin.output:_write_parquet",
    "unspin.output:_write_parquet_rows",
    "unspin.output:_Rows.__init__",
    "unspin.output:_Rows.data",
    "unspin.output:_write_bytes",
    "unspin.pipeline:pile_forms",
    "unspin.pipeline:corpus_stats",
    "unspin.candidates:sent_knn_arrays",
    "unspin.candidates:generator_arrays",
    "unspin.lineage:build_lineage",
    "unspin.output:read_tables",
    "unspin.service:Service._build",
    "unspin.report:ReportData.__init__",
)


def install_timers(names: tuple[str, ...]) -> dict[str, list[float]]:
    """Wrap each ``module:qualname`` in a timer (inclusive wall seconds, calls; a
    recursive call is counted inside its caller's time only)."""
    import functools
    import importlib

    import unspin.api  # noqa: F401  (the modules that import the timed names)

    got: dict[str, list[float]] = {}
    for spec in names:
        mod_name, qual = spec.split(":")
        mod = importlib.import_module(mod_name)
        owner = mod
        *path, attr = qual.split(".")
        for part in path:
            owner = getattr(owner, part)
        real = getattr(owner, attr, None)
        if real is None:  # not in this checkout
            continue
        got[qual] = acc = [0.0, 0, 0]

        def timed(*a, _real=real, _acc=acc, **k):
            _acc[2] += 1
            t = time.perf_counter()
            try:
                return _real(*a, **k)
            finally:
                _acc[2] -= 1
                if _acc[2] == 0:
                    _acc[0] += time.perf_counter() - t
                _acc[1] += 1

        functools.update_wrapper(timed, real)
        setattr(owner, attr, timed)
        if not path:  # the same function imported by name elsewhere
            for m in list(sys.modules.values()):
                if (
                    getattr(m, "__name__", "").startswith("unspin")
                    and getattr(m, attr, None) is real
                ):
                    setattr(m, attr, timed)
    return got


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its finished workers (a loaded
    machine stretches wall time; CPU time much less)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def copy_store(src: Path, dst: Path) -> None:
    """Copy a results folder and its store, then write the copy to disk (``os.sync``)
    before anything is timed. Without the sync the copy's dirty pages (1.7 GB at 20,000
    articles) are still being written back during the first adds, and the first fsync of
    the database file (SQLite's WAL checkpoint, every few adds) waits for all of them:
    1.8-2.0 s of one add's wall time, measured in session 60 (0.03 s after the sync). A
    running service's store has no such backlog."""
    shutil.copytree(src, dst, symlinks=True)
    os.sync()


def pile(corpus: str, n: int) -> tuple[list[Article], list[Article]]:
    """The first ``n`` articles of ``corpus`` and the articles left over (the fresh
    article to add is taken from those)."""
    if corpus == "mix":
        arts = read_corpus(CORPORA["reuters"]) + read_corpus(CORPORA["bbc"])
    else:
        arts = read_corpus(CORPORA[corpus])
    if len(arts) <= n:
        raise SystemExit(f"{corpus} has {len(arts)} articles: choose --n below that")
    return arts[:n], arts[n:]


def edited_copy(a: Article) -> Article:
    """A copy of ``a`` with its last paragraph dropped and a figure changed."""
    paras = [p for p in a.text.split("\n") if p.strip()]
    text = "\n\n".join(paras[:-1] if len(paras) > 2 else paras)
    for d in "123456789":
        if d in text:
            text = text.replace(d, str(int(d) % 9 + 1), 1)
            break
    return Article(id=f"copy-of-{a.id}", text=text, title=a.title)


def write_jsonl(path: Path, arts: list[Article]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for a in arts:
            fh.write(json.dumps({"id": a.id, "text": a.text, "title": a.title}) + "\n")


def warm(cfg: Config) -> None:
    """Load what a running service holds loaded: a compare of two tiny texts, as the
    service's warm-up (``unspin.service.Service.warm_up``) does (embedder and NER), and
    pyarrow's Python conversion (which imports pandas)."""
    import pyarrow as pa

    a = "Mayor Anna Berg said the new bridge over the river would open in June."
    b = "Mayor Anna Borg said the new bridge over the river would open in July."
    unspin.compare(Article("warm-a", a), Article("warm-b", b), cfg)
    pa.Table.from_pylist([{"a": 1}])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", choices=["bbc", "reuters", "mix"], default="bbc")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--embedder", default="use")
    ap.add_argument("--base", help="folder of the base results (built when missing)")
    ap.add_argument("--check", action="store_true", help="compare with fresh scans")
    ap.add_argument(
        "--profile", action="store_true", help="cProfile each add (and the last --service add)"
    )
    ap.add_argument("--trials", default="fresh,copy", help="which adds: fresh, copy")
    ap.add_argument("--warm", action="store_true", help="load models first, as a service")
    ap.add_argument("--copy-of", type=int, default=7, help="index of the article copied")
    ap.add_argument(
        "--timers", action="store_true", help="inclusive wall seconds of the add's passes"
    )
    ap.add_argument(
        "--dump",
        help="folder to write each add's result tables to (TRIAL.json), for --same-as",
    )
    ap.add_argument(
        "--same-as",
        help="folder of another checkout's --dump for the same adds on a base of the same "
        "articles: each add's tables are compared with it, table by table",
    )
    ap.add_argument(
        "--pin-code-version",
        metavar="HASH",
        help="take HASH as unspin.pipeline.code_version() (the memo keys' code hash): a "
        "checkout whose rule modules differ from the code that built --base then reads "
        "the base's stored results, so its adds can be timed on that base; sound only "
        "where the checkout computes the same results (check with --same-as)",
    )
    ap.add_argument(
        "--service-no-keep",
        action="store_true",
        help="the --service adds without kept memo values (each add computed as a fresh "
        "process would: the reference for --dump / --same-as of the kept path)",
    )
    ap.add_argument(
        "--vectors-from",
        help="a store whose cached sentence vectors to start from, so the first scan "
        "embeds only what it lacks",
    )
    ap.add_argument(
        "--service",
        type=int,
        default=0,
        metavar="N",
        help="after the trials, N adds one after another into one copy of the base "
        "through the service's writer (unspin.service.Service: warm-up, add, new "
        "snapshot), as POST /articles runs them in a running server: each timed with "
        "--timers if given (the service's own passes included)",
    )
    args = ap.parse_args()
    if args.pin_code_version:
        import unspin.pipeline as pipeline

        real = pipeline.code_version()
        pipeline.code_version = lambda: args.pin_code_version  # every caller is in pipeline
        print(f"code version pinned to {args.pin_code_version} (this checkout's: {real})")
    arts, rest = pile(args.corpus, args.n)
    cfg = Config(embedder=args.embedder)
    base = Path(
        args.base or Path(tempfile.gettempdir()) / f"unspin-add-{args.corpus}-{args.n}"
    ).resolve()
    res = base / "res"
    src = base / "in.jsonl"
    if not (res / "manifest.json").exists():
        shutil.rmtree(base, ignore_errors=True)
        base.mkdir(parents=True)
        write_jsonl(src, arts)
        if args.vectors_from:
            from unspin.store import Store

            with Store(args.vectors_from) as a, Store(res / ".unspin") as b:
                a._sentence_table()
                rows = a.con.execute("SELECT key, embedder, vec FROM sentence_vectors").fetchall()
                b._sentence_table()
                with b.con:
                    b.con.executemany(
                        "INSERT OR REPLACE INTO sentence_vectors VALUES (?,?,?)", rows
                    )
        t0 = time.perf_counter()
        unspin.scan([src], out=res, config=cfg)
        print(f"scan of {len(arts)} articles into {res}: {time.perf_counter() - t0:.1f} s")
    if args.warm and args.trials:
        t0 = time.perf_counter()
        warm(cfg)
        print(f"warm-up (models and Parquet writer loaded): {time.perf_counter() - t0:.1f} s")
    new = {"fresh": rest[-1], "copy": edited_copy(arts[args.copy_of])}
    import unspin.pipeline as pl

    engines: list = []
    real_init = pl.LocalEngine.__init__

    def recording_init(self, *a, **k):  # the add's engine, to print its stage timer
        real_init(self, *a, **k)
        engines.append(self)

    pl.LocalEngine.__init__ = recording_init
    timers = install_timers(TIMED) if args.timers else {}
    for trial in filter(None, args.trials.split(",")):
        a = new[trial]
        engines.clear()
        for acc in timers.values():
            acc[0], acc[1] = 0.0, 0
        work = Path(tempfile.mkdtemp(prefix=f"unspin-add-{trial}-", dir=base))
        copy_store(res, work / "res")
        out = work / "res"
        prof = cProfile.Profile() if args.profile else None
        c0 = _cpu_seconds()
        t0 = time.perf_counter()
        if prof:
            prof.enable()
        result = unspin.add([a], out=out, config=cfg)
        if prof:
            prof.disable()
        t1 = time.perf_counter()
        c1 = _cpu_seconds()
        mine = [r for r in result.relations if a.id in (r.a, r.b)]
        kinds: dict[str, int] = {}
        for r in mine:
            kinds[r.relation] = kinds.get(r.relation, 0) + 1
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{trial}: add of {a.id!r} to {len(arts)} articles ({args.embedder}): "
            f"{t1 - t0:.2f} s ({c1 - c0:.2f} CPU s, its workers' included); its relations "
            f"{kinds}; peak RSS of the process so far {rss:.0f} MB"
        )
        for e in engines:
            stages = ", ".join(f"{k} {v:.2f}" for k, v in e.timings.items())
            print(f"{trial}: engine stages (wall s): {stages}")
        if timers:
            print(f"{trial}: timers (inclusive wall s, calls):")
            for name, (sec, calls, _) in sorted(timers.items(), key=lambda x: -x[1][0]):
                if calls:
                    print(f"    {sec:7.3f}  {name} x{calls}")
        if prof:
            path = work / "add.prof"
            prof.dump_stats(path)
            shutil.copy(path, base / f"add-{trial}.prof")  # kept for a closer look
            pstats.Stats(str(path)).sort_stats("cumulative").print_stats(40)
        if args.dump or args.same_as:
            mine_tables = read_tables(out)  # every table (FILES), the articles' too
            if args.dump:
                Path(args.dump).mkdir(parents=True, exist_ok=True)
                with open(Path(args.dump) / f"{trial}.json", "w", encoding="utf-8") as fh:
                    json.dump(mine_tables, fh)
            if args.same_as:
                with open(Path(args.same_as) / f"{trial}.json", encoding="utf-8") as fh:
                    theirs = json.load(fh)
                # through JSON both: the same values as read back from the tables; an
                # article's ``input`` names the base's own input file (another folder)
                mine_tables = json.loads(json.dumps(mine_tables))
                for tables in (mine_tables, theirs):
                    for row in tables.get("articles", []):
                        row.pop("input", None)
                diff = [t for t in mine_tables if mine_tables[t] != theirs.get(t)]
                rows = {t: len(mine_tables[t]) for t in mine_tables}
                print(
                    f"{trial}: tables after the add equal to {args.same_as}'s: {not diff} "
                    f"(rows {rows}; differing: {diff or 'none'})"
                )
        if args.check:
            write_jsonl(work / "all.jsonl", [*arts, a])
            unspin.scan([work / "all.jsonl"], out=work / "fresh", config=cfg, store=False)
            x, y = read_tables(out), read_tables(work / "fresh")
            same = all(x[t] == y[t] for t in TABLES)
            print(f"{trial}: after the add, equal to a fresh scan of {len(arts) + 1}: {same}")
        t2 = time.perf_counter()
        unspin.remove([a.id], out=out, config=cfg)
        print(f"{trial}: remove of it: {time.perf_counter() - t2:.2f} s")
        shutil.rmtree(work, ignore_errors=True)
    if args.service:
        service_adds(
            res,
            base,
            cfg,
            arts,
            rest,
            args.service,
            timers,
            base if args.profile else None,
            dump=args.dump,
            same_as=args.same_as,
            keep=not args.service_no_keep,
        )
    return 0


def in_writer_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` run in a thread other than the main one, as the service's writer thread
    runs each add: the engine forks workers only from the main thread
    (:meth:`unspin.pipeline.LocalEngine.forks`), so an add called from the main thread
    would fork for its pairs where the service computes them in its thread (until session
    60 this script did: an add of 246 candidate pairs forked two workers)."""
    with ThreadPoolExecutor(1, thread_name_prefix="unspin-writer") as pool:
        return pool.submit(fn, *args).result()


def service_adds(
    res: Path,
    base: Path,
    cfg: Config,
    arts: list[Article],
    rest: list[Article],
    n: int,
    timers: dict[str, list[float]],
    profile_dir: Path | None = None,
    dump: str | None = None,
    same_as: str | None = None,
    keep: bool = True,
) -> None:
    """``n`` adds, one after another, into one copy of ``res`` through the service's
    writer (what a running server keeps between writes is kept): fresh articles of the
    other corpus and edited copies of stored ones, alternating. ``profile_dir``: the last
    add is run under cProfile, its profile kept as ``profile_dir/service-add.prof``.
    ``dump`` / ``same_as``: after each add (untimed), its result tables written to /
    compared with ``DIR/service-K.json``. ``keep=False``: the process does not keep memo
    values (a reference for the kept path: each add as a fresh process computes it)."""
    from unspin.service import Service, Settings
    from unspin.store import keep_memo_values

    work = Path(tempfile.mkdtemp(prefix="unspin-add-service-", dir=base))
    copy_store(res, work / "res")
    t0 = time.perf_counter()
    svc = Service(Settings(store=work / "res", token="bench", config=cfg))
    if not keep:
        keep_memo_values(False)
    svc.warm_up()
    if getattr(svc.settings, "warm_add", False):  # the writer's first job, as served
        from unspin.service import Job

        t1 = time.perf_counter()
        svc._warm(Job("warm"))
        print(f"service: warm add of the stored pile {time.perf_counter() - t1:.2f} s")
    print(f"service: start and warm-up {time.perf_counter() - t0:.2f} s")
    todo = []
    for k in range(n):
        todo.append(rest[-1 - k // 2] if k % 2 == 0 else edited_copy(arts[7 + 93 * (k // 2)]))
    try:
        for a in todo:
            for acc in timers.values():
                acc[0], acc[1] = 0.0, 0
            c0, t1 = _cpu_seconds(), time.perf_counter()
            if profile_dir is not None and a is todo[-1]:
                prof = cProfile.Profile()
                snap, _, _ = in_writer_thread(prof.runcall, svc._add, [a])
                prof.dump_stats(str(Path(profile_dir) / "service-add.prof"))
            else:
                snap, _, _ = in_writer_thread(svc._add, [a])
            t2 = time.perf_counter()
            mine = [r for r in snap.data.by_article.get(a.id, ())]
            print(
                f"service add of {a.id!r}: {t2 - t1:.2f} s ({_cpu_seconds() - c0:.2f} CPU s), "
                f"{len(mine)} relations"
            )
            for name, (sec, calls, _) in sorted(timers.items(), key=lambda x: -x[1][0]):
                if calls and sec >= 0.05:
                    print(f"    {sec:7.3f}  {name} x{calls}")
            if dump or same_as:
                _dump_or_compare(work / "res", f"service-{todo.index(a)}", dump, same_as)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _dump_or_compare(res: Path, trial: str, dump: str | None, same_as: str | None) -> None:
    """The result tables of ``res`` written to ``dump/TRIAL.json`` and/or compared with
    ``same_as/TRIAL.json`` (each table; the articles' ``input`` left out)."""
    tables = read_tables(res)
    mine = {t: tables[t] for t in (*TABLES, "articles")}
    for r in mine["articles"]:
        r.pop("input", None)
    mine = json.loads(json.dumps(mine))
    if dump:
        Path(dump).mkdir(parents=True, exist_ok=True)
        with open(Path(dump) / f"{trial}.json", "w", encoding="utf-8") as fh:
            json.dump(mine, fh)
    if same_as:
        with open(Path(same_as) / f"{trial}.json", encoding="utf-8") as fh:
            theirs = json.load(fh)
        diff = [t for t in mine if mine[t] != theirs.get(t)]
        print(f"{trial}: tables equal to {same_as}'s: {not diff} {diff or ''}")


if __name__ == "__main__":
    sys.exit(main())
