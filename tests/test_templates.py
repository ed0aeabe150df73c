"""Template fill-ins (one pattern, other names and figures) are not reuse; edited copies
and spins, which keep most names and figures, still are.

Sentence vectors are set by hand (every sentence pair aligned at cosine 0.95), so the
tests are about the names-and-figures rule, not the embedder.
"""

from __future__ import annotations

import dataclasses

import pytest
from helpers import aligned_docs, embed_line_by_line

from unspin.align import AlignParams, Slots, align, frame_agreement, is_template, slot_mismatch
from unspin.classify import ClassifyParams, reuse_type
from unspin.fingerprint import prepare
from unspin.model import Article, Doc

NOTICE_A = [
    "Harwick Foods said on Tuesday its first quarter net profit rose to 4.2 mln dlrs.",
    "Sales at the Dunmore company reached 61.5 mln dlrs against 55.1 mln a year earlier.",
    "Chairman Paul Ostrander told analysts that Harwick expects 18 new stores by June.",
    "The company will pay a quarterly dividend of 12 cts a share on April 30.",
]
NOTICE_B = [
    "Tellerby Mills said on Tuesday its first quarter net profit rose to 7.9 mln dlrs.",
    "Sales at the Corvale company reached 93.4 mln dlrs against 80.2 mln a year earlier.",
    "Chairman Agnes Whitcombe told analysts that Tellerby expects 25 new stores by March.",
    "The company will pay a quarterly dividend of 20 cts a share on May 15.",
]
# the same item with one figure changed (an edit of a copy, not a template)
EDITED = [NOTICE_A[0].replace("4.2", "4.7"), *NOTICE_A[1:]]
# the same item reworded, names and figures kept
SPUN = [
    "On Tuesday Harwick Foods reported that net profit for the first quarter grew to 4.2 mln dlrs.",
    "Turnover at the Dunmore firm hit 61.5 mln dlrs, compared with 55.1 mln one year before.",
    "Harwick anticipates 18 additional stores by June, chairman Paul Ostrander told analysts.",
    "A quarterly dividend of 12 cts per share will be paid by the company on April 30.",
]


def _aligned(sa: list[str], sb: list[str], cos: float = 0.95) -> tuple[Doc, Doc]:
    return aligned_docs(sa, sb, cos)


def test_slot_mismatch_counts_names_and_figures_each_side_lacks() -> None:
    # 4.2 against 7.9; foods against mills ("Tuesday" is a date, not a name, and the
    # opening word of a sentence is not taken for a name)
    assert slot_mismatch(NOTICE_A[0], NOTICE_B[0]) == Slots(1, 1, 2, 1, 1, 2)
    # names are phrases: "Harwick Foods" is one run of name words
    assert slot_mismatch(NOTICE_A[0], SPUN[0]) == Slots(0, 0, 2, 0, 0, 2)


def test_a_swapped_two_word_name_is_one_name_not_a_template() -> None:
    text = "Shares of Harwick Foods fell after Harwick Foods said on Tuesday it would close."
    swapped = text.replace("Harwick Foods", "Corvale Mills")
    assert slot_mismatch(text, swapped) == Slots(0, 0, 0, 1, 1, 2)
    assert not is_template(slot_mismatch(text, swapped), AlignParams())


def test_many_swapped_names_and_figures_make_a_template_one_swap_does_not() -> None:
    p = AlignParams()
    assert is_template(slot_mismatch(" ".join(NOTICE_A), " ".join(NOTICE_B)), p)
    assert not is_template(slot_mismatch(" ".join(NOTICE_A), " ".join(EDITED)), p)
    assert not is_template(slot_mismatch(" ".join(NOTICE_A), " ".join(SPUN)), p)
    # one figure a side, however few the figures: an edit, not a template
    assert not is_template(Slots(1, 1, 2, 0, 0, 6), p)
    # two figures a side, but most figures kept: edits of a copy
    assert not is_template(Slots(2, 2, 20, 0, 0, 10), p)
    # two a side and most of the figures: a template
    assert is_template(Slots(2, 2, 5, 0, 0, 10), p)


def test_a_short_notice_with_its_one_name_and_figure_swapped_is_a_template() -> None:
    p = AlignParams()
    # a wire dividend notice: the company only in the headline, one figure in the body
    a = "ACME HOLDINGS CORP <ACM> SETS QUARTERLY. Qtly div 70 cts vs 70 cts prior, pay May one."
    b = "DUNMORE MILLS INC <DNM> SETS QUARTERLY. Qtly div 20 cts vs 20 cts prior, pay May one."
    s = slot_mismatch(a, b)
    # in the all-caps headline the rare words are the names: ACM; Dunmore and DNM
    assert (s.fig_a, s.fig_b, s.name_a, s.name_b) == (1, 1, 1, 2)
    assert is_template(s, p)
    # one of the two swapped (an edited copy of the notice): not a template
    assert not is_template(slot_mismatch(a, a.replace("70", "75")), p)
    assert not is_template(slot_mismatch(a, a.replace("HOLDINGS CORP <ACM>", "MILLS INC <DNM>")), p)


