"""End to end on the bundled (fictional, project-written) examples with the default model."""

from __future__ import annotations

from pathlib import Path

import pytest

import unspin
from unspin.model import REUSE_RELATIONS, Article
from unspin.pipeline import Config

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "articles"


@pytest.fixture(scope="module")
def result() -> unspin.Result:
    return unspin.scan([EXAMPLES])


def rel(result: unspin.Result, a: str, b: str) -> str | None:
    r = result.relation(a, b)
    return r.relation if r else None


@pytest.mark.parametrize(
    "a, b, expected",
    [
        ("coastline-bridge-vote", "coastline-bridge-vote-dup", "duplicate"),
        ("gazette-ferry-strike", "coastline-ferry-strike-wire", "copy"),
        ("gazette-ferry-strike", "spin-ferry-strike", "spun"),
        ("gazette-ferry-strike", "gazette-ferry-strike-es", "translation"),
        ("gazette-ferry-strike", "gazette-ferry-strike-partial", "partial"),
        ("gazette-ferry-strike", "northgate-ferry-strike", "same_story"),
    ],
)
def test_relation_types(result: unspin.Result, a: str, b: str, expected: str) -> None:
    assert rel(result, a, b) == expected


def test_evidence_offsets_point_into_both_texts(result: unspin.Result) -> None:
    r = result.relation("gazette-ferry-strike", "coastline-ferry-strike-wire")
    texts = {d.id: d.article.text for d in result.docs}
    assert r.alignment and set(r.coverage) == {r.a, r.b}
    for p in r.alignment:
        left, right = texts[r.a][p.a_start : p.a_end], texts[r.b][p.b_start : p.b_end]
        assert left.strip() and right.strip()
        assert 0 <= p.score <= 1
    assert all(0 <= c <= 1 for c in r.coverage.values())


def test_independent_coverage_is_not_reuse(result: unspin.Result) -> None:
    for other in ("gazette-ferry-strike", "coastline-ferry-strike-wire", "spin-ferry-strike"):
        assert rel(result, "northgate-ferry-strike", other) not in REUSE_RELATIONS


def test_unrelated_story_stands_alone(result: unspin.Result) -> None:
    story = result.story_of("gazette-school-roof")
    assert story.articles == ["gazette-school-roof"]
    ferry = result.story_of("gazette-ferry-strike")
    assert {"spin-ferry-strike", "coastline-ferry-strike-wire", "northgate-ferry-strike"} <= set(
        ferry.articles
    )
    assert result.story_of("coastline-bridge-vote") is result.story_of("coastline-bridge-vote-dup")


def test_every_pair_has_at_most_one_relation(result: unspin.Result) -> None:
    keys = [(r.a, r.b) for r in result.relations]
    assert len(keys) == len(set(keys))
    assert all(r.a < r.b for r in result.relations)


@pytest.mark.xfail(
    strict=True,
    reason="known miss: the earlier 2024 strike (same union leader and mayor) is merged into "
    "the 2026 strike's story; look-alike events with a shared cast are not yet separated",
)
def test_earlier_strike_is_a_different_story(result: unspin.Result) -> None:
    assert result.story_of("gazette-ferry-strike-2024") is not result.story_of(
        "gazette-ferry-strike"
    )


def test_spun_copy_direction_from_artefacts(result: unspin.Result) -> None:
    r = result.relation("gazette-ferry-strike", "spin-ferry-strike")
    assert (r.source, r.derivative) == ("gazette-ferry-strike", "spin-ferry-strike")
    assert "artefacts" in r.direction_reason


def test_undecided_direction_says_why(result: unspin.Result) -> None:
    r = result.relation("coastline-bridge-vote", "coastline-bridge-vote-dup")
    assert r.source is None and r.derivative is None
    assert "undecided" in r.direction_reason


def _gazette_and_wire(outlet: str | None) -> tuple[Article, Article]:
    """The gazette original as a dropped file (no outlet field; its own byline "Reporting
    by Priya Halvorsen for The Harbour Gazette.") and its wire copy pasted as text."""
    gazette = Article(
        id="dropped-story", text=(EXAMPLES / "gazette-ferry-strike.txt").read_text("utf-8")
    )
    wire = Article(
        id="pasted",
        title="Pasted ferry report",
        outlet=outlet,
        text=(EXAMPLES / "coastline-ferry-strike-wire.txt").read_text("utf-8"),
    )
    return gazette, wire


@pytest.mark.parametrize("outlet", ["Pasted Post", None])
def test_an_originals_own_byline_is_no_credit(outlet: str | None) -> None:
    """The gazette original beside its wire copy (the browser test's upload, through the
    library): the original's byline names its own outlet, and the wire copy says who
    published it (an outlet field, or its own "Reporting by Coastline Wire staff" line),
    so the byline is no credit to an outlet named nowhere else and the original stays the
    source (branch ``dirfix`` named it the derivative). In a larger pile, see
    ``test_evidence.py::test_a_byline_is_no_credit_when_the_other_text_is_signed``."""
    gazette, wire = _gazette_and_wire(outlet)
    fast = Config(embedder="hashing")
    rel = unspin.compare(gazette, wire, config=fast)
    assert (rel.source, rel.derivative) == ("dropped-story", "pasted")
    assert "harbour gazette" not in rel.direction_reason
