"""The HTML report: one self-contained file (``unspin report RESULTS --html FILE``, ``scan
... --html FILE``) and the pages the web service renders live, from the same templates.

What it shows is the engine's output as read by :func:`unspin.output.read_tables` (or a
:class:`~unspin.model.Result` in memory): stories with their lineage graphs drawn as SVG,
a side-by-side view per relation (aligned passages linked and shaded by similarity,
unaligned text set apart, each change highlighted in place with its plain-language line),
quotation groups and skipped inputs. Article texts come from the store's archive, since
the results tables hold offsets, not texts.

Everything that comes from an input is untrusted: it only ever reaches the page through
Jinja2 with autoescaping (text and attributes) or as JSON inside a ``<script
type="application/json">`` block (``tojson`` escapes ``<``, ``>``, ``&`` and ``'``), and
the page carries a Content-Security-Policy that allows only its own inline script and
style (by hash) and no network at all. The static file works with JavaScript off: views
are switched with CSS ``:target``; script adds filters, search, passage linking and lazy
filling of the side-by-side views whose texts are kept once per article to bound the
file's size (``static_pair_budget``).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote, urlsplit

from markupsafe import Markup

from unspin.model import RELATIONS, REUSE_RELATIONS, Article, Result

#: bytes of HTML of side-by-side views written out in a static report (most telling
#: first: pairs with changes, then by relation type); views beyond it are drawn by the
#: page's script from compact JSON with each text kept once (with JavaScript off they say
#: so). Bounds the file at 10,000+ articles.
STATIC_PAIR_BUDGET = 5_000_000
#: the story list shows this many rows at first (script; "show more" adds as many again)
STORY_PAGE = 200
#: lineage graphs: node box size and gaps, in SVG user units (pixels)
NODE_W, NODE_H, GAP_X, GAP_Y, MARGIN = 190, 48, 28, 70, 12
#: characters of a node's first and second line before they are cut with an ellipsis
NODE_LINE1, NODE_LINE2 = 26, 30
#: a story whose graph would have more article nodes than this draws only those on an
#: edge; the rest are listed under it
MAX_GRAPH_NODES = 80
#: similarity shades: a passage's score in [0, 1] maps to one of this many CSS classes
SIM_SHADES = 10
#: allowed schemes for an article's URL to become a link (anything else is shown as text)
LINK_SCHEMES = ("http", "https")

# ------------------------------------------------------------------ the data


@dataclass
class StoryInfo:
    """One story with what the story list shows about it."""

    index: int
    id: str
    label: str
    articles: list[str]
    sources: list[str]
    first_date: str | None
    last_date: str | None
    counts: dict[str, int]
    #: relation type -> highest confidence among the story's relations of that type
    best: dict[str, float]
    search: str  # lower-cased label, titles and ids, for the search box


class ReportData:
    """The results tables plus article texts, indexed for the report and the service.

    Built once per results generation and then only read (the service swaps whole
    instances, so a request never sees half of a write).
    """

    def __init__(self, tables: dict[str, list[dict[str, Any]]], texts: dict[str, str]) -> None:
        self.articles: dict[str, dict[str, Any]] = {a["id"]: a for a in tables["articles"]}
        self.texts = texts
        self.relations: list[dict[str, Any]] = tables["relations"]
        self.changes_table: list[dict[str, Any]] = tables["changes"]
        self.quotes: list[dict[str, Any]] = tables["quotes"]
        self.errors: list[dict[str, Any]] = tables["errors"]
        self.lineage: dict[str, dict[str, Any]] = {x["story"]: x for x in tables["lineage"]}
        self.pair_index: dict[tuple[str, str], int] = {}
        self.by_article: dict[str, list[int]] = defaultdict(list)
        for i, r in enumerate(self.relations):
            self.pair_index[_key(r["a"], r["b"])] = i
            self.by_article[r["a"]].append(i)
            self.by_article[r["b"]].append(i)
        self.changes: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for c in self.changes_table:
            self.changes[_key(c["source"], c["derivative"])].append(c)
        self.quotes_by_article: dict[str, list[int]] = defaultdict(list)
        for i, q in enumerate(self.quotes):
            for a in q.get("articles", []):
                self.quotes_by_article[a].append(i)
        self.stories: list[StoryInfo] = [
            self._story_info(i, s) for i, s in enumerate(tables["stories"])
        ]
        self.story_index = {s.id: s.index for s in self.stories}
        self.story_of: dict[str, str] = {a: s.id for s in self.stories for a in s.articles}

    # -------------------------------------------------------------- constructors

    @classmethod
    def from_result(cls, result: Result) -> ReportData:
        """From a scan's Result in memory (texts from its docs)."""
        from unspin.output import records

        return cls(records(result), {d.id: d.article.text for d in result.docs})

    @classmethod
    def from_results(cls, out: str | os.PathLike[str]) -> ReportData:
        """From a results folder: tables via ``read_tables``, texts from its store."""
        from unspin.output import read_tables

        tables = read_tables(out)
        return cls(tables, stored_texts(out))

    # -------------------------------------------------------------- lookups

    def _story_info(self, index: int, s: dict[str, Any]) -> StoryInfo:
        members = set(s["articles"])
        counts: dict[str, int] = defaultdict(int)
        best: dict[str, float] = {}
        seen: set[int] = set()
        for a in s["articles"]:
            for i in self.by_article.get(a, ()):
                r = self.relations[i]
                if i in seen or r["a"] not in members or r["b"] not in members:
                    continue
                seen.add(i)
                counts[r["relation"]] += 1
                best[r["relation"]] = max(best.get(r["relation"], 0.0), r["confidence"])
        dates = sorted(
            d for a in s["articles"] if (d := (self.articles.get(a) or {}).get("published_at"))
        )
        words = [s["label"] or "", *s["articles"]]
        words += [(self.articles.get(a) or {}).get("title") or "" for a in s["articles"]]
        words = list(dict.fromkeys(w for w in words if w))
        return StoryInfo(
            index=index,
            id=s["id"],
            label=s["label"] or s["id"],
            articles=list(s["articles"]),
            sources=list(s["sources"]),
            first_date=dates[0] if dates else None,
            last_date=dates[-1] if dates else None,
            counts={k: counts[k] for k in RELATIONS if counts.get(k)},
            best=best,
            search=" ".join(words).lower(),
        )

    def story(self, story_id: str) -> StoryInfo | None:
        i = self.story_index.get(story_id)
        return None if i is None else self.stories[i]

    def relation(self, a: str, b: str) -> tuple[int, dict[str, Any]] | None:
        i = self.pair_index.get(_key(a, b))
        return None if i is None else (i, self.relations[i])

    def story_relations(self, story: StoryInfo) -> list[int]:
        """Indices of the relations between two articles of the story, strongest first."""
        members = set(story.articles)
        found = {
            i
            for a in story.articles
            for i in self.by_article.get(a, ())
            if self.relations[i]["a"] in members and self.relations[i]["b"] in members
        }
        return sorted(found, key=lambda i: _relation_rank(self.relations[i]))

    def story_quotes(self, story: StoryInfo) -> list[int]:
        return sorted({q for a in story.articles for q in self.quotes_by_article.get(a, ())})

    def text(self, article_id: str) -> str | None:
        """The article's text, if known and of the length the results were made from."""
        text = self.texts.get(article_id)
        rec = self.articles.get(article_id)
        if text is None or rec is None or len(text) != rec.get("n_chars", len(text)):
            return None
        return text

    def title(self, article_id: str) -> str:
        rec = self.articles.get(article_id) or {}
        return rec.get("title") or article_id

    def pair_changes(self, rel: dict[str, Any]) -> list[dict[str, Any]]:
        return self.changes.get(_key(rel["a"], rel["b"]), [])


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _relation_rank(r: dict[str, Any]) -> tuple[int, float]:
    kind = RELATIONS.index(r["relation"]) if r["relation"] in RELATIONS else len(RELATIONS)
    return kind, -r["confidence"]