def test_a_template_filled_in_with_other_names_and_figures_is_not_reuse() -> None:
    a, b = _aligned(NOTICE_A, NOTICE_B)
    al = align(a, b)
    assert al.passages and all(x.template for x in al.passages)
    assert al.features["cov_a"] == 0.0 and al.features["n_template"] == 1.0
    rel, _, reasons, _ = reuse_type(a, b, al, ClassifyParams())
    assert rel is None
    assert any("template" in r for r in reasons)


@pytest.mark.parametrize(("other", "expected"), [(EDITED, "copy"), (SPUN, "spun")])
def test_copies_and_spins_that_keep_names_and_figures_stay_reuse(
    other: list[str], expected: str
) -> None:
    a, b = _aligned(NOTICE_A, other)
    al = align(a, b)
    assert not any(x.template for x in al.passages)
    assert reuse_type(a, b, al, ClassifyParams())[0] == expected


def test_the_rule_can_be_switched_off_and_is_validated() -> None:
    a, b = _aligned(NOTICE_A, NOTICE_B)
    # (the series rule flags these lines too, one frame with other figures: off as well)
    off = AlignParams(template_min_slots=10_000, series_min_lines=10_000)
    assert not any(x.template for x in align(a, b, off).passages)
    with pytest.raises(ValueError):
        AlignParams(template_share=1.5)
    with pytest.raises(ValueError):
        AlignParams(template_min_slots=0)


def test_a_whole_copy_candidate_whose_texts_swap_name_and_figure_is_not_a_copy() -> None:
    # the headlines (the only place the companies are named) do not align; the bodies do
    head_a, head_b = (
        "ACME HOLDINGS CORP <ACM> SETS QUARTERLY.",
        "DUNMORE MILLS INC <DNM> RAISES PAYOUT.",
    )
    body = "Qtly div {} cts vs {} cts prior, payable May one, record April three, it said."
    a, b = _aligned([head_a, body.format(70, 70)], [head_b, body.format(48, 44)], cos=0.95)
    a.sentence_vectors[0] = b.sentence_vectors[0] = 0  # headlines: nothing in common
    a.sentence_vectors[0, 3], b.sentence_vectors[0, 2] = 1.0, 1.0
    # the series rule (tests/test_series.py) flags the body line, one frame with other
    # figures: off here, to show the template rule over the whole texts on its own
    no_series = AlignParams(series_min_lines=10_000)
    assert reuse_type(a, b, align(a, b), ClassifyParams())[0] is None
    al = align(a, b, no_series)
    assert al.passages and not any(x.template for x in al.passages)  # the body alone: 1 a side
    assert reuse_type(a, b, al, ClassifyParams(), no_series)[0] is None
    # even where the whole-derivative model would call the pair whole, the template rule
    # over the whole texts says no
    whole = dataclasses.replace(ClassifyParams(), whole_bias=100.0)
    rel, _, reasons, _ = reuse_type(a, b, al, whole)
    assert rel is None and any("template" in r for r in reasons)
    # the same notice re-issued with a corrected figure stays a copy of it
    a2, c = _aligned([head_a, body.format(70, 70)], [head_a, body.format(70, 75)], cos=0.97)
    assert reuse_type(a2, c, align(a2, c), ClassifyParams())[0] in ("copy", "spun")
    # and the rule follows the aligner's settings
    off = AlignParams(template_min_slots=10_000, series_min_lines=10_000)
    # (two short notices naming other companies first, with other figures, are two
    # items by ClassifyParams.notice_subjects too: off here, to show this rule's settings)
    assert reuse_type(a, b, al, whole, off)[0] is None
    no_notice = dataclasses.replace(whole, notice_subjects=False)
    assert reuse_type(a, b, al, no_notice, off)[0] is not None


def test_a_translation_that_renders_names_its_own_way_is_not_a_template() -> None:
    # names swapped (a think-tank's name translated, "UK" spelled out), the frame reworded
    a = (
        "A quarter of broadband users in Britain upload content, according to a report by "
        "UK think-tank Demos. The Demos report looked at the impact of broadband on habits."
    )
    b = (
        "A neighbourhood of broadband users in Great Britain uploads content, according to "
        "a report by United Kingdom thinks-tank Give. The Give the report looked in the "
        "impact of broadband in the habits of the people."
    )
    s = slot_mismatch(a, b)
    assert min(s.name_a, s.name_b) >= 1
    assert frame_agreement(a, b) < AlignParams().template_frame
    assert not is_template(Slots(0, 0, 0, 2, 2, 6), AlignParams(), frame_agreement(a, b))
    assert is_template(Slots(0, 0, 0, 2, 2, 6), AlignParams(), 0.9)  # the frame kept
    body = "Qtly div {0} cts vs {0} cts prior, pay May one."
    notice = "ACME HOLDINGS CORP <ACM> SETS QUARTERLY. " + body.format(70)
    other = "DUNMORE MILLS INC <DNM> SETS QUARTERLY. " + body.format(20)
    assert frame_agreement(notice, other) >= AlignParams().template_frame
    with pytest.raises(ValueError):
        AlignParams(template_frame=2.0)


