"""Each registered typing feature and direction evidence on its own (unspin.evidence and
the evidence registered in unspin.classify), on small texts written for these tests."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import aligned_docs, doc_of, embed

import unspin.classify  # noqa: F401  (registers the direction evidence defined there)
from unspin.classify import DIRECTION_EVIDENCE_NAMES, WHOLE_FEATURES, ClassifyParams
from unspin.corpus import CorpusSupport
from unspin.evidence import (
    DIRECTION_EVIDENCE,
    TYPING_FEATURES,
    PairCtx,
    caseless_whole,
    credited_outlets,
    direction_score,
    kept_share,
    merges_weighed,
    whole_score,
)
from unspin.fingerprint import prepare
from unspin.model import AlignedPassage, Alignment, Article, Doc

P = ClassifyParams()

FEATS = {
    "cov_a": 0.8,
    "cov_b": 0.4,
    "verbatim": 0.3,
    "doc_sim": 0.7,
    "n_passages": 1.0,
    "n_quote_only": 0.0,
}


def _passage(a: Doc, b: Doc, i: int, j: int) -> AlignedPassage:
    """Sentence ``i`` of ``a`` aligned with sentence ``j`` of ``b`` (character spans)."""
    sa, sb = a.sentences[i], b.sentences[j]
    return AlignedPassage(sa.start, sa.end, sb.start, sb.end, 0.9, 0.9, 0.5, [i], [j])


def ctx(
    a: Doc,
    b: Doc,
    pairs: list[tuple[int, int]] | None = None,
    relation: str | None = None,
    support: object = None,
    params: ClassifyParams = P,
    **feats: float,
) -> PairCtx:
    """A pair context whose aligned passages are the given (i, j) sentence pairs."""
    passages = [_passage(a, b, i, j) for i, j in (pairs or [])]
    al = Alignment(a=a.id, b=b.id, passages=passages, features=FEATS | feats)
    return PairCtx(a, b, al, params, support, relation=relation)


def test_every_configured_evidence_is_registered() -> None:
    assert set(WHOLE_FEATURES) <= set(TYPING_FEATURES)
    assert set(DIRECTION_EVIDENCE_NAMES) <= set(DIRECTION_EVIDENCE)


def test_unknown_evidence_names_are_refused_early() -> None:
    with pytest.raises(ValueError, match="unknown evidence 'nope'"):
        ClassifyParams(
            whole_features=("nope",), whole_weights=(1.0,), caseless_whole_weights=(1.0,)
        )
    with pytest.raises(ValueError, match="one weight per"):
        ClassifyParams(direction_weights=(1.0,))


# ---------------------------------------------------------------- typing features

S4 = [
    "The council approved the harbour budget on Monday evening after a long debate.",
    "Traders said the new parking charges would drive their customers away.",
    "A public meeting about the library closures is planned for later this month.",
    "Residents near the quarry have complained about dust from lorries for years.",
]
T4 = [
    "Councillors backed the port spending plan on Monday night after hours of talks.",
    "Shop owners warned that parking fees would push shoppers elsewhere in town.",
    "Officials will hold an open meeting on the library cuts in the coming weeks.",
    "People living by the old quarry have long protested about lorry dust there.",
]


def _vec_pair(cos: float, order: list[int] | None = None) -> tuple[Doc, Doc]:
    """Two four-sentence docs whose sentences face each other at ``cos`` (b's k-th
    sentence against a's ``order[k]``-th)."""
    order = order or [0, 1, 2, 3]
    a, b = doc_of("a", S4), doc_of("b", [T4[k] for k in order])
    embed(a, b, {(order[k], k): cos for k in range(4)})
    return a, b


def test_min_sents_grows_with_the_shorter_text() -> None:
    a, b = doc_of("a", S4), doc_of("b", T4[:2])
    short = TYPING_FEATURES["min_sents"](ctx(a, b))
    assert short == pytest.approx(np.log1p(2))
    assert TYPING_FEATURES["min_sents"](ctx(a, doc_of("b", T4))) > short


@pytest.mark.parametrize(
    ("name", "expected"),
    [("cov_hi", 0.8), ("cov_lo", 0.4), ("verbatim", 0.3), ("doc_sim", 0.7)],
)
def test_alignment_features_are_read_as_they_are(name: str, expected: float) -> None:
    a, b = doc_of("a", S4), doc_of("b", T4)
    assert TYPING_FEATURES[name](ctx(a, b)) == pytest.approx(expected)


@pytest.mark.parametrize("name", ["soft_hi", "soft_lo"])
def test_soft_coverage_counts_sentences_with_a_close_counterpart(name: str) -> None:
    close, far = _vec_pair(0.9), _vec_pair(0.5)
    assert TYPING_FEATURES[name](ctx(*close)) == pytest.approx(1.0)
    assert TYPING_FEATURES[name](ctx(*far)) == pytest.approx(0.0)


def _flat_pair(cos: float) -> tuple[Doc, Doc]:
    """Two four-sentence docs whose every sentence is at ``cos`` to every sentence of the
    other: one topic, no sentence with a counterpart of its own."""
    a, b = doc_of("a", S4), doc_of("b", T4)
    dim = 1 + len(a.sentences) + len(b.sentences)
    eye = np.eye(dim, dtype=np.float32)
    shared, own = np.sqrt(cos), np.sqrt(1 - cos)
    a.sentence_vectors = shared * eye[0] + own * eye[1 : 1 + len(a.sentences)]
    b.sentence_vectors = shared * eye[0] + own * eye[1 + len(a.sentences) :]
    return a, b


def test_peak_counts_counterparts_that_stand_out_of_their_row() -> None:
    # each sentence faces one of the other's at 0.6 and the rest at 0: below soft_match,
    # but a counterpart of its own
    facing = ctx(*_vec_pair(0.6))
    assert TYPING_FEATURES["soft_hi"](facing) == pytest.approx(0.0)
    assert TYPING_FEATURES["peak_hi"](facing) == pytest.approx(1.0)
    # the same best cosine to every sentence of the other: one topic, no counterpart
    flat = ctx(*_flat_pair(0.6))
    assert TYPING_FEATURES["mean_hi"](flat) == pytest.approx(0.6, abs=1e-5)
    assert TYPING_FEATURES["peak_hi"](flat) == pytest.approx(0.0)
    # a smaller margin than the gap: the flat pair still has none; a larger one than
    # the facing pair's gap: it has none either
    wide = dataclasses.replace(P, peak_margin=0.65)
    assert TYPING_FEATURES["peak_hi"](ctx(*_vec_pair(0.6), params=wide)) == pytest.approx(0.0)


def test_peak_falls_back_to_the_soft_share_against_a_short_text() -> None:
    # a's side against b's two sentences: a median of two is no background, so the soft
    # share (cosine >= soft_match 0.7) stands in: 0.65 is below it
    a, b = doc_of("a", S4), doc_of("b", T4[:2])
    embed(a, b, {(0, 0): 0.65, (1, 1): 0.65})
    a_side = ctx(a, b).soft[0]
    assert a_side[3] == pytest.approx(a_side[0]) == pytest.approx(0.0)
    # read against two sentences, the same pair has counterparts (0.65 - 0.325 >= 0.3)
    strict = ctx(a, b, params=dataclasses.replace(P, peak_min_sentences=2)).soft[0]
    assert strict[3] > 0.3


@pytest.mark.parametrize("name", ["mean_hi", "mean_lo"])
def test_mean_best_cosine_follows_the_similarity(name: str) -> None:
    assert TYPING_FEATURES[name](ctx(*_vec_pair(0.9))) == pytest.approx(0.9, abs=1e-5)
    assert TYPING_FEATURES[name](ctx(*_vec_pair(0.6))) == pytest.approx(0.6, abs=1e-5)


def test_order_of_counterparts() -> None:
    kept = TYPING_FEATURES["order"](ctx(*_vec_pair(0.9)))
    shuffled = TYPING_FEATURES["order"](ctx(*_vec_pair(0.9, [3, 2, 1, 0])))
    assert kept == pytest.approx(1.0)
    assert shuffled < 0.5


def _doc(doc_id: str, text: str) -> Doc:
    return prepare(Article(id=doc_id, text=text))


def test_fig_in_is_high_when_one_side_adds_no_figures() -> None:
    a = _doc("a", "The plan costs 12 million euros and takes 18 months for 400 boats.")
    same = _doc("b", "It takes 18 months, costs 12 million euros and affects 400 boats.")
    own = _doc("b", "A 2021 study put the cost at 20 million euros over 36 months.")
    # smoothed shares: (shared + 1) / (own + 2)
    assert TYPING_FEATURES["fig_in"](ctx(a, same)) == pytest.approx(4 / 5)
    assert TYPING_FEATURES["fig_in"](ctx(a, own)) == pytest.approx(1 / 5)


def test_name_in_is_high_when_one_side_adds_no_names() -> None:
    a = _doc("a", "The chair, Anika Strand, spoke after the vote, and later Piet Maas replied.")
    same = _doc("b", "After the vote the chair Anika Strand spoke; later Piet Maas answered.")
    own = _doc("b", "After the vote councillor Ruth Okafor spoke; later Lars Benn answered.")
    assert TYPING_FEATURES["name_in"](ctx(a, same)) > TYPING_FEATURES["name_in"](ctx(a, own))


def test_quote_in_counts_quotations_found_word_for_word() -> None:
    q = '"We cannot let the largest ships sail past us to Tolvik," she said.'
    a = _doc("a", "The board voted on Tuesday. " + q)
    same = _doc("b", "On Tuesday the vote was held. " + q)
    own = _doc(
        "b", 'On Tuesday the vote was held. "Nobody has shown me the lines will come," he said.'
    )
    assert TYPING_FEATURES["quote_in"](ctx(a, same)) > TYPING_FEATURES["quote_in"](ctx(a, own))


# a report and its update: the update keeps the report's facts and adds its own; a
# condensed rewrite keeps some of them and adds none
REPORT = "The board approved the plan on Tuesday; chair Anika Strand said it costs 12 million."
UPDATE = (
    "The board approved the plan on Tuesday; chair Anika Strand said it costs 12 million. "
    "On Friday Piet Maas filed an appeal with 400 signatures."
)
REWRITE = "On Tuesday the board of chair Anika Strand backed the plan, which costs 12 million."


def test_own_lo_counts_facts_of_its_own_on_the_side_with_fewer() -> None:
    a, up, rw = _doc("a", REPORT), _doc("b", UPDATE), _doc("b", REWRITE)
    # the update adds a name and a figure, but the report has nothing the update lacks
    assert TYPING_FEATURES["own_lo"](ctx(a, up)) == 0.0
    assert TYPING_FEATURES["own_lo"](ctx(a, rw)) == 0.0
    # two reports of one story, each with a figure and a name of its own
    first = _doc("a", REPORT + " Lars Benn expects 30 objections.")
    assert TYPING_FEATURES["own_lo"](ctx(first, up)) == pytest.approx(np.log1p(2))


def test_lenratio() -> None:
    a, b = _doc("a", "x " * 100), _doc("b", "y " * 50)
    assert TYPING_FEATURES["lenratio"](ctx(a, b)) == pytest.approx(0.5, abs=0.02)


def test_whole_score_is_the_sum_of_its_contributions() -> None:
    c = ctx(*_vec_pair(0.9))
    z, parts = whole_score(c)
    assert z == pytest.approx(sum(x.weight for x in parts))
    assert {x.name for x in parts} == {"bias", *P.whole_features}
    zero = dataclasses.replace(P, whole_weights=(0.0,) * len(P.whole_features), whole_bias=0.0)
    assert whole_score(ctx(*_vec_pair(0.9), params=zero))[0] == 0.0


def test_whole_score_reads_the_weights_fitted_without_capitals_in_those_scripts() -> None:
    """Two texts in one language of ``caseless_whole_langs`` are scored with
    ``caseless_whole_*``; English pairs, and a pair across languages, with the English
    fit. Where the two fits differ, the decision follows the one read."""
    a, b = _vec_pair(0.9)
    ja_a, ja_b = dataclasses.replace(a, lang="ja"), dataclasses.replace(b, lang="ja")
    assert caseless_whole(ctx(ja_a, ja_b))
    assert not caseless_whole(ctx(a, b)) and not caseless_whole(ctx(ja_a, b))
    n = len(P.whole_features)
    split = dataclasses.replace(
        P, whole_weights=(0.0,) * n, whole_bias=-3.0, caseless_whole_weights=(0.0,) * n,
        caseless_whole_bias=2.0,
    )  # fmt: skip
    assert whole_score(ctx(a, b, params=split))[0] == pytest.approx(-3.0)
    assert whole_score(ctx(ja_a, b, params=split))[0] == pytest.approx(-3.0)
    assert whole_score(ctx(ja_a, ja_b, params=split))[0] == pytest.approx(2.0)
    off = dataclasses.replace(split, caseless_whole_langs=())
    assert whole_score(ctx(ja_a, ja_b, params=off))[0] == pytest.approx(-3.0)


def test_caseless_whole_parameters_are_validated() -> None:
    with pytest.raises(ValueError, match="caseless_whole_weights"):
        ClassifyParams(caseless_whole_weights=(1.0,))
    with pytest.raises(ValueError, match="caseless_whole_cut"):
        ClassifyParams(caseless_whole_cut=1.0)


def test_kept_share_tells_a_copy_from_a_rewording() -> None:
    a = doc_of("a", S4)
    copy = doc_of("b", [S4[0], S4[1].replace("new ", ""), S4[2], S4[3]])
    spun = doc_of("b", T4)
    pairs = [(k, k) for k in range(4)]
    assert kept_share(ctx(a, copy, pairs)) == pytest.approx(1.0)
    assert kept_share(ctx(a, spun, pairs)) == pytest.approx(0.0)


# ---------------------------------------------------------------- direction evidence

FILLER = [
    "Shipping lines are cutting the number of ports their largest vessels call at.",
    "The port authority said cargo volumes fell last year as trade slowed down.",
    "Fishermen said the new rules on catches would hurt small boats in the harbour.",
    "The city council will vote on the budget for the harbour district next month.",
    "A spokesman for the board said the plan had the support of most members.",
    "The regional government has not said when it will decide on the estuary works.",
]


def _support(*extra: str) -> CorpusSupport:
    docs = [_doc(f"f{k}", t + " " + FILLER[(k + 1) % len(FILLER)]) for k, t in enumerate(FILLER)]
    docs += [_doc(f"x{k}", t) for k, t in enumerate(extra)]
    return CorpusSupport(docs)


def _ev(name: str, c: PairCtx) -> float | None:
    got = DIRECTION_EVIDENCE[name](c)
    return None if got is None else got[0]


def test_credited_outlets() -> None:
    text = "The deal was first reported by the Harbour Post, according to the Daily Ledger."
    assert credited_outlets(text) == {"harbour post", "daily ledger"}
    assert credited_outlets("The report was published in January.") == set()


def test_a_credited_name_stops_at_a_sentence_end() -> None:
    # "... by Alaska State Troopers.\nAccording to ...": the next sentence's first word is
    # no part of the name (else the name is found nowhere and the source reads derived)
    text = (
        "He was arrested, according to a report released Saturday by Alaska State "
        "Troopers.\nAccording to the police report, he ran."
    )
    assert credited_outlets(text) == {"alaska state troopers"}
    assert credited_outlets(text.replace("\n", " ")) == {"alaska state troopers"}
    # a stop after an abbreviation stays inside the name
    assert credited_outlets("It was first reported by the U.S. Army Times.") == {"u s army times"}


def test_credit_lines_and_bylines_naming_a_masthead() -> None:
    assert credited_outlets("By Jo Bloggs | The Ballot Box Daily\nThe vote...") == {
        "ballot box daily"
    }
    assert credited_outlets("Match report courtesy of Rinkside Review.") == {"rinkside review"}
    assert credited_outlets("Reporting by the Velmora Courier's harbour desk") == {
        "velmora courier"
    }
    assert credited_outlets("Harbour Notes | Velmora Weekly\nShips...") == {"velmora weekly"}
    # no masthead word, or nothing before it: no outlet
    assert credited_outlets("Speaking at the White House on Monday, he said") == set()
    assert credited_outlets("The talks were led by Jo Bloggs for the Treasury.") == set()
    assert credited_outlets("Daily\nThe talks went on.") == set()


def test_unknown_credit_reads_a_byline_of_an_outlet_named_nowhere() -> None:
    a = _doc("a", "The board approved the dredging plan on Tuesday after a long debate.")
    b = _doc(
        "b",
        "By Jo Bloggs | The Velmora Harbour Gazette\nThe board approved the dredging plan "
        "on Tuesday after a long debate.",
    )
    assert _ev("unknown_credit", ctx(a, b, support=_support())) == 1.0
    assert _ev("unknown_credit", ctx(b, a, support=_support())) == -1.0


BODY = "The board approved the dredging plan on Tuesday after a long debate."


def _art(doc_id: str, text: str, outlet: str | None = None) -> Doc:
    return prepare(Article(id=doc_id, text=text, outlet=outlet))


def test_outlet_names_tells_credits_from_bylines() -> None:
    from unspin.evidence import outlet_names

    head = "Harbour dredging approved\n\nBy Jo Bloggs | The Ballot Box Daily\n\n" + BODY
    assert outlet_names(head).bylines == {"ballot box daily"}
    foot = BODY + "\n\nReporting by Priya Halvorsen for The Harbour Gazette."
    assert outlet_names(foot).bylines == {"harbour gazette"}
    # a credit cue in the name's sentence makes it a credit to another outlet
    for line in (
        "This story was first published by the technology desk of Quayside Times.",
        "According to the autos team at Westmere Ledger.",
        "Story credit: Quayside Heritage News, West Coast bureau.",
        "Match report courtesy of Rinkside Review.",
    ):
        got = outlet_names(BODY + "\n\n" + line)
        assert got.credits and not got.bylines, line
    # a masthead in the body, or in a long line or with more words after it, is no byline
    mid = "\n".join(["Head", BODY, BODY, BODY, "An analyst at the Westmere Ledger said so."])
    got = outlet_names(mid + "\n" + "\n".join([BODY] * 3))
    assert got.credits == {"westmere ledger"} and not got.bylines
    late = "He spoke in an interview at the Texas Tribune Festival in Austin, Texas."
    assert not outlet_names(BODY + "\n" + late).bylines


def test_outlet_names_are_read_once_per_text() -> None:
    """Every pair with an article asks for its outlet names: worked out once per text and
    settings (the same frozen answer again), not once per pair."""
    import unspin.evidence as ev

    text = BODY + "\n\nReporting by Priya Halvorsen for The Harbour Gazette."
    first = ev.outlet_names(text, 3, 16, 3)
    before = ev.outlet_names.cache_info().hits
    assert ev.outlet_names(text, 3, 16, 3) is first
    assert ev.outlet_names.cache_info().hits == before + 1
    assert ev.outlet_names(text, 2, 16, 3) is not first  # other settings: worked out
    assert ev._end_lines(text, 3, 16) is ev._end_lines(text, 3, 16)


def test_a_byline_is_no_credit_when_the_other_text_is_signed() -> None:
    # the gazette case in a pile of other articles: an original with its own byline and no
    # outlet field beside a copy that says who published it (an outlet field, or its own
    # byline or imprint line); dirfix read the byline as a credit to an outlet named nowhere
    original = _art("a", BODY + "\n\nReporting by Priya Halvorsen for The Harbour Gazette.")
    for copy in (
        _art("b", BODY, outlet="Pasted Post"),
        _art("b", BODY + "\n\nReporting by Coastline Wire staff; editing by Marcus Ferreira."),
        _art("b", BODY + "\n\n© 2026 Coastline Wire"),
        _art("b", "By Ana Ruiz | The Coastline Courier\n\n" + BODY),
    ):
        assert _ev("unknown_credit", ctx(original, copy, support=_support())) is None
        assert _ev("unknown_credit", ctx(copy, original, support=_support())) is None


def test_a_framed_rewrites_invented_masthead_points_at_it() -> None:
    # a rewrite signed by an invented outlet (byline under the headline, or at the foot),
    # no outlet field, beside its unsigned source: the rewrite is the derivative
    source = _art("a", "Dredging plan approved\n\n" + BODY)
    for rewrite in (
        _art("b", "Dredging: 5 takeaways\n\nBy Tomas Reid | The Quayside Bulletin\n\n" + BODY),
        _art(
            "b",
            "Dredging: 5 takeaways\n\n" + BODY + "\n\n— reported by Ana Ruiz for "
            "the Westmere Ledger",
        ),
        _art(
            "b",
            "Dredging: 5 takeaways\n\n" + BODY + "\n\nThis report was first "
            "published by the Westmere Courier.",
        ),
    ):
        c = ctx(source, rewrite, relation="spun", support=_support())
        assert _ev("unknown_credit", c) >= 1.0
        score, ev = direction_score(c)
        assert score > 0
        assert any(e.name == "unknown_credit" and e.weight > 0 for e in ev)
        # an outlet another article of the pile names is no evidence
        known = _support("Ana Ruiz of the Quayside Bulletin, Westmere Ledger and Westmere Courier.")
        assert _ev("unknown_credit", ctx(source, rewrite, support=known)) is None


def test_an_originals_own_masthead_is_not_held_against_it() -> None:
    # an original with its outlet field set, whose text carries its own byline, beside an
    # unsigned rewrite: its own masthead is no credit (dirfix counted it against it)
    foot = "\n\nReporting by Priya Halvorsen for The Harbour Gazette."
    original = _art("a", BODY + foot, outlet="The Harbour Gazette")
    rewrite = _art("b", BODY)
    assert _ev("unknown_credit", ctx(original, rewrite, support=_support())) is None
    assert _ev("unknown_credit", ctx(rewrite, original, support=_support())) is None
    # with another outlet in its field, the byline is that outlet's carried over: a credit
    carried = _art("a", BODY + foot, outlet="Pasted Post")
    assert _ev("unknown_credit", ctx(rewrite, carried, support=_support())) == 1.0


def test_unknown_credit_points_to_the_side_crediting_an_outlet_named_nowhere() -> None:
    a = _doc("a", "The board approved the dredging plan on Tuesday after a long debate.")
    b = _doc(
        "b",
        "The board approved the dredging plan on Tuesday, as first reported by the "
        "Velmora Courier.",
    )
    assert _ev("unknown_credit", ctx(a, b, support=_support())) == 1.0
    assert _ev("unknown_credit", ctx(b, a, support=_support())) == -1.0
    # an outlet other articles name is not evidence; nor is any credit without a corpus
    known = _support("The Velmora Courier said the vote was close.")
    assert _ev("unknown_credit", ctx(a, b, support=known)) is None
    assert _ev("unknown_credit", ctx(a, b)) is None


#: a spinner's wording of FILLER's opening (word pairs nobody else writes)
SPUN_FILLER = (
    "Shipping lineups are trimming the tally of harbours their hugest crafts call at. "
    "The harbour jurisdiction stated freight magnitudes dropped final year as commerce "
    "decelerated. Anglers stated the fresh regulations on hauls would wound little "
    "crafts in the port."
)


def test_fluency_prefers_the_wording_other_articles_use() -> None:
    a, b = _doc("a", " ".join(FILLER[:3])), _doc("b", SPUN_FILLER)
    support = CorpusSupport([_doc(f"f{k}", t) for k, t in enumerate(FILLER * 2)])
    loose = dataclasses.replace(P, min_fluency_pairs=5)
    v = _ev("fluency", ctx(a, b, support=support, params=loose))
    assert v is not None and v > 0
    few = dataclasses.replace(P, min_fluency_pairs=1000)
    assert _ev("fluency", ctx(a, b, support=support, params=few)) is None  # too few pairs
    assert _ev("fluency", ctx(a, b, params=loose)) is None  # no corpus


def test_fluency_is_weighed_only_in_the_languages_it_was_measured_in() -> None:
    # outside English every derivative set of ../shared had fluency point at the
    # derivative as often as not (session 40): there it is recorded with weight 0, its
    # value kept for the machine-made recogniser; in English it is weighed as before
    support = CorpusSupport([_doc(f"f{k}", t) for k, t in enumerate(FILLER * 2)])
    only = dataclasses.replace(
        P,
        min_fluency_pairs=5,
        direction_evidence=("fluency",),
        direction_weights=(1.0,),
        decider_evidence=(),
        lead_evidence=(),
        condensed_weight=0.0,
    )

    def score(lang: str, params: ClassifyParams = only):
        a, b = _lang_doc("a", " ".join(FILLER[:3]), lang), _lang_doc("b", SPUN_FILLER, lang)
        return direction_score(ctx(a, b, relation="spun", support=support, params=params))

    z, parts = score("en")
    assert z > 0 and [x.name for x in parts] == ["fluency"] and parts[0].weight == z
    z, parts = score("es")  # the same texts read as Spanish: recorded, not weighed
    assert z == 0.0 and [x.name for x in parts] == ["fluency"]
    assert parts[0].weight == 0.0 and parts[0].value > 0 and "not weighed" in parts[0].detail
    assert score("und")[0] > 0  # a language not determined: weighed as before
    both = dataclasses.replace(only, fluency_langs=("en", "es"))
    assert score("es", both)[0] > 0


def test_details_point_to_the_side_with_more_checkable_details() -> None:
    a = _doc(
        "a",
        "Board chair Anika Strand said the 12 million euro work would start in March, "
        "take 18 months and affect 400 boats, Piet Maas warned.",
    )
    b = _doc("b", "The board chair said the work would start in March.")
    assert _ev("details", ctx(a, b, relation="spun")) > 0
    assert _ev("details", ctx(b, a, relation="spun")) < 0
    assert _ev("details", ctx(a, _doc("b", a.article.text + " "), relation="spun")) is None
    # a copy's edits and a passage's host article say nothing here
    assert _ev("details", ctx(a, b, relation="copy")) is None
    assert _ev("details", ctx(a, b, relation="partial")) is None


def test_untranslated_words_point_to_the_translation() -> None:
    en = _doc(
        "a",
        "The Harbour Board approved the plan on Tuesday. The chair said the work would "
        "start in March and the board would pay the fishermen.",
    )
    es = _doc(
        "b",
        "La Harbour Board aprobó el plan el martes. La spokeswoman dijo que las obras "
        "empezarían en marzo y que la junta pagaría a los fishermen.",
    )
    assert (en.lang, es.lang) == ("en", "es")
    v = _ev("untranslated", ctx(en, es))
    assert v is not None and v > 0
    assert _ev("untranslated", ctx(en, _doc("b", en.article.text))) is None  # one language


def test_kept_words_point_to_the_side_that_left_the_others_words() -> None:
    en = _doc(
        "a",
        "The shoppers said the landline deal was sensational. The council said the "
        "handset offer would end in March and the shoppers would pay less.",
    )
    es = _doc(
        "b",
        "Los shoppers dijeron que el acuerdo de landline era sensational. El consejo dijo "
        "que la oferta de handset acabaría en marzo y que los shoppers pagarían menos.",
    )
    assert (en.lang, es.lang) == ("en", "es")
    v = _ev("kept_words", ctx(en, es))
    assert v is not None and v > 0
    assert _ev("kept_words", ctx(es, en)) == -v
    # a word only the translation has is not "kept": the other text must carry it
    es_own = _doc("b", es.article.text.replace("shoppers", "clientes"))
    w = _ev("kept_words", ctx(en, es_own))
    assert w is not None and 0 < w < v
    # the other way round: Spanish words left in an English translation of a Spanish text
    es_src = _doc(
        "a",
        "El ayuntamiento aprobó el presupuesto el martes. Los vecinos dijeron que el "
        "ayuntamiento no había escuchado a nadie durante el pleno de marzo.",
    )
    en_mt = _doc(
        "b",
        "The ayuntamiento approved the budget on Tuesday. The neighbours said that the "
        "ayuntamiento had not listened to anyone during the pleno of March.",
    )
    v = _ev("kept_words", ctx(es_src, en_mt))
    assert v is not None and v > 0
    # names (capitalised) and words both languages write are not counted; one language: None
    assert _ev("kept_words", ctx(en, _doc("b", en.article.text + " Ok."))) is None
    both = _doc("b", "Era una era de cambios, dijo la gente del puerto el martes por la noche.")
    eng = _doc("a", "It was an era of change, the people of the harbour said on Tuesday night.")
    assert _ev("kept_words", ctx(eng, both)) is None


def test_number_format_points_to_the_side_with_the_others_number_format() -> None:
    en = _doc(
        "a",
        "Sales rose 3.5% to 12,500 units in March, the company said on Tuesday. Profits "
        "were 1.25 million pounds, up from 0.9 million a year earlier.",
    )
    es_mt = _doc(
        "b",
        "Las ventas subieron un 3.5% hasta 12,500 unidades en marzo, dijo la empresa el "
        "martes. Los beneficios fueron de 1.25 millones de libras, frente a 0.9 millones.",
    )
    es_pro = _doc(
        "b",
        "Las ventas subieron un 3,5% hasta 12.500 unidades en marzo, dijo la empresa el "
        "martes. Los beneficios fueron de 1,25 millones de libras, frente a 0,9 millones.",
    )
    assert es_mt.lang == "es"
    v = _ev("number_format", ctx(en, es_mt))
    assert v is not None and v > 0
    assert _ev("number_format", ctx(es_mt, en)) == -v
    assert _ev("number_format", ctx(en, es_pro)) is None  # each in its own convention
    # an English translation that kept the Spanish formats is the translation
    en_mt = _doc("b", en.article.text.replace("3.5", "3,5").replace("12,500", "12.500"))
    v = _ev("number_format", ctx(es_pro, en_mt))
    assert v is not None and v > 0
    # two languages of one convention say nothing
    de = _doc("b", es_mt.article.text)
    p = dataclasses.replace(P, decimal_comma_langs=(), decimal_point_langs=("en", "es"))
    assert _ev("number_format", ctx(en, de, params=p)) is None


def test_unknown_credit_says_nothing_across_languages() -> None:
    en = _doc(
        "a",
        "The board approved the dredging plan on Tuesday, as first reported by the "
        "Velmora Courier.",
    )
    es = _doc("b", "La junta aprobó el plan de dragado el martes, según el Correo de Velmora.")
    assert _ev("unknown_credit", ctx(en, es, support=_support())) is None


def test_artefacts_point_to_the_machine_translated_side() -> None:
    a = doc_of("a", ["The mayor met him on Thursday to discuss the $60 million plan."])
    b = doc_of("b", ["the mayor met him On thursday to discuss the $ 60 million plan ."])
    v = _ev("artefacts", ctx(a, b, [(0, 0)], relation="spun"))
    assert v is not None and v > 0
    assert _ev("artefacts", ctx(a, b, [(0, 0)], relation="translation")) is None


# a source stored in tokeniser spacing, as many news datasets keep their texts, and
# a rewrite of it in ordinary spacing (texts written for the test)
SPACED = [
    "Officials do n't agree on when the harbour will reopen ?",
    "The port 's board said on Monday , after a long meeting , that repairs will cost "
    "$ 60 million .",
    '" It \'s a matter of weeks , " the harbour master said .',
]
PLAIN = [
    "Officials disagree about when the harbour will reopen.",
    "After a long meeting on Monday, the board of the port put the cost of repairs at $60 million.",
    '"We are talking about weeks," the harbour master said.',
]


def test_tokeniser_spacing_is_a_texts_format_not_an_artefact() -> None:
    from unspin.normalise import spaced_style

    assert spaced_style(" ".join(SPACED))
    assert not spaced_style(" ".join(PLAIN))
    # a few spaced marks in an ordinary text (a spinner's slips) are not its format
    assert not spaced_style(" ".join(PLAIN) + " It cost $ 60 , they said . " + " ".join(PLAIN))
    a, b = doc_of("a", SPACED), doc_of("b", PLAIN)
    pairs = [(0, 0), (1, 1), (2, 2)]
    # the spaced source reads as no more damaged than its rewrite
    v = _ev("artefacts", ctx(a, b, pairs, relation="spun"))
    assert v is None or v >= 0
    # the same marks scattered in an ordinary text still count against it
    slips = doc_of("c", [PLAIN[0], PLAIN[1].replace("$60", "$ 60").replace(",", " ,"), PLAIN[2]])
    v = _ev("artefacts", ctx(b, slips, pairs, relation="spun"))
    assert v is not None and v > 0


def test_name_variants_fold_typographic_apostrophes_and_possessives() -> None:
    a = doc_of("a", ["The vote was a blow to Senator Schumer’s plan for the harbour bill."])
    b = doc_of("b", ["The vote was a blow to Senator Schumer's plan for the harbour bill."])
    support = _support("Senator Schumer's office said the bill would pass.")
    assert _ev("name_variants", ctx(a, b, [(0, 0)], relation="spun", support=support)) is None


def test_function_words_count_only_when_the_wordier_side_is_longer() -> None:
    a = doc_of("a", ["Council backs harbour plan despite protests by fishermen."])
    b = doc_of(
        "b",
        ["The council of the city has backed the plan for the harbour in spite of the "
         "protests that were made by the fishermen."],
    )  # fmt: skip
    v = _ev("function_words", ctx(a, b, [(0, 0)], relation="spun"))
    assert v is not None and v > 0
    assert _ev("function_words", ctx(a, b, [(0, 0)], relation="copy")) is None


def test_name_variants_prefer_the_spelling_other_articles_use() -> None:
    a = doc_of("a", ["The gang Tren de Aragua was named in the report by the ministry."])
    b = doc_of("b", ["The gang Train de Aragua was named in the report by the ministry."])
    support = _support("Police say Tren de Aragua controls the border crossings.")
    v = _ev("name_variants", ctx(a, b, [(0, 0)], relation="spun", support=support))
    assert v is not None and v > 0


def test_wording_prefers_the_side_whose_edited_words_others_use() -> None:
    base = "The port authority said cargo volumes fell last year as trade slowed down."
    a = doc_of("a", [base, "The board will meet again on Friday to approve the budget."])
    b = doc_of(
        "b",
        [base.replace("cargo volumes", "freight magnitudes"),
         "The board will meet again on Friday to approve the budget."],
    )  # fmt: skip
    support = _support("Cargo volumes at the port rose in the spring.")
    c = ctx(a, b, [(0, 0), (1, 1)], relation="copy", support=support, verbatim=0.9)
    v = _ev("wording", c)
    assert v is not None and v > 0


def test_name_swap_prefers_the_name_the_rest_of_the_texts_use() -> None:
    a = doc_of(
        "a",
        ["Anika Strand chairs the board of the harbour in the city.",
         "The board voted on Tuesday and Strand said the work would start in March."],
    )  # fmt: skip
    b = doc_of(
        "b",
        ["Anika Strand chairs the board of the harbour in the city.",
         "The board voted on Tuesday and Hogan said the work would start in March."],
    )  # fmt: skip
    c = ctx(a, b, [(0, 0), (1, 1)], relation="copy", support=_support(), verbatim=0.9)
    v = _ev("name_swap", c)
    assert v is not None and v > 0


def test_containment_points_to_the_side_with_sentences_the_copy_dropped() -> None:
    a, b = doc_of("a", S4), doc_of("b", S4[:3])
    assert _ev("containment", ctx(a, b, relation="copy", cov_a=0.75, cov_b=1.0)) > 0
    assert _ev("containment", ctx(a, b, relation="spun", cov_a=0.75, cov_b=1.0)) is None


def test_context_fit_points_to_the_article_the_passage_was_written_for() -> None:
    a, b = doc_of("a", S4), doc_of("b", [T4[0], S4[2], FILLER[0]])
    va = np.eye(8, dtype=np.float32)[:4]
    va[2] = (va[0] + va[1] + va[3]) / np.sqrt(3)  # sentence 2 fits the rest of a
    vb = np.eye(8, dtype=np.float32)[4:7].copy()
    vb[1] = va[2]
    a.sentence_vectors, b.sentence_vectors = va, vb
    v = _ev("context_fit", ctx(a, b, [(2, 1)], relation="partial"))
    assert v is not None and v > 0


def _merge_pair(
    merged: str, second: str = "Dredging starts in spring and lasts a year."
) -> tuple[Doc, Doc]:
    """a: three sentences; b: two, the first of which takes up a's first two (cosine
    0.71 with each, above ``merge_match`` 0.5) and the second (``second``) a's third."""
    a = doc_of(
        "a",
        [
            "The harbour board met on Monday.",
            "It agreed to dredge the channel.",
            "Work will start in the spring and take a year.",
        ],
    )
    b = doc_of("b", [merged, second])
    va = np.eye(5, dtype=np.float32)[:3]
    vb = np.eye(5, dtype=np.float32)[3:].copy()
    vb[0] = (va[0] + va[1]) / np.sqrt(2)
    vb[1] = va[2]
    a.sentence_vectors, b.sentence_vectors = va, vb
    return a, b


def test_merged_sentences_point_away_from_the_side_that_merged() -> None:
    a, b = _merge_pair("Meeting on Monday, the harbour board agreed to dredge the channel.")
    # one of a's three sentences merged beyond the first, per merge_unit sentences
    assert _ev("merged_sentences", ctx(a, b, relation="spun")) == pytest.approx(P.merge_unit / 3)
    assert _ev("merged_sentences", ctx(b, a, relation="spun")) == pytest.approx(-P.merge_unit / 3)
    # a "merged" sentence no longer than the sentences it takes up is not a merge
    a, b = _merge_pair("The board agreed dredging.")
    assert _ev("merged_sentences", ctx(a, b, relation="spun")) is None
    # sentences kept one for one (a machine translation, a spin) say nothing
    a, b = aligned_docs(S4, T4, 0.9)
    assert _ev("merged_sentences", ctx(a, b, relation="spun")) is None
    # below ``merge_match`` a sentence has no counterpart to be merged into
    a, b = _merge_pair("Meeting on Monday, the harbour board agreed to dredge the channel.")
    strict = dataclasses.replace(P, merge_match=0.8)
    assert _ev("merged_sentences", ctx(a, b, relation="spun", params=strict)) is None
    with pytest.raises(ValueError, match="merge_unit"):
        dataclasses.replace(P, merge_unit=0.0)


def test_merges_are_weighed_only_into_the_condensed_text() -> None:
    """A text as long as the other that takes up two of its sentences in one has written
    sentences of its own length (a writer's voice: short-sentence writers split, others
    join): the evidence is kept for the record with weight 0; the same merge in a text
    under ``merge_lenratio`` of the other's length is a condensing rewriter's, weighed."""
    merged = "Meeting on Monday, the harbour board agreed to dredge the channel."

    def merged_weight(a: Doc, b: Doc) -> float:
        _, ev = direction_score(ctx(a, b, relation="spun"))
        (got,) = [x for x in ev if x.name == "merged_sentences"]
        assert got.value != 0.0
        return got.weight

    a, b = _merge_pair(merged)  # b as long as a (110 characters each)
    assert len(b.article.text) > P.merge_lenratio * len(a.article.text)
    assert not merges_weighed(ctx(a, b, relation="spun"), 1.0)
    assert merged_weight(a, b) == 0.0 and merged_weight(b, a) == 0.0
    a, b = _merge_pair(merged, "Work starts in spring.")  # b condensed
    assert len(b.article.text) <= P.merge_lenratio * len(a.article.text)
    assert merges_weighed(ctx(a, b, relation="spun"), 1.0)
    assert not merges_weighed(ctx(a, b, relation="spun"), -1.0)  # a is not condensed
    assert merged_weight(a, b) > 0 and merged_weight(b, a) < 0
    with pytest.raises(ValueError, match="merge_lenratio"):
        dataclasses.replace(P, merge_lenratio=0.0)


def _cut_pair(long: str, pieces: list[str]) -> tuple[Doc, Doc]:
    """a: ``long`` and a second sentence; b: ``pieces`` (each at cosine 0.71 with
    ``long``) and the same second sentence."""
    rest = "The club said on Monday that he would miss the next game."
    a, b = doc_of("a", [long, rest]), doc_of("b", [*pieces, rest])
    va = np.eye(5, dtype=np.float32)[:2]
    vb = np.eye(5, dtype=np.float32)[2:].copy()
    vb[0] = (va[0] + vb[0]) / np.sqrt(2)
    vb[1] = (va[0] + vb[1]) / np.sqrt(2)
    vb[2] = va[1]
    a.sentence_vectors, b.sentence_vectors = va, vb
    return a, b


def test_a_sentence_cut_in_two_on_one_side_only_is_no_merge() -> None:
    # a machine translation's "..." starts a new sentence: the splitter cuts the round
    # trip where the source runs on; the pieces carry all of the long sentence
    long = "Before a final decision is made on surgery... medical teams have decided he should see a second specialist."  # noqa: E501
    cut = [
        "Before a final decision is taken on surgery...",
        "The medical teams have decided that he would have to see a second specialist.",
    ]
    a, b = _cut_pair(long, cut)
    assert _ev("merged_sentences", ctx(a, b, relation="spun")) is None
    assert _ev("merged_sentences", ctx(b, a, relation="spun")) is None
    # the same pieces against a long sentence with no sentence end inside: a merge (b's
    # two merged into a's one: b, the side that was merged, is the source)
    joined = "Before a final decision is made on surgery, medical teams have decided he should see a second specialist."  # noqa: E501
    a, b = _cut_pair(joined, cut)
    assert _ev("merged_sentences", ctx(a, b, relation="spun")) == pytest.approx(-P.merge_unit / 3)
    # pieces much longer together than the sentence taking them up: details were dropped,
    # a condensing merge even with a sentence end inside
    longer = [
        "Before a final decision is taken on surgery on his injured left knee...",
        "The medical teams at the club have decided he must see a specialist in London.",
    ]
    a, b = _cut_pair(long, longer)
    assert _ev("merged_sentences", ctx(a, b, relation="spun")) == pytest.approx(-P.merge_unit / 3)
    # the length band is honoured: with none allowed the cut counts as a merge again
    exact = dataclasses.replace(P, split_ratio=1.0)
    a, b = _cut_pair(long, cut)
    assert _ev("merged_sentences", ctx(a, b, relation="spun", params=exact)) is not None
    with pytest.raises(ValueError, match="split_ratio"):
        dataclasses.replace(P, split_ratio=0.9)


def test_direction_score_sums_weighted_capped_evidence() -> None:
    a = _doc("a", "Anika Strand said the 12 million euro work takes 18 months for 400 boats.")
    b = _doc("b", "The chair said the work would start soon.")
    c = ctx(a, b, relation="spun")
    z, parts = direction_score(c)
    assert parts and z == pytest.approx(sum(x.weight for x in parts))
    assert all(abs(x.value) <= P.evidence_cap for x in parts)
    off = dataclasses.replace(
        P, direction_weights=(0.0,) * len(P.direction_evidence), condensed_weight=0.0
    )
    assert direction_score(ctx(a, b, relation="spun", params=off)) == (0.0, [])


CONDENSED_SOURCE = (
    "Harbour board approves dredging plan\n\n"
    "The Westmere harbour board approved a 12 million euro dredging plan on Tuesday. "
    "Chair Anika Strand said the work would take 18 months and let 400 more boats moor. "
    "Engineers from Dalvik Marine found silt 3.5 metres deep near the north quay. "
    "Fishermen led by Tomas Reid had asked for the work since 2019. "
    "The council will pay 4 million euros and the port authority the rest. "
    "A second phase near Orrin Point is planned for 2027."
)
CONDENSED_REWRITE = (
    "Dredging is coming to Westmere\n\n"
    "Westmere's harbour board has backed a big dredging plan, chair Anika Strand said. "
    "The work will take 18 months and make room for more boats."
)


def test_a_condensed_rewrite_is_directed_by_the_details_it_dropped() -> None:
    """The shorter text (under ``condensed_lenratio`` of the longer's length) keeps few
    of the longer's details: it is the rewrite, and the lead says so in either order;
    no lead for a pair that is not ``spun``, for texts of like length, for a shorter text
    as rich in details, or with the weight 0."""
    from unspin.evidence import condensed_lead

    src, rw = _doc("src", CONDENSED_SOURCE), _doc("rw", CONDENSED_REWRITE)
    got = condensed_lead(ctx(src, rw, relation="spun"))
    assert got is not None and got[0] > 0 and "condensed rewrite" in got[1]
    back = condensed_lead(ctx(rw, src, relation="spun"))
    assert back is not None and back[0] == pytest.approx(-got[0])
    z, parts = direction_score(ctx(rw, src, relation="spun"))
    assert z < 0 and parts[-1].name == "condensed"  # src (b) is the source
    assert parts[-1].weight == pytest.approx(P.condensed_weight * back[0])
    assert condensed_lead(ctx(src, rw, relation="partial")) is None
    assert condensed_lead(ctx(src, rw, relation="spun", params=dataclasses.replace(
        P, condensed_lenratio=0.1))) is None  # fmt: skip
    assert condensed_lead(ctx(src, rw, relation="spun", params=dataclasses.replace(
        P, condensed_weight=0.0))) is None  # fmt: skip
    # a short text that names as many details as the long one is no condensed rewrite
    dense = _doc("dense", "Orrin Point, Dalvik Marine, Tomas Reid: 7, 9, 31, 44, 58 and 2031.")
    assert condensed_lead(ctx(src, dense, relation="spun")) is None
    for bad in ({"condensed_lenratio": 0.0}, {"condensed_lenratio": 1.5},
                {"condensed_details": 0.5}, {"condensed_weight": -1.0}):  # fmt: skip
        with pytest.raises(ValueError, match="condensed_"):
            ClassifyParams(**bad)


def test_no_evidence_leaves_the_direction_undecided_even_at_margin_zero() -> None:
    from unspin.classify import direction

    a = _doc("a", "Anika Strand said the 12 million euro work takes 18 months for 400 boats.")
    b = _doc("b", "The chair said the work would start soon.")
    off = dataclasses.replace(
        P,
        direction_weights=(0.0,) * len(P.direction_evidence),
        direction_margin=0.0,
        condensed_weight=0.0,
    )
    c = ctx(a, b, relation="spun", params=off)
    src, der, why, _ = direction(a, b, c.al, "spun", off, None, c)
    assert (src, der) == (None, None) and "undecided" in why


def test_row_medians_are_numpy_medians_to_the_last_bit() -> None:
    """best_rows' medians in one sort give np.median's values (odd and even widths)."""
    from unspin.evidence import _row_medians

    rng = np.random.default_rng(7)
    for n in range(1, 12):
        for m in range(1, 25):
            x = rng.standard_normal((n, m)).astype(np.float32)
            got, want = _row_medians(x), np.median(x, axis=1)
            assert got.dtype == want.dtype and np.array_equal(got, want)


def test_both_sides_best_rows_from_one_product(monkeypatch) -> None:
    """Each side's best match, its position and median from one product equal each
    side's own product up to float rounding; two long texts go a block at a time."""
    from unspin import evidence as ev

    a = doc_of("a", [f"Sentence number {k} of the first article is here." for k in range(9)])
    b = doc_of("b", [f"Sentence number {k} of the second article is here." for k in range(6)])
    rng = np.random.default_rng(3)
    for d in (a, b):
        v = rng.standard_normal((len(d.sentences), 64)).astype(np.float32)
        d.sentence_vectors = v / np.linalg.norm(v, axis=1, keepdims=True)
    fa, fb = ev.doc_facts(a), ev.doc_facts(b)
    both = ev.best_rows_both(a, fa, b, fb)
    own = ev.best_rows(a, fa, b, fb), ev.best_rows(b, fb, a, fa)
    for x, y in zip(both, own):
        assert x is not None and y is not None
        assert (x.ids, x.ios) == (y.ids, y.ios) and len(x.ids) > 1
        assert np.allclose(x.best, y.best, atol=1e-6)
        assert np.allclose(x.median, y.median, atol=1e-6)
        assert x.arg.tolist() == y.arg.tolist()
    monkeypatch.setattr(ev, "SOFT_CELLS", 7)  # above it: each side on its own, in blocks
    for x, y in zip(ev.best_rows_both(a, fa, b, fb), own):
        assert np.allclose(x.best, y.best, atol=1e-6) and x.arg.tolist() == y.arg.tolist()


def _styled(doc_id: str, text: str, style: float | None) -> Doc:
    """A doc whose style probability (``DocFacts.style``) is set to ``style``."""
    from unspin.evidence import doc_facts

    d = _doc(doc_id, text)
    facts = dataclasses.replace(doc_facts(d))
    facts.__dict__["style"] = style  # as if read (``DocFacts.style`` is read on first use)
    d._facts = facts  # type: ignore[attr-defined]
    return d


def test_doc_facts_style_read_on_first_use_is_the_style_models_reading(monkeypatch) -> None:
    """``DocFacts.style`` is worked out when first read (only reuse pairs' direction
    evidence reads it), and is then what :func:`model_style` of the compared text gives,
    as it was when computed with the other facts, in the text's language; None for a
    script written without spaces (no model reads it)."""
    from unspin import evidence as ev
    from unspin.model import compared_text

    calls = []
    real = ev.model_style
    monkeypatch.setattr(ev, "model_style", lambda t, lang="en": calls.append(t) or real(t, lang))
    d = _doc("a", " ".join([STYLE_A, STYLE_B] * 4))
    f = ev.doc_facts(d)
    assert calls == []  # not read yet
    assert real(compared_text(d)) is not None  # a text long enough to read
    assert f.style == real(compared_text(d)) and calls == [compared_text(d)]
    assert f.style == real(compared_text(d)) and len(calls) == 1  # kept
    d2 = _doc("b", STYLE_A)
    d2.lang = "zh"
    assert ev.doc_facts(d2).style is None


def test_the_style_of_other_languages_is_read_by_the_shape_only_model() -> None:
    """Outside English the style is the shape-only model's (sentence lengths, commas,
    punctuation; no words), so one model reads every language with word spacing; English
    keeps its word-and-shape model."""
    from unspin import evidence as ev

    intl, en = ev.shipped_intl_style_model(), ev.shipped_style_model()
    assert intl is not None and intl.terms == () and set(intl.shapes) <= set(ev.STYLE_SHAPES)
    text = " ".join([STYLE_A, STYLE_B] * 4)
    assert ev.model_style(text, "es") == intl.prob(text)
    assert ev.model_style(text, "en") == en.prob(text)
    assert ev.model_style(text, "ja") is None
    es = _lang_doc("b", " ".join([ES_ORIG, ES_MT] * 4), "es")
    f = ev.doc_facts(es)
    assert f.style_lang == "es" and f.style is not None and 0.0 < f.style < 1.0


STYLE_A = "The council said on Monday that the bridge would close for repairs in March."
STYLE_B = "The bridge will close for repairs in March, the council confirmed on Monday."


def _style_pair(pa: float | None, pb: float | None, **kw) -> PairCtx:
    kw.setdefault("relation", "spun")
    return ctx(_styled("a", STYLE_A, pa), _styled("b", STYLE_B, pb), **kw)


def test_model_style_is_graded_and_points_away_from_the_model_written_side() -> None:
    # graded: the difference of the two probabilities (b minus a), not a yes/no; positive
    # (a the source) when b reads more model-written
    assert _ev("model_style", _style_pair(0.1, 0.95)) == pytest.approx(0.85)
    assert _ev("model_style", _style_pair(0.95, 0.1)) == pytest.approx(-0.85)
    assert _ev("model_style", _style_pair(0.4, 0.6)) == pytest.approx(0.2)
    assert _ev("model_style", _style_pair(0.9, 0.97)) == pytest.approx(0.07)
    # silent: no difference, a side without a style (too short, no model), across
    # languages (one-way translation), and on anything but a whole rewording
    for pa, pb in ((0.5, 0.5), (None, 0.95), (0.1, None)):
        assert _ev("model_style", _style_pair(pa, pb)) is None
    es = _styled("b", "El ayuntamiento dijo el lunes que el puente cerrará en marzo.", 0.95)
    assert es.lang != "en"
    assert _ev("model_style", ctx(_styled("a", STYLE_A, 0.1), es, relation="spun")) is None
    for rel in ("copy", "partial", "same_story", None):
        assert _ev("model_style", _style_pair(0.1, 0.95, relation=rel)) is None


def test_outside_english_the_style_leads_by_its_gap_in_log_odds() -> None:
    import math

    from unspin.evidence import _style_lead_value, doc_facts

    def pair(pa: float, pb: float, params: ClassifyParams = P) -> PairCtx:
        docs = []
        for i, (text, p) in enumerate(((ES_ORIG, pa), (ES_MT, pb))):
            d = _lang_doc("ab"[i], text, "es")
            facts = dataclasses.replace(doc_facts(d))
            facts.__dict__["style"] = p
            d._facts = facts  # type: ignore[attr-defined]
            docs.append(d)
        return ctx(docs[0], docs[1], relation="spun", params=params)

    def lead(c: PairCtx) -> float:
        got = DIRECTION_EVIDENCE["model_style"](c)
        assert got is not None
        return _style_lead_value(c, *got)[0]

    def logit(p: float) -> float:
        return math.log(p / (1 - p))

    # the evidence itself is the probabilities' difference in every language (what the
    # decider stage weighs); where it leads, a Russian original read 0.84 beside its
    # rewrite's 0.98 is as far apart as 0.3 and 0.7 in log-odds, not 0.14
    assert _ev("model_style", pair(0.84, 0.98)) == pytest.approx(0.14)
    v = lead(pair(0.84, 0.98))
    assert v == pytest.approx((logit(0.98) - logit(0.84)) / P.style_logit_scale)
    assert v > P.lead_min and lead(pair(0.98, 0.84)) == pytest.approx(-v)
    assert lead(pair(0.001, 0.999)) == 1.0  # clipped
    # scale 0, and English: the probabilities' difference
    plain = dataclasses.replace(P, style_logit_scale=0.0)
    assert lead(pair(0.84, 0.98, plain)) == pytest.approx(0.14)
    assert lead(_style_pair(0.84, 0.98)) == pytest.approx(0.14)
    # a rewrite read at 0.2 reads model-written enough to lead outside English, not in
    # English (its model's calibration: ``lead_written`` 0.3)
    from unspin.evidence import _reads_written

    assert _reads_written(pair(0.05, 0.2)) and not _reads_written(pair(0.02, 0.05))
    assert not _reads_written(_style_pair(0.05, 0.2))
    # the machine-made recogniser (fitted on the English model's levels) reads a Russian
    # pair at 0.84 / 0.98 as the English model would a pair at the base and the same
    # log-odds gap above it: not as two texts that both read model-written
    from unspin.evidence import _recogniser_styles

    lo, hi = _recogniser_styles(pair(0.98, 0.84))[::-1]
    assert lo == pytest.approx(P.recogniser_style_base)
    assert logit(hi) - logit(lo) == pytest.approx(logit(0.98) - logit(0.84))
    assert _recogniser_styles(_style_pair(0.84, 0.98)) == (0.84, 0.98)  # English: as read
    plain = dataclasses.replace(P, recogniser_style_base=0.0)
    assert _recogniser_styles(pair(0.84, 0.98, plain)) == (0.84, 0.98)


def test_model_style_decides_only_where_the_rest_is_unsure(monkeypatch) -> None:
    """The decider rule: ``model_style`` is added to the direction score only when the
    weighted sum of the other evidence is under ``decider_bar``; above it, it is not
    weighed at all (so it never overturns evidence that is sure, e.g. a machine
    translation's artefacts)."""
    rest = {"v": 0.0}
    monkeypatch.setitem(
        DIRECTION_EVIDENCE, "test_rest", lambda c: (rest["v"], "rest") if rest["v"] else None
    )
    assert P.decider_evidence == ("model_style",) and P.decider_bar > 0
    w = P.direction_weights[P.direction_evidence.index("model_style")]
    params = dataclasses.replace(
        P,
        direction_evidence=("test_rest", "model_style"),
        direction_weights=(1.0, w),
        decider_bar=1.0,
        lead_weight=0.0,  # the decider rule alone (the lead stage: the next test)
    )

    def score(v: float, pa: float, pb: float, p: ClassifyParams = params):
        rest["v"] = v
        z, parts = direction_score(_style_pair(pa, pb, params=p))
        return z, [x.name for x in parts]

    # nothing else speaks: the style decides, graded (a the source)
    z, names = score(0.0, 0.1, 0.95)
    assert z == pytest.approx(w * 0.85) and names == ["model_style"]
    # the rest leans a little towards b as the source (under the bar): the style turns it
    z, names = score(-0.8, 0.1, 0.95)
    assert z == pytest.approx(-0.8 + w * 0.85) and z > 0 and names == ["test_rest", "model_style"]
    # ... but a small style gap only moves it, graded: 0.05 * w is less than 0.8
    z, _ = score(-0.8, 0.45, 0.5)
    assert z == pytest.approx(-0.8 + w * 0.05) and z < 0
    # the rest is sure (at or over the bar): the style is not weighed, whatever it says
    for v in (1.0, -1.0, 2.5, -4.0):
        z, names = score(v, 0.1, 0.95)
        assert z == pytest.approx(v) and names == ["test_rest"]
    # a bar of 0 silences the decider altogether
    z, names = score(0.0, 0.1, 0.95, dataclasses.replace(params, decider_bar=0.0))
    assert z == 0.0 and names == []
    # without the decider list the evidence is one more summed term again (the old rule)
    summed = dataclasses.replace(params, decider_evidence=(), lead_evidence=(), lead_weight=0.0)
    z, names = score(2.5, 0.95, 0.1, summed)
    assert z == pytest.approx(2.5 - w * 0.85) and names == ["test_rest", "model_style"]
    with pytest.raises(ValueError, match="decider_bar"):
        dataclasses.replace(P, decider_bar=-1.0)


def _settable_evidence(monkeypatch, *names: str) -> dict[str, float]:
    """Direction evidence ``names`` replaced by stubs that say what the returned dict
    holds for them (silent while 0), so a test sets each value directly."""
    vals = {name: 0.0 for name in names}
    for name in names:
        monkeypatch.setitem(
            DIRECTION_EVIDENCE,
            name,
            lambda c, n=name: (vals[n], n) if vals[n] else None,
        )
    return vals


def test_two_stage_the_style_leads_unless_the_pair_reads_machine_made(monkeypatch) -> None:
    """The two-stage rule: on a pair nothing marks as machine-made (the ``machine_evidence``
    mass under ``machine_bar``), a style gap of at least ``lead_min`` leads with
    ``lead_weight`` even where the rest is sure and points the other way (a model-written
    rewrite whose merged sentences and added details read backwards); on a pair the
    machine evidence marks (an MT round trip's artefacts), the decider rule holds and the
    style's gap, noise there, is recorded with weight 0 and the reason."""
    vals = _settable_evidence(monkeypatch, "test_machine", "test_other")
    w = P.direction_weights[P.direction_evidence.index("model_style")]
    params = dataclasses.replace(
        P,
        direction_evidence=("test_machine", "test_other", "model_style"),
        direction_weights=(1.0, 1.0, w),
        decider_bar=1.0,
        machine_model=False,  # session 16's mass bar (the recogniser: the test below)
        machine_evidence=("test_machine",),
        machine_bar=1.0,
        lead_min=0.1,
        lead_weight=12.0,
        lead_written=0.5,
    )

    def score(machine: float, other: float, pa: float, pb: float, p: ClassifyParams = params):
        vals["test_machine"], vals["test_other"] = machine, other
        z, parts = direction_score(_style_pair(pa, pb, params=p))
        return z, {x.name: x for x in parts}

    # a model-written rewrite (b): the rest is sure and wrong (-2.5, b the source), nothing
    # marks the pair machine-made: the style leads and a is the source
    z, parts = score(0.0, -2.5, 0.1, 0.8)
    assert z == pytest.approx(-2.5 + 12.0 * 0.7) and z > 0
    assert parts["model_style"].weight == pytest.approx(12.0 * 0.7)
    assert "leads" in parts["model_style"].detail
    # the decider rule on the same pair (no lead stage) keeps the wrong direction: the
    # change is what turns it
    z0, parts0 = score(0.0, -2.5, 0.1, 0.8, dataclasses.replace(params, lead_weight=0.0))
    assert z0 == pytest.approx(-2.5) and "model_style" not in parts0
    # a little machine evidence (under the bar) does not stop the lead
    z, parts = score(0.5, -2.5, 0.1, 0.8)
    assert z == pytest.approx(0.5 - 2.5 + 12.0 * 0.7)
    # a machine-made pair (an MT round trip, a the source): its artefacts reach the bar and
    # the rest is sure; the style reads the source more model-written (its gap points the
    # wrong way) and is not weighed: the old decision stands, the reason is recorded
    for machine in (1.0, -1.5, 3.0):
        z, parts = score(machine, 3.0, 0.6, 0.2)
        assert z == pytest.approx(machine + 3.0)
        z_old, _ = score(machine, 3.0, 0.6, 0.2, dataclasses.replace(params, lead_weight=0.0))
        assert z == pytest.approx(z_old)
        assert parts["model_style"].weight == 0.0
        assert "not led" in parts["model_style"].detail
    # ... and where the rest of a machine-made pair is unsure, the decider rule weighs it
    z, parts = score(-1.0, 1.5, 0.2, 0.6)
    assert z == pytest.approx(0.5 + w * 0.4)
    assert "not led" in parts["model_style"].detail and parts["model_style"].weight > 0
    # a style gap under lead_min does not lead: the decider rule (the rest is sure: not
    # weighed)
    z, parts = score(0.0, -2.5, 0.45, 0.5)
    assert z == pytest.approx(-2.5) and "model_style" not in parts
    # neither text reads model-written (both under lead_written): no lead, the decider rule
    z, parts = score(0.0, -2.5, 0.05, 0.4)
    assert z == pytest.approx(-2.5) and "model_style" not in parts
    z, parts = score(0.0, -2.5, 0.05, 0.4, dataclasses.replace(params, lead_written=0.0))
    assert z == pytest.approx(-2.5 + 12.0 * 0.35) and z > 0
    # lead_weight 0 is the decider rule everywhere
    z, _ = score(0.0, -0.5, 0.1, 0.8, dataclasses.replace(params, lead_weight=0.0))
    assert z == pytest.approx(-0.5 + w * 0.7)


def test_two_stage_params_are_validated() -> None:
    """The two-stage settings: numbers finite and >= 0; the lead among the deciders; the
    machine evidence registered and not a decider."""
    for kw, msg in (
        ({"machine_bar": -1.0}, "machine_bar"),
        ({"lead_min": float("nan")}, "lead_min"),
        ({"lead_weight": -2.0}, "lead_weight"),
        ({"lead_weight": float("inf")}, "lead_weight"),
        ({"lead_written": 1.5}, "lead_written"),
        ({"lead_written": -0.1}, "lead_written"),
        ({"lead_evidence": ("fluency",)}, "lead_evidence"),
        ({"decider_evidence": ()}, "lead_evidence"),
        ({"machine_evidence": ("model_style",)}, "machine_evidence"),
        ({"machine_evidence": ("no_such_evidence",)}, "machine_evidence"),
    ):
        with pytest.raises(ValueError, match=msg):
            dataclasses.replace(P, **kw)
    # the shipped settings: the style leads, machine evidence is what MT and spinners leave
    assert P.lead_evidence == ("model_style",) and P.lead_weight > 0
    assert "artefacts" in P.machine_evidence and P.machine_bar > 0


def test_the_learned_recogniser_decides_where_the_style_leads(monkeypatch) -> None:
    """The machine-made recogniser (session 17): a logistic model over the magnitudes of
    the pair's evidence and the texts' styles calls the pair machine-made or not. A
    synthetic MT round trip (strong unfluent word pairs, nothing merged) keeps the decider
    rule even though its machine evidence is under session 16's mass bar; a synthetic
    model-written rewrite (sentences merged, little fluency gap) is led by the style even
    though its fluency alone reaches that bar. The decision and its probability are in the
    reason; ``machine_model`` False is session 16's bar, ``lead_weight`` 0 the decider rule."""
    vals = _settable_evidence(monkeypatch, "fluency", "merged_sentences", "test_other")
    w = P.direction_weights[P.direction_evidence.index("model_style")]
    params = dataclasses.replace(
        P,
        direction_evidence=("fluency", "merged_sentences", "test_other", "model_style"),
        direction_weights=(1.0, 1.0, 1.0, w),
        decider_bar=1.0,
        machine_evidence=("fluency",),
        machine_bar=1.0,
        lead_min=0.1,
        lead_weight=12.0,
        lead_written=0.5,
        machine_model=True,
        machine_features=("fluency", "merged_sentences", "style_max"),
        machine_weights=(20.0, -4.0, 0.0),
        machine_bias=-2.0,
        machine_cut=0.5,
        merge_lenratio=1e9,  # merges weighed whatever the lengths (the pair's are equal)
    )

    def score(fl: float, merged: float, other: float, pa: float, pb: float, **kw):
        vals["fluency"], vals["merged_sentences"], vals["test_other"] = fl, merged, other
        p = dataclasses.replace(params, **kw)
        z, parts = direction_score(_style_pair(pa, pb, params=p))
        return z, {x.name: x for x in parts}

    # an MT round trip (a the source): fluency 0.3 (under the mass bar of 1), nothing
    # merged; the rest is sure and right (+3.0 with the fluency), the style points the
    # wrong way (the source reads more model-written). Recogniser: 20 * 0.3 - 2 = 4,
    # probability 0.98: machine-made, the decider rule holds
    z, parts = score(0.3, 0.0, 2.7, 0.7, 0.1)
    assert z == pytest.approx(3.0) and z > 0
    assert parts["model_style"].weight == 0.0
    assert "not led: machine-made probability 0.98 at or over 0.5" in parts["model_style"].detail
    # ... where session 16's bar (mass 0.3 under 1) let the style lead and lost it
    z16, _ = score(0.3, 0.0, 2.7, 0.7, 0.1, machine_model=False)
    assert z16 == pytest.approx(3.0 + 12.0 * -0.6) and z16 < 0
    # a model-written rewrite (b): a small fluency gap, 1.5 sentences merged (read
    # backwards), the rest sure and wrong (-4.0 in all). Recogniser: 20 * 0.12 - 4 * 1.5
    # - 2 = -5.6, probability 0.004: not machine-made, the style leads and turns it
    z, parts = score(0.12, -1.5, -2.62, 0.1, 0.8)
    assert z == pytest.approx(-4.0 + 12.0 * 0.7) and z > 0
    assert "leads" in parts["model_style"].detail
    assert "machine-made probability 0.00 under 0.5" in parts["model_style"].detail
    assert "merged_sentences 1.50 (-6.00)" in parts["model_style"].detail
    # where the machine evidence's mass reaches session 16's bar (here 0.1) the mass rule
    # keeps the wrong decision; the recogniser (20 * 0.2 - 6 - 2 = -4) lets the style lead
    z, parts = score(0.2, -1.5, -2.7, 0.1, 0.8, machine_bar=0.1, machine_model=False)
    assert z == pytest.approx(-4.0)
    assert "not led: machine evidence 0.20 at or over 0.1" in parts["model_style"].detail
    z, parts = score(0.2, -1.5, -2.7, 0.1, 0.8, machine_bar=0.1)
    assert z == pytest.approx(-4.0 + 12.0 * 0.7) and "leads" in parts["model_style"].detail
    # merged sentences cannot hide a large fluency gap: 24 - 12 - 2 = 10, machine-made
    z, parts = score(1.2, -3.0, -1.2, 0.1, 0.8)
    assert z == pytest.approx(-3.0)
    assert "not led: machine-made probability 1.00" in parts["model_style"].detail
    # lead_weight 0: the decider rule whatever the recogniser says
    z, parts = score(0.12, -1.5, -2.62, 0.1, 0.8, lead_weight=0.0)
    assert z == pytest.approx(-4.0) and "model_style" not in parts


def test_recogniser_features_and_params() -> None:
    """The recogniser's features: a direction evidence's magnitude (0 where it is silent),
    the length ratio, the styles of the more and the less model-written text; its
    settings are validated by name."""
    from unspin.evidence import recogniser_features, recogniser_probability

    names = ("artefacts", "merged_sentences", "lenratio", "style_max", "style_min")
    got = recogniser_features(names, {"artefacts": -1.5}, (0.2, 0.9), 0.5)
    assert got == [1.5, 0.0, 0.5, 0.9, 0.2]
    assert recogniser_features(("style_max",), {}, (None, None), 1.0) == [0.0]
    p = dataclasses.replace(
        P, machine_features=("artefacts",), machine_weights=(2.0,), machine_bias=-1.0
    )
    assert recogniser_probability(p, [0.5]) == pytest.approx(0.5)
    assert recogniser_probability(p, [1e9]) == pytest.approx(1.0)
    for kw, msg in (
        ({"machine_weights": (1.0,)}, "machine_weights"),
        ({"machine_features": ("model_style",), "machine_weights": (1.0,)}, "machine_features"),
        ({"machine_features": ("nothing",), "machine_weights": (1.0,)}, "machine_features"),
        ({"machine_bias": float("nan")}, "machine_bias"),
        ({"machine_cut": 0.0}, "machine_cut"),
        ({"machine_cut": 1.0}, "machine_cut"),
    ):
        with pytest.raises(ValueError, match=msg):
            dataclasses.replace(P, **kw)
    # the shipped recogniser is on and fitted (not all zero)
    assert P.machine_model and any(P.machine_weights)


def test_style_model_reads_the_writers_own_words(tmp_path) -> None:
    """A toy style model file: the term's weight raises the probability, quotations are
    the speaker's words and are left out, and a broken file is refused by name."""
    import json

    from unspin.evidence import STYLE_SHAPES, load_style_model, style_view

    n_shapes = len(STYLE_SHAPES)
    spec = {
        "intercept": 0.0,
        "calibration": [1.0, 0.0],
        "min_words": 5,
        "terms": ["furthermore"],
        "shapes": list(STYLE_SHAPES),
        "mean": [0.0] * (1 + n_shapes),
        "scale": [1.0] * (1 + n_shapes),
        "coef": [1.0] + [0.0] * n_shapes,
    }
    f = tmp_path / "style.json"
    f.write_text(json.dumps(spec))
    m = load_style_model(f)
    plain = "The port reopened on Monday after the storm passed over the coast."
    tell = "Furthermore, the port reopened on Monday after the storm passed over the coast."
    quoted = 'The port reopened on Monday. "Furthermore, we are glad," the mayor said.'
    assert m.prob(plain) == pytest.approx(0.5)
    assert m.prob(tell) > 0.9
    assert m.prob(quoted) == pytest.approx(0.5)  # the mayor's words, not the writer's
    assert "furthermore" not in style_view(quoted).own
    assert m.prob("Too short.") is None
    spec["coef"] = [1.0]
    f.write_text(json.dumps(spec))
    with pytest.raises(ValueError, match="style.json"):
        load_style_model(f)


def test_the_shipped_style_model_loads() -> None:
    from unspin.evidence import STYLE_MODEL_FILE, load_style_model

    m = load_style_model(STYLE_MODEL_FILE)
    assert m.terms and m.coef.shape == (len(m.terms) + len(m.shapes),)


# ---------------------------------------------------------------- the shorter text's side


LONG = (
    "The Harbour Board of Velmora approved a 12 million euro plan on Tuesday. "
    "Board chair Anika Strand said work would start in March and take 18 months. "
    "Fishermen's leader Piet Maas warned that dredging could harm 400 small boats. "
    "The port handled 3.1 million tonnes of cargo last year."
)


def test_the_shorter_texts_own_facts_are_counted_not_smoothed() -> None:
    """``short_own`` counts the names and figures only the shorter text has (what a
    rewrite adds: nothing; what a second reporter found: their own); ``short_names_in``
    is the smoothed share of its names the longer uses."""
    rewrite = _doc("b", "Velmora's board backed the 12 million euro plan. Anika Strand chairs it.")
    other = _doc(
        "b", "Velmora's board backed the plan, said mayor Lena Hoff. Costs reach 14 million."
    )
    long = _doc("a", LONG)
    own = TYPING_FEATURES["short_own"]
    assert own(ctx(long, rewrite)) == pytest.approx(0.0)
    # "Lena", "Hoff" and the figure 14 are its own
    assert own(ctx(long, other)) == pytest.approx(np.log1p(3))
    names_in = TYPING_FEATURES["short_names_in"]
    assert names_in(ctx(long, rewrite)) > names_in(ctx(long, other))


def test_the_shorter_texts_counterparts_are_read_on_its_side() -> None:
    # b (two sentences) is the shorter: its first sentence faces a's first closely
    a, b = doc_of("a", S4), doc_of("b", T4[:2])
    embed(a, b, {(0, 0): 0.9})
    c = ctx(a, b)
    assert c.short_side == 1
    assert TYPING_FEATURES["short_soft"](c) == pytest.approx(c.soft[1][0])
    assert 0.0 < TYPING_FEATURES["short_soft"](c) < 1.0
    assert TYPING_FEATURES["short_mean"](c) == pytest.approx(c.soft[1][1])
    assert TYPING_FEATURES["short_order"](c) == pytest.approx(c.soft[1][2])


def test_a_title_case_headline_adds_no_facts_of_its_own() -> None:
    """A rewrite's new headline in title case carries the source's facts, not names of
    its own: its capitalised common words are neither names nor salient keys."""
    from unspin import evidence as ev

    body = (
        "Former champion Michael Johnson has criticised Britain's sprinters at a "
        "conference in Birmingham, saying they lack ambition."
    )
    src = _doc("s", "Johnson criticises sprinters\n\n" + body)
    cased = _doc("r", "Michael Johnson Slams Sprinters Over Lack Of Ambition\n\n" + body)
    plain = _doc("p", "Michael Johnson slams sprinters over lack of ambition\n\n" + body)
    fs, fc, fp = ev.doc_facts(src), ev.doc_facts(cased), ev.doc_facts(plain)
    assert fc.names == fp.names and fc.keys == fp.keys
    assert not fc.names - fs.words
    # without the reading, "slams", "over" and "of" were names of its own
    assert {"slams", "over", "of"} <= ev.names(cased.article.text) - fs.words


def _lang_doc(doc_id: str, text: str, lang: str) -> Doc:
    return prepare(Article(id=doc_id, text=text, lang=lang))


# a Spanish sentence and the same after a dictionary's word choices (written for the test)
ES_ORIG = (
    "Miles de personas acudieron al evento del sábado en el centro de la ciudad, donde el "
    "gobierno regional presentó su plan para la próxima temporada."
)
ES_MT = (
    "Millares de personas acudieron al acontecimiento del sábado en el centro de la urbe, "
    "donde el ejecutivo regional presentó su proyecto para la próxima estación."
)


def test_word_rarity_points_to_the_side_with_the_rarer_own_words() -> None:
    a, b = _lang_doc("a", ES_ORIG, "es"), _lang_doc("b", ES_MT, "es")
    assert (a.lang, b.lang) == ("es", "es")
    v = _ev("word_rarity", ctx(a, b, [(0, 0)], relation="spun"))
    assert v is not None and v > 0  # a's own words are the more common: a is the source
    assert _ev("word_rarity", ctx(b, a, [(0, 0)], relation="spun")) == pytest.approx(-v)
    # not in English (the direction evidence there was fitted without it), nor across
    # languages, nor for independent coverage, nor with too few words of one's own
    en_a = _lang_doc("a", "Thousands came to the event on Saturday in the city centre.", "en")
    en_b = _lang_doc("b", "Multitudes came to the happening on Saturday in the urban core.", "en")
    assert _ev("word_rarity", ctx(en_a, en_b, [(0, 0)], relation="spun")) is None
    assert _ev("word_rarity", ctx(a, b, [(0, 0)], relation="same_story")) is None
    strict = dataclasses.replace(P, word_rarity_min_words=50)
    assert _ev("word_rarity", ctx(a, b, [(0, 0)], relation="spun", params=strict)) is None


def test_word_rarity_is_not_read_in_japanese_or_thai() -> None:
    """Their tokens are character bigrams that are no words (kana endings, pieces of Thai
    words); in Chinese most bigrams are words and it is read (session 41). Sentences
    written for the test."""
    ja_a = "港湾局は火曜日に港の浚渫計画を承認し、工費は十二億円に上ると発表した。"
    ja_b = "港湾当局は火曜、港湾の浚渫案を認め、費用が十二億円に達すると明らかにした。"
    zh_a = "港务局周二批准了港口疏浚计划，并宣布工程费用将达到十二亿元。"
    zh_b = "港口管理部门周二通过疏浚方案，表示项目开支预计高达十二亿元。"
    for lang, ta, tb, read in (("ja", ja_a, ja_b, False), ("zh", zh_a, zh_b, True)):
        a, b = _lang_doc("a", ta, lang), _lang_doc("b", tb, lang)
        assert (a.lang, b.lang) == (lang, lang)
        got = _ev("word_rarity", ctx(a, b, [(0, 0)], relation="spun"))
        assert (got is not None) is read, lang
        wide = dataclasses.replace(P, word_rarity_skip_langs=("en",))
        assert _ev("word_rarity", ctx(a, b, [(0, 0)], relation="spun", params=wide)) is not None


def test_translated_names_point_to_the_side_whose_names_were_put_into_words() -> None:
    # a name that is an English word ("Variety", "Facility") which the other text renders
    # as a word of the language ("Variedad", "Facilidad"): machine translation translates
    # names, writers keep them; the side with the names is the source (sentences written
    # for the test)
    src = (
        "El fiscal dijo que el detenido pasó la noche en la Mat-Su Pretrial Facility, "
        "según informó Variety el domingo."
    )
    der = (
        "El fiscal dijo que el detenido pasó la noche en la Mat-Su Pretrial Facilidad, "
        "según informó Variedad el domingo."
    )
    a, b = _lang_doc("a", src, "es"), _lang_doc("b", der, "es")
    assert (a.lang, b.lang) == ("es", "es")
    v = _ev("translated_names", ctx(a, b, [(0, 0)], relation="spun"))
    assert v == 2.0  # two of a's names rendered as words by b: a is the source
    assert _ev("translated_names", ctx(b, a, [(0, 0)], relation="spun")) == -2.0
    # a sentence's first word is capitalised whatever it is; a local spelling of a local
    # name ("Panamá" for "Panama") is no English word put into words
    first_a = _lang_doc("a", "Variety publicó la noticia el domingo.", "es")
    first_b = _lang_doc("b", "Variedad publicó la noticia el domingo.", "es")
    assert _ev("translated_names", ctx(first_a, first_b, [(0, 0)], relation="spun")) is None
    pa = _lang_doc("a", "Il governo di Panama ha cambiato idea nel 2017.", "it")
    pb = _lang_doc("b", "Il governo di Panamá ha cambiato idea nel 2017.", "it")
    assert _ev("translated_names", ctx(pa, pb, [(0, 0)], relation="spun")) is None
    # not in English (its direction evidence was fitted without it), nor across languages
    en_a = _lang_doc(
        "a", "The suspect spent the night at the Pretrial Facility, said Variety.", "en"
    )
    en_b = _lang_doc("b", "The suspect spent the night at the Pretrial Ease, said Diversity.", "en")
    assert _ev("translated_names", ctx(en_a, en_b, [(0, 0)], relation="spun")) is None
    assert _ev("translated_names", ctx(a, en_a, [(0, 0)], relation="translation")) is None


def test_typography_points_to_the_side_that_sets_its_apostrophes() -> None:
    # news copy sets its apostrophes (l’État, dell’anno); machine translation, language
    # models and plain-text spinners write the plain one: the side with the set ones is
    # the source (sentences written for the test)
    src = "L’État a confirmé l’accord d’hier : l’usine rouvrira d’ici l’été."
    der = "L'État a confirmé l'entente d'hier : l'usine rouvrira d'ici l'été."
    a, b = _lang_doc("a", src, "fr"), _lang_doc("b", der, "fr")
    assert _ev("typography", ctx(a, b, [(0, 0)], relation="spun")) == 1.0
    assert _ev("typography", ctx(b, a, [(0, 0)], relation="spun")) == -1.0
    assert _ev("typography", ctx(a, b, [(0, 0)], relation="copy")) == 1.0
    # both set alike, or one mixes the two kinds: nothing said
    assert _ev("typography", ctx(a, _lang_doc("c", src, "fr"), [(0, 0)], relation="spun")) is None
    mixed = _lang_doc("m", "L’État a confirmé l'accord d'hier : l’usine rouvrira.", "fr")
    assert _ev("typography", ctx(mixed, b, [(0, 0)], relation="spun")) is None
    # fewer than ``typography_min`` on a side: nothing said
    one = _lang_doc("o", "L’État a confirmé un accord hier soir avec les syndicats.", "fr")
    assert _ev("typography", ctx(one, b, [(0, 0)], relation="spun")) is None
    # a passage inside another desk's article, or a translation: nothing said
    assert _ev("typography", ctx(a, b, [(0, 0)], relation="partial")) is None
    en = _lang_doc("e", "The State confirmed yesterday's deal: the plant won't reopen.", "en")
    assert _ev("typography", ctx(a, en, [(0, 0)], relation="translation")) is None
    # not in English (its direction evidence was fitted without it)
    en_set = _lang_doc("f", "The State confirmed yesterday’s deal: the plant won’t reopen.", "en")
    assert en_set.lang == "en"
    assert _ev("typography", ctx(en_set, en, [(0, 0)], relation="spun")) is None


def test_function_words_are_read_in_english_only() -> None:
    # the share of function words: the longer, wordier side reads as the derivative in
    # English; in Spanish round trips it pointed the other way as often (session 33)
    a = _lang_doc("a", "El gobierno aprobó ayer el plan de obras del puerto.", "es")
    b = _lang_doc(
        "b",
        "El gobierno de la región aprobó en el día de ayer el plan de las obras del puerto.",
        "es",
    )
    c = ctx(a, b, [(0, 0)], relation="spun")
    assert _ev("function_words", c) is None
    both = dataclasses.replace(P, function_words_langs=("en", "es"))
    v = _ev("function_words", ctx(a, b, [(0, 0)], relation="spun", params=both))
    assert v is not None and v > 0


def test_a_capitalised_function_word_is_an_artefact_only_in_its_own_language() -> None:
    from unspin.classify import artefact_count

    # names that open with another language's article are no artefacts in German text,
    # nor is a headline's first word on its own line; a Spanish article capitalised
    # mid-sentence in Spanish text is one
    de = "Die Botschafter kehren aus El Salvador und Los Angeles zurück."
    assert artefact_count(de, lang="de")[0] == 0
    assert (
        artefact_count("Neue Regeln für Schulen\nDie Regierung plant mehr Geld.", lang="de")[0] == 0
    )
    assert artefact_count("El alcalde se reunió con La ministra el jueves.", lang="es")[0] == 1
    # English keeps the list its direction weights were fitted with
    assert artefact_count("They flew to El Salvador on Monday.", lang="en")[0] == 1


def test_german_nouns_are_no_names_and_names_still_are() -> None:
    from unspin.evidence import doc_facts, name_travels

    # every German noun is capitalised: a capital is no sign of a name there
    assert not name_travels("polizei", "de") and not name_travels("regierung", "de")
    assert name_travels("junqueras", "de") and name_travels("london", "de")
    text = (
        "Die Polizei nahm am Samstag in Barcelona sechs Demonstranten fest. "
        "Oriol Junqueras sagte, die Regierung habe die Lage nicht im Griff."
    )
    de = doc_facts(_lang_doc("a", text, "de"))
    assert {"barcelona", "junqueras"} <= de.names
    assert not {"polizei", "regierung", "lage", "demonstranten"} & de.names
    # a compound of two German words is a noun, though neither word list has it whole;
    # a name's genitive -s is the name ("Corbyns" in one text, "Corbyn" in the other)
    assert not name_travels("loyalitätsprüfungen", "de")
    assert not name_travels("schulleitervereinigung", "de")
    from unspin.evidence import unused_names

    g1 = doc_facts(_lang_doc("g1", "Die Partei prüft Corbyns Pläne für London.", "de"))
    g2 = doc_facts(_lang_doc("g2", "In London will die Partei die Pläne von Corbyn prüfen.", "de"))
    assert "corbyns" in g1.names and not unused_names(g1, g2)
    # a noun English writes as a name ("Griff") still reads as one: the rule's known limit
    # in English, capitalised words inside a sentence are names as before
    en = doc_facts(_lang_doc("b", "On Saturday the Police in Barcelona held six people.", "en"))
    assert {"police", "barcelona"} <= en.names


def test_one_name_in_two_cases_is_one_name_where_names_inflect() -> None:
    from unspin.evidence import _own_checkable, doc_facts
    from unspin.normalise import inflection_keys, name_form

    def meet(x: str, y: str, lang: str) -> bool:
        return bool(inflection_keys(x, lang) & inflection_keys(y, lang))

    assert meet("Трампа", "Трамп", "ru") and meet("Warszawie", "Warszawa", "pl")
    assert name_form("Çin'in", "tr") == name_form("Çin", "tr") == "çin"
    assert name_form("Ankara’da", "tr") == "ankara"
    assert name_form("Madrid", "es") == "madrid" and name_form("O'Brien", "en") == "o'brien"
    # the rule's known limit: two names one case ending apart meet ("Мария", "Марина")
    assert meet("Мария", "Марина", "ru")
    # two Russian texts naming the same people in other cases have no names of their own
    a = doc_facts(_lang_doc("a", "Вчера в Москве встретились Путин и Трамп.", "ru"))
    b = doc_facts(_lang_doc("b", "Встреча Путина и Трампа прошла в Москве.", "ru"))
    assert {"путин", "трамп"} <= a.names and {"путина", "трампа"} <= b.names
    assert _own_checkable(a, b) == 0 and _own_checkable(b, a) == 0
    # ... which the same texts in English, where names do not inflect, would have
    en_a = dataclasses.replace(a, lang="en", word_keys=frozenset())
    en_b = dataclasses.replace(b, lang="en", word_keys=frozenset())
    assert _own_checkable(en_a, en_b) > 0
    # names no dictionary lists meet their other cases by a shared prefix; two names that
    # share only a short stem or differ by more than a case ending do not
    from unspin.evidence import _meet

    assert inflection_keys("Брайтона", "ru") & inflection_keys("Брайтон", "ru")
    assert not inflection_keys("Брайтон", "ru") & inflection_keys("Бразилия", "ru")
    assert inflection_keys("Brighton", "en") == {"brighton"}
    body = frozenset({"джеффа дила", "элизабет уоррен", "джеффа флейка"})
    assert _meet(body, frozenset({"джеффом флейком"}), "ru") == {"джеффа флейка"}
    assert _meet(body, frozenset({"джеффом флейком"}), "en") == frozenset()
    t1 = doc_facts(_lang_doc("c", "Dün Ankara'da Erdoğan ile görüştü.", "tr"))
    t2 = doc_facts(_lang_doc("d", "Görüşme Ankara’daki Erdoğan'ın ofisinde yapıldı.", "tr"))
    assert {"ankara", "erdoğan"} <= t1.names & t2.names


def test_a_compound_of_known_words_is_known_in_a_compounding_language() -> None:
    from unspin.classify import _known

    assert _known("atomtestgelände", "de") and _known("arbeitsmarkt", "de")
    assert not _known("xqzvbnmkrt", "de")
    # no splitting outside compounding languages: a fused machine-translation word stays odd
    assert not _known("querompenrécord", "es")


def test_credit_forms_of_other_languages_name_the_outlet() -> None:
    # credit labels and "with information from" forms of Spanish, French, German, Italian and
    # Portuguese news sites (written for the test); an English "Source:" line is read as
    # before (an outlet only by its masthead word)
    cases = {
        "Fuente: Diario Horizonte Digital": "diario horizonte digital",
        "Texto propio.\n\nCon información de El Observador Fabril.": "observador fabril",
        "Source : Le Veilleur Judiciaire": "veilleur judiciaire",
        "Quelle: Rheintaler Netzkurier": "rheintaler netzkurier",
        "Mit Material von Gesundheitsbote Oderbruch": "gesundheitsbote oderbruch",
        "Fonte: Cronache d'Oltremanica": "cronache d'oltremanica",
        "Com informações de Gazeta do Trabalho": "gazeta do trabalho",
        "El hecho, según informó el Diario de la Tarde, ocurrió ayer.": "diario de la tarde",
        "Der Artikel erschien zuerst bei Netzkurier Ost.": "netzkurier ost",
    }
    for text, outlet in cases.items():
        assert outlet in credited_outlets(text), text
    assert credited_outlets("Source: USDA figures") == set()
    assert credited_outlets("La policía habló con la fuente oficial.") == set()


def test_a_credit_line_of_another_language_is_a_credit_line_to_the_changes() -> None:
    from unspin.changes import _CREDIT

    def kind(text: str) -> int | None:
        return next((k for k, p in enumerate(_CREDIT) if p.search(text)), None)

    for text in ("Fuente: Diario Horizonte", "Quelle: dpa", "Con información de El Faro"):
        assert kind(text) is not None, text
    assert kind("Source: USDA") is None and kind("La fuente: nadie lo sabe") is None


def test_credits_in_the_forms_of_the_chinese_japanese_korean_and_thai_press() -> None:
    from unspin.evidence import outlet_names

    # a credit label opening a line, "reprinted from / first published in", "according
    # to X's report", "first carried by X": the outlet as written (these texts written
    # for the test, the outlets invented)
    for text, name in (
        ("港口疏浚计划获批。\n来源：星河日报", "星河日报"),
        ("据《东方观察网》报道，港口疏浚计划获批。", "东方观察网"),
        ("本文首发于东方观察网，经授权转载。", "东方观察网"),
        ("港の浚渫計画が承認された。\n出典：ミドリ新聞", "ミドリ新聞"),
        ("この記事は「北海タイムズ」より転載しました。", "北海タイムズ"),
        ("항만 준설 계획이 승인됐다.\n출처: 한빛신문", "한빛신문"),
        ("이 기사는 바다뉴스에 먼저 실렸습니다.", "바다뉴스"),
        ("ที่มา: ข่าวทะเลใต้", "ข่าวทะเลใต้"),
        ("ตามรายงานของข่าวทะเลใต้ ระบุว่า แผนขุดลอกท่าเรือได้รับอนุมัติ", "ข่าวทะเลใต้"),
    ):
        got = outlet_names(text)
        assert got.credits == {name} and not got.bylines, text
    # not credits: a source of the news that is no outlet's credit form, a name run on
    # into the sentence (Thai, no space after it), a label word in prose without its colon
    for text in (
        "警察によると、男は逃げた。",
        "ตามรายงานของสำนักข่าวรอยเตอร์ระบุว่ามีผู้เสียชีวิต",
        "ข้อมูลจากกระทรวงสาธารณสุขระบุว่าผู้ป่วยเพิ่มขึ้น",
        "来源于当地的消息称港口将关闭。",
    ):
        assert not outlet_names(text).credits, text


def test_credits_naming_a_masthead_in_the_forms_of_more_presses() -> None:
    """A credit whose name is an outlet's by its masthead word ("…通信", "…신문",
    "สำนักข่าว…", a word for a newspaper or agency before an Arabic or Greek name), in
    the forms of the Japanese, Chinese, Korean, Thai, Arabic and Greek press; a person
    or an office given as a source, and "the said paper", are no credit. Sentences
    written for the test, outlets invented."""
    from unspin.evidence import outlet_names

    for text, name in (
        ("港の浚渫計画が承認された。湾岸経済新報によると、工費は12億円に上る。", "湾岸経済新報"),
        ("工費は12億円に上ると、みなと通信が伝えています。", "みなと通信"),
        ("港の浚渫計画が承認された。\n（みなと通信）", "みなと通信"),
        ("《星河财经周报》报道称，港口疏浚计划获批。", "星河财经周报"),
        ("항만 준설 계획이 승인됐다고 바다경제신문이 보도했다.", "바다경제신문"),
        ("바다경제신문에 따르면 공사비는 120억 원이다.", "바다경제신문"),
        ("สำนักข่าวทะเลใต้ออนไลน์รายงานว่า แผนขุดลอกท่าเรือได้รับอนุมัติ", "สำนักข่าวทะเลใต้ออนไลน์"),
        ('وبحسب ما أوردته صحيفة "مرفأ اليوم"، وافق المجلس على خطة التجريف.', "مرفأ اليوم"),
        ("Σύμφωνα με την εφημερίδα «Λιμάνι Σήμερα», το σχέδιο εγκρίθηκε.", "λιμάνι σήμερα"),
        ("Όπως μεταδίδει ο ιστότοπος Λιμενικά Νέα, το σχέδιο εγκρίθηκε.", "λιμενικά νέα"),
        # a name in quotation marks: after a word for an outlet it needs no masthead word
        ("항만 전문지 '바다 물류 리뷰'에 따르면 공사비는 120억 원이다.", "바다 물류 리뷰"),
        ("'바다경제신문' 보도에 따르면 공사비는 120억 원이다.", "바다경제신문"),
        ("وبحسب ما أوردته «شبكة مرفأ الأخبار»، وافق المجلس على الخطة.", "شبكة مرفأ الأخبار"),
    ):
        got = outlet_names(text)
        assert got.credits == {name} and not got.bylines, text
    for text in (
        "警察によると、男は逃げた。",
        "同紙によると、工費は12億円に上る。",
        "同ジャーナルによると、工費は12億円に上る。",
        "경찰에 따르면 남성은 달아났다.",
        # a masthead word alone is the common noun: "according to the news the police
        # released", "according to the newspaper"
        "뉴포트 경찰이 공개한 뉴스에 따르면 남성은 달아났다.",
        "(뉴스)",
        "。新聞によると、工費は12億円に上る。",
        "港の浚渫計画が承認された。\n（新聞）",
        "'2024 항만 보고서'에 따르면 물동량이 늘었다.",
        "ตำรวจรายงานว่ามีผู้บาดเจ็บสองคน",
        "وبحسب الشرطة، فر الرجل من المكان.",
        "Σύμφωνα με τον Γιάννη Παπαδόπουλο, το σχέδιο εγκρίθηκε.",
    ):
        assert not outlet_names(text).credits, text


def test_an_invented_outlet_credited_in_japanese_points_at_the_rewrite() -> None:
    body = "港湾局は火曜日、港の浚渫計画を承認した。工費は12億円で、来春に完成する見込みだ。"
    source = _art("a", "浚渫計画を承認\n\n" + body)
    rewrite = _art("b", "港の浚渫、ついに承認\n\n湾岸経済新報によると、" + body)
    assert _ev("unknown_credit", ctx(source, rewrite, relation="spun", support=_support())) == 1.0
    # an outlet another article of the pile names is no evidence
    known = _support("湾岸経済新報は月曜日に港のニュースを伝えた。")
    assert _ev("unknown_credit", ctx(source, rewrite, relation="spun", support=known)) is None


def test_an_invented_outlet_credited_in_chinese_points_at_the_rewrite() -> None:
    body = "港务局周二批准了港口疏浚计划，工程将耗资1200万元，预计明年春天完工。"
    source = _art("a", "港口疏浚计划获批\n\n" + body)
    rewrite = _art("b", "疏浚计划终获批准\n\n" + body + "\n\n来源：星河日报")
    c = ctx(source, rewrite, relation="spun", support=_support())
    assert _ev("unknown_credit", c) == 1.0
    assert _ev("unknown_credit", ctx(rewrite, source, relation="spun", support=_support())) == -1.0
    # an outlet another article of the pile names is no evidence
    known = _support("星河日报周一报道了港口的新闻。")
    assert _ev("unknown_credit", ctx(source, rewrite, relation="spun", support=known)) is None


def test_a_credit_to_an_outlet_named_nowhere_else_leads_outside_english() -> None:
    """A machine adds no credit: outside English a credit to an outlet that the other text
    and no other article name leads the direction (``credit_lead_weight``) whatever the
    machine-translation tells say; in English the style model leads as before, and with
    the weight 0 the credit is one evidence among the rest."""
    body = "港湾局は火曜日、港の浚渫計画を承認した。工費は12億円で、来春に完成する見込みだ。"
    source = _art("a", "浚渫計画を承認\n\n" + body)
    rewrite = _art("b", "港の浚渫、ついに承認\n\n湾岸経済新報によると、" + body)
    z, out = direction_score(ctx(source, rewrite, relation="spun", support=_support()))
    lead = [x for x in out if x.name == "credit_lead"]
    assert z > 0 and len(lead) == 1 and lead[0].weight == P.credit_lead_weight
    z, out = direction_score(ctx(rewrite, source, relation="spun", support=_support()))
    assert z < 0 and any(x.name == "credit_lead" for x in out)
    # a text at most condensed_lenratio of the crediting one's length may have dropped
    # the credit in condensing: the credit is weighed, it does not lead
    step = "港湾局によると、浚渫は三つの段階に分けて進められ、最初の段階は来月に始まる"
    more = "。".join([step] * 4)
    long_src = _art("a", "浚渫計画を承認\n\n湾岸経済新報によると、" + body + more + "。")
    short_rw = _art("b", "港の浚渫、ついに承認\n\n" + body)
    _, out = direction_score(ctx(long_src, short_rw, relation="spun", support=_support()))
    assert any(x.name == "unknown_credit" for x in out)
    assert not any(x.name == "credit_lead" for x in out)
    off = dataclasses.replace(P, credit_lead_weight=0.0)
    _, out = direction_score(ctx(source, rewrite, relation="spun", support=_support(), params=off))
    assert not any(x.name == "credit_lead" for x in out)
    assert any(x.name == "unknown_credit" for x in out)
    en_body = "The harbour board approved the dredging plan on Tuesday at a cost of 12 million."
    en_src = _art("a", "Dredging plan approved\n\n" + en_body)
    en_rw = _art("b", "Dredging finally approved\n\nAccording to the Velmora Courier, " + en_body)
    _, out = direction_score(ctx(en_src, en_rw, relation="spun", support=_support()))
    assert any(x.name == "unknown_credit" for x in out)
    assert not any(x.name == "credit_lead" for x in out)


def test_odd_words_are_counted_only_where_spaces_separate_words() -> None:
    """In a text written without spaces between words the runs between spaces are
    clauses, which no word list holds: no odd words are counted there (a professional
    Japanese translation with a few spaces read as full of unknown words, session 41)."""
    from unspin.classify import odd_words

    ja = doc_of("j", ["また私達はAIで次の躍進を得ようと求めている 同氏はそう述べた。"])
    other = doc_of("k", ["米国はAIで大きく後れを取っていると同氏は語った。"])
    assert odd_words(ja, {0}, other, {0}) == 0
    # nor in Korean, whose ordinary inflected words wordfreq reads as unknown
    ko_text = "그는 어린 시절 영국에서 자랐으며 지난해 결혼했으며 메달리스트는 기뻐했다."
    ko = _lang_doc("k", ko_text, "ko")
    ko2 = _lang_doc("l", "그는 영국에서 성장했고 작년에 결혼식을 올렸다고 말했다.", "ko")
    assert ko.lang == "ko" and odd_words(ko, {0}, ko2, {0}) == 0
    es = doc_of("e", ["El ministro anunció querompenrécord en la reunión de ayer."])
    es2 = doc_of("f", ["El ministro anunció un récord en la reunión de ayer."])
    assert odd_words(es, {0}, es2, {0}) == 1


def test_an_artefact_rate_names_what_it_counted_per() -> None:
    """The rate is per 100 runs between spaces: words in most scripts, whole clauses in
    Chinese, Japanese or Thai, where the reason says so rather than "words"."""
    from unspin.classify import _count_unit

    zh_a = doc_of("a", ["美国总统特朗普周二表示，他将于下周访问日本。"])
    zh_b = doc_of("b", ["美国总统特朗普周二表示 , 他将于下周访问日本 。"])
    assert _count_unit(zh_a, {0}) == "runs of text between spaces"
    got = DIRECTION_EVIDENCE["artefacts"](ctx(zh_a, zh_b, [(0, 0)], relation="spun"))
    assert got is not None and got[0] > 0
    assert "per 100 runs of text between spaces" in got[1] and "words" not in got[1]
    th = doc_of("t", ["นายกรัฐมนตรีกล่าวว่ารัฐบาลจะลดภาษีในปีหน้า"])
    assert _count_unit(th, {0}) == "runs of text between spaces"
    ko = doc_of("k", ["대통령은 화요일 다음 주에 일본을 방문하겠다고 말했다."])
    assert _count_unit(ko, {0}) == "words"  # Korean is written with spaces
    a = doc_of("a", ["The mayor met him on Thursday to discuss the $60 million plan."])
    b = doc_of("b", ["the mayor met him On thursday to discuss the $ 60 million plan ."])
    got = DIRECTION_EVIDENCE["artefacts"](ctx(a, b, [(0, 0)], relation="spun"))
    assert got is not None and "per 100 words: a 0.0, b" in got[1]


def test_the_rewrite_model_reads_no_tagged_names() -> None:
    """The tagged names of a Japanese text are story keys (``u:``), not keys of its
    :class:`DocFacts`: the rewrite model's ``short_keys_in`` was fitted on names read by
    their capitals (with them, briefs beside long reports of one event crossed its cut)."""
    from unspin.evidence import doc_facts
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint

    (doc,) = fingerprint(
        [Article(id="j", text="ザエフ首相はマケドニアで40人と会った。", lang="ja")],
        Config(embedder="hashing"),
    )
    assert {"u:ザエフ", "u:マケドニア"} <= set(doc.keys)
    assert "n:40" in doc_facts(doc).keys
    assert not [k for k in doc_facts(doc).keys if k.startswith("u:")]


def test_the_rewrite_models_keys_read_dates_as_it_was_fitted() -> None:
    # an Italian report's own month and weekday are story keys; the rewrite model's keys
    # (DocFacts.keys, read by short_keys_in) keep the English and Spanish names only, as
    # the model was fitted; an English report's dates are in both
    from unspin.evidence import doc_facts

    it = prepare(
        Article(id="it", text="Lunedì 15 dicembre la polizia di Banstead ha parlato.", lang="it")
    )
    assert {"m:dec", "d:monday"} <= set(it.keys)
    assert not {k for k in doc_facts(it).keys if k[:2] in ("m:", "d:")}
    en = prepare(
        Article(id="en", text="On Monday, December 15, police in Banstead spoke.", lang="en")
    )
    assert {"m:dec", "d:monday"} <= set(doc_facts(en).keys)


def test_the_rewrite_models_keys_read_german_nouns_as_before() -> None:
    from unspin.evidence import doc_facts

    de = prepare(
        Article(
            id="de", text="Laut Polizei hat das Feuer in Banstead den Markt zerstört.", lang="de"
        )
    )
    assert "w:polizei" not in de.keys and "w:banstead" in de.keys
    assert {"w:polizei", "w:banstead"} <= set(doc_facts(de).keys)


def test_outside_english_a_pair_keeping_its_sentences_one_for_one_reads_machine_made(
    monkeypatch,
) -> None:
    """Outside English (where the machine-made recogniser was not fitted) a pair whose
    more covered text keeps its sentences' meaning one for one (``mean_hi`` at or over
    ``machine_sentence_sim_intl``) reads machine-made: the style does not lead there. A
    round trip through a close language whose source reads model-written was directed
    by the style the wrong way (session 64). English, and a bar of 0, as before."""
    from unspin.evidence import machine_made

    kept = {"v": 0.0}
    monkeypatch.setitem(TYPING_FEATURES, "mean_hi", lambda c: kept["v"])
    bar = P.machine_sentence_sim_intl
    assert 0.0 < bar < 1.0
    es = ctx(_lang_doc("a", ES_ORIG, "es"), _lang_doc("b", ES_MT, "es"), relation="spun")
    en = _style_pair(0.1, 0.8)
    assert es.a.lang == "es" and en.a.lang == "en"
    off = {name: machine_made(c, [])[0] for name, c in (("es", es), ("en", en))}
    assert off == {"es": False, "en": False}  # the recogniser alone reads neither so

    kept["v"] = bar
    made, why = machine_made(es, [])
    assert made and "sentences kept one for one" in why and f"{bar:.2f}" in why
    kept["v"] = 0.99
    assert machine_made(es, [])[0]
    # under the bar, in English, or with the bar 0: the recogniser decides, as before
    kept["v"] = bar - 0.01
    made, why = machine_made(es, [])
    assert made == off["es"] and "sentences kept" not in why
    kept["v"] = 0.99
    assert machine_made(en, [])[0] == off["en"]
    assert "sentences kept" not in machine_made(en, [])[1]
    es0 = dataclasses.replace(es, params=dataclasses.replace(P, machine_sentence_sim_intl=0.0))
    assert machine_made(es0, [])[0] == off["es"]
    # across languages (a translation) the bar says nothing
    cross = ctx(_lang_doc("a", ES_ORIG, "es"), _styled("b", STYLE_B, 0.8), relation="spun")
    assert not cross.same_language
    assert "sentences kept" not in machine_made(cross, [])[1]
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="machine_sentence_sim_intl"):
            dataclasses.replace(P, machine_sentence_sim_intl=bad)
