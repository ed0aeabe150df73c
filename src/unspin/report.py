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
are switched with CSS ``:target``; script adds filters, search and passage linking. To
bound a large report's size and load time, views are written out as HTML only while byte
budgets last (``static_*_budget``); the rest are compact JSON blocks (:func:`page_data`)
that the script draws, inserting every input's text as text. Without script such a report
still lists every story and every relation as HTML (in ``<noscript>``, so a page with
script does not parse them).
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import re
import zlib
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
STATIC_PAIR_BUDGET = 3_000_000
#: bytes of HTML of story views written out in a static report (stories with changes
#: first, then with relations, most relations first; single articles last); the others
#: are drawn by the page's script from compact JSON
STATIC_STORY_BUDGET = 2_000_000
#: bytes of HTML of quotation groups written out (in order); the rest drawn by script
STATIC_QUOTE_BUDGET = 1_000_000
#: views too large for what is left of a budget skipped in a row before the choice stops
MAX_SKIPPED = 200
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
    search: str  # lower-cased label, ids and titles, for the search box (as the page's script)


class ReportData:
    """The results tables plus article texts, indexed for the report and the service.

    Built once per results generation and then only read (the service swaps whole
    instances, so a request never sees half of a write).
    """

    def __init__(
        self,
        tables: dict[str, list[dict[str, Any]]],
        texts: dict[str, str],
        previous: ReportData | None = None,
    ) -> None:
        """``previous``: the data of the last generation of the same results, read
        through one :class:`~unspin.output.LineMemo` (a row whose line is unchanged is the
        same dict): a story whose row, articles' rows and relations' rows are the very
        rows it was built from there keeps its :class:`StoryInfo` (the service's snapshot
        after an add, where all but a few of the pile's stories are unchanged)."""
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
        #: per story row (by ``id()``): the rows its StoryInfo was built from, and it
        self._built: dict[int, tuple[dict, tuple, tuple, StoryInfo]] = {}
        last = previous._built if previous is not None else {}
        self.stories: list[StoryInfo] = []
        for i, s in enumerate(tables["stories"]):
            arts = tuple(self.articles.get(a) for a in s["articles"])
            inside = self._inside(s["articles"])
            rels = tuple(self.relations[k] for k in inside)
            old = last.get(id(s))
            if (
                old is not None
                and old[0] is s
                and _same_rows(old[1], arts)
                and _same_rows(old[2], rels)
            ):
                info = old[3] if old[3].index == i else dataclasses.replace(old[3], index=i)
            else:
                info = self._story_info(i, s, inside)
            self._built[id(s)] = (s, arts, rels, info)
            self.stories.append(info)
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

    def _inside(self, articles: list[str]) -> list[int]:
        """Indices of the relations between two of ``articles``, in the order first met
        going through each article's relations (none for a story of one article)."""
        if len(articles) < 2:
            return []
        members = set(articles)
        seen: dict[int, None] = {}
        for a in articles:
            for i in self.by_article.get(a, ()):
                r = self.relations[i]
                if r["a"] in members and r["b"] in members:
                    seen[i] = None
        return list(seen)

    def _story_info(self, index: int, s: dict[str, Any], inside: list[int]) -> StoryInfo:
        """What the story list shows of story row ``s``; ``inside``: the indices of the
        relations between two of its articles (:meth:`_inside`)."""
        counts: dict[str, int] = defaultdict(int)
        best: dict[str, float] = {}
        for i in inside:
            r = self.relations[i]
            counts[r["relation"]] += 1
            best[r["relation"]] = max(best.get(r["relation"], 0.0), r["confidence"])
        dates = sorted(
            d for a in s["articles"] if (d := (self.articles.get(a) or {}).get("published_at"))
        )
        label = s["label"] or s["id"]
        words = [label, *s["articles"]]
        words += [(self.articles.get(a) or {}).get("title") or "" for a in s["articles"]]
        words = list(dict.fromkeys(w for w in words if w))
        return StoryInfo(
            index=index,
            id=s["id"],
            label=label,
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
        return sorted(
            self._inside(story.articles), key=lambda i: (*_relation_rank(self.relations[i]), i)
        )

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


def _same_rows(old: tuple, new: tuple) -> bool:
    """Whether two tuples hold the very same row objects, in order."""
    return len(old) == len(new) and all(x is y for x, y in zip(old, new))


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
    def lz_story(self, story_id: str) -> str: ...
    def lz_pair(self, a: str, b: str) -> str: ...
    def lz_article(self, article_id: str) -> str: ...
    def lz_quote(self, index: int) -> str: ...


#: class added to a static link whose target view is kept as data for the page's script
#: (with script off, CSS says so next to the link)
LAZY_CLASS = "lz"


class StaticLinks:
    """Fragments by position (never by an input's id, so ids cannot shape the page).

    ``lz_*`` name the class of a link whose view is not written out as HTML (drawn by the
    page's script): set once the static report has chosen its written-out views."""

    def __init__(self, data: ReportData) -> None:
        self.data = data
        self.article_index = {a: i for i, a in enumerate(data.articles)}
        self.lazy_stories: set[int] = set()
        self.lazy_pairs: set[int] = set()
        self.lazy_quotes: set[int] = set()

    def lz_story(self, story_id: str) -> str:
        i = self.data.story_index.get(story_id)
        return " " + LAZY_CLASS if i is not None and i in self.lazy_stories else ""

    def lz_pair(self, a: str, b: str) -> str:
        i = self.data.pair_index.get(_key(a, b))
        return " " + LAZY_CLASS if i is not None and i in self.lazy_pairs else ""

    def lz_article(self, article_id: str) -> str:
        sid = self.data.story_of.get(article_id)
        return self.lz_story(sid) if sid is not None else ""

    def lz_quote(self, index: int) -> str:
        return " " + LAZY_CLASS if index in self.lazy_quotes else ""

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
        """The element id of an article's row ("" for an article the tables do not list)."""
        i = self.article_index.get(article_id)
        return f"article-{i}" if i is not None else ""

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

    def lz_story(self, story_id: str) -> str:
        return ""

    def lz_pair(self, a: str, b: str) -> str:
        return ""

    def lz_article(self, article_id: str) -> str:
        return ""

    def lz_quote(self, index: int) -> str:
        return ""


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
    static_story_budget: int = STATIC_STORY_BUDGET,
    static_quote_budget: int = STATIC_QUOTE_BUDGET,
) -> str:
    """The whole report as one HTML document (no external resources).

    Views are written out as HTML, most telling first, while each kind's budget lasts
    (``static_*_budget``, bytes of HTML); the rest stay compact JSON that the page's
    script draws when one is opened (:func:`page_data`). A small report is all HTML and
    reads with JavaScript off; a large one keeps its story list, skipped inputs and the
    written-out views readable without script and says which views need it."""
    links = StaticLinks(data)
    macros = environment().get_template("_macros.html.j2").module

    def pair_html(i: int) -> Markup:
        return macros.pair_view_section(data, links, pair_view(data, i))

    def story_html(i: int) -> Markup:
        return macros.story_view_section(data, links, data.stories[i])

    def quote_html(i: int) -> Markup:
        return macros.quote_groups(data, links, [i])

    changed = {_key(c["source"], c["derivative"]) for c in data.changes_table}
    pair_order = sorted(
        range(len(data.relations)),
        key=lambda i: (
            0 if _key(data.relations[i]["a"], data.relations[i]["b"]) in changed else 1,
            _relation_rank(data.relations[i]),
        ),
    )
    story_order = sorted(range(len(data.stories)), key=lambda i: _story_rank(data, i, changed))
    # first pass: which views fit (links to the others are not known yet, so sizes are
    # measured without their marks, a few bytes each)
    pairs = _within(static_pair_budget, pair_order, pair_html)
    stories = _within(static_story_budget, story_order, story_html)
    quotes = _within(static_quote_budget, range(len(data.quotes)), quote_html, prefix=True)
    links.lazy_pairs = set(range(len(data.relations))) - pairs
    links.lazy_stories = set(range(len(data.stories))) - stories
    links.lazy_quotes = set(range(len(data.quotes))) - quotes
    # second pass: the chosen views, their links to views drawn by script marked
    tpl = environment().get_template("report.html.j2")
    return tpl.render(
        data=data,
        links=links,
        title=title,
        pairs={i: pair_html(i) for i in sorted(pairs)},
        stories={i: story_html(i) for i in sorted(stories)},
        quotes=sorted(quotes),
        relation_groups=relation_groups(data),
        blocks={k: _block(k, v) for k, v in page_data(data, links).items()},
        css=asset("report.css").text,
        js=asset("report.js").text,
        csp=csp(live=False),
        live=False,
    )


