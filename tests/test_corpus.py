"""Corpus support: which wording other articles agree with, and direction from it."""

from __future__ import annotations

import numpy as np

from unspin.align import align
from unspin.classify import (
    ClassifyParams,
    casing_slips,
    classify,
    direction,
    lost_possessives,
    name_votes,
    split_names,
    wording_votes,
)
from unspin.corpus import CorpusSupport, bigram_hashes
from unspin.fingerprint import prepare
from unspin.model import AlignedPassage, Alignment, Article
from unspin.normalise import words
from unspin.pipeline import Config, fingerprint

SOURCE = """Rail operator fined over late trains

The rail operator serving the East Midlands was fined on Monday after a year of late \
and cancelled trains, the regulator said.
Commuters in the East Midlands faced the worst delays in the country, with one train \
in five arriving more than ten minutes late.
The operator said it had ordered new carriages and would hire more drivers this year.
Passenger groups welcomed the fine but said the money should go to cheaper tickets.
The regulator will review the operator's performance again in six months."""

OTHERS = [
    "Flooding closed roads across the East Midlands and the north of England on Sunday.",
    "House prices in the East Midlands and Wales rose faster than in London last year.",
    "A new hospital wing opened in the East Midlands and staff said it would cut waits.",
]


def _docs(derivative: str) -> list:
    arts = [Article(id="src", text=SOURCE), Article(id="der", text=derivative)]
    arts += [Article(id=f"o{i}", text=t) for i, t in enumerate(OTHERS)]
    return arts


def test_phrase_support_counts_other_articles_only() -> None:
    arts = _docs(SOURCE.replace("East Midlands", "Varkor Group"))
    support = CorpusSupport([prepare(a) for a in arts])
    east, varkor = bigram_hashes(["the", "east"]), bigram_hashes(["the", "varkor"])
    assert support.phrase_support(east, "src", "der").tolist() == [3]
    assert support.phrase_support(east, "o0", "o1").tolist() == [2]  # src and o2 left
    assert support.phrase_support(varkor, "src", "der").tolist() == [0]
    assert support.phrase_support(varkor, "src", "o0").tolist() == [1]  # der uses it
    assert support.phrase_support(np.array([], dtype=np.uint64), "a", "b").tolist() == []
    # stable across processes: the hash of a word pair is fixed
    assert int(bigram_hashes(["the", "east"])[0]) == int(bigram_hashes(["the", "east"])[0])
    assert len(bigram_hashes(words("one"))) == 0


def test_corpus_agreement_decides_the_direction_of_a_copy_with_a_swapped_name() -> None:
    der = SOURCE.replace("serving the East Midlands", "serving the Varkor Group").replace(
        "in the East Midlands faced", "in the Varkor Group faced"
    )
    arts = _docs(der)
    docs = fingerprint(arts[:2], Config(embedder="hashing"))
    support = CorpusSupport([prepare(a) for a in arts])
    src, d = docs
    al = align(src, d)
    # a name for a name is judged by name_votes, not by the word pairs around it
    assert wording_votes(src, d, al, support) == (0, 0)
    swaps = [("East Midlands", "Varkor Group")] * 2
    assert name_votes(src, d, al, support) == (swaps, [])
    assert name_votes(d, src, align(d, src), support) == ([], [(y, x) for x, y in swaps])
    rel = classify(src, d, al, support=support)
    assert rel is not None and rel.relation in ("copy", "duplicate")
    assert (rel.source, rel.derivative) == ("src", "der")
    swap = [e for e in rel.evidence if e.name == "name_swap"]
    assert swap and swap[0].weight > 0  # towards src, the first text, being the source
    assert "src names 'East Midlands' for 'Varkor Group'" in rel.direction_reason
    # without the other articles there is nothing to agree with: both mentions were
    # swapped, so neither name recurs in the texts
    alone = CorpusSupport([prepare(a) for a in arts[:2]])
    assert name_votes(src, d, al, alone) == ([], [])
    assert "name_swap" not in {e.name for e in classify(src, d, al, support=alone).evidence}


def test_a_swapped_mention_is_judged_by_the_mentions_left_in_the_texts() -> None:
    text = (
        "Fraud inquiry widens\n\nInvestigators led by Helen Okafor said on Tuesday that "
        "the fraud inquiry at the port authority would widen to three more firms. "
        "Ms Okafor said the firms had been told to keep their records. "
        "Okafor's team expects charges before the summer, the authority said."
    )
    der = text.replace("led by Helen Okafor", "led by Dario Velkanor")
    arts = [Article(id="a", text=der), Article(id="b", text=text)]
    da, db = fingerprint(arts, Config(embedder="hashing"))
    alone = CorpusSupport([prepare(x) for x in arts])
    al = align(da, db)
    # "Okafor" is named twice more in both texts; nothing else names Velkanor
    assert name_votes(da, db, al, alone) == ([], [("Dario Velkanor", "Helen Okafor")])
    rel = classify(da, db, al, support=alone)
    assert (rel.source, rel.derivative) == ("b", "a")
    # a real name for another real name, both named again: no evidence either way
    both = (
        text.replace("led by Helen Okafor", "led by Tom Reyes") + " Mr Reyes declined to comment."
    )
    both_src = text + " Mr Reyes declined to comment."
    arts = [Article(id="a", text=both), Article(id="b", text=both_src)]
    da, db = fingerprint(arts, Config(embedder="hashing"))
    sup = CorpusSupport([prepare(x) for x in arts])
    assert name_votes(da, db, align(da, db), sup) == ([], [])


