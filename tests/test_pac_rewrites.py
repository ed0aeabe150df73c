"""bench/eval_pac_rewrites.py: the seeded draw, the pile it builds and its scoring, on toy
sets (the PAC dev draw itself needs ../shared)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import REPO, SHARED

sys.path.insert(0, str(REPO / "bench"))
import eval_pac_rewrites as epr  # noqa: E402


def _row(i: str, event: str, words: int, date: str | None = "2020-01-31") -> dict:
    return {
        "id": i,
        "event": event,
        "title": f"title {i}",
        "outlet": f"outlet {i}",
        "published_at": date,
        "text": " ".join(["word"] * words),
    }


def test_scoring_counts_found_type_direction_and_the_boundary() -> None:
    event = {"o1": "E1", "o2": "E1", "o3": "E2", "o4": "E2", "r1": "E1", "r2": "E1", "r3": "E1"}
    labels = {
        "r1": {"style": "same", "source": "o1"},
        "r2": {"style": "condensed", "source": "o1"},
        "r3": {"style": "framed", "source": "o1"},
    }
    rels = {
        ("o1", "r1"): ("spun", "o1"),  # found, typed, right
        ("r2", "o1"): ("same_story", None),  # missed: undecided
        ("o1", "r3"): ("copy", "r3"),  # found, wrong type, wrong direction
        ("r3", "o2"): ("partial", None),  # a claim against the other outlet
        ("r1", "o2"): ("same_story", None),  # right: independent coverage
        ("r2", "o3"): ("spun", "o3"),  # a claim against another event's article
        ("o1", "o2"): ("partial", "o1"),  # originals, same event
        ("o2", "o3"): ("copy", None),  # originals, different events
        ("r1", "r2"): ("spun", "r1"),  # siblings: not counted
        ("o3", "o4"): ("same_story", None),
    }
    s = epr.score_pile(labels, event, rels)
    same, cond, framed = (s.styles[k] for k in epr.STYLES)
    assert (same.n, same.found, same.typed, same.right, same.undecided, same.wrong) == (
        1,
        1,
        1,
        1,
        0,
        0,
    )
    assert (cond.found, cond.typed, cond.right, cond.undecided, cond.wrong) == (0, 0, 0, 1, 0)
    assert (framed.found, framed.typed, framed.right, framed.undecided, framed.wrong) == (
        1,
        0,
        0,
        0,
        1,
    )
    assert (same.other_claims, same.other_pairs, same.other_relations["same_story"]) == (0, 1, 1)
    assert (framed.other_claims, framed.other_relations["partial"]) == (1, 1)
    assert (cond.other_claims, cond.other_relations["none"]) == (0, 1)
    assert (cond.foreign_claims, same.foreign_claims, framed.foreign_claims) == (1, 0, 0)
    assert (s.orig_same_event, s.orig_other_event, s.siblings) == (1, 1, 1)


def test_a_baseline_claim_is_found_but_never_directed() -> None:
    event = {"o1": "E1", "o2": "E1", "r1": "E1"}
    labels = {"r1": {"style": "same", "source": "o1"}}
    rels = epr.baseline_relations({("o1", "r1"): 0.6, ("o2", "r1"): 0.2, ("o1", "o2"): 0.5}, 0.4)
    s = epr.score_pile(labels, event, rels)
    st = s.styles["same"]
    assert (st.found, st.right, st.undecided, st.other_claims) == (1, 0, 1, 0)
    assert s.orig_same_event == 1


def test_the_draw_keeps_only_events_within_the_word_range_and_is_seeded() -> None:
    rows = []
    for e in range(10):
        rows += [_row(f"E{e}_A", f"EV_{e}", 300), _row(f"E{e}_B", f"EV_{e}", 400)]
    rows[1]["text"] = " ".join(["word"] * 1000)  # EV_0 has a too-long article
    drawn, qualified = epr.draw_sources(rows, seed=5, n=4)
    assert qualified == 9
    assert len(drawn) == 4 and not any(d.startswith("E0_") for d in drawn)
    assert len({d.split("_")[0] for d in drawn}) == 4  # one article per event
    assert epr.draw_sources(rows, seed=5, n=4)[0] == drawn
    assert [int(d.split("_")[0][1:]) for d in drawn] == sorted(
        int(d.split("_")[0][1:]) for d in drawn
    )


def _folder(tmp_path: Path, source: str = "S1") -> Path:
    items = []
    for style in epr.STYLES:
        (tmp_path / style).mkdir()
        (tmp_path / style / "p01.txt").write_text(f"Headline {style}\n\nBody of the {style} one.\n")
        item = {"file": "p01.txt", "style": style, "source_id": source, "event": "EV_1"}
        if style == "framed":
            item["credit"] = "Capitol Ledger"
        items.append(item)
    (tmp_path / "manifest.json").write_text(json.dumps({"items": items}))
    return tmp_path


def test_the_pile_dates_rewrites_a_day_after_their_source_and_credits_framed_only(
    tmp_path: Path,
) -> None:
    rows = [_row("S1", "EV_1", 300, "2020-02-28"), _row("S2", "EV_1", 300, "2020-02-27")]
    pile = epr.build_pile(rows, _folder(tmp_path))
    arts = {a.id: a for a in pile.articles}
    assert len(arts) == 5 and all(i.startswith("a-") for i in arts)
    for rid, lab in pile.labels.items():
        a = arts[rid]
        assert a.published_at == "2020-02-29"
        assert a.outlet == ("Capitol Ledger" if lab["style"] == "framed" else None)
        assert a.title == f"Headline {lab['style']}" and a.text.startswith("Body")
        assert pile.name[lab["source"]] == "S1" and pile.event[rid] == "EV_1"
    undated = epr.build_pile(rows, tmp_path, dates=False)
    assert all(a.published_at is None for a in undated.articles)


def test_a_manifest_naming_an_unknown_source_is_refused(tmp_path: Path) -> None:
    rows = [_row("S1", "EV_1", 300)]
    with pytest.raises(ValueError, match="'S9' not in PAC"):
        epr.build_pile(rows, _folder(tmp_path, source="S9"))


@pytest.mark.shared
def test_the_pac_dev_draw_is_the_documented_one() -> None:
    path = SHARED / "data" / "pac_dev" / "articles.jsonl"
    if not path.is_file():
        pytest.skip(f"PAC dev not found at {path} (set UNSPIN_SHARED)")
    drawn, qualified = epr.draw_sources(epr.read_jsonl(path))
    assert qualified == 44
    assert drawn[:3] == ["STORY_0_DOCUMENT_0", "STORY_46_DOCUMENT_1", "STORY_60_DOCUMENT_1"]
    assert len(drawn) == 14
