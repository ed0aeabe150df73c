"""Reuse typing from alignment features: whole copies against reuse inside another article."""

from __future__ import annotations

import pytest

from unspin.classify import ClassifyParams, reuse_type
from unspin.fingerprint import prepare
from unspin.model import Alignment, Article

A = prepare(Article(id="a", text="The ferry operator cancelled all crossings on Monday."))
B = prepare(Article(id="b", text="Heavy snow closed three mountain passes overnight."))

BASE = {
    "n_passages": 1.0,
    "n_quote_only": 0.0,
    "order": 1.0,
    "semantic": 0.95,
    "verbatim": 1.0,
    "strong_sents": 10.0,
    "strong_chars": 1200.0,
    "own_run_a": 0.0,
    "own_run_b": 0.0,
}


def _type(**feats: float) -> str | None:
    al = Alignment(a="a", b="b", passages=[], features=BASE | feats)
    return reuse_type(A, B, al, ClassifyParams())[0]


def test_a_trimmed_copy_is_a_copy() -> None:
    assert _type(cov_a=0.85, cov_b=1.0, own_run_a=300.0) == "copy"


def test_most_of_one_article_inside_a_longer_one_is_partial_reuse() -> None:
    # the whole body of a reused inside b, which is more than half its own text
    assert _type(cov_a=0.9, cov_b=0.45, own_run_b=1800.0) == "partial"


def test_a_long_stretch_of_own_text_makes_it_partial_reuse() -> None:
    assert _type(cov_a=0.85, cov_b=0.6, own_run_b=1200.0) == "partial"
    assert _type(cov_a=0.85, cov_b=0.6, own_run_b=600.0) == "copy"


@pytest.mark.parametrize(("chars", "expected"), [(140.0, "partial"), (60.0, None)])
def test_one_long_reused_sentence_is_partial_reuse(chars: float, expected: str | None) -> None:
    got = _type(cov_a=0.05, cov_b=0.08, strong_sents=1.0, strong_chars=chars)
    assert got == expected