def relation_groups(data: ReportData) -> list[tuple[StoryInfo | None, list[int]]]:
    """Relations by story (in the story list's order, strongest first within one), then
    those between articles of two stories: the script-off list of a large report."""
    by_story: dict[int, list[int]] = defaultdict(list)
    across: list[int] = []
    for i, r in enumerate(data.relations):
        sa, sb = data.story_of.get(r["a"]), data.story_of.get(r["b"])
        if sa is not None and sa == sb:
            by_story[data.story_index[sa]].append(i)
        else:
            across.append(i)
    rank = lambda i: _relation_rank(data.relations[i])  # noqa: E731
    groups: list[tuple[StoryInfo | None, list[int]]] = [
        (data.stories[k], sorted(v, key=rank)) for k, v in sorted(by_story.items())
    ]
    if across:
        groups.append((None, sorted(across, key=rank)))
    return groups


def _story_rank(data: ReportData, i: int, changed: set[tuple[str, str]]) -> tuple[int, int, int]:
    """Stories with changes first, then stories with relations, then single articles."""
    s = data.stories[i]
    n = sum(s.counts.values())
    has_changes = n and any(
        _key(data.relations[r]["a"], data.relations[r]["b"]) in changed
        for a in s.articles
        for r in data.by_article.get(a, ())
    )
    return (0 if has_changes else 1 if n else 2, -n, i)


