"""The terminal summary of a scan: each story as a lineage tree, then counts by relation.

Two layers, so other front ends (a future HTML report) can reuse the same ordering and
tree without rich: :func:`summarise` turns a ``Result`` into plain dataclasses
(stories largest first, each a forest of :class:`Node`), and :func:`render_summary`
turns those into a rich renderable.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.text import Text
from rich.tree import Tree

from unspin.model import RELATIONS, REUSE_RELATIONS, Relation, Result

#: titles longer than this are cut with an ellipsis
TITLE_CHARS = 48
#: at most this many extra links are listed under one article
MAX_ALSO = 3

#: characters that act on a terminal instead of showing: C0 and C1 controls (escape
#: sequences: clear screen, clipboard writes, hyperlinks), DEL, bidirectional overrides
#: and isolates (text shown in another order than stored), lone surrogates (cannot be
#: encoded)
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def safe(text: object, newlines: bool = False) -> str:
    """``text`` as it can be printed to a terminal: every control character shown as an
    escape (``\\x1b``, ``\\u202e``) instead of acting; ``newlines`` keeps line breaks.
    Everything printed from input data (ids, titles, file names, passages, reasons) goes
    through this."""

    def esc(m: re.Match[str]) -> str:
        c = m.group(0)
        if newlines and c == "\n":
            return c
        return f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}"

    return _UNSAFE.sub(esc, str(text))


_STYLE = {
    "duplicate": "bold red",
    "copy": "red",
    "spun": "magenta",
    "translation": "cyan",
    "partial": "yellow",
    "same_story": "green",
    "related": "blue",
}


@dataclass
class Link:
    """A reuse relation as seen from one article: its kind, strength and the other end."""

    relation: str
    confidence: float
    other: str
    #: False when the pipeline could not tell which article came first
    directed: bool
    #: True when ``other`` is the source of this article, False when it is derived from it
    #: (None when undirected)
    from_other: bool | None = None
    #: the other end is in a different story (only for ``Node.also``)
    other_story: str | None = None


@dataclass
class Node:
    """One article in a story's lineage tree."""

    id: str
    title: str | None
    outlet: str | None
    #: how this article hangs under its parent (None for roots)
    link: Link | None = None
    children: list[Node] = field(default_factory=list)
    #: no reuse relation with any other article in the story (only same_story/related)
    independent: bool = False
    #: reuse relations not shown by the tree's edges
    also: list[Link] = field(default_factory=list)
    #: change kind -> count, for what this article changed from its source
    changes: dict[str, int] = field(default_factory=dict)


@dataclass
class StorySummary:
    id: str
    label: str
    n_articles: int
    roots: list[Node]
    #: common sources none of the articles is: (outlet or None, carrying articles, n quotes)
    unseen: list[tuple[str | None, list[str], int]] = field(default_factory=list)


@dataclass
class Summary:
    stories: list[StorySummary]
    #: relation type -> number of relations, in the order of ``unspin.model.RELATIONS``
    counts: dict[str, int]
    n_articles: int
    n_errors: int
    n_warnings: int


def _strength(r: Relation) -> tuple[int, float]:
    """Sort key: stronger reuse type first, then higher confidence."""
    return (REUSE_RELATIONS.index(r.relation), -r.confidence)


def _lineage(story_ids: list[str], sources: list[str], reuse: list[Relation]) -> dict:
    """Parent of each article (id -> (parent id, Relation, directed)) with no cycles."""
    parent: dict[str, tuple[str, Relation, bool]] = {}

    def ancestors(x: str) -> set[str]:
        seen = set()
        while x in parent and x not in seen:
            seen.add(x)
            x = parent[x][0]
        return seen | {x}

    directed = sorted((r for r in reuse if r.source and r.derivative), key=_strength)
    for r in directed:
        src, der = r.source, r.derivative
        if der in parent or der in ancestors(src):
            continue
        parent[der] = (src, r, True)
    rank = {a: i for i, a in enumerate(sources + [a for a in story_ids if a not in sources])}
    undirected = sorted((r for r in reuse if not (r.source and r.derivative)), key=_strength)
    for r in undirected:
        # hang the later-ranked parentless end under the other one
        a, b = sorted((r.a, r.b), key=lambda x: rank.get(x, len(rank)))
        for up, down in ((a, b), (b, a)):
            if down not in parent and down not in ancestors(up):
                parent[down] = (up, r, False)
                break
    return parent


