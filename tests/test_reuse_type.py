"""Reuse typing: whole derivatives (copy, spun) against passage reuse and independent
coverage.

The first tests run the real pipeline (the multilingual sentence encoder) on short
articles written for these tests: a trimmed copy, a synonym-spun copy, a condensed
rewrite, an independent report of the same event and a passage reused inside another
article. The last ones test the partial-reuse rule on its own, with a model that never
calls a pair whole.
"""

from __future__ import annotations

import dataclasses

import pytest

from unspin.api import compare
from unspin.classify import ClassifyParams, reuse_type
from unspin.fingerprint import prepare
from unspin.model import Alignment, Article, Doc
from unspin.pipeline import Config

SOURCE = (
    "The Harbour Board of Velmora approved a 12 million euro plan to dredge the port on "
    "Tuesday, ending two years of argument over the city's shipping lanes. "
    "Board chair Anika Strand said the work would start in March and take 18 months. "
    '"We cannot let the largest ships sail past us to Tolvik," Strand told reporters after '
    "the vote. "
    "Fishermen's leader Piet Maas warned that dredging could harm the 400 small boats that "
    "use the inner basin every week. "
    "The board said it would pay 2 million euros to compensate fishermen for lost catches "
    "during the works. "
    "Environmental groups said they would study the plan before deciding whether to go to "
    "court. "
    "The port handled 3.1 million tonnes of cargo last year, down from 4 million in 2019. "
    "A final contract with a dredging company is expected to be signed in February."
)

# the source less its last sentence, one word changed: an edited copy
COPY = SOURCE.rsplit(" A final contract", 1)[0].replace("warned", "cautioned")

# the same sentences with dictionary synonyms for about half of the content words
SPUN = (
    "The Harbour Board of Velmora endorsed a 12 million euro scheme to deepen the harbour "
    "on Tuesday, concluding two years of dispute over the town's freight channels. "
    "Board head Anika Strand stated the job would commence in March and last 18 months. "
    '"We cannot let the largest ships sail past us to Tolvik," Strand informed journalists '
    "following the ballot. "
    "Anglers' chief Piet Maas cautioned that deepening might damage the 400 little vessels "
    "that utilise the inner dock each week. "
    "The board stated it would pay 2 million euros to recompense anglers for lost hauls "
    "throughout the work. "
    "Ecological organisations stated they would examine the scheme prior to choosing "
    "whether to go to court. "
    "The harbour managed 3.1 million tonnes of freight last year, down from 4 million in "
    "2019. "
    "A definitive agreement with a dredging firm is anticipated to be signed in February."
)

# a language-model style rewrite condensed to about half
CONDENSED = (
    "Velmora's Harbour Board has backed a 12 million euro dredging plan for the port, with "
    "work due to begin in March and last 18 months. "
    '"We cannot let the largest ships sail past us to Tolvik," chair Anika Strand said. '
    "Fishermen, led by Piet Maas, fear harm to the 400 small boats of the inner basin; the "
    "board has set aside 2 million euros in compensation."
)

# an independent report of the same event: its own facts, sources and quotations
INDEPENDENT = (
    "Velmora's dredging vote split the harbour board five to three on Tuesday, with two "
    "members from the northern wards voting against the plan. "
    "Councillor Ruth Okafor, who voted no, said the board had ignored a 2021 study that "
    "put the cost closer to 20 million euros. "
    '"Nobody has shown me that the big container lines will actually come," Okafor said '
    "in an interview at the town hall. "
    "Shipping agent Lars Benn said three operators had asked about berths for vessels of "
    "up to 14 metres draught. "
    "The regional government, which must approve any work in the estuary, has not yet "
    "said when it will decide. "
    "Residents of the Oudekade district plan a petition over the noise of night work."
)

# a different article that reuses two sentences of the source word for word
PARTIAL = (
    "Ports along the northern coast are competing for the largest container ships as "
    "shipping lines cut the number of stops on their routes. "
    "In Tolvik, the port authority finished a new quay last spring and says it can take "
    "vessels with a draught of 16 metres. "
    "Board chair Anika Strand said the work would start in March and take 18 months. "
    "Fishermen's leader Piet Maas warned that dredging could harm the 400 small boats that "
    "use the inner basin every week. "
    "Further east, Marrekum has chosen to specialise in ferries and fishing rather than "
    "container traffic. "
    "Its mayor, Joost Elling, said the town could not afford the debt that deeper berths "
    "would need. "
    "Analysts at the shipping consultancy Nordlane expect only two of the six ports to "
    "keep regular calls by the largest lines. "
    "The others, they said, will become feeder ports served by smaller ships from the "
    "hubs. "
    "Unions fear that the change will cost hundreds of dock jobs over the next decade."
)


