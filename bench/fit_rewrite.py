"""Fit the rewrite-of-one-text model (``ClassifyParams.rewrite_*``); print what to ship.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/fit_rewrite.py --routes FOLDER
           [--routes FOLDER ...] [--routes-cache DIR] [--cache DIR] [--rows FILE]
           [--neg-weight 3] [--C 1] [--max-claims 0.01] [--features F1,F2,...]

Tuning data only:

* ``--routes``: ``unspin eval make-routes ... --split tune --routes rewrite_condensed``
  folders made from model-written condensed rewrites of the tune split; every labelled
  (source, rewrite) pair is a positive, every other same-language candidate pair of the
  folder a negative (kind ``bbc_other``);
* independent coverage: same-event pairs of the ECB+ dev training topics (fold A: odd
  topics) and of the PAC dev training events (fold A), as ``bench/fit_story_model.py``
  splits them (kinds ``ecb_same`` / ``pac_same``; pairs of two events ``*_other``);
* wire items (``--reuters SKIP``, repeatable: the 3,500 Reuters-21578 articles with a body
  from the SKIP-th, with their dates): the pairs read by hand as claimed ``same_story``
  (``bench/reuters_same_story_read.tsv``, either verdict: one event's two items or two
  items of one template, never one text rewritten) and as ``spun`` read wrong
  (``bench/reuters_spun_read.tsv``), kind ``reuters_items``; the window's other pairs
  are not read and are left out. Blind reading of a window's *new* claims (pairs never
  read) is the check.

Every candidate pair the pipeline classifies is recorded (all typing features, and the
whole-text model's log-odds) with the rewrite model off. The model is a logistic
regression over ``ClassifyParams.rewrite_features`` on standardised features (weights
printed in raw units), each kind of pair weighing the same in all and the negatives
``--neg-weight`` times more. Out of fold (5 group folds: a source and its rewrite, an
ECB+ topic, a PAC event stay together) it prints, per cut, the share of each kind a
claim would take (pairs the whole-text model already calls whole counted as taken); the
cut shipped is the lowest of the grid whose new claims take at most ``--max-claims`` of
the training halves' same-event pairs of ECB+ and of PAC. The held halves (fold B) are
printed with the model fitted on all of fold A, for the record only.

``--read TSV`` (repeatable; ``bench/ecb_claims_read.tsv``, ``bench/ecb_rewrite_region_read.tsv``):
ECB+ pairs read blind; the new claims on same-event pairs are also printed split by
verdict (derived / independent / never read), per cut, for both halves: a guard counted
on read pairs instead of on every same-event pair (session 26 read the model's reach:
mostly independent, so the plain guard stands).

``--features``: fit over these typing features instead of the shipped
``ClassifyParams.rewrite_features`` (every registered typing feature is recorded in the
rows, so ``--rows`` written once serves every feature set). Each row also records
``carried``: the pieces the pair carries over and how many a whole claim needs
(:func:`unspin.evidence.carried_evidence`, the gate a rewrite claim must pass after the
model), so a row the model would take and the gate would drop can be told apart.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

import unspin.classify as classify_mod
from unspin.classify import ClassifyParams, other_days
from unspin.evidence import (
    TYPING_FEATURES,
    PairCtx,
    body_names,
    carried_evidence,
    whole_model,
)
from unspin.model import Article
from unspin.normalise import cross_language
from unspin.pipeline import Config, analyse, fingerprint
from unspin.store import Store

CUTS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
KINDS = ("rewrite", "ecb_same", "pac_same", "reuters_items", "ecb_other", "pac_other", "bbc_other")
#: kinds whose new claims the cut must keep under ``--max-claims``
GUARDED = ("ecb_same", "pac_same", "reuters_items")


def _recorder(out_dir: str):
    """A ``reuse_type`` that records every same-language pair's typing features."""
    inner = classify_mod.reuse_type

    def rec(a, b, al, p, align_params=None, support=None, ctx=None):
        c = ctx or PairCtx(a, b, al, p, support, align_params)
        res = inner(a, b, al, p, align_params, support, c)
        if a.norm_hash != b.norm_hash and not cross_language(a, b):
            row = {n: float(f(c)) for n, f in TYPING_FEATURES.items()}
            # the whole-text model's log-odds from the values just read (whole_score's sum),
            # less its cut's: >= 0 is whole (the model for scripts without capitals where
            # classify reads it)
            ws, bias, cut = whole_model(c)
            z = bias + sum(w * row[n] for n, w in zip(p.whole_features, ws))
            z -= math.log(cut / (1 - cut))
            row.update(
                a=a.id,
                b=b.id,
                z=z,
                rel=res[0],
                apart=other_days(a, b, p) is not None,
                # pieces carried over and how many a whole claim needs (classify's gate)
                carried=list(carried_evidence(c)),
                # of them, the body names (ClassifyParams.carried_body_names; 0 when off)
                body_names=len(body_names(c)) if p.carried_body_names else 0,
            )
            with open(Path(out_dir) / f"{os.getpid()}.jsonl", "a") as fh:
                fh.write(json.dumps(row) + "\n")
        return res

    return rec