def stored_articles(out: str | os.PathLike[str]) -> dict[str, Article]:
    """The articles archived in a results folder's store, by id (empty if it has none)."""
    from unspin.store import STORE_DIRNAME, Store

    path = Path(out) / STORE_DIRNAME
    if not (path / "store.sqlite").is_file():
        return {}
    with Store(path) as st:
        return {a.id: a for a in st.load_articles()}


def stored_texts(out: str | os.PathLike[str]) -> dict[str, str]:
    """Article texts from a results folder's store archive (empty if it has none)."""
    return {k: a.text for k, a in stored_articles(out).items()}


def filter_stories(
    data: ReportData, q: str = "", types: Sequence[str] | None = None, min_conf: float = 0.0
) -> list[StoryInfo]:
    """Stories whose label, titles or ids hold every word of ``q`` and, when ``types``
    or ``min_conf`` narrow the view, that have a relation of one of ``types`` with at
    least ``min_conf`` confidence (the static report's script filters the same way)."""
    words = q.lower().split()
    chosen = list(types) if types else list(RELATIONS)
    active = len(set(chosen)) < len(RELATIONS) or min_conf > 0
    out = []
    for s in data.stories:
        if not all(w in s.search for w in words):
            continue
        if active and not any(s.best.get(t, -1.0) >= min_conf for t in chosen):
            continue
        out.append(s)
    return out