# two reports of one story (a preview and the result) that share most paragraphs word for
# word, each with facts of its own: the later one a winner, a price, a quotation; the
# earlier one the bidders, a favourite, an outlet's figure
SHARED = (
    "Board chair Anika Strand said the work would start in March and take 18 months. "
    "Fishermen's leader Piet Maas warned that dredging could harm the 400 small boats that "
    "use the inner basin every week. "
    "The board said it would pay 2 million euros to compensate fishermen for lost catches "
    "during the works. "
    "The port handled 3.1 million tonnes of cargo last year, down from 4 million in 2019. "
    "Environmental groups said they would study the plan before deciding whether to go to "
    "court. "
    '"We cannot let the largest ships sail past us to Tolvik," Strand told reporters. '
)
EARLIER = (
    "Three dredging firms are bidding to deepen the port of Velmora, and the Harbour Board "
    "will choose one of them on Friday. "
    + SHARED
    + "Dutch firm Van Oord, which deepened the Rotterdam channel in 2016, is seen as the "
    "favourite. "
    "Bids from Jan De Nul and Boskalis came in under 11 million euros, according to board "
    "papers seen by the Velmora Courier."
)
LATER = (
    "The Harbour Board of Velmora has given the dredging contract to Boskalis for 10.6 "
    "million euros, passing over the favourite, Van Oord. "
    + SHARED
    + '"Their plan keeps the inner basin open on 280 of the 540 days the works last," Strand '
    "said after Friday's vote. "
    "Van Oord said it would ask the board for the scoring sheets; Jan De Nul declined to "
    "comment."
)


def test_two_reports_of_one_story_sharing_paragraphs_are_not_a_whole_derivative() -> None:
    a = Article(id="earlier", text=EARLIER, title="Velmora dredging bids")
    b = Article(id="later", text=LATER, title="Boskalis wins Velmora dredging")
    assert compare(a, b).relation == "partial"


def _rel(text: str) -> str:
    a = Article(id="src", text=SOURCE, title="Velmora port dredging approved")
    b = Article(id="other", text=text, title="Velmora")
    return compare(a, b).relation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (COPY, "copy"),
        (SPUN, "spun"),
        (CONDENSED, "spun"),
        (PARTIAL, "partial"),
    ],
    ids=["edited copy", "synonym spin", "condensed rewrite", "passage inside another"],
)
def test_reuse_types_of_derivatives(text: str, expected: str) -> None:
    assert _rel(text) == expected


def test_independent_coverage_of_the_event_is_not_reuse() -> None:
    assert _rel(INDEPENDENT) not in ("copy", "spun", "partial", "duplicate")


def test_a_whole_derivative_records_its_typing_evidence() -> None:
    a = Article(id="src", text=SOURCE)
    b = Article(id="spin", text=SPUN)
    rel = compare(a, b)
    names = {e.name for e in rel.evidence if e.stage == "type"}
    assert set(ClassifyParams().whole_features) <= names
    assert "kept_share" in names
    kept = next(e for e in rel.evidence if e.name == "kept_share")
    assert kept.value < ClassifyParams().copy_kept  # reworded: spun


# ---------------------------------------------------------------- the partial rule alone

A = prepare(Article(id="a", text="The ferry operator cancelled all crossings on Monday."))
B = prepare(Article(id="b", text="Heavy snow closed three mountain passes overnight."))

BASE = {
    "n_passages": 1.0,
    "n_quote_only": 0.0,
    "order": 1.0,
    "semantic": 0.95,
    "verbatim": 1.0,
    "strong_verbatim": 1.0,
    "strong_sents": 10.0,
    "strong_chars": 1200.0,
    "own_run_a": 0.0,
    "own_run_b": 0.0,
    "doc_sim": 0.9,
}
NEVER_WHOLE = dataclasses.replace(ClassifyParams(), whole_bias=-100.0)


def _type(p: ClassifyParams = NEVER_WHOLE, **feats: float) -> str | None:
    al = Alignment(a="a", b="b", passages=[], features=BASE | feats)
    return reuse_type(A, B, al, p)[0]


@pytest.mark.parametrize(
    ("sents", "chars", "expected"),
    [(3.0, 400.0, "partial"), (2.0, 150.0, "partial"), (1.0, 140.0, "partial"), (1.0, 60.0, None)],
)
def test_reused_sentences_make_partial_reuse(
    sents: float, chars: float, expected: str | None
) -> None:
    got = _type(cov_a=0.05, cov_b=0.08, strong_sents=sents, strong_chars=chars)
    assert got == expected


@pytest.mark.parametrize(
    ("sents", "chars", "verbatim", "doc_sim", "expected"),
    [
        (1.0, 180.0, 0.9, 0.8, "partial"),  # one long sentence, its wording kept
        (1.0, 180.0, 0.33, 0.8, None),  # the same sentence in the writer's own words
        (2.0, 150.0, 0.33, 0.8, None),  # two short ones reworded: under partial_min_chars
        (2.0, 250.0, 0.33, 0.8, "partial"),  # two reworded sentences of some length
        (1.0, 180.0, 0.33, 0.3, "partial"),  # reworded, in an article on another subject
    ],
)
def test_one_reworded_sentence_is_reuse_only_between_articles_on_other_subjects(
    sents: float, chars: float, verbatim: float, doc_sim: float, expected: str | None
) -> None:
    # two reports of one event writing one sentence of a fact sheet in their own words (PAC
    # dev: a White House announcement) is no reuse: one sentence is evidence verbatim, or
    # reworded where no common source explains it (a paragraph put into another story)
    got = _type(
        cov_a=0.03,
        cov_b=0.09,
        strong_sents=sents,
        strong_chars=chars,
        strong_verbatim=verbatim,
        verbatim=1.0 - verbatim,  # the passage's neighbours are not the sentence's wording
        doc_sim=doc_sim,
    )
    assert got == expected