def record(arts: list[Article], store: str | None) -> list[dict]:
    """Rows of every same-language candidate pair of ``arts`` (rewrite model off)."""
    cfg = Config()
    cfg = replace(cfg, classify=replace(cfg.classify, rewrite_model=False))
    st = Store(store) if store else None
    docs = fingerprint(arts, cfg, cache=st)
    if st is not None:
        st.commit()
    with tempfile.TemporaryDirectory() as tmp:
        inner, classify_mod.reuse_type = classify_mod.reuse_type, _recorder(tmp)
        try:
            analyse(docs, cfg, cache=st)
        finally:
            classify_mod.reuse_type = inner
            if st is not None:
                st.close()
        rows: dict[tuple[str, str], dict] = {}
        for f in Path(tmp).glob("*.jsonl"):
            for line in f.open():
                r = json.loads(line)
                rows[(r["a"], r["b"])] = r
    return list(rows.values())


def collect(args) -> list[dict]:
    from common import ecbplus
    from fit_story_model import ecb_fold, pac, pac_fold

    out = []
    arts, sub, top = ecbplus()
    for r in record(arts, f"{args.cache}/ecb"):
        same = sub[r["a"]] == sub[r["b"]]
        fold = ecb_fold(top[r["a"]])
        out.append(
            dict(r, kind="ecb_same" if same else "ecb_other", fold=fold, group="e" + top[r["a"]])
        )
    arts, event = pac()
    for r in record(arts, f"{args.cache}/pac"):
        same = event[r["a"]] == event[r["b"]]
        fold = pac_fold(event[r["a"]])
        out.append(
            dict(r, kind="pac_same" if same else "pac_other", fold=fold, group="p" + event[r["a"]])
        )
    from common import read_verdicts
    from eval_duplicates import load

    here = Path(__file__).parent
    story = read_verdicts(here / "reuters_same_story_read.tsv")
    spun = read_verdicts(here / "reuters_spun_read.tsv")
    items = set(story) | {k for k, right in spun.items() if not right}
    seen: set[tuple[str, str]] = set()  # windows overlap: a pair once
    for skip in args.reuters:
        arts = load("reuters", 3500, skip=skip, dates=True)
        cache = f"{args.cache}/reuters-s{skip}"
        for r in record(arts, cache if Path(cache).exists() else None):
            pair = tuple(sorted((r["a"], r["b"])))
            if pair in items and pair not in seen:
                seen.add(pair)
                out.append(dict(r, kind="reuters_items", fold="A", group="r" + min(r["a"], r["b"])))
    for folder in args.routes:
        labels = [json.loads(x) for x in open(Path(folder) / "labels.jsonl")]
        pos = {frozenset((x["a"], x["b"])): x["source"] for x in labels}
        arts = [
            Article(**{k: v for k, v in json.loads(x).items() if k in ("id", "title", "text")})
            for x in open(Path(folder) / "articles.jsonl")
        ]
        for r in record(arts, args.routes_cache):
            src = pos.get(frozenset((r["a"], r["b"])))
            kind = "rewrite" if src else "bbc_other"
            out.append(
                dict(r, kind=kind, fold="A", group="b" + (src or r["a"]), set=Path(folder).name)
            )
    return out


def _verdicts(paths: list[str]) -> dict[frozenset, str]:
    """Blind-read verdicts by pair (``set a b ... verdict ...`` TSV, ``#`` lines skipped)."""
    import csv

    out: dict[frozenset, str] = {}
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for r in csv.DictReader((x for x in fh if not x.startswith("#")), delimiter="\t"):
                out.setdefault(frozenset((r["a"], r["b"])), r["verdict"])
    return out