# wire notices as the wire writes them: an all-caps title naming the company, then short
# lines with figures under ten spelled out (made-up companies)
WIRE_A = (
    "HARWICK FOODS CORP <HWF> SETS QUARTERLY DIVIDEND\n\n"
    "Qtly div five cts vs five cts prior\nPay April one\nRecord March 16"
)
WIRE_B = (
    "TELLERBY MILLS INC <TBM> SETS QUARTERLY DIVIDEND\n\n"
    "Qtly div 12-1/2 cts vs 12-1/2 cts prior\nPay April one\nRecord March 16"
)


def _wire(doc_id: str, text: str) -> Doc:
    return prepare(Article(id=doc_id, text=text))


def test_figures_reads_spelled_out_figures_and_fractions_as_one_figure_each() -> None:
    from unspin.normalise import figures, numbers

    assert figures("Qtly div five cts vs 5 cts, a two-for-one split") == {"5", "2", "1"}
    assert figures("Qtly div 12-1/2 cts vs 12.5 cts, 3/4 pct") == {"12.5", "0.75"}
    assert figures("sales of 1,200 mln") == {"1200"}
    # a compound number in words is one figure ("thirty-one" is 31, not 30 and 1)
    assert figures("a vote of thirty-one to 12") == figures("a vote of 31 to 12") == {"31", "12"}
    assert figures("Forty five and twenty") == {"45", "20"}
    assert numbers("Qtly div five cts, 12-1/2 cts") == {"12", "1", "2"}  # unchanged


def test_in_an_all_caps_title_the_rare_words_are_names_and_dates_are_not() -> None:
    from unspin.normalise import caps_words, names

    title = "HARWICK FOODS CORP <HWF> SETS QUARTERLY DIVIDEND"
    # casing says nothing in an all-caps line: the rare words (the company, its ticker)
    # are the names, the first word too; the template's common words are not
    assert names(title, caps=True) == {"harwick", "hwf"}
    assert names(title) == {"foods", "corp", "hwf", "sets", "quarterly", "dividend"}
    assert all(caps_words(title)) and not any(caps_words("The BBC said on Monday."))
    # months and figures written as words are not names; a line's first word is not one
    assert names("Pay April One\nRecord March Two to Lord Harwick", caps=True) == {
        "lord",
        "harwick",
    }
    assert names("Qtly div\nPay April") == {"april"}


def test_two_companies_wire_notices_are_a_template_the_same_notice_reworded_is_not() -> None:
    p = AlignParams()

    def body(d: Doc) -> str:
        return "\n".join(x.text for x in d.sentences if not x.boilerplate)

    a, b = _wire("a", WIRE_A), _wire("b", WIRE_B)
    s = slot_mismatch(body(a), body(b))
    # five against 12-1/2 (dates shared); Harwick and HWF against Tellerby and TBM
    assert (s.fig_a, s.fig_b, s.name_a, s.name_b) == (1, 1, 2, 2)
    assert is_template(s, p, frame_agreement(body(a), body(b)))
    # the same company's notice re-issued with its words and figures written another way
    again = _wire(
        "c",
        "HARWICK FOODS <HWF> DECLARES QTLY PAYOUT\n\nQtly div 5 cts vs 5 cts prior\n"
        "Payable April 1\nRecord March 16",
    )
    s2 = slot_mismatch(body(a), body(again))
    assert (s2.fig_a, s2.fig_b, s2.name_a, s2.name_b) == (0, 0, 0, 0)
    assert not is_template(s2, p, frame_agreement(body(a), body(again)))


def test_a_whole_wire_notice_of_another_company_is_not_a_spun_copy() -> None:
    a, b = _wire("a", WIRE_A), _wire("b", WIRE_B)
    embed_line_by_line(a, b, 0.9)
    rel, _, reasons, _ = reuse_type(a, b, align(a, b), ClassifyParams())
    assert rel not in ("copy", "spun", "duplicate")
    assert any("template" in r for r in reasons)


