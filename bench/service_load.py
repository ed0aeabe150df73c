"""Load test of the web service (`unspin serve`), bounded in time and count, on 127.0.0.1.

Usage:
  .venv/bin/python bench/service_load.py [--clients 20] [--seconds 60] [--seed 200]
      [--corpus reuters|examples] [--embedder hashing|use] [--json OUT.json]
  .venv/bin/python bench/service_load.py --post-latency [--store DIR] [--posts 3]
      [--embedder hashing|use]

Load mode: makes a store of ``--seed`` articles (Reuters-21578 from ../shared, or the
bundled examples), starts ``unspin serve`` on a free port of 127.0.0.1 as a child process,
and runs ``--clients`` threads for ``--seconds``: each posts one new article
(``--write-share`` of its requests) or reads (story list, an article, filtered relations,
a story page). At the end every acknowledged article must be readable. Prints
throughput, p50/p99 latency per request kind, and every non-2xx status; exits 1 on any
5xx or lost article. The server is always stopped.

Post-latency mode: a store of 20,000 articles (all 19,043 Reuters-21578 articles with a
body and the first 957 BBC News articles; built into ``--store`` if it holds none), then
``--posts`` single-article POSTs one after another, each timed; also times the service's
own part (reading the results back into a snapshot) in-process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
TOKEN = "load-test-token"
#: hard caps so the test stops by itself whatever the options say
MAX_SECONDS, MAX_CLIENTS, MAX_REQUESTS = 600, 64, 200_000
SERVER_START_TIMEOUT = 120.0
#: seconds of GET /health by the same clients before the load: the framework's ceiling
BASELINE_SECONDS = 5.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def corpus(name: str) -> list[dict]:
    """Article records: Reuters-21578 (needs ../shared) or the bundled examples."""
    if name == "examples":
        out = []
        for p in sorted((REPO / "examples" / "articles").iterdir()):
            text = p.read_text(encoding="utf-8")
            out.append({"id": p.stem, "title": text.split("\n", 1)[0], "text": text})
        return out
    from corpus_files import reuters

    return list(reuters())


def start_server(store: Path, embedder: str, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    cmd = [
        str(REPO / ".venv" / "bin" / "unspin"),
        "serve",
        "--store",
        str(store),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--token",
        TOKEN,
        "--embedder",
        embedder,
    ]
    fh = log.open("w")
    proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}; see {log}")
        try:
            if httpx.get(base + "/health", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError(f"server did not start in {SERVER_START_TIMEOUT:.0f} s; see {log}")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))]


def run_load(
    base: str,
    pool: list[dict],
    known: list[str],
    clients: int,
    seconds: float,
    write_share: float,
    seed: int = 1,
) -> dict:
    """``clients`` threads for ``seconds``; returns the measurements."""
    clients = min(clients, MAX_CLIENTS)
    seconds = min(seconds, MAX_SECONDS)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    lock = threading.Lock()
    lat: dict[str, list[float]] = defaultdict(list)
    statuses: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    failures: list[str] = []
    acked: list[str] = []
    todo = list(pool)
    ids = list(known)
    count = [0]
    stop_at = 0.0  # set when the load starts

    def take() -> dict | None:
        with lock:
            return todo.pop() if todo else None

    def client(k: int) -> None:
        rng = random.Random(seed * 1000 + k)
        with httpx.Client(base_url=base, headers=headers, timeout=600) as http:
            while time.monotonic() < stop_at:
                with lock:
                    if count[0] >= MAX_REQUESTS:
                        return
                    count[0] += 1
                    some_id = rng.choice(ids) if ids else None
                if rng.random() < write_share and (art := take()) is not None:
                    kind, call = "POST /articles", lambda a=art: http.post("/articles", json=a)
                else:
                    pick = rng.random()
                    if pick < 0.3 or some_id is None:
                        kind, call = "GET /stories", lambda: http.get("/stories?limit=20")
                    elif pick < 0.6:
                        kind, call = (
                            "GET /articles/{id}",
                            lambda i=some_id: http.get(f"/articles/{i}"),
                        )
                    elif pick < 0.85:
                        kind, call = (
                            "GET /relations",
                            lambda: http.get("/relations?min_confidence=0.5&limit=50"),
                        )
                    else:
                        kind, call = "GET / (page)", lambda: http.get("/")
                t0 = time.perf_counter()
                try:
                    r = call()
                    status = r.status_code
                except httpx.HTTPError as e:
                    status = 0
                    with lock:
                        failures.append(f"{kind}: {type(e).__name__}: {e}")
                dt = time.perf_counter() - t0
                with lock:
                    lat[kind].append(dt)
                    statuses[kind][status] += 1
                    if kind.startswith("POST") and status == 201:
                        new = r.json()["added"]
                        acked.extend(new)
                        ids.extend(new)

    # baseline, same run: the framework's ceiling (GET /health) for a few seconds
    base_n = [0]
    base_stop = time.monotonic() + BASELINE_SECONDS

    def health_client() -> None:
        with httpx.Client(base_url=base, timeout=60) as http:
            while time.monotonic() < base_stop:
                http.get("/health")
                with lock:
                    base_n[0] += 1

    hs = [threading.Thread(target=health_client) for _ in range(clients)]
    for t in hs:
        t.start()
    for t in hs:
        t.join()
    baseline_rps = base_n[0] / BASELINE_SECONDS

    t0 = time.perf_counter()
    stop_at = time.monotonic() + seconds
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    # every acknowledged article must be readable afterwards
    lost = []
    with httpx.Client(base_url=base, headers=headers, timeout=60) as http:
        for i in acked:
            if http.get(f"/articles/{i}").status_code != 200:
                lost.append(i)
    total = sum(len(v) for v in lat.values())
    return {
        "clients": clients,
        "seconds": round(wall, 1),
        "requests": total,
        "throughput_rps": round(total / wall, 2),
        "baseline_health_rps": round(baseline_rps, 1),
        "kinds": {
            k: {
                "n": len(v),
                "rps": round(len(v) / wall, 2),
                "p50_ms": round(1000 * pct(v, 0.5), 1),
                "p99_ms": round(1000 * pct(v, 0.99), 1),
                "max_ms": round(1000 * max(v), 1),
                "statuses": dict(statuses[k]),
            }
            for k, v in sorted(lat.items())
        },
        "server_errors_5xx": sum(
            n for s in statuses.values() for code, n in s.items() if code >= 500
        ),
        "transport_failures": failures[:20],
        "acknowledged": len(acked),
        "lost": lost,
    }


def build_store(store: Path, records: list[dict], embedder: str) -> float:
    """Scan ``records`` into ``store`` (through a JSONL file outside the repo)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp, "seed.jsonl")
        with src.open("w", encoding="utf-8") as fh:
            for r in records:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        t0 = time.perf_counter()
        cmd = [str(REPO / ".venv/bin/unspin"), "scan", str(src), "--out", str(store), "-q"]
        subprocess.run([*cmd, "--embedder", embedder], check=True)
        return time.perf_counter() - t0


