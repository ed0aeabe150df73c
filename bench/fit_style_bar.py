"""Choose ``model_style``'s weight and ``ClassifyParams.decider_bar`` on the pooled tuning
rewrites, with a cross-validation grouped by source article; the two simple baselines
beside it, tuned on the same rows.

The decider rule (``unspin.evidence.direction_score``): the graded style evidence (the
difference of the two texts' calibrated style probabilities, +: the second text reads
more model-written) is added with weight ``w`` to the weighted sum of the other direction
evidence only when that sum is under ``bar`` in magnitude. This script reads, for every
labelled pair of the given eval outputs (``pairs.jsonl`` of ``cached_eval.py ... routes``
and of ``eval_pac_rewrites.py``), the other evidence's values as recorded and weighs them
with the shipped weights; the style of each text comes from the shipped style model, or,
for the style model's own training texts (the routes-tune set), out of fold (``--oof``,
written by ``bench/fit_model_style.py``), since the shipped model reads its training
rewrites 0.96-0.99.

Rows: the model-written rewrites of every set given (undecided and not found count
wrong) and, as a constraint, the machine-made derivatives (MT round trips, the thesaurus
spinner, one-way translations) of the routes sets. A (bar, w) is chosen by right minus
wrong on the rewrites among those that lose no machine-made pair that was right, ties
to the one that touches the fewest machine-made pairs, then the smaller weight and bar.
The cross-validation repeats that choice on four fifths of the source articles and reads
the fifth (five seeds of the grouping).

``--gate NAMES`` (a what-if, session 15): the style also speaks above the bar, with its own
weight ``w_hi``, on pairs where the named evidence (e.g. ``artefacts``: what holds the MT
round trips) weighs under a threshold ``t`` (nothing says the pair is machine-made); at the
shipped bar and weight, ``(t, w_hi)`` are chosen by the same criterion, per fold.

``--refit`` (a what-if, session 15 ``dirlearn``): ``model_style`` as an ordinary weighted
evidence (always added where it speaks, no bar) and every direction weight re-chosen by a
coordinate search (each weight on a grid of multiples of its shipped value, the style's on
an absolute grid; three sweeps from the shipped weights) with the criterion: fewest
machine-made pairs lost that the shipped rule gets right, then right minus wrong on the
rewrites, then the smallest change from the shipped weights. Read out of fold in the
grouped 5-fold CV and leaving one set out (the honest test of "carries to other news");
a second variant re-chooses only the style's weight.

``--two-stage`` (session 16, shipped): the two-stage rule of ``direction_score``: where the
weighted mass of the machine evidence is under ``machine_bar`` and one text reads
model-written (``lead_written``), a style gap of at least ``lead_min`` leads with
``lead_weight``; elsewhere the decider rule. The names, bar, lead_min, weight and written bar
are chosen on a grid (:func:`choose_two_stage`), with every machine-made pair the decider rule
gets right kept at a score of at least min(1, its decider score), and read out of fold in the
grouped 5-fold CV (``--oof ''`` where no text trained the style model).

Usage: PYTHONPATH=src:bench .venv/bin/python bench/fit_style_bar.py \\
           --routes /work/deriv3/routes-tune TUNE_OUT/pairs.jsonl \\
           --routes /work/deriv3/routes-held HELD_OUT/pairs.jsonl \\
           --pac PAC_OUT/pairs.jsonl [--rewrites-pac /work/rewrites-pac] \\
           [--routes /work/rewrites2/set RW2_OUT/pairs.jsonl] \\
           [--oof /work/mstyle-train/oof.json] [--evidence-table] [--without NAME,...] \\
           [--gate NAME,... [--gate NAME,...]] [--two-stage]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from fit_model_style import oof_key

from unspin.classify import ClassifyParams
from unspin.evidence import model_style, style_logit
from unspin.normalise import words

#: kinds of machine-made derivatives the rule must not lose
MACHINE = ("mt_", "synonym", "oneway")
BARS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)
WEIGHTS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0)


@dataclass
class Row:
    """One labelled pair as the rule sees it."""

    set: str
    kind: str
    group: str  # the source article (the cross-validation's group)
    truth: int  # +1: the pair's first text is the source
    found: bool  # any relation given
    typed: str | None
    rest: float  # the weighted sum of the other direction evidence (shipped weights)
    pa: float | None  # style probabilities of the two texts
    pb: float | None
    len_src: int  # words of the source and of the derivative (the length baseline)
    len_der: int
    ev: dict[str, float] = field(default_factory=dict)  # the other direction evidence's values
    lenratio: float = 1.0  # shorter over longer text, in characters (the typing feature)

    @property
    def rewrite(self) -> bool:
        return not self.kind.startswith(MACHINE)


def group_folds(groups: list[str], seed: int, k: int = 5) -> dict[str, int]:
    """Each source group's fold of a ``k``-fold cross-validation grouped by source,
    shuffled by ``seed`` (a source and its derivatives always in one fold)."""
    g = list(groups)
    random.Random(seed).shuffle(g)
    return {x: i % k for i, x in enumerate(g)}


def _values(evidence: list[dict], p: ClassifyParams) -> dict[str, float]:
    """The recorded values of the pair's direction evidence other than the deciders."""
    return {
        e["name"]: e["value"]
        for e in evidence
        if e["stage"] == "direction"
        and e["name"] in p.direction_evidence
        and e["name"] not in p.decider_evidence
    }