ONE_NAME = (
    "Harbour dispute\n\nDockers at the northern terminal walked out on Friday, and "
    "talks led by Okafor broke down before noon, the port authority said. "
    "The union said pay had not kept pace with prices for three years."
)


def test_a_one_word_name_is_known_to_other_articles_only_beside_its_words_here() -> None:
    der = ONE_NAME.replace("led by Okafor", "led by Trump")
    # an unrelated article names the swapped-in word: in a large pile nearly every
    # surname does, so the word alone says nothing about which side put it in
    unrelated = Article(id="u", text="Markets rose after Trump spoke in Ohio on Thursday.")
    arts = [Article(id="src", text=ONE_NAME), Article(id="der", text=der), unrelated]
    src, d = fingerprint(arts[:2], Config(embedder="hashing"))
    al = align(src, d)
    sup = CorpusSupport([prepare(x) for x in arts])
    assert name_votes(src, d, al, sup) == ([], [])
    # another report of the story carries the source's name beside the same word
    other = Article(id="o", text="The talks led by Okafor will resume on Monday.")
    sup = CorpusSupport([prepare(x) for x in [*arts, other]])
    assert name_votes(src, d, al, sup) == ([("Okafor", "Trump")], [])
    rel = classify(src, d, al, support=sup)
    assert (rel.source, rel.derivative) == ("src", "der")
    # the name's word pairs used by an article, not the name alone: a pair with
    # another word beside it is no support
    elsewhere = Article(id="e", text="Okafor said the report would follow in May.")
    sup = CorpusSupport([prepare(x) for x in [*arts, elsewhere]])
    assert name_votes(src, d, al, sup) == ([], [])


def test_wording_votes_read_the_word_pairs_around_an_edit() -> None:
    der = SOURCE.replace("worst delays in the country", "worst delays the in country")
    arts = _docs(der) + [
        Article(id=f"w{i}", text=f"Fans said it was the best game in the country {t}.")
        for i, t in enumerate(("this year", "for years", "since May"))
    ]
    docs = fingerprint(arts[:2], Config(embedder="hashing"))
    support = CorpusSupport([prepare(a) for a in arts])
    src, d = docs
    assert wording_votes(src, d, align(src, d), support) == (1, 0)
    assert wording_votes(d, src, align(d, src), support) == (0, 1)


def test_context_fit_is_the_cosine_of_centroids() -> None:
    from unspin.classify import context_fit

    text = "\n\n".join(f"Sentence number {w} of this text." for w in ("one", "two", "3", "4"))
    doc = fingerprint([Article(id="x", text=text)], Config(embedder="hashing"))[0]
    v = np.zeros((4, 3), dtype=np.float32)
    v[0], v[1], v[2], v[3] = [1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]
    doc.sentence_vectors = v
    assert len(doc.sentences) == 4
    # passage {0}: centroid (1,0,0); the rest's centroid (1,1,1)/3: cosine 1/sqrt(3)
    assert abs(context_fit(doc, {0}) - 1 / np.sqrt(3)) < 1e-6
    assert context_fit(doc, {0, 1, 2, 3}) == 0.0  # nothing left to fit


LOWER_USERS = [
    f"The {w} said on {d} that the plan knows no limits and a gentleman would agree."
    for w, d in (("minister", "Monday"), ("mayor", "Tuesday"), ("council", "Friday"))
] + [
    "He knows the city well, the old gentleman told reporters late on Sunday.",
    "Everyone knows the gentleman who runs the shop, the paper said.",
    "Officials said Mayor Ken Livingstone knows the risks.",
]


def test_lower_only_tells_common_words_from_names() -> None:
    arts = [Article(id=f"o{i}", text=t) for i, t in enumerate(LOWER_USERS)]
    support = CorpusSupport([prepare(a) for a in arts])
    assert support.lower_only("knows", "x", "y")  # 6 lower case, never capitalised
    assert support.lower_only("gentleman", "x", "y")
    assert not support.lower_only("ken", "x", "y")  # a name: never lower case
    assert not support.lower_only("knows", "o0", "o1")  # 4 others: below 5
    # capitalised in prose by one article in twenty or fewer: still a common word
    capitalised = CorpusSupport(
        [prepare(a) for a in arts] + [prepare(Article(id="c", text="He met Knows Smith."))]
    )
    assert not capitalised.lower_only("knows", "x", "y")  # 1 capitalised vs 6 lower


