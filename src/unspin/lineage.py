"""Per-story lineage graphs, including common sources that are not in the pile.

A story's articles are the nodes and its reuse relations the edges (directed only when
the pipeline decided the direction). When independent articles (no reuse relation
links them) carry the same quotations, they drew on something outside the pile, such
as a newspaper's scoop that each reported; that is added as an ``unseen_source`` node
named, where the articles say so, by the outlet they credit ("…, the New York Post
reported").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict, deque
from dataclasses import dataclass

import networkx as nx
import regex
from rich.text import Text
from rich.tree import Tree

from unspin.model import REUSE_RELATIONS, Doc, Relation, Result, Story
from unspin.quotes import QuoteGroup, quote_groups, quote_words

#: words that mark a name as a news outlet ("New York Post", "NewsNation", "AP")
_MEDIA = frozenset(
    """post times news journal herald tribune telegraph guardian press reuters bloomberg
    axios politico gazette daily magazine wire radio tv television network chronicle
    observer star sun mail express independent insider standard record courier examiner
    inquirer globe mirror bulletin dispatch reporter monitor review today agency cnn bbc
    nbc abc cbs msnbc fox npr pbs ap afp upi dpa efe""".split()
)
#: an outlet: a run of words opening with a capital of any script (``regex``: \p{Lu})
_ONAME = r"(?:[Tt]he\s+)?(?P<o>\p{Lu}[\w&'’.-]*(?:\s+(?:\p{Lu}[\w&'’.-]*|of))*)"
#: "told The New York Post", "according to NewsNation", "reported by Reuters"
_CREDIT_TO = regex.compile(
    rf"\b(?:told|to|according to|reported by|by|via|citing|with|in|on)\s+{_ONAME}"
)
#: "the New York Post reported", "Axios first reported"
_CREDIT_BY = regex.compile(rf"{_ONAME}\s+(?:first\s+|has\s+|had\s+|also\s+)?(?:reported|reports)\b")


def _outlet_name(name: str) -> str:
    """``The New York Post's`` -> ``New York Post``."""
    return re.sub(r"^(?:the|The)\s+|['’]s?$|\s+of$", "", " ".join(name.split()).rstrip("."))


def _outlet_like(name: str, reported: bool) -> bool:
    """A news outlet: has a media word, or reports things and is not a plain word."""
    low = name.lower()
    if "news" in low or _MEDIA & set(low.split()):
        return True
    return reported and (len(name.split()) > 1 or sum(c.isupper() for c in name) > 1)


def outlet_mentions(doc: Doc) -> list[tuple[int, str]]:
    """(sentence index, outlet) for each outlet the article credits, outside boilerplate
    and other than its own outlet."""
    own = _outlet_name(doc.article.outlet or "").lower()
    out = []
    for s in doc.sentences:
        if s.boilerplate:
            continue
        for rx, reported in ((_CREDIT_TO, False), (_CREDIT_BY, True)):
            for m in rx.finditer(s.text):
                name = _outlet_name(m.group("o"))
                if name and name.lower() != own and _outlet_like(name, reported):
                    out.append((s.index, name))
    return sorted(out)


def _fold(names: set[str]) -> dict[str, str]:
    """Map short forms to a longer name they end ("Post" -> "New York Post")."""
    out = {}
    for n in names:
        longer = [m for m in names if m != n and m.lower().endswith(" " + n.lower())]
        out[n] = max(longer, key=len) if longer else n
    return out


@dataclass
class LineageNode:
    """An article of the story, or a common source none of its articles is."""

    id: str
    kind: str  # "article" | "unseen_source"
    title: str | None
    outlet: str | None
    #: unseen sources: the quotations the articles share
    passages: list[str]
    #: unseen sources: the articles that carry them
    articles: list[str]

    def to_record(self) -> dict:
        # the fields in order, lists copied: what ``asdict`` gives, without its deep copy
        # of every string (the lineage table is rebuilt on every add)
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "outlet": self.outlet,
            "passages": list(self.passages),
            "articles": list(self.articles),
        }


@dataclass
class LineageEdge:
    """``derivative`` was made from (or quotes) ``source``; undirected when undecided."""

    source: str
    derivative: str
    relation: str
    confidence: float
    directed: bool
    reasons: list[str]

    def to_record(self) -> dict:
        return {
            "source": self.source,
            "derivative": self.derivative,
            "relation": self.relation,
            "confidence": round(self.confidence, 4),
            "directed": self.directed,
            "reasons": list(self.reasons),
        }


