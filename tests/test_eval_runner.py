"""`unspin eval`: tables from the task runner and the CLI, on small made-up data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_derivatives import CORPUS, FakeTranslator

from unspin.cli import main
from unspin.evaluate.derivatives import DerivativeSpec, make_derivatives
from unspin.evaluate.runner import EvalTable, _plagdet_inputs, eval_derivatives
from unspin.model import AlignedPassage, Relation
from unspin.pipeline import Config


@pytest.fixture(scope="module")
def deriv_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("deriv")
    make_derivatives(CORPUS, DerivativeSpec(n=20, seed=5), out, translator=FakeTranslator())
    return out


def test_derivatives_table_has_every_system_and_sane_values(deriv_dir: Path) -> None:
    table = eval_derivatives(deriv_dir, ["minhash", "tfidf"], Config(embedder="hashing"))
    assert table.systems == ["unspin", "minhash", "tfidf (tuned)"]
    metrics = dict(table.rows)
    recall = metrics["pair recall (any reuse)"]
    assert set(recall) == {"unspin", "minhash", "tfidf (tuned)"}
    # both baselines beside unspin on every detection row
    detection = [k for k in metrics if k.startswith(("pair ", "kind ")) and "detected" in k]
    detection += [k for k in metrics if k.startswith("pair ")]
    assert detection and all(set(metrics[k]) == set(table.systems) for k in detection)
    for name, vals in metrics.items():
        for v in vals.values():
            if "granularity" in name:
                assert v >= 1.0  # detections per detected case
                continue
            if "per 20" in name:
                assert v >= 0.0
                continue
            if isinstance(v, float):
                assert 0.0 <= v <= 1.0
    # the fake "translator" keeps most words: a lexical system must find those copies
    assert recall["unspin"] > 0.5
    whole = [k for k in metrics if k.startswith("whole-text reuse")]
    assert len(whole) == 1
    p_whole, r_whole = (float(x) for x in metrics[whole[0]]["unspin"].split(" / "))
    assert 0.0 <= p_whole <= 1.0 and 0.0 < r_whole <= 1.0
    # publication times decide every detected pair, and the right way: a self-check,
    # labelled so and put after every other row
    timed = "(self-check) direction right with publication times, of pairs detected"
    assert metrics[timed]["unspin"] == 1.0
    names = [k for k, _ in table.rows]
    checks = [i for i, k in enumerate(names) if k.startswith("(self-check)")]
    assert checks and checks == list(range(len(names) - len(checks), len(names)))
    assert not [k for k in names if "with times" in k or "publication" in k if k[0] != "("]
    timed = [k for k in metrics if k.startswith("(self-check) injected edits reported, with")]
    assert len(timed) == 1 and metrics[timed[0]]["unspin"] > 0.5
    assert "direction right, undecided counted wrong (primary)" in metrics
    md = table.to_markdown("unspin eval derivatives X")
    assert (
        md.startswith("## labelled derivatives")
        and "| metric | unspin | minhash | tfidf (tuned) |" in md
    )


def test_pair_verdicts_file_accounts_for_the_table(deriv_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "v" / "pairs.jsonl"
    table = eval_derivatives(deriv_dir, [], Config(embedder="hashing"), pairs_out=out)
    metrics = dict(table.rows)
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    labelled = [r for r in rows if r["labelled"] is not None]
    unlabelled = [r for r in rows if r["labelled"] is None]
    assert labelled and all(r["verdict"] in ("typed right", "mistyped", "missed") for r in labelled)
    assert all(r["verdict"] == "unlabelled" for r in unlabelled)
    found = sum(r["verdict"] != "missed" for r in labelled)
    assert found / len(labelled) == pytest.approx(metrics["pair recall (any reuse)"]["unspin"])
    precision = metrics["pair precision (any reuse)"]["unspin"]
    assert found / (found + len(unlabelled)) == pytest.approx(precision)
    right = sum(r["direction"] == "right" for r in labelled)
    direction = metrics["direction right, undecided counted wrong (primary)"]["unspin"]
    assert right / len(labelled) == pytest.approx(direction)
    assert len({(r["a"], r["b"]) for r in rows}) == len(rows)  # one row per pair


def test_plagdet_inputs_map_alignment_sides_to_source_and_derivative() -> None:
    lab = {
        "source": "s",
        "derivative": "d",
        "relation": "partial",
        "spans": [
            {"source_start": 0, "source_end": 10, "derivative_start": 50, "derivative_end": 60}
        ],
    }
    # relation a="d" (derivative) < b="s": a_* offsets index the derivative
    rel = Relation(
        a="d", b="s", relation="partial", confidence=0.9,
        alignment=[AlignedPassage(50, 60, 0, 10, 0.9, 0.9, 0.9)],
    )  # fmt: skip
    cases, dets = _plagdet_inputs({("d", "s"): lab}, {("d", "s"): rel})
    assert cases == [(("s", "d"), (0, 10), (50, 60))]
    assert dets == [(("s", "d"), (0, 10), (50, 60))]


def test_eval_cli_writes_markdown_and_json(tmp_path: Path, capsys) -> None:
    data = tmp_path / "ecb.jsonl"
    rows = [
        {"doc_id": f"d{i}", "topic": "1", "subtopic": "1a" if i < 2 else "1b", "text": t}
        for i, t in enumerate(
            [
                "A fire destroyed the old mill in Eastwick on Monday night. No one was hurt.",
                "The old mill in Eastwick burned down on Monday; firemen said no one was hurt.",
                "Voters in Westbury elected a new mayor, Ana Ruiz, by 312 votes on Sunday.",
                "Ana Ruiz won the Westbury mayoral election on Sunday by a margin of 312 votes.",
            ]
        )
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = tmp_path / "out" / "stories.md"
    assert main(["eval", "stories", str(data), "--report", str(report)]) == 0
    printed = capsys.readouterr().out
    assert "adjusted Rand index" in printed
    assert report.read_text().startswith("## story clustering")
    table = json.loads(report.with_suffix(".json").read_text())
    assert table["task"] == "story clustering"


def test_eval_cli_derivatives_writes_pair_verdicts(deriv_dir: Path, tmp_path: Path, capsys) -> None:
    assert (
        main(["eval", "derivatives", str(deriv_dir), "--baselines", "", "--out", str(tmp_path)])
        == 0
    )
    assert "per-pair verdicts" in capsys.readouterr().out
    rows = [json.loads(x) for x in (tmp_path / "pairs.jsonl").read_text().splitlines()]
    assert {r["verdict"] for r in rows} <= {"typed right", "mistyped", "missed", "unlabelled"}


def test_eval_cli_usage_errors(tmp_path: Path) -> None:
    assert main(["eval", "stories", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["eval", "nonsense", "x"]) == 2
    assert main(["eval", "make-derivatives", str(tmp_path)]) == 2  # needs --out


def test_eval_table_markdown_formats_missing_values() -> None:
    t = EvalTable("t", ["d"], ["unspin", "minhash"])
    t.add("m", unspin=0.5)
    assert "| m | 0.500 | – |" in t.to_markdown()


DATA = Path(__file__).parent / "data" / "eval"


def test_news_copy_and_pan_alignment_tasks_run_on_sample_files(capsys) -> None:
    assert main(["eval", "news-copy", str(DATA / "news_copy_corpus.json"),
                 str(DATA / "news_copy_gt.json"), "--baselines", "minhash"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "## NEWS-COPY reproduced articles" in out and "| pair recall |" in out
    assert main(["eval", "pan-alignment", str(DATA / "pan_alignment")]) == 0
    out = capsys.readouterr().out
    assert "| plagdet |" in out


def test_labels_task_scores_pairs_and_direction(tmp_path: Path, capsys) -> None:
    text = (
        "Council approves harbour wall repairs\n\n"
        "The council approved repairs to the harbour wall on Monday after storms in March "
        "damaged a 40-metre section near the ferry pier, the works director said.\n\n"
        "The repairs will cost 1.2 million pounds and should end by October, she added.\n"
    )
    arts = tmp_path / "arts"
    arts.mkdir()
    (arts / "orig.txt").write_text(text, encoding="utf-8")
    (arts / "copy.txt").write_text(text + "\nReporting by a wire service.\n", encoding="utf-8")
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        json.dumps({"a": "orig", "b": "copy", "relation": "copy", "source": "orig"}) + "\n",
        encoding="utf-8",
    )
    assert main(["eval", "labels", str(arts), str(labels)]) == 0
    out = capsys.readouterr().out
    assert "direction right" in out
    assert main(["eval", "labels", str(arts)]) == 2


def test_share_sentence_sees_verbatim_reuse_through_the_source() -> None:
    from unspin.evaluate.runner import _share_sentence

    line = "The minister said the new rail line would open to passengers next spring."
    texts = {
        "src": f"Rail plan approved.\n\n{line}\n\nCosts rose by a third.",
        "der": "Rail plan gets the nod.\n\nThe line opens next spring, the minister said.",
        "other": f"Budget day.\n\n{line}\n\nTaxes will not rise.",
        "far": "Cup final tonight.\n\nThe home side are missing three first-team players.",
    }
    origin = {"der": "src"}
    assert _share_sentence(texts, ("der", "other"), origin)  # via the source
    assert _share_sentence(texts, ("other", "src"), origin)
    assert not _share_sentence(texts, ("der", "far"), origin)
    short = {"a": "Short one here.", "b": "Short one here."}  # under 8 words: not counted
    assert not _share_sentence(short, ("a", "b"), {})
