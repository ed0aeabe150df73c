"""End-to-end tests in a real headless Chromium (Debian's, driven by Playwright's Python
package): the service's pages as a person uses them, the static report opened from disk
with and without JavaScript, and hostile articles that must run nothing.

Screenshots are kept under tmp/artefacts/ in the repository (not committed); the path
is printed. Skipped, saying why, when Playwright or Chromium is missing (`make test`
installs both where it can).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from serve_helpers import (
    CHROMIUM_FLAGS,
    EXAMPLES,
    FAST,
    HOSTILE_ID,
    HOSTILE_TITLE,
    REPO,
    TOKEN,
    examples_results,
    hostile_records,
    running_server,
    write_jsonl,
)

import unspin
from unspin.pipeline import Config
from unspin.report import ReportData, filter_stories, write_report
from unspin.service import Settings

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARTEFACTS = REPO / "tmp" / "artefacts"
#: milliseconds to wait for an upload (the seeds with the real embedder)
UPLOAD_TIMEOUT = 300_000


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright's Python package is not installed"
    )
    path = CHROMIUM if CHROMIUM.exists() else shutil.which("chromium")
    if not path:
        pytest.skip(
            "no Chromium at /usr/bin/chromium (Debian package chromium; `make test` "
            "installs it when run as root)"
        )
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(path), args=CHROMIUM_FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def artefacts() -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    print(f"\nbrowser test artefacts (screenshots): {ARTEFACTS}")
    return ARTEFACTS


class Watch:
    """Dialogs, requests and script errors seen by a page."""

    def __init__(self, page) -> None:
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)


def new_page(browser, js: bool = True):
    ctx = browser.new_context(java_script_enabled=js, viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    return ctx, page, Watch(page)


def log_in(page, base: str) -> None:
    page.goto(base + "/")
    assert page.url.endswith("/ui/login")
    page.get_by_label("Token").fill(TOKEN)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(base + "/")


# ------------------------------------------------------------------ the service


@pytest.mark.shared
@pytest.mark.slow
def test_seed_articles_through_the_upload_form(browser, shared, tmp_path, artefacts):
    """Upload the five seed articles through the form; open the story: 001 -> 000 and the
    New York Post as an unseen source; open that pair: the altered Hogan quotation is
    highlighted."""
    seeds = sorted((shared / "seeds").glob("*.txt"))
    assert len(seeds) == 5
    with running_server(Settings(store=tmp_path / "store", token=TOKEN, config=Config())) as base:
        ctx, page, watch = new_page(browser)
        log_in(page, base)
        page.locator(".upload input[type=file]").set_input_files([str(p) for p in seeds])
        page.get_by_role("button", name="Add to the store").click()
        page.get_by_role("heading", name="Added 5 articles").wait_for(timeout=UPLOAD_TIMEOUT)
        # open the story of 001 from the upload's answer
        item = page.locator(".added-list li", has_text="001_")
        item.get_by_role("link").nth(1).click()
        graph = page.locator("svg.graph")
        graph.wait_for()
        page.screenshot(path=str(artefacts / "seeds-story.png"), full_page=True)
        edge = graph.locator('g.edge.directed[data-relation="spun"]')
        assert edge.count() == 1
        assert edge.get_attribute("data-source").startswith("001_")
        assert edge.get_attribute("data-derivative").startswith("000_")
        assert edge.locator("path").get_attribute("marker-end")  # drawn with an arrow
        unseen = graph.locator("g.node.unseen")
        assert unseen.count() == 1 and "New York Post" in unseen.text_content()
        rect = unseen.locator("rect")
        assert rect.evaluate("r => getComputedStyle(r).fill") == "none"  # outlined
        assert rect.evaluate("r => getComputedStyle(r).strokeDasharray") not in ("", "none")
        # the unseen source sits above the articles it feeds
        y = lambda loc: float(loc.locator("rect").get_attribute("y"))  # noqa: E731
        article = graph.locator('g.node.article[data-id^="001_"]')
        assert y(unseen) < y(article)
        # open the pair side by side from the edge's label
        graph.locator("a.edge-label", has_text="spun").click()
        page.wait_for_url(re.compile(r"/ui/pair\?"))
        right = page.locator(".col-R")
        assert (
            right.locator("h3")
            .text_content()
            .strip()
            .endswith(tuple(p.stem for p in seeds if p.name.startswith("000_")))
        )
        hogan = right.locator("mark.chg", has_text="Hogan")
        assert hogan.count() >= 1
        hogan.first.scroll_into_view_if_needed()
        assert hogan.first.is_visible()
        bg = hogan.first.evaluate("m => getComputedStyle(m).backgroundColor")
        assert bg not in ("rgba(0, 0, 0, 0)", "transparent", "rgb(255, 255, 255)")
        line = page.locator("li.change[data-kind=quote_altered]", has_text="Hogan")
        assert line.count() == 1 and "Homan" in line.text_content()
        n = line.get_attribute("id").rsplit("-c", 1)[1]
        # the whole quotation is marked on both sides, each wording where it stands
        for col, name in ((".col-R", "Hogan"), (".col-L", "Homan")):
            marked = page.locator(f"{col} mark.chg").evaluate_all(
                "(ms, n) => ms.filter(m => m.dataset.c.split(' ').includes(n)).map(m =>"
                " Array.from(m.childNodes).filter(c => c.nodeType === 3)"  # not the badges
                ".map(c => c.textContent).join('')).join('')",
                n,
            )
            assert marked.startswith(name) and "wait" in marked and "January" in marked
        page.screenshot(path=str(artefacts / "seeds-pair.png"), full_page=False)
        hogan.first.screenshot(path=str(artefacts / "seeds-hogan.png"))
        assert not watch.dialogs and not watch.errors
        ctx.close()


def _pair_index(page) -> str:
    return page.locator(".pairview").get_attribute("data-pair")


def test_paste_and_drop_in_the_upload_form(browser, tmp_path):
    """A pasted article and a dropped file, through the form, as a person would."""
    with running_server(Settings(store=tmp_path / "store", token=TOKEN, config=FAST)) as base:
        ctx, page, watch = new_page(browser)
        log_in(page, base)
        dropped = (EXAMPLES / "gazette-ferry-strike.txt").read_text(encoding="utf-8")
        page.locator(".drop").evaluate(
            """(zone, text) => {
                const dt = new DataTransfer();
                dt.items.add(new File([text], "dropped-story.txt", {type: "text/plain"}));
                zone.dispatchEvent(new DragEvent("drop", {dataTransfer: dt, bubbles: true}));
            }""",
            dropped,
        )
        assert "1 file(s) ready" in page.locator(".drop .picked").text_content()
        page.get_by_label("Title", exact=True).fill("Pasted ferry report")
        page.get_by_label("Outlet", exact=True).fill("Pasted Post")
        page.get_by_label("Text", exact=True).fill(
            (EXAMPLES / "coastline-ferry-strike-wire.txt").read_text(encoding="utf-8")
        )
        page.get_by_role("button", name="Add to the store").click()
        page.get_by_role("heading", name="Added 2 articles").wait_for(timeout=UPLOAD_TIMEOUT)
        items = page.locator(".added-list li")
        assert items.count() == 2
        assert page.locator(".added-list li", has_text="dropped-story").count() == 1
        assert page.locator(".added-list li", has_text="Pasted ferry report").count() == 1
        page.locator(".added-list li", has_text="dropped-story").get_by_role("link").first.click()
        page.wait_for_url(re.compile(r"/ui/articles/dropped-story$"))
        assert page.locator(".article-text").inner_text().strip() == dropped.strip()
        assert page.locator("table.relations tr.rel-row").count() == 1
        assert not watch.errors and not watch.dialogs
        ctx.close()


def test_hostile_articles_run_nothing_in_the_service(browser, tmp_path, artefacts):
    cfg = Settings(store=tmp_path / "store", token=TOKEN, config=FAST)
    with running_server(cfg) as base:
        import httpx

        r = httpx.post(
            base + "/articles",
            json=hostile_records(),
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=120,
        )
        assert r.status_code == 201
        ctx, page, watch = new_page(browser)
        log_in(page, base)
        page.goto(base + "/")
        page.locator(".story-row a.label").first.click()
        page.wait_for_url(re.compile(r"/ui/stories/"))
        page.locator("a.open").first.click()  # the pair, side by side
        page.wait_for_url(re.compile(r"/ui/pair\?"))
        assert page.get_by_text("<script>window.__pwned", exact=False).count() >= 2
        page.get_by_role("link", name=HOSTILE_ID).first.click()  # the article page
        page.wait_for_url(re.compile(r"/ui/articles/"))
        page.get_by_text(HOSTILE_TITLE).first.wait_for()
        page.screenshot(path=str(artefacts / "hostile-service.png"))
        assert page.evaluate("window.__pwned") is None
        assert not watch.dialogs, watch.dialogs
        assert all(u.startswith(base) for u in watch.requests), watch.requests
        assert not watch.errors, watch.errors
        ctx.close()


# ------------------------------------------------------------------ the static report


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> tuple[Path, ReportData]:
    data = ReportData.from_results(examples_results())
    path = write_report(data, tmp_path_factory.mktemp("report") / "report.html")
    return path, data


def _spun(data: ReportData) -> int:
    return next(i for i, r in enumerate(data.relations) if r["relation"] == "spun" and r["source"])


def test_static_report_from_disk(browser, report, artefacts):
    path, data = report
    ctx, page, watch = new_page(browser)
    page.goto(path.as_uri())
    rows = page.locator("#story-list > li.story-row")
    assert rows.count() == len(data.stories)
    assert page.locator("#stories").is_visible()
    # filters: relation type and minimum confidence; search over titles
    for box in page.locator("input[name=relation]").all():
        if box.get_attribute("value") != "spun":
            box.uncheck()
    want = len(filter_stories(data, types=["spun"]))
    assert 0 < want < len(data.stories)
    assert page.locator("#story-list > li.story-row:visible").count() == want
    page.locator("input[name=min_confidence]").fill("0.99")
    assert page.locator("#story-list > li.story-row:visible").count() == len(
        filter_stories(data, types=["spun"], min_conf=0.99)
    )
    page.locator("input[name=min_confidence]").fill("0")
    for box in page.locator("input[name=relation]").all():
        box.check()
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("/")  # "/" jumps to the search box
    assert page.evaluate("document.activeElement.name") == "q"
    page.keyboard.type("roof")
    visible = page.locator("#story-list > li.story-row:visible")
    assert visible.count() == len(filter_stories(data, q="roof")) == 1
    page.locator("input[name=q]").fill("")
    # open the story with the spun pair, by keyboard
    i = _spun(data)
    rel = data.relations[i]
    story = data.story(data.story_of[rel["source"]])
    link = page.locator(f'#story-list a[href="#story-{story.index}"]')
    link.focus()
    page.keyboard.press("Enter")
    view = page.locator(f"#story-{story.index}")
    view.wait_for(state="visible", timeout=15_000)  # a loaded machine renders slowly
    assert view.is_visible() and not page.locator("#stories").is_visible()
    graph = view.locator("svg.graph")
    edge = graph.locator(
        f'g.edge[data-source="{rel["source"]}"][data-derivative="{rel["derivative"]}"]'
    )
    assert edge.count() == 1 and "directed" in edge.get_attribute("class")
    undecided = graph.locator("g.edge.undecided")
    assert undecided.count() == sum(
        1 for e in data.lineage[story.id]["edges"] if not e.get("directed", True)
    )
    if undecided.count():
        dash = undecided.first.locator("path").evaluate("p => getComputedStyle(p).strokeDasharray")
        assert dash not in ("", "none")
        assert undecided.first.locator("path").get_attribute("marker-end") is None
    page.screenshot(path=str(artefacts / "report-story.png"), full_page=True)
    # its side-by-side view
    view.locator(f'a.open[href="#pair-{i}"]').click()
    pair = page.locator(f"#pair-{i}")
    pair.wait_for(state="visible", timeout=15_000)
    assert pair.is_visible()
    changes = data.pair_changes(rel)
    assert pair.locator("li.change").count() == len(changes)
    assert pair.locator(".col-L mark.chg").count() >= 1
    assert pair.locator(".col-R mark.chg").count() >= 1
    # passages are linked: hovering one lights its counterpart
    seg = pair.locator(".col-L .seg.p").first
    n = seg.get_attribute("data-p")
    seg.hover()
    assert pair.locator(f'.col-R .seg.hl[data-p="{n}"]').count() >= 1
    # a change's number jumps to its line
    pair.locator(".col-R a.cbadge").first.click()
    assert pair.locator("li.change:target").count() == 1
    page.screenshot(path=str(artefacts / "report-pair.png"))
    assert page.evaluate("document.querySelectorAll('.seg.un').length") > 0  # unaligned text
    # printing: the current view only, no navigation or filters, changes still marked
    page.emulate_media(media="print")
    assert pair.is_visible() and not page.locator("header nav").is_visible()
    assert not page.locator("#filters").is_visible() and not page.locator("#stories").is_visible()
    assert (
        pair.locator("mark.chg").first.evaluate("m => getComputedStyle(m).textDecorationLine")
        == "underline"
    )
    page.pdf(path=str(artefacts / "report-pair-print.pdf"))
    page.emulate_media(media="screen")
    assert not watch.errors, watch.errors
    assert set(watch.requests) <= {path.as_uri(), path.as_uri() + f"#pair-{i}"} | {
        u for u in watch.requests if u.startswith(path.as_uri() + "#")
    }
    ctx.close()


#: budgets that keep every story, side-by-side and quotation view as data for the script
NO_HTML_VIEWS = {"static_pair_budget": 0, "static_story_budget": 0, "static_quote_budget": 0}

#: what a view reads as and links to, compared between the template's and the script's
VIEW_SCRIPT = """v => ({
    text: v.innerText.replace(/\\s+/g, " ").trim(),
    marks: Array.from(v.querySelectorAll("mark.chg")).map(m => [m.id, m.dataset.c, m.title]),
    segs: Array.from(v.querySelectorAll(".seg")).map(s => [s.className, s.id, s.dataset.p]),
    links: Array.from(v.querySelectorAll("a")).map(a => a.getAttribute("href")),
    changes: Array.from(v.querySelectorAll("li.change")).map(l => [l.id, l.dataset.kind]),
    ids: Array.from(v.querySelectorAll("[id]")).map(e => e.id),
    svg: Array.from(v.querySelectorAll("svg *")).map(e => [e.tagName,
        Array.from(e.attributes).map(a => a.name + "=" + a.value).sort().join(" "),
        e.children.length ? "" : e.textContent]),
    rows: Array.from(v.querySelectorAll("tr.rel-row")).map(r => [r.dataset.rel, r.dataset.conf]),
})"""


def _views(browser, path: Path, frags: list[str], sel: str) -> list[dict]:
    ctx, page, watch = new_page(browser)
    page.goto(path.as_uri())
    views = []
    for frag in frags:
        page.evaluate(f"location.hash = '#{frag}'")
        view = page.locator(f"#{frag}")
        view.locator(sel).first.wait_for()
        views.append(view.evaluate(VIEW_SCRIPT))
    assert not watch.errors, watch.errors
    ctx.close()
    return views


def test_lazy_views_draw_the_same_view(browser, report, tmp_path):
    """A report over its size budgets draws story, side-by-side and quotation views by
    script from compact JSON: each reads the same as the template's view (texts, marks,
    lines, links, graph)."""
    path, data = report
    lazy = write_report(data, tmp_path / "lazy.html", **NO_HTML_VIEWS)
    assert '<section class="view pair"' not in lazy.read_text(encoding="utf-8")
    kinds = [
        ([f"pair-{i}" for i in range(len(data.relations))], ".pairview"),
        ([f"story-{s.index}" for s in data.stories], "h2"),
        ([f"quote-{i}" for i in range(len(data.quotes))], "blockquote"),
    ]
    for frags, sel in kinds:
        want, got = (_views(browser, p, frags, sel) for p in (path, lazy))
        for frag, a, b in zip(frags, want, got):
            assert a == b, frag
            assert a["text"], frag
    # a change's anchor in a view not drawn yet opens and draws that view
    ctx, page, watch = new_page(browser)
    i = _spun(data)
    page.goto(lazy.as_uri() + f"#v{i}-c1")
    page.locator(f"#v{i}-c1").wait_for()
    assert page.locator(f"#pair-{i}").is_visible()
    assert page.locator(f"#v{i}-c1").is_visible()
    # so does an article's row, in its story's view
    aid = data.relations[i]["source"]
    k = list(data.articles).index(aid)
    page.goto(lazy.as_uri() + f"#article-{k}")
    page.locator(f"#article-{k}").wait_for()
    story = data.story(data.story_of[aid])
    assert page.locator(f"#story-{story.index}").is_visible()
    assert not watch.errors, watch.errors
    ctx.close()


@pytest.mark.shared
def test_lazy_side_by_side_of_the_seeds_highlights_the_hogan_quotation(
    browser, shared, tmp_path, artefacts
):
    """The seeds' report with every view kept as data: the story and the 001 -> 000 pair
    are drawn by script when opened, and the altered Hogan quotation is highlighted in
    place with its line."""
    seeds = sorted((shared / "seeds").glob("*.txt"))
    assert len(seeds) == 5
    out = tmp_path / "res"
    unspin.scan([str(p) for p in seeds], out=out, config=FAST)
    data = ReportData.from_results(out)
    path = write_report(data, tmp_path / "seeds.html", **NO_HTML_VIEWS)
    html = path.read_text(encoding="utf-8")
    assert '<section class="view pair"' not in html and 'data-c="' not in html
    i = next(
        k
        for k, r in enumerate(data.relations)
        if (r["source"] or "").startswith("001_") and (r["derivative"] or "").startswith("000_")
    )
    story = data.story(data.story_of[data.relations[i]["source"]])
    ctx, page, watch = new_page(browser)
    page.goto(path.as_uri())
    link = page.locator(f'#story-list a[href="#story-{story.index}"]')
    link.focus()
    page.keyboard.press("Enter")  # keyboard-usable: a drawn view opens from a link
    graph = page.locator(f"#story-{story.index} svg.graph")
    graph.wait_for()
    edge = graph.locator('g.edge.directed[data-source^="001_"][data-derivative^="000_"]')
    assert edge.count() == 1
    unseen = graph.locator("g.node.unseen")
    assert unseen.count() == 1 and "New York Post" in unseen.text_content()
    graph.locator(f'a.edge-label[href="#pair-{i}"]').click()
    pair = page.locator(f"#pair-{i}")
    pair.locator(".col-R .text").wait_for()
    assert pair.is_visible()
    hogan = pair.locator(".col-R mark.chg", has_text="Hogan")
    assert hogan.count() >= 1
    hogan.first.scroll_into_view_if_needed()
    assert hogan.first.is_visible()
    bg = hogan.first.evaluate("m => getComputedStyle(m).backgroundColor")
    assert bg not in ("rgba(0, 0, 0, 0)", "transparent", "rgb(255, 255, 255)")
    line = pair.locator("li.change[data-kind=quote_altered]", has_text="Hogan")
    assert line.count() == 1 and "Homan" in line.text_content()
    n = line.get_attribute("id").rsplit("-c", 1)[1]
    for col, name in ((".col-R", "Hogan"), (".col-L", "Homan")):
        marked = pair.locator(f"{col} mark.chg").evaluate_all(
            "(ms, n) => ms.filter(m => m.dataset.c.split(' ').includes(n)).map(m =>"
            " Array.from(m.childNodes).filter(c => c.nodeType === 3)"
            ".map(c => c.textContent).join('')).join('')",
            n,
        )
        assert marked.startswith(name) and "wait" in marked and "January" in marked
    hogan.first.screenshot(path=str(artefacts / "report-lazy-seeds-hogan.png"))
    # printing a drawn view: it alone, changes still marked
    page.emulate_media(media="print")
    assert pair.is_visible() and not page.locator("#stories").is_visible()
    assert hogan.first.evaluate("m => getComputedStyle(m).textDecorationLine") == "underline"
    page.emulate_media(media="screen")
    assert not watch.dialogs and not watch.errors, watch.errors
    ctx.close()


def test_static_report_reads_without_javascript(browser, report, artefacts):
    path, data = report
    ctx, page, watch = new_page(browser, js=False)
    page.goto(path.as_uri())
    assert page.locator("#stories").is_visible()
    assert page.locator("#story-list > li.story-row:visible").count() == len(data.stories)
    assert page.locator("#filters").is_hidden()  # filters need script: said so
    assert page.get_by_text("Script is off").is_visible()
    i = _spun(data)
    rel = data.relations[i]
    story = data.story(data.story_of[rel["source"]])
    page.locator(f'#story-list a[href="#story-{story.index}"]').click()
    assert page.locator(f"#story-{story.index}").is_visible()
    assert not page.locator("#stories").is_visible()
    assert page.locator(f"#story-{story.index} svg.graph g.node").count() >= 2
    page.locator(f'#story-{story.index} a.open[href="#pair-{i}"]').click()
    pair = page.locator(f"#pair-{i}")
    assert pair.is_visible() and not page.locator(f"#story-{story.index}").is_visible()
    mark = pair.locator(".col-R mark.chg").first
    assert mark.is_visible() and mark.inner_text().strip()
    assert pair.locator(".col-L .text").inner_text().strip()
    page.screenshot(path=str(artefacts / "report-pair-nojs.png"))
    # a change's anchor shows its view too (the view holds the target)
    page.goto(path.as_uri() + f"#v{i}-c1")
    assert pair.is_visible()
    page.goto(path.as_uri() + "#quotes")
    assert page.locator("#quotes article.quote").count() == len(data.quotes)
    page.goto(path.as_uri() + "#errors")
    assert page.locator("#errors").is_visible()
    assert not watch.errors
    ctx.close()


def test_large_report_reads_without_javascript(browser, report, tmp_path, artefacts):
    """With every view kept as data and script off: the story list and the list of all
    relations read as HTML, and links to views that need script say so."""
    _, data = report
    path = write_report(data, tmp_path / "lazy.html", **NO_HTML_VIEWS)
    ctx, page, watch = new_page(browser, js=False)
    page.goto(path.as_uri())
    rows = page.locator("#story-list > li.story-row:visible")
    assert rows.count() == len(data.stories)
    label = rows.first.locator("a.label")
    assert label.evaluate("a => getComputedStyle(a, '::after').content") == '" (needs script)"'
    assert page.get_by_text("This report is large").is_visible()
    page.get_by_role("link", name="All relations").click()
    table = page.locator("#relations table.all")
    assert table.is_visible()
    assert table.locator("tbody tr:has(td)").count() == len(data.relations)
    i = _spun(data)
    rel = data.relations[i]
    row = table.locator("tr", has_text=f"{rel['source']} → {rel['derivative']}")
    assert row.count() == 1 and row.first.is_visible() and "spun" in row.first.inner_text()
    page.screenshot(path=str(artefacts / "report-large-nojs.png"))
    assert not watch.errors
    ctx.close()


def test_hostile_articles_run_nothing_in_the_report(browser, tmp_path, artefacts):
    src = write_jsonl(tmp_path / "hostile.jsonl", hostile_records())
    out = tmp_path / "res"
    unspin.scan([src], out=out, config=FAST)
    data = ReportData.from_results(out)
    assert data.relations
    for budget in (10**9, 0):  # views written out, and views drawn by script
        budgets = {k: budget for k in NO_HTML_VIEWS}
        path = write_report(data, tmp_path / f"r{budget}.html", **budgets)
        ctx, page, watch = new_page(browser)
        page.goto(path.as_uri())
        page.locator("#story-list a.label").first.click()
        page.locator("a.open").first.click()
        pair = page.locator(".view.pair.current")
        # texts filled by script appear a moment later on a loaded machine
        pair.get_by_text("<script>window.__pwned", exact=False).first.wait_for(timeout=15_000)
        assert pair.get_by_text("<script>window.__pwned", exact=False).count() >= 1
        assert pair.get_by_text("onerror=", exact=False).count() >= 1
        page.screenshot(path=str(artefacts / f"hostile-report-{min(budget, 1)}.png"))
        for frag in ("#quotes", "#errors", "#stories"):
            page.goto(path.as_uri() + frag)
        assert page.evaluate("window.__pwned") is None
        assert not watch.dialogs, watch.dialogs
        assert all(u.startswith(path.as_uri()) for u in watch.requests), watch.requests
        assert not watch.errors, watch.errors
        ctx.close()
