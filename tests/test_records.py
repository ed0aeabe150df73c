"""Table records written by hand (not ``dataclasses.asdict``, which is slow on tables
rebuilt on every add) hold every field in order, as ``asdict`` gives them."""

from __future__ import annotations

from dataclasses import asdict

from unspin.lineage import Lineage, LineageEdge, LineageNode


def test_lineage_records_equal_asdict() -> None:
    node = LineageNode("a1", "article", "Title", None, ["p"], ["a1", "a2"])
    unseen = LineageNode("src:x", "unseen_source", None, "The Post", [], [])
    edge = LineageEdge("a1", "a2", "copy", 0.123456, True, ["same text", "earlier"])
    assert node.to_record() == asdict(node)
    assert list(node.to_record()) == list(asdict(node))
    assert unseen.to_record() == asdict(unseen)
    want = {**asdict(edge), "confidence": 0.1235}
    assert edge.to_record() == want and list(edge.to_record()) == list(want)
    rec = Lineage("s1", [node, unseen], [edge]).to_record()
    assert rec == {"story": "s1", "nodes": [asdict(node), asdict(unseen)], "edges": [want]}
    # copies: a change to the record leaves the node alone
    node.to_record()["articles"].append("x")
    assert node.articles == ["a1", "a2"]


def test_json_lines_equal_json_dumps() -> None:
    import json

    from unspin.output import _flat, _json_line

    rows = [
        {"a": "Zürich", "b": [1, 2.5, None], "c": {"x": True, "y": "naïve \u201cq\u201d"}},
        {"a": "lone \ud800 surrogate", "b": []},
        {"f": float("nan"), "g": 1e-7},
    ]
    for row in rows:
        try:
            want = json.dumps(row, ensure_ascii=False)
            want.encode("utf-8")
        except UnicodeEncodeError:
            want = json.dumps(row)
        assert _json_line(row) == want + "\n"
    assert _flat({"y": "naïve"}) == json.dumps({"y": "naïve"}, ensure_ascii=False)


def test_parquet_cells_keep_text_and_replace_lone_surrogates() -> None:
    from unspin.output import _flat

    assert _flat("plain ascii") == "plain ascii"
    assert _flat("Zürich") == "Zürich"
    assert _flat("lone \ud800 x") == "lone ? x"
    assert _flat(3) == 3 and _flat(None) is None