def story_summary(s: StoryInfo) -> dict[str, Any]:
    """A story as the service returns it."""
    return {
        "id": s.id,
        "label": s.label,
        "articles": s.articles,
        "sources": s.sources,
        "first_date": s.first_date,
        "last_date": s.last_date,
        "relations": s.counts,
    }


# ------------------------------------------------------------------ side-by-side view


@dataclass
class Segment:
    """A stretch of one side's text with one set of marks (passage, changes)."""

    start: int
    end: int
    passage: int | None  # 1-based passage number, None when unaligned
    shade: int  # similarity class 0..SIM_SHADES
    quote_only: bool
    changes: tuple[int, ...]  # 1-based change numbers covering this stretch
    severity: str | None  # the most serious of those changes
    first_of_passage: bool
    first_of_changes: tuple[int, ...]


@dataclass
class Side:
    role: str  # "source", "derivative", or "A"/"B" when the direction is unknown
    id: str
    article: dict[str, Any]
    text: str | None
    segments: list[Segment]
    other: str  # "L" or "R": the column of the counterpart (for passage links)
    column: str  # "L" or "R"


@dataclass
class ChangeView:
    number: int
    kind: str
    severity: str
    description: str
    directed: bool
    left: tuple[int, int] | None
    right: tuple[int, int] | None
    left_text: str
    right_text: str


@dataclass
class PassageView:
    number: int
    score: float
    semantic: float
    lexical: float
    quote_only: bool
    shade: int


@dataclass
class PairView:
    """Everything the side-by-side template needs for one relation."""

    index: int
    relation: dict[str, Any]
    left: Side
    right: Side
    passages: list[PassageView]
    changes: list[ChangeView]
    direction: str
    directed: bool
    story: StoryInfo | None


_SEVERITY = {"high": 0, "medium": 1, "low": 2}


def segments(
    n: int,
    passages: Sequence[tuple[int, int, int, int, bool]],
    changes: Sequence[tuple[int, int, int, str]],
) -> list[Segment]:
    """Cut a text of length ``n`` at every passage and change boundary.

    ``passages``: (start, end, number, shade, quote_only); ``changes``: (start, end,
    number, severity). Neighbouring stretches with the same marks are merged. Spans are
    clipped to the text; passages on one side do not overlap in the engine's output, and
    where they would the better-numbered (earlier) one wins.
    """
    cuts = {0, n}
    ps = [(max(0, s), min(n, e), *rest) for s, e, *rest in passages if s < e and s < n]
    cs = [(max(0, s), min(n, e), *rest) for s, e, *rest in changes if s < e and s < n]
    for s, e, *_ in ps + cs:
        cuts.update((s, e))
    points = sorted(cuts)
    out: list[Segment] = []
    started_p: set[int] = set()
    started_c: set[int] = set()
    for x, y in zip(points, points[1:]):
        if x >= y:
            continue
        p = next((q for q in ps if q[0] <= x and q[1] >= y), None)
        cover = [c for c in cs if c[0] <= x and c[1] >= y]
        nums = tuple(c[2] for c in cover)
        sev = min((c[3] for c in cover), key=lambda v: _SEVERITY.get(v, 3), default=None)
        num = p[2] if p else None
        if (
            out
            and out[-1].passage == num
            and out[-1].changes == nums
            and out[-1].end == x
            and not (num is not None and num not in started_p)
        ):
            out[-1].end = y
            continue
        first_p = num is not None and num not in started_p
        if num is not None:
            started_p.add(num)
        first_c = tuple(c for c in nums if c not in started_c)
        started_c.update(nums)
        out.append(
            Segment(
                start=x,
                end=y,
                passage=num,
                shade=p[3] if p else 0,
                quote_only=bool(p[4]) if p else False,
                changes=nums,
                severity=sev,
                first_of_passage=first_p,
                first_of_changes=first_c,
            )
        )
    return out


