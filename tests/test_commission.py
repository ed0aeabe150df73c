"""bench/commission.py: folders for helpers who write rewrites and translations by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import bench_module

WORDS = (
    "harbour board council vote port dredge cost million tuesday mayor ferry tide storm "
    "fishermen quay survey engineer budget winter summer crane cargo shipping lane"
).split()


def _article(k: int, n: int = 160) -> str:
    return " ".join(WORDS[(k * 7 + i * (k + 3)) % len(WORDS)] + str(i % 5) for i in range(n))


def _ntrex(tmp_path: Path) -> Path:
    path = tmp_path / "ntrex.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for k in range(6):
            for lang in ("spa", "fra"):
                row = {"id": f"doc{k}/{lang}", "doc_id": f"doc{k}", "lang": lang}
                fh.write(json.dumps({**row, "title": f"Title {k}", "text": _article(k)}) + "\n")
    return path


def _check(folder: Path) -> tuple[int, str]:
    got = subprocess.run(
        [sys.executable, str(folder / "check.py")], capture_output=True, text=True, timeout=60
    )
    return got.returncode, got.stdout


def test_a_rewrite_folder_has_its_sources_manifest_and_a_checker_that_catches_copying(
    tmp_path: Path,
) -> None:
    tool = bench_module("commission")
    corpus = _ntrex(tmp_path)
    out = tmp_path / "es1"
    args = ["rewrites", str(out), "--lang", "spa", "--n", "2", "--seed", "1"]
    assert tool.main([*args, "--styles", "condensed", "--corpus", str(corpus)]) == 0
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert sorted(manifest) == ["01.txt", "02.txt"]
    assert all(v.endswith("/spa") for v in manifest.values())
    assert (out / "condensed").is_dir() and not (out / "same").exists()
    assert "condensed/NN.txt" in (out / "BRIEF.md").read_text(encoding="utf-8")
    code, text = _check(out)
    assert code == 1 and "MISSING" in text  # nothing written yet
    for name in manifest:
        src = (out / "sources" / name).read_text(encoding="utf-8").split("\n", 2)[2]
        words = src.split()
        # a condensed rewrite of its own words: half the length, no copied run
        own = " ".join(f"{w}x" if i % 3 == 0 else w for i, w in enumerate(words[: len(words) // 2]))
        (out / "condensed" / name).write_text(f"A title\n\n{own}\n", encoding="utf-8")
    code, text = _check(out)
    assert code == 0 and text.strip().endswith("ALL OK"), text
    words = (out / "sources" / "01.txt").read_text(encoding="utf-8").split("\n", 2)[2].split()
    copied = " ".join(words[:12]) + " " + " ".join(f"{w}x" for w in words[12:80])
    (out / "condensed" / "01.txt").write_text(f"T\n\n{copied}\n", encoding="utf-8")
    code, text = _check(out)
    assert code == 1 and "COPIED" in text
    # the same run inside quotation marks (guillemets; an elided apostrophe is no mark)
    quoted = "«" + " ".join(words[:12]) + "» l'" + " ".join(f"{w}x" for w in words[12:80])
    (out / "condensed" / "01.txt").write_text(f"T\n\n{quoted}\n", encoding="utf-8")
    assert _check(out)[0] == 0
    # a second set avoids the first one's documents
    out2 = tmp_path / "es2"
    more = ["--styles", "condensed", "--corpus", str(corpus), "--avoid", str(out)]
    assert (
        tool.main(["rewrites", str(out2), "--lang", "spa", "--n", "2", "--seed", "1", *more]) == 0
    )
    again = json.loads((out2 / "manifest.json").read_text(encoding="utf-8")).values()
    assert not {d.split("/")[0] for d in again} & {d.split("/")[0] for d in manifest.values()}
    with pytest.raises(SystemExit, match="unknown style"):
        tool.main(
            ["rewrites", str(tmp_path / "x"), "--lang", "spa", "--seed", "1", "--styles", "long"]
        )


def test_guard_folders_split_the_reports_and_assemble_merges_them(tmp_path: Path) -> None:
    tool = bench_module("commission")
    corpus = tmp_path / "ecb.jsonl"
    with corpus.open("w", encoding="utf-8") as fh:
        for t in ("1", "2", "3"):
            for s in (f"{t}ecb", f"{t}ecbplus"):
                for k in range(4):
                    row = {"doc_id": f"{s}_{k}", "topic": t, "subtopic": s}
                    fh.write(json.dumps({**row, "text": f"Report {k} of {s}.\nMore."}) + "\n")
    args = ["guard", str(tmp_path), "--prefix", "g1", "--langs", "es", "--seed", "3"]
    assert tool.main([*args, "--events", "4", "--per-event", "3", "--corpus", str(corpus)]) == 0
    sel = json.loads((tmp_path / "g1-selection.json").read_text(encoding="utf-8"))["docs"]
    assert len(sel) == 12 and len({s for s, _ in sel}) == 4
    a, b = tmp_path / "g1-es-a", tmp_path / "g1-es-b"
    man_a = json.loads((a / "manifest.json").read_text(encoding="utf-8"))
    man_b = json.loads((b / "manifest.json").read_text(encoding="utf-8"))
    man_c = json.loads((tmp_path / "g1-es-c" / "manifest.json").read_text(encoding="utf-8"))
    assert len(man_a) == len(man_b) == len(man_c) == 4 and not set(man_a) & set(man_b)
    # the three reports of each event went to three translators
    event = {d: s for s, d in sel}
    for man in (man_a, man_b, man_c):
        assert len({event[d] for d in man.values()}) == 4
    assert "nothing added" in (a / "BRIEF.md").read_text(encoding="utf-8")
    for folder, man in ((a, man_a), (b, man_b), (tmp_path / "g1-es-c", man_c)):
        for name in man:
            (folder / "out" / name).write_text("Informe.\nMás.\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="missing"):
        (b / "out" / sorted(man_b)[0]).unlink()
        tool.main(["assemble", str(tmp_path), "--prefix", "g1", "--langs", "es"])
    (b / "out" / sorted(man_b)[0]).write_text("Informe.\nMás.\n", encoding="utf-8")
    assert tool.main(["assemble", str(tmp_path), "--prefix", "g1", "--langs", "es"]) == 0
    merged = json.loads((tmp_path / "g1-es" / "manifest.json").read_text(encoding="utf-8"))
    assert (
        merged == {**man_a, **man_b, **man_c}
        and len(list((tmp_path / "g1-es" / "out").iterdir())) == 12
    )
    # a held guard leaves out the topics of earlier selections: two of three topics were
    # drawn, the one left is too few for four events
    more = ["--events", "2", "--per-event", "3", "--corpus", str(corpus)]
    held = ["guard", str(tmp_path), "--prefix", "g2", "--langs", "es", "--seed", "3", *more]
    assert tool.main([*held, "--avoid", str(tmp_path / "g1-selection.json")]) == 0
    sel2 = json.loads((tmp_path / "g2-selection.json").read_text(encoding="utf-8"))["docs"]
    topics = {s.split("ecb")[0] for s, _ in sel} | {s.split("ecb")[0] for s, _ in sel2}
    assert len(topics) == 3 and not {d for _, d in sel} & {d for _, d in sel2}
    g1 = str(tmp_path / "g1-selection.json")
    four = ["guard", str(tmp_path), "--prefix", "g3", "--langs", "es", "--seed", "3"]
    with pytest.raises(SystemExit, match="only 1 topics"):
        tool.main(
            [*four, "--events", "4", "--per-event", "3", "--corpus", str(corpus), "--avoid", g1]
        )


def test_a_script_without_spaces_is_counted_in_characters(tmp_path: Path) -> None:
    tool = bench_module("commission")
    corpus = tmp_path / "ja.jsonl"
    body = "".join(f"港の浚渫費用は{k}億円と市議会が発表した。" for k in range(60))
    with corpus.open("w", encoding="utf-8") as fh:
        for k in range(3):
            row = {"id": f"d{k}/jpn", "doc_id": f"d{k}", "lang": "jpn", "title": "題", "text": body}
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    out = tmp_path / "ja1"
    more = ["--styles", "condensed", "--corpus", str(corpus)]
    assert tool.main(["rewrites", str(out), "--lang", "jpn", "--n", "1", "--seed", "2", *more]) == 0
    assert "20 characters" in (out / "BRIEF.md").read_text(encoding="utf-8")
    copied = body[: len(body) // 2]  # half the length, all of it copied
    (out / "condensed" / "01.txt").write_text(f"題\n\n{copied}\n", encoding="utf-8")
    code, text = _check(out)
    assert code == 1 and "COPIED" in text and "LENGTH" not in text
