"""Passage building in the aligner: quotations inside a block, bridged gaps, extended ends.

Sentence vectors are set by hand so each test controls the similarities it is about.
"""

from __future__ import annotations

import pytest
from helpers import doc_of, embed

from unspin.align import AlignParams, align
from unspin.model import Doc

# own sentences of each article: distinct topics, nothing in common
OWN_A = [
    "The council approved a new budget for the harbour district on Monday evening.",
    "Local traders said the parking charges would drive customers to the retail park.",
    "A public meeting about the library closures is planned for later this month.",
    "Residents near the old quarry have complained about dust from lorries for years.",
]
OWN_B = [
    "Heavy snow closed three mountain passes and stranded dozens of drivers overnight.",
    "The weather service expects temperatures to stay below freezing until the weekend.",
    "Schools in the valley will open two hours late while roads are cleared by crews.",
    "Ski resorts reported their busiest opening week in a decade after the storms.",
]
BLOCK = [
    "The ferry operator cancelled all crossings after talks with the union collapsed.",
    "Passengers were told to rebook online or ask for a refund at the terminal desk.",
    '"We regret the disruption and hope to resume services soon," said a spokesman.',
    "The union said its members had not been offered a fair deal on shift patterns.",
    "Freight hauliers warned that supermarket deliveries to the islands could be hit.",
]


def _block_pair(block_a: list[str], block_b: list[str]) -> tuple[Doc, Doc]:
    """A: two own sentences, the block, two own; B: three own, the block, one own."""
    a = doc_of("a", OWN_A[:2] + block_a + OWN_A[2:])
    b = doc_of("b", OWN_B[:3] + block_b + OWN_B[3:])
    return a, b


def test_a_quotation_inside_a_reused_block_stays_in_the_passage() -> None:
    a, b = _block_pair(BLOCK, BLOCK)
    embed(a, b, {(2 + k, 3 + k): 1.0 for k in range(len(BLOCK))})
    al = align(a, b)
    reuse = [x for x in al.passages if not x.quote_only]
    assert len(al.passages) == 1 and len(reuse) == 1
    x = reuse[0]
    assert x.a_sentences == [2, 3, 4, 5, 6] and x.b_sentences == [3, 4, 5, 6, 7]
    assert (x.a_start, x.a_end) == (a.sentences[2].start, a.sentences[6].end)
    # the quotation widens the passage but is no evidence of reuse by itself
    assert al.features["strong_sents"] == 4


def test_a_shared_quotation_alone_is_still_quote_only() -> None:
    a, b = _block_pair([BLOCK[2]], [BLOCK[2]])
    embed(a, b, {(2, 3): 1.0})
    al = align(a, b)
    assert len(al.passages) == 1 and al.passages[0].quote_only
    assert al.features["n_passages"] == 0


QUOTE = (
    '"This resolution is an unnecessary and dangerous attempt to weaken my constitutional '
    'authority, endangering the lives of our service members," '
)


@pytest.mark.parametrize(
    ("frame_a", "frame_b", "quote_only"),
    [
        # two writers' own frames: alike only in the speaker and the body they name
        (
            "President Trump said in a statement accompanying his Senate veto.",
            "President Trump wrote in explaining his Senate veto to Congress.",
            True,
        ),
        (
            "said Paul Lee, president of the ABC Entertainment Group, on Friday.",
            "said ABC Entertainment Group prexy Paul Lee in a news release.",
            True,
        ),
        # capitalised words each frame has alone do not make the rest more alike
        (
            "Downing Street would say only this on Friday.",
            "A Number 10 spokeswoman would only say this on Friday.",
            True,
        ),
        # the frame kept as written (a copy's, a spin's): reuse
        (
            "President Trump said in a statement accompanying his Senate veto.",
            "President Trump said in a statement accompanying his Senate veto.",
            False,
        ),
        (
            "President Trump said in a statement accompanying his Senate veto.",
            "President Trump said in a communique accompanying his Senate veto.",
            False,
        ),
    ],
)
def test_a_quotation_framed_by_two_writers_naming_one_speaker_is_quote_only(
    frame_a: str, frame_b: str, quote_only: bool
) -> None:
    a, b = _block_pair([QUOTE + frame_a], [QUOTE + frame_b])
    embed(a, b, {(2, 3): 1.0})
    al = align(a, b)
    assert len(al.passages) == 1 and al.passages[0].quote_only is quote_only


def _garbled(gap_cos: float, params: AlignParams | None = None):
    """The block with its middle two sentences garbled (cosine ``gap_cos`` facing)."""
    a, b = _block_pair(BLOCK, BLOCK)
    pairs = {(2 + k, 3 + k): 1.0 for k in (0, 1, 4)}
    pairs |= {(2 + k, 3 + k): gap_cos for k in (2, 3)}
    embed(a, b, pairs)
    return align(a, b, params)


