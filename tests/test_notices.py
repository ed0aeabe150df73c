"""Short template notices: two wire notices written to one template for two subjects (two
markets' hog prices, the subject only in the headline) are two items, not one item written
again; a re-headlined notice of one subject, its figures kept, stays reuse.

Sentence vectors are set by hand (every sentence pair aligned at cosine 0.97) and the
whole-derivative model is forced to say whole, so the tests are about the rule, not the
embedder or the fitted model. Texts written for the test (the markets are made up).
"""

from __future__ import annotations

import dataclasses

import pytest
from helpers import aligned_docs

from unspin.align import align
from unspin.classify import ClassifyParams, notice_subjects, reuse_type
from unspin.fingerprint import prepare
from unspin.model import Article, Doc

NORTH = [
    "Hog prices were up 1.00 dlr, private sources said.",
    "Top 51.50 dlrs per cwt.",
    "Barrows and gilts 1-2 220-260 lbs.",
]
# one figure of three lines differs (a line written the same way with most of its figures
# other, outnumbered by lines that keep theirs: too few for the series rule,
# tests/test_series.py, and one a side is too few for the template rule)
EAST = [
    "Hog prices added 1.00 dlr at the opening, private sources said.",
    "Top 51.00 dlrs per cwt.",
    NORTH[2],
]
NORTH_HEAD = "NORTHFIELD HOGS OPEN UP 1.00 DLR - PRIVATE SOURCES"
EAST_HEAD = "EASTBROOK HOGS OPEN UP 1.00 DLR - PRIVATE"
# the whole-derivative model says whole: what is left to decide is the rule's
WHOLE = dataclasses.replace(ClassifyParams(), whole_bias=100.0)


def _pair(sa: list[str], sb: list[str], ha: str | None, hb: str | None) -> tuple[Doc, Doc]:
    a, b = aligned_docs(sa, sb, 0.97)
    a.article.title, b.article.title = ha, hb
    return a, b


def test_two_markets_notices_of_one_template_are_not_reuse() -> None:
    a, b = _pair(NORTH, EAST, NORTH_HEAD, EAST_HEAD)
    al = align(a, b)
    off = dataclasses.replace(WHOLE, notice_subjects=False)
    assert reuse_type(a, b, al, off)[0] == "spun"  # as before the rule
    rel, _, reasons, _ = reuse_type(a, b, al, WHOLE)
    assert rel is None
    why = notice_subjects(a, b, WHOLE) or ""
    assert "northfield / eastbrook" in why and "51.50, 51.00" in why
    assert any("two short notices of one template" in r for r in reasons)


def test_a_reheadlined_notice_of_one_subject_stays_spun() -> None:
    # the same market, the headline reworded and the figures kept: one item written again
    same = [EAST[0], NORTH[1], NORTH[2]]
    a, b = _pair(NORTH, same, NORTH_HEAD, "NORTHFIELD HOGS HIGHER AT OPENING")
    al = align(a, b)
    assert notice_subjects(a, b, WHOLE) is None
    assert reuse_type(a, b, al, WHOLE)[0] == "spun"


def test_two_subjects_with_the_same_figures_or_long_texts_are_left_alone() -> None:
    # other subjects but the very same figures: the rule cannot tell from the figures
    a, b = _pair(NORTH, [EAST[0], NORTH[1], NORTH[2]], NORTH_HEAD, EAST_HEAD)
    assert notice_subjects(a, b, WHOLE) is None
    # over notice_max_chars: a longer article names its subject in its body
    a, b = _pair(NORTH, EAST, NORTH_HEAD, EAST_HEAD)
    assert notice_subjects(a, b, WHOLE) is not None
    short = dataclasses.replace(WHOLE, notice_max_chars=40)
    assert notice_subjects(a, b, short) is None
    # only the headline's first notice_head_words words are read for its subject
    c, d = _pair(NORTH, EAST, "HOGS AT NORTHFIELD UP 1.00 DLR", "HOGS AT EASTBROOK UP 1.00 DLR")
    assert notice_subjects(c, d, WHOLE) is not None
    assert notice_subjects(c, d, dataclasses.replace(WHOLE, notice_head_words=2)) is None


def test_initials_spelt_two_ways_are_one_subject() -> None:
    # "J.P." / "JP": one-letter words are not a subject (notice_min_word_chars)
    a, b = _pair(NORTH, EAST, "J.P. HOGS OPEN UP 1.00 DLR", "JP HOGS OPEN UP 1.00 DLR")
    assert notice_subjects(a, b, WHOLE) is None


