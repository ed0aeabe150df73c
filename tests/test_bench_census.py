"""bench/evidence_census.py: the counts it prints from routes result files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import bench_module


def _census():
    return bench_module("evidence_census")


def _ev(name: str, weight: float, stage: str = "direction") -> dict:
    return {"stage": stage, "name": name, "value": 1.0, "weight": weight, "detail": ""}


def _write(folder: Path, rows: list[dict]) -> Path:
    folder.mkdir()
    (folder / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_census_counts_evidence_pointing_at_and_away_from_the_source(tmp_path, capsys) -> None:
    rows = [
        # a is the source; fluency points at b (wrong), details at a (right): directed wrong
        {
            "a": "s1", "b": "r1", "labelled": "spun", "source": "s1", "verdict": "typed right",
            "direction": "wrong", "predicted": "spun",
            "evidence": [_ev("fluency", -2.0), _ev("details", 1.5), _ev("bias", -9, "type")],
        },
        # b is the source; fluency points at b (right)
        {
            "a": "r2", "b": "s2", "labelled": "spun", "source": "s2", "verdict": "typed right",
            "direction": "right", "predicted": "spun",
            "evidence": [_ev("fluency", -1.0), _ev("artefacts", 0.0)],
        },
        # missed: not counted among the evidence
        {
            "a": "s3", "b": "r3", "labelled": "spun", "source": "s3", "verdict": "missed",
            "direction": "undecided", "evidence": [_ev("fluency", 5.0)],
        },
        # an unlabelled claim of the rewrite model
        {
            "a": "x", "b": "y", "labelled": None, "verdict": "unlabelled", "predicted": "spun",
            "evidence": [_ev("rewrite.doc_sim", 16.9, "type"), _ev("rewrite.bias", -33.9, "type")],
        },
    ]  # fmt: skip
    folder = _write(tmp_path / "pile", rows)
    assert _census().main([str(folder), "--rewrite-claims"]) == 0
    out = capsys.readouterr().out
    assert "labelled 3: found 2, typed 2, direction right 1 / undecided 1 / wrong 1" in out
    assert "unlabelled claims 1" in out
    assert "| fluency | 1 | 1 | 1.0 | 2.0 |" in out
    assert "| details | 1 | 0 | 1.5 | 0.0 |" in out
    assert "artefacts" not in out.split("directed wrong")[0]  # weight 0: not weighed
    # the wrong decision: fluency pointed wrong the most; without it, right
    assert "largest weight pointing wrong: {'fluency': 1}" in out
    assert "taken out: {'fluency': 1}" in out
    assert "x / y: unlabelled, z -17.00" in out


def test_census_names_a_folder_without_results(tmp_path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match="no pairs.jsonl"):
        _census().main([str(tmp_path / "empty")])
