"""Subject agreement in the story model: two items of one kind are not one story.

An article's subject is the words of its headline's and lead's names (a wire ticker
marks a company in an all-caps headline). Two companies' earnings tables share their
form and the pile's house words, but neither names the other's company; one company's
table and its prose report name the same one. The notices below are written for these
tests (invented companies and figures).
"""

from __future__ import annotations

import unspin
from unspin.model import Article
from unspin.pipeline import Config, fingerprint
from unspin.stories import (
    StoryParams,
    article_subject,
    other_figures,
    other_subjects,
    pair_features,
    story_probability,
    subject_of,
)


def table(company: str, ticker: str, shr: str, net: str) -> str:
    """A quarterly earnings table of the wire's kind, for one company."""
    return (
        f"{company.upper()} <{ticker}> 1ST QTR NET\n\n"
        f"Shr {shr} cts vs 20 cts\n"
        f"    Net {net} mln vs 3.1 mln\n"
        "    Revs 40.2 mln vs 38.7 mln\n"
        " Reuter\n"
    )


def prose(company: str, ticker: str) -> str:
    """The same company's report of its quarter in prose."""
    return (
        f"{company.upper()} <{ticker}> SEES BETTER YEAR AFTER FIRST QUARTER\n\n"
        f"{company} said its first quarter profit rose on higher sales of its pumps,\n"
        "and that it expects a better year, after the results it reported earlier today.\n"
        f"The {company} chairman said orders were strong in the quarter.\n"
        " Reuter\n"
    )


def _doc(i: str, text: str):
    (d,) = fingerprint([Article(id=i, text=text)], Config(embedder="hashing"))
    return d


def test_subject_of_an_all_caps_headline_is_the_company_a_ticker_marks() -> None:
    d = _doc("a", table("Varnell Pump Corp", "VPMP", "25", "4.0"))
    # the ticker and the name's rare first word; not the house words "Pump" and "Corp"
    assert article_subject(d) == {"varnell", "vpmp"}
    # the table's lines ("Shr", "Net") and the sign-off are no one's names
    assert subject_of("VARNELL PUMP CORP <VPMP> 1ST QTR NET", ("Shr 25 cts", " Reuter")) == {
        "varnell",
        "vpmp",
    }
    # a common first word ("Oxford", "First") is many companies': the ticker alone
    assert subject_of("OXFORD FIRST CORP <OFC> 4TH QTR NET", ("Shr 45 cts",)) == {"ofc"}


def test_subject_of_a_cased_headline_and_lead() -> None:
    s = subject_of(
        "Tara Reid checks into rehab",
        ("The actress entered the Promises Treatment Center in Malibu on Friday, her rep said.",),
    )
    # each name's distinctive (rarest) word: one of "Tara Reid", "Malibu"
    assert "malibu" in s and len({"tara", "reid"} & s) == 1
    assert "friday" not in s and "rehab" not in s
    # a title-case headline has no casing to tell names: the body's names decide
    s = subject_of("Lohan Enters Rehab Again", ("Lindsay Lohan entered a clinic, People said.",))
    assert "lohan" in s and "enters" not in s and "rehab" not in s


def test_two_companies_tables_do_not_name_each_other_and_a_table_and_its_prose_do() -> None:
    a = _doc("a", table("Varnell Pump Corp", "VPMP", "25", "4.0"))
    b = _doc("b", table("Hollister Foods Inc", "HLFD", "31", "5.2"))
    c = _doc("c", prose("Varnell Pump Corp", "VPMP"))
    ab, ac = pair_features(a, b, 0), pair_features(a, c, 0)
    assert ab["subjects"] == ac["subjects"] == 1.0
    assert ab["subject_cross"] < 0.3
    assert ac["subject_cross"] == 1.0
    # no subject on one side: unknown, not a disagreement
    n = _doc("n", "Shr 25 cts vs 20 cts\nNet 4.0 mln vs 3.1 mln\n")
    assert pair_features(a, n, 0)["subjects"] == 0.0


def test_shipped_params_give_two_companies_tables_no_chance_of_one_event() -> None:
    """The subject rule: two look-alike tables of two companies have an event probability
    of at most ``related`` (never one event, still related), however alike the rest; a
    table and its company's prose report keep the model's."""
    a = _doc("a", table("Varnell Pump Corp", "VPMP", "25", "4.0"))
    b = _doc("b", table("Hollister Foods Inc", "HLFD", "31", "5.2"))
    c = _doc("c", prose("Varnell Pump Corp", "VPMP"))
    p = StoryParams()
    ab, ac = pair_features(a, b, 0), pair_features(a, c, 0)
    off = StoryParams(subject_veto=0.0)
    assert other_subjects(ab, p) and story_probability(ab, off) > p.related
    assert story_probability(ab, p) == p.related < p.same_story
    assert not other_subjects(ac, p) and story_probability(ac, p) > 0.0
    # the rule off, or no subject known: the model's probability
    assert story_probability(dict(ab, subjects=0.0), p) == story_probability(ab, off)


