"""The web service against a real server on 127.0.0.1: endpoints, auth, limits, errors,
uploads in every format, atomic batches under concurrent reads, the CLI `serve`."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from serve_helpers import (
    EXAMPLES,
    FAST,
    HOSTILE_ID,
    HOSTILE_TITLE,
    REPO,
    TOKEN,
    free_port,
    hostile_records,
    running_server,
)

import unspin
import unspin.report
from unspin.output import read_tables
from unspin.service import (
    Settings,
    _client_name,
    read_uploads,
    session_value,
    token_ok,
)

AUTH = {"Authorization": f"Bearer {TOKEN}"}

ARTICLE = (
    "Old river bridge to reopen in June\n\n"
    "The old river bridge in Eastwick will reopen in June, a month later than planned, "
    "the council said on Monday.\n\n"
    "Repairs to the steel frame took longer than expected because of the cold winter, "
    "according to the works manager, Petra Lind.\n\n"
    "Commuters have used a small ferry since the bridge closed last autumn.\n"
)
COPY = ARTICLE.replace("on Monday", "on Monday morning") + "\nReporting by a wire service.\n"


def settings(store: Path, **kw) -> Settings:
    return Settings(store=store, token=TOKEN, config=FAST, **kw)


@pytest.fixture
def server(tmp_path):
    with running_server(settings(tmp_path / "store")) as base:
        with httpx.Client(base_url=base, timeout=120) as client:
            yield client


def post(client, payload, **kw):
    return client.post("/articles", json=payload, headers=AUTH, **kw)


# ------------------------------------------------------------------ basics


def test_new_store_is_created_and_empty(server, tmp_path):
    assert (tmp_path / "store" / "manifest.json").is_file()
    r = server.get("/stories", headers=AUTH)
    assert r.status_code == 200 and r.json() == {"total": 0, "stories": []}
    assert server.get("/health").json() == {"status": "ok"}


def test_refuses_a_folder_that_is_not_a_store(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    from unspin.service import Service

    with pytest.raises(ValueError, match="not an unspin results folder"):
        Service(settings(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_refuses_a_store_without_results(tmp_path):
    from unspin.service import Service

    unspin.scan([EXAMPLES], out=tmp_path / "s", config=FAST)
    for p in (tmp_path / "s").iterdir():
        if p.is_file():
            p.unlink()  # results gone, archive kept: never wipe it with an empty scan
    with pytest.raises(ValueError, match="store with articles but no results"):
        Service(settings(tmp_path / "s"))
    assert len(unspin.report.stored_articles(tmp_path / "s")) == 10


def test_post_json_one_batch_and_list(server):
    r = post(server, {"id": "bridge", "text": ARTICLE, "title": "Bridge", "outlet": "Herald"})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["added"] == ["bridge"] and body["relations"] == [] and body["errors"] == []
    r = post(server, {"articles": [{"id": "bridge-copy", "text": COPY}]})
    assert r.status_code == 201
    rels = r.json()["relations"]
    assert [(x["a"], x["b"]) for x in rels] == [("bridge", "bridge-copy")]
    assert rels[0]["relation"] in ("copy", "duplicate") and "changes" in rels[0]
    assert rels[0]["first_seen"]
    r = post(server, [{"text": "A short note about the weather. It rained all day in town."}])
    assert r.status_code == 201 and r.json()["added"][0].startswith("post-")
    # the article as stored, with its text and relations
    a = server.get("/articles/bridge-copy", headers=AUTH).json()
    assert a["text"] == COPY and a["story"] and a["relations"][0]["b"] == "bridge-copy"
    listed = server.get("/articles", params={"q": "bridge"}, headers=AUTH).json()
    assert {x["id"] for x in listed["articles"]} == {"bridge", "bridge-copy"}
    story = server.get(f"/stories/{a['story']}", headers=AUTH).json()
    assert set(story["story"]["articles"]) == {"bridge", "bridge-copy"}
    assert story["lineage"]["story"] == a["story"] and story["relations"]


def test_replacing_and_deleting_an_article(server, tmp_path):
    post(server, {"articles": [{"id": "a1", "text": ARTICLE}, {"id": "a2", "text": COPY}]})
    r = post(server, {"id": "a2", "text": COPY + "\nOne more line at the end of it.\n"})
    assert r.json()["replaced"] == ["a2"]
    r = server.delete("/articles/a2", headers=AUTH)
    assert r.status_code == 200 and r.json()["removed"] == ["a2"]
    assert server.get("/articles/a2", headers=AUTH).status_code == 404
    assert server.get("/relations", params={"article": "a1"}, headers=AUTH).json()["total"] == 0
    tables = read_tables(tmp_path / "store")
    assert {a["id"] for a in tables["articles"]} == {"a1"}
    assert not tables["relations"] and all("a2" not in s["articles"] for s in tables["stories"])
    assert server.delete("/articles/a2", headers=AUTH).status_code == 404
    # ids are data: slashes and dots in one never reach a path
    r = post(server, {"id": "../../feeds/x.txt", "text": COPY})
    assert r.status_code == 201 and r.json()["added"] == ["../../feeds/x.txt"]
    got = server.get("/articles/..%2F..%2Ffeeds%2Fx.txt", headers=AUTH)
    assert got.status_code == 200 and got.json()["text"] == COPY
    assert server.delete("/articles/..%2F..%2Ffeeds%2Fx.txt", headers=AUTH).status_code == 200
    assert not (tmp_path / "feeds").exists() and not (tmp_path.parent / "feeds").exists()
    # removing the last article leaves an empty store that takes articles again
    assert server.delete("/articles/a1", headers=AUTH).status_code == 200
    assert post(server, {"id": "a3", "text": ARTICLE}).status_code == 201


def test_uploads_in_every_format_read_like_scan(server, tmp_path):
    jsonl = b'{"id": "j1", "text": "%s"}\n' % json.dumps(ARTICLE)[1:-1].encode()
    csv = b'id,title,text\nc1,Copy,"' + COPY.replace('"', '""').encode() + b'"\n'
    html = (
        b"<html><head><title>Bridge page</title></head><body><article><p>"
        + ARTICLE.replace("\n\n", "</p><p>").encode()
        + b"</p></article></body></html>"
    )
    files = [
        ("files", ("../../etc/plain.txt", ARTICLE.encode(), "text/plain")),
        ("files", ("C:\\Users\\me\\feed.jsonl", jsonl, "application/octet-stream")),
        ("files", ("table.csv", csv, "text/csv")),
        ("files", ("page.html", html, "text/html")),
        ("files", ("zipped.txt.gz", gzip.compress(COPY.encode()), "application/gzip")),
        ("files", ("empty.txt", b"   \n", "text/plain")),
    ]
    r = server.post("/articles", files=files, headers=AUTH)
    assert r.status_code == 201, r.text
    body = r.json()
    assert sorted(body["added"]) == ["c1", "j1", "page", "plain", "zipped"]
    assert [e["input"] for e in body["errors"]] == ["upload:empty.txt"]
    assert "empty" in body["errors"][0]["reason"]
    art = server.get("/articles/plain", headers=AUTH).json()["article"]
    assert art["input"] == "upload:plain.txt" and art["title"] == ARTICLE.split("\n")[0]
    # nothing was written where the client's names point
    assert not (tmp_path.parent / "etc" / "plain.txt").exists()
    # errors of uploads are listed
    assert server.get("/errors", headers=AUTH).json()["recent_uploads"][0]["input"] == (
        "upload:empty.txt"
    )


def test_uploaded_examples_equal_a_scan_of_them(server, tmp_path):
    files = [("files", (p.name, p.read_bytes(), "text/plain")) for p in sorted(EXAMPLES.iterdir())]
    r = server.post("/articles", files=files, headers=AUTH)
    assert r.status_code == 201
    got = {(x["a"], x["b"], x["relation"]) for x in read_tables(tmp_path / "store")["relations"]}
    ref = unspin.scan([EXAMPLES], out=tmp_path / "ref", config=FAST)
    assert got == {(x.a, x.b, x.relation) for x in ref.relations}


def test_read_uploads_names_and_ids():
    arts, errs = read_uploads(
        [("a/b/story.txt", ARTICLE.encode()), ("story.txt", COPY.encode())],
        [{"id": "x", "text": ARTICLE}, {"text": COPY, "id": "y", "published_at": "soon"}],
        unspin.ingest.IngestOptions(),
    )
    assert [a.id for a in arts] == ["story", "story~2", "x", "y"]
    assert [a.input for a in arts] == ["upload:story.txt", "upload:story.txt", "request", "request"]
    assert any("duplicate id 'story'" in e.reason for e in errs)
    assert any("published_at 'soon'" in e.reason and e.input == "request" for e in errs)
    assert _client_name("..\\..\\x\x1b[2J.txt") == "x[2J.txt"
    assert _client_name("") == "upload" and _client_name("/") == "upload"


# ------------------------------------------------------------------ auth and errors


def test_token_is_needed_for_writes_and_reads(server):
    assert server.get("/stories").status_code == 401
    r = server.get("/stories", headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401 and r.headers["www-authenticate"] == "Bearer"
    assert r.json()["message"].startswith("reading needs a bearer token")
    r = server.post("/articles", json={"text": ARTICLE})
    assert r.status_code == 401 and r.json()["status"] == 401
    assert server.delete("/articles/x").status_code == 401
    assert server.get("/", follow_redirects=False).status_code == 303  # pages: to login
    assert server.get("/openapi.json").status_code == 200


def test_public_read_opens_reads_only(tmp_path):
    with running_server(settings(tmp_path / "s", public_read=True)) as base:
        assert httpx.get(base + "/stories").status_code == 200
        assert httpx.get(base + "/").status_code == 200
        assert httpx.post(base + "/articles", json={"text": ARTICLE}).status_code == 401


def test_token_comparison():
    assert token_ok(TOKEN, TOKEN) and not token_ok(TOKEN + "x", TOKEN)
    assert not token_ok(None, TOKEN) and not token_ok("", TOKEN)
    assert session_value(TOKEN) != session_value(TOKEN + "x")
    with pytest.raises(ValueError, match="token"):
        Settings(store=Path("x"), token="")


@pytest.mark.parametrize(
    "call, status, words",
    [
        (
            lambda c: c.post(
                "/articles", content=b"{", headers={**AUTH, "content-type": "application/json"}
            ),
            400,
            "not valid JSON",
        ),
        (
            lambda c: c.post(
                "/articles",
                content=b"[" * 100_000,
                headers={**AUTH, "content-type": "application/json"},
            ),
            400,
            "not valid JSON",
        ),
        (
            lambda c: c.post("/articles", json={"body": "x"}, headers=AUTH),
            422,
            "text: Field required",
        ),
        (lambda c: c.post("/articles", json={"text": ""}, headers=AUTH), 422, "text"),
        (
            lambda c: c.post("/articles", json={"text": "   "}, headers=AUTH),
            422,
            "no article could be read",
        ),
        (
            lambda c: c.post(
                "/articles", content=b"hello", headers={**AUTH, "content-type": "text/plain"}
            ),
            415,
            "unsupported content type",
        ),
        (
            lambda c: c.get("/relations", params={"relation": "copies"}, headers=AUTH),
            422,
            "unknown relation type 'copies'",
        ),
        (
            lambda c: c.get("/relations", params={"since": "yesterday"}, headers=AUTH),
            422,
            "not an ISO 8601 time",
        ),
        (
            lambda c: c.get("/relations", params={"min_confidence": "2"}, headers=AUTH),
            422,
            "min_confidence",
        ),
        (lambda c: c.get("/stories/nope", headers=AUTH), 404, "no story with id 'nope'"),
        (
            lambda c: c.get("/compare", params={"a": "x", "b": "y"}, headers=AUTH),
            404,
            "no article with id 'x'",
        ),
        (lambda c: c.get("/nowhere", headers=AUTH), 404, "no such endpoint"),
        (lambda c: c.put("/articles", headers=AUTH), 405, "not allowed"),
    ],
)
def test_errors_are_json_with_the_right_status(server, call, status, words):
    r = call(server)
    assert r.status_code == status, r.text
    body = r.json()
    assert body["status"] == status and words in body["message"], body


def test_body_and_batch_limits(tmp_path):
    with running_server(settings(tmp_path / "s", max_body_bytes=20_000, max_batch=2)) as base:
        big = {"text": "word " * 5000}
        r = httpx.post(base + "/articles", json=big, headers=AUTH)
        assert r.status_code == 413 and "over the limit of 20,000 bytes" in r.json()["message"]

        def chunks():  # no Content-Length: counted while streaming
            for _ in range(10):
                yield b" " * 5000

        r = httpx.post(
            base + "/articles",
            content=chunks(),
            headers={**AUTH, "content-type": "application/json"},
        )
        assert r.status_code == 413
        three = [{"id": str(i), "text": ARTICLE} for i in range(3)]
        r = httpx.post(base + "/articles", json=three, headers=AUTH)
        assert r.status_code == 413 and "batch of 3 articles" in r.json()["message"]
        rows = "id,text\n" + "".join(f'{i},"{ARTICLE}"\n' for i in range(3))
        r = httpx.post(base + "/articles", files={"files": ("t.csv", rows.encode())}, headers=AUTH)
        assert r.status_code == 413 and "batch of 3" in r.json()["message"]
        assert httpx.get(base + "/articles", headers=AUTH).json()["total"] == 0


def test_cors_is_off_unless_configured(server, tmp_path):
    r = server.get("/health", headers={"Origin": "https://elsewhere.example"})
    assert "access-control-allow-origin" not in r.headers
    r = server.options(
        "/articles",
        headers={"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in r.headers
    cfg = settings(tmp_path / "s", cors_origins=("https://news.example",))
    with running_server(cfg) as base:
        r = httpx.get(base + "/health", headers={"Origin": "https://news.example"})
        assert r.headers["access-control-allow-origin"] == "https://news.example"
        r = httpx.get(base + "/health", headers={"Origin": "https://elsewhere.example"})
        assert "access-control-allow-origin" not in r.headers


def test_openapi_lists_every_endpoint(server):
    spec = server.get("/openapi.json").json()
    paths = spec["paths"]
    assert set(paths["/articles"]) == {"get", "post"}
    assert {"get", "delete"} <= set(paths["/articles/{article_id}"])
    for p in ("/stories", "/stories/{story_id}", "/relations", "/quotes", "/compare"):
        assert "get" in paths[p]
    body = paths["/articles"]["post"]["requestBody"]["content"]
    assert {"application/json", "multipart/form-data"} <= set(body)
    assert "ArticleIn" in spec["components"]["schemas"]
    assert spec["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert server.get("/docs").status_code == 404  # no CDN-loaded docs page


# ------------------------------------------------------------------ queries


def test_relations_filters_since_and_compare(server):
    post(server, {"articles": [{"id": "a", "text": ARTICLE}, {"id": "b", "text": COPY}]})
    before = time.time()
    time.sleep(1.1)
    post(
        server,
        {"id": "c", "text": ARTICLE.replace("Petra Lind", "Petra Lindqvist") + "\nExtra words.\n"},
    )
    allr = server.get("/relations", headers=AUTH).json()
    assert allr["total"] == 3
    iso = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(before + 1))
    new = server.get("/relations", params={"since": iso}, headers=AUTH).json()
    assert {(r["a"], r["b"]) for r in new["relations"]} == {("a", "c"), ("b", "c")}
    hi = server.get("/relations", params={"min_confidence": 0.999}, headers=AUTH).json()
    assert all(r["confidence"] >= 0.999 for r in hi["relations"])
    kinds = {r["relation"] for r in allr["relations"]}
    one = sorted(kinds)[0]
    only = server.get("/relations", params={"relation": one}, headers=AUTH).json()
    assert only["total"] == sum(r["relation"] == one for r in allr["relations"])
    cmp = server.get("/compare", params={"a": "b", "b": "a"}, headers=AUTH).json()
    assert cmp["stored"] and (cmp["relation"]["a"], cmp["relation"]["b"]) == ("a", "b")
    q = server.get("/quotes", headers=AUTH)
    assert q.status_code == 200 and "quotes" in q.json()


def test_compare_runs_the_engine_for_an_unstored_pair(server):
    far = "The library will stay open late on Saturdays from next month, after a petition."
    post(server, {"articles": [{"id": "bridge", "text": ARTICLE}, {"id": "lib", "text": far}]})
    r = server.get("/compare", params={"a": "bridge", "b": "lib"}, headers=AUTH).json()
    assert r["stored"] is False and r["relation"]["relation"] == "unrelated"
    same = server.get("/compare", params={"a": "lib", "b": "lib"}, headers=AUTH)
    assert same.status_code == 422


# ------------------------------------------------------------------ concurrency


def test_readers_never_see_half_a_batch_and_are_not_blocked(server):
    post(server, {"id": "seed", "text": ARTICLE})
    batch = [
        {"id": f"batch-{i:02d}", "text": f"Item {i}. " + ARTICLE.replace("June", f"month {i}")}
        for i in range(25)
    ]
    seen: list[int] = []
    during: list[float] = []
    done = threading.Event()

    def writer():
        r = post(server, {"articles": batch})
        assert r.status_code == 201
        done.set()

    t = threading.Thread(target=writer)
    t.start()
    with httpx.Client(base_url=str(server.base_url), headers=AUTH, timeout=60) as reader:
        while not done.is_set():
            t0 = time.perf_counter()
            r = reader.get("/articles", params={"q": "batch", "limit": 100})
            if not done.is_set():
                during.append(time.perf_counter() - t0)
            seen.append(r.json()["total"])
        seen.append(reader.get("/articles", params={"q": "batch"}).json()["total"])
    t.join()
    assert set(seen) <= {0, 25}, seen
    assert seen[-1] == 25
    assert during, "no read completed while the batch was being applied"


def test_concurrent_posts_are_all_kept(server, tmp_path):
    def one(i):
        text = f"Report number {i}. " + ARTICLE.replace("Eastwick", f"Town{i}")
        return post(server, {"id": f"p{i}", "text": text})

    results: list = [None] * 6
    threads = [
        threading.Thread(target=lambda i=i: results.__setitem__(i, one(i))) for i in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status_code for r in results] == [201] * 6
    ids = {a["id"] for a in read_tables(tmp_path / "store")["articles"]}
    assert ids == {f"p{i}" for i in range(6)}
    for r in results:  # each answer names its own article and its relations
        (aid,) = r.json()["added"]
        assert all(aid in (x["a"], x["b"]) for x in r.json()["relations"])


def test_short_bounded_load(tmp_path):
    """The bench's load test for a few seconds on the bundled examples: no 5xx, nothing
    acknowledged is lost (the 60-second run is bench/service_load.py)."""
    out = tmp_path / "load.json"
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench/service_load.py"),
            "--corpus",
            "examples",
            "--seed",
            "6",
            "--clients",
            "6",
            "--seconds",
            "4",
            "--write-share",
            "0.2",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["server_errors_5xx"] == 0 and result["lost"] == []
    assert result["requests"] > 0 and result["acknowledged"] >= 1


# ------------------------------------------------------------------ pages


def test_login_upload_and_pages(server):
    r = server.post("/ui/login", data={"token": "wrong"})
    assert r.status_code == 401 and "not right" in r.text
    r = server.post("/ui/login", data={"token": TOKEN}, follow_redirects=False)
    assert r.status_code == 303
    cookie = r.cookies.get("unspin_session")
    assert cookie == session_value(TOKEN)
    set_cookie = r.headers["set-cookie"].lower()
    assert "httponly" in set_cookie and "samesite=strict" in set_cookie
    server.cookies.set("unspin_session", cookie)
    home = server.get("/")
    assert home.status_code == 200 and 'action="/ui/upload"' in home.text
    csp = home.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp
    r = server.post(
        "/ui/upload",
        files={"files": ("bridge.txt", ARTICLE.encode())},
        data={"text": COPY, "title": "Pasted copy", "id": "pasted"},
    )
    assert r.status_code == 200 and "Added 2 articles" in r.text
    # a post from another site is refused even with the cookie
    r = server.post(
        "/ui/upload", data={"text": ARTICLE}, headers={"Origin": "https://evil.example"}
    )
    assert r.status_code == 403
    story = server.get("/articles/pasted", headers=AUTH).json()["story"]
    for path in (
        f"/ui/stories/{story}",
        "/ui/pair?a=bridge&b=pasted",
        "/ui/articles/pasted",
        "/ui/relations?relation=copy&relation=duplicate&min_confidence=0.1",
        "/ui/quotes",
        "/ui/errors",
        "/?q=bridge",
    ):
        r = server.get(path)
        assert r.status_code == 200, (path, r.text[:300])
    assert server.get("/ui/stories/nope").status_code == 404
    r = server.post("/ui/delete", data={"id": "pasted"}, follow_redirects=False)
    assert r.status_code == 303
    assert server.get("/articles/pasted", headers=AUTH).status_code == 404
    r = server.post("/ui/logout", follow_redirects=False)
    assert r.status_code == 303


def test_pages_escape_hostile_articles(server):
    r = post(server, hostile_records())
    assert r.status_code == 201
    ids = r.json()["added"]
    assert HOSTILE_ID in ids
    from urllib.parse import quote

    story = server.get(f"/articles/{quote(HOSTILE_ID, safe='')}", headers=AUTH).json()["story"]
    pages = [
        f"/ui/articles/{quote(HOSTILE_ID, safe='')}",
        f"/ui/stories/{story}",
        f"/ui/pair?a={quote(ids[0], safe='')}&b={quote(ids[1], safe='')}",
        "/",
    ]
    for path in pages:
        html = server.get(path, headers=AUTH).text
        assert "<script>window.__pwned" not in html and "<img src=" not in html
        assert "onerror=" not in html.replace("onerror=&#34;", "").replace("onerror=&quot;", "")
        assert 'href="javascript:' not in html
        assert "&lt;script&gt;window.__pwned" in html
    assert HOSTILE_TITLE not in server.get(pages[0], headers=AUTH).text  # only escaped


# ------------------------------------------------------------------ the CLI


def test_cli_serve_creates_a_store_and_answers(tmp_path):
    port = free_port()
    store = tmp_path / "new-store"
    env = {**os.environ, "UNSPIN_TOKEN": TOKEN}
    cmd = [
        str(REPO / ".venv/bin/unspin"),
        "serve",
        "--store",
        str(store),
        "--port",
        str(port),
        "--embedder",
        "hashing",
    ]
    if not Path(cmd[0]).exists():
        cmd[0:1] = [sys.executable, "-m", "unspin"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)
        assert (store / "manifest.json").is_file()
        r = httpx.post(base + "/articles", json={"id": "one", "text": ARTICLE}, headers=AUTH)
        assert r.status_code == 201
        assert httpx.get(base + "/articles/one").status_code == 401
    finally:
        proc.terminate()
        out, _ = proc.communicate(timeout=30)
    assert b"serving" in out


def test_cli_serve_refuses_bad_options(tmp_path, capsys):
    from unspin.cli import main

    (tmp_path / "x.txt").write_text("not a store")
    assert main(["serve", "--store", str(tmp_path), "--token", "t", "--embedder", "hashing"]) == 2
    assert "not an unspin results folder" in capsys.readouterr().err
    assert main(["serve", "--port", "0", "--token", "t", "--store", str(tmp_path / "n")]) == 2


def test_a_multipart_body_is_read_in_memory_or_a_private_temp_dir(monkeypatch, tmp_path):
    """Uploaded bytes go to files the service names in a folder it makes (mode 0700)."""
    import tempfile

    made: list[str] = []
    real = tempfile.TemporaryDirectory

    class Spy(real):  # type: ignore[misc, valid-type]
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self.name)
            assert oct(os.stat(self.name).st_mode & 0o777) == "0o700"

    monkeypatch.setattr(tempfile, "TemporaryDirectory", Spy)
    files = [("../../../../tmp/evil.txt", ARTICLE.encode())]
    arts, _ = read_uploads(files, [], unspin.ingest.IngestOptions())
    assert [a.id for a in arts] == ["evil"] and made and not Path(made[0]).exists()
    assert not Path("/tmp/evil.txt").exists() or Path("/tmp/evil.txt").read_text() != ARTICLE


def test_story_and_relation_pages_are_paged(tmp_path, monkeypatch):
    """The list pages show ``PAGE`` rows from the request's offset, with the pager's
    counts and links; a bad offset is a clear 422."""
    import unspin.service as service_mod

    monkeypatch.setattr(service_mod, "PAGE", 1)
    other = (
        "Harbour ferry fares to rise in spring\n\n"
        "Ferry fares across Kestrel harbour will rise by ten percent in March, the operator "
        "said on Friday, blaming fuel costs and a new safety rule for crews.\n"
    )
    with running_server(settings(tmp_path / "store", public_read=True)) as base:
        with httpx.Client(base_url=base, timeout=120) as client:
            arts = [
                {"id": "bridge", "text": ARTICLE},
                {"id": "copy", "text": COPY},
                {"id": "copy2", "text": COPY.replace("Petra Lind", "Petra Lindqvist")},
                {"id": "ferry", "text": other},
            ]
            assert post(client, arts).status_code == 201
            n_stories = client.get("/stories", headers=AUTH).json()["total"]
            assert n_stories >= 2
            first, second = client.get("/"), client.get("/?offset=1")
            assert first.status_code == second.status_code == 200
            assert f"1–1 of {n_stories}" in first.text and "Previous" not in first.text
            assert f"2–2 of {n_stories}" in second.text and 'href="/?offset=0' in second.text
            assert 'href="/?offset=1' in first.text
            # each page lists its own story
            story_link = r'href="/ui/stories/([^"?]+)"'
            links = [set(re.findall(story_link, r.text)) for r in (first, second)]
            assert len(links[0]) == len(links[1]) == 1 and links[0] != links[1]
            rels = client.get("/ui/relations")
            assert rels.status_code == 200 and "1–1 of " in rels.text
            later = client.get("/ui/relations?offset=1")
            assert "2–2 of " in later.text and 'href="/ui/relations?offset=0' in later.text
            assert client.get("/?offset=x").status_code == 422


def test_the_writers_first_job_recomputes_the_stored_pile_once(tmp_path):
    """With ``warm_add`` (the default) the writer's first job is an add of no article:
    the tables stay as they were, and what the next add reads back (stored results of
    the pile's pairs and articles) is in the process already; without it no job runs."""
    import unspin.store as us
    from unspin.model import Article
    from unspin.service import Job, Service

    out = tmp_path / "store"
    arts = [Article("a", ARTICLE), Article("b", COPY), Article("c", "Rain fell all day in town.")]
    unspin.scan(arts, out=out, config=FAST)
    before = read_tables(out)
    quiet = Service(settings(out, warm_add=False))
    generation = quiet.snapshot.generation
    quiet.start()
    quiet.stop()  # every job queued before the stop has run
    assert quiet.snapshot.generation == generation
    svc = Service(settings(out))
    assert svc.settings.warm_add
    generation = svc.snapshot.generation
    kept = us._MEMO_KEPT.get(str((out / ".unspin").resolve()), {})
    kept.clear()
    svc.start()
    try:
        done = Job("remove", ids=["c"])
        svc.submit(done).result(timeout=300)  # queued behind the warm job
    finally:
        svc.stop()
        us.keep_memo_values(False)
    assert svc.snapshot.generation == generation + 2  # the warm add, then the removal
    after = read_tables(out)
    assert after["relations"] == [r for r in before["relations"] if "c" not in (r["a"], r["b"])]


def test_a_warm_add_reads_the_piles_stored_pair_results(tmp_path):
    import unspin.store as us
    from unspin.model import Article
    from unspin.service import Job, Service

    out = tmp_path / "store"
    arts = [Article("a", ARTICLE), Article("b", COPY), Article("c", "Rain fell all day in town.")]
    unspin.scan(arts, out=out, config=FAST)
    before = read_tables(out)
    svc = Service(settings(out))
    try:
        where = str((out / ".unspin").resolve())
        us._MEMO_KEPT.pop(where, None)
        svc._warm(Job("warm"))
        assert any(kind == "pair" for kind, _ in us._MEMO_KEPT.get(where, {}))
        assert read_tables(out) == before
    finally:
        us.keep_memo_values(False)