def test_partial_single_topic_is_validated() -> None:
    with pytest.raises(ValueError, match="partial_single_topic"):
        ClassifyParams(partial_single_topic=1.5)


def test_a_pair_the_model_calls_whole_is_not_partial() -> None:
    # (A and B, two short texts opening with other words and other figures, are two
    # notices of one template by ClassifyParams.notice_subjects: off, the partial rule's)
    always = dataclasses.replace(ClassifyParams(), whole_bias=100.0, notice_subjects=False)
    # one-sentence texts, each aligned whole (the one piece carried a short copy needs)
    got = _type(always, cov_a=0.9, cov_b=0.9, n_sent_a=1.0, n_sent_b=1.0)
    assert got in ("copy", "spun")


# ---------------------------------------------------------------- quoting a common document

MEMO = (
    '"The department will suspend all new contracts with outside consultants from 1 April, '
    "and every existing contract above 50,000 euros will be reviewed by an independent panel "
    'before it is renewed," {say}. "Managers who approve spending outside these rules will be '
    'personally accountable to the finance committee."'
)


def test_two_outlets_quoting_one_memo_are_one_story_with_the_quotation_group() -> None:
    """Independent reports that quote the same document at length share quotations, not
    text: same_story, the quotations grouped, no reuse claimed."""
    from unspin.api import scan

    a = Article(
        id="post",
        title="Ministry freezes consultant contracts",
        text="The transport ministry has frozen new consultancy work, according to an internal "
        "memo seen by the Harbour Post. " + MEMO.format(say="the memo says") + " The ministry "
        "spent 14 million euros on consultants last year, more than any other department. "
        "Opposition MP Lena Vos said the freeze came two years too late. A ministry "
        "spokesman declined to comment on the memo.",
    )
    b = Article(
        id="wire",
        title="Memo: spending crackdown at transport ministry",
        text="Staff at the transport ministry were told on Friday that consultancy spending "
        "would be cut sharply. In a memo to senior officials, the permanent secretary "
        "wrote: " + MEMO.format(say="she wrote") + " Unions welcomed the move but warned that "
        "in-house teams were already stretched. The ministry's own audit last autumn found "
        "that three projects had overrun by a combined 9 million euros.",
    )
    res = scan([a, b])
    assert [(r.a, r.b, r.relation) for r in res.relations] == [("post", "wire", "same_story")]
    assert len(res.stories) == 1
    groups = [g for g in res.quotes if set(g.articles) == {"post", "wire"}]
    assert len(groups) == 2 and not any(g.altered_in for g in groups)
    rel = compare(a, b)
    assert rel.relation == "same_story"
    assert rel.alignment and all(p.quote_only for p in rel.alignment)  # kept, flagged


# ---------------------------------------------------------------- evidence carried over


def _docs(*texts: str) -> list[Doc]:
    from unspin.pipeline import Config, fingerprint

    arts = [Article(id=f"d{k}", text=t) for k, t in enumerate(texts)]
    return fingerprint(arts, Config())


ALWAYS_WHOLE = dataclasses.replace(ClassifyParams(), whole_bias=100.0)

# a preview of the vote in SOURCE: its names, none of its sentences, figures or quotations
BRIEF = (
    "Velmora's Harbour Board meets on Tuesday to decide whether to dredge the port, after "
    "years of quarrelling. "
    "Chair Anika Strand has argued that without deeper lanes the biggest ships will call at "
    "Tolvik instead. "
    "Piet Maas, who speaks for the fishermen of the inner basin, wants the board to protect "
    "their moorings. "
    "Conservation charities are still reading the plans."
)


def test_a_whole_derivative_carries_sentences_figures_or_quotations_of_its_source() -> None:
    """However sure the model, a pair is one text and its derivative only when it shares
    pieces of the text (aligned sentences, figures, quotations): a preview of the same
    event with the same names and no shared sentence or figure is not (NTREX: a brief
    beside a long report of one event); a condensed rewrite without a sentence left whole
    keeps its source's figures and quotation, and is."""
    from unspin.align import align

    src, ind, cond = _docs(SOURCE, BRIEF, CONDENSED)
    al = align(src, ind)
    assert reuse_type(src, ind, al, ALWAYS_WHOLE)[0] is None
    # the rule, not the rest of the typing, turned it away
    no_rule = dataclasses.replace(ALWAYS_WHOLE, whole_min_carried=0)
    assert reuse_type(src, ind, al, no_rule)[0] == "spun"
    assert reuse_type(src, cond, align(src, cond), ALWAYS_WHOLE)[0] == "spun"