def test_a_garbled_stretch_inside_a_block_is_bridged() -> None:
    al = _garbled(0.5, AlignParams(bridge_chars=0, extend_score=0.9))
    assert [(x.a_sentences, x.b_sentences) for x in al.passages] == [([2, 3, 6], [3, 4, 7])]
    x = al.passages[0]  # the span covers the bridged sentences
    assert x.a_start == len(" ".join(OWN_A[:2])) + 1
    assert x.a_end == len(" ".join(OWN_A[:2] + BLOCK))


def test_an_unrelated_gap_of_two_sentences_is_not_bridged() -> None:
    al = _garbled(0.1, AlignParams(bridge_chars=0, extend_score=0.9))
    assert [(x.a_sentences, x.b_sentences) for x in al.passages] == [
        ([2, 3], [3, 4]),
        ([6], [7]),
    ]


def test_a_short_gap_is_bridged_whatever_its_shape() -> None:
    a = doc_of("a", OWN_A[:2] + BLOCK[:2] + ["It was chaos at the port."] + BLOCK[3:] + OWN_A[2:])
    b = doc_of(
        "b", OWN_B[:3] + BLOCK[:2] + ["Queues grew.", "Tempers frayed."] + BLOCK[3:] + OWN_B[3:]
    )
    embed(a, b, {(2, 3): 1.0, (3, 4): 1.0, (5, 7): 1.0, (6, 8): 1.0})
    al = align(a, b, AlignParams(extend_score=0.9))
    assert [(x.a_sentences, x.b_sentences) for x in al.passages] == [([2, 3, 5, 6], [3, 4, 7, 8])]
    al = align(a, b, AlignParams(extend_score=0.9, bridge_chars=5))
    assert len(al.passages) == 2


def test_a_garbled_last_sentence_extends_the_passage_but_is_not_evidence() -> None:
    garbled = "Lorry firms say the food to the isles can be struck by it."
    a, b = _block_pair(BLOCK, BLOCK[:4] + [garbled])
    pairs = {(2 + k, 3 + k): 1.0 for k in range(4)} | {(6, 7): 0.7}
    embed(a, b, pairs)
    al = align(a, b, AlignParams(max_gap=0, bridge_gap=0))
    assert [(x.a_sentences, x.b_sentences) for x in al.passages] == [
        ([2, 3, 4, 5, 6], [3, 4, 5, 6, 7])
    ]
    assert al.features["strong_sents"] == 3  # 4 accepted, one of them a quotation
    # below the extension threshold the block ends where the accepted matches end
    al = align(a, b, AlignParams(max_gap=0, bridge_gap=0, extend_score=0.75))
    assert [x.a_sentences for x in al.passages] == [[2, 3, 4, 5]]


def test_strong_verbatim_reads_the_strong_sentences_own_wording() -> None:
    # one sentence kept word for word, its neighbour reworded: the passage holds both, the
    # evidence is the one sentence, and its wording is what a one-sentence claim reads
    reworded = "Travellers could rebook on the website or get their money back at the port."
    a, b = _block_pair(BLOCK[:2], [BLOCK[0], reworded])
    embed(a, b, {(2, 3): 1.0, (3, 4): 0.7})
    al = align(a, b, AlignParams(max_gap=0, bridge_gap=0))
    assert [(x.a_sentences, x.b_sentences) for x in al.passages] == [([2, 3], [3, 4])]
    assert al.features["strong_sents"] == 1
    assert al.features["strong_verbatim"] == 1.0
    assert al.features["verbatim"] < 0.7
    # reworded, the one strong sentence shows it
    own = "All ferry crossings were called off by the operator once union talks broke down."
    a, b = _block_pair(BLOCK[:2], [own, reworded])
    embed(a, b, {(2, 3): 1.0, (3, 4): 0.7})
    al = align(a, b, AlignParams(max_gap=0, bridge_gap=0))
    assert al.features["strong_sents"] == 1
    assert al.features["strong_verbatim"] < 0.3


def test_a_sentence_the_page_repeats_is_one_piece_of_evidence() -> None:
    # scrapes that double each line: both copies match, one sentence of evidence (two
    # distinct ones still count two)
    a, b = _block_pair([BLOCK[0], BLOCK[0]], [BLOCK[0], BLOCK[0]])
    embed(a, b, {(2, 3): 1.0, (3, 4): 1.0})
    al = align(a, b, AlignParams(max_gap=0, bridge_gap=0))
    assert al.features["strong_sents"] == 1
    a, b = _block_pair([BLOCK[0], BLOCK[1]], [BLOCK[0], BLOCK[1]])
    embed(a, b, {(2, 3): 1.0, (3, 4): 1.0})
    assert align(a, b, AlignParams(max_gap=0, bridge_gap=0)).features["strong_sents"] == 2