def _rest(evidence: list[dict], p: ClassifyParams) -> float:
    w = dict(zip(p.direction_evidence, p.direction_weights))
    return sum(w[k] * v for k, v in _values(evidence, p).items())


def _lenratio(a: str, b: str) -> float:
    """The typing feature ``lenratio`` of two texts (shorter over longer, in characters)."""
    return min(len(a), len(b)) / max(len(a), len(b), 1)


def routes_rows(folder: Path, pairs: Path, oof: dict, p: ClassifyParams) -> list[Row]:
    """The labelled pairs of a ``cached_eval.py ... routes`` output."""
    text = {}
    for line in open(folder / "articles.jsonl", encoding="utf-8"):
        r = json.loads(line)
        text[r["id"]] = r["text"]

    def style(t: str) -> float | None:
        return oof[oof_key(t)] if oof_key(t) in oof else model_style(t)

    out = []
    for line in open(pairs, encoding="utf-8"):
        r = json.loads(line)
        if not r.get("kind"):
            continue
        der = r["b"] if r["source"] == r["a"] else r["a"]
        out.append(
            Row(
                set=folder.parent.name if folder.name == "set" else folder.name,
                kind=r["kind"],
                group=r["source"],
                truth=1 if r["source"] == r["a"] else -1,
                found=r.get("predicted") is not None,
                typed=r.get("predicted"),
                rest=_rest(r.get("evidence") or [], p),
                ev=_values(r.get("evidence") or [], p),
                pa=style(text[r["a"]]),
                pb=style(text[r["b"]]),
                len_src=len(words(text[r["source"]])),
                len_der=len(words(text[der])),
                lenratio=_lenratio(text[r["a"]], text[r["b"]]),
            )
        )
    return out


def pac_rows(pairs: Path, rewrites: Path, p: ClassifyParams) -> list[Row]:
    """The rewrite/source pairs of an ``eval_pac_rewrites.py`` output."""
    import eval_pac_rewrites as epr

    pile = epr.build_pile(epr.read_jsonl(epr.shared_pac()), rewrites, dates=False)
    text = {a.id: a.text for a in pile.articles}
    out = []
    for line in open(pairs, encoding="utf-8"):
        r = json.loads(line)
        if r["kind"] != "rewrite-source":
            continue
        rel = r.get("relation") or {}
        der = r["a"] if r["a"] in pile.labels else r["b"]
        lab = pile.labels[der]
        out.append(
            Row(
                set="pac",
                kind="pac_" + lab["style"],
                group="pac:" + lab["source"],
                truth=1 if lab["source"] == r["a"] else -1,
                found=bool(rel),
                typed=rel.get("relation"),
                rest=_rest(rel.get("evidence") or [], p),
                ev=_values(rel.get("evidence") or [], p),
                pa=model_style(text[r["a"]]),
                pb=model_style(text[r["b"]]),
                len_src=len(words(text[lab["source"]])),
                len_der=len(words(text[der])),
                lenratio=_lenratio(text[r["a"]], text[r["b"]]),
            )
        )
    return out


def rule(r: Row, bar: float, w: float) -> float:
    """The direction score under the decider rule (as ``direction_score``)."""
    if (
        r.typed != "spun"
        or r.pa is None
        or r.pb is None
        or r.kind.startswith("oneway")  # across languages: the evidence is silent
        or abs(r.rest) >= bar
    ):
        return r.rest
    return r.rest + w * (r.pb - r.pa)


#: the gate's thresholds (weighted mass of the gate evidence at which a pair reads
#: machine-made) and the style's weights above the bar where the gate is open
GATE_T = (0.0, 0.25, 0.5, 1.0, 2.0, 3.0)
WEIGHTS_HI = (2.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0)


@dataclass(frozen=True)
class Gate:
    """The style above the bar: where the gate evidence's weighted mass on the pair is
    under ``t`` (nothing says the pair is machine-made), the style is added with weight
    ``w_hi`` whatever the rest says; elsewhere the decider rule (bar, w) as shipped."""

    names: tuple[str, ...]
    t: float
    w_hi: float


def machine_mass(r: Row, names: tuple[str, ...], p: ClassifyParams) -> float:
    """The weighted mass (shipped weights) of the gate evidence on the pair."""
    w = dict(zip(p.direction_evidence, p.direction_weights))
    return sum(abs(w[k] * v) for k, v in r.ev.items() if k in names)


def gated(r: Row, bar: float, w: float, g: Gate | None, p: ClassifyParams) -> float:
    """The direction score under the decider rule with the gate ``g`` (None: no gate)."""
    if g is None or g.t <= 0:
        return rule(r, bar, w)
    if (
        r.typed != "spun"
        or r.pa is None
        or r.pb is None
        or r.kind.startswith("oneway")
        or abs(r.rest) < bar
        or machine_mass(r, g.names, p) >= g.t
    ):
        return rule(r, bar, w)
    return r.rest + g.w_hi * (r.pb - r.pa)