@dataclass
class Lineage:
    """One story's lineage graph (one line of ``lineage.jsonl``)."""

    story: str
    nodes: list[LineageNode]
    edges: list[LineageEdge]

    def to_record(self) -> dict:
        return {
            "story": self.story,
            "nodes": [n.to_record() for n in self.nodes],
            "edges": [e.to_record() for e in self.edges],
        }


def _reuse_edge(r: Relation) -> LineageEdge:
    why = [r.direction_reason] if r.direction_reason else []
    if r.source and r.derivative:
        return LineageEdge(r.source, r.derivative, r.relation, r.confidence, True, r.reasons + why)
    return LineageEdge(r.a, r.b, r.relation, r.confidence, False, why + r.reasons)


def _heads(carriers: list[str], reuse: list[Relation]) -> list[list[str]]:
    """The carriers grouped by reuse (one list per independent line), each list holding
    the carriers not derived from another carrier: a derivative inherits its source's
    quotations and needs no edge of its own."""
    inside = set(carriers)
    graph = nx.Graph()
    graph.add_nodes_from(carriers)
    derived = set()
    for r in reuse:
        if r.a in inside and r.b in inside:
            graph.add_edge(r.a, r.b)
            if r.source in inside:
                derived.add(r.derivative)
    lines = []
    for comp in nx.connected_components(graph):
        members = [a for a in carriers if a in comp]
        lines.append([a for a in members if a not in derived] or members[:1])
    return lines


def _credits(
    docs: dict[str, Doc], groups: list[QuoteGroup], carriers: list[str]
) -> list[tuple[str, int]]:
    """``(outlet, n)`` best first: ``n`` carrying articles credit that outlet nearest to
    the shared quotations (ties go to the outlet they name most often)."""
    mentions = {a: outlet_mentions(docs[a]) for a in carriers}
    fold = _fold({n for ms in mentions.values() for _, n in ms})
    total = Counter(fold[n] for ms in mentions.values() for _, n in ms)
    votes: Counter[str] = Counter()
    for a, ms in mentions.items():
        spans = [(v.start, v.end) for g in groups for v in g.variants if v.article == a]
        at = [
            s.index for s in docs[a].sentences if any(s.start < e and s.end > b for b, e in spans)
        ]
        if ms and at:
            near = min(ms, key=lambda m: (min(abs(m[0] - i) for i in at), -total[fold[m[1]]]))
            votes[fold[near[1]]] += 1
    return sorted(votes.items(), key=lambda kv: (-kv[1], -total[kv[0]]))


def _unseen(
    story: Story, groups: list[QuoteGroup], reuse: list[Relation], docs: dict[str, Doc]
) -> tuple[list[LineageNode], list[LineageEdge]]:
    """Unseen common sources of the story: quotation groups carried by two or more
    independent lines of articles, merged when they share the same heads or the same
    credited outlet."""
    by_heads: dict[frozenset[str], list[QuoteGroup]] = defaultdict(list)
    for g in groups:
        carriers = [a for a in story.articles if a in g.articles]
        lines = _heads(carriers, reuse) if len(carriers) > 1 else []
        if len(lines) > 1:
            by_heads[frozenset(a for line in lines for a in line)].append(g)
    carrying = lambda gs: [a for a in story.articles if any(a in g.articles for g in gs)]
    slots: dict[str | frozenset[str], tuple[set[str], list[QuoteGroup]]] = {}
    for key, gs in by_heads.items():
        credits = _credits(docs, gs, carrying(gs))
        slot = credits[0][0] if credits else key
        heads, prev = slots.get(slot, (set(), []))
        slots[slot] = (heads | key, prev + gs)
    nodes, edges = [], []
    ranked = sorted(slots.items(), key=lambda kv: -len(carrying(kv[1][1])))
    for k, (slot, (heads, gs)) in enumerate(ranked, 1):
        outlet = slot if isinstance(slot, str) else None
        node_id, articles = f"{story.id}:unseen-{k}", carrying(gs)
        passages = [g.text for g in gs]
        nodes.append(LineageNode(node_id, "unseen_source", None, outlet, passages, articles))
        named = dict(_credits(docs, gs, articles)).get(outlet, 0)
        for a in (a for a in story.articles if a in heads):
            mine = [g for g in gs if a in g.articles]
            n_words = sum(len(quote_words(g.text)) for g in mine)
            conf = min(0.9, 0.5 + 0.1 * (len(heads) - 2) + 0.2 * min(1.0, n_words / 40))
            shown = "; ".join(f'"{_cut(g.text, 60)}" ({g.id})' for g in mine[:3])
            more = f" and {len(mine) - 3} more" if len(mine) > 3 else ""
            why = [
                f"shares quotation(s) {shown}{more} that no article in the set originates, "
                f"with {len(heads) - 1} other independent article(s)"
            ]
            if outlet:
                why.append(f"{named} of {len(articles)} carrying articles credit {outlet}")
            edges.append(LineageEdge(node_id, a, "quoted", round(conf, 4), True, why))
    return nodes, edges