def shade(score: float) -> int:
    return max(0, min(SIM_SHADES, int(round(score * SIM_SHADES))))


def pair_view(data: ReportData, index: int) -> PairView:
    """The side-by-side view of relation ``index``: source on the left when known."""
    rel = data.relations[index]
    directed = bool(rel.get("source") and rel.get("derivative"))
    if directed:
        left_id, right_id = rel["source"], rel["derivative"]
        roles = ("source", "derivative")
    else:
        left_id, right_id = rel["a"], rel["b"]
        roles = ("A", "B")
    passages = [
        PassageView(
            number=i,
            score=p["score"],
            semantic=p.get("semantic", 0.0),
            lexical=p.get("lexical", 0.0),
            quote_only=bool(p.get("quote_only")),
            shade=shade(p["score"]),
        )
        for i, p in enumerate(rel.get("alignment", []), 1)
    ]
    spans: dict[str, list[tuple[int, int, int, int, bool]]] = {left_id: [], right_id: []}
    for pv, p in zip(passages, rel.get("alignment", [])):
        for side, s, e in ((rel["a"], "a_start", "a_end"), (rel["b"], "b_start", "b_end")):
            spans.setdefault(side, []).append((p[s], p[e], pv.number, pv.shade, pv.quote_only))
    changes: list[ChangeView] = []
    marks: dict[str, list[tuple[int, int, int, str]]] = {left_id: [], right_id: []}
    ordered = sorted(
        data.pair_changes(rel),
        key=lambda c: (_SEVERITY.get(c["severity"], 3), _first(c)),
    )
    for n, c in enumerate(ordered, 1):
        on_left = c["source"] == left_id
        lspan = c["source_span"] if on_left else c["derivative_span"]
        rspan = c["derivative_span"] if on_left else c["source_span"]
        ltext = c["source_text"] if on_left else c["derivative_text"]
        rtext = c["derivative_text"] if on_left else c["source_text"]
        desc = c["description"]
        if not c.get("directed", True):
            desc = desc.split(": ", 1)[-1] if desc.startswith("direction unknown") else desc
        changes.append(
            ChangeView(
                number=n,
                kind=c["kind"],
                severity=c["severity"],
                description=desc,
                directed=bool(c.get("directed", True)),
                left=tuple(lspan) if lspan else None,
                right=tuple(rspan) if rspan else None,
                left_text=ltext or "",
                right_text=rtext or "",
            )
        )
        if lspan:
            marks[left_id].append((lspan[0], lspan[1], n, c["severity"]))
        if rspan:
            marks[right_id].append((rspan[0], rspan[1], n, c["severity"]))

    def side(aid: str, role: str, column: str, other: str) -> Side:
        text = data.text(aid)
        segs = segments(len(text), spans.get(aid, []), marks[aid]) if text is not None else []
        return Side(role, aid, data.articles.get(aid) or {"id": aid}, text, segs, other, column)

    if directed:
        direction = f"{left_id} → {right_id}"
    elif rel["relation"] in REUSE_RELATIONS:
        direction = "direction undecided"
    else:
        direction = f"no direction: {rel['relation']} is not reuse"
    story_id = data.story_of.get(rel["a"])
    return PairView(
        index=index,
        relation=rel,
        left=side(left_id, roles[0], "L", "R"),
        right=side(right_id, roles[1], "R", "L"),
        passages=passages,
        changes=changes,
        direction=direction,
        directed=directed,
        story=data.story(story_id) if story_id else None,
    )