def test_in_a_scan_two_companies_tables_are_two_stories() -> None:
    arts = [
        Article(id="t1", text=table("Varnell Pump Corp", "VPMP", "25", "4.0")),
        Article(id="t2", text=table("Hollister Foods Inc", "HLFD", "31", "5.2")),
        Article(id="p1", text=prose("Varnell Pump Corp", "VPMP")),
    ]
    res = unspin.scan(arts, config=Config(embedder="hashing"))
    story = {a: s.id for s in res.stories for a in s.articles}
    assert story["t1"] != story["t2"] and story["p1"] != story["t2"]
    kinds = {(r.a, r.b): r.relation for r in res.relations}
    assert kinds.get(("t1", "t2")) == "related"  # one topic, other events
    # the same scan with the rule off joins the two tables (what the rule is for)
    off = unspin.Config(embedder="hashing", stories=StoryParams(subject_veto=0.0))
    res = unspin.scan(arts, config=off)
    story = {a: s.id for s in res.stories for a in s.articles}
    assert story["t1"] == story["t2"]


def company_news(company: str, ticker: str, what: str) -> str:
    """A company's prose item about New Zealand, the country and "Corp" every such item
    names."""
    return (
        f"{company.upper()} <{ticker}> {what.upper()} IN NEW ZEALAND\n\n"
        f"{company} said it will {what} in New Zealand, where the Corp already\n"
        "sells its products, and that New Zealand's government approved the plan.\n"
        " Reuter\n"
    )


def test_two_companies_items_sharing_corp_and_a_country_are_not_one_story() -> None:
    """Session 12: a mention is the other article naming the subject's distinctive words
    (a ticker, a rare name word), not any subject word anywhere: "Corp" and "New Zealand"
    in both texts make no mention of the other company."""
    a = _doc("a", company_news("Varnell Pump Corp", "VPMP", "build a plant"))
    b = _doc("b", company_news("Hollister Foods Corp", "HLFD", "open an office"))
    f = pair_features(a, b, 0)
    assert f["subjects"] == 1.0 and f["subject_cross"] == 0.0
    assert story_probability(f, StoryParams()) <= StoryParams().related
    # the same company's table and its prose item name each other
    t = _doc("t", table("Varnell Pump Corp", "VPMP", "25", "4.0"))
    g = pair_features(a, t, 0)
    assert g["subject_cross"] == 1.0 and not other_subjects(g, StoryParams())


def money_market(amount: str, when: str) -> Article:
    """The Bank of England's report of its help to the money market on one day."""
    text = (
        f"U.K. MONEY MARKET GIVEN {amount} MLN STG HELP\n\n"
        f"The Bank of England said it provided the money market with {amount} mln stg\n"
        "assistance in the morning session. This brings the Bank's total help today to\n"
        f"{amount} mln stg and compares with its forecast of a 400 mln stg shortage.\n"
        " Reuter\n"
    )
    return Article(id=f"mm-{when}", text=text, published_at=when)


def test_the_money_market_on_two_days_is_not_one_story_when_dated() -> None:
    """Session 12, the series rule: two reports of their own day ("today") of one actor
    published on other calendar days are two events (at most ``related``); on one day,
    or undated, the model decides as before."""
    cfg = Config(embedder="hashing")
    mon = money_market("120", "1987-03-16T10:05:00")
    tue = money_market("125", "1987-03-17T10:05:00")
    tue_pm = money_market("125", "1987-03-17T15:05:00")
    d1, d2, d3 = fingerprint([mon, tue, tue_pm], cfg)
    p = StoryParams()
    two_days, one_day = pair_features(d1, d2, 0), pair_features(d2, d3, 0)
    assert two_days["subject_cross"] == 1.0  # same subject: only the day tells them apart
    assert two_days["other_day"] == 1.0 and one_day["other_day"] == 0.0
    assert story_probability(two_days, StoryParams(other_day_related=False)) > p.same_story
    assert story_probability(two_days, p) == p.related
    assert story_probability(one_day, p) > p.same_story
    undated = [Article(id=a.id, text=a.text) for a in (mon, tue)]
    u1, u2 = fingerprint(undated, cfg)
    assert pair_features(u1, u2, 0)["other_day"] == 0.0
    res = unspin.scan([mon, tue, tue_pm], config=cfg)
    story = {a: s.id for s in res.stories for a in s.articles}
    assert story[mon.id] != story[tue.id] and story[tue.id] == story[tue_pm.id]


def test_one_companys_table_and_its_prose_report_are_one_story_in_a_scan() -> None:
    arts = [
        Article(id="t1", text=table("Varnell Pump Corp", "VPMP", "25", "4.0")),
        Article(id="p1", text=prose("Varnell Pump Corp", "VPMP")),
    ]
    a, b = fingerprint(arts, Config(embedder="hashing"))
    f = pair_features(a, b, 0)
    assert f["subjects"] == 1.0 and f["subject_cross"] == 1.0 and f["other_day"] == 0.0
    assert not other_subjects(f, StoryParams())