def _print_read(paths, rows, kinds, fold, eligible, oof, full, shipped) -> None:
    """New claims on ECB+ same-event pairs by blind-read verdict, per cut and half."""
    verdict = _verdicts(paths)
    gate = np.array([r["carried"][0] >= r["carried"][1] for r in rows])
    print(
        "\nnew claims on ECB+ same-event pairs that pass the carried-evidence gate, by "
        "blind-read verdict (derived / independent / not read); fold A out of fold, "
        "fold B by the model of fold A"
    )
    print("| cut | fold A | fold B |")
    print("|---|---|---|")
    for c in sorted({*CUTS, 0.02, 0.05, 0.1, 0.2, 0.3}):
        cells = []
        for half, prob in (("A", oof), ("B", full)):
            m = (kinds == "ecb_same") & (fold == half) & eligible & gate & (prob >= c)
            n = Counter(
                verdict.get(frozenset((rows[i]["a"], rows[i]["b"])), "unread")
                for i in np.where(m)[0]
            )
            cells.append(f"{n['derived']} / {n['independent']} / {n['unread']}")
        mark = " (cut)" if c == shipped else ""
        print(f"| {c}{mark} | " + " | ".join(cells) + " |")


def _folds(rows, tr, y, groups, how):
    """(train, test) index arrays into ``tr``: 5 group folds, or (``how`` "set") one fold
    per routes folder, every other pair (ECB+, PAC, Reuters) spread over the same number
    of folds by its group, so each fold holds out one writer's rewrites whole."""
    if how == "group":
        yield from GroupKFold(5).split(tr, y[tr], groups[tr])
        return
    sets = sorted({rows[i]["set"] for i in tr if rows[i].get("set")})
    if len(sets) < 2:
        raise SystemExit("--cv set: needs rows of at least two routes folders")
    place = np.full(len(tr), -1)
    routed = np.array([bool(rows[i].get("set")) for i in tr])
    for k, i in enumerate(tr):
        if routed[k]:
            place[k] = sets.index(rows[i]["set"])
    rest = np.where(~routed)[0]
    for f, (_, j) in enumerate(GroupKFold(len(sets)).split(rest, groups=groups[tr][rest])):
        place[rest[j]] = f
    for f in range(len(sets)):
        yield np.where(place != f)[0], np.where(place == f)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--routes", action="append", default=[])
    ap.add_argument("--routes-cache", default="/work/deriv6/cache-t6")
    ap.add_argument("--cache", default="/work/cache", help="stores DIR/ecb and DIR/pac")
    ap.add_argument("--reuters", type=int, action="append", default=[], help="window start")
    ap.add_argument("--rows", default="", help="read rows here if it exists, else write them")
    ap.add_argument("--neg-weight", type=float, default=3.0)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--max-claims", type=float, default=0.01)
    ap.add_argument("--dump", default="", help="write each row's ids, kind, fold, probabilities")
    ap.add_argument("--read", action="append", default=[], help="TSV of ECB+ pairs read blind")
    ap.add_argument(
        "--features", default="", help="comma-separated typing features (default: shipped)"
    )
    ap.add_argument(
        "--cv",
        choices=("group", "set"),
        default="group",
        help="out-of-fold folds: 5 group folds (default), or one fold per routes folder "
        "(a writer's set held out whole; the other pairs spread over the folds by group)",
    )
    args = ap.parse_args()
    names = tuple(args.features.split(",")) if args.features else ClassifyParams().rewrite_features
    if unknown := [n for n in names if n not in TYPING_FEATURES]:
        ap.error(f"--features: not registered typing features: {', '.join(unknown)}")
    if args.rows and Path(args.rows).exists():
        rows = [json.loads(x) for x in open(args.rows)]
    else:
        if not args.routes:
            ap.error("--routes: at least one tune routes folder with rewrites")
        rows = collect(args)
        if args.rows:
            with open(args.rows, "w") as fh:
                fh.writelines(json.dumps(r) + "\n" for r in rows)
    X = np.array([[r[n] for n in names] for r in rows])
    kinds = np.array([r["kind"] for r in rows])
    y = (kinds == "rewrite").astype(int)
    fold = np.array([r["fold"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    whole = np.array([r["z"] >= 0 for r in rows])
    # the rewrite model speaks only where the whole-text model did not call the pair whole
    # and the aligned passages, if any, are reworded (``ClassifyParams.copy_verbatim``)
    bar = ClassifyParams().copy_verbatim
    # and not between two texts of other calendar days (``classify.other_days``)
    eligible = np.array(
        [r["z"] < 0 and r["verbatim"] < bar and not r.get("apart", False) for r in rows]
    )
    print("pairs:", dict(Counter(kinds.tolist())), file=sys.stderr)
    print(
        "the whole-text model alone on the rewrites:",
        dict(Counter(r["rel"] for r in rows if r["kind"] == "rewrite")),
    )
    tr = np.where(fold == "A")[0]
    mu, sd = X[tr].mean(0), X[tr].std(0) + 1e-9
    Z = (X - mu) / sd

    def weights(idx: np.ndarray) -> np.ndarray:
        w = np.zeros(len(idx))
        for k in set(kinds[idx]):
            m = kinds[idx] == k
            w[m] = (1.0 if k == "rewrite" else args.neg_weight) / m.sum()
        return w * len(idx)

    def fit(idx: np.ndarray) -> LogisticRegression:
        return LogisticRegression(C=args.C, max_iter=5000).fit(
            Z[idx], y[idx], sample_weight=weights(idx)
        )

    oof = np.zeros(len(rows))
    for i, j in _folds(rows, tr, y, groups, args.cv):
        oof[tr[j]] = fit(tr[i]).predict_proba(Z[tr[j]])[:, 1]
    model = fit(tr)
    full = model.predict_proba(Z)[:, 1]
    print(
        "\nout of fold (training halves; taken = whole-text model or the rewrite model; "
        "new: by the rewrite model)"
    )
    print("| cut | " + " | ".join(KINDS) + " |")
    print("|---|" + "---|" * len(KINDS))
    chosen = None
    for cut in CUTS:
        cells, ok = [], True
        for k in KINDS:
            m = (kinds == k) & (fold == "A")
            new = (oof[m] >= cut) & eligible[m]
            cells.append(f"{np.mean(new | whole[m]):.3f} (+{int(new.sum())} of {int(m.sum())})")
            if k in GUARDED and new.sum() > args.max_claims * m.sum():
                ok = False
        if ok and chosen is None:
            chosen = cut
        print(f"| {cut} | " + " | ".join(cells) + " |")
    print(
        f"\ncut: {chosen} (lowest whose new claims take <= {args.max_claims:.0%} of each of "
        f"{', '.join(GUARDED)})"
    )
    cut = chosen if chosen is not None else CUTS[-1]
    gate = np.array([r["carried"][0] >= r["carried"][1] for r in rows])
    sets = sorted({r["set"] for r in rows if r.get("set")})
    if sets:
        print(
            f"\nrewrites taken out of fold at cut {cut}, per routes folder (taken: the "
            "whole-text model or the rewrite model; after gate: and the carried-evidence "
            "gate passed)"
        )
        print("| set | rewrites | taken | after gate |")
        print("|---|---|---|---|")
        for name in sets:
            m = (kinds == "rewrite") & np.array([r.get("set") == name for r in rows])
            took = whole[m] | ((oof[m] >= cut) & eligible[m])
            print(
                f"| {name} | {int(m.sum())} | {took.mean():.3f} | {(took & gate[m]).mean():.3f} |"
            )
    for k in ("ecb_same", "pac_same", "ecb_other", "pac_other"):
        m = (kinds == k) & (fold == "B")
        new = (full[m] >= cut) & eligible[m]
        print(f"held half (fold B) {k}: {int(new.sum())} new claims of {int(m.sum())} pairs")
    if args.read:
        _print_read(args.read, rows, kinds, fold, eligible, oof, full, cut)
    if args.dump:  # out of fold for the training halves, the model of fold A elsewhere
        with open(args.dump, "w") as fh:
            for k, r in enumerate(rows):
                prob = oof[k] if fold[k] == "A" else full[k]
                keep = {n: r.get(n) for n in ("a", "b", "kind", "fold", "z", "carried")}
                out = dict(keep, prob=float(prob), eligible=bool(eligible[k]))
                fh.write(json.dumps(out) + "\n")
    w = model.coef_[0] / sd
    b = model.intercept_[0] - float(np.sum(model.coef_[0] * mu / sd))
    print("\nrewrite_features =", names)
    print("rewrite_weights = (" + ", ".join(f"{x:.3f}" for x in w) + ")")
    print(f"rewrite_bias = {b:.3f}")
    print(f"rewrite_cut = {cut}")
    print(
        "standardised weights:", ", ".join(f"{n} {x:+.2f}" for n, x in zip(names, model.coef_[0]))
    )
    assert math.isfinite(b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