# a council's vote: its lead names the leader; its body, five others
COUNCIL = (
    "The council of Marlow voted on Monday to close the old library on Fenn Street, after "
    "a debate that ran past midnight. "
    "Council leader Ruth Calder said the building had become too costly to keep. "
    "Opposition councillor Tomas Erdal accused her of selling off the heritage of the town "
    "and said his group would call for a public inquiry. "
    "The head librarian, Maud Pyke, told the meeting that visitor numbers had doubled since "
    "the reading room reopened. "
    "A campaign group led by Owen Lasker has collected signatures against the closure and "
    "plans a march through the town centre. "
    "The finance chief of the council, Imran Sadiq, said the savings would fund new youth "
    "centres. "
    "Books will move to the Kellaway Community Hub while the council decides what to do "
    "with the site."
)
# a condensed rewrite of it: every sentence reworded, no figure, no quotation; the
# people of the source's body, spelled as it spells them
COUNCIL_REWRITE = (
    "Library lovers in Marlow are losing their old branch after councillors backed the "
    "closure late on Monday, with leader Ruth Calder arguing that repairs would cost too "
    "much. "
    "Tomas Erdal, for the opposition, called it a sell-off of local heritage and wants an "
    "inquiry. "
    "Librarian Maud Pyke pointed to a surge in visitors, and campaigners around Owen Lasker "
    "are gathering names for a protest march. "
    "Finance chief Imran Sadiq says the money saved goes to youth centres, while the books "
    "head to the Kellaway Community Hub."
)

# another report of the vote, which names two of the body's people
COUNCIL_OTHER = (
    "Marlow library campaigners led by Owen Lasker marched on Saturday, and librarian "
    "Maud Pyke's visitor figures were read out to the crowd outside the town hall."
)


def test_a_condensed_rewrite_carries_the_names_of_its_sources_body() -> None:
    """A rewrite that rewords every sentence and keeps no figure or quotation still
    spells the secondary people of its source's later paragraphs as the source does:
    in one language those names are pieces carried over. The brief of the same vote,
    which shares the lead's names and one of the body's, stays short of the bar."""
    from unspin.align import align
    from unspin.evidence import PairCtx, body_names, carried_evidence

    src, cond, other = _docs(COUNCIL, COUNCIL_REWRITE, COUNCIL_OTHER)
    al = align(src, cond)
    got, need = carried_evidence(PairCtx(src, cond, al, ALWAYS_WHOLE))
    assert body_names(PairCtx(src, cond, al, ALWAYS_WHOLE)) == {
        "tomas erdal", "maud pyke", "owen lasker", "imran sadiq", "community hub"
    }  # fmt: skip
    assert got >= need == 3
    assert reuse_type(src, cond, al, ALWAYS_WHOLE)[0] == "spun"
    off = dataclasses.replace(ALWAYS_WHOLE, carried_body_names=False)
    assert reuse_type(src, cond, al, off)[0] is None  # without them, short of the bar
    # a pile where another report of the vote names two of them: those are the event's
    from unspin.corpus import CorpusSupport

    pile = CorpusSupport([src, cond, other])
    assert body_names(PairCtx(src, cond, al, ALWAYS_WHOLE, pile)) == {
        "tomas erdal", "imran sadiq", "community hub"
    }  # fmt: skip
    # the vote's preview beside its report: the names of the lead are not counted
    s2, b2 = _docs(SOURCE, BRIEF)
    assert body_names(PairCtx(s2, b2, align(s2, b2), ALWAYS_WHOLE)) == {"piet maas"}
    assert reuse_type(s2, b2, align(s2, b2), ALWAYS_WHOLE)[0] is None


def test_the_rewrite_models_own_claim_needs_no_pieces_of_the_text() -> None:
    """The carried-evidence gate turns away the whole-text model's claim on a pair that
    shares no sentence, figure or quotation (the preview beside its report); the rewrite
    model's own claim (from its cut) stands on the shorter text keeping the longer's
    facts, in one language, unless ``rewrite_min_carried`` asks for pieces; where the
    whole-text model's claim fails the gate, the rewrite model is read too."""
    from unspin.align import align
    from unspin.evidence import PairCtx, carried_evidence

    src, ind = _docs(SOURCE, BRIEF)
    al = align(src, ind)
    got, need = carried_evidence(PairCtx(src, ind, al, ALWAYS_WHOLE))
    assert got < need
    # the rewrite model made certain either way, the whole-text model silenced or sure
    rewrite_sure = dict(rewrite_bias=100.0)
    alone = dataclasses.replace(ClassifyParams(), whole_bias=-100.0, **rewrite_sure)
    kind, prob, reasons, evidence = reuse_type(src, ind, al, alone)
    assert kind == "spun" and prob > 0.99
    assert any("the rewrite model's claim stands" in r for r in reasons)
    gated = dataclasses.replace(alone, rewrite_min_carried=need)
    assert reuse_type(src, ind, al, gated)[0] is None
    both = dataclasses.replace(ALWAYS_WHOLE, **rewrite_sure)
    kind, _, reasons, evidence = reuse_type(src, ind, al, both)
    assert kind == "spun"
    assert any(e.name.startswith("rewrite.") for e in evidence)
    assert not any(r.startswith("not a whole derivative") for r in reasons)
    # the whole-text model's claim alone still needs the pieces
    assert reuse_type(src, ind, al, ALWAYS_WHOLE)[0] is None
    assert reuse_type(src, ind, al, dataclasses.replace(both, rewrite_model=False))[0] is None
    assert reuse_type(src, ind, al, dataclasses.replace(both, rewrite_min_carried=need))[0] is None
    with pytest.raises(ValueError, match="rewrite_min_carried must be >= 0"):
        ClassifyParams(rewrite_min_carried=-1)


