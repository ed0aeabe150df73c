"""The HTML report: view models (segments, side by side, lineage layout), escaping of
untrusted input, the page's CSP, lazy views, the CLI commands, and package data."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import lxml.html
import pytest
from serve_helpers import (
    EXAMPLES,
    FAST,
    HOSTILE_ID,
    HOSTILE_TITLE,
    REPO,
    examples_results,
    hostile_records,
    scan_examples,
    write_jsonl,
)

import unspin
from unspin.cli import main
from unspin.output import read_tables
from unspin.report import (
    ReportData,
    StaticLinks,
    environment,
    filter_stories,
    lineage_graph,
    pair_view,
    render_report,
    safe_url,
    segments,
    write_report,
)


@pytest.fixture(scope="module")
def examples() -> Path:
    return examples_results()


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("hostile")
    out = tmp / "res"
    unspin.scan([write_jsonl(tmp / "in.jsonl", hostile_records())], out=out, config=FAST)
    return out


# ------------------------------------------------------------------ segments


def test_segments_cut_at_every_boundary_and_merge_equal_neighbours():
    segs = segments(100, [(10, 50, 1, 9, False), (60, 90, 2, 4, True)], [(20, 30, 1, "high")])
    spans = [(s.start, s.end, s.passage, s.changes) for s in segs]
    assert spans == [
        (0, 10, None, ()),
        (10, 20, 1, ()),
        (20, 30, 1, (1,)),
        (30, 50, 1, ()),
        (50, 60, None, ()),
        (60, 90, 2, ()),
        (90, 100, None, ()),
    ]
    assert [s.first_of_passage for s in segs] == [False, True, False, False, False, True, False]
    assert segs[2].first_of_changes == (1,) and segs[2].severity == "high"
    assert segs[5].quote_only and segs[5].shade == 4
    # the pieces put back together are the whole text
    assert segs[0].start == 0 and segs[-1].end == 100
    assert all(a.end == b.start for a, b in zip(segs, segs[1:]))


def test_segments_nested_changes_and_clipping():
    segs = segments(50, [(0, 80, 1, 10, False)], [(5, 30, 1, "high"), (5, 10, 2, "medium")])
    assert [(s.start, s.end, s.changes, s.severity) for s in segs] == [
        (0, 5, (), None),
        (5, 10, (1, 2), "high"),
        (10, 30, (1,), "high"),
        (30, 50, (), None),
    ]
    assert segs[1].first_of_changes == (1, 2) and segs[2].first_of_changes == ()
    assert segments(0, [], []) == []


# ------------------------------------------------------------------ side by side


def test_pair_view_puts_the_source_left_and_marks_changes_on_both_sides(examples):
    data = ReportData.from_results(examples)
    directed = [i for i, r in enumerate(data.relations) if r["source"] and data.pair_changes(r)]
    assert directed, "the examples should have a directed relation with changes"
    for i in directed:
        pv = pair_view(data, i)
        rel = data.relations[i]
        assert (pv.left.id, pv.right.id) == (rel["source"], rel["derivative"])
        assert pv.directed and pv.left.role == "source"
        for c in data.pair_changes(rel):
            span = lambda v: tuple(v) if v else None  # noqa: E731
            cv = next(
                x
                for x in pv.changes
                if (x.kind, x.left, x.right)
                == (c["kind"], span(c["source_span"]), span(c["derivative_span"]))
            )
            if c["source_span"]:
                s, e = c["source_span"]
                assert pv.left.text[s:e] == c["source_text"]
                # the change is marked over exactly its span on the source side
                marked = "".join(
                    pv.left.text[g.start : g.end]
                    for g in pv.left.segments
                    if cv.number in g.changes
                )
                assert marked == c["source_text"]
            if c["derivative_span"]:
                s, e = c["derivative_span"]
                marked = "".join(
                    pv.right.text[g.start : g.end]
                    for g in pv.right.segments
                    if cv.number in g.changes
                )
                assert marked == pv.right.text[s:e] == c["derivative_text"]
        # every aligned passage is marked on both sides with its number
        for n, p in enumerate(rel["alignment"], 1):
            a_side = pv.left if pv.left.id == rel["a"] else pv.right
            got = [g for g in a_side.segments if g.passage == n]
            assert got and got[0].start == p["a_start"] and got[-1].end == p["a_end"]


def test_pair_view_of_an_undirected_pair_lists_differences(examples):
    data = ReportData.from_results(examples)
    undirected = [
        i
        for i, r in enumerate(data.relations)
        if r["relation"] in ("copy", "duplicate", "partial", "translation") and not r["source"]
    ]
    assert undirected
    pv = pair_view(data, undirected[0])
    assert not pv.directed and (pv.left.role, pv.right.role) == ("A", "B")
    assert pv.direction == "direction undecided"
    assert all(not c.description.startswith("direction unknown") for c in pv.changes)


# ------------------------------------------------------------------ lineage


def test_lineage_layout_sources_on_top_and_undecided_edges(examples):
    data = ReportData.from_results(examples)
    drawn = 0
    for s in data.stories:
        g = lineage_graph(data, s)
        lin = data.lineage.get(s.id, {"edges": []})
        if g is None:
            assert len(s.articles) == 1 and not lin["edges"]
            continue
        drawn += 1
        y = {n.id: n.y for n in g.nodes}
        for e in g.edges:
            if e.directed:
                assert y[e.source] < y[e.derivative], (e.source, e.derivative)
            assert e.label.startswith(e.relation)
            assert (" ?" in e.label) == (not e.directed)
        for n in g.nodes:
            if n.kind == "unseen_source":
                assert n.y == min(y.values())
        assert {(e.source, e.derivative) for e in g.edges} == {
            (e["source"], e["derivative"]) for e in lin["edges"]
        }
    assert drawn >= 2


def test_lineage_layout_survives_a_cycle_and_many_nodes():
    n = 90
    ids = [f"a{i:03d}" for i in range(n)]
    tables = {k: [] for k in ("articles", "relations", "changes", "quotes", "errors")}
    tables["articles"] = [{"id": i, "title": i, "n_chars": 1, "story": "s1"} for i in ids]
    tables["stories"] = [{"id": "s1", "label": "x", "articles": ids, "sources": ids}]
    edges = [
        {"source": "a000", "derivative": "a001", "relation": "copy", "confidence": 0.9},
        {"source": "a001", "derivative": "a002", "relation": "copy", "confidence": 0.9},
        {"source": "a002", "derivative": "a000", "relation": "copy", "confidence": 0.9},
    ]
    tables["lineage"] = [
        {"story": "s1", "nodes": [{"id": i, "kind": "article"} for i in ids], "edges": edges}
    ]
    data = ReportData(tables, {})
    g = lineage_graph(data, data.stories[0])
    assert {x.id for x in g.nodes} == {"a000", "a001", "a002"}
    assert len(g.left_out) == n - 3 and g.width > 0 and g.height > 0


# ------------------------------------------------------------------ the document


def test_story_infos_are_kept_for_unchanged_rows_and_built_again_for_changed_ones(examples):
    """A ReportData built with the previous one (``previous``, the service's snapshot
    after a write) keeps a story's StoryInfo while its row, its articles' rows and its
    relations' rows are the very rows it was built from, and builds it again when any of
    them is another row: the same stories as a fresh build either way."""
    tables = read_tables(examples)
    first = ReportData(tables, {})
    again = ReportData(tables, {}, previous=first)
    assert again.stories == first.stories
    assert all(x is y for x, y in zip(again.stories, first.stories))
    # one relation inside a story changes its confidence: a new row (as a re-read gives)
    multi = next(s for s in first.stories if first.story_relations(s))
    k = first.story_relations(multi)[0]
    changed = dict(tables["relations"][k], confidence=0.01)
    relations = [changed if i == k else r for i, r in enumerate(tables["relations"])]
    later = {**tables, "relations": relations}
    kept = ReportData(later, {}, previous=first)
    fresh = ReportData(later, {})
    assert kept.stories == fresh.stories
    moved = kept.stories[multi.index]
    assert moved is not multi and moved.best[changed["relation"]] == max(
        r["confidence"]
        for r in (relations[i] for i in fresh.story_relations(moved))
        if r["relation"] == changed["relation"]
    )
    others = [s for s in first.stories if s.index != multi.index]
    assert all(kept.stories[s.index] is s for s in others)
    # stories moved down the list by one keep their infos under their new index
    shifted = {**tables, "stories": [tables["stories"][-1], *tables["stories"][:-1]]}
    moved_down = ReportData(shifted, {}, previous=first)
    assert moved_down.stories == ReportData(shifted, {}).stories
    assert [s.index for s in moved_down.stories] == list(range(len(first.stories)))


def _parse(html: str):
    return lxml.html.document_fromstring(html)


def test_report_of_the_examples_has_every_view(examples):
    data = ReportData.from_results(examples)
    html = render_report(data)
    doc = _parse(html)
    assert len(doc.xpath('//ol[@id="story-list"]/li[contains(@class,"story-row")]')) == len(
        data.stories
    )
    for s in data.stories:
        assert doc.get_element_by_id(f"story-{s.index}") is not None
    for i in range(len(data.relations)):
        view = doc.get_element_by_id(f"pair-{i}")
        assert len(view.xpath('.//div[contains(@class,"text")]')) == 2
    assert len(doc.xpath('//section[@id="quotes"]//article[contains(@class,"quote")]')) == len(
        data.quotes
    )
    # the story list shows dates, articles, sources and counts by relation type
    tables = read_tables(examples)
    ferry = next(s for s in data.stories if len(s.articles) == 7)
    row = doc.xpath('//ol[@id="story-list"]/li[contains(@class,"story-row")]')[ferry.index]
    text = row.text_content()
    assert "7 articles" in text and f"{len(ferry.sources)} sources" in text
    for kind, n in ferry.counts.items():
        assert f"{kind} {n}" in text
    assert sum(ferry.counts.values()) == sum(
        1 for r in tables["relations"] if r["a"] in ferry.articles and r["b"] in ferry.articles
    )
    # no network: no src/href to anything but the page itself and http(s) article links
    for el in doc.iter():
        if not isinstance(el.tag, str):
            continue
        assert el.get("src") is None
        href = el.get("href")
        if href is not None:
            assert href.startswith("#") or href.startswith(("http://", "https://")), href


def test_csp_hashes_match_the_inline_script_and_style(examples):
    html = render_report(ReportData.from_results(examples))
    doc = _parse(html)
    policy = doc.xpath('//meta[@http-equiv="Content-Security-Policy"]')[0].get("content")
    assert "default-src 'none'" in policy and "connect-src" not in policy

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    scripts = [s for s in doc.xpath("//script") if s.get("type") != "application/json"]
    assert len(scripts) == 1 and digest(scripts[0].text) in policy
    styles = doc.xpath("//style")
    assert len(styles) == 1 and digest(styles[0].text) in policy
    assert " style=" not in html  # no inline style attributes (CSP would block them)


def test_untrusted_input_is_escaped_everywhere(hostile):
    tables = read_tables(hostile)
    assert {a["id"] for a in tables["articles"]} >= {HOSTILE_ID}
    assert tables["relations"], "the two hostile articles should be related"
    html = render_report(ReportData.from_results(hostile), static_pair_budget=10**9)
    doc = _parse(html)
    # every view as HTML, and every view as data (the script-off lists of a large report)
    lazy = render_report(ReportData.from_results(hostile), **NO_HTML_VIEWS)
    lazy_doc = _parse(lazy)
    assert HOSTILE_ID in lazy_doc.get_element_by_id("relations").text_content()
    for d in (doc, lazy_doc):
        # the only scripts are ours: the JSON blocks, one script
        kinds = sorted(s.get("type") or "js" for s in d.iter("script"))
        assert kinds == [*["application/json"] * len(BLOCKS), "js"]
        for el in d.iter():
            if not isinstance(el.tag, str):
                continue
            assert el.tag not in ("img", "iframe", "object", "embed")
            for name, value in el.attrib.items():
                assert not name.lower().startswith("on"), (el.tag, name)
                assert "javascript:" not in value.lower() or name in ("data-search", "title")
        # only our own SVG graphs: no <svg> from the article's text or outlet
        assert all("graph" in (s.get("class") or "") for s in d.iter("{*}svg", "svg"))
    # and the payloads are there, as text
    body = doc.text_content()
    assert HOSTILE_TITLE in body
    assert "<script>window.__pwned" in body and "onerror=" in body
    outlet = next(a["outlet"] for a in tables["articles"] if a["id"] == HOSTILE_ID)
    assert outlet and outlet in body
    # the url is not a link
    assert not any("javascript" in (a.get("href") or "") for a in doc.iter("a"))
    # the JSON blocks cannot be closed early by a text, and hold the payloads as data
    found = re.findall(
        r'<script type="application/json" id="(d-\w+)"( data-packed="deflate-raw")?>(.*?)</script>',
        lazy,
        re.S,
    )
    blocks = {name: text for name, _, text in found}
    assert set(blocks) == {f"d-{k}" for k in BLOCKS}
    for _name, packed, text in found:
        assert "<" not in text
        if packed:  # inflated, still no "<" (escaped before packing)
            raw = zlib.decompress(base64.b64decode(json.loads(text)), -15).decode("utf-8")
            assert "<" not in raw and json.loads(raw) is not None
    assert sorted(s.get("type") or "js" for s in _parse(lazy).iter("script")) == [
        *["application/json"] * len(BLOCKS),
        "js",
    ]
    listed = _block(_parse(lazy), "list")
    assert HOSTILE_ID in {a[0] for a in listed["a"]}
    texts = _texts(json.loads(blocks["d-texts"]))
    assert any(HOSTILE_TITLE in t for t in texts.values())
    assert "<script>window.__pwned" not in lazy  # only inside JSON, with "<" escaped


#: the JSON blocks of a static report (unspin.report.page_data)
BLOCKS = ("list", "stories", "pairs", "why", "quotes", "texts")
#: budgets that keep every story, side-by-side and quotation view as data for the script
NO_HTML_VIEWS = {"static_pair_budget": 0, "static_story_budget": 0, "static_quote_budget": 0}


def _block(doc, name: str):
    """A JSON block of a parsed report, inflated when it is packed."""
    holder = doc.get_element_by_id(f"d-{name}")
    value = json.loads(holder.text)
    if holder.get("data-packed") is not None:
        assert holder.get("data-packed") == "deflate-raw" and name != "list"
        value = json.loads(zlib.decompress(base64.b64decode(value), -15).decode("utf-8"))
    return value


def _texts(block: dict) -> dict[str, str]:
    """The texts of a ``d-texts`` block, inflated."""
    out = dict(block["t"])
    for k, packed in block["z"].items():
        out[k] = zlib.decompress(base64.b64decode(packed), -15).decode("utf-8")
    return out


def test_safe_url():
    assert safe_url("https://example.org/a?b=1") == "https://example.org/a?b=1"
    for bad in (
        "javascript:alert(1)",
        " JavaScript:alert(1)",
        "data:text/html,x",
        "//x",
        "x",
        None,
    ):
        assert safe_url(bad) is None


def test_lazy_views_keep_each_text_once(examples):
    data = ReportData.from_results(examples)
    full = render_report(data)
    lazy = render_report(data, static_pair_budget=0)
    assert full.count('<section class="view pair"') == len(data.relations)
    assert '<section class="view pair"' not in lazy
    assert len(lazy) < len(full)
    doc = _parse(lazy)
    blob = _block(doc, "pairs")
    assert set(blob) == {str(i) for i in range(len(data.relations))}
    listed = _block(doc, "list")
    position = {a[0]: k for k, a in enumerate(listed["a"])}
    texts = _texts(_block(doc, "texts"))
    used = {a for r in data.relations for a in (r["a"], r["b"])}
    assert set(texts) == {str(position[a]) for a in used}  # each text once
    for aid in used:
        assert texts[str(position[aid])] == data.text(aid)
    why = _block(doc, "why")
    # each record holds the template's lines, spans and reasons
    for i, (_cov, changes, passages) in blob.items():
        pv = pair_view(data, int(i))
        r = data.relations[int(i)]
        assert [c[2] for c in changes] == [c.description for c in pv.changes]
        assert [tuple(c[3:5]) if c[3] >= 0 else None for c in changes] == [
            c.left for c in pv.changes
        ]
        assert len(passages) == len(pv.passages)
        assert why[i] == [r.get("direction_reason"), r.get("reasons", [])]
        row = listed["r"][int(i)]
        assert [listed["a"][row[0]][0], listed["a"][row[1]][0]] == [r["a"], r["b"]]
        assert listed["types"][row[2]] == r["relation"] and row[6] == len(data.pair_changes(r))


def test_large_report_keeps_views_as_data_and_lists_everything_as_html(examples):
    """Past its budgets a report writes no story, side-by-side or quotation view as HTML;
    script-off readers still get every story row and every relation, and links to views
    the script draws are marked so CSS can say they need it."""
    data = ReportData.from_results(examples)
    html = render_report(data, **NO_HTML_VIEWS)
    doc = _parse(html)
    assert '<section class="view story"' not in html and '<section class="view pair"' not in html
    assert not doc.xpath('//article[contains(@class,"quote")]')
    blocks = {k: _block(doc, k) for k in BLOCKS}
    # the blocks read only when a view opens are kept deflated (shorter here)
    packed = {k for k in BLOCKS if doc.get_element_by_id(f"d-{k}").get("data-packed")}
    assert packed == {"stories", "pairs", "why", "quotes"}
    assert set(blocks["stories"]) == {str(s.index) for s in data.stories}
    assert set(blocks["quotes"]) == {str(i) for i in range(len(data.quotes))}
    assert len(blocks["list"]["sl"]) == len(data.stories)
    # the script-off story list: every story, its link marked as needing script
    rows = doc.xpath('//ol[@id="story-list"]/li[contains(@class,"story-row")]')
    assert len(rows) == len(data.stories)
    assert all("lz" in r.xpath("./a")[0].get("class") for r in rows)
    # the script-off relation list: every relation once, grouped under its story
    rel_rows = doc.xpath('//section[@id="relations"]//table[contains(@class,"all")]/tbody/tr[td]')
    assert len(rel_rows) == len(data.relations)
    seen = set()
    for tr in rel_rows:
        cells = [td.text_content() for td in tr.xpath("./td")]
        ends = tuple(sorted(re.split(r" → | – ", cells[2])))
        seen.add(ends)
        assert cells[4] == "side by side needs script"
    assert seen == {tuple(sorted((r["a"], r["b"]))) for r in data.relations}
    note = doc.get_element_by_id("nojs").text_content()
    assert f"{len(data.stories)} of {len(data.stories)} story views" in note
    assert "need script" in note
    # a budget writes the most telling views first: side by side with changes
    macros = environment().get_template("_macros.html.j2").module
    links = StaticLinks(data)
    size = {
        i: len(str(macros.pair_view_section(data, links, pair_view(data, i))).encode())
        for i in range(len(data.relations))
    }
    changed = {i for i, r in enumerate(data.relations) if data.pair_changes(r)}
    assert 0 < len(changed) < len(data.relations)
    some = render_report(data, static_pair_budget=sum(size[i] for i in changed))
    written = {int(x) for x in re.findall(r'<section class="view pair" id="pair-(\d+)"', some)}
    assert written == changed
    # the default budgets write every view of a small report: no relation list needed
    assert 'id="relations"' not in render_report(data)


def test_filter_stories_matches_types_confidence_and_words(examples):
    data = ReportData.from_results(examples)
    assert len(filter_stories(data)) == len(data.stories)
    spun = filter_stories(data, types=["spun"])
    assert spun and all("spun" in s.best for s in spun)
    assert filter_stories(data, types=["spun"], min_conf=1.01) == []
    assert [s.id for s in filter_stories(data, q="FERRY strike")] == [
        s.id for s in data.stories if "ferry strike" in s.search
    ]


def test_report_without_a_store_says_texts_are_missing(tmp_path):
    out = tmp_path / "res"
    unspin.scan([EXAMPLES], out=out, config=FAST, store=False)
    data = ReportData.from_results(out)
    assert data.texts == {}
    html = render_report(data)
    assert "The text of this article is not available" in html


def test_write_report_from_result_equals_from_folder(tmp_path):
    result = scan_examples(tmp_path / "res")
    a = write_report(result, tmp_path / "a.html").read_text(encoding="utf-8")
    b = write_report(tmp_path / "res", tmp_path / "b.html").read_text(encoding="utf-8")
    assert a == b


# ------------------------------------------------------------------ CLI


def test_cli_report_scan_html_add_html_and_remove(tmp_path, capsys):
    src = tmp_path / "in"
    src.mkdir()
    names = sorted(p.name for p in EXAMPLES.iterdir())
    for name in names[:-1]:
        (src / name).write_bytes((EXAMPLES / name).read_bytes())
    out = tmp_path / "res"
    fast = ["--embedder", "hashing", "-q"]
    assert (
        main(["scan", str(src), "--out", str(out), "--html", str(tmp_path / "s.html"), *fast]) == 0
    )
    assert main(["report", str(out), "--html", str(tmp_path / "r.html")]) == 0
    assert "report written" in capsys.readouterr().err
    assert (tmp_path / "s.html").read_text() == (tmp_path / "r.html").read_text()
    last = EXAMPLES / names[-1]
    assert (
        main(["add", str(last), "--out", str(out), "--html", str(tmp_path / "a.html"), *fast]) == 0
    )
    added = (tmp_path / "a.html").read_text()
    assert f"{len(names)} articles" in added
    gone = Path(names[-1]).stem
    assert main(["remove", gone, "--out", str(out), "--embedder", "hashing"]) == 0
    tables = read_tables(out)
    assert gone not in {a["id"] for a in tables["articles"]}
    assert all(gone not in (r["a"], r["b"]) for r in tables["relations"])
    assert all(gone not in s["articles"] for s in tables["stories"])
    assert main(["remove", "no-such-id", "--out", str(out)]) == 2
    assert "no-such-id" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nothing"), "--html", str(tmp_path / "x.html")]) == 2


def test_templates_are_package_data(tmp_path):
    """A non-editable install has the templates: setuptools' build step (what a wheel
    is made from) run on a copy of the project must copy them with the package."""
    for name in ("src", "pyproject.toml", "README.md"):
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(src, tmp_path / name)
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools import setup; setup()",
            "-q",
            "build_py",
            "--build-lib",
            str(tmp_path / "build"),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    built = tmp_path / "build" / "unspin" / "templates"
    for f in ("report.html.j2", "page.html.j2", "_macros.html.j2", "report.css", "report.js"):
        assert (built / f).read_bytes() == (REPO / "src/unspin/templates" / f).read_bytes()
