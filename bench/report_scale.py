"""The HTML report at scale: file size, time to write it, and how fast it is usable in
Chromium.

Usage:
  .venv/bin/python bench/report_scale.py RESULTS [--html OUT.html] [--no-browser]
  .venv/bin/python bench/report_scale.py --synthetic 10000 --examples RESULTS [...]

RESULTS is a results folder (e.g. all of Reuters-21578, made with
`.venv/bin/python bench/corpus_files.py reuters /tmp/reuters.jsonl` and
`.venv/bin/unspin scan /tmp/reuters.jsonl --embedder hashing --out /tmp/reu-hash`).
``--synthetic N``: the tables of ``--examples`` (the bundled examples' results, e.g.
``unspin scan examples/articles --out DIR``) repeated under new ids until N articles,
each copy with the same texts (:func:`repeated_tables`); the engine is not run.

To compare two checkouts in one run, run it with ``PYTHONPATH=OTHER/src`` for the other
(only ``ReportData`` and ``render_report`` are used, which both have).

Prints: articles, relations, stories; seconds to read the folder and to render; file size
and its parts (JSON blocks, the story list for script-off readers, views written out as
HTML); then, in Debian's Chromium (headless, JavaScript on): seconds from navigation to
the first story row painted, to the first row with the page's script run (filters and
search shown: "first usable"), to the load event, to filter the list by a
word, to open the largest story and a side-by-side view of a pair with changes; the
page's JS heap and element count.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from unspin.report import ReportData, render_report

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from serve_helpers import CHROMIUM_FLAGS  # noqa: E402  (the browser tests' launch flags)

#: milliseconds any one browser step may take before the run gives up
STEP_TIMEOUT = 900_000


def repeated_tables(
    tables: dict[str, list[dict]], texts: dict[str, str], n: int
) -> tuple[dict[str, list[dict]], dict[str, str]]:
    """The tables repeated ``n`` times, each copy under new article, story and quotation
    ids (``x00001-`` prefixed) wherever they appear (also inside reasons and change
    lines), with the same texts."""
    ids = [a["id"] for a in tables["articles"]]
    ids += [s["id"] for s in tables["stories"]] + [q["id"] for q in tables["quotes"]]
    ids = sorted(set(ids), key=len, reverse=True)
    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w-])")
    blob = json.dumps(tables, ensure_ascii=False)
    out: dict[str, list[dict]] = {k: [] for k in tables}
    out_texts: dict[str, str] = {}
    for i in range(n):
        prefix = f"x{i:05d}-"
        copy = json.loads(pattern.sub(lambda m, pre=prefix: pre + m.group(1), blob))
        for k, rows in copy.items():
            out[k].extend(rows)
        for aid, text in texts.items():
            out_texts[prefix + aid] = text
    return out, out_texts


def load(args: argparse.Namespace) -> ReportData:
    if not args.synthetic:
        return ReportData.from_results(args.results)
    from unspin.output import read_tables
    from unspin.report import stored_texts

    base = read_tables(args.examples)
    copies = -(-args.synthetic // len(base["articles"]))
    tables, texts = repeated_tables(base, stored_texts(args.examples), copies)
    return ReportData(tables, texts)


def parts(html: str) -> dict[str, float]:
    """MB of the file's parts: each JSON block, the script-off story list, and the views
    written out as HTML (story, side by side)."""
    mb = lambda s: round(len(s.encode("utf-8", "surrogatepass")) / 1e6, 2)  # noqa: E731
    out: dict[str, float] = {}
    block = re.compile(r'<script type="application/json" id="([^"]+)"([^>]*)>(.*?)</script>', re.S)
    for m in block.finditer(html):
        out[f"json {m.group(1)}{' (deflated)' if 'data-packed' in m.group(2) else ''}"] = mb(
            m.group(3)
        )
    for k, m in enumerate(re.finditer(r"<noscript>(.*?)</noscript>", html, re.S)):
        out[("noscript story list", "noscript relation list")[min(k, 1)]] = mb(m.group(1))
    view = re.compile(r'<section class="view (story|pair)')
    starts = [(m.start(), m.group(1)) for m in view.finditer(html)]
    ends = [m.start() for m in re.finditer(r"<section class=\"view |</main>", html)]
    for s, kind in starts:
        e = next(x for x in ends if x > s)
        out[f"{kind} views html"] = round(out.get(f"{kind} views html", 0) + mb(html[s:e]), 2)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results", nargs="?")
    ap.add_argument("--synthetic", type=int, default=0, help="N articles from --examples")
    ap.add_argument("--examples", help="results folder repeated by --synthetic")
    ap.add_argument("--html")
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    if bool(args.synthetic) == bool(args.results) or (args.synthetic and not args.examples):
        ap.error("give RESULTS, or --synthetic N with --examples RESULTS")
    t0 = time.perf_counter()
    data = load(args)
    t1 = time.perf_counter()
    html = render_report(data)
    t2 = time.perf_counter()
    path = Path(args.html or tempfile.mkdtemp(prefix="unspin-report-") + "/report.html")
    path.write_text(html, encoding="utf-8", errors="surrogatepass")
    out: dict[str, Any] = {
        "articles": len(data.articles),
        "relations": len(data.relations),
        "stories": len(data.stories),
        "quote_groups": len(data.quotes),
        "read_s": round(t1 - t0, 1),
        "render_s": round(t2 - t1, 1),
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "parts_mb": parts(html),
        "path": str(path),
    }
    print(json.dumps(out, indent=2), flush=True)
    if not args.no_browser:
        pair = _pair_with_changes(data, html)
        del html
        out["browser"] = browse(path, data, pair)
        print(json.dumps(out["browser"], indent=2))
    return 0


def _pair_with_changes(data: ReportData, html: str) -> int:
    """A pair with changes and both texts whose view is not written out as HTML (drawn
    by script), else the first pair with changes."""
    cands = [
        i
        for i, r in enumerate(data.relations)
        if data.pair_changes(r) and data.text(r["a"]) and data.text(r["b"])
    ] or [0]
    written = re.compile(r'<section class="view pair" id="pair-(\d+)"')
    inline = {int(m.group(1)) for m in written.finditer(html)}
    return next((i for i in cands if i not in inline), cands[0])


def browse(path: Path, data: ReportData, pair: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    res: dict[str, Any] = {}
    big = max(data.stories, key=lambda s: len(s.articles))
    rows = "#story-list > li.story-row"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_FLAGS)
        page = b.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(STEP_TIMEOUT)
        t = time.perf_counter()
        page.goto(path.as_uri(), wait_until="commit", timeout=STEP_TIMEOUT)
        page.locator(rows).first.wait_for(state="visible")
        res["first_row_painted_s"] = round(time.perf_counter() - t, 2)
        # usable: the rows are there and the page's script has run (it shows the filters
        # and search box; before that, links and filters do not work as they should)
        page.locator("#filters").wait_for(state="visible")
        res["first_usable_s"] = round(time.perf_counter() - t, 2)
        page.wait_for_load_state("load")
        res["load_event_s"] = round(time.perf_counter() - t, 2)
        res["story_rows_visible"] = page.locator(rows + ":visible").count()
        t = time.perf_counter()
        before = page.locator(".shown").text_content()
        page.locator("input[name=q]").fill("oil")
        page.wait_for_function(
            "b => document.querySelector('.shown').textContent !== b", arg=before
        )
        res["search_s"] = round(time.perf_counter() - t, 2)
        res["search_note"] = page.locator(".shown").text_content()
        page.locator("input[name=q]").fill("")
        t = time.perf_counter()
        page.evaluate(f"location.hash = '#story-{big.index}'")
        page.locator(f"#story-{big.index}").wait_for(state="visible")
        res["open_largest_story_s"] = round(time.perf_counter() - t, 2)
        res["largest_story_articles"] = len(big.articles)
        t = time.perf_counter()
        page.evaluate(f"location.hash = '#pair-{pair}'")
        page.locator(f"#pair-{pair} .text").first.wait_for(state="visible")
        res["open_pair_s"] = round(time.perf_counter() - t, 2)
        res["pair_marks"] = page.locator(f"#pair-{pair} mark.chg").count()
        res["pair_changes"] = len(data.pair_changes(data.relations[pair]))
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