def test_a_short_copy_needs_no_more_pieces_than_it_has_sentences() -> None:
    short = (
        "The ferry operator cancelled all crossings to the islands on Monday morning. "
        "Passengers were told to check the company website before travelling to the port."
    )
    edited = short.replace("Passengers were told", "Travellers were told")
    assert compare(Article(id="a", text=short), Article(id="b", text=edited)).relation == "copy"


# ---------------------------------------------------------------- rewrite of one text

# a rewrite condensed to about a half, every sentence reworded, facts reordered
REWORDED = (
    "Velmora is finally going ahead with deepening its harbour. "
    "After a two-year row over shipping lanes, the port's governing board signed off on "
    "Tuesday on dredging worth 12 million euros, with diggers due in March for an "
    "18-month job. "
    '"We cannot let the largest ships sail past us to Tolvik," said Anika Strand, who '
    "chairs the board. "
    "Not everyone is pleased: Piet Maas, speaking for local fishermen, fears for the 400 "
    "small craft working the inner basin, although 2 million euros has been promised to "
    "cover lost catches. "
    "Cargo through the port slipped to 3.1 million tonnes last year, from 4 million in 2019."
)


def _alone(text: str, **classify: object) -> object:
    """The scan's relation with the whole-text model silenced: the rewrite model decides."""
    cfg = Config()
    p = dataclasses.replace(cfg.classify, whole_bias=-100.0, **classify)
    a = Article(id="src", text=SOURCE, title="Velmora port dredging approved")
    return compare(
        a, Article(id="other", text=text, title="Velmora"), dataclasses.replace(cfg, classify=p)
    )


@pytest.mark.parametrize("text", [REWORDED, CONDENSED], ids=["reworded", "condensed"])
def test_the_rewrite_model_alone_calls_a_condensed_rewrite_spun(text: str) -> None:
    rel = _alone(text)
    assert rel.relation == "spun"
    assert (rel.source, rel.derivative) == ("src", "other")
    assert any(r.startswith("a rewrite of one text: other keeps") for r in rel.reasons)
    names = {e.name for e in rel.evidence if e.stage == "type"}
    assert {"rewrite." + n for n in ClassifyParams().rewrite_features} <= names
    # and without it the same pair is no whole derivative
    assert _alone(text, rewrite_model=False).relation not in ("spun", "copy")


@pytest.mark.parametrize("text", [INDEPENDENT, PARTIAL], ids=["independent", "partial"])
def test_the_rewrite_model_alone_keeps_other_coverage_apart(text: str) -> None:
    assert _alone(text).relation not in ("spun", "copy")


def test_rewrite_params_are_validated() -> None:
    with pytest.raises(ValueError, match="rewrite_weights needs one weight"):
        ClassifyParams(rewrite_weights=(1.0,))
    with pytest.raises(ValueError, match="unknown evidence 'nope'"):
        ClassifyParams(rewrite_features=("nope",), rewrite_weights=(1.0,))
    with pytest.raises(ValueError, match="rewrite_cut must be in"):
        ClassifyParams(rewrite_cut=1.5)


# ---------------------------------------------------------------- details of the body

# a condensed rewrite that carries the source's body details (the fishermen, their
# compensation, the cargo figures, the rival port) and little of its lead
BODY = (
    "Fishermen in Velmora fear for their 400 small boats now that the port is to be "
    "dredged. "
    "Their spokesman Piet Maas says the inner basin is at risk, although 2 million euros "
    "will go to compensation. "
    "Cargo slipped to 3.1 million tonnes last year from 4 million in 2019, and big ships "
    "may turn to Tolvik instead."
)


def _secondary(text: str) -> float:
    from unspin.align import align
    from unspin.evidence import PairCtx, secondary_share

    src, other = _docs(SOURCE, text)
    return secondary_share(PairCtx(src, other, align(src, other), ClassifyParams()))


def test_the_shorter_texts_share_of_the_longers_body_details() -> None:
    """The source's lead (title, first two sentences) states the board, the 12 million,
    the chair and the months; its body the fishermen, the 400 boats, the cargo figures and
    the rival port. A rewrite of the body carries those; an independent report of the vote
    has details of its own; a preview carries a few names and no figure."""
    body, independent, brief = _secondary(BODY), _secondary(INDEPENDENT), _secondary(BRIEF)
    assert body == pytest.approx(7 / 9)  # 400, 3.1, 4, 2019, piet, maas, tolvik of 8
    assert independent == 0.0
    assert 0.0 < brief < body


