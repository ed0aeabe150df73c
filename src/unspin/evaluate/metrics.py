"""Evaluation metrics: standard definitions as pure functions over plain Python data.

Pairs are unordered: every function normalises ``(a, b)`` to ``(min, max)``, so gold and
predictions may name a pair either way round. A ratio with a zero denominator is 0.0 (like
scikit-learn's ``zero_division=0``); the counts kept on :class:`PRF` show when that happened.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from scipy import stats
from sklearn.metrics import adjusted_rand_score

from unspin.model import RELATIONS, REUSE_RELATIONS, Relation

Pair = tuple[str, str]
#: a half-open character range ``(start, end)``
Range = tuple[int, int]
#: label for "no relation" in :func:`confusion`
NONE = "none"
V = TypeVar("V")


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1, with the counts they came from (0 where not applicable)."""

    precision: float
    recall: float
    f1: float
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @classmethod
    def from_counts(cls, tp: int, fp: int, fn: int) -> PRF:
        p, r = _div(tp, tp + fp), _div(tp, tp + fn)
        return cls(p, r, _f1(p, r), tp, fp, fn)


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def pair_key(a: str, b: str) -> Pair:
    """The order-free key of a pair."""
    return (a, b) if a <= b else (b, a)


def expand_duplicates(relations: Sequence[Relation]) -> list[Relation]:
    """The relations as if every pair had been scored on its own: a scan gives each
    member of an exact-duplicate group one ``duplicate`` relation to the group's
    representative and lets the representative's relations to other articles stand
    for the group (docs/schema.md). Here the groups are the transitive closure of the
    ``duplicate`` relations: every pair inside a group is a ``duplicate`` (the first
    stored record of the group's, ids put in), and every relation of a group member
    with another article holds for each member (ids, ``source`` and ``derivative`` put
    in; the evidence offsets stay the representative's). So pair-level scores measure
    what they measured when every pair was a record."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x

    dups = [r for r in relations if r.relation == "duplicate"]
    for r in dups:
        ra, rb = find(r.a), find(r.b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    if not dups:
        return list(relations)
    group: dict[str, list[str]] = defaultdict(list)
    for x in sorted({i for r in dups for i in (r.a, r.b)}):
        group[find(x)].append(x)
    ids_of = {x: ids for ids in group.values() for x in ids}

    def members(x: str) -> list[str]:
        return ids_of.get(x, [x])

    out: dict[Pair, Relation] = {pair_key(r.a, r.b): r for r in dups}
    first: dict[str, Relation] = {}
    for r in dups:
        first.setdefault(find(r.a), r)
    for root, ids in group.items():
        for i, x in enumerate(ids):
            for y in ids[i + 1 :]:
                if (x, y) not in out:
                    out[(x, y)] = dataclasses.replace(
                        first[root], a=x, b=y, source=None, derivative=None
                    )
    for r in relations:
        if r.relation == "duplicate":
            continue
        for x in members(r.a):
            for y in members(r.b):
                key = pair_key(x, y)
                if key in out:
                    continue
                side = {r.a: x, r.b: y}
                out[key] = dataclasses.replace(
                    r,
                    a=key[0],
                    b=key[1],
                    source=side.get(r.source) if r.source else None,
                    derivative=side.get(r.derivative) if r.derivative else None,
                )
    return [out[k] for k in sorted(out)]


def _pair_map(m: Mapping[Pair, V]) -> dict[Pair, V]:
    """Normalise the keys of a pair mapping; a pair given both ways must agree."""
    out: dict[Pair, V] = {}
    for (a, b), v in m.items():
        k = pair_key(a, b)
        if k in out and out[k] != v:
            raise ValueError(f"pair {k} given twice with different values: {out[k]!r}, {v!r}")
        out[k] = v
    return out


def pair_prf(gold: Iterable[Pair], pred: Iterable[Pair]) -> PRF:
    """Precision/recall/F1 of predicted pairs against gold pairs (unordered)."""
    g = {pair_key(a, b) for a, b in gold}
    p = {pair_key(a, b) for a, b in pred}
    tp = len(g & p)
    return PRF.from_counts(tp, len(p) - tp, len(g) - tp)


def pairs_from_clusters(labels: Mapping[str, Hashable]) -> set[Pair]:
    """All within-cluster pairs of a clustering (for pairwise scoring, as NEWS-COPY does)."""
    members: dict[Hashable, list[str]] = defaultdict(list)
    for i, c in labels.items():
        members[c].append(i)
    return {
        pair_key(a, b) for ids in members.values() for n, a in enumerate(ids) for b in ids[n + 1 :]
    }


def relation_prf(
    gold: Mapping[Pair, str],
    pred: Mapping[Pair, str],
    relations: Sequence[str] = RELATIONS,
    reuse: Sequence[str] = REUSE_RELATIONS,
) -> dict[str, PRF]:
    """Per-relation PRF plus two overall scores.

    For type ``T`` a pair is a true positive only if gold and prediction both say ``T``; a
    pair missing on one side counts as "none". ``overall_typed`` sums the per-type counts
    over ``relations`` (micro average: the type must match). ``overall_detected`` asks only
    whether a pair with a ``reuse`` relation in gold was predicted with any ``reuse``
    relation (detection, type ignored). Labels outside ``relations`` are not scored per type.
    """
    g, p = _pair_map(gold), _pair_map(pred)
    out: dict[str, PRF] = {}
    for t in relations:
        out[t] = pair_prf((k for k, v in g.items() if v == t), (k for k, v in p.items() if v == t))
    tp, fp, fn = (sum(getattr(out[t], c) for t in relations) for c in ("tp", "fp", "fn"))
    out["overall_typed"] = PRF.from_counts(tp, fp, fn)
    out["overall_detected"] = pair_prf(
        (k for k, v in g.items() if v in reuse), (k for k, v in p.items() if v in reuse)
    )
    return out


def confusion(
    gold: Mapping[Pair, str], pred: Mapping[Pair, str], labels: Sequence[str] | None = None
) -> dict[str, dict[str, int]]:
    """Confusion counts ``[gold label][predicted label]`` over all pairs on either side.

    A pair missing on one side has the label ``"none"`` there (the none/none cell stays 0:
    unlisted pairs are not counted). ``labels`` default to :data:`RELATIONS` plus any other
    label seen; a label outside an explicit ``labels`` raises ``ValueError``.
    """
    g, p = _pair_map(gold), _pair_map(pred)
    seen = set(g.values()) | set(p.values())
    if labels is None:
        labels = [*RELATIONS, *sorted(seen - set(RELATIONS) - {NONE})]
    names = [*labels, *([] if NONE in labels else [NONE])]
    unknown = seen - set(names)
    if unknown:
        raise ValueError(f"labels not in the label list: {', '.join(sorted(unknown))}")
    out = {a: dict.fromkeys(names, 0) for a in names}
    for k in g.keys() | p.keys():
        out[g.get(k, NONE)][p.get(k, NONE)] += 1
    return out


def direction_accuracy(
    gold: Mapping[Pair, str], pred: Mapping[Pair, str | None]
) -> tuple[float, int, int]:
    """``(accuracy, n, n_undecided)`` of source attribution over the gold pairs.

    ``gold`` maps a pair to its true source id, ``pred`` to the predicted one or ``None``.
    A gold pair without a decision (``None`` or absent) counts as wrong and is also
    reported in ``n_undecided``; predictions for pairs outside gold are ignored.
    """
    g, p = _pair_map(gold), _pair_map(pred)
    correct = undecided = 0
    for k, src in g.items():
        if src not in k:
            raise ValueError(f"gold source {src!r} is not a member of pair {k}")
        guess = p.get(k)
        if guess is None:
            undecided += 1
        correct += guess == src
    return _div(correct, len(g)), len(g), undecided


@dataclass(frozen=True)
class _Singleton:
    """Cluster label for an item missing from a clustering (equal to no other label)."""

    id: str


def _codes(ids: Sequence[str], labels: Mapping[str, Hashable]) -> list[int]:
    """Labels of ``ids`` as integers; an id without a label gets a cluster of its own."""
    codes: dict[Hashable, int] = {}
    return [codes.setdefault(labels[i] if i in labels else _Singleton(i), len(codes)) for i in ids]


def adjusted_rand(
    gold_labels: Mapping[str, Hashable], pred_labels: Mapping[str, Hashable]
) -> float:
    """Adjusted Rand index over the gold ids (ids missing from ``pred`` are singletons)."""
    ids = list(gold_labels)
    return float(adjusted_rand_score(_codes(ids, gold_labels), _codes(ids, pred_labels)))


def bcubed(gold_labels: Mapping[str, Hashable], pred_labels: Mapping[str, Hashable]) -> PRF:
    """B-cubed precision, recall and F1 (Bagga & Baldwin 1998), averaged over the gold ids.

    Per item: precision = |pred cluster ∩ gold cluster| / |pred cluster|, recall the same
    over |gold cluster|. Ids missing from ``pred`` are singletons; PRF counts are 0.
    """
    ids = list(gold_labels)
    g, p = _codes(ids, gold_labels), _codes(ids, pred_labels)
    both, gs, ps = Counter(zip(g, p)), Counter(g), Counter(p)
    prec = _div(sum(both[x, y] / ps[y] for x, y in zip(g, p)), len(ids))
    rec = _div(sum(both[x, y] / gs[x] for x, y in zip(g, p)), len(ids))
    return PRF(prec, rec, _f1(prec, rec))


@dataclass(frozen=True)
class Plagdet:
    """PAN text-alignment scores (micro-averaged character precision and recall)."""

    precision: float
    recall: float
    f1: float
    granularity: float
    plagdet: float
    n_cases: int
    n_detections: int
    n_detected_cases: int


def _range(r: Sequence[int]) -> Range:
    start, end = int(r[0]), int(r[1])
    if not 0 <= start <= end:
        raise ValueError(f"bad character range {tuple(r)}: need 0 <= start <= end")
    return start, end


def _overlap(a: Range, b: Range) -> Range | None:
    start, end = max(a[0], b[0]), min(a[1], b[1])
    return (start, end) if start < end else None


def _sides(key: Any) -> tuple[Hashable, Hashable]:
    """Document keys of the source and suspicious side of a pair key."""
    if isinstance(key, tuple) and len(key) == 2:
        return ("src", key[0]), ("susp", key[1])
    return ("src", key), ("susp", key)


def _n_chars(passages: Iterable[tuple[Any, Range, Range]]) -> int:
    """Number of distinct characters (document, offset) covered by the passages."""
    spans: dict[Hashable, list[Range]] = defaultdict(list)
    for key, src, susp in passages:
        src_doc, susp_doc = _sides(key)
        spans[src_doc].append(src)
        spans[susp_doc].append(susp)
    total = 0
    for ranges in spans.values():
        end = -1
        for s, e in sorted(ranges):
            s = max(s, end)
            if e > s:
                total, end = total + e - s, e
    return total


def plagdet(gold_cases: Iterable[Sequence[Any]], detections: Iterable[Sequence[Any]]) -> Plagdet:
    """PAN's plagdet = F1 / log2(1 + granularity) (Potthast et al. 2010, micro-averaged).

    Cases and detections are ``(pair_key, src_range, susp_range)`` (extra items ignored);
    ``pair_key`` is ``(source doc id, suspicious doc id)``, ranges are half-open character
    offsets. A detection *detects* a case if both are for the same pair and overlap on the
    source and the suspicious side. Characters are (document, offset) references on both
    sides, so with S the cases and R the detections::

        precision = |U{s ∩ r : r detects s}| / |U R|,   recall = |U{s ∩ r : r detects s}| / |U S|
        granularity = mean over detected cases of the number of detections detecting it

    (1 when nothing is detected). No cases and no detections scores 1 throughout, as PAN's
    ``perfmeasures.py`` does.
    """
    cases = [(c[0], _range(c[1]), _range(c[2])) for c in gold_cases]
    dets = [(d[0], _range(d[1]), _range(d[2])) for d in detections]
    if not cases and not dets:
        return Plagdet(1.0, 1.0, 1.0, 1.0, 1.0, 0, 0, 0)
    by_pair: dict[Any, list[tuple[Any, Range, Range]]] = defaultdict(list)
    for d in dets:
        by_pair[d[0]].append(d)
    found: list[tuple[Any, Range, Range]] = []
    n_detected = n_hits = 0
    for key, src, susp in cases:
        hits = 0
        for _, d_src, d_susp in by_pair.get(key, ()):
            o_src, o_susp = _overlap(src, d_src), _overlap(susp, d_susp)
            if o_src and o_susp:
                hits += 1
                found.append((key, o_src, o_susp))
        n_detected += hits > 0
        n_hits += hits
    true_chars = _n_chars(found)
    prec, rec = _div(true_chars, _n_chars(dets)), _div(true_chars, _n_chars(cases))
    gran = n_hits / n_detected if n_detected else 1.0
    f1 = _f1(prec, rec)
    return Plagdet(prec, rec, f1, gran, f1 / math.log2(1 + gran), len(cases), len(dets), n_detected)


def pearson_spearman(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """Pearson r and Spearman rho of two equally long score lists (STS's official measures)."""
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"need two equally long lists of >= 2 scores, got {len(x)} and {len(y)}")
    return float(stats.pearsonr(x, y)[0]), float(stats.spearmanr(x, y)[0])


def accuracy_f1(gold: Sequence[bool], pred: Sequence[bool]) -> tuple[float, float]:
    """Accuracy and F1 of the positive class for binary labels (MRPC's official measures)."""
    if len(gold) != len(pred):
        raise ValueError(f"gold has {len(gold)} labels but pred has {len(pred)}")
    g, p = [bool(v) for v in gold], [bool(v) for v in pred]
    tp = sum(a and b for a, b in zip(g, p))
    fp = sum(b and not a for a, b in zip(g, p))
    fn = sum(a and not b for a, b in zip(g, p))
    return _div(sum(a == b for a, b in zip(g, p)), len(g)), PRF.from_counts(tp, fp, fn).f1
