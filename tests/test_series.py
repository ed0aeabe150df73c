"""Series: the same lines written again with other figures (another day's market report,
a rate notice changed since) are two items, not a copy; copies, spins and a corrected
re-issue, which keep the figures of the lines they write the same way, stay reuse.

Sentence vectors are set by hand (every sentence pair aligned at cosine 0.97), so the
tests are about the rule, not the embedder. Texts written for the test.
"""

from __future__ import annotations

import dataclasses

import pytest
from helpers import aligned_docs, doc_of

from unspin.align import AlignParams, align, is_series, series_lines
from unspin.classify import (
    ClassifyParams,
    adds_nothing,
    carried_names,
    dated_series,
    later_facts,
    reuse_type,
)
from unspin.model import Doc

MONDAY = [
    "Harbour Board said it lent the money market 310 mln stg in the morning session.",
    "This compares with its forecast of a shortage of around 650 mln stg today.",
    "Bills were bought at an unchanged rate of 9-7/8 pct, the board said.",
    "Dealers said the market was quiet ahead of the trade figures due later this week.",
]
# a short market report and the next day's: one figure a side differs (too few for the
# template rule, which needs two a side), one line keeps its figure, one has none
OPEN_MON = [
    "Hog prices at Northfield opened steady to higher on a light run, private sources said.",
    "Top 51.00 dlrs per cwt.",
    "Receipts were estimated at 3,000 head.",
]
OPEN_TUE = [OPEN_MON[0], "Top 51.50 dlrs per cwt.", OPEN_MON[2]]
# a corrected re-issue: one figure of four lines changed
CORRECTED = [MONDAY[0].replace("310", "330"), *MONDAY[1:]]
SPUN = [
    "In the morning session the Harbour Board lent 310 mln stg to the money market, it said.",
    "The board had forecast a shortage of about 650 mln stg for the day.",
    "It bought bills at 9-7/8 pct, a rate it left unchanged.",
    "According to dealers the market was calm before this week's trade figures.",
]


def _aligned(sa: list[str], sb: list[str], cos: float = 0.97) -> tuple[Doc, Doc]:
    return aligned_docs(sa, sb, cos)


def test_lines_of_one_frame_with_other_figures_make_a_series() -> None:
    a, b = _aligned(OPEN_MON, OPEN_TUE)
    al = align(a, b)
    groups = [[(k, k, 1.0, 0.97, 1.0, False, True)] for k in range(3)]
    # the first line has no figure (cannot tell), one keeps its figure, one does not
    assert series_lines(a, b, groups, AlignParams())[:2] == (1, 1)
    assert al.features["series"] == 1.0
    # without the rule the pair is a whole copy wherever the whole-derivative model says
    # whole (the template rule needs two a side; three short lines are too little text
    # for the fitted model itself to call whole)
    whole = dataclasses.replace(ClassifyParams(), whole_bias=100.0)
    off = align(a, b, AlignParams(series_min_lines=10_000))
    assert reuse_type(a, b, off, whole)[0] in ("copy", "spun", "duplicate")
    rel, _, reasons, _ = reuse_type(a, b, al, ClassifyParams())
    assert rel not in ("copy", "spun", "duplicate")
    # a passage of a line with other figures is template; one that also keeps a figure
    # of the other text (an edited figure inside a copied passage) stays evidence
    line = (1, 1, 1.0, 0.97, 1.0, False, True)
    kept = (2, 2, 1.0, 0.97, 1.0, False, True)
    assert series_lines(a, b, [[line], [kept]], AlignParams())[2] == [True, False]
    assert series_lines(a, b, [[line, kept]], AlignParams())[2] == [False]
    # even where the whole-derivative model would call the pair whole
    rel, _, reasons, _ = reuse_type(a, b, al, whole)
    assert rel not in ("copy", "spun", "duplicate")
    assert any("series" in r for r in reasons)


@pytest.mark.parametrize(("other", "expected"), [(CORRECTED, "copy"), (SPUN, "spun")])
def test_a_corrected_reissue_and_a_spin_keep_their_figures_and_stay_reuse(
    other: list[str], expected: str
) -> None:
    a, b = _aligned(MONDAY, other)
    al = align(a, b)
    assert al.features["series"] == 0.0
    assert not any(x.template for x in al.passages)
    assert reuse_type(a, b, al, ClassifyParams())[0] == expected