def test_below_the_cut_a_rewrite_carrying_the_bodys_details_is_spun() -> None:
    """With the rewrite model's cut out of reach, only the body-details rule can claim a
    rewrite; it claims the one that carries them and not the independent report."""
    band = dict(rewrite_cut=0.999999, rewrite_band=0.0)
    rel = _alone(BODY, **band)
    assert rel.relation == "spun"
    assert any(r.startswith("below the rewrite model's cut") for r in rel.reasons)
    assert any(e.name == "rewrite.secondary" for e in rel.evidence)
    assert _alone(BODY, rewrite_secondary=1.0, **band).relation != "spun"
    assert _alone(BODY, rewrite_cut=0.999999, rewrite_band=0.999999).relation != "spun"
    assert _alone(INDEPENDENT, **band).relation not in ("spun", "copy")


def test_the_body_details_params_are_validated() -> None:
    with pytest.raises(ValueError, match="rewrite_band must be in"):
        ClassifyParams(rewrite_band=0.6)
    with pytest.raises(ValueError, match="rewrite_secondary must be >= 0"):
        ClassifyParams(rewrite_secondary=-0.1)


@pytest.mark.parametrize(
    ("later", "expected"),
    [("2024-03-05T16:00:00", "spun"), ("2024-03-07T09:00:00", None)],
    ids=["same day", "two days later"],
)
def test_a_rewrite_on_shared_facts_alone_is_no_claim_across_days(later: str, expected) -> None:
    cfg = Config()
    p = dataclasses.replace(cfg.classify, whole_bias=-100.0)
    a = Article(id="src", text=SOURCE, title="Velmora port", published_at="2024-03-05T09:00:00")
    b = Article(id="other", text=REWORDED, title="Velmora", published_at=later)
    rel = compare(a, b, dataclasses.replace(cfg, classify=p))
    if expected:
        assert rel.relation == expected
    else:
        # one story's two steps (the stories stage's claim), not a rewrite
        assert rel.relation == "same_story"


# the council vote again, in Hindi (a script without capitals: no word reads as a name);
# written for the test. The source's lead is its first two sentences; its body names an
# opposition councillor, the librarian and the hub the books go to
COUNCIL_HI = (
    "नगर परिषद ने सोमवार को पुरानी लाइब्रेरी बंद करने का फ़ैसला किया। "
    "परिषद की नेता रूथ काल्डर ने कहा कि इमारत का ख़र्च बहुत ज़्यादा है। "
    "विपक्ष के पार्षद टोमास एर्डल ने इस फ़ैसले की कड़ी आलोचना की। "
    "लाइब्रेरियन मॉड पाइक ने बताया कि पाठकों की संख्या दोगुनी हो गई है। "
    "सारी किताबें केलावे कम्युनिटी हब में भेजी जाएँगी।"
)
# a rewrite: every sentence reworded, the body's people and the hub spelled as the source
COUNCIL_HI_REWRITE = (
    "मार्लो की पुरानी लाइब्रेरी अब बंद होगी। "
    "पार्षद टोमास एर्डल इस कदम से नाराज़ हैं, जबकि मॉड पाइक के मुताबिक़ पाठक बढ़े हैं। "
    "किताबों को केलावे कम्युनिटी हब ले जाया जाएगा।"
)
# another article of the pile that names the librarian
COUNCIL_HI_OTHER = "लाइब्रेरियन मॉड पाइक ने शनिवार को भीड़ से बात की और आँकड़े पढ़े।"


def _council_pair(lang: str, source: str, rewrite: str, other: str):
    """The council texts of ``lang`` fingerprinted (source, rewrite, another article of
    the pile) and the source / rewrite alignment."""
    from unspin.align import align
    from unspin.pipeline import Config, fingerprint

    arts = [
        Article(id=k, text=t, lang=lang) for k, t in (("s", source), ("r", rewrite), ("o", other))
    ]
    src, rw, oth = fingerprint(arts, Config())
    return src, rw, oth, align(src, rw)


def test_in_a_script_without_capitals_the_body_phrases_a_rewrite_keeps_are_pieces() -> None:
    """Where no word reads as a name, the phrases of the source's body that the rewrite
    writes word for word and no other article of the pile uses stand for the body's
    names among the carried pieces (``evidence.body_phrases``): runs of word pairs, the
    lead's left out; none without a pile (a phrase two texts share may be the
    language's)."""
    from unspin.corpus import CorpusSupport
    from unspin.evidence import PairCtx, body_phrases, carried_evidence

    src, rw, other, al = _council_pair("hi", COUNCIL_HI, COUNCIL_HI_REWRITE, COUNCIL_HI_OTHER)
    p = ClassifyParams()
    assert "hi" in p.caseless_langs
    # "पार्षद टोमास एर्डल", "मॉड पाइक", "केलावे कम्युनिटी हब"
    assert body_phrases(PairCtx(src, rw, al, p, CorpusSupport([src, rw]))) == 3
    # the librarian is named by another article of the pile: the event's, not the text's
    pile = CorpusSupport([src, rw, other])
    assert body_phrases(PairCtx(src, rw, al, p, pile)) == 2
    assert body_phrases(PairCtx(src, rw, al, p)) == 0  # no pile
    got_pile, _ = carried_evidence(PairCtx(src, rw, al, p, pile))
    got_none, _ = carried_evidence(PairCtx(src, rw, al, p))
    assert got_pile == got_none + 2
    # the same texts read as a cased language: the names path (none here), no phrases
    cased = dataclasses.replace(p, caseless_langs=())
    assert carried_evidence(PairCtx(src, rw, al, cased, pile))[0] == got_none