def _first(c: dict[str, Any]) -> int:
    span = c["source_span"] or c["derivative_span"] or [0, 0]
    return span[0]


# ------------------------------------------------------------------ lineage graph


@dataclass
class Node:
    id: str
    kind: str  # "article" | "unseen_source"
    x: float
    y: float
    line1: str
    line2: str
    tooltip: str
    source: bool  # no directed edge comes into it: an original of the story


@dataclass
class Edge:
    source: str
    derivative: str
    relation: str
    confidence: float
    directed: bool
    path: str
    label: str
    lx: float
    ly: float
    pair: tuple[str, str] | None  # the relation this edge draws, for its link
    reasons: list[str]


@dataclass
class Graph:
    width: float
    height: float
    nodes: list[Node]
    edges: list[Edge]
    left_out: list[str] = field(default_factory=list)  # articles not drawn (no edge)


def _cut(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def lineage_graph(data: ReportData, story: StoryInfo) -> Graph | None:
    """Lay out a story's lineage as layers: nodes with no incoming directed edge (the
    sources, including unseen ones) on top, each derivative below its lowest source.

    Undirected edges (direction undecided) do not order their ends. None for a story
    with nothing to draw (one article, no edges).
    """
    lin = data.lineage.get(story.id)
    if lin is None:
        nodes = [{"id": a, "kind": "article"} for a in story.articles]
        edges: list[dict[str, Any]] = []
    else:
        nodes, edges = lin.get("nodes", []), lin.get("edges", [])
    if not edges and len(nodes) <= 1:
        return None
    ids = [n["id"] for n in nodes]
    known = set(ids)
    edges = [e for e in edges if e["source"] in known and e["derivative"] in known]
    left_out: list[str] = []
    if len(nodes) > MAX_GRAPH_NODES:
        linked = {e["source"] for e in edges} | {e["derivative"] for e in edges}
        left_out = [i for i in ids if i not in linked]
        nodes = [n for n in nodes if n["id"] in linked]
        ids = [n["id"] for n in nodes]
    if not nodes:
        return Graph(0, 0, [], [], left_out)
    # layers: longest path over directed edges, relaxed at most len(nodes) times (cycles
    # in the engine's directions, should there be any, cannot loop forever)
    level = {i: 0 for i in ids}
    directed = [e for e in edges if e.get("directed", True)]
    for _ in range(len(ids)):
        changed = False
        for e in directed:
            want = level[e["source"]] + 1
            if level[e["derivative"]] < want and want < len(ids):
                level[e["derivative"]] = want
                changed = True
        if not changed:
            break
    has_parent = {e["derivative"] for e in directed}
    layers: dict[int, list[str]] = defaultdict(list)
    for i in ids:
        layers[level[i]].append(i)
    # order within layers: unseen sources first, then by the mean position of neighbours
    neighbours: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        neighbours[e["source"]].append(e["derivative"])
        neighbours[e["derivative"]].append(e["source"])
    kind = {n["id"]: n.get("kind", "article") for n in nodes}
    pos = {i: k for layer in layers.values() for k, i in enumerate(layer)}
    for _ in range(2):
        for lv in sorted(layers):
            layer = layers[lv]
            before = {i: k for k, i in enumerate(layer)}

            def bary(i: str, before: dict[str, int] = before) -> tuple[int, float, int]:
                ns = [pos[n] for n in neighbours[i]]
                return (
                    0 if kind[i] == "unseen_source" else 1,
                    sum(ns) / len(ns) if ns else pos[i],
                    before[i],
                )

            layer.sort(key=bary)
            for k, i in enumerate(layer):
                pos[i] = k
    widest = max(len(v) for v in layers.values())
    width = 2 * MARGIN + widest * NODE_W + (widest - 1) * GAP_X
    xy: dict[str, tuple[float, float]] = {}
    for lv, layer in layers.items():
        row = len(layer) * NODE_W + (len(layer) - 1) * GAP_X
        x0 = (width - row) / 2
        for k, i in enumerate(layer):
            xy[i] = (x0 + k * (NODE_W + GAP_X), MARGIN + lv * (NODE_H + GAP_Y))
    height = 2 * MARGIN + (max(layers) + 1) * NODE_H + max(layers) * GAP_Y + 16
    out_nodes = []
    for n in nodes:
        x, y = xy[n["id"]]
        if n.get("kind") == "unseen_source":
            line1 = _cut(n.get("outlet") or "unnamed source", NODE_LINE1)
            line2 = "unseen source"
            tip = f"unseen source: {n.get('outlet') or 'not named'}; quoted by " + ", ".join(
                n.get("articles") or []
            )
        else:
            rec = data.articles.get(n["id"]) or {}
            line1 = _cut(n["id"], NODE_LINE1)
            line2 = _cut(rec.get("outlet") or rec.get("title") or n.get("title") or "", NODE_LINE2)
            tip = " · ".join(x for x in (n["id"], rec.get("outlet"), rec.get("title")) if x)
        out_nodes.append(
            Node(
                id=n["id"],
                kind=n.get("kind", "article"),
                x=x,
                y=y,
                line1=line1,
                line2=line2,
                tooltip=tip,
                source=n["id"] not in has_parent,
            )
        )
    out_edges = []
    for e in edges:
        (x1, y1), (x2, y2) = xy[e["source"]], xy[e["derivative"]]
        if y2 > y1:  # downwards: bottom centre to top centre
            ax, ay, bx, by = x1 + NODE_W / 2, y1 + NODE_H, x2 + NODE_W / 2, y2
            path = f"M{ax:.0f},{ay:.0f} L{bx:.0f},{by:.0f}"
            lx, ly = (ax + bx) / 2, (ay + by) / 2
        else:  # same layer (undirected) or upwards: an arc below the boxes
            ax, ay = x1 + NODE_W / 2, y1 + NODE_H
            bx, by = x2 + NODE_W / 2, y2 + NODE_H
            dip = max(ay, by) + GAP_Y * 0.6
            path = f"M{ax:.0f},{ay:.0f} Q{(ax + bx) / 2:.0f},{dip:.0f} {bx:.0f},{by:.0f}"
            lx, ly = (ax + bx) / 2, (max(ay, by) + dip) / 2
        undecided = not e.get("directed", True)
        label = f"{e['relation']}{' ?' if undecided else ''} {e['confidence']:.2f}"
        pair = None
        if e["relation"] != "quoted" and _key(e["source"], e["derivative"]) in data.pair_index:
            pair = _key(e["source"], e["derivative"])
        out_edges.append(
            Edge(
                source=e["source"],
                derivative=e["derivative"],
                relation=e["relation"],
                confidence=e["confidence"],
                directed=not undecided,
                path=path,
                label=label,
                lx=lx,
                ly=ly,
                pair=pair,
                reasons=list(e.get("reasons") or []),
            )
        )
    return Graph(width, height, out_nodes, out_edges, left_out)


# ------------------------------------------------------------------ links


class Links(Protocol):
    """Where a view lives: fragments in the static file, URLs in the service."""

    def home(self) -> str: ...
    def story(self, story_id: str) -> str: ...
    def pair(self, a: str, b: str) -> str: ...
    def article(self, article_id: str) -> str: ...
    def quotes(self) -> str: ...
    def errors(self) -> str: ...
    def relations(self) -> str: ...


class StaticLinks:
    """Fragments by position (never by an input's id, so ids cannot shape the page)."""

    def __init__(self, data: ReportData) -> None:
        self.data = data
        self.article_index = {a: i for i, a in enumerate(data.articles)}

    def home(self) -> str:
        return "#stories"

    def story(self, story_id: str) -> str:
        i = self.data.story_index.get(story_id)
        return f"#story-{i}" if i is not None else "#stories"

    def pair(self, a: str, b: str) -> str:
        i = self.data.pair_index.get(_key(a, b))
        return f"#pair-{i}" if i is not None else "#stories"

    def article(self, article_id: str) -> str:
        i = self.article_index.get(article_id)
        return f"#article-{i}" if i is not None else "#stories"

    def anchor(self, article_id: str) -> str:
        return self.article(article_id)[1:]

    def quotes(self) -> str:
        return "#quotes"

    def errors(self) -> str:
        return "#errors"

    def relations(self) -> str:
        return "#relations"


class LiveLinks:
    """URLs of the service's pages (ids percent-encoded: they are data, not paths)."""

    def __init__(self, data: ReportData) -> None:
        self.data = data

    def home(self) -> str:
        return "/"

    def story(self, story_id: str) -> str:
        return "/ui/stories/" + quote(story_id, safe="")

    def pair(self, a: str, b: str) -> str:
        return f"/ui/pair?a={quote(a, safe='')}&b={quote(b, safe='')}"

    def article(self, article_id: str) -> str:
        return "/ui/articles/" + quote(article_id, safe="")

    def anchor(self, article_id: str) -> str:
        return "art-" + hashlib.sha1(article_id.encode("utf-8", "replace")).hexdigest()[:12]

    def quotes(self) -> str:
        return "/ui/quotes"

    def errors(self) -> str:
        return "/ui/errors"

    def relations(self) -> str:
        return "/ui/relations"


def safe_url(url: str | None) -> str | None:
    """``url`` if it is an absolute http(s) URL, else None (then shown as text only)."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() in LINK_SCHEMES and parts.netloc:
        return url.strip()
    return None


# ------------------------------------------------------------------ rendering


@cache
def environment():
    """The Jinja2 environment: package templates, autoescaping on for everything."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("unspin", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        RELATIONS=RELATIONS,
        REUSE_RELATIONS=REUSE_RELATIONS,
        safe_url=safe_url,
        lineage_graph=lineage_graph,
        pair_view=pair_view,
        story_page=STORY_PAGE,
    )
    # compact JSON for the data blocks (tojson keeps escaping <, >, &, ')
    env.policies["json.dumps_kwargs"] = {"sort_keys": False, "separators": (",", ":")}
    env.filters["pct"] = lambda v: f"{float(v):.0%}"
    env.filters["conf"] = lambda v: f"{float(v):.2f}"
    env.filters["dates"] = _dates
    return env