def direct_add(store: Path, record: dict, embedder: str) -> float:
    """Baseline, same run: ``unspin.add`` of one article on a copy of ``store``."""
    import shutil

    import unspin
    from unspin.model import Article
    from unspin.pipeline import Config

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp, "copy")
        shutil.copytree(store, copy, symlinks=True)
        art = Article(id="direct-" + record["id"], text=record["text"], title=record.get("title"))
        warm = [
            Article("w1", "Mayor Anna Berg said so."),
            Article("w2", "Mayor Anna Borg said so."),
        ]
        unspin.compare(*warm, Config(embedder=embedder))  # models loaded, as in the server
        t0 = time.perf_counter()
        unspin.add([art], out=copy, config=Config(embedder=embedder))
        return time.perf_counter() - t0


def load_mode(args: argparse.Namespace) -> int:
    records = corpus(args.corpus)
    rng = random.Random(args.seed_rng)
    rng.shuffle(records)
    seed, pool = records[: args.seed], records[args.seed :]
    if args.corpus == "examples":  # too few to post new ones: post renamed copies
        pool = [{**r, "id": f"copy{n}-{r['id']}"} for n in range(100) for r in records]
    with tempfile.TemporaryDirectory(prefix="unspin-load-") as tmp:
        store = Path(tmp, "store")
        build = build_store(store, seed, args.embedder)
        direct = direct_add(store, pool[-1], args.embedder)
        proc, base = start_server(store, args.embedder, Path(tmp, "server.log"))
        try:
            result = run_load(
                base,
                pool,
                [r["id"] for r in seed],
                args.clients,
                args.seconds,
                args.write_share,
            )
        finally:
            stop_server(proc)
            log = Path(tmp, "server.log").read_text(errors="replace")
    result.update(
        direct_unspin_add_one_s=round(direct, 2),
        corpus=args.corpus,
        seed_articles=len(seed),
        embedder=args.embedder,
        store_build_s=round(build, 1),
        write_share=args.write_share,
    )
    report(result, args.json)
    if result["server_errors_5xx"] or result["lost"] or result["transport_failures"]:
        print(log[-3000:], file=sys.stderr)
        return 1
    return 0