def test_the_share_decides_and_is_validated() -> None:
    p = AlignParams()
    assert is_series(0, 1, p) and is_series(1, 1, p)
    assert not is_series(3, 1, p) and not is_series(5, 0, p)
    # switched off: no count of differing lines reaches the bar
    off = AlignParams(series_min_lines=10_000)
    a, b = _aligned(OPEN_MON, OPEN_TUE)
    assert align(a, b, off).features["series"] == 0.0
    with pytest.raises(ValueError):
        AlignParams(series_share=1.5)
    with pytest.raises(ValueError):
        AlignParams(series_min_lines=0)


# the next day's report of MONDAY's market, written again in other words with other
# figures: no line shares MONDAY's frame, so only the reworded reading sees the series
TUESDAY_REWORDED = [
    "The Harbour Board gave the money market 145 mln stg of help in the morning.",
    "It had expected the market to be short of some 400 mln stg for the day.",
    "The board bought bills at 9-3/4 pct in the session.",
    "Dealers said trading was thin.",
]
# a condensing rewrite of MONDAY that drops some figures and keeps the rest
CONDENSED = [
    "The Harbour Board lent the market 310 mln stg in the morning.",
    "A shortage had been forecast for the day.",
    "It bought bills at 9-7/8 pct.",
    "The market was quiet, dealers said.",
]


def test_a_series_written_again_in_other_words_is_two_items() -> None:
    a, b = _aligned(MONDAY, TUESDAY_REWORDED)
    groups = [[(k, k, 1.0, 0.97, 1.0, False, True)] for k in range(4)]
    # frames only: the reworded lines match no frame, so nothing is counted
    strict = AlignParams(series_reworded=False)
    assert series_lines(a, b, groups, strict)[:2] == (0, 0)
    assert align(a, b, strict).features["series"] == 0.0
    # in any wording: three lines carry other figures on both sides, none keeps them
    assert series_lines(a, b, groups, AlignParams())[:2] == (0, 3)
    al = align(a, b)
    assert al.features["series"] == 1.0
    assert reuse_type(a, b, al, ClassifyParams())[0] not in ("copy", "spun", "duplicate")


def test_a_rewrite_that_drops_figures_is_no_series() -> None:
    # a line that keeps some figures and drops others has no figure of its own: not
    # another item's line; lines that keep all their figures count as kept
    a, b = _aligned(MONDAY, CONDENSED)
    groups = [[(k, k, 1.0, 0.97, 1.0, False, True)] for k in range(4)]
    agree, differ, _ = series_lines(a, b, groups, AlignParams())
    assert differ == 0
    al = align(a, b)
    assert al.features["series"] == 0.0


def test_one_as_a_pronoun_or_a_name_is_no_figure_of_another_item() -> None:
    # "one of the" and "BBC One" read as the figure 1: without a 1 in digits beside
    # them, a reworded line with another number word is not another item's line
    a, b = _aligned(
        [
            "It looks set to be one of the core battlegrounds, with both big parties in it.",
            "The drama is among the highlights of the season on BBC One this winter.",
        ],
        [
            "It seems likely to be a central battleground, with the two main parties in it.",
            "The drama heads the £178m winter season of the channel.",
        ],
    )
    groups = [[(k, k, 1.0, 0.97, 1.0, False, True)] for k in range(2)]
    assert series_lines(a, b, groups, AlignParams())[:2] == (0, 0)
    # with a 1 written in digits the word counts as the figure it is
    c, d = _aligned(
        ["One bid of 1 mln stg was accepted."], ["Two bids of 3 mln stg were accepted."]
    )
    assert series_lines(c, d, [[(0, 0, 1.0, 0.97, 1.0, False, True)]], AlignParams())[1] == 1


def test_one_amount_in_two_counting_systems_is_no_other_item() -> None:
    # an Indian edition of one report: lakh grouping and counting words, same amounts
    a, b = _aligned(
        [
            "More than 360,000 people have died in the war since 2011, officials said.",
            "The deal averted an assault on the province, where three million people live.",
        ],
        [
            "More than 3,60,000 people have died in the war since 2011, officials said.",
            "The deal averted an assault on the province, where thirty lakh people live.",
        ],
    )
    groups = [[(k, k, 1.0, 0.97, 1.0, False, True)] for k in range(2)]
    agree, differ, _ = series_lines(a, b, groups, AlignParams())
    assert differ == 0
    assert align(a, b).features["series"] == 0.0