def choose_gate(
    rows: list[Row], names: tuple[str, ...], bar: float, w: float, p: ClassifyParams
) -> Gate:
    """(t, w_hi) at the given bar and w, by the criterion of the module doc: no
    machine-made pair lost that was right under the decider rule, then right minus wrong
    on the rewrites, the fewest machine-made pairs touched, the smaller w_hi and t."""
    rw = [r for r in rows if r.rewrite]
    mach = [r for r in rows if not r.rewrite]
    base = {id(r): rule(r, bar, w) for r in rows}
    best = None
    for t in GATE_T:
        for wh in WEIGHTS_HI if t > 0 else (0.0,):
            g = Gate(names, t, wh)
            z = {id(r): gated(r, bar, w, g, p) for r in rows}
            if any(outcome(r, base[id(r)]) == "R" and outcome(r, z[id(r)]) != "R" for r in mach):
                continue
            c = Counter(outcome(r, z[id(r)]) for r in rw)
            touched = sum(z[id(r)] != base[id(r)] for r in mach)
            key = (c["R"] - c["W"], -touched, -wh, -t)
            if best is None or key > best[0]:
                best = (key, g)
    return best[1] if best else Gate(names, 0.0, 0.0)


def per_set(got: Counter, sets: list[str], sep: str) -> str:
    """``set right/undecided/wrong`` for each set, joined by ``sep``."""
    return sep.join(f"{s} {got[(s, 'R')]}/{got[(s, 'U')]}/{got[(s, 'W')]}" for s in sets)


def outcome(r: Row, z: float) -> str:
    if not r.found or z == 0:
        return "U"
    return "R" if (z > 0) == (r.truth > 0) else "W"


def counts(rows: list[Row], bar: float, w: float) -> Counter:
    return Counter(outcome(r, rule(r, bar, w)) for r in rows)


def choose(rows: list[Row]) -> tuple[float, float]:
    """(bar, w) by the criterion of the module doc."""
    rw = [r for r in rows if r.rewrite]
    mach = [r for r in rows if not r.rewrite]
    best = None
    for bar in BARS:
        for w in WEIGHTS:
            if any(outcome(r, r.rest) == "R" and outcome(r, rule(r, bar, w)) != "R" for r in mach):
                continue
            c = counts(rw, bar, w)
            touched = sum(rule(r, bar, w) != r.rest for r in mach)
            key = (c["R"] - c["W"], -touched, -w, -bar)
            if best is None or key > best[0]:
                best = (key, bar, w)
    return (0.0, 0.0) if best is None else (best[1], best[2])


def length_call(r: Row, m: float) -> str:
    """ "The longer text is the source", undecided under ``1 + m`` times the shorter."""
    ls, ld = r.len_src, r.len_der
    if ls == ld or max(ls, ld) < (1 + m) * min(ls, ld):
        return "U"
    return "R" if ls > ld else "W"


def style_call(r: Row, m: float) -> str:
    """Style only: the text whose style log-odds are higher (by ``m``) is the rewrite."""
    if r.pa is None or r.pb is None:
        return "U"
    gap = (style_logit(r.pb) - style_logit(r.pa)) * r.truth  # > 0: the derivative higher
    if gap == 0 or abs(gap) < m:
        return "U"
    return "R" if gap > 0 else "W"


def tune_margin(rows: list[Row], call, grid) -> float:
    def key(m: float) -> tuple[int, float]:
        c = Counter(call(r, m) for r in rows)
        return c["R"] - c["W"], -m

    return max(grid, key=key)


LEN_GRID = tuple(round(x, 2) for x in np.arange(0.0, 0.51, 0.05))
STYLE_GRID = tuple(round(x, 2) for x in np.arange(0.0, 3.01, 0.25))


def evidence_table(rows: list[Row], p: ClassifyParams) -> None:
    """Where each direction evidence speaks, how often it points at the true source and
    with how much weight (shipped weights), per set, rewrites and machine-made apart."""
    w = dict(zip(p.direction_evidence, p.direction_weights))
    tally: dict[tuple[str, str, str], list[float]] = {}
    for r in rows:
        kind = "rewrites" if r.rewrite else "machine-made"
        for name, v in r.ev.items():
            t = tally.setdefault((name, r.set, kind), [0, 0, 0.0, 0.0])
            ok = v * r.truth > 0
            t[0 if ok else 1] += 1
            t[2 if ok else 3] += abs(w[name] * v)
    print("\nevidence pointing right / wrong (weighted mass right / wrong), shipped weights:")
    for (name, s, kind), (nr, nw, mr, mw) in sorted(tally.items()):
        print(f"  {name:17s} {s:12s} {kind:13s} {nr:4d} / {nw:<4d} ({mr:6.1f} / {mw:6.1f})")


def without(rows: list[Row], p: ClassifyParams, names: set[str]) -> list[Row]:
    """The rows with the evidence ``names`` left out of the rest's weighted sum."""
    w = dict(zip(p.direction_evidence, p.direction_weights))
    out = []
    for r in rows:
        ev = {k: v for k, v in r.ev.items() if k not in names}
        out.append(replace(r, ev=ev, rest=sum(w[k] * v for k, v in ev.items())))
    return out