def latency_mode(args: argparse.Namespace) -> int:
    from corpus_files import bbc, reuters

    from unspin.report import ReportData, stored_articles

    store = Path(args.store or tempfile.mkdtemp(prefix="unspin-20k-"))
    extra = list(bbc(2225))
    fresh = extra[-args.posts :]  # BBC articles not in the store (it takes at most 957)
    built = None
    if not (store / "manifest.json").is_file():
        rows = list(reuters())
        rows += extra[: max(0, 20_000 - len(rows))]
        built = build_store(store, rows[: args.size], args.embedder)
    # the service's own part of a write: read the results back into a snapshot
    from unspin.output import read_tables

    t0 = time.perf_counter()
    tables = read_tables(store)
    t1 = time.perf_counter()
    arts = stored_articles(store)
    t2 = time.perf_counter()
    ReportData(tables, {k: a.text for k, a in arts.items()})
    t3 = time.perf_counter()
    log = Path(tempfile.mkdtemp(prefix="unspin-latency-")) / "server.log"
    proc, base = start_server(store, args.embedder, log)
    posts = []
    try:
        with httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=3600
        ) as http:
            for r in fresh:
                rec = {**r, "id": f"latency-{r['id']}"}
                t = time.perf_counter()
                resp = http.post("/articles", json=rec)
                posts.append(
                    {
                        "seconds": round(time.perf_counter() - t, 2),
                        "status": resp.status_code,
                        "relations": len(resp.json().get("relations", [])),
                    }
                )
                print(json.dumps(posts[-1]), flush=True)
    finally:
        stop_server(proc)
    # baseline, same run: the library call the service makes, without the service
    direct = None
    if args.direct:
        import unspin
        from unspin.model import Article
        from unspin.pipeline import Config

        one = extra[-args.posts - 1]
        warm = [
            Article("w1", "Mayor Anna Berg said so."),
            Article("w2", "Mayor Anna Borg said so."),
        ]
        unspin.compare(*warm, Config(embedder=args.embedder))  # models loaded, as in the server
        t = time.perf_counter()
        art = Article(id=f"direct-{one['id']}", text=one["text"], title=one["title"])
        unspin.add([art], out=store, config=Config(embedder=args.embedder))
        direct = time.perf_counter() - t
    result = {
        "direct_unspin_add_s": round(direct, 2) if direct is not None else None,
        "store_articles": len(tables["articles"]),
        "store_relations": len(tables["relations"]),
        "embedder": args.embedder,
        "store_build_s": round(built, 1) if built else None,
        "snapshot_read_tables_s": round(t1 - t0, 2),
        "snapshot_load_texts_s": round(t2 - t1, 2),
        "snapshot_index_s": round(t3 - t2, 2),
        "posts": posts,
        "post_p50_s": statistics.median(p["seconds"] for p in posts) if posts else None,
    }
    report(result, args.json)
    return 0


def report(result: dict, path: str | None) -> None:
    text = json.dumps(result, indent=2)
    print(text)
    if path:
        Path(path).write_text(text + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=200, help="articles in the store at start")
    ap.add_argument("--corpus", choices=("reuters", "examples"), default="reuters")
    ap.add_argument("--embedder", choices=("hashing", "use"), default="hashing")
    ap.add_argument("--write-share", type=float, default=0.1, help="share of requests that post")
    ap.add_argument("--seed-rng", type=int, default=1)
    ap.add_argument("--json", help="also write the result here")
    ap.add_argument("--post-latency", action="store_true")
    ap.add_argument(
        "--store", help="post-latency: a results folder to post to (built when it has none)"
    )
    ap.add_argument("--size", type=int, default=20_000, help="post-latency: articles to build")
    ap.add_argument("--posts", type=int, default=3)
    ap.add_argument(
        "--direct", action="store_true", help="post-latency: also time unspin.add directly"
    )
    args = ap.parse_args()
    if not 0 <= args.write_share <= 1:
        ap.error("--write-share must be in [0, 1]")
    return latency_mode(args) if args.post_latency else load_mode(args)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