def test_the_headline_is_the_first_line_without_a_title() -> None:
    def doc(i: str, head: str, body: list[str]) -> Doc:
        return prepare(Article(id=i, text=head + "\n\n" + " ".join(body) + "\n Reuter\n"))

    a, b = doc("a", NORTH_HEAD, NORTH), doc("b", EAST_HEAD, EAST)
    assert "northfield / eastbrook" in (notice_subjects(a, b, WHOLE) or "")
    c = doc("c", "NORTHFIELD HOGS HIGHER AT OPENING", [EAST[0], NORTH[1], NORTH[2]])
    assert notice_subjects(a, c, WHOLE) is None  # one subject, its figures kept


def test_a_correction_is_the_item_again() -> None:
    # a corrected re-issue changes a figure on purpose and says so in its headline
    a, b = _pair(NORTH, EAST, NORTH_HEAD, "CORRECTED - NORTHFIELD HOGS HIGHER")
    assert notice_subjects(a, b, WHOLE) is None


def test_notice_params_are_validated() -> None:
    for bad in ({"notice_max_chars": 0}, {"notice_head_words": 0}, {"notice_min_word_chars": 0}):
        with pytest.raises(ValueError):
            ClassifyParams(**bad)


# two made-up banks' notices of one rate rise: the figures alike, the subjects' names in
# the body as well as in the headline
BANK_A = ["Harlow Federal Corp said its Harlow Savings Bank raised its prime rate to 8-1/4 pct."]
BANK_B = [
    "The Ostend Trust Bank unit of Ostend Bancorp said it is raising its prime rate to 8-1/4 pct."
]


def test_two_subjects_notices_with_the_same_figures_differ_in_their_names() -> None:
    a, b = _pair(BANK_A, BANK_B, "HARLOW FEDERAL RAISES PRIME", "OSTEND BANCORP RAISES PRIME")
    why = notice_subjects(a, b, WHOLE) or ""
    assert "(Harlow Federal Corp / Ostend Trust Bank, each missing" in why, why
    assert reuse_type(a, b, align(a, b), WHOLE)[0] is None
    # the figures-only rule of before leaves them spun
    names_off = dataclasses.replace(WHOLE, notice_min_names=None)
    assert notice_subjects(a, b, names_off) is None
    assert reuse_type(a, b, align(a, b), names_off)[0] == "spun"


def test_a_spin_of_one_notice_keeps_its_subjects_name() -> None:
    # the headline reworded so that its opening word is missing from the other text, but
    # the bank's name kept in the body: one notice written again
    spin = ["Harlow Federal Corp said that its Harlow Savings Bank lifted its prime to 8-1/4 pct."]
    a, b = _pair(BANK_A, spin, "HARLOW FEDERAL RAISES PRIME", "LENDER HARLOW LIFTS PRIME")
    assert notice_subjects(a, b, WHOLE) is None
    assert reuse_type(a, b, align(a, b), WHOLE)[0] == "spun"


def test_notice_min_names_is_validated() -> None:
    with pytest.raises(ValueError, match="notice_min_names"):
        ClassifyParams(notice_min_names=0)


def test_a_subjects_name_rendered_another_way_is_one_subject() -> None:
    # a round trip renders the company's name word another way in headline and body
    # ("Harlow" / "Harlows"): one notice, whatever the names' test says
    spin = ["Harlows Federal Corp said its Harlows Savings Bank raised its prime to 8-1/4 pct."]
    a, b = _pair(BANK_A, spin, "HARLOW FEDERAL RAISES PRIME", "HARLOWS FEDERAL RAISES PRIME")
    assert notice_subjects(a, b, WHOLE) is None


def test_a_lone_capitalised_word_opening_a_sentence_is_no_name() -> None:
    # a round trip renders a headline's common word and the sentence it opens another way
    # ("Cattle" / "Livestock"): no name in either body, so one notice written again
    a, b = _pair(
        ["Cattle slaughter is put at 125,000 head, traders said."],
        ["Livestock slaughter is put at 125,000 head, the traders said."],
        "CATTLE SLAUGHTER GUESSTIMATES",
        "LIVESTOCK SLAUGHTER GUESSTIMATES",
    )
    assert notice_subjects(a, b, WHOLE) is None


def test_the_notice_rule_is_read_only_in_its_languages() -> None:
    """Set on English wire notices; elsewhere (words that inflect, character bigrams) a
    headline word the other text lacks says nothing of two subjects: not read."""
    a, b = _pair(NORTH, EAST, NORTH_HEAD, EAST_HEAD)
    assert a.lang == b.lang == "en" and notice_subjects(a, b, WHOLE) is not None
    assert notice_subjects(a, b, dataclasses.replace(WHOLE, notice_langs=())) is None
    a.lang = b.lang = "ko"
    assert notice_subjects(a, b, WHOLE) is None
    assert reuse_type(a, b, align(a, b), WHOLE)[0] == "spun"