def _fmt(c: Counter, n: int) -> str:
    return f"{c['R']}/{c['U']}/{c['W']} ({c['R'] / n:.3f})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--routes", nargs=2, action="append", default=[], metavar=("FOLDER", "PAIRS"))
    ap.add_argument("--pac", type=Path, default=None, help="eval_pac_rewrites pairs.jsonl")
    ap.add_argument("--rewrites-pac", type=Path, default=Path("/work/rewrites-pac"))
    ap.add_argument(
        "--oof",
        default="/work/mstyle-train/oof.json",
        help="out-of-fold style probabilities of the style model's training texts ('' for "
        "none: no evaluation text was a training text)",
    )
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument(
        "--without",
        default="",
        help="comma-separated direction evidence left out of the rest (a what-if)",
    )
    ap.add_argument("--evidence-table", action="store_true", help="print where each speaks")
    ap.add_argument(
        "--gate",
        action="append",
        default=[],
        help="comma-separated direction evidence that marks a pair machine-made: the style "
        "is also weighed above the bar (weight and threshold chosen per fold, at the shipped "
        "bar and weight) where their weighted mass is under the threshold",
    )
    ap.add_argument(
        "--refit",
        action="store_true",
        help="model_style as an ordinary weighted evidence and every direction weight "
        "re-chosen per fold (grouped CV and leave-one-set-out)",
    )
    ap.add_argument(
        "--refit-margin",
        type=float,
        action="append",
        default=None,
        help="with --refit: a machine-made pair counts as kept in fitting only at a score "
        "of min(this, its shipped score) (repeatable; default 0)",
    )
    ap.add_argument(
        "--two-stage",
        action="store_true",
        help="the two-stage rule (session 16): where the machine evidence's weighted mass is "
        "under machine_bar, the style leads (lead_weight) when its gap reaches lead_min; "
        "machine_bar, lead_min and lead_weight chosen per fold for each machine evidence set",
    )
    args = ap.parse_args()
    args.refit_margin = args.refit_margin or [0.0]
    p = ClassifyParams()
    oof = json.loads(Path(args.oof).read_text()) if args.oof else {}
    rows: list[Row] = []
    for folder, pairs in args.routes:
        rows += routes_rows(Path(folder), Path(pairs), oof, p)
    if args.pac:
        rows += pac_rows(args.pac, args.rewrites_pac, p)
    if args.evidence_table:
        evidence_table(rows, p)
    if args.without:
        rows = without(rows, p, set(args.without.split(",")))
        print(f"left out of the rest: {args.without}")
    rw = [r for r in rows if r.rewrite]
    mach = [r for r in rows if not r.rewrite]
    print(
        f"{len(rw)} rewrites, {len(mach)} machine-made derivatives, "
        f"{len({r.group for r in rows})} sources"
    )
    shipped = dict(zip(p.direction_evidence, p.direction_weights))["model_style"]
    print(f"shipped: decider_bar {p.decider_bar}, model_style weight {shipped}")

    bar, w = choose(rows)
    print(f"\nchosen on all rows: bar {bar}, weight {w}")
    print("right / undecided (or not found) / wrong; right share, undecided counted wrong")
    print(f"  {'set':14s} {'kind':18s} {'n':>4s}  {'without':18s}  {'chosen':18s}  {'shipped':18s}")
    sets = sorted({r.set for r in rows})
    kinds = sorted({r.kind for r in rows})
    for s in sets:
        for k in [*kinds, "all rewrites"]:
            sel = [
                r
                for r in rows
                if r.set == s and (r.kind == k or (k == "all rewrites" and r.rewrite))
            ]
            if not sel:
                continue
            n = len(sel)
            c0, c1, c2 = counts(sel, 0, 0), counts(sel, bar, w), counts(sel, p.decider_bar, shipped)
            print(
                f"  {s:14s} {k:18s} {n:4d}  {_fmt(c0, n):18s}  {_fmt(c1, n):18s}  {_fmt(c2, n):18s}"
            )
    n = len(rw)
    print(
        f"  {'pooled':14s} {'rewrites':18s} {n:4d}  {_fmt(counts(rw, 0, 0), n):18s}  "
        f"{_fmt(counts(rw, bar, w), n):18s}  {_fmt(counts(rw, p.decider_bar, shipped), n):18s}"
    )
    nm = len(mach)
    print(
        f"  {'pooled':14s} {'machine-made':18s} {nm:4d}  {_fmt(counts(mach, 0, 0), nm):18s}  "
        f"{_fmt(counts(mach, bar, w), nm):18s}  "
        f"{_fmt(counts(mach, p.decider_bar, shipped), nm):18s}"
    )
    touched = sum(rule(r, p.decider_bar, shipped) != r.rest for r in mach)
    print(f"  machine-made pairs the shipped rule weighs the style on: {touched} of {nm}")

    m_len = tune_margin(rw, length_call, LEN_GRID)
    m_sty = tune_margin(rw, style_call, STYLE_GRID)
    cl, cs = Counter(length_call(r, m_len) for r in rw), Counter(style_call(r, m_sty) for r in rw)
    print(f"\nbaselines given the pair, tuned on the same {n} rewrites (in-sample):")
    print(f"  longer is source (margin {m_len}): {_fmt(cl, n)}")
    print(f"  style only (log-odds margin {m_sty}): {_fmt(cs, n)}")
    for s in sets:
        sel = [r for r in rw if r.set == s]
        if sel:
            print(
                f"    {s:14s} longer {_fmt(Counter(length_call(r, m_len) for r in sel), len(sel))}"
                f"  style {_fmt(Counter(style_call(r, m_sty) for r in sel), len(sel))}"
            )

    print(
        "\ngrouped 5-fold cross-validation by source article "
        "(rule and baselines re-tuned per fold):"
    )
    groups = sorted({r.group for r in rows})
    shares = {"rule": [], "longer": [], "style": []}
    for seed in range(args.seeds):
        fold = group_folds(groups, seed)
        got, mach_got, picks = Counter(), Counter(), []
        base = Counter()
        for f in range(5):
            tr = [r for r in rows if fold[r.group] != f]
            te = [r for r in rows if fold[r.group] == f]
            b, wt = choose(tr)
            picks.append((b, wt))
            trw = [r for r in tr if r.rewrite]
            ml = tune_margin(trw, length_call, LEN_GRID)
            ms = tune_margin(trw, style_call, STYLE_GRID)
            for r in te:
                if r.rewrite:
                    got[(r.set, outcome(r, rule(r, b, wt)))] += 1
                    base[("longer", length_call(r, ml))] += 1
                    base[("style", style_call(r, ms))] += 1
                else:
                    mach_got[outcome(r, rule(r, b, wt))] += 1
        right = sum(v for (s, o), v in got.items() if o == "R")
        shares["rule"].append(right / n)
        shares["longer"].append(base[("longer", "R")] / n)
        shares["style"].append(base[("style", "R")] / n)
        per = per_set(got, [s for s in sets if any(r.set == s for r in rw)], "; ")
        print(
            f"  seed {seed}: rewrites {right}/{n} = {right / n:.3f} ({per}); machine-made right "
            f"{mach_got['R']} of {nm}; longer {base[('longer', 'R')] / n:.3f}, style only "
            f"{base[('style', 'R')] / n:.3f}; chosen {picks}"
        )
    print(
        f"  mean over seeds: rule {np.mean(shares['rule']):.3f} (min {min(shares['rule']):.3f}, "
        f"max {max(shares['rule']):.3f}); longer is source {np.mean(shares['longer']):.3f}; "
        f"style only {np.mean(shares['style']):.3f}; without the style "
        f"{counts(rw, 0, 0)['R'] / n:.3f}"
    )
    for gate in args.gate:  # each a what-if of its own
        gate_report(rows, tuple(gate.split(",")), p, shipped, sets, args.seeds)
    if args.two_stage:
        two_stage_report(rows, p, shipped, sets, args.seeds)
    if args.refit:
        for m in args.refit_margin:
            refit_report(rows, p, shipped, sets, args.seeds, m)
    return 0