def build_lineage(result: Result, groups: list[QuoteGroup] | None = None) -> list[Lineage]:
    """One lineage graph per story: its articles, reuse edges and unseen common sources.

    ``groups`` defaults to :func:`unspin.quotes.quote_groups` over the result's docs.
    """
    groups = quote_groups(result.docs) if groups is None else groups
    docs = {d.id: d for d in result.docs}
    out = []
    for story in result.stories:
        members = set(story.articles)
        reuse = [
            r
            for r in result.relations
            if r.relation in REUSE_RELATIONS and r.a in members and r.b in members
        ]
        nodes = [
            LineageNode(a, "article", docs[a].article.title, docs[a].article.outlet, [], [])
            for a in story.articles
        ]
        unseen_nodes, unseen_edges = _unseen(story, groups, reuse, docs)
        edges = [_reuse_edge(r) for r in reuse] + unseen_edges
        out.append(Lineage(story.id, nodes + unseen_nodes, edges))
    return out


def _cut(text: str | None, n: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _label(node: LineageNode, edge: LineageEdge | None) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    if edge is not None:
        undecided = "" if edge.directed else ", direction undecided"
        t.append(f"{edge.relation} ({edge.confidence:.2f}{undecided}) ")
    if node.kind == "unseen_source":
        t.append(f"[unseen] {node.outlet or 'unnamed common source'}")
        t.append(f"  ({len(node.passages)} shared quotation(s))")
    else:
        t.append(node.id)
        if node.outlet:
            t.append(f" · {node.outlet}")
        if node.title:
            t.append(f"  {_cut(node.title, 48)}")
    return t


def render_lineage(lineage: Lineage) -> Tree:
    """The lineage as a text tree: sources at the root, derivatives under them.

    Unseen sources and articles derived from no other come first; the tree grows
    breadth first along the edges (undirected ones either way, marked undecided), and
    an edge to an article already placed is listed on an "also" line instead.
    """
    nodes = {n.id: n for n in lineage.nodes}
    adjacent: dict[str, list[tuple[LineageEdge, str]]] = defaultdict(list)
    for e in lineage.edges:
        adjacent[e.source].append((e, e.derivative))
        if not e.directed:
            adjacent[e.derivative].append((e, e.source))
    derived = {e.derivative for e in lineage.edges if e.directed}
    roots = [n.id for n in lineage.nodes if n.kind == "unseen_source"]
    roots += [n.id for n in lineage.nodes if n.kind == "article" and n.id not in derived]
    tree = Tree(Text(f"story {lineage.story}"))
    placed: dict[str, Tree] = {}
    done: set[int] = set()
    for root in roots + list(nodes):  # the plain node list only matters for cycles
        if root in placed:
            continue
        placed[root] = tree.add(_label(nodes[root], None))
        queue = deque([root])
        while queue:
            x = queue.popleft()
            new, also = [], []
            for e, y in adjacent[x]:
                if id(e) not in done:
                    done.add(id(e))
                    # an article is placed under its known source, not an undecided link
                    later = y in placed or y in dict(new) or (not e.directed and y in derived)
                    (also if later else new).append((y, e))
            if also:
                line = "; ".join(f"{e.relation} {'→' if e.directed else '↔'} {y}" for y, e in also)
                placed[x].add(Text(f"also: {line}", no_wrap=True, overflow="ellipsis"))
            for y, e in new:
                placed[y] = placed[x].add(_label(nodes[y], e))
                queue.append(y)
    return tree
