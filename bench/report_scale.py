"""The HTML report at scale: size and time to write it, and how it behaves in Chromium.

Usage: .venv/bin/python bench/report_scale.py RESULTS [--html OUT.html] [--no-browser]

RESULTS is a results folder (e.g. all of Reuters-21578, made with
`.venv/bin/python bench/corpus_files.py reuters /tmp/reuters.jsonl` and
`.venv/bin/unspin scan /tmp/reuters.jsonl --embedder hashing --out /tmp/reu-hash`).
Prints: articles, relations, stories; seconds to read the folder and to render; file size
and its parts (inline side-by-side views, lazy views, texts kept once); then, in Debian's
Chromium (headless, JavaScript on): time to load the file, to show the story list, to
filter it, to open a story and to open a side-by-side view filled by script; the page's
JS heap and DOM node count.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

from unspin.report import ReportData, render_report

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("--html")
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    data = ReportData.from_results(args.results)
    t1 = time.perf_counter()
    html = render_report(data)
    t2 = time.perf_counter()
    path = Path(args.html or tempfile.mkdtemp(prefix="unspin-report-") + "/report.html")
    path.write_text(html, encoding="utf-8")
    size = path.stat().st_size
    blob = re.search(r'<script type="application/json" id="pairs">(.*?)</script>', html, re.S)
    lazy_json = json.loads(blob.group(1)) if blob else {"texts": {}, "pairs": {}}
    lazy = html.count('class="view pair lazy"')
    out = {
        "articles": len(data.articles),
        "relations": len(data.relations),
        "stories": len(data.stories),
        "quote_groups": len(data.quotes),
        "read_s": round(t1 - t0, 1),
        "render_s": round(t2 - t1, 1),
        "file_mb": round(size / 1e6, 1),
        "lazy_json_mb": round(len(blob.group(1).encode()) / 1e6, 1) if blob else 0,
        "lazy_texts_mb": round(len(json.dumps(lazy_json["texts"]).encode()) / 1e6, 1),
        "pair_views_inline": len(data.relations) - lazy,
        "pair_views_lazy": lazy,
        "path": str(path),
    }
    print(json.dumps(out, indent=2), flush=True)
    if not args.no_browser:
        out["browser"] = browse(path, data)
        print(json.dumps(out["browser"], indent=2))
    return 0


def browse(path: Path, data: ReportData) -> dict:
    from playwright.sync_api import sync_playwright

    res: dict = {}
    lazy_pair = next(
        (
            i
            for i, r in enumerate(data.relations)
            if r["relation"] == "same_story" and data.text(r["a"]) and data.text(r["b"])
        ),
        0,
    )
    big = max(data.stories, key=lambda s: len(s.articles))
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=FLAGS)
        page = b.new_page(viewport={"width": 1400, "height": 1000})
        t = time.perf_counter()
        page.goto(path.as_uri(), wait_until="load", timeout=600_000)
        res["load_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        page.locator("#story-list > li.story-row").first.wait_for()
        res["story_list_visible_rows"] = page.locator("#story-list > li.story-row:visible").count()
        res["first_row_s"] = round(time.perf_counter() - t, 2)
        t = time.perf_counter()
        page.locator("input[name=q]").fill("oil")
        page.wait_for_timeout(50)
        res["search_s"] = round(time.perf_counter() - t, 2)
        res["search_note"] = page.locator(".shown").text_content()
        page.locator("input[name=q]").fill("")
        t = time.perf_counter()
        page.goto(path.as_uri() + f"#story-{big.index}")
        page.locator(f"#story-{big.index}").wait_for(state="visible")
        res["open_largest_story_s"] = round(time.perf_counter() - t, 2)
        res["largest_story_articles"] = len(big.articles)
        t = time.perf_counter()
        page.goto(path.as_uri() + f"#pair-{lazy_pair}")
        page.locator(f"#pair-{lazy_pair} .text").first.wait_for(state="visible")
        res["open_pair_s"] = round(time.perf_counter() - t, 2)
        res["pair_text_chars"] = len(page.locator(f"#pair-{lazy_pair} .text").first.inner_text())
        metrics = page.evaluate(
            "() => ({heap: performance.memory ? performance.memory.usedJSHeapSize : null,"
            " nodes: document.getElementsByTagName('*').length})"
        )
        res["js_heap_mb"] = round(metrics["heap"] / 1e6, 1) if metrics["heap"] else None
        res["dom_elements"] = metrics["nodes"]
        b.close()
    return res


if __name__ == "__main__":
    sys.exit(main())