def test_a_name_is_missing_by_its_distinctive_word_though_its_house_words_are_there() -> None:
    # two made-up banks' notices of one rate: "National Bank" in both names, the
    # rarest word of each missing from the other text: two banks, not one named twice
    a, b = _pair(
        ["Granbury National Bank of Tolvern said it raised its prime rate to 7-3/4 pct."],
        [
            "Wexcombe National Corp said it raised the prime rate of its Wexcombe National Bank"
            " to 7-3/4 pct."
        ],
        "GRANBURY NATIONAL RAISES PRIME",
        "WEXCOMBE NATIONAL RAISES PRIME",
    )
    why = notice_subjects(a, b, WHOLE) or ""
    assert "(Granbury National Bank / Wexcombe National Corp, each missing" in why, why
    assert reuse_type(a, b, align(a, b), WHOLE)[0] is None


# two made-up issuers' bond notices of one lead manager's template, each over
# notice_max_chars: the issuer named in headline and body, amounts and dates their own
BOND = (
    "{name} Co Ltd is issuing a {amount} mln dlr equity warrant eurobond due May 14, 1992"
    " paying an indicated coupon of 2-1/4 pct and priced at par, lead manager Orwen"
    " Securities said.|The issue is guaranteed by {bank} Bank Ltd and final terms will be"
    " set on May {day}.|The issue is available in denominations of 5,000 dlrs and will be"
    " listed in Luxembourg.|The selling concession is 1-1/2 pct while management and"
    " underwriting combined pays 3/4 pct."
)


def _bond(name: str, amount: int, bank: str, day: int) -> list[str]:
    return BOND.format(name=name, amount=amount, bank=bank, day=day).split("|")


def test_two_issuers_longer_notices_of_one_template_are_not_reuse() -> None:
    a, b = _pair(
        _bond("Tavrin Optical", 40, "Kessai", 9),
        _bond("Holmvik Estate", 25, "Ardach", 8),
        "TAVRIN OPTICAL ISSUES EQUITY WARRANT EUROBOND",
        "HOLMVIK ESTATE ISSUES EQUITY WARRANT BOND",
    )
    assert len(a.article.text) > WHOLE.notice_max_chars
    why = notice_subjects(a, b, WHOLE) or ""
    assert "(Tavrin Optical Co Ltd / Holmvik Estate Co Ltd, each missing" in why, why
    assert "each gives figures the other lacks" in why
    # the rule reads a pair typed spun (a copy keeps the wording: one item)
    reworded = dataclasses.replace(WHOLE, copy_kept=0.999)
    assert reuse_type(a, b, align(a, b), reworded)[0] is None
    off = dataclasses.replace(reworded, notice_long=False)
    assert notice_subjects(a, b, off) is None
    assert reuse_type(a, b, align(a, b), off)[0] == "spun"


def test_a_longer_item_told_again_by_another_speaker_stays_reuse() -> None:
    # one tender's figures told by another body (the second text's figures all the
    # first's): the headlines name other speakers, but no figure of its own says one item
    src = _bond("Tavrin Optical", 40, "Kessai", 9)
    again = list(src)
    again[0] = src[0].replace("Tavrin Optical Co Ltd", "The Holmvik agency said Tavrin")
    a, b = _pair(
        src, again, "TAVRIN OPTICAL ISSUES EQUITY WARRANT EUROBOND", "HOLMVIK DETAILS BOND"
    )
    assert notice_subjects(a, b, WHOLE) is None
    # one issuer's item reworded with its figures kept: the issuer named in both
    same = [s.replace("is issuing", "launches") for s in src]
    c, d = _pair(src, same, "TAVRIN OPTICAL ISSUES EQUITY WARRANT EUROBOND", "TAVRIN LAUNCHES BOND")
    assert notice_subjects(c, d, WHOLE) is None


def test_a_headline_the_text_repeats_is_no_body_name() -> None:
    # the same figures, no name in either body; each text repeats its all-caps title as
    # its first line: the headline's words are not names the body confirms
    def doc(i: str, head: str, body: list[str]) -> Doc:
        return prepare(Article(id=i, title=head, text=head + "\n\n" + " ".join(body)))

    a = doc("a", NORTH_HEAD, NORTH)
    b = doc("b", EAST_HEAD, [EAST[0], NORTH[1], NORTH[2]])
    assert notice_subjects(a, b, WHOLE) is None
