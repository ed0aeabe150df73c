"""Sentence-pair features (unspin.evaluate.sentences) on sentences written for these tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from unspin.cli import main
from unspin.embed import HashingEmbedder
from unspin.evaluate.sentences import (
    FEATURES,
    LEXICAL,
    align_words,
    char_ngrams,
    cv_decisions,
    edit_distance,
    lexical_features,
    longest_common_run,
    meteor,
    names,
    negated,
    ngram_precision,
    numbers,
    rarity,
    residual_cosines,
    residuals,
    sentence_features,
)


def _lex(a: str, b: str) -> dict[str, float]:
    return dict(zip(LEXICAL, lexical_features(a, b)))


def test_numbers_ignore_thousands_separators_and_trailing_stops() -> None:
    assert numbers("It cost $1,200 in 2003, up 4.5 percent.") == {"1200", "2003", "4.5"}
    assert numbers("No figures here.") == set()


def test_names_skip_the_sentence_opener_and_quotation_openers() -> None:
    assert names('Police said: "Officers found Maria Lopez in Lyon."') == {"maria", "lopez", "lyon"}
    assert names("The mayor spoke.") == set()


def test_negation_parity() -> None:
    assert negated("The council did not approve the plan.")
    assert negated("The council didn't approve the plan.")
    assert not negated("The council approved the plan.")
    assert not negated("It is not true that he did not go.")


def test_longest_common_run() -> None:
    assert longest_common_run("a b c d e".split(), "x b c d y".split()) == 3
    assert longest_common_run([], ["a"]) == 0


def test_char_ngrams_are_case_and_space_insensitive() -> None:
    assert char_ngrams("Ab  C", 3) == char_ngrams("ab c", 3) == {"ab ", "b c"}


def test_identical_sentences_score_as_copies() -> None:
    s = "The ferry operator said 300 crew members would strike on Monday."
    f = _lex(s, s)
    for name in ("dice", "containment", "coverage_min", "verbatim", "bigram_dice", "char4_dice"):
        assert f[name] == pytest.approx(1.0), name
    assert f["length_ratio"] == 1.0 and f["length_diff"] == 0.0
    assert f["common_run"] == 1.0 and f["sequence_ratio"] == 1.0
    assert f["number_mismatch"] == 0.0 and f["number_share"] == 1.0
    assert f["name_mismatch"] == 0.0 and f["negation_mismatch"] == 0.0
    for n in (1, 2, 3, 4):
        assert f[f"ngram{n}_precision_min"] == f[f"ngram{n}_precision_max"] == 1.0
    assert f["edit_distance"] == 0.0 and f["rare_unmatched"] == 0.0
    assert f["stem_coverage_min"] == f["rare_coverage_min"] == 1.0
    # 11 words aligned in one run: 1 - 0.5 * (1 / 11) ** 3
    assert f["meteor_min"] == f["meteor_max"] == pytest.approx(1 - 0.5 / 11**3)


def test_ngram_precision_is_clipped() -> None:
    a, b = "the cat sat on the mat".split(), "the cat on the mat".split()
    assert ngram_precision(a, b, 1) == pytest.approx(5 / 6)  # 'sat' unmatched
    assert ngram_precision(b, a, 1) == 1.0
    assert ngram_precision(a, b, 2) == pytest.approx(3 / 5)  # the cat, on the, the mat
    assert ngram_precision("the the the".split(), "the cat".split(), 1) == pytest.approx(1 / 3)
    assert ngram_precision(["cat"], ["cat"], 2) == 0.0  # no bigram to score


def test_edit_distance_counts_word_edits() -> None:
    assert edit_distance("a b c d".split(), "a x c".split()) == 2  # b -> x, d deleted
    assert edit_distance([], "a b".split()) == 2
    assert edit_distance("a b".split(), "a b".split()) == 0


def test_meteor_aligns_exact_words_then_stems() -> None:
    a = "police announced arrests".split()
    b = "arrests were announces by police".split()
    assert align_words(a, b) == [(0, 4), (1, 2), (2, 0)]  # announced ~ announces by stem
    # P = 1, R = 3/5: F = 10PR / (R + 9P) = 0.625; 3 matches in 3 chunks: penalty 0.5
    assert meteor(a, b) == pytest.approx(0.3125)
    assert meteor(a, []) == 0.0
    same = "shares rose sharply today".split()
    assert meteor(same, same) == pytest.approx(1 - 0.5 * (1 / 4) ** 3)


def test_rare_words_weigh_more() -> None:
    assert 0.0 <= rarity("the") < 1.0 < rarity("ferry")
    assert rarity("qzxvbnmqq") == 8.0  # unknown to wordfreq
    f = _lex("Acme shares rose 5 percent.", "Acme shares rose 5 percent.")
    g = _lex("Acme shares rose 5 percent.", "Zorbex shares rose 5 percent.")
    h = _lex("Acme shares rose 5 percent.", "Acme stock rose 5 percent.")
    assert f["rare_unmatched"] == 0.0 < h["rare_unmatched"] < g["rare_unmatched"]
    assert g["rare_coverage_min"] < h["rare_coverage_min"] < 1.0


def test_fact_mismatches_are_flagged() -> None:
    a = "The ferry operator said 300 crew members in Dover would strike on Monday."
    b = "The ferry operator said 450 crew members in Calais would not strike on Monday."
    f = _lex(a, b)
    assert f["number_mismatch"] == 1.0 and f["number_share"] == 0.0
    assert f["name_mismatch"] == 0.5  # Dover and Calais lost, Monday kept on both sides
    assert f["negation_mismatch"] == 1.0
    assert 0.0 < f["coverage_min"] < 1.0


def test_a_reworded_copy_keeps_more_than_an_extended_statement() -> None:
    a = "Shares of Acme rose 5 percent on Friday."
    copy = "On Friday, Acme shares rose 5 percent."
    extended = "Shares of Acme rose 5 percent on Friday after the firm said it would cut jobs."
    fc, fe = _lex(a, copy), _lex(a, extended)
    assert fc["coverage_min"] == 1.0 and fe["coverage_min"] < 0.7
    assert fc["coverage_max"] == fe["coverage_max"] == 1.0
    assert fc["length_ratio"] > fe["length_ratio"]
    assert fe["common_run"] == 1.0 > fc["common_run"]


def test_features_are_symmetric() -> None:
    a = "Yucaipa sold the chain to Safeway in 1998 for $1.8 billion."
    b = "The chain was sold to Safeway for $1.8 billion, Yucaipa said."
    assert lexical_features(a, b) == pytest.approx(lexical_features(b, a))


def test_sentence_features_shape_and_precomputed_cosines() -> None:
    pairs = [("a cat sat", "a cat sat"), ("dogs bark loudly", "the stock market fell")]
    x = sentence_features(pairs, embedder=HashingEmbedder())
    assert x.shape == (2, len(FEATURES))
    assert x[0, 0] == pytest.approx(1.0) and x[1, 0] < 0.5
    y = sentence_features(pairs, cos=np.array([0.25, 0.75]), residual_cos=np.array([1.0, 0.5]))
    assert list(y[:, 0]) == [0.25, 0.75] and list(y[:, 1]) == [1.0, 0.5]
    assert np.allclose(x[:, 2:], y[:, 2:])
    z = sentence_features(pairs, embedder=HashingEmbedder(), second=HashingEmbedder(dim=64))
    assert z.shape == (2, len(FEATURES) + 1) and z[0, -1] == pytest.approx(1.0)


def test_residuals_keep_only_the_words_the_other_side_lacks() -> None:
    a = "Acme shares jumped 5 percent on Friday."
    b = "Acme shares rose 5 percent on Friday."
    assert residuals(a, b) == ("jumped", "rose")
    assert residuals(a, a) == ("", "")


def test_residual_cosines_empty_sides() -> None:
    pairs = [
        ("Acme shares rose.", "Acme shares rose."),  # nothing differs
        ("Acme shares rose.", "Acme shares rose after the merger vote."),  # one side adds
        ("Acme shares rose sharply.", "Acme shares rose sharply."),
        ("The mayor resigned.", "The mayor resigned in protest."),
    ]
    r = residual_cosines(pairs, HashingEmbedder())
    assert list(r) == [1.0, 0.0, 1.0, 0.0]
    r = residual_cosines([("cats chase mice", "cats chase mice quickly again")], HashingEmbedder())
    assert r[0] == 0.0
    r = residual_cosines([("red apples fell", "red pears fell")], HashingEmbedder())
    assert 0.0 <= r[0] < 1.0


def test_cv_decisions_learn_a_separable_rule_out_of_fold() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = x[:, 0] + 0.1 * rng.normal(size=200) > 0
    pred = cv_decisions(x, y, folds=5)
    assert pred.shape == (200,) and (pred == y).mean() > 0.9


DATA = Path(__file__).parent / "data" / "eval"


def test_sentence_pair_eval_options_are_checked(tmp_path: Path) -> None:
    sts = str(DATA / "sts-sample.csv")
    mrpc = str(DATA / "msr_paraphrase_sample.txt")
    assert main(["eval", "mrpc", mrpc, "--train", sts]) == 2  # mrpc is cross-validated
    assert main(["eval", "sts", sts, "--train", str(tmp_path / "missing.csv")]) == 2
    assert main(["eval", "sts", sts, "--second-embedder", "other"]) == 2


def test_sts_mapping_is_fitted_on_the_training_split(monkeypatch, capsys) -> None:
    import unspin.evaluate.sentences as sentences

    monkeypatch.setattr(sentences, "get_embedder", lambda name="use": HashingEmbedder())
    sts = str(DATA / "sts-sample.csv")
    assert main(["eval", "sts", sts, "--train", sts, "--baselines", ""]) == 0
    out = capsys.readouterr().out
    assert "Spearman rho (features, mapping fitted on train)" in out
    assert "mapping fitted on" in out


def test_pan_pairs_take_a_file_prefix(monkeypatch, capsys, tmp_path: Path) -> None:
    import unspin.evaluate.sentences as sentences

    monkeypatch.setattr(sentences, "get_embedder", lambda name="use": HashingEmbedder())
    monkeypatch.setattr(sentences, "cv_decisions", lambda x, y, folds=10: np.ones(len(y), bool))
    assert main(["eval", "pan-pairs", str(DATA / "pan-sample"), "--baselines", ""]) == 0
    assert "F1 (10-fold CV decision rule)" in capsys.readouterr().out
    assert main(["eval", "pan-pairs", str(tmp_path / "pan-missing")]) == 2