# ---------------------------------------------------------------- dated series items

# MONDAY's notice spun with another figure in its opening (145 for 310): by its text alone
# one item written again with a figure edited (the line-count series rule needs most
# figure lines changed; here one of three is), but published a day later it is the next
# day's notice of one series
SPUN_OTHER = [SPUN[0].replace("310", "145"), *SPUN[1:]]
# MONDAY's notice with its figures kept, written again: both report "today"
SAME_FIGURES_TODAY = [
    "Harbour Board said it had lent the money market 310 mln stg this morning.",
    "It compares with a forecast shortage of some 650 mln stg today.",
    MONDAY[2],
    MONDAY[3],
]


def _dated(sa: list[str], sb: list[str], ta: str | None, tb: str | None) -> tuple[Doc, Doc]:
    a, b = _aligned(sa, sb)
    a.article.published_at, b.article.published_at = ta, tb
    return a, b


@pytest.mark.parametrize(
    ("ta", "tb", "expected"),
    [
        (None, None, "spun"),  # undated: as before
        ("1987-03-17T09:00:00", None, "spun"),  # one date only: as before
        ("1987-03-17T09:00:00", "1987-03-17T18:00:00", "spun"),  # one day: as before
        ("1987-03-17T23:00:00", "1987-03-18T01:00:00", "spun"),  # across midnight, 2 h
        ("1987-03-17T09:00:00", "1987-03-18T09:00:00", None),  # the next day's notice
        ("1987-03-17T09:00:00", "1987-03-24T08:00:00", None),  # next week's
    ],
)
def test_a_dated_item_of_another_day_with_another_opening_figure_is_not_reuse(
    ta: str | None, tb: str | None, expected: str | None
) -> None:
    a, b = _dated(MONDAY, SPUN_OTHER, ta, tb)
    al = align(a, b)
    assert al.features["series"] == 0.0  # the text-only series rule does not see it
    rel, _, reasons, _ = reuse_type(a, b, al, ClassifyParams())
    assert rel == expected
    if expected is None:
        assert any("series" in r and "145" in r for r in reasons)
        # switched off: as before
        off = ClassifyParams(dated_series=False)
        assert reuse_type(a, b, al, off)[0] == "spun"


def test_a_dated_correction_of_another_day_stays_reuse() -> None:
    a, b = _dated(MONDAY, SPUN_OTHER, "1987-03-17T09:00:00", "1987-03-18T09:00:00")
    al = align(a, b)
    assert reuse_type(a, b, al, ClassifyParams())[0] is None
    for title in ("CORRECTED - HARBOUR BOARD LENDS MARKET", "HARBOUR BOARD CORRECTS HELP"):
        b.article.title = title
        assert reuse_type(a, b, al, ClassifyParams())[0] == "spun"
    # a correction note at the end of the text counts too
    b.article.title = None
    c, d = _dated(
        MONDAY,
        [*SPUN_OTHER[:3], "Corrects March 17 item to show 145 mln stg, not 310."],
        "1987-03-17T09:00:00",
        "1987-03-18T09:00:00",
    )
    assert dated_series(c, d, ClassifyParams()) is None
    assert dated_series(a, b, ClassifyParams()) is not None


def test_the_same_notice_of_two_days_both_reporting_today_is_not_reuse() -> None:
    # the same figures on two days: only the dates and "today" tell two issues
    a, b = _dated(MONDAY, SAME_FIGURES_TODAY, "1987-03-17T09:00:00", "1987-03-19T09:00:00")
    al = align(a, b)
    assert reuse_type(a, b, al, ClassifyParams())[0] is None
    assert "own day" in (dated_series(a, b, ClassifyParams()) or "")
    for ta, tb in ((None, None), ("1987-03-17T09:00:00", "1987-03-17T15:00:00")):
        a.article.published_at, b.article.published_at = ta, tb
        assert reuse_type(a, b, al, ClassifyParams())[0] in ("copy", "spun")
    # a re-issue that does not say "today" on another day with its figures kept stays reuse
    c, d = _dated(MONDAY, SPUN, "1987-03-17T09:00:00", "1987-03-19T09:00:00")
    assert dated_series(c, d, ClassifyParams()) is None


def test_dated_series_params_are_validated() -> None:
    for bad in (
        {"series_min_hours": -1.0},
        {"series_min_hours": float("nan")},
        {"series_lead_chars": 0},
        {"correction_tail_chars": 0},
    ):
        with pytest.raises(ValueError):
            ClassifyParams(**bad)


