"""Evaluation metrics on small cases whose expected values are worked out by hand."""

from __future__ import annotations

import math

import pytest

from unspin.evaluate.metrics import (
    PRF,
    accuracy_f1,
    adjusted_rand,
    bcubed,
    confusion,
    direction_accuracy,
    pair_prf,
    pairs_from_clusters,
    pearson_spearman,
    plagdet,
    relation_prf,
)

approx = pytest.approx


def test_pair_prf_is_order_free() -> None:
    gold = {("a", "b"), ("b", "c"), ("c", "d")}
    pred = {("b", "a"), ("c", "d"), ("d", "e"), ("a", "e")}
    # tp = {ab, cd} = 2, fp = {de, ae} = 2, fn = {bc} = 1
    # P = 2/4, R = 2/3, F1 = 2PR/(P+R) = (2/3)/(7/6) = 4/7
    got = pair_prf(gold, pred)
    assert (got.tp, got.fp, got.fn) == (2, 2, 1)
    assert (got.precision, got.recall, got.f1) == (approx(0.5), approx(2 / 3), approx(4 / 7))


def test_pair_prf_zero_denominators() -> None:
    assert pair_prf(set(), set()) == PRF(0.0, 0.0, 0.0, 0, 0, 0)
    assert pair_prf({("a", "b")}, set()) == PRF(0.0, 0.0, 0.0, 0, 0, 1)


def test_pairs_from_clusters() -> None:
    assert pairs_from_clusters({"c": 1, "a": 1, "b": 1, "d": 2}) == {
        ("a", "c"),
        ("b", "c"),
        ("a", "b"),
    }


def test_relation_prf_per_type_and_overall() -> None:
    gold = {("a", "b"): "copy", ("b", "c"): "spun", ("c", "d"): "translation"}
    gold[("d", "e")] = "same_story"
    pred = {("b", "a"): "copy", ("b", "c"): "copy", ("c", "d"): "translation"}
    pred |= {("e", "f"): "partial", ("d", "e"): "related"}
    got = relation_prf(gold, pred)
    # copy: gold {ab}, pred {ab, bc}: tp 1, fp 1, fn 0 -> P 1/2, R 1, F1 2/3
    assert got["copy"] == PRF(0.5, 1.0, approx(2 / 3), 1, 1, 0)
    # spun: gold {bc}, predicted as copy -> fn 1
    assert got["spun"] == PRF(0.0, 0.0, 0.0, 0, 0, 1)
    assert got["translation"] == PRF(1.0, 1.0, 1.0, 1, 0, 0)
    assert (got["partial"].fp, got["related"].fp, got["same_story"].fn) == (1, 1, 1)
    assert got["duplicate"] == PRF(0.0, 0.0, 0.0, 0, 0, 0)
    # typed: tp = 2 (ab copy, cd translation); fp = bc copy + ef partial + de related = 3;
    # fn = bc spun + de same_story = 2 -> P 2/5, R 2/4, F1 = 2(.4)(.5)/.9 = 4/9
    assert got["overall_typed"] == PRF(0.4, 0.5, approx(4 / 9), 2, 3, 2)
    # detected (reuse only): gold {ab, bc, cd}, pred {ab, bc, cd, ef}: P 3/4, R 1, F1 6/7
    assert got["overall_detected"] == PRF(0.75, 1.0, approx(6 / 7), 3, 1, 0)


def test_relation_prf_rejects_a_pair_given_both_ways_differently() -> None:
    with pytest.raises(ValueError, match="twice"):
        relation_prf({("a", "b"): "copy", ("b", "a"): "spun"}, {})


def test_confusion_with_none_for_missing_pairs() -> None:
    gold = {("a", "b"): "copy", ("b", "c"): "spun"}
    pred = {("b", "a"): "copy", ("c", "b"): "copy", ("c", "d"): "spun"}
    got = confusion(gold, pred, ["copy", "spun"])
    assert list(got) == ["copy", "spun", "none"]
    assert got["copy"] == {"copy": 1, "spun": 0, "none": 0}
    assert got["spun"] == {"copy": 1, "spun": 0, "none": 0}
    assert got["none"] == {"copy": 0, "spun": 1, "none": 0}
    assert sum(v for row in got.values() for v in row.values()) == 3  # pairs on either side
    with pytest.raises(ValueError, match="spun"):
        confusion(gold, pred, ["copy"])
    assert "translation" in confusion(gold, pred)  # default labels: all relations


def test_direction_accuracy_counts_undecided_as_wrong() -> None:
    gold = {("a", "b"): "a", ("b", "c"): "c", ("c", "d"): "d", ("d", "e"): "e"}
    pred = {("b", "a"): "a", ("b", "c"): "b", ("c", "d"): None, ("x", "y"): "x"}
    # right: ab; wrong: bc; undecided: cd (None), de (absent); xy not in gold
    assert direction_accuracy(gold, pred) == (0.25, 4, 2)
    assert direction_accuracy({}, {}) == (0.0, 0, 0)
    with pytest.raises(ValueError, match="not a member"):
        direction_accuracy({("a", "b"): "z"}, {})


def test_adjusted_rand() -> None:
    gold = {"1": "A", "2": "A", "3": "B", "4": "B"}
    assert adjusted_rand(gold, {"1": 7, "2": 7, "3": 8, "4": 8}) == approx(1.0)
    # contingency A-x 2, B-x 1, B-y 1: index = C(2,2) = 1; rows C(2,2)+C(2,2) = 2;
    # cols C(3,2)+C(1,2) = 3; expected = 2*3/C(4,2) = 1; max = (2+3)/2 = 2.5
    # ARI = (1 - 1) / (2.5 - 1) = 0
    assert adjusted_rand(gold, {"1": "x", "2": "x", "3": "x", "4": "y"}) == approx(0.0)


