"""Corpus support: which wording other articles agree with, and direction from it."""

from __future__ import annotations

import numpy as np

from unspin.align import align
from unspin.classify import classify, wording_votes
from unspin.corpus import CorpusSupport, bigram_hashes
from unspin.fingerprint import prepare
from unspin.model import Article
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
    assert wording_votes(src, d, al, support) == (2, 0)
    rel = classify(src, d, al, support=support)
    assert rel is not None and rel.relation in ("copy", "duplicate")
    assert (rel.source, rel.derivative) == ("src", "der")
    assert "other articles use src's wording" in rel.direction_reason
    # without the other articles there is nothing to agree with
    alone = CorpusSupport([prepare(a) for a in arts[:2]])
    assert wording_votes(src, d, al, alone) == (0, 0)
    assert "other articles" not in classify(src, d, al, support=alone).direction_reason


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