def test_translated_names_and_split_names_count_against_the_round_trip() -> None:
    src_text = (
        "Mayor keeps his word\n\n"
        "London mayor Ken Livingstone said on Monday that James Bond films bring tourists.\n"
        "Labour's Mr Livingstone said the city would welcome visitors.\n"
        "He spoke at the Heineken Cup final."
    )
    der_text = (
        "Mayor keeps his word\n\n"
        "Mayor of London Knows Livingstone said the Monday that James next Bond films bring "
        "tourists.\nLabour Gentleman Livingstone said the city would welcome visitors.\n"
        "He spoke at the final of the Heineken meeting of Cup."
    )
    others = LOWER_USERS + [
        "The new James Bond film opens in London on Friday.",
        "Leicester won the Heineken Cup match at the weekend.",
    ]
    arts = [Article(id="src", text=src_text), Article(id="der", text=der_text)]
    arts += [Article(id=f"o{i}", text=t) for i, t in enumerate(others)]
    support = CorpusSupport([prepare(a) for a in arts])
    src, der = fingerprint(arts[:2], Config(embedder="hashing"))
    every_s = {s.index for s in src.sentences}
    every_d = {s.index for s in der.sentences}
    # "Knows" and "Gentleman": words other articles write lower case; the title is left out
    assert casing_slips(der, every_d, src, every_s, support) == 2
    assert casing_slips(src, every_s, der, every_d, support) == 0
    assert casing_slips(der, every_d, src, every_s, None) == 0  # no corpus, no evidence
    # "James Bond" and "Heineken Cup" are names other articles use; the round trip
    # has their words apart
    assert split_names(der, every_d, src, every_s, support) == 2
    assert split_names(src, every_s, der, every_d, support) == 0


def test_a_name_left_without_its_possessive_counts_against_that_side() -> None:
    src = Article(id="src", text="Peter Hain's plan was backed by Howard's team and Hain.")
    der = Article(id="der", text="Peter Hain plan was backed by the team of Howard and Hain.")
    s, d = fingerprint([src, der], Config(embedder="hashing"))
    all_s, all_d = {x.index for x in s.sentences}, {x.index for x in d.sentences}
    assert lost_possessives(d, all_d, s, all_s) == 2  # Hain's, Howard's
    assert lost_possessives(s, all_s, d, all_d) == 0


def test_name_and_casing_evidence_is_not_compared_across_languages() -> None:
    en = Article(id="en", text="Peter Hain's plan was backed by Howard's team on Monday.")
    es = Article(id="es", text="El plan de Peter Hain fue apoyado por el equipo de Howard.")
    a, b = fingerprint([en, es], Config(embedder="hashing"))
    a.lang, b.lang = "en", "es"  # too short for language ID: set as a reader would
    passage = AlignedPassage(0, len(en.text), 0, len(es.text), 0.9, 0.9, 0.2, [0], [0])
    al = Alignment("en", "es", [passage], {"verbatim": 0.0, "cov_a": 1.0, "cov_b": 1.0})
    support = CorpusSupport([prepare(x) for x in (en, es)])
    assert lost_possessives(b, {0}, a, {0}) == 2  # the count itself would fire
    src, der, reason, _ = direction(a, b, al, "partial", ClassifyParams(), support)
    assert src is None and "artefacts per 100 words" not in reason
    # the same texts in one language: the bare names count against that side
    b.lang = "en"
    src, der, reason, _ = direction(a, b, al, "partial", ClassifyParams(), support)
    assert (src, der) == ("en", "es") and "artefacts per 100 words" in reason


def test_split_names_are_read_sentence_by_sentence() -> None:
    # a title line without a full stop ends in a name, the next line opens with one: the
    # two are not a name, and the same lines in another order split nothing
    a = Article(id="a", text="Board meets in Paris\n\nLisbon officials agreed to the plan.")
    b = Article(id="b", text="Lisbon officials agreed to the plan.\n\nBoard meets in Paris")
    rally = Article(id="o", text="Crowds lined the route of the Paris Lisbon rally.")
    support = CorpusSupport([prepare(x) for x in (a, b, rally)])
    da, db = fingerprint([a, b], Config(embedder="hashing"))
    all_a, all_b = {s.index for s in da.sentences}, {s.index for s in db.sentences}
    assert len(all_a) == len(all_b) == 2
    assert split_names(db, all_b, da, all_a, support) == 0
    assert split_names(da, all_a, db, all_b, support) == 0