def summarise(result: Result) -> Summary:
    """The summary as plain data: stories largest first, each article placed once."""
    info = {d.id: d.article for d in result.docs}
    unseen_of: dict[str, list] = {}
    for lin in result.lineage:
        unseen_of[lin.story] = [
            (n.outlet, list(n.articles), len(n.passages))
            for n in lin.nodes
            if n.kind == "unseen_source"
        ]
    changed: dict[str, Counter] = {}
    for c in result.changes:
        if c.directed:  # a pair of unknown direction: nobody is known to have changed it
            changed.setdefault(c.derivative, Counter())[c.kind] += 1
    story_of = {a: s.id for s in result.stories for a in s.articles}
    stories = sorted(result.stories, key=lambda s: (-len(s.articles), s.id))
    # the reuse relations indexed once by article, with their places in the result's
    # order and in order of strength (stable), so each story reads only the relations
    # of its own articles: one pass over the pile, not one per story (19,043 Reuters
    # articles in 15,623 stories took ~10 min to summarise)
    reuse = [r for r in result.relations if r.relation in REUSE_RELATIONS]
    place = {id(r): k for k, r in enumerate(reuse)}
    strength = {id(r): k for k, r in enumerate(sorted(reuse, key=_strength_any))}
    touching: dict[str, list[Relation]] = {}
    for r in reuse:
        for end in {r.a, r.b}:
            touching.setdefault(end, []).append(r)
    out = []
    for s in stories:
        members = set(s.articles)
        near = list({id(r): r for a in s.articles for r in touching.get(a, ())}.values())
        inside = sorted(
            (r for r in near if r.a in members and r.b in members), key=lambda r: place[id(r)]
        )
        parent = _lineage(s.articles, [a for a in s.sources if a in members], inside)
        nodes = {}
        for a in s.articles:
            art = info.get(a)
            nodes[a] = Node(
                id=a,
                title=art.title if art else None,
                outlet=art.outlet if art else None,
                changes=dict(changed.get(a, {})),
            )
        in_tree = set()
        for child, (up, r, directed) in parent.items():
            nodes[child].link = Link(r.relation, r.confidence, up, directed, directed or None)
            nodes[up].children.append(nodes[child])
            in_tree.add((r.a, r.b))
        linked = {x for r in inside for x in (r.a, r.b)}
        for r in sorted(near, key=lambda r: strength[id(r)]):
            if (r.a, r.b) in in_tree:
                continue
            for me, other in ((r.a, r.b), (r.b, r.a)):
                if me in members:
                    directed = bool(r.source and r.derivative)
                    where = story_of.get(other)
                    nodes[me].also.append(
                        Link(
                            r.relation,
                            r.confidence,
                            other,
                            directed,
                            (r.source == other) if directed else None,
                            where if where != s.id else None,
                        )
                    )
                    linked.add(me)
                    break
        order = {a: i for i, a in enumerate(s.articles)}
        for n in nodes.values():
            n.children.sort(key=lambda c: (_node_strength(c), order[c.id]))
            n.independent = len(s.articles) > 1 and n.id not in linked
        root_order = [a for a in s.sources if a in nodes] + s.articles
        seen: set[str] = set()
        roots = []
        for a in root_order:
            if a not in seen and a not in parent:
                seen.add(a)
                roots.append(nodes[a])
        # reused articles first, independent coverage after them
        roots.sort(key=lambda n: n.independent)
        out.append(StorySummary(s.id, s.label, len(s.articles), roots, unseen_of.get(s.id, [])))
    counts = Counter(r.relation for r in result.relations)
    ordered = {k: counts[k] for k in RELATIONS if counts[k]}
    ordered.update({k: v for k, v in counts.items() if k not in ordered})
    return Summary(
        stories=out,
        counts=ordered,
        n_articles=len(result.docs),
        n_errors=sum(e.severity == "error" for e in result.errors),
        n_warnings=sum(e.severity != "error" for e in result.errors),
    )