# the council vote once more, in Thai (written without spaces between words, so no word
# pair has a space inside it); written for the test. The lead is the first two
# sentences; the body names an opposition councillor, the librarian and the hub
COUNCIL_TH = (
    "สภาเมืองลงมติเมื่อวันจันทร์ให้ปิดห้องสมุดเก่าของเมือง\n\n"
    "หัวหน้าสภากล่าวว่าค่าใช้จ่ายของอาคารสูงเกินไป\n\n"
    "สมาชิกสภาฝ่ายค้านโทมัสเออร์ดัลวิจารณ์การตัดสินใจนี้อย่างรุนแรง\n\n"
    "บรรณารักษ์มอดไพค์บอกว่าจำนวนผู้อ่านเพิ่มเป็นสองเท่า\n\n"
    "หนังสือทั้งหมดจะถูกส่งไปที่ศูนย์ชุมชนเคลาเวย์"
)
COUNCIL_TH_REWRITE = (
    "ห้องสมุดเก่าของมาร์โลว์จะปิดตัวลงแล้ว\n\n"
    "โทมัสเออร์ดัลไม่พอใจกับมติครั้งนี้เลย\n\n"
    "ด้านมอดไพค์ระบุว่าคนอ่านมีมากขึ้น\n\n"
    "ทุกเล่มจะย้ายไปยังศูนย์ชุมชนเคลาเวย์"
)
# another article of the pile that names the librarian
COUNCIL_TH_OTHER = "เมื่อวันเสาร์มอดไพค์ได้พูดคุยกับผู้มาเยือนที่ห้องโถงใหญ่"


def test_in_a_script_without_spaces_kept_runs_of_characters_are_body_phrases() -> None:
    """In Thai no word pair has a space inside it: a phrase of the source's body the
    rewrite keeps is a run of overlapping character-bigram pairs
    (``ClassifyParams.spaceless_run`` of them at least), read only in
    ``spaceless_run_langs``; what another article of the pile writes is the pile's."""
    from unspin.corpus import CorpusSupport
    from unspin.evidence import PairCtx, body_phrases, carried_evidence

    src, rw, other, al = _council_pair("th", COUNCIL_TH, COUNCIL_TH_REWRITE, COUNCIL_TH_OTHER)
    p = ClassifyParams()
    assert "th" in p.caseless_langs and "th" in p.spaceless_run_langs
    pair = CorpusSupport([src, rw])
    got = body_phrases(PairCtx(src, rw, al, p, pair))
    # the councillor, the librarian and the hub, each a run of its own
    assert got == 3
    off = dataclasses.replace(p, spaceless_run_langs=())
    assert body_phrases(PairCtx(src, rw, al, off, pair)) == 0
    # a run must be long enough: one pair (three characters) is no phrase
    assert body_phrases(PairCtx(src, rw, al, dataclasses.replace(p, spaceless_run=40), pair)) == 0
    # the librarian is named by another article of the pile: the event's, not the text's
    pile = CorpusSupport([src, rw, other])
    assert body_phrases(PairCtx(src, rw, al, p, pile)) == 2
    assert (
        carried_evidence(PairCtx(src, rw, al, p, pair))[0]
        > (carried_evidence(PairCtx(src, rw, al, off, pair))[0])
    )
    with pytest.raises(ValueError, match="spaceless_run"):
        ClassifyParams(spaceless_run=-1)


# two reports of one earthquake in Hindi (written for the test): a long report whose body
# tells what happened on the coast, and a brief of the same event in its own words, which
# shares the report's two figures (384 dead, magnitude 7.5) and, from its body, only
# phrases of the language's common words ("तट पर", "on the coast"; "मारे गए", "were killed")
QUAKE_HI = (
    "शुक्रवार को सुलावेसी द्वीप के पास 7.5 तीव्रता का भूकंप आया। "
    "अधिकारियों के अनुसार पालू शहर में कम से कम 384 लोगों की मौत हुई। "
    "तट पर कई लोग मारे गए और हज़ारों लोग बेघर हो गए। "
    "राहत दल रात भर काम करते रहे और अस्पतालों में जगह कम पड़ गई। "
    "आपदा एजेंसी के प्रवक्ता सुतोपो पुर्वो नुग्रोहो ने कहा कि संचार टूट गया है।"
)
QUAKE_HI_BRIEF = (
    "इंडोनेशिया में आए भूकंप की तीव्रता 7.5 मापी गई और 384 लोगों की जान चली गई। "
    "सबसे ज़्यादा नुकसान तट पर हुआ, जहाँ कई लोग मारे गए। "
    "सरकार का कहना है कि हज़ारों लोग बेघर हो गए और मदद भेजी जा रही है।"
)


