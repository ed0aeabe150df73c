"""``unspin.compare(a, b)`` is ``unspin.scan([a, b])`` read for one pair (issue 11)."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import pytest

import unspin
from unspin.ingest import read_paths
from unspin.model import REUSE_RELATIONS, Article

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "articles"


@pytest.fixture(scope="module")
def articles() -> list[Article]:
    arts, errors = read_paths([EXAMPLES])
    assert not errors and len(arts) >= 10
    return sorted(arts, key=lambda a: a.id)


def _key(rel) -> tuple:
    return (rel.relation, rel.source, rel.derivative, rel.confidence)


def test_compare_gives_the_scans_relation_for_every_pair_of_the_examples(articles) -> None:
    """Type, direction and confidence agree for all 45 pairs, with the default model."""
    kinds = set()
    for a, b in itertools.combinations(articles, 2):
        got = unspin.compare(a, b)
        found = unspin.scan([a, b]).relation(a.id, b.id)
        assert (got.a, got.b) == tuple(sorted((a.id, b.id)))
        if found is None:
            assert got.relation == "unrelated", (a.id, b.id)
        else:
            assert _key(got) == _key(found), (a.id, b.id)
            assert got.reasons == found.reasons
            if found.relation in REUSE_RELATIONS:
                assert got.alignment == found.alignment
        kinds.add(got.relation)
    # the pairs cover every kind the examples hold, so the check is not vacuous
    assert {"duplicate", "copy", "spun", "translation", "partial", "same_story"} <= kinds
    assert "unrelated" in kinds


def test_compare_leaves_the_callers_articles_unchanged() -> None:
    text = (EXAMPLES / "gazette-ferry-strike.txt").read_text(encoding="utf-8")
    a = Article(id="same", text=text, title="Ferry strike", meta={"k": [1]})
    b = Article(id="same", text=text.replace("Tuesday", "Wednesday"), meta={"k": [2]})
    before = (dataclasses.replace(a, meta={"k": [1]}), dataclasses.replace(b, meta={"k": [2]}))
    rel = unspin.compare(a, b, unspin.Config(embedder="hashing"))
    assert (a, b) == before
    assert {rel.a, rel.b} == {"same", "same~2"}  # the copy is renamed, not the caller's
    assert rel.relation in REUSE_RELATIONS


def test_compare_fills_the_story_features_as_a_scan_does(articles) -> None:
    """``keys_local`` (the story model's largest weight) is the scan's, not left at 0."""
    by_id = {a.id: a for a in articles}
    a, b = by_id["gazette-ferry-strike"], by_id["northgate-ferry-strike"]
    got = unspin.compare(a, b)
    assert got.relation == "same_story"
    assert got.features["keys_local"] > 0
    assert got.features == unspin.scan([a, b]).relation(a.id, b.id).features
    assert got.features["quotes"] > 0  # the line of Kessling's both reporters heard
