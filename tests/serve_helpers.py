"""Helpers for the report, service and browser tests: hostile articles, a results folder
of the bundled examples, and a real server on 127.0.0.1 in a background thread."""

from __future__ import annotations

import atexit
import json
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import unspin
from unspin.pipeline import Config

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "articles"
FAST = Config(embedder="hashing")
TOKEN = "test-token-1234"
#: launch flags for a headless Chromium in a container (see the README); the browser
#: tests and bench/report_scale.py both use them
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: markup and script in every field an input controls; none of it may run or load
SCRIPT = '<script>window.__pwned = "script"; alert("script")</script>'
IMG = '<img src="http://127.0.0.1:9/pixel.png" onerror="window.__pwned=\'img\'; alert(1)">'
SVG = '<svg onload="window.__pwned=\'svg\'"><circle r="5"/></svg>'
IFRAME = '<iframe src="javascript:alert(2)"></iframe>'
LINK = '<a href="javascript:alert(3)">click me</a>'
HOSTILE_TITLE = f"Harbour fire {SCRIPT} {IMG}"
HOSTILE_OUTLET = f"Evil Gazette {SVG} {LINK}"
HOSTILE_URL = "javascript:alert(document.cookie)"
HOSTILE_ID = 'x"><script>window.__pwned="id"</script>'
_BODY = (
    "A fire broke out at the old harbour warehouse on Tuesday night, the fire service said. "
    f"{IMG} Crews from three stations fought the blaze for six hours. "
    f'The chief officer, Marta Ilves, said: "We saved the boats and nobody was hurt." {SCRIPT}\n\n'
    f"The warehouse stored fishing nets and old sails. {IFRAME} Police have opened an "
    f"inquiry into the cause of the fire. {LINK} Residents were told to keep windows shut "
    "because of the smoke, which could be seen across the bay until dawn.\n\n"
    f"{SVG} The harbour master said the quay would reopen on Thursday after checks."
)


def hostile_records() -> list[dict]:
    """Two articles (one a copy of the other, with a quotation altered) whose text,
    title, outlet, url and id hold script, event handlers and javascript: links."""
    copy = _BODY.replace("nobody was hurt", "nobody got hurt").replace(
        "Police have opened", "Officers opened"
    )
    return [
        {
            "id": HOSTILE_ID,
            "title": HOSTILE_TITLE,
            "outlet": HOSTILE_OUTLET,
            "url": HOSTILE_URL,
            "published_at": "2025-03-04T08:00:00Z",
            "text": HOSTILE_TITLE + "\n\n" + _BODY,
        },
        {
            "id": "copy-<b>bold</b>",
            "title": "Copied: " + HOSTILE_TITLE,
            "outlet": "Copycat Daily",
            "url": "https://example.org/copy",
            "published_at": "2025-03-04T12:00:00Z",
            "text": "Copied: " + HOSTILE_TITLE + "\n\n" + copy,
        },
    ]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    return path


def scan_examples(out: Path, config: Config = FAST) -> unspin.Result:
    return unspin.scan([EXAMPLES], out=out, config=config)


_EXAMPLES_RESULTS: list[Path] = []


def examples_results() -> Path:
    """The bundled examples scanned once per test run with the default (real) embedder,
    as `make demo` does: its directions and changes are what the report must show.
    Read-only for the tests that share it."""
    if not _EXAMPLES_RESULTS:
        tmp = Path(tempfile.mkdtemp(prefix="unspin-examples-"))
        atexit.register(shutil.rmtree, tmp, True)
        scan_examples(tmp / "res", Config())
        _EXAMPLES_RESULTS.append(tmp / "res")
    return _EXAMPLES_RESULTS[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(settings) -> Iterator[str]:
    """A real uvicorn server on 127.0.0.1 (in a thread) for the app of ``settings``;
    yields its base URL and stops it afterwards."""
    import uvicorn

    from unspin.service import create_app

    app = create_app(settings)
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