def _strength_any(r: Relation) -> tuple[int, float]:
    rank = REUSE_RELATIONS.index(r.relation) if r.relation in REUSE_RELATIONS else 99
    return (rank, -r.confidence)


def _node_strength(n: Node) -> tuple[int, float]:
    if n.link is None:
        return (99, 0.0)
    return (REUSE_RELATIONS.index(n.link.relation), -n.link.confidence)


def _truncate(text: str | None, n: int = TITLE_CHARS) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _link_text(link: Link) -> Text:
    t = Text()
    mark = "" if link.directed else " ?"
    t.append(f"{safe(link.relation)}{mark}", style=_STYLE.get(link.relation, ""))
    t.append(f" ({link.confidence:.2f}) ")
    return t


def _node_label(n: Node) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    if n.link is not None:
        t.append_text(_link_text(n.link))
    t.append(safe(n.id), style="bold")
    if n.link is not None and not n.link.directed:
        t.append(" direction undecided", style="italic")
    if n.independent:
        t.append(" independent", style="green italic")
    if n.title:
        t.append(f"  {safe(_truncate(n.title))}", style="dim")
    if n.outlet:
        t.append(f" · {safe(n.outlet)}", style="dim")
    if n.changes:
        changed = ", ".join(f"{v} {safe(k)}" for k, v in n.changes.items())
        t.append("\n  changed: " + changed, style="red")
    return t


def _add(tree: Tree, n: Node) -> None:
    branch = tree.add(_node_label(n))
    if n.also:
        t = Text("also: ", style="dim", no_wrap=True, overflow="ellipsis")
        for i, link in enumerate(n.also[:MAX_ALSO]):
            if i:
                t.append("; ", style="dim")
            t.append_text(_link_text(link))
            arrow = {True: "← ", False: "→ ", None: "↔ "}[link.from_other]
            t.append(arrow + safe(link.other), style="dim")
            if link.other_story:
                t.append(f" [{safe(link.other_story)}]", style="dim")
        if len(n.also) > MAX_ALSO:
            t.append(f"; +{len(n.also) - MAX_ALSO} more", style="dim")
        branch.add(t)
    for c in n.children:
        _add(branch, c)


def render_summary(result: Result | Summary) -> RenderableType:
    """The summary as a rich renderable (print it with ``rich.console.Console.print``)."""
    summary = result if isinstance(result, Summary) else summarise(result)
    parts: list[RenderableType] = []
    for s in summary.stories:
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append(safe(s.id), style="bold")
        head.append(f"  {safe(_truncate(s.label, 60))}")
        noun = "article" if s.n_articles == 1 else "articles"
        head.append(f"  ({s.n_articles} {noun})", style="dim")
        tree = Tree(head, guide_style="dim")
        for outlet, carriers, n_quotes in s.unseen:
            line = Text("[unseen source] ", style="bold blue")
            line.append(safe(outlet or "unnamed"))
            line.append(
                f"  {n_quotes} shared quotation{'s' * (n_quotes != 1)}, quoted by "
                + ", ".join(map(safe, carriers)),
                style="dim",
            )
            tree.add(line)
        for root in s.roots:
            _add(tree, root)
        parts += [tree, Text("")]
    foot = Text()
    n_stories = len(summary.stories)
    foot.append(
        f"{summary.n_articles} article{'s' * (summary.n_articles != 1)} in "
        f"{n_stories} stor{'y' if n_stories == 1 else 'ies'}",
        style="bold",
    )
    if summary.counts:
        foot.append("\nrelations: ")
        for i, (kind, n) in enumerate(summary.counts.items()):
            if i:
                foot.append(", ")
            foot.append(f"{n} {safe(kind)}", style=_STYLE.get(kind, ""))
    else:
        foot.append("\nno relations found")
    parts.append(foot)
    return Group(*parts)