def _within(
    budget: int,
    order: Iterable[int],
    html: Any,
    *,
    prefix: bool = False,
) -> set[int]:
    """Indices from ``order`` whose HTML (``html(i)``) fits in ``budget`` bytes together,
    taken greedily in that order; a view too large for what is left is skipped (up to
    ``MAX_SKIPPED`` in a row, then the search stops), or ends the choice when ``prefix``
    (quotation groups keep their order: the written-out ones come first)."""
    chosen: set[int] = set()
    used = skipped = 0
    for i in order:
        if used >= budget or skipped >= MAX_SKIPPED:
            break
        size = len(str(html(i)).encode("utf-8", "surrogatepass"))
        if used + size > budget:
            if prefix:
                break
            skipped += 1
            continue
        skipped = 0
        used += size
        chosen.add(i)
    return chosen


#: JSON blocks read only when a view is first opened: kept deflated when that is shorter
#: (the page inflates one when a view first needs it)
PACKED_BLOCKS = ("stories", "pairs", "why", "quotes")


def _block(name: str, value: Any) -> tuple[Markup, bool]:
    """A JSON block as written in the page, and whether it is packed: for
    :data:`PACKED_BLOCKS`, a JSON string of base64 of the raw deflate stream of the
    block's JSON when that is shorter."""
    text = json_block(value)
    if name in PACKED_BLOCKS:
        raw = str(text).encode("utf-8", "surrogatepass")
        z = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
        packed = base64.b64encode(z.compress(raw) + z.flush()).decode("ascii")
        if len(packed) + 2 < len(raw):
            return Markup(f'"{packed}"'), True
    return text, False


