"""bench/miss_reasons.py: where classify loses labelled derivatives."""

from __future__ import annotations

import json
import sys

from helpers import bench_module

from unspin.classify import ClassifyParams


def _tool():
    return bench_module("miss_reasons")


def test_a_missed_pair_is_put_with_the_step_that_turned_it_away() -> None:
    group, p = _tool().group, ClassifyParams()
    series = {"whole": 0.9, "reasons": ["not a whole copy: ... (two items of one series: ...)"]}
    assert group(series, p) == "series"
    gate = {"whole": 0.9, "reasons": ["not a whole derivative: 2 aligned sentences, ..."]}
    assert group(gate, p) == "gate"
    assert group({"whole": 0.1, "rewrite": 0.2, "second": 0.3}, p) == "band"
    assert group({"whole": 0.4, "rewrite": 0.001}, p) == "whole-mid"
    assert group({"whole": 0.1, "rewrite": 0.001}, p) == "weak"
    assert group({"whole": 0.1, "rewrite": 0.9}, p) == "other"  # taken, then turned away


SOURCE = (
    "The Harbour Board of Velmora voted on Tuesday to dredge the port at a cost of 12 "
    "million euros. Chair Anika Strand said the work would start in March and last nine "
    "months. Fishermen fear for their 400 small boats in the inner basin, their spokesman "
    "Piet Maas said. Cargo slipped to 3.1 million tonnes last year."
)
OTHER = (
    "A new bakery opened in the old town square on Saturday. Its owner, a former teacher, "
    "said she had saved for ten years. The first customers queued from seven in the "
    "morning for bread and cakes. The town council welcomed the shop."
)


def test_the_tool_records_the_readings_of_each_labelled_pair(tmp_path, capsys) -> None:
    pile = tmp_path / "pile"
    pile.mkdir()
    arts = [
        {"id": "src", "text": SOURCE},
        {"id": "copy", "text": SOURCE.replace("Tuesday", "Wednesday")},
        {"id": "far", "text": OTHER},
    ]
    labels = [
        {"a": "src", "b": "copy", "kind": "edited_copy_en"},
        {"a": "src", "b": "far", "kind": "rewrite_condensed_en"},
    ]
    (pile / "articles.jsonl").write_text("".join(json.dumps(a) + "\n" for a in arts))
    (pile / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    rows = tmp_path / "rows.jsonl"
    tool = _tool()
    real = dict(tool.Recorder()._real)
    argv = sys.argv
    sys.argv = ["miss_reasons.py", str(tmp_path / "cache"), str(pile), "--rows", str(rows)]
    try:
        assert tool.main() == 0
    finally:
        sys.argv = argv
    import unspin.classify as classify

    assert all(getattr(classify, n) is fn for n, fn in real.items())  # wrappers removed
    out = capsys.readouterr().out
    got = {r["b"]: r for r in map(json.loads, rows.read_text().splitlines())}
    assert got["copy"]["group"] == "found" and got["copy"]["whole"] > 0.5
    assert got["far"]["group"] in ("weak", "whole-mid", "band")
    assert "edited_copy: 1 labelled, found 1" in out
    assert "rewrite_condensed: 1 labelled, found 0" in out
