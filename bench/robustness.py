"""Robustness probes of issue 13: hostile inputs, kills, concurrent writers, and the
time/memory budget of long inputs. Prints the table of docs/benchmarks.md ("Robustness").

    .venv/bin/python bench/robustness.py                 # every probe, then the table
    .venv/bin/python bench/robustness.py --probe NAME    # one probe (names: --list)
    .venv/bin/python bench/robustness.py --embedder use  # budget probes with the model

Each probe runs the installed ``unspin`` command (or the library) in a fresh process
on inputs it makes in a temporary folder, and reports: crashes (an exit code of 1 or a
traceback), hangs (no answer within ``HANG_SECONDS``), records lost (records neither
in the results nor in errors.jsonl), and its figures. Time and peak memory (max RSS of
the process) are given above a baseline run of the same command on two small articles,
measured in the same run.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
UNSPIN = [sys.executable, "-m", "unspin"]
#: a probe that has not answered by then counts as a hang (and is killed)
HANG_SECONDS = 600
STORY = (
    "Ferry crews walk out over pay\n\nFerry crews at the harbour walked out on Monday "
    "after talks on pay broke down, the union said. Services were cancelled.\n"
)


def timed(args: list[str], timeout: float = HANG_SECONDS) -> dict:
    """Run a command: exit code, seconds, peak RSS (MB, from wait4), output, hang."""
    start = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    hang = False
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            hang = True
            break
        time.sleep(0.05)
    took = time.monotonic() - start
    out = proc.stdout.read().decode("utf-8", "replace")
    err = proc.stderr.read().decode("utf-8", "replace")
    return {
        "code": os.waitstatus_to_exitcode(status),
        "seconds": took,
        # CPU of the process and the workers it reaped: what the run cost, whatever else
        # the shared machine was doing
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss_mb": usage.ru_maxrss / 1024,
        "stdout": out,
        "stderr": err,
        "hang": hang,
    }


def crashed(r: dict) -> bool:
    return r["code"] == 1 or "Traceback" in r["stderr"] or r["code"] < 0


def table(out: Path, name: str) -> list[dict]:
    from unspin.output import read_tables

    return read_tables(out)[name]


def scan(inputs: list[Path], out: Path, *extra: str, embedder: str = "hashing") -> dict:
    return timed(
        [
            *UNSPIN,
            "scan",
            *map(str, inputs),
            "--out",
            str(out),
            "-q",
            "--embedder",
            embedder,
            *extra,
        ]
    )


# ---------------------------------------------------------------- probes

PROBES: dict[str, Callable[[Path, argparse.Namespace], dict]] = {}


def probe(name: str):
    def deco(fn):
        PROBES[name] = fn
        return fn

    return deco


@probe("concurrent-adds")
def p_concurrent(work: Path, args) -> dict:
    from crashloop import concurrent_trials

    start = time.monotonic()
    s = concurrent_trials(work, trials=args.concurrent_trials, writers=4)
    return {
        "probe": "two or more `unspin add` into one --out at once",
        "tried": s["trials"],
        "crashes": s["adds"] - s["exit_0"],
        "hangs": 0,
        "lost": s["articles_lost"],
        "figures": f"{s['trials']} trials x 4 concurrent adds: {s['exit_0']}/{s['adds']} "
        f"exit 0, {s['articles_asked']} articles asked, {s['articles_lost']} missing "
        f"({time.monotonic() - start:.0f} s)",
    }


@probe("kill-loop")
def p_kill(work: Path, args) -> dict:
    from crashloop import kill_trials

    start = time.monotonic()
    s = kill_trials(work, n=args.kills, seed=args.seed)
    return {
        "probe": "`kill -9` of scan/add at random moments and at each rename/write/commit",
        "tried": s["trials"],
        "crashes": s["failures"],
        "hangs": 0,
        "lost": 0,
        "figures": f"{s['killed']} kills ({s['at_points']} exactly at a crash point), "
        f"{s['finished']} finished first; previous results whole and store opened after "
        f"every one ({time.monotonic() - start:.0f} s)",
    }


def _baseline(work: Path, embedder: str) -> dict:
    src = work / "base"
    src.mkdir()
    (src / "a.txt").write_text(STORY)
    (src / "b.txt").write_text(STORY.replace("Monday", "Friday"))
    return scan([src], work / "base-out", "--no-store", embedder=embedder)


def _budget(work: Path, args, files: dict[str, str], what: str) -> dict:
    base = _baseline(work, args.embedder)
    src = work / "in"
    src.mkdir()
    size = 0
    for name, text in files.items():
        (src / name).write_text(text, encoding="utf-8")
        size += len(text.encode())
    r = scan([src], work / "out", "--no-store", embedder=args.embedder)
    mb = size / 1e6
    extra_s = r["seconds"] - base["seconds"]
    extra_cpu = r["cpu"] - base["cpu"]
    extra_mb = r["rss_mb"] - base["rss_mb"]
    arts = len(table(work / "out", "articles")) if r["code"] in (0, 3) else 0
    return {
        "probe": what,
        "tried": 1,
        "crashes": int(crashed(r)),
        "hangs": int(r["hang"]),
        "lost": len(files) - arts,
        "figures": f"{size / 1024:,.0f} KB, `{args.embedder}`: {r['seconds']:.1f} s "
        f"({r['cpu']:.1f} CPU s), {r['rss_mb']:.0f} MB peak; above the baseline "
        f"({base['seconds']:.1f} s, {base['cpu']:.1f} CPU s, {base['rss_mb']:.0f} MB): "
        f"{extra_s / mb:.1f} s per MB ({extra_cpu / mb:.1f} CPU s per MB), "
        f"+{extra_mb:.0f} MB (budget: < 10 s per MB, < 1,024 MB)",
        "seconds_per_mb": extra_s / mb,
        "cpu_per_mb": extra_cpu / mb,
        "extra_mb": extra_mb,
    }


def _words(n: int, rng: random.Random) -> list[str]:
    from wordfreq import top_n_list

    vocab = top_n_list("en", 3000)[50:]
    return [rng.choice(vocab) for _ in range(n)]


@probe("one-line-20k")
def p_one_line(work: Path, args) -> dict:
    rng = random.Random(1)
    sents = [" ".join(_words(2, rng)).capitalize() + "." for _ in range(20_000)]
    return _budget(
        work,
        args,
        {"oneline.txt": "Title\n" + " ".join(sents) + "\n"},
        "20,000 sentences on one line",
    )


@probe("near-copies-2000")
def p_near(work: Path, args) -> dict:
    rng = random.Random(1)
    lines = [" ".join(_words(rng.randint(4, 6), rng)).capitalize() + "." for _ in range(2000)]
    b = [x if rng.random() > 0.1 else x.replace(" ", " new ", 1) for x in lines]
    return _budget(
        work,
        args,
        {"a.txt": "\n".join(lines), "b.txt": "\n".join(b)},
        "two near-copies of 2,000 lines",
    )


@probe("templated-copies-2000")
def p_templated(work: Path, args) -> dict:
    lines = [f"Item {i} of the council report was approved today." for i in range(2000)]
    b = [x.replace("today", "on Monday") if i % 7 == 0 else x for i, x in enumerate(lines)]
    return _budget(
        work,
        args,
        {"a.txt": "\n".join(lines), "b.txt": "\n".join(b)},
        "two near-copies of 2,000 near-identical (templated) lines",
    )


@probe("max-chars-text")
def p_max_text(work: Path, args) -> dict:
    rng = random.Random(2)
    parts, size = [], 0
    while size < 1_990_000:
        s = " ".join(_words(rng.randint(8, 25), rng)).capitalize() + ". "
        parts.append(s)
        size += len(s)
        if rng.random() < 0.15:
            parts.append("\n")
    return _budget(
        work,
        args,
        {"big.txt": "".join(parts)},
        "one text at the size limit (max_chars: 2,000,000 characters)",
    )


PILE = (
    "Council approves harbour bridge\n\nThe county council approved the new harbour bridge "
    "on Tuesday after a vote of 31 to 12, the chair said. Work starts in the spring."
)


def _normal_articles(n: int) -> tuple[list[dict], str]:
    """``n`` ordinary news articles: the first BBC ones from ../shared when present,
    else generated sentences (said which)."""
    bbc = REPO.parent / "shared" / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz"
    if bbc.exists():
        out = []
        with gzip.open(bbc, "rt", encoding="utf-8") as fh:
            for line in fh:
                r = json.loads(line)
                out.append({"id": f"bbc-{r['id']}", "text": r["title"] + "\n\n" + r["text"]})
                if len(out) == n:
                    break
        return out, f"the first {n} BBC articles"
    rng = random.Random(3)
    return [
        {"id": f"gen-{k}", "text": " ".join(_words(120, rng)).capitalize() + "."} for k in range(n)
    ], f"{n} generated texts"


@probe("identical-pile")
def p_pile(work: Path, args) -> dict:
    """One JSON Lines file of k identical one-line records (k = 1,000 and 5,000), and
    1,000 identical records among ordinary articles: time, peak RSS, relations."""
    base = _baseline(work, args.embedder)
    runs, parts, crashes, hangs, lost = [], [], 0, 0, 0
    normal, what = _normal_articles(200)
    for k, others in ((1000, []), (5000, []), (1000, normal)):
        recs = [{"id": f"c{n:05d}", "text": PILE} for n in range(k)] + others
        src = work / f"pile-{k}-{len(others)}.jsonl"
        src.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
        out = work / f"out-{k}-{len(others)}"
        r = scan([src], out, "--no-store", embedder=args.embedder)
        crashes += int(crashed(r))
        hangs += int(r["hang"])
        ok = r["code"] in (0, 3) and not r["hang"]
        arts = len(table(out, "articles")) if ok else 0
        rels = table(out, "relations") if ok else []
        lost += len(recs) - arts
        dup = sum(x["relation"] == "duplicate" for x in rels)
        label = f"{k:,} identical" + (f" + {what}" if others else "")
        parts.append(
            f"{label}: {r['seconds']:.1f} s ({r['cpu']:.1f} CPU s), {r['rss_mb']:.0f} MB "
            f"peak, {len(rels):,} "
            f"relations ({dup:,} duplicate)"
        )
        runs.append(r)
    return {
        "probe": "a pile of identical texts (one JSON Lines file)",
        "tried": len(runs),
        "crashes": crashes,
        "hangs": hangs,
        "lost": lost,
        "figures": "; ".join(parts)
        + f"; baseline ({base['seconds']:.1f} s, {base['cpu']:.1f} CPU s, "
        f"{base['rss_mb']:.0f} MB)",
    }


_READ_ONLY = """
import json, resource, sys, time
from unspin.ingest import read_paths
t = time.monotonic()
arts, errs = read_paths([sys.argv[1]])
print(json.dumps({"articles": len(arts), "errors": [e.reason for e in errs],
                  "seconds": time.monotonic() - t,
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


@probe("gzip-bomb")
def p_bomb(work: Path, args) -> dict:
    """A 1.2 GB text bomb through the whole scan; a JSON Lines bomb of 300 MB of tiny
    records through the readers only (the records kept, up to max_records, would then be
    one pile of identical texts: see docs/benchmarks.md on its quadratic duplicates)."""
    src = work / "in"
    src.mkdir()
    with gzip.open(src / "bomb.txt.gz", "wb", compresslevel=9) as fh:
        block = b"news " * (1 << 18)
        for _ in range(int(1.2e9) // len(block)):
            fh.write(block)
    (src / "ok.txt").write_text(STORY)
    jb = work / "bomb.jsonl.gz"
    with gzip.open(jb, "wb", compresslevel=9) as fh:
        fh.write(b'{"text": "One."}\n')
        line = b'{"text": "x"}\n' * 20_000
        for _ in range(int(0.3e9) // len(line)):
            fh.write(line)
    r = scan([src], work / "out")
    errs = table(work / "out", "errors") if r["code"] in (0, 3) else []
    j = timed([sys.executable, "-c", _READ_ONLY, str(jb)])
    jr = json.loads(j["stdout"] or "{}")
    packed = (sum(p.stat().st_size for p in src.iterdir()) + jb.stat().st_size) / 1e6
    return {
        "probe": "gzip bombs: 1.2 GB of text (scan), 300 MB of tiny JSON Lines records (read)",
        "tried": 2,
        "crashes": int(crashed(r)) + int(crashed(j)),
        "hangs": int(r["hang"] or j["hang"]),
        "lost": 0 if any("too large" in e["reason"] for e in errs) else 1,
        "figures": f"{packed:.1f} MB packed. Text: exit {r['code']}, {r['seconds']:.1f} s, "
        f"{r['rss_mb']:.0f} MB peak ({'; '.join(sorted({e['reason'] for e in errs}))}). "
        f"JSON Lines: {jr.get('articles')} records kept in {jr.get('seconds', 0):.1f} s, "
        f"{j['rss_mb']:.0f} MB peak ({'; '.join(jr.get('errors', []))})",
    }


@probe("fifo-and-device")
def p_fifo(work: Path, args) -> dict:
    src = work / "in"
    src.mkdir()
    (src / "ok.txt").write_text(STORY)
    os.mkfifo(src / "pipe.txt")
    r = timed(
        [
            *UNSPIN,
            "scan",
            str(src),
            "/dev/zero",
            "--out",
            str(work / "out"),
            "-q",
            "--embedder",
            "hashing",
        ],
        timeout=120,
    )
    errs = table(work / "out", "errors") if not r["hang"] else []
    return {
        "probe": "a FIFO in an input folder; `/dev/zero` as input",
        "tried": 2,
        "crashes": int(crashed(r)),
        "hangs": int(r["hang"]),
        "lost": 0 if len(errs) == 2 else 2 - len(errs),
        "figures": f"exit {r['code']} in {r['seconds']:.1f} s, {r['rss_mb']:.0f} MB; "
        + "; ".join(e["reason"] for e in errs),
    }


@probe("deep-json")
def p_deep(work: Path, args) -> dict:
    deep = "[" * 1000 + "]" * 1000
    src = work / "in"
    src.mkdir()
    (src / "a.json").write_text(deep)
    (src / "b.jsonl").write_text(json.dumps({"id": "ok1", "text": STORY}) + "\n" + deep + "\n")
    (src / "c.jsonl").write_text(
        '{"id": "ok2", "text": "' + STORY.replace("\n", " ") + '", "f": ' + deep + "}\n"
    )
    (src / "ok.txt").write_text(STORY)
    r = scan([src], work / "out")
    ids = {a["id"] for a in table(work / "out", "articles")}
    cmp_ = timed(
        [*UNSPIN, "compare", str(src / "a.json"), str(src / "ok.txt"), "--embedder", "hashing"]
    )
    return {
        "probe": "JSON nested 1,000 levels (.json, .jsonl line, a field, compare)",
        "tried": 4,
        "crashes": int(crashed(r)) + int(crashed(cmp_)),
        "hangs": int(r["hang"] or cmp_["hang"]),
        "lost": len({"ok1", "ok"} - ids),
        "figures": f"scan exit {r['code']}, articles {sorted(ids)}; compare exit "
        f"{cmp_['code']} ({cmp_['stderr'].strip().splitlines()[-1][:70]})",
    }


@probe("lone-surrogate")
def p_surrogate(work: Path, args) -> dict:
    src = work / "in"
    src.mkdir()
    (src / "s.jsonl").write_text(
        '{"id": "s1", "title": "T \\ud800", "text": "Ferry \\udfff crews walk out over pay."}\n'
        + json.dumps({"id": "s2", "text": STORY})
        + "\n"
    )
    r1 = scan([src], work / "o1")
    r2 = scan([src], work / "o2", "--no-store")
    tmp = [p for p in (work / "o2").rglob("*.tmp")]
    n = len(table(work / "o1", "articles")) + len(table(work / "o2", "articles"))
    return {
        "probe": "a lone surrogate (`\\ud800`) in a JSON text and title",
        "tried": 2,
        "crashes": int(crashed(r1)) + int(crashed(r2)),
        "hangs": 0,
        "lost": 4 - n,
        "figures": f"exit {r1['code']} / {r2['code']} (--no-store); {len(tmp)} .tmp left; "
        "'delete' in messages: " + str("delete" in r1["stderr"] + r2["stderr"]),
    }


@probe("symlink-unreadable")
def p_links(work: Path, args) -> dict:
    other = work / "other"
    other.mkdir()
    for k in range(11):
        (other / f"x{k}.txt").write_text(STORY.replace("Monday", f"day {k}"))
    src = work / "in"
    src.mkdir()
    (src / "ok.txt").write_text(STORY)
    (src / "linked").symlink_to(other, target_is_directory=True)
    locked = src / "locked"
    locked.mkdir()
    (locked / "y.txt").write_text(STORY)
    as_root = os.geteuid() == 0  # root reads any folder: that half cannot be probed
    if not as_root:
        os.chmod(locked, 0)
    r = scan([src], work / "out")
    os.chmod(locked, 0o700)
    errs = table(work / "out", "errors") if r["code"] in (0, 3) else []
    reasons = sorted({e["reason"].split(" (")[0] for e in errs})
    note = (
        " (run as root: the unreadable folder is read, so only the symlink is probed here; "
        "tests/test_robustness.py::test_unreadable_subfolder_is_reported covers it)"
        if as_root
        else ""
    )
    return {
        "probe": "a symlinked and an unreadable sub-folder",
        "tried": 1 if as_root else 2,
        "crashes": int(crashed(r)),
        "hangs": int(r["hang"]),
        "lost": (1 if as_root else 2) - len(errs),
        "figures": f"exit {r['code']}; reported: " + "; ".join(reasons) + note,
    }


@probe("stray-byte-and-nul")
def p_bytes(work: Path, args) -> dict:
    src = work / "in"
    src.mkdir()
    lines = [
        json.dumps({"id": f"r{i}", "text": f"Tickets cost £{i} more."}, ensure_ascii=False)
        for i in range(20)
    ]
    raw = "\n".join(lines).encode().replace(b"Tickets cost \xc2\xa35 ", b"Ti\xffckets cost ")
    (src / "stray.jsonl").write_bytes(raw + b"\n")
    nul = [json.dumps({"id": f"n{i}", "text": f"Story {i}."}) for i in range(10)]
    nul[4] = nul[4].replace("Story", "St\x00ory")
    (src / "nul.jsonl").write_text("\n".join(nul) + "\n")
    r = scan([src], work / "out")
    ids = {a["id"] for a in table(work / "out", "articles")}
    from unspin.ingest import read_paths

    arts = {a.id: a for a in read_paths([src])[0]}
    assert set(arts) == ids
    pounds = sum("£" in a.text for a in arts.values())
    return {
        "probe": "one stray non-UTF-8 byte / one NUL byte in a JSON Lines file",
        "tried": 2,
        "crashes": int(crashed(r)),
        "hangs": 0,
        "lost": 30 - len(arts) - 1,  # the NUL line is reported, not lost
        "figures": f"exit {r['code']}; {len(arts)} of 30 records kept ({pounds} with an "
        "intact £, 1 with U+FFFD for the bad byte); the NUL line reported alone",
    }


@probe("control-chars")
def p_esc(work: Path, args) -> dict:
    esc = "\x1b]52;c;cHduZWQ=\x07\x1b[2J"
    src = work / "in"
    src.mkdir()
    (src / f"evil{esc}.txt").write_text(f"Title {esc}\n\n" + STORY)
    (src / "f.jsonl").write_text(json.dumps({"id": f"x{esc}", "title": esc, "text": STORY}) + "\n")
    r = timed([*UNSPIN, "scan", str(src), "--out", str(work / "out"), "--embedder", "hashing"])
    files = sorted(src.iterdir())
    c = timed([*UNSPIN, "compare", str(files[0]), str(files[1]), "--embedder", "hashing"])
    raw = sum(x.count("\x1b") for x in (r["stdout"], r["stderr"], c["stdout"], c["stderr"]))
    return {
        "probe": "ids, titles and file names with ESC sequences (scan summary, compare)",
        "tried": 2,
        "crashes": int(crashed(r)) + int(crashed(c)),
        "hangs": 0,
        "lost": 0,
        "figures": f"raw ESC bytes printed: {raw}",
    }


@probe("html-metadata")
def p_html(work: Path, args) -> dict:
    src = work / "in"
    src.mkdir()
    (src / "p.html").write_text(
        "<html><head><title>Bridge <Script>alert(1)</Script> news</title>"
        '<meta property="og:site_name" content="&lt;Script&gt;x()&lt;/Script&gt;Daily">'
        "</head><body><article><p>"
        + "The old river bridge will reopen in June. " * 6
        + "</p></article></body></html>"
    )
    r = scan([src], work / "out")
    (a,) = table(work / "out", "articles")
    markup = sum("<" in (a.get(k) or "") for k in ("title", "outlet", "url"))
    return {
        "probe": "HTML page metadata with markup",
        "tried": 1,
        "crashes": int(crashed(r)),
        "hangs": 0,
        "lost": 0,
        "figures": f"metadata fields holding markup: {markup} (title {a.get('title')!r}, "
        f"outlet {a.get('outlet')!r})",
    }


@probe("quotes-extra-field")
def p_quotes(work: Path, args) -> dict:
    out = work / "out"
    r = scan([REPO / "examples" / "articles"], out)
    from unspin.output import results_folder

    path = results_folder(out) / "quotes.jsonl"
    rows = [{**json.loads(x), "added_later": 1} for x in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(x) + "\n" for x in rows))
    q = timed([*UNSPIN, "quotes", str(out)])
    return {
        "probe": "`unspin quotes` on a results file with an extra field",
        "tried": 1,
        "crashes": int(crashed(r)) + int(crashed(q)),
        "hangs": 0,
        "lost": 0,
        "figures": f"exit {q['code']}, {len(rows)} quotation groups listed",
    }


@probe("permissions")
def p_perms(work: Path, args) -> dict:
    src = work / "in"
    src.mkdir()
    (src / "a.txt").write_text(STORY)
    old = os.umask(0o022)
    try:
        r = scan([src], work / "out")
    finally:
        os.umask(old)
    modes = {}
    for p in [work / "out", *(work / "out").rglob("*")]:
        if not p.is_symlink():
            modes[oct(stat.S_IMODE(p.stat().st_mode))] = (
                modes.get(oct(stat.S_IMODE(p.stat().st_mode)), 0) + 1
            )
    return {
        "probe": "store and results permissions (umask 022)",
        "tried": 1,
        "crashes": int(crashed(r)),
        "hangs": 0,
        "lost": 0,
        "figures": "modes created: " + ", ".join(f"{k} x{v}" for k, v in sorted(modes.items())),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--probe", action="append", help="run only this probe (repeatable)")
    ap.add_argument("--list", action="store_true", help="list the probes")
    ap.add_argument("--embedder", default="hashing", help="embedder of the budget probes")
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--concurrent-trials", type=int, default=3)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    if args.list:
        print("\n".join(PROBES))
        return
    names = args.probe or list(PROBES)
    rows = []
    for name in names:
        with tempfile.TemporaryDirectory(prefix=f"unspin-{name}-") as d:
            try:
                row = PROBES[name](Path(d), args)
            except Exception as e:  # noqa: BLE001 - a probe that fails is a row too
                row = {
                    "probe": name,
                    "tried": 1,
                    "crashes": 1,
                    "hangs": 0,
                    "lost": "?",
                    "figures": f"probe failed: {type(e).__name__}: {e}",
                }
        cmd = f"`.venv/bin/python bench/robustness.py --probe {name}"
        cmd += (
            f" --embedder {args.embedder}`"
            if name in _BUDGET and args.embedder != "hashing"
            else "`"
        )
        rows.append((row, cmd))
        print(
            json.dumps({"probe": name, **{k: v for k, v in row.items() if k != "probe"}}),
            file=sys.stderr,
            flush=True,
        )
    print("| probe | tried | crashes | hangs | records lost | figures | command |")
    print("|---|---|---|---|---|---|---|")
    for row, cmd in rows:
        print(
            f"| {row['probe']} | {row['tried']} | {row['crashes']} | {row['hangs']} | "
            f"{row['lost']} | {row['figures']} | {cmd} |"
        )


_BUDGET = {"one-line-20k", "near-copies-2000", "templated-copies-2000", "max-chars-text"}

if __name__ == "__main__":
    main()