def json_block(value: Any) -> Markup:
    """``value`` as JSON for a ``<script type="application/json">`` element: compact,
    non-ASCII as is, ``<`` escaped (so no ``</script`` or ``<!--`` can appear in it) and
    lone surrogates (texts that are not valid Unicode) written as escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c")
    if _SURROGATE.search(text):
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)
    return Markup(text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def page_data(data: ReportData, links: StaticLinks) -> dict[str, Any]:
    """The compact data the static page's script reads, as JSON blocks by name.

    ``list`` (read when the page loads): relation types; every article as ``[id, title,
    outlet, published_at, lang, safe url, url, story]`` by its position; every relation as
    ``[a, b, type, confidence, shown confidence, direction, changes]`` (a, b: article
    positions, or ids of articles the tables do not list; direction 1: a is the source,
    2: b is, 0: none); every story's row of the story list ``[label, dates, articles,
    sources, [[type, count, best confidence], ...]]``. ``stories``, ``pairs``, ``quotes``
    (read when the first such view is opened): the views not written out as HTML, by
    index, with what the templates show of them; ``why``: ``[direction reason,
    reasons]`` of the relations those views show. ``texts``: the texts of the articles
    of those side-by-side views, each compressed on its own (``{"z": {position: base64
    of raw deflate}, "t": {position: text}}`` for the few that do not shrink).
    """
    ref = _refs(links)
    arts = []
    for aid, rec in data.articles.items():
        sid = data.story_of.get(aid)
        arts.append(
            _trim(
                [
                    aid,
                    rec.get("title") or "",
                    rec.get("outlet"),
                    rec.get("published_at"),
                    rec.get("lang"),
                    safe_url(rec.get("url")),
                    rec.get("url"),
                    data.story_index[sid] if sid is not None else None,
                ]
            )
        )
    kinds = {k: n for n, k in enumerate(RELATIONS)}
    rels = []
    for r in data.relations:
        direction = 0
        if r.get("source") and r.get("derivative"):
            direction = 1 if r["source"] == r["a"] else 2
        rels.append(
            [
                ref(r["a"]),
                ref(r["b"]),
                kinds.get(r["relation"], r["relation"]),
                r["confidence"],
                _conf(r["confidence"]),
                direction,
                len(data.pair_changes(r)),
            ]
        )
    rows = [
        [
            s.label,
            _dates(s),
            len(s.articles),
            len(s.sources),
            [[kinds.get(k, k), n, s.best.get(k, 0.0)] for k, n in s.counts.items()],
        ]
        for s in data.stories
    ]
    why: set[int] = set(links.lazy_pairs)
    stories = {}
    for i in sorted(links.lazy_stories):
        stories[str(i)] = _story_record(data, data.stories[i], ref, why)
    used: set[str] = set()
    pairs = {}
    for i in sorted(links.lazy_pairs):
        pv = pair_view(data, i)
        used.update((pv.left.id, pv.right.id))
        pairs[str(i)] = _pair_record(pv)
    texts: dict[str, dict[str, str]] = {"z": {}, "t": {}}
    for aid in sorted(used, key=lambda a: links.article_index.get(a, -1)):
        text = data.text(aid)
        k = links.article_index.get(aid)
        if text is not None and k is not None:
            packed = _pack(text)
            if packed is None:
                texts["t"][str(k)] = text
            else:
                texts["z"][str(k)] = packed
    return {
        "list": {
            "types": list(RELATIONS),
            "reuse": sorted(REUSE_RELATIONS),
            "a": arts,
            "r": rels,
            "sl": rows,
        },
        "stories": stories,
        "pairs": pairs,
        "why": {
            str(i): [r.get("direction_reason"), r.get("reasons", [])]
            for i in sorted(why)
            for r in (data.relations[i],)
        },
        "quotes": {str(i): _quote_record(data.quotes[i], ref) for i in sorted(links.lazy_quotes)},
        "texts": texts,
    }


def _pack(text: str) -> str | None:
    """A text as base64 of its raw deflate stream (the page inflates it with the
    browser's ``DecompressionStream``), or None when that would not be shorter (short
    texts) or the text is not valid Unicode (lone surrogates: kept as a JSON string)."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        return None
    z = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    packed = base64.b64encode(z.compress(raw) + z.flush()).decode("ascii")
    return packed if len(packed) < len(json.dumps(text, ensure_ascii=False)) else None


def _refs(links: StaticLinks) -> Any:
    """An article as the page's data names it: its position, or its id if unlisted."""
    index = links.article_index

    def ref(aid: str) -> int | str:
        k = index.get(aid)
        return aid if k is None else k

    return ref


def _trim(row: list[Any]) -> list[Any]:
    while row and row[-1] is None:
        row.pop()
    return row


def _conf(v: Any) -> str:
    return f"{float(v):.2f}"