def bare_table(company: str, shr: str) -> str:
    """A table under a headline without ticker ("WILSON BROTHERS 4TH QTR")."""
    return (
        f"{company.upper()} 4TH QTR\n\n"
        f"Shr loss {shr} cts vs loss 31 cts\n"
        "    Net loss 1.0 mln vs loss 1.0 mln\n"
        "    Year\n"
        "    Shr profit 10 cts vs loss 45 cts\n"
        " Reuter\n"
    )


def test_a_table_without_ticker_is_its_headlines_company_not_its_lines() -> None:
    """A bare table's lines ("Year", "Shr") are every table's: they are no subject, so
    two companies' bare tables do not name each other (nor glue other tables into one
    story as articles of unknown subject); a ticker's exchange suffix is no name."""
    a = _doc("a", bare_table("Wilson Brothers", "30"))
    b = _doc("b", bare_table("Transducer Systems Inc", "12"))
    assert article_subject(a) == {"wilson"} and article_subject(b) == {"transducer"}
    f = pair_features(a, b, 0)
    assert f["subjects"] == 1.0 and f["subject_cross"] == 0.0
    assert subject_of("OVERSEA-CHINESE BANKING CORP LTD <OCBM.SI> YEAR", ("Shr 21 cts",)) == {
        "ocbm",
        "oversea",
    }
    assert subject_of("UNITED OVERSEAS BANK LTD <UOBM.SI> YEAR", ("Shr 26.9 cts",)) == {"uobm"}


def central_bank_rates(day: str, dollar: str, mark: str) -> Article:
    """An invented central bank's daily rates notice (a series: one slot, other figures)."""
    text = (
        "RURITANIAN CENTRAL BANK SETS CROWN/DOLLAR, MARK RATES\n\n"
        f"The Ruritanian Central Bank set a crown/dollar rate for April {day} of {dollar} to\n"
        f"the dollar, down from the previous level. The bank also set a crown/mark rate of\n"
        f"{mark} to the mark, up from the previous level.\n"
        "The Ruritanian Central Bank said the rates apply to its dealings with Ruritanian\n"
        "commercial banks in Strelsau and Zenda.\n"
        " Reuter\n"
    )
    return Article(id=f"rates-{day}", text=text, published_at=f"1987-04-0{int(day) - 1}T10:00:00")


def test_a_series_item_with_other_figures_in_its_opening_is_not_one_story() -> None:
    """Session 13, the figures rule: two openings that each give figures, of which the
    other text has almost none, are two items (a central bank's rates for two days, even
    published on one morning); at most ``related``, and two stories in a scan. Reports of
    one event that repeat its figures are not capped."""
    cfg = Config(embedder="hashing")
    two = central_bank_rates("2", "780.00/783.90", "429.15/431.30")
    six = central_bank_rates("6", "781.95/785.86", "430.15/432.30")
    six = Article(id=six.id, text=six.text, published_at=two.published_at)  # one morning
    d1, d2 = fingerprint([two, six], cfg)
    f = pair_features(d1, d2, 0)
    assert f["other_day"] == 0.0 and f["subject_cross"] == 1.0
    assert 0.0 <= f["lead_figures"] < StoryParams().figures_veto
    assert other_figures(f, StoryParams()) and not other_figures(f, StoryParams(figures_veto=0))
    assert story_probability(f, StoryParams(figures_veto=0)) > 0.5  # alike by the model
    assert story_probability(f, StoryParams()) == StoryParams().related
    res = unspin.scan([two, six], config=cfg)
    assert len(res.stories) == 2
    assert {r.relation for r in res.relations} == {"related"}
    # one event: the bid and the target's answer repeat the bid's figures
    bid = Article(
        id="bid",
        text="KESTREL OFFERS 42 DLRS A SHARE FOR MARLOW MILLS\n\nKestrel Group said it offered"
        " 42 dlrs a share for the 12.5 mln shares of Marlow Mills it does not hold.\n Reuter\n",
    )
    answer = Article(
        id="answer",
        text="MARLOW MILLS REJECTS KESTREL BID\n\nMarlow Mills said its board rejected the 42"
        " dlrs a share offer by Kestrel Group for its 12.5 mln shares as too low.\n Reuter\n",
    )
    a, b = fingerprint([bid, answer], cfg)
    g = pair_features(a, b, 0)
    assert g["lead_figures"] >= StoryParams().figures_veto and not other_figures(g, StoryParams())
    # an opening with fewer than two figures tells nothing
    short = _doc("s", "MARLOW MILLS NAMES CHAIRMAN\n\nMarlow Mills named a new chairman.\n")
    assert pair_features(d1, short, 0)["lead_figures"] == -1.0
