"""Fit the machine-made recogniser of the two-stage direction rule (session 17) and choose
its cut (and, with ``--lead``, the lead stage's settings), with a cross-validation grouped by
source article; the session-16 mass bar and the baselines given the pair beside it.

The recogniser (``unspin.evidence.machine_made``) answers "did a machine (an MT round trip,
a thesaurus spinner) make this pair, or a language model / a person?": a logistic model
over :func:`unspin.evidence.recogniser_features` (the magnitudes of the pair's direction
evidence, the length ratio, the style probabilities of both texts). Where it calls the pair
machine-made the decider rule holds; elsewhere the style of model-written text leads
(``lead_min``, ``lead_weight``, ``lead_written``) as in session 16.

Rows: every labelled pair of the given ``cached_eval.py ... routes`` outputs (run on main,
whose ``pairs.jsonl`` records each pair's direction evidence) the style speaks on (typed
``spun``, one language, both texts styled): the MT round trips and the thesaurus spinner
are machine-made (label 1), the model-written rewrites are not (label 0). Every route
label comes from ``make-routes``; no label is read by the features.

Choice (all rows, and again inside every training fold): the logistic model is fitted
(features standardised, L2 penalty ``--C``, classes balanced), then the cut (and with
``--lead`` the lead settings) by the session-16 criterion: every machine-made pair the
decider rule gets right kept at a score of at least min(1, its decider score); then right
minus wrong on the rewrites, the fewest machine-made pairs touched, the smaller lead weight,
the larger ``lead_min``, the cut at which the recogniser is right on the most training
pairs, the lower cut (more pairs read machine-made), the higher ``lead_written``.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/fit_machine_recogniser.py \\
           --routes /work/deriv5/routes-tune MAIN_TUNE/pairs.jsonl \\
           --routes /work/deriv5/routes-tune-norw MAIN_NORW/pairs.jsonl \\
           [--pac MAIN_PAC/pairs.jsonl --rewrites-pac /work/rw-held-pac] [--lead] [--seeds 5]
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fit_style_bar import (
    LEAD_MINS,
    LEAD_WEIGHTS,
    LEAD_WRITTEN,
    STYLE_GRID,
    TWO_STAGE_MARGIN,
    Row,
    TwoStage,
    _fmt,
    group_folds,
    outcome,
    pac_rows,
    routes_rows,
    rule,
    style_call,
    style_speaks,
    tune_margin,
    two_stage,
)
from sklearn.linear_model import LogisticRegression

from unspin.classify import ClassifyParams
from unspin.evidence import recogniser_features

#: session 16's rule (branch ``dir2``): the machine evidence's mass bar, lead settings as then
SESSION16 = TwoStage(
    ("artefacts", "name_variants", "name_swap", "wording", "fluency"), 1.0, 0.2, 12.0, 0.6
)
CUTS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass(frozen=True)
class Model:
    """A fitted recogniser on raw features: probability = sigmoid(bias + weights . x)."""

    names: tuple[str, ...]
    weights: tuple[float, ...]
    bias: float

    def prob(self, r: Row) -> float:
        key = (id(self), id(r))
        if key not in _PROBS:
            x = np.array(recogniser_features(self.names, r.ev, (r.pa, r.pb), r.lenratio))
            z = self.bias + float(np.dot(self.weights, x))
            _PROBS[key] = float(1.0 / (1.0 + np.exp(-np.clip(z, -50, 50))))
        return _PROBS[key]


#: each (model, row)'s probability, computed once (the choice's grid reads it many times)
_PROBS: dict[tuple[int, int], float] = {}


@dataclass(frozen=True)
class Lead:
    """The lead stage with the recogniser: cut and the three lead settings."""

    cut: float
    lead_min: float
    weight: float
    written: float


def train_rows(rows: list[Row]) -> list[Row]:
    """The pairs the recogniser is asked about: where the style speaks."""
    return [r for r in rows if style_speaks(r)]


def fit(rows: list[Row], names: tuple[str, ...], c: float) -> Model:
    """The logistic recogniser fitted on ``rows`` (label: machine-made), returned on raw
    features (the standardisation folded into the weights and bias)."""
    tr = train_rows(rows)
    x = np.array([recogniser_features(names, r.ev, (r.pa, r.pb), r.lenratio) for r in tr])
    y = np.array([0 if r.rewrite else 1 for r in tr])
    mu, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd == 0] = 1.0
    m = LogisticRegression(C=c, class_weight="balanced", max_iter=5000)
    m.fit((x - mu) / sd, y)
    w = m.coef_[0] / sd
    b = float(m.intercept_[0] - np.dot(w, mu))
    return Model(names, tuple(round(float(v), 4) for v in w), round(b, 4))


def led(r: Row, m: Model | None, t: Lead | None, bar: float, w: float) -> float:
    """The direction score under the two-stage rule with the recogniser (None: decider rule)."""
    if (
        m is None
        or t is None
        or not style_speaks(r)
        or r.pa == r.pb
        or abs(r.pb - r.pa) < t.lead_min
        or max(r.pa, r.pb) < t.written
        or m.prob(r) >= t.cut
    ):
        return rule(r, bar, w)
    return r.rest + t.weight * (r.pb - r.pa)


def choose(
    rows: list[Row], m: Model, bar: float, w: float, lead: bool, shipped: ClassifyParams
) -> Lead | None:
    """The cut (and with ``lead`` the lead settings) by the module doc's criterion."""
    rw = [r for r in rows if r.rewrite]
    mach = [r for r in rows if not r.rewrite]
    base = {id(r): rule(r, bar, w) for r in rows}
    keep = [r for r in mach if outcome(r, base[id(r)]) == "R"]
    best = None
    grid_lm = LEAD_MINS if lead else (SESSION16.lead_min,)
    grid_lw = LEAD_WEIGHTS if lead else (SESSION16.weight,)
    grid_pw = LEAD_WRITTEN if lead else (SESSION16.written,)
    for cut in CUTS:
        acc = recogniser_accuracy(rows, m, cut)
        for lm in grid_lm:
            for lw in grid_lw:
                for pw in grid_pw:
                    t = Lead(cut, lm, lw, pw)
                    if any(
                        led(r, m, t, bar, w) * r.truth
                        < min(TWO_STAGE_MARGIN, base[id(r)] * r.truth)
                        for r in keep
                    ):
                        continue
                    c = Counter(outcome(r, led(r, m, t, bar, w)) for r in rw)
                    touched = sum(led(r, m, t, bar, w) != base[id(r)] for r in mach)
                    key = (c["R"] - c["W"], -touched, -lw, lm, acc[0] + acc[2], -cut, pw)
                    if best is None or key > best[0]:
                        best = (key, t)
    return best[1] if best else None


