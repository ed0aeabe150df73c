"""Lineage graphs with unseen common sources (texts written for these tests)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

import unspin
from unspin.lineage import build_lineage, outlet_mentions, render_lineage
from unspin.model import Relation, Result, Story

RIVER = "The river has never risen this fast in my lifetime, and we were not ready for it"
PUMPS = "Every pump in the county is on its way to us tonight"
TEXTS = {
    "east": "Merrowdale mayor admits flood surprise\n\nThe river burst its banks on Sunday "
    f'night, the Valley Post reported on Monday. "{RIVER}," Mayor Ilse Trow told the paper. '
    f'"{PUMPS}," she said.',
    "east-copy": "Mayor admits flood surprise\n\nThe river burst its banks late on Sunday "
    f'night, the Valley Post reported on Monday. "{RIVER}," Mayor Ilse Trow told the paper. '
    f'"{PUMPS}," she said.',
    "west": "Floods: mayor says town was caught out\n\nMayor Ilse Trow told The Valley Post "
    'that the town was caught out. "The river has never risen this fast in my lifetime," '
    f'she said. "And we were not ready for it. {PUMPS}."',
    "north": "Pumps sent to Merrowdale\n\nFire crews from four towns drove through the night. "
    f'"{PUMPS}," Trow said, according to the Valley Post.',
    "south": "Merrowdale clean-up begins\n\nVolunteers began clearing mud from the high street "
    "on Tuesday, according to the Merrowdale Herald.",
}


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> Result:
    folder = tmp_path_factory.mktemp("lineage")
    for name, text in TEXTS.items():
        (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    return unspin.scan([folder])


def _with(scanned: Result, relations: list[Relation], articles: list[str]) -> Result:
    """The scanned docs with relations and one story made up for the test."""
    story = Story("s0001", "flood", articles, [])
    return Result([d for d in scanned.docs if d.id in articles], relations, [story], [])


COPY = Relation(
    "east",
    "east-copy",
    "copy",
    0.95,
    source="east",
    derivative="east-copy",
    direction_reason="east-copy was published 2 hours later",
    reasons=["90% of east aligned"],
)
UNDECIDED = Relation(
    "south",
    "west",
    "partial",
    0.6,
    direction_reason="direction undecided: no publication times",
    reasons=["one passage aligned"],
)


def test_outlet_mentions(scanned: Result) -> None:
    names = {d.id: [n for _, n in outlet_mentions(d)] for d in scanned.docs}
    assert names["east"] == ["Valley Post"] and names["west"] == ["Valley Post"]
    assert names["south"] == ["Merrowdale Herald"]


def test_unseen_source_credited_outlet_and_inheritance(scanned: Result) -> None:
    (lineage,) = build_lineage(_with(scanned, [COPY, UNDECIDED], list(TEXTS)))
    (unseen,) = [n for n in lineage.nodes if n.kind == "unseen_source"]
    assert unseen.outlet == "Valley Post"
    # one node: the two quotations' groups share the heads or the credited outlet
    assert sorted(unseen.articles) == ["east", "east-copy", "north", "west"]
    assert len(unseen.passages) == 2
    quoted = {e.derivative: e for e in lineage.edges if e.relation == "quoted"}
    assert sorted(quoted) == ["east", "north", "west"]  # east-copy inherits from east
    assert all(
        e.directed and e.source == unseen.id and 0.5 <= e.confidence <= 0.9 for e in quoted.values()
    )
    assert "no article in the set originates" in quoted["east"].reasons[0]
    copy = next(e for e in lineage.edges if e.relation == "copy")
    assert (copy.source, copy.derivative, copy.directed) == ("east", "east-copy", True)
    partial = next(e for e in lineage.edges if e.relation == "partial")
    assert not partial.directed and partial.reasons[0] == UNDECIDED.direction_reason


def test_no_unseen_source_when_one_article_copied_the_other(scanned: Result) -> None:
    (lineage,) = build_lineage(_with(scanned, [COPY], ["east", "east-copy"]))
    assert [n.kind for n in lineage.nodes] == ["article", "article"]
    assert [e.relation for e in lineage.edges] == ["copy"]


def test_render_and_record(scanned: Result) -> None:
    (lineage,) = build_lineage(_with(scanned, [COPY, UNDECIDED], list(TEXTS)))
    out = io.StringIO()
    Console(file=out, width=150).print(render_lineage(lineage))
    lines = out.getvalue().splitlines()
    at = {
        key: next(i for i, ln in enumerate(lines) if key in ln)
        for key in ("[unseen]", "quoted (", "copy (")
    }
    assert "[unseen] Valley Post" in lines[at["[unseen]"]]
    assert at["[unseen]"] < at["quoted ("] < at["copy ("]
    assert "direction undecided" in out.getvalue()
    rec = json.loads(json.dumps(lineage.to_record()))
    assert rec["story"] == "s0001" and {n["id"] for n in rec["nodes"]} >= set(TEXTS)


def test_one_lineage_per_story_end_to_end(scanned: Result) -> None:
    lineages = build_lineage(scanned)
    assert [lin.story for lin in lineages] == [s.id for s in scanned.stories]
    for lin, story in zip(lineages, scanned.stories):
        assert [n.id for n in lin.nodes if n.kind == "article"] == story.articles


@pytest.mark.shared
def test_seed_lineage_unseen_new_york_post(shared: Path) -> None:
    result = unspin.scan([shared / "seeds"])
    ids = {
        p: next(d.id for d in result.docs if d.id.startswith(p))
        for p in ("000", "001", "002", "003")
    }
    (lineage,) = [lin for lin in build_lineage(result) if ids["001"] in {n.id for n in lin.nodes}]
    unseen = [n for n in lineage.nodes if n.kind == "unseen_source" and n.outlet == "New York Post"]
    assert unseen and {ids["001"], ids["002"], ids["003"]} <= set(unseen[0].articles)
    spun = [e for e in lineage.edges if (e.source, e.derivative) == (ids["001"], ids["000"])]
    assert spun and spun[0].directed and spun[0].relation == "spun"