def test_a_rewrite_claim_in_a_script_without_capitals_needs_named_phrases() -> None:
    """In a script without capitals the rewrite model's claim rests on the facts the
    shorter text keeps; a kept phrase of the longer's body counts as one only with a word
    rare in the language in it (a name, a term), not as two common words that any report
    of the event writes (NTREX: euronews' brief beside Reuters' report of one earthquake,
    in Hindi, claimed on two lead figures and ten such phrases). A whole-text claim still
    counts every kept phrase."""
    from unspin.corpus import CorpusSupport
    from unspin.evidence import PairCtx, body_phrases, carried_evidence
    from unspin.normalise import rare_word

    src, br, _, al = _council_pair("hi", QUAKE_HI, QUAKE_HI_BRIEF, COUNCIL_HI_OTHER)
    pile = CorpusSupport([src, br])
    p = ClassifyParams()
    c = PairCtx(src, br, al, p, pile)
    common = body_phrases(c)
    assert common >= 1 and body_phrases(c, named=True) == 0
    got, need = carried_evidence(c)
    named, _ = carried_evidence(c, named_phrases=True)
    assert got >= need > named
    # the rewrite model sure, the whole-text model silenced: no claim on such pieces
    rewrite_only = dataclasses.replace(p, whole_bias=-100.0, rewrite_bias=100.0)
    kind, _, reasons, _ = reuse_type(src, br, al, rewrite_only, support=pile)
    assert kind is None
    assert any(r.startswith("not a whole derivative") for r in reasons)
    # the whole-text model's claim counts the common phrases as before
    whole_only = dataclasses.replace(p, whole_bias=100.0, rewrite_model=False)
    assert reuse_type(src, br, al, whole_only, support=pile)[0] is not None
    # a rewrite that keeps its source's names: the rewrite model's claim stands
    csrc, crw, _, cal = _council_pair("hi", COUNCIL_HI, COUNCIL_HI_REWRITE, COUNCIL_HI_OTHER)
    cpile = CorpusSupport([csrc, crw])
    cc = PairCtx(csrc, crw, cal, p, cpile)
    assert body_phrases(cc, named=True) == body_phrases(cc) == 3
    assert all(any(rare_word(w, "hi") for w in x.split(" ")) for x in ("टोमास एर्डल", "मॉड पाइक"))
    assert reuse_type(csrc, crw, cal, rewrite_only, support=cpile)[0] == "spun"


# ---------------------------------------------------------------- reworded through

# a Spanish report (written for the test) ...
ES_SOURCE = (
    "La Junta del Puerto de Velmora aprobó el martes un plan de 12 millones de euros para "
    "dragar el puerto, tras dos años de discusiones sobre las rutas de navegación. "
    "La presidenta de la junta, Anika Strand, dijo que las obras empezarán en marzo y "
    "durarán 18 meses. "
    "El líder de los pescadores, Piet Maas, advirtió que el dragado podría dañar a los 400 "
    "barcos pequeños que usan la dársena interior cada semana. "
    "La junta dijo que pagará 2 millones de euros a los pescadores por las capturas "
    "perdidas durante las obras. "
    "Los grupos ecologistas dijeron que estudiarán el plan antes de decidir si acuden a los "
    "tribunales. "
    "El puerto movió 3,1 millones de toneladas de carga el año pasado, frente a 4 millones "
    "en 2019. "
    "Se espera que el contrato final con una empresa de dragado se firme en febrero."
)
# ... an edited copy: the last sentence dropped, one word changed ...
ES_COPY = ES_SOURCE.rsplit(" Se espera", 1)[0].replace("advirtió", "alertó")
# ... and the same report back through a close language: a word or two changed in most
# sentences, the rest word for word, as a round trip through Galician or Catalan leaves it
ES_THROUGH = (
    ES_SOURCE.replace("aprobó", "aprobaba")
    .replace("empezarán", "comenzarán")
    .replace("podría dañar", "podría perjudicar")
    .replace("pagará", "abonará")
    .replace("acuden", "van")
    .replace("se firme", "se suscriba")
)


def test_a_text_changed_in_most_sentences_is_reworded_through_not_copied() -> None:
    def rel(a: str, b: str, lang: str):
        return compare(Article(id="a", text=a, lang=lang), Article(id="b", text=b, lang=lang))

    copied = rel(ES_SOURCE, ES_COPY, "es")
    assert copied.relation == "copy"
    through = rel(ES_SOURCE, ES_THROUGH, "es")
    assert through.relation == "spun"
    share = next(e for e in through.evidence if e.name == "verbatim_share")
    assert share.value < ClassifyParams().copy_word_for_word
    # the rule is not read in English (re-sends in another house style change most of a
    # short wire item's sentences): there the same edits leave a copy
    assert rel(SOURCE, COPY, "en").relation == "copy"
    en_through = (
        SOURCE.replace("approved", "passed")
        .replace("would start", "would begin")
        .replace("could harm", "could damage")
        .replace("would pay", "would give")
        .replace("would study", "would examine")
        .replace("is expected", "is foreseen")
    )
    assert rel(SOURCE, en_through, "en").relation == "copy"


def test_copy_word_for_word_is_validated() -> None:
    with pytest.raises(ValueError, match="copy_word_for_word"):
        ClassifyParams(copy_word_for_word=1.5)