def gate_report(
    rows: list[Row],
    names: tuple[str, ...],
    p: ClassifyParams,
    w: float,
    sets: list[str],
    seeds: int,
) -> None:
    """The gate (:class:`Gate`) chosen on all rows and in grouped 5-fold CV, per set."""
    bar = p.decider_bar
    rw = [r for r in rows if r.rewrite]
    mach = [r for r in rows if not r.rewrite]
    g = choose_gate(rows, names, bar, w, p)
    print(f"\ngate {','.join(names)}: chosen on all rows t {g.t}, w_hi {g.w_hi}")
    for s in sets:
        sel = [r for r in rw if r.set == s]
        if sel:
            c0 = Counter(outcome(r, rule(r, bar, w)) for r in sel)
            c1 = Counter(outcome(r, gated(r, bar, w, g, p)) for r in sel)
            print(f"  {s:14s} shipped {_fmt(c0, len(sel))}  gated {_fmt(c1, len(sel))}")
    c0 = Counter(outcome(r, rule(r, bar, w)) for r in mach)
    c1 = Counter(outcome(r, gated(r, bar, w, g, p)) for r in mach)
    print(f"  machine-made    shipped {_fmt(c0, len(mach))}  gated {_fmt(c1, len(mach))}")
    groups = sorted({r.group for r in rows})
    n = len(rw)
    tot = []
    for seed in range(seeds):
        fold = group_folds(groups, seed)
        got, mach_got, lost, picks = Counter(), Counter(), 0, []
        for f in range(5):
            tr = [r for r in rows if fold[r.group] != f]
            gf = choose_gate(tr, names, bar, w, p)
            picks.append((gf.t, gf.w_hi))
            for r in rows:
                if fold[r.group] != f:
                    continue
                o = outcome(r, gated(r, bar, w, gf, p))
                if r.rewrite:
                    got[(r.set, o)] += 1
                else:
                    mach_got[o] += 1
                    lost += outcome(r, rule(r, bar, w)) == "R" and o != "R"
        right = sum(v for (s, o), v in got.items() if o == "R")
        tot.append(right / n)
        per = per_set(got, [s for s in sets if any(r.set == s for r in rw)], "; ")
        print(
            f"  seed {seed}: rewrites {right}/{n} = {right / n:.3f} ({per}); machine-made "
            f"right {mach_got['R']} of {len(mach)} (lost against the shipped rule: {lost}); "
            f"chosen {picks}"
        )
    print(f"  gated, mean over seeds: {np.mean(tot):.3f} (min {min(tot):.3f}, max {max(tot):.3f})")


#: the two-stage rule's grids (session 16): machine evidence sets, the mass at which a pair
#: reads machine-made, the style gap from which it leads, its weight when it leads
MACHINE_SETS = (
    ("artefacts",),
    ("artefacts", "name_variants", "name_swap", "wording"),
    ("artefacts", "name_variants", "name_swap", "wording", "fluency"),
)
MACHINE_BARS = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)
LEAD_MINS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3)
LEAD_WEIGHTS = (6.0, 8.0, 12.0, 16.0, 24.0, 48.0)
LEAD_WRITTEN = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8)
#: in choosing, a machine-made pair counts as kept only at a score (times the truth) of at
#: least min(TWO_STAGE_MARGIN, its score under the decider rule): room for pairs not seen
TWO_STAGE_MARGIN = 1.0