def _dates(story: StoryInfo) -> str:
    first = (story.first_date or "")[:10]
    last = (story.last_date or "")[:10]
    if not first:
        return "–"
    return first if first == last else f"{first} – {last}"


@dataclass(frozen=True)
class Asset:
    """An inline stylesheet or script and its CSP hash."""

    text: Markup
    csp: str


@cache
def asset(name: str) -> Asset:
    """The packaged CSS/JS file ``name``, to be inlined, with its ``'sha256-...'``."""
    text = resources.files("unspin").joinpath("templates", name).read_text(encoding="utf-8")
    if "</" in text:  # would end the <style>/<script> element early
        raise ValueError(f"template asset {name} must not contain '</'")
    digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
    return Asset(Markup(text), f"'sha256-{digest}'")


def csp(*, live: bool) -> str:
    """Content-Security-Policy for a page: own inline script and style only, no network
    from the static file; the service's pages may also post forms and fetch to itself."""
    css, js = asset("report.css"), asset("report.js")
    parts = [
        "default-src 'none'",
        f"script-src {js.csp}",
        f"style-src {css.csp}",
        "img-src data:",
        "base-uri 'none'",
    ]
    if live:
        parts += ["form-action 'self'", "connect-src 'self'", "frame-ancestors 'none'"]
    else:
        parts += ["form-action 'none'"]
    return "; ".join(parts)