# two companies whose names are common English words ("Prairie", "Harbor"): in an
# all-caps title English frequency cannot tell them from the template's words
PLAIN_A = (
    "PRAIRIE MEADOW CORP SETS QUARTERLY DIVIDEND\n\n"
    "Qtly div 15 cts vs 15 cts prior\nPay April one\nRecord March 16"
)
PLAIN_B = (
    "GRANITE HARBOR CORP SETS QUARTERLY DIVIDEND\n\n"
    "Qtly div 20 cts vs 20 cts prior\nPay April one\nRecord March 16"
)
# the same company's notice re-issued in other template words
PLAIN_AGAIN = (
    "PRAIRIE MEADOW CORP DECLARES QTLY PAYOUT\n\n"
    "Qtly div 15 cts vs 15 cts prior\nPayable April 1\nRecord March 16"
)
# other articles of the corpus, in prose: they write the companies' words capitalised
# and the template's words lower case
PROSE = [
    "Shares of Prairie Meadow Corp rose on Monday after the dairy group said it sold "
    "convertible debentures worth 40 mln dlrs.",
    "Analysts said Granite Harbor Corp would buy a mill from Prairie Meadow Corp this year.",
    "The board of Granite Harbor said it sets a quarterly dividend and sold debentures.",
]


def _corpus(*docs: Doc):
    """The prose articles, the docs, and 40 articles on other things (a corpus in which
    each company is named by a few articles, not by more than a tenth of them)."""
    from unspin.corpus import CorpusSupport

    others = [prepare(Article(id=f"p{k}", text=t)) for k, t in enumerate(PROSE)]
    filler = [
        prepare(Article(id=f"f{k}", text=f"Rainfall at the station was {k} mm on day {k}."))
        for k in range(40)
    ]
    return CorpusSupport([*others, *filler, *docs])


def test_the_corpus_tells_how_a_word_is_written_inside_sentences() -> None:
    a, b = _wire("a", PLAIN_A), _wire("b", PLAIN_B)
    sup = _corpus(a, b)
    assert sup.casing("prairie", "a", "b") is True  # capitalised by other articles
    assert sup.casing("debentures", "a", "b") is False  # written lower case
    assert sup.casing("quarterly", "a", "b") is False
    assert sup.casing("qtly", "a", "b") is None  # no prose uses it
    # the two articles asked about are left out: only p1 and p2 name Granite Harbor
    assert sup.casing("harbor", "p1", "p2") is None
    # a word in more than a tenth of all articles is house vocabulary, not one item's name
    assert sup.casing("station", "a", "b") is None
    assert sup.casing("station", "a", "b", house_share=1.0) is False


def test_in_an_all_caps_title_the_corpus_casing_decides_which_words_are_names() -> None:
    from unspin.normalise import names

    known = {"prairie": True, "meadow": True, "corp": True, "debentures": False}
    title = "PRAIRIE MEADOW CORP TO SELL DEBENTURES QTLY"
    # English frequency alone: common words are not names, rare ones are
    assert names(title, caps=True) == {"debentures", "qtly"}
    # the corpus: its capitalised words are names, its lower-case words are not, and
    # where it does not tell ("qtly", "sell") English frequency still decides
    assert names(title, caps=True, casing=known.get) == {"prairie", "meadow", "corp", "qtly"}


def test_with_a_corpus_two_notices_of_companies_named_in_common_words_are_a_template() -> None:
    def body(d: Doc) -> str:
        return "\n".join(x.text for x in d.sentences if not x.boilerplate)

    def typed(a: Doc, b: Doc, support=None, p: ClassifyParams | None = None) -> str | None:
        embed_line_by_line(a, b, 0.9)
        return reuse_type(a, b, align(a, b), p or ClassifyParams(), support=support)[0]

    a, b, again = _wire("a", PLAIN_A), _wire("b", PLAIN_B), _wire("c", PLAIN_AGAIN)
    sup = _corpus(a, b, again)
    cas = lambda w: sup.casing(w, "a", "b")  # noqa: E731
    # without a corpus: one figure a side and no name differ, too few for a template
    s = slot_mismatch(body(a), body(b))
    assert (s.fig_a, s.fig_b, s.name_a, s.name_b) == (1, 1, 0, 0)
    # (the headlines open with other names and the figures differ: two short notices of
    # one template by ClassifyParams.notice_subjects, off here to show the slot rule's)
    assert typed(a, b) is None
    assert typed(a, b, p=ClassifyParams(notice_subjects=False)) in ("copy", "spun")
    # with it: Prairie Meadow against Granite Harbor are swapped names
    s = slot_mismatch(body(a), body(b), cas)
    assert (s.fig_a, s.fig_b, s.name_a, s.name_b) == (1, 1, 2, 2)
    assert typed(a, b, sup) not in ("copy", "spun", "duplicate")
    # the same company's notice re-issued in other words stays a whole copy
    assert typed(a, again, sup) in ("copy", "spun")