@dataclass(frozen=True)
class TwoStage:
    """The two-stage rule (``unspin.evidence.direction_score``): where the weighted mass of
    the ``names`` evidence is under ``bar`` and the style gap reaches ``lead_min``, the
    style is added with ``weight`` whatever the rest says, when one text reads
    model-written at ``written`` or more; elsewhere the decider rule."""

    names: tuple[str, ...]
    bar: float
    lead_min: float
    weight: float
    written: float = 0.0


def two_stage(r: Row, t: TwoStage | None, bar: float, w: float, p: ClassifyParams) -> float:
    """The direction score under the two-stage rule ``t`` (None: the decider rule)."""
    if (
        t is None
        or not style_speaks(r)
        or r.pa == r.pb
        or abs(r.pb - r.pa) < t.lead_min
        or max(r.pa, r.pb) < t.written
        or machine_mass(r, t.names, p) >= t.bar
    ):
        return rule(r, bar, w)
    return r.rest + t.weight * (r.pb - r.pa)


def choose_two_stage(
    rows: list[Row], bar: float, w: float, p: ClassifyParams, sets_: tuple = MACHINE_SETS
) -> TwoStage | None:
    """(names, machine bar, lead_min, weight, written) by the module doc's criterion: no
    machine-made pair lost that the decider rule gets right, then right minus wrong on the
    rewrites, then the fewest machine-made pairs touched, the smaller weight, the larger
    lead_min, the lower machine bar, the higher written bar, the fewer names (the most
    cautious of equals). A machine-made pair counts as kept only at a score (times the
    truth) of at least min(``TWO_STAGE_MARGIN``, its decider-rule score)."""
    rw = [r for r in rows if r.rewrite]
    mach = [r for r in rows if not r.rewrite]
    base = {id(r): rule(r, bar, w) for r in rows}
    keep = [r for r in mach if outcome(r, base[id(r)]) == "R"]
    best = None
    for names in sets_:
        for mb in MACHINE_BARS:
            for lm in LEAD_MINS:
                for lw in LEAD_WEIGHTS:
                    for pw in LEAD_WRITTEN:
                        t = TwoStage(names, mb, lm, lw, pw)
                        if any(
                            two_stage(r, t, bar, w, p) * r.truth
                            < min(TWO_STAGE_MARGIN, base[id(r)] * r.truth)
                            for r in keep
                        ):
                            continue
                        c = Counter(outcome(r, two_stage(r, t, bar, w, p)) for r in rw)
                        touched = sum(two_stage(r, t, bar, w, p) != base[id(r)] for r in mach)
                        key = (c["R"] - c["W"], -touched, -lw, lm, -mb, pw, -len(names))
                        if best is None or key > best[0]:
                            best = (key, t)
    return best[1] if best else None


def two_stage_report(
    rows: list[Row], p: ClassifyParams, w: float, sets: list[str], seeds: int
) -> None:
    """The two-stage rule chosen on all rows and in grouped 5-fold CV by source article,
    per set and kind, against the decider rule (shipped bar and weight) and the
    baselines given the pair."""
    bar = p.decider_bar
    rw = [r for r in rows if r.rewrite]
    mach = [r for r in rows if not r.rewrite]
    t = choose_two_stage(rows, bar, w, p)
    shipped = TwoStage(p.machine_evidence, p.machine_bar, p.lead_min, p.lead_weight, p.lead_written)
    print(f"\ntwo-stage: chosen on all rows {t}; shipped {shipped}")

    def row(where: str, label: str, sel: list) -> None:
        c0 = Counter(outcome(r, rule(r, bar, w)) for r in sel)
        c1 = Counter(outcome(r, two_stage(r, t, bar, w, p)) for r in sel)
        c2 = Counter(outcome(r, two_stage(r, shipped, bar, w, p)) for r in sel)
        print(
            f"  {where:14s} {label:18s} decider {_fmt(c0, len(sel)):18s} chosen "
            f"{_fmt(c1, len(sel)):18s} shipped {_fmt(c2, len(sel))}"
        )

    kinds = sorted({r.kind for r in rows})
    for s in sets:
        for k in kinds:
            sel = [r for r in rows if r.set == s and r.kind == k]
            if sel:
                row(s, k, sel)
    for label, sel in (("rewrites", rw), ("machine-made", mach)):
        row("pooled", label, sel)
    touched = [r for r in mach if two_stage(r, shipped, bar, w, p) != rule(r, bar, w)]
    print(f"  machine-made pairs the shipped two-stage rule leads on: {len(touched)}")
    for r in touched:
        print(
            f"    {r.set} {r.kind} mass {machine_mass(r, shipped.names, p):.2f} style "
            f"{r.pa:.2f}->{r.pb:.2f} truth {r.truth:+d} rest {r.rest:+.2f}"
        )
    groups = sorted({r.group for r in rows})
    n = len(rw)
    tot = []
    for seed in range(seeds):
        fold = group_folds(groups, seed)
        got, mach_got, lost, picks = Counter(), Counter(), 0, []
        base = Counter()
        for f in range(5):
            tr = [r for r in rows if fold[r.group] != f]
            tf = choose_two_stage(tr, bar, w, p)
            picks.append(tf and (len(tf.names), tf.bar, tf.lead_min, tf.weight, tf.written))
            trw = [r for r in tr if r.rewrite]
            ml = tune_margin(trw, length_call, LEN_GRID)
            ms = tune_margin(trw, style_call, STYLE_GRID)
            for r in rows:
                if fold[r.group] != f:
                    continue
                o = outcome(r, two_stage(r, tf, bar, w, p))
                if r.rewrite:
                    got[(r.set, o)] += 1
                    got[(r.kind, o)] += 1
                    base[("longer", length_call(r, ml))] += 1
                    base[("style", style_call(r, ms))] += 1
                    base[("style " + r.kind, style_call(r, ms))] += 1
                else:
                    mach_got[o] += 1
                    lost += outcome(r, rule(r, bar, w)) == "R" and o != "R"
        right = sum(v for (s, o), v in got.items() if o == "R" and s in sets)
        tot.append(right / n)
        rkinds = sorted({r.kind for r in rw})
        per = per_set(got, [s for s in sets if any(r.set == s for r in rw)] + rkinds, "; ")
        print(
            f"  seed {seed}: rewrites {right}/{n} = {right / n:.3f} ({per}); machine-made "
            f"right {mach_got['R']} of {len(mach)} (lost against the decider rule: {lost}); "
            f"style only {base[('style', 'R')] / n:.3f} ("
            + ", ".join(f"{k} {base[('style ' + k, 'R')]}" for k in rkinds)
            + f"), longer {base[('longer', 'R')] / n:.3f}; chosen {picks}"
        )
    print(
        f"  two-stage, mean over seeds: {np.mean(tot):.3f} (min {min(tot):.3f}, max {max(tot):.3f})"
    )