def _story_record(data: ReportData, s: StoryInfo, ref: Any, why: set[int]) -> dict[str, Any]:
    """What :func:`story_view_section` shows of a story, for the page's script. A
    lineage edge that draws a relation as the engine made it is ``[from, to, directed,
    path, label x, label y, relation, order]`` (its type, confidence and reasons are the
    relation's: order 1 = reasons then direction reason, 2 = the other way round; the
    relation's reasons go into ``why``); any other edge carries them itself: ``[from,
    to, directed, path, label x, label y, relation or -1, type, confidence, label,
    reasons]``."""
    rec: dict[str, Any] = {"id": s.id, "k": [ref(a) for a in s.articles]}
    if set(s.sources) != set(s.articles):
        members = set(s.articles)
        rec["so"] = [ref(a) for a in s.sources if a in members]
    rels = data.story_relations(s)
    if rels:
        rec["rel"] = rels
    g = lineage_graph(data, s) if not (len(s.articles) == 1 and not rels) else None
    if g and g.nodes:
        nodes, pos = [], {}
        for n in g.nodes:
            pos[n.id] = len(nodes)
            if n.kind == "unseen_source":
                nodes.append([1, n.id, n.x, n.y, n.line1, n.line2, n.tooltip])
            else:
                nodes.append([0, ref(n.id), n.x, n.y, n.line1, n.line2, int(n.source)])
        edges = []
        for e in g.edges:
            j = data.pair_index[e.pair] if e.pair else -1
            head = [pos[e.source], pos[e.derivative], int(e.directed), e.path, e.lx, e.ly, j]
            order = _edge_order(data, e, j)
            if order:
                why.add(j)
                edges.append([*head, order])
            else:
                edges.append([*head, e.relation, e.confidence, e.label, e.reasons])
        rec["g"] = [g.width, g.height, nodes, edges, len(g.left_out)]
    qs = data.story_quotes(s)
    if qs:
        rec["q"] = [
            [
                i,
                data.quotes[i]["text"],
                data.quotes[i].get("speaker"),
                len(data.quotes[i].get("articles", [])),
                len(data.quotes[i].get("altered_in") or []),
            ]
            for i in qs
        ]
    return rec


def _edge_order(data: ReportData, e: Edge, j: int) -> int:
    """1 or 2 when edge ``e`` draws relation ``j`` with its type, confidence and label,
    its reasons being the relation's reasons then its direction reason (1) or the other
    way round (2), as the engine's lineage makes them; 0 otherwise."""
    if j < 0:
        return 0
    r = data.relations[j]
    undecided = not e.directed
    label = f"{r['relation']}{' ?' if undecided else ''} {_conf(r['confidence'])}"
    if (e.relation, e.confidence, e.label) != (r["relation"], r["confidence"], label):
        return 0
    dr = [r["direction_reason"]] if r.get("direction_reason") else []
    reasons = list(r.get("reasons", []))
    if e.reasons == reasons + dr:
        return 1
    if e.reasons == dr + reasons:
        return 2
    return 0


def _pair_record(pv: PairView) -> list[Any]:
    """What :func:`pair_view` gives the template, for the page's script: ``[coverage,
    changes, passages]`` (its direction reason and reasons are in ``why``); changes
    ``[kind, severity, line, left start, left end, right start, right end]`` and
    passages ``[left start, left end, right start, right end, shade, quotation only,
    score, meaning, words]`` (spans -1 when absent); the page cuts the texts at them as
    :func:`segments` does."""
    r = pv.relation
    left_is_a = pv.left.id == r["a"]
    cov = []
    for key, v in (r.get("coverage") or {}).items():
        where: int | str = 0 if key == r["a"] else 1 if key == r["b"] else key
        cov.append([where, f"{float(v):.0%}"])
    changes = [
        [
            c.kind,
            c.severity,
            c.description,
            *(c.left or (-1, -1)),
            *(c.right or (-1, -1)),
        ]
        for c in pv.changes
    ]
    passages = []
    for p, al in zip(pv.passages, r.get("alignment", [])):
        a = (al["a_start"], al["a_end"])
        b = (al["b_start"], al["b_end"])
        left, right = (a, b) if left_is_a else (b, a)
        passages.append(
            [
                *left,
                *right,
                p.shade,
                int(p.quote_only),
                _conf(p.score),
                _conf(p.semantic),
                _conf(p.lexical),
            ]
        )
    return [cov, changes, passages]


def _quote_record(q: dict[str, Any], ref: Any) -> list[Any]:
    """A quotation group for the page's script: ``[text, speaker, articles, altered in,
    variants]``, a variant ``[article, wording (null: the group's), speaker]``."""
    return [
        q["text"],
        q.get("speaker"),
        [ref(a) for a in q.get("articles", [])],
        [ref(a) for a in q.get("altered_in") or []],
        [
            [ref(v["article"]), None if v["text"] == q["text"] else v["text"], v.get("speaker")]
            for v in q.get("variants", [])
        ],
    ]


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