def test_bcubed() -> None:
    gold = {"1": "A", "2": "A", "3": "A", "4": "B", "5": "B"}
    pred = {"1": "x", "2": "x", "3": "y", "4": "y", "5": "y"}
    # precision per item: 1: 2/2, 2: 2/2, 3: 1/3, 4: 2/3, 5: 2/3 -> (11/3)/5 = 11/15
    # recall per item:    1: 2/3, 2: 2/3, 3: 1/3, 4: 2/2, 5: 2/2 -> (11/3)/5 = 11/15
    got = bcubed(gold, pred)
    assert (got.precision, got.recall, got.f1) == (approx(11 / 15),) * 3
    # "2" missing from pred is a singleton: P = (1 + 1)/2, R = (1/2 + 1/2)/2
    got = bcubed({"1": "A", "2": "A"}, {"1": "x"})
    assert (got.precision, got.recall) == (approx(1.0), approx(0.5))


def test_plagdet_hand_case() -> None:
    k = ("s", "t")  # (source doc, suspicious doc)
    cases = [(k, (0, 10), (100, 110)), (k, (50, 60), (200, 210))]
    dets = [
        (k, (0, 5), (100, 105)),  # detects case 1 ...
        (k, (5, 10), (105, 110)),  # ... and so does this: granularity 2
        (k, (20, 30), (300, 310)),  # detects nothing
        (("s", "u"), (0, 10), (100, 110)),  # other pair: detects nothing
    ]
    got = plagdet(cases, dets)
    # |S|: s (0,10)+(50,60) = 20, t (100,110)+(200,210) = 20 -> 40
    # |R|: s (0,10)+(20,30) = 20 (the other pair shares source doc s), t 5+5+10 = 20,
    #      u 10 -> 50
    # detected chars: s (0,10) = 10, t (100,110) = 10 -> 20
    # P = 20/50, R = 20/40, F1 = 2(.4)(.5)/.9 = 4/9, gran = 2, plagdet = (4/9)/log2(3)
    assert (got.precision, got.recall, got.f1) == (approx(0.4), approx(0.5), approx(4 / 9))
    assert got.granularity == 2.0
    assert got.plagdet == approx(4 / 9 / math.log2(3))
    assert (got.n_cases, got.n_detections, got.n_detected_cases) == (2, 4, 1)


def test_plagdet_edge_cases() -> None:
    case = [(("s", "t"), (3, 9), (0, 6), "none")]  # extra items (obfuscation) are ignored
    perfect = plagdet(case, case)
    assert (perfect.precision, perfect.recall, perfect.granularity, perfect.plagdet) == (1, 1, 1, 1)
    assert plagdet([], []).plagdet == 1.0
    missed = plagdet(case, [])
    assert (missed.precision, missed.recall, missed.granularity, missed.plagdet) == (0, 0, 1, 0)
    with pytest.raises(ValueError, match="range"):
        plagdet([(("s", "t"), (5, 2), (0, 1))], [])


def test_pearson_spearman() -> None:
    # dx = dy = (-1.5, -.5, .5, 1.5) up to order: sum dx*dy = 2.25-.25-.25+2.25 = 4,
    # sum dx^2 = sum dy^2 = 5 -> r = 0.8; the values are their own ranks -> rho = 0.8
    assert pearson_spearman([1, 2, 3, 4], [1, 3, 2, 4]) == (approx(0.8), approx(0.8))
    assert pearson_spearman([1, 2, 3], [1, 4, 9])[1] == approx(1.0)
    with pytest.raises(ValueError):
        pearson_spearman([1, 2], [1, 2, 3])


def test_accuracy_f1() -> None:
    gold = [True, True, False, False, True]
    pred = [True, False, False, True, True]
    # right at 0, 2, 4 -> 3/5; tp 2, fp 1, fn 1 -> P = R = F1 = 2/3
    assert accuracy_f1(gold, pred) == (approx(0.6), approx(2 / 3))
    with pytest.raises(ValueError):
        accuracy_f1([True], [])


def test_expand_duplicates_scores_a_star_as_every_pair() -> None:
    """A duplicate group output as a star (members to the representative) is scored
    as all its pairs, and a member inherits its representative's relations."""
    from unspin.evaluate.metrics import expand_duplicates
    from unspin.model import Relation

    rels = [
        Relation(a="m1", b="r", relation="duplicate", confidence=0.99),
        Relation(a="m2", b="r", relation="duplicate", confidence=0.99),
        Relation(a="r", b="x", relation="copy", confidence=0.9, source="r", derivative="x"),
        Relation(a="q", b="x", relation="related", confidence=0.6),
    ]
    got = {(r.a, r.b): r for r in expand_duplicates(rels)}
    assert {p for p, r in got.items() if r.relation == "duplicate"} == {
        ("m1", "r"),
        ("m2", "r"),
        ("m1", "m2"),
    }
    assert got[("m1", "x")].relation == "copy"
    assert (got[("m1", "x")].source, got[("m1", "x")].derivative) == ("m1", "x")
    assert got[("m2", "x")].source == "m2" and got[("r", "x")].source == "r"
    assert got[("q", "x")].relation == "related" and len(got) == 7
    assert expand_duplicates(rels[2:]) == rels[2:]