#: the refit's grids: multiples of a shipped weight, and the style's own weights
REFIT_MULT = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)
REFIT_STYLE = (0.0, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0)


def style_speaks(r: Row) -> bool:
    """Where ``model_style`` has a value (as ``direction_score`` reads it)."""
    return (
        r.typed == "spun"
        and r.pa is not None
        and r.pb is not None
        and not r.kind.startswith("oneway")
    )


def design(rows: list[Row], p: ClassifyParams) -> tuple[np.ndarray, list[str], np.ndarray]:
    """The evidence values as a matrix (the style last, ``p(b) - p(a)`` where it speaks),
    their names, and the shipped weights in that order."""
    w = dict(zip(p.direction_evidence, p.direction_weights))
    names = [n for n in p.direction_evidence if n not in p.decider_evidence] + ["model_style"]
    col = {n: i for i, n in enumerate(names)}
    x = np.zeros((len(rows), len(names)))
    for i, r in enumerate(rows):
        for k, v in r.ev.items():
            x[i, col[k]] = v
        if style_speaks(r):
            x[i, -1] = r.pb - r.pa
    return x, names, np.array([w[n] for n in names])


def _calls(z: np.ndarray, found: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """+1 right, 0 undecided or not found, -1 wrong."""
    return np.where(~found | (z == 0), 0, np.where(z * truth > 0, 1, -1))


def fit_weights(
    rows: list[Row],
    x: np.ndarray,
    w0: np.ndarray,
    free: list[int],
    must: np.ndarray,
    need: np.ndarray | None = None,
) -> np.ndarray:
    """Coordinate search over the ``free`` weights (criterion of the module doc);
    ``must``: the machine-made rows the shipped rule gets right; ``need``: the score
    (times the truth) each of them must keep to count as kept (default: above 0)."""
    rw = np.array([r.rewrite for r in rows])
    found = np.array([r.found for r in rows])
    truth = np.array([r.truth for r in rows])
    scale = np.where(w0 > 0, w0, 1.0)

    def key(w: np.ndarray) -> tuple:
        z = x @ w
        c = _calls(z, found, truth)
        kept = (c == 1) if need is None else (c == 1) & (z * truth >= need)
        lost = int(np.sum(must & ~kept))
        return (-lost, int(np.sum(c[rw])), -float(np.sum(np.abs(w - w0) / scale)))

    w = w0.copy()
    best = key(w)
    for _ in range(3):
        moved = False
        for j in free:
            grid = REFIT_STYLE if j == len(w0) - 1 else [m * w0[j] for m in REFIT_MULT]
            for v in grid:
                t = w.copy()
                t[j] = v
                k = key(t)
                if k > best:
                    best, w, moved = k, t, True
        if not moved:
            break
    return w


def refit_report(
    rows: list[Row],
    p: ClassifyParams,
    shipped: float,
    sets: list[str],
    seeds: int,
    margin: float = 0.0,
) -> None:
    """The refit (style as ordinary evidence, weights re-chosen) against the shipped rule
    and the baselines given the pair, out of fold: grouped 5-fold CV by source article
    (``seeds`` groupings) and leave-one-set-out."""
    x, names, w0 = design(rows, p)
    ship = np.array([rule(r, p.decider_bar, shipped) for r in rows])
    found = np.array([r.found for r in rows])
    truth = np.array([r.truth for r in rows])
    c_ship = _calls(ship, found, truth)
    rw = np.array([r.rewrite for r in rows])
    mach_ok = ~rw & (c_ship == 1)
    # in fitting, a machine-made pair counts as kept only with this much of its shipped
    # score's margin (``--refit-margin``): a safety room for pairs not seen in the fold
    need = np.minimum(margin, ship * truth) if margin > 0 else None
    print(f"\nrefit: machine-made pairs kept in fitting at a score of min({margin:g}, shipped)")
    variants = {"refit": list(range(len(names))), "style weight": [len(names) - 1]}
    w_all = fit_weights(rows, x, w0, variants["refit"], mach_ok, need)
    print("\nrefit (model_style ordinary evidence), chosen on all rows:")
    print("  " + ", ".join(f"{n} {a:g}->{b:g}" for n, a, b in zip(names, w0, w_all) if a != b))
    c = _calls(x @ w_all, found, truth)
    lost_all = int(np.sum(mach_ok & (c != 1)))
    print(
        f"  in-sample: rewrites right {int(np.sum(c[rw] == 1))} of {int(rw.sum())} "
        f"(shipped {int(np.sum(c_ship[rw] == 1))}); machine-made lost {lost_all}"
    )

    def tally(
        fold: dict[int, int], nfolds: int
    ) -> tuple[dict[str, Counter], dict[str, int], dict[str, list]]:
        got = {v: Counter() for v in [*variants, "shipped", "longer", "style only"]}
        lost = {v: 0 for v in variants}
        picks: dict[str, list] = {v: [] for v in variants}
        for f in range(nfolds):
            tr = [i for i in range(len(rows)) if fold[i] != f]
            te = [i for i in range(len(rows)) if fold[i] == f]
            if not te:
                continue
            trows = [rows[i] for i in tr]
            trw = [r for r in trows if r.rewrite]
            ml = tune_margin(trw, length_call, LEN_GRID)
            ms = tune_margin(trw, style_call, STYLE_GRID)
            for v, free in variants.items():
                w = fit_weights(
                    trows, x[tr], w0, free, mach_ok[tr], None if need is None else need[tr]
                )
                picks[v].append(w)
                cz = _calls(x[te] @ w, found[te], truth[te])
                for i, o in zip(te, cz):
                    r = rows[i]
                    if r.rewrite:
                        got[v][(r.set, "RUW"[1 - o])] += 1
                        if r.kind.endswith("_same"):
                            got[v][("same", "RUW"[1 - o])] += 1
                    else:
                        got[v][("machine", "RUW"[1 - o])] += 1
                        if mach_ok[i] and o != 1:
                            lost[v] += 1
                            got[v][("lost " + r.kind, "R")] += 1
            for i in te:
                r = rows[i]
                key = r.set if r.rewrite else "machine"
                got["shipped"][(key, "RUW"[1 - c_ship[i]])] += 1
                same = r.kind.endswith("_same")
                if same:
                    got["shipped"][("same", "RUW"[1 - c_ship[i]])] += 1
                if r.rewrite:
                    for v, o in (
                        ("longer", length_call(r, ml)),
                        ("style only", style_call(r, ms)),
                    ):
                        got[v][(r.set, o)] += 1
                        if same:
                            got[v][("same", o)] += 1
        return got, lost, picks

    rsets = [s for s in sets if any(r.set == s and r.rewrite for r in rows)]
    n = int(rw.sum())

    def line(label: str, got: Counter, lost: int | None) -> str:
        right = sum(got[(s, "R")] for s in rsets)
        per = per_set(got, [*rsets, "same"], "  ")
        which = ", ".join(k[5:] for k, _ in got if k.startswith("lost "))
        m = (
            f"; machine-made right {got[('machine', 'R')]} of {int((~rw).sum())}"
            + (f" (lost against shipped {lost}: {which})" if lost is not None else "")
            if label in (*variants, "shipped")
            else ""
        )
        return f"    {label:13s} pooled {right}/{n} = {right / n:.3f}  ({per}){m}"

    groups = sorted({r.group for r in rows})
    shares: dict[str, list[float]] = {}
    for seed in range(seeds):
        gf = group_folds(groups, seed)
        got, lost, picks = tally({i: gf[r.group] for i, r in enumerate(rows)}, 5)
        print(f"  grouped 5-fold CV, seed {seed}:")
        for v in [*variants, "shipped", "longer", "style only"]:
            print(line(v, got[v], lost.get(v)))
            shares.setdefault(v, []).append(sum(got[v][(s, "R")] for s in rsets) / n)
        print("    refit style weight per fold: " + ", ".join(f"{w[-1]:g}" for w in picks["refit"]))
    print(
        "  grouped CV over seeds (mean, min-max): "
        + "; ".join(f"{v} {np.mean(a):.3f} ({min(a):.3f}-{max(a):.3f})" for v, a in shares.items())
    )
    order = {s: i for i, s in enumerate(sets)}
    got, lost, picks = tally({i: order[r.set] for i, r in enumerate(rows)}, len(sets))
    print("  leave one set out (each set read by a rule fitted on the others):")
    for v in [*variants, "shipped", "longer", "style only"]:
        print(line(v, got[v], lost.get(v)))
    for s, w in zip([s for s in sets if any(r.set == s for r in rows)], picks["refit"]):
        print(
            f"    refit without {s}: "
            + ", ".join(f"{nm} {a:g}->{b:g}" for nm, a, b in zip(names, w0, w) if a != b)
        )


if __name__ == "__main__":
    raise SystemExit(main())