def test_params_are_validated() -> None:
    with pytest.raises(ValueError):
        AlignParams(extend_score=0.3)
    with pytest.raises(ValueError):
        AlignParams(max_gap=2, bridge_gap=1)


def test_passage_means_in_python_are_numpys_to_the_last_bit() -> None:
    """The aligner's weighted means and sums without arrays give numpy's values exactly
    (np.average by rows, np.average and np.mean of a list: pairwise summation)."""
    import numpy as np

    from unspin.align import _weighted_means
    from unspin.normalise import np_sum

    rng = np.random.default_rng(11)
    for n in [*range(1, 20), 64, 127, 128, 129, 300]:
        for _ in range(5):
            g = [(0, 0, *map(float, rng.random(3) * 10 ** rng.uniform(-3, 1)), False, True)
                 for _ in range(n)]  # fmt: skip
            wts = [int(w) for w in rng.integers(1, 3000, n)]
            want = np.average(np.array([x[2:5] for x in g]), axis=0, weights=wts)
            assert _weighted_means(g, wts) == tuple(float(v) for v in want)
            xs = [x[2] for x in g]
            assert np_sum(xs) == float(np.sum(np.array(xs)))
            assert np_sum(xs) / n == float(np.mean(xs))


def test_lexical_near_equals_the_matrix_where_near(monkeypatch):
    """The pair-by-pair lexical overlap of the sentence pairs above the prefilter gives
    the very float64 bytes of the sparse product's matrix there (and 0.0 elsewhere):
    repeated tokens, empty sentences, no near pair, every pair near, and both paths
    (few near pairs: intersections; many: the product)."""
    import random

    import numpy as np

    from unspin import align as al

    rnd = random.Random(5)
    words_ = [f"w{k}" for k in range(40)]

    def text(n):
        return [[rnd.choice(words_) for _ in range(rnd.choice([0, 1, 3, 8, 15]))] for _ in range(n)]

    rng = np.random.default_rng(5)
    for t in range(80):
        ta, tb = text(rnd.randint(1, 30)), text(rnd.randint(1, 30))
        share = [0.0, 0.05, 0.5, 1.0][t % 4]
        near = rng.random((len(ta), len(tb))) < share
        want = np.where(near, al._lexical_matrix(ta, tb), 0.0)
        for cap in (al.LEX_PAIRWISE_MAX, 0, 7):
            monkeypatch.setattr(al, "LEX_PAIRWISE_MAX", cap)
            got = al._lexical_near(ta, tb, near)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == want.tobytes(), (t, cap)


def test_lexical_near_fails_when_it_counts_repeated_tokens():
    """The check above can fail: counting a repeated token twice (a list, not a set)
    gives another value than the matrix, which counts distinct tokens."""
    import numpy as np

    from unspin import align as al

    ta, tb = [["a", "a", "b"]], [["a", "a", "c"]]
    near = np.ones((1, 1), dtype=bool)
    assert al._lexical_near(ta, tb, near)[0, 0] == al._lexical_matrix(ta, tb)[0, 0] == 0.5
    assert al._lexical_sets(set(ta[0]), set(tb[0])) == 0.5


def test_in_order_chain_counts_both_texts_sentences_on_one_chain() -> None:
    from unspin.align import chain_features, in_order_chain

    one = list(range(8))
    assert in_order_chain([], one, one) == []
    assert in_order_chain([(0, 0), (1, 1), (2, 2)], one, one) == [(0, 0), (1, 1), (2, 2)]
    # a sentence split in two: both parts on the chain
    assert len(in_order_chain([(0, 0), (1, 1), (1, 2), (2, 3)], one, one)) == 4
    # the same facts in another order: the longest chain holds two of four
    assert len(in_order_chain([(0, 2), (1, 0), (2, 3), (3, 1)], one, one)) == 2
    # a line printed twice is one unit: its copies' matches are one point
    assert in_order_chain([(0, 0), (1, 0), (2, 1)], [0, 0, 1], one) == [(0, 0), (1, 1)]

    a = doc_of("a", ["One fact is here.", "Another fact is there.", "A third fact too."])
    b = doc_of("b", ["Uno está aquí.", "Otro está allá.", "Un tercero también.", "Y un cuarto."])
    got = chain_features(a, b, [(0, 0, 0.8, 0.8, 0.0), (1, 1, 0.5, 0.5, 0.0)], 0.75)
    assert got == {"chain": 0.5, "chain_sents": 2.0, "chain_strong": 1.0, "chain_min": 0.5}