def test_a_dated_copy_of_another_day_stays_a_copy() -> None:
    # the wording kept (a re-issue, re-headlined at most) with another opening figure in
    # its title: a copy, whatever the dates; the rule reads spun pairs only
    edited = [*MONDAY[:3], MONDAY[3].replace("quiet", "calm")]
    a, b = _dated(MONDAY, edited, "1987-03-14T09:00:00", "1987-03-16T08:00:00")
    a.article.title = "HARBOUR BOARD HELP RAISES 1987 TOTAL TO 12"
    al = align(a, b)
    assert dated_series(a, b, ClassifyParams()) is not None  # the dates and figures say so
    assert reuse_type(a, b, al, ClassifyParams())[0] == "copy"


# ---------------------------------------------------------------- the earlier text written again

# a report that says enough to be repeated: names, figures, its day
REPORT = [
    "Governor Ellen Marsh of the Harbour Board said the bank would lend 310 mln stg to "
    "Northgate Discount.",
    "Finance Minister Tom Idris backed the loan, which the board had put at 650 mln stg.",
    "Dealers at Kestrel Securities said the rate of 9-7/8 pct was unchanged today.",
    "The opposition leader, Ruth Ames, called the move rushed.",
]
# REPORT reworded a day later: it drops the 650 of the opening and adds no figure, name
# or day of its own (a content farm's next-day rewrite; it keeps "today")
REWRITE_NEXT_DAY = [
    "The Harbour Board will lend 310 mln stg to Northgate Discount, its governor Ellen Marsh said.",
    "The loan has the support of Finance Minister Tom Idris.",
    "Kestrel Securities dealers said the 9-7/8 pct rate was left where it was today.",
    "Ruth Ames, who leads the opposition, said the decision was rushed.",
]
# a later step of one story: the board's next move, with figures, names and a day
LATER_STEP = [
    "The Harbour Board lent a further 145 mln stg to Northgate Discount on Wednesday, "
    "Governor Ellen Marsh said.",
    "Finance Minister Tom Idris said Parliament would vote on the loans next month.",
    "Dealers at Kestrel Securities said the rate of 9-7/8 pct was unchanged.",
    "Ruth Ames of the opposition said Clive Ware should resign.",
]
DAY1, DAY2 = "1987-03-17T09:00:00", "1987-03-18T09:00:00"


def test_a_dated_rewrite_that_adds_nothing_is_not_another_item() -> None:
    a, b = _dated(REPORT, REWRITE_NEXT_DAY, DAY1, DAY2)
    assert later_facts(b, a) == ([], [])
    assert carried_names(b) >= ClassifyParams().later_min_names
    assert "gives no figure and no name" in (adds_nothing(a, b, ClassifyParams()) or "")
    # the opening's 650 is REPORT's, dropped by the rewrite, and "today" is kept from
    # it: no other item
    assert dated_series(a, b, ClassifyParams()) is None
    al = align(a, b)
    rel, _, reasons, _ = reuse_type(a, b, al, ClassifyParams())
    assert rel == "spun"
    assert any("the earlier text written again" in r for r in reasons)
    # with the dates alone deciding (the setting off) it is withdrawn as before
    off = ClassifyParams(later_new_names=None)
    assert adds_nothing(a, b, off) is None
    assert "lacks (650)" in (dated_series(a, b, off) or "")
    assert reuse_type(a, b, al, off)[0] is None
    # undated or one date: no later text to read, and nothing to withdraw
    for ta, tb in ((None, DAY2), (None, None)):
        a.article.published_at, b.article.published_at = ta, tb
        assert adds_nothing(a, b, ClassifyParams()) is None
        assert reuse_type(a, b, al, ClassifyParams())[0] == "spun"


def test_a_later_step_with_facts_of_its_own_stays_two_items() -> None:
    a, b = _dated(REPORT, LATER_STEP, DAY1, DAY2)
    figs, nams = later_facts(b, a)
    assert figs == ["145"]
    assert {"wednesday", "parliament", "clive", "ware"} <= set(nams)
    assert adds_nothing(a, b, ClassifyParams()) is None
    assert adds_nothing(b, a, ClassifyParams()) is None  # argument order does not matter
    assert dated_series(a, b, ClassifyParams()) is not None
    # the earlier text is read against the later, not the other way round
    c, d = _dated(REWRITE_NEXT_DAY, REPORT, DAY2, DAY1)
    assert adds_nothing(c, d, ClassifyParams()) is not None