def recogniser_accuracy(rows: list[Row], m: Model, cut: float) -> tuple[int, int, int, int]:
    """(machine-made right, machine-made asked, model-written right, model-written asked)."""
    tr = train_rows(rows)
    mm = [r for r in tr if not r.rewrite]
    mw = [r for r in tr if r.rewrite]
    return (
        sum(m.prob(r) >= cut for r in mm),
        len(mm),
        sum(m.prob(r) < cut for r in mw),
        len(mw),
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--routes", nargs=2, action="append", default=[], metavar=("FOLDER", "PAIRS"))
    ap.add_argument("--pac", type=Path, default=None, help="eval_pac_rewrites pairs.jsonl")
    ap.add_argument("--rewrites-pac", type=Path, default=Path("/work/rw-held-pac"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument(
        "--fit-pac",
        action="store_true",
        help="the PAC rewrites join the rows (fitted on and cross-validated, their own groups)",
    )
    ap.add_argument("--C", type=float, default=1.0, help="the logistic model's inverse L2 penalty")
    ap.add_argument(
        "--lead",
        action="store_true",
        help="re-choose lead_min, lead_weight and lead_written with the cut (else session 16's)",
    )
    ap.add_argument(
        "--features",
        default="",
        help="comma-separated recogniser features (default: ClassifyParams.machine_features)",
    )
    args = ap.parse_args()
    p = ClassifyParams()
    names = tuple(args.features.split(",")) if args.features else p.machine_features
    rows: list[Row] = []
    for folder, pairs in args.routes:
        rows += routes_rows(Path(folder), Path(pairs), {}, p)
    pac = pac_rows(args.pac, args.rewrites_pac, p) if args.pac else []
    if args.fit_pac:
        rows, pac = rows + pac, []
    bar = p.decider_bar
    w = dict(zip(p.direction_evidence, p.direction_weights))["model_style"]
    mass = SESSION16
    rw = [r for r in rows if r.rewrite]
    mach = [r for r in rows if not r.rewrite]
    tr = train_rows(rows)
    print(
        f"{len(rw)} rewrites, {len(mach)} machine-made derivatives; the recogniser is asked "
        f"about {len(tr)} pairs ({sum(r.rewrite for r in tr)} model-written); C {args.C}; "
        f"lead settings {'re-chosen' if args.lead else 'as in session 16'}"
    )

    m = fit(rows, names, args.C)
    t = choose(rows, m, bar, w, args.lead, p)
    print(f"\nchosen on all rows: {t}")
    print("  weights: " + ", ".join(f"{n} {v:+.4f}" for n, v in zip(m.names, m.weights)))
    print(f"  machine_weights = {m.weights}\n  machine_bias = {m.bias}")
    if t is None:
        return 1
    a = recogniser_accuracy(rows, m, t.cut)
    print(
        f"  recogniser in-sample at cut {t.cut}: machine-made {a[0]}/{a[1]}, model-written "
        f"{a[2]}/{a[3]}, accuracy {(a[0] + a[2]) / (a[1] + a[3]):.3f}"
    )

    base = {id(r): rule(r, bar, w) for r in rows}
    keep = [r for r in mach if outcome(r, base[id(r)]) == "R"]
    print("  per cut at the chosen lead settings: rewrites R/U/W; machine-made pairs under the")
    print("  margin; machine-made pairs touched; recogniser right (machine-made, model-written)")
    for cut in CUTS:
        tc = Lead(cut, t.lead_min, t.weight, t.written)
        c = Counter(outcome(r, led(r, m, tc, bar, w)) for r in rw)
        bad = sum(
            led(r, m, tc, bar, w) * r.truth < min(TWO_STAGE_MARGIN, base[id(r)] * r.truth)
            for r in keep
        )
        touched = sum(led(r, m, tc, bar, w) != base[id(r)] for r in mach)
        a = recogniser_accuracy(rows, m, cut)
        pa_ = recogniser_accuracy(pac, m, cut) if pac else (0, 0, 0, 0)
        pc = Counter(outcome(r, led(r, m, tc, bar, w)) for r in pac)
        print(
            f"    cut {cut}: {_fmt(c, len(rw))}; under margin {bad}; touched {touched}; "
            f"{a[0]}/{a[1]}, {a[2]}/{a[3]}"
            + (f"; PAC {_fmt(pc, len(pac))}, model-written {pa_[2]}/{pa_[3]}" if pac else "")
        )

    def table(sel_rows: list[Row], label: str) -> None:
        kinds = sorted({r.kind for r in sel_rows})
        print(f"\n{label}: decider rule / session-16 mass bar / recogniser (R/U/W)")
        for k in [*kinds, "rewrites", "machine-made"]:
            sel = [
                r
                for r in sel_rows
                if r.kind == k
                or (k == "rewrites" and r.rewrite)
                or (k == "machine-made" and not r.rewrite)
            ]
            if not sel:
                continue
            c0 = Counter(outcome(r, rule(r, bar, w)) for r in sel)
            c1 = Counter(outcome(r, two_stage(r, mass, bar, w, p)) for r in sel)
            c2 = Counter(outcome(r, led(r, m, t, bar, w)) for r in sel)
            print(
                f"  {k:20s} {len(sel):4d}  {_fmt(c0, len(sel)):18s} {_fmt(c1, len(sel)):18s} "
                f"{_fmt(c2, len(sel))}"
            )

    for s in sorted({r.set for r in rows}):
        table([r for r in rows if r.set == s], f"in-sample, {s}")
    ms = tune_margin(rw, style_call, STYLE_GRID)
    print(
        f"  style alone, given the pair (margin {ms}, tuned in-sample): "
        f"{_fmt(Counter(style_call(r, ms) for r in rw), len(rw))}"
    )
    for r in mach:
        if led(r, m, t, bar, w) != rule(r, bar, w):
            print(
                f"  leads on machine-made: {r.set} {r.kind} p={m.prob(r):.2f} style "
                f"{r.pa:.2f}->{r.pb:.2f} truth {r.truth:+d} rest {r.rest:+.2f}"
            )
    for r in rw:
        if style_speaks(r) and m.prob(r) >= t.cut:
            print(
                f"  rewrite read machine-made: {r.kind} p={m.prob(r):.2f} style "
                f"{r.pa:.2f}->{r.pb:.2f} truth {r.truth:+d} rest {r.rest:+.2f} "
                f"-> {outcome(r, led(r, m, t, bar, w))}"
            )
    if pac:
        table(pac, "PAC rewrites (read, not fitted on), fit of all rows")
        ap_ = recogniser_accuracy(pac, m, t.cut)
        print(f"  recogniser on PAC rewrites: model-written {ap_[2]}/{ap_[3]}")
        for r in pac:
            o = outcome(r, led(r, m, t, bar, w))
            if o != "R":
                print(
                    f"  PAC {r.kind} {o} found {r.found} typed {r.typed} "
                    f"p={m.prob(r) if style_speaks(r) else float('nan'):.2f} "
                    f"style {r.pa} -> {r.pb} truth {r.truth:+d} rest {r.rest:+.2f}"
                )

    print("\ngrouped 5-fold cross-validation by source article (fit and choice per fold):")
    groups = sorted({r.group for r in rows})
    shares, accs = [], []
    for seed in range(args.seeds):
        fold = group_folds(groups, seed)
        got, got_mass, mach_got, lost, acc, picks = (
            Counter(),
            Counter(),
            Counter(),
            0,
            [0, 0, 0, 0],
            [],
        )
        sty = Counter()
        for f in range(5):
            trn = [r for r in rows if fold[r.group] != f]
            te = [r for r in rows if fold[r.group] == f]
            mf = fit(trn, names, args.C)
            tf = choose(trn, mf, bar, w, args.lead, p)
            picks.append(tf and (tf.cut, tf.lead_min, tf.weight, tf.written))
            ms_f = tune_margin([r for r in trn if r.rewrite], style_call, STYLE_GRID)
            for i, v in enumerate(recogniser_accuracy(te, mf, tf.cut if tf else 0.5)):
                acc[i] += v
            for r in te:
                o = outcome(r, led(r, mf, tf, bar, w))
                if r.rewrite:
                    got[o] += 1
                    got[(r.kind, o)] += 1
                    got[(r.set, o)] += 1
                    got_mass[outcome(r, two_stage(r, mass, bar, w, p))] += 1
                    sty[style_call(r, ms_f)] += 1
                else:
                    mach_got[o] += 1
                    lost += outcome(r, rule(r, bar, w)) == "R" and o != "R"
        n = len(rw)
        shares.append(got["R"] / n)
        accs.append((acc[0] + acc[2]) / (acc[1] + acc[3]))
        kinds = sorted({r.kind for r in rw})
        print(
            f"  seed {seed}: rewrites {_fmt(got, n)} ("
            + ", ".join(f"{k} {got[(k, 'R')]}/{got[(k, 'U')]}/{got[(k, 'W')]}" for k in kinds)
            + "; "
            + ", ".join(
                f"{s_} {got[(s_, 'R')]}/{got[(s_, 'U')]}/{got[(s_, 'W')]}"
                for s_ in sorted({r.set for r in rw})
            )
            + f"); machine-made right {mach_got['R']} of {len(mach)} (lost against the "
            f"decider rule: {lost}); recogniser OOF: machine-made {acc[0]}/{acc[1]}, "
            f"model-written {acc[2]}/{acc[3]}, accuracy {accs[-1]:.3f}; "
            f"style alone {sty['R'] / n:.3f}; picks {picks}"
        )
    if not shares:
        return 0
    print(
        f"  mean over seeds: rewrites right {np.mean(shares):.3f} (min {min(shares):.3f}, "
        f"max {max(shares):.3f}); recogniser accuracy {np.mean(accs):.3f}; the session-16 "
        f"mass bar (session 16's settings) {_fmt(got_mass, len(rw))}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