def render_report(
    data: ReportData,
    *,
    title: str = "unspin report",
    static_pair_budget: int = STATIC_PAIR_BUDGET,
) -> str:
    """The whole report as one HTML document (no external resources)."""
    links = StaticLinks(data)
    order = sorted(
        range(len(data.relations)),
        key=lambda i: (
            0 if data.pair_changes(data.relations[i]) else 1,
            _relation_rank(data.relations[i]),
        ),
    )
    macros = environment().get_template("_macros.html.j2").module
    inline: dict[int, Markup] = {}
    used = 0
    for i in order:
        if used >= static_pair_budget:
            break
        html = macros.pair_view_section(data, links, pair_view(data, i))
        if used + len(html) > static_pair_budget:
            continue
        used += len(html)
        inline[i] = html
    lazy = lazy_pairs(data, links, [i for i in range(len(data.relations)) if i not in inline])
    tpl = environment().get_template("report.html.j2")
    return tpl.render(
        data=data,
        links=links,
        title=title,
        inline=inline,
        lazy=lazy,
        css=asset("report.css").text,
        js=asset("report.js").text,
        csp=csp(live=False),
        live=False,
    )


def lazy_pairs(data: ReportData, links: StaticLinks, indices: Sequence[int]) -> dict[str, Any]:
    """The side-by-side views the page's script draws: each as compact JSON (the same
    cuts, marks and lines :func:`pair_view` gives the template), each article's text and
    metadata once, keyed by its position."""
    pairs: dict[str, Any] = {}
    used: set[str] = set()
    for i in indices:
        pv = pair_view(data, i)
        r = pv.relation
        for sd in (pv.left, pv.right):
            used.add(sd.id)
        pairs[str(i)] = {
            "r": r["relation"],
            "c": f"{float(r['confidence']):.2f}",
            "d": int(pv.directed),
            "u": int(r["relation"] in REUSE_RELATIONS and not pv.directed),
            "x": int(r["relation"] in REUSE_RELATIONS),
            "dir": pv.direction if r["relation"] in REUSE_RELATIONS else None,
            "dr": r.get("direction_reason"),
            "cov": [[k, f"{float(v):.0%}"] for k, v in r.get("coverage", {}).items()],
            "st": pv.story.index if pv.story else None,
            "why": r.get("reasons", []),
            "L": _side_record(pv.left, links),
            "R": _side_record(pv.right, links),
            "ch": [
                [
                    c.kind,
                    c.severity,
                    c.description,
                    int(c.left is not None),
                    int(c.right is not None),
                ]
                for c in pv.changes
            ],
            "ps": [
                [f"{p.score:.2f}", f"{p.semantic:.2f}", f"{p.lexical:.2f}", int(p.quote_only)]
                for p in pv.passages
            ],
        }
    arts: dict[str, Any] = {}
    texts: dict[str, str] = {}
    for aid in used:
        k = links.article_index.get(aid)
        if k is None:
            continue
        rec = data.articles.get(aid) or {}
        arts[str(k)] = [
            aid,
            rec.get("title") or "",
            rec.get("outlet"),
            rec.get("published_at"),
            rec.get("lang"),
            safe_url(rec.get("url")),
            rec.get("url"),
        ]
        text = data.text(aid)
        if text is not None:
            texts[str(k)] = text
    return {"pairs": pairs, "arts": arts, "texts": texts}