def test_a_new_day_is_a_later_texts_fact_and_names_beyond_the_setting_make_it_news() -> None:
    moved = [REWRITE_NEXT_DAY[0].replace("said.", "said on Thursday."), *REWRITE_NEXT_DAY[1:]]
    a, b = _dated(REPORT, moved, DAY1, DAY2)
    assert later_facts(b, a) == ([], ["thursday"])
    assert adds_nothing(a, b, ClassifyParams(later_new_names=1)) is not None
    assert adds_nothing(a, b, ClassifyParams(later_new_names=0)) is None
    tomorrow = [*REWRITE_NEXT_DAY[:2], REWRITE_NEXT_DAY[2].replace("today", "tomorrow"), REPORT[3]]
    assert later_facts(doc_of("t", tomorrow), a)[1] == ["tomorrow"]


def test_a_short_notice_that_says_little_is_left_to_the_dates() -> None:
    # MONDAY's notice with its figures and "today", two days later: too few names for
    # "nothing new" to tell the notice written again from another day's (two days'
    # forecasts can agree); the dates decide as before
    a, b = _dated(MONDAY, SAME_FIGURES_TODAY, "1987-03-17T09:00:00", "1987-03-19T09:00:00")
    assert later_facts(b, a) == ([], [])
    assert carried_names(b) < ClassifyParams().later_min_names
    assert adds_nothing(a, b, ClassifyParams()) is None
    assert adds_nothing(a, b, ClassifyParams(later_min_names=0)) is not None
    assert dated_series(a, b, ClassifyParams(later_min_names=0)) is None


def test_credits_bylines_datelines_and_spelled_figures_are_not_a_later_texts_facts() -> None:
    earlier = [
        "The Treasury said that the tax plan would not pay for itself.",
        "Officials had promised growth would cover the lost revenue, the report found.",
    ]
    later = [
        "WASHINGTON (Channel 8 News) — The Treasury's review found the tax plan would "
        "not pay for itself, according to The Meridian Policy Brief.",
        "It is one of the sharpest rebukes yet: officials had promised growth would "
        "cover the lost revenue.",
        "Stay with Channel 8 News for continuing coverage.",
    ]
    a = doc_of("a", earlier)
    assert later_facts(doc_of("b", later), a) == ([], [])
    # the same facts told as news are the later text's
    news = [later[0].replace("Channel 8 News", "AP"), "Senator Ruth Ames said 12 states objected."]
    figs, nams = later_facts(doc_of("d", news), a)
    assert figs == ["12"] and {"ruth", "ames"} <= set(nams)


