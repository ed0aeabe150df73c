"""Acceptance tests on the third-party data in ../shared (skipped, saying why, without it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import unspin
from unspin.model import Article
from unspin.pipeline import Config, analyse, fingerprint

pytestmark = pytest.mark.shared
STRONG = {"duplicate", "copy", "spun", "translation"}
REUSE = STRONG | {"partial"}


@pytest.fixture(scope="module")
def seeds(shared: Path) -> unspin.Result:
    return unspin.scan([shared / "seeds"])


def _id(result: unspin.Result, prefix: str) -> str:
    (hit,) = [d.id for d in result.docs if d.id.startswith(prefix)]
    return hit


def test_seed_spun_copy_traced_to_its_source(seeds: unspin.Result) -> None:
    s000, s001 = _id(seeds, "000_"), _id(seeds, "001_")
    r = seeds.relation(s000, s001)
    assert r.relation == "spun"
    assert (r.source, r.derivative) == (s001, s000)


def test_seed_independent_writeups_are_same_story_not_reuse(seeds: unspin.Result) -> None:
    s001, s002, s003 = (_id(seeds, p) for p in ("001_", "002_", "003_"))
    for a, b in ((s002, s001), (s003, s001), (s002, s003)):
        assert seeds.relation(a, b).relation == "same_story"
    for r in seeds.relations:
        if s002 in (r.a, r.b) or s003 in (r.a, r.b):
            assert r.relation not in REUSE, r


def test_seed_other_meeting_is_never_reuse(seeds: unspin.Result) -> None:
    s004 = _id(seeds, "004_")
    for r in seeds.relations:
        if s004 in (r.a, r.b):
            assert r.relation not in REUSE, r


def test_seed_stories(seeds: unspin.Result) -> None:
    got = sorted(sorted(s.articles) for s in seeds.stories)
    want = sorted(
        [sorted(_id(seeds, p) for p in ("000_", "001_", "002_", "003_")), [_id(seeds, "004_")]]
    )
    assert got == want
    s004 = _id(seeds, "004_")
    assert all(r.relation == "related" for r in seeds.relations if s004 in (r.a, r.b))


def test_meantime_translations(shared: Path) -> None:
    arts = []
    for lang in ("en", "es"):
        path = shared / "data" / "meantime" / f"meantime_{lang}.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            arts.append(Article(id=f"{row['doc_id']}/{lang}", text=row["text"]))
    cfg = Config()
    result = analyse(fingerprint(arts, cfg), cfg)
    doc_ids = {a.id.split("/")[0] for a in arts}
    for d in doc_ids:
        r = result.relation(f"{d}/en", f"{d}/es")
        assert r is not None and r.relation == "translation", (d, r and r.relation)
    for r in result.relations:
        if r.a.split("/")[0] != r.b.split("/")[0]:
            assert r.relation not in STRONG, (r.a, r.b, r.relation)


def test_seed_changes_from_001_to_000(seeds: unspin.Result) -> None:
    s000, s001 = _id(seeds, "000_"), _id(seeds, "001_")
    mine = [c for c in seeds.changes if (c.source, c.derivative) == (s001, s000)]
    texts = {d.id: d.article.text for d in seeds.docs}
    for c in mine:  # spans point at the words they name
        if c.source_span:
            assert texts[s001][c.source_span[0] : c.source_span[1]] == c.source_text
        if c.derivative_span:
            assert texts[s000][c.derivative_span[0] : c.derivative_span[1]] == c.derivative_text
    assert any(
        c.kind == "quote_altered"
        and "Homan wants something immediate" in c.source_text
        and "Hogan" in c.derivative_text
        for c in mine
    )
    assert any(
        c.kind == "entity_changed"
        and c.source_text == "Tren de Aragua"
        and c.derivative_text == "Train de Aragua"
        for c in mine
    )
    assert any(c.kind == "qualifier_dropped" and "narrowly" in c.source_text for c in mine)