def _side_record(side: Side, links: StaticLinks) -> dict[str, Any]:
    return {
        "k": links.article_index.get(side.id),
        "id": side.id,
        "role": side.role,
        "segs": None
        if side.text is None
        else [
            [g.start, g.end, g.passage or 0, g.shade, int(g.quote_only), list(g.changes)]
            for g in side.segments
        ],
    }


def write_report(
    data: ReportData | Result | str | os.PathLike[str],
    path: str | os.PathLike[str],
    **kw: Any,
) -> Path:
    """Write the report of ``data`` (a ReportData, a Result or a results folder) to
    ``path`` (written to a temporary name, then renamed)."""
    if isinstance(data, Result):
        data = ReportData.from_result(data)
    elif not isinstance(data, ReportData):
        data = ReportData.from_results(data)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render_report(data, **kw), encoding="utf-8")
    tmp.replace(path)
    return path


def render_page(template: str, data: ReportData, **context: Any) -> str:
    """One page of the service's UI (same macros as the static report)."""
    tpl = environment().get_template(template)
    return tpl.render(
        data=data,
        links=LiveLinks(data),
        css=asset("report.css").text,
        js=asset("report.js").text,
        live=True,
        **context,
    )


def relation_records(data: ReportData, indices: Iterable[int]) -> list[dict[str, Any]]:
    """Relation records with their changes attached (what the service returns)."""
    out = []
    for i in indices:
        r = dict(data.relations[i])
        r["changes"] = data.pair_changes(r)
        out.append(r)
    return out


def to_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)