def test_later_new_names_and_later_min_names_are_validated() -> None:
    for bad in ({"later_new_names": -1}, {"later_min_names": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ClassifyParams(**bad)
    ClassifyParams(later_new_names=0, later_min_names=0)
    ClassifyParams(later_new_names=None)


# a reworded report whose one figure the rewrite writes another way ("25.000" and
# "25 000", "77.000" and "77 ألف" in the texts that showed it): one figure, not two items
DE_SOURCE = [
    "Die Polizei hielt eine Menge von 25.000 Menschen von der Moschee fern.",
    "Viele Anhänger versammelten sich dennoch in der Nähe, um den Präsidenten zu sehen.",
]
DE_REWRITE = [
    "Aus Sicherheitsgründen hielt die Polizei 25 000 Menschen von dem Gotteshaus fern.",
    "Trotzdem kamen viele Anhänger in die Nähe, um ihren Präsidenten zu erleben.",
]


def test_one_figure_written_two_ways_outside_english_is_no_series() -> None:
    a, b = _aligned(DE_SOURCE, DE_REWRITE)
    a.lang = b.lang = "de"
    groups = [[(k, k, 1.0, 0.97, 1.0, False, True) for k in range(2)]]
    assert series_lines(a, b, groups, AlignParams())[1] == 0  # no line with other figures
    assert not align(a, b).features["series"]
    # compared as written (the English reading), the two spellings are two figures
    exact = AlignParams(exact_figure_langs=("en", "de"))
    assert series_lines(a, b, groups, exact)[:2] == (0, 1)


def test_a_rewrite_merging_lines_keeps_figures_of_its_source_and_is_no_series() -> None:
    # a condensed rewrite merges two lines: its line gives the total the source states
    # further on and drops the line's own figures. Each line has figures the other lacks,
    # but the rewrite's are the source's (another item's line has figures of its own)
    source = [
        "Nielsen said CBS drew 3.1 million viewers and NBC 2.9 million.",
        "In all 20.4 million people watched the hearing on the six networks.",
    ]
    rewrite = [
        "The six networks drew 20.4 million viewers between them, Nielsen said.",
        "The hearing was the most watched of the year.",
    ]
    a, b = _aligned(source, rewrite)
    groups = [[(0, 0, 1.0, 0.97, 1.0, False, True)]]
    assert series_lines(a, b, groups, AlignParams())[:2] == (0, 0)
    # the same line against a text that never states the total: another item's line
    other = [rewrite[0], "Ratings rose for the third week in a row."]
    a, c = _aligned(source[:1] + ["The hearing ran for nine hours."], other)
    assert series_lines(a, c, groups, AlignParams())[:2] == (0, 1)


# a longer article (about 150 words) with a few figures; an edited copy changes one of
# them (an age), as a content farm's copy does
LONG_ARTICLE = [
    "The new coach of the northern club said on Monday that he was delighted to take over.",
    "The Scot, aged 42, arrives from a smaller side where he won promotion twice in a row.",
    "He told local radio that the squad had the talent to climb the table before spring.",
    "The club sits third in the league, thousands of fans having watched the last game.",
    "Supporters have waited a long time for a manager who wants to play attacking football.",
    "He plans to bring in assistants he has worked with before, the club said in a statement.",
    "The board said talks with the previous manager had ended on good terms last week.",
    "His first match in charge will be away against a leader of the division.",
    "Tickets for the next home game went on sale at outlets across the city on Tuesday.",
]
LONG_EDITED = [
    LONG_ARTICLE[0],
    LONG_ARTICLE[1].replace("42", "43"),
    *LONG_ARTICLE[2:],
]
# a longer item with figures in three lines, and another day's item of it in which
# every figure is another
LONG_REPORT = [
    *LONG_ARTICLE[:3],
    LONG_ARTICLE[3].replace("thousands of", "some 3,500"),
    *LONG_ARTICLE[4:8],
    LONG_ARTICLE[8].replace("at outlets", "at 12 outlets"),
]
LONG_NEXT = [
    LONG_REPORT[0],
    LONG_REPORT[1].replace("42", "47"),
    LONG_REPORT[2],
    LONG_REPORT[3].replace("3,500", "4,100"),
    *LONG_REPORT[4:8],
    LONG_REPORT[8].replace("12", "15"),
]


def test_one_figure_edited_in_a_longer_copy_is_no_series() -> None:
    whole = dataclasses.replace(ClassifyParams(), whole_bias=100.0)
    a, b = _aligned(LONG_ARTICLE, LONG_EDITED)
    al = align(a, b)
    assert al.features["series"] == 0.0
    assert not any(x.template for x in al.passages)
    assert reuse_type(a, b, al, whole)[0] == "copy"
    # without the rule the one changed age made the two texts two items of one series
    off = AlignParams(series_min_own_figures=0)
    al_off = align(a, b, off)
    assert al_off.features["series"] == 1.0
    assert reuse_type(a, b, al_off, whole)[0] not in ("copy", "spun", "duplicate")
    # nor below the length where an item of a series is a short notice
    short = AlignParams(series_edit_min_words=10_000)
    assert align(a, b, short).features["series"] == 1.0


def test_a_longer_item_with_figures_of_its_own_on_both_sides_stays_a_series() -> None:
    a, b = _aligned(LONG_REPORT, LONG_NEXT)
    al = align(a, b)
    assert al.features["series"] == 1.0
    whole = dataclasses.replace(ClassifyParams(), whole_bias=100.0)
    assert reuse_type(a, b, al, whole)[0] not in ("copy", "spun", "duplicate")
    # a short report with one figure a side stays a series too (above: OPEN_MON)
    s, t = _aligned(OPEN_MON, OPEN_TUE)
    assert align(s, t).features["series"] == 1.0


def test_the_edit_params_are_validated() -> None:
    with pytest.raises(ValueError, match="series_min_own_figures"):
        AlignParams(series_min_own_figures=-1)
    with pytest.raises(ValueError, match="series_edit_min_words"):
        AlignParams(series_edit_min_words=-1)
