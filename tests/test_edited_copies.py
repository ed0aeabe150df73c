"""bench/edited_copies.py: edited copies and injected edits of NTREX originals."""

from __future__ import annotations

import json
import random

from helpers import bench_module

TEXT = "\n".join(
    [
        "The council met on Monday in the town hall.",
        "About 40 residents came to hear the plan for the harbour.",
        "The mayor, Ellen Varga, said the work would cost 12 million.",
        "Building starts in 2026, the council said.",
    ]
)


def test_swap_and_lead_change_one_figure_and_move_or_drop_paragraphs() -> None:
    ec = bench_module("edited_copies")
    swap = ec.edited(TEXT, "swap").split("\n")
    # the last paragraph dropped, the second and third swapped, then the first integer +1
    assert swap == [
        "The council met on Monday in the town hall.",
        "The mayor, Ellen Varga, said the work would cost 13 million.",
        "About 40 residents came to hear the plan for the harbour.",
    ]
    lead = ec.edited(TEXT, "lead").split("\n")
    # the first paragraph dropped, the last integer +10 (one before a comma or a point is
    # part of a list or a decimal: "2026," is passed over)
    assert lead == [
        "About 40 residents came to hear the plan for the harbour.",
        "The mayor, Ellen Varga, said the work would cost 22 million.",
        "Building starts in 2026, the council said.",
    ]
    assert ec.edited("No figure here.\nNor here.", "lead") is None


def test_an_injected_name_and_figure_are_labelled_where_they_are() -> None:
    ec = bench_module("edited_copies")
    lower = {"the", "council", "mayor", "said"}
    names = ec.cap_names(TEXT, lower)
    # a capitalised word after a lower-case one in the same sentence (not "Varga")
    assert [w for _, _, w in names] == ["Monday", "Ellen"]
    got = ec.injected(TEXT, lower, ["Kowalski", "Varga"], random.Random(1))
    assert got is not None
    text, edits = got
    assert {e["kind"] for e in edits} == {"entity_changed", "number_changed"}
    for e in edits:
        s, t = e["source_span"], e["derivative_span"]
        assert TEXT[s[0] : s[1]] == e["source_text"]
        assert text[t[0] : t[1]] == e["derivative_text"]
    name = next(e for e in edits if e["kind"] == "entity_changed")
    assert name["derivative_text"] == "Kowalski"  # a name the text already has is not used
    figure = next(e for e in edits if e["kind"] == "number_changed")
    assert int(figure["derivative_text"]) == int(figure["source_text"]) + 7


def test_make_writes_each_language_with_its_copies_labelled(tmp_path) -> None:
    ec = bench_module("edited_copies")
    rows = [
        {
            "id": f"doc{i}/spa",
            "lang": "spa",
            "title": f"T{i}",
            "text": TEXT.replace("40", str(40 + i)),
        }
        for i in range(5)
    ]
    made = ec.make(rows, tmp_path, "swap", ["spa"], 3, "t")
    assert made == {"spa": 3}
    arts = [json.loads(x) for x in (tmp_path / "copy_spa" / "articles.jsonl").open()]
    labels = [json.loads(x) for x in (tmp_path / "copy_spa" / "labels.jsonl").open()]
    assert len(arts) == 8 and len(labels) == 3
    ids = {a["id"] for a in arts}
    assert all(
        x["source"] in ids and x["derivative"] in ids and x["relation"] == "copy" for x in labels
    )
    assert all(a["lang"] == "es" for a in arts)
