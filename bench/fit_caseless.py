"""Fit the whole-derivative model for scripts without capitals
(``ClassifyParams.caseless_whole_*``) on rewrites and on independent reports written in
those scripts.

The whole-derivative model (``ClassifyParams.whole_weights``) was fitted on tuning sets
that are mostly English. Its name features read names by their capitals: in Japanese,
Korean, Chinese or Arabic text they are empty (``name_in`` 0.5, ``own_lo`` from figures
alone), so two independent reports of one event, which differ mostly in their names,
read like a text and its rewrite. This script gathers, in the languages of
``ClassifyParams.caseless_langs`` only:

* positives: the labelled rewrites of model-written rewrite sets (``--piles``: folders
  with ``articles.jsonl`` and ``labels.jsonl``, as ``bench/cached_eval.py routes`` reads),
  and the machine-translation round trips of non-English originals of such folders
  (``bench/lang_routes.py``: kinds ``lang_*``, relation ``spun``);
* negatives: unlabelled candidate pairs of those piles (a sample), and every candidate
  pair of hand-translated independent ECB+ reports (``--guard SETS:SELECTION:PREFIX``, the
  folders of ``bench/translated_guard.py``; each language's translations in one pile),
  same-event pairs apart from the rest;

then fits a logistic regression over the whole model's features (each kind of pair
weighs the same; negatives ``--neg-weight`` times more), cross-validated by leaving one
group (a pile, or a guard round) out at a time, beside the English fit read on the same
rows; C (``--C``, a list) and the cut are those with the most found minus
``--neg-weight`` x false claims out of group. Prints the parameters to ship. Only rows in
``--langs`` are fitted (shipped: Japanese, Korean, Chinese; Arabic, fitted with them,
lost design rewrites: docs/benchmarks.md, session 45). ``--rows`` keeps the rows, so a
refit does not scan again.

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/fit_caseless.py --cache DIR \
        --piles /work/lr41/rw-ja10 ... --guard /work/rw42:/work/rw42/ecb_selection.json:tr ... \
        --rows ROWS.jsonl --langs ja,ko,zh
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from translated_guard import translations

from unspin.align import align
from unspin.candidates import candidate_pairs
from unspin.classify import ClassifyParams
from unspin.corpus import CorpusSupport
from unspin.evidence import TYPING_FEATURES, PairCtx, carried_evidence, secondary_share
from unspin.model import Article
from unspin.pipeline import Config, fingerprint
from unspin.store import Store

POSITIVE = ("rewrite_same", "rewrite_condensed", "rewrite_framed", "mt_round_trip")


def _row(a, b, support, params: ClassifyParams, kind: str, group: str) -> dict:
    """The pair's whole-model features (``x``) and what the rest of classify's reading
    needs: the rewrite model's features (``rx``), the body-details share, the verbatim
    share, and the pieces carried (on the whole and on the rewrite path) and needed."""
    a, b = sorted((a, b), key=lambda d: d.id)
    al = align(a, b, Config().align)
    c = PairCtx(a, b, al, params, support)
    x = [float(TYPING_FEATURES[n](c)) for n in params.whole_features]
    rx = [float(TYPING_FEATURES[n](c)) for n in params.rewrite_features]
    got_w, need = carried_evidence(c)
    got_r, _ = carried_evidence(c, named_phrases=True)
    return dict(
        a=a.id, b=b.id, kind=kind, group=group, x=x, lang=a.lang, rx=rx,
        second=float(secondary_share(c)), verbatim=float(al.features["verbatim"]),
        got_w=got_w, got_r=got_r, need=need,
    )  # fmt: skip


def row_kind(label: dict) -> str:
    """A labelled pair's kind for the fit: a rewrite's style (``rewrite_condensed_es`` ->
    ``rewrite_condensed``), or ``mt_round_trip`` for a machine-translation round trip of a
    non-English original (``bench/lang_routes.py``: kind ``lang_<language>_<pivot>``,
    relation ``spun``), a whole derivative too."""
    if label["kind"].startswith("lang_") and label.get("relation") == "spun":
        return "mt_round_trip"
    return label["kind"].rsplit("_", 1)[0]


def pile_rows(
    folder: Path, store, params: ClassifyParams, n_unl: int, rng, langs: frozenset[str]
) -> list[dict]:
    arts = [
        Article(id=r["id"], text=r["text"], title=r.get("title"))
        for r in map(json.loads, open(folder / "articles.jsonl", encoding="utf-8"))
    ]
    labels = [json.loads(x) for x in open(folder / "labels.jsonl", encoding="utf-8")]
    docs = fingerprint(arts, Config(), cache=store)
    store.commit()
    support = CorpusSupport(docs)
    by_id = {d.id: d for d in docs}
    lab = {tuple(sorted((x["source"], x["derivative"]))): x for x in labels}
    der = {x["derivative"] for x in labels}
    origin = {x["derivative"]: x["source"] for x in labels}
    rows, unl = [], []
    for (i, j), x in lab.items():
        a, b = by_id[i], by_id[j]
        kind = row_kind(x)
        if a.lang == b.lang and a.lang in langs and kind in POSITIVE:
            rows.append(_row(a, b, support, params, kind, folder.name))
    for i, j in candidate_pairs(docs, Config().candidates):
        a, b = docs[i], docs[j]
        if a.lang != b.lang or a.lang not in langs:
            continue
        key = tuple(sorted((a.id, b.id)))
        if key in lab or (a.id in der and b.id in der):
            continue
        if origin.get(a.id) == b.id or origin.get(b.id) == a.id:
            continue
        unl.append((a, b))
    for a, b in rng.sample(unl, min(n_unl, len(unl))):
        rows.append(_row(a, b, support, params, "unlabelled", folder.name))
    print(f"{folder}: {len(rows)} rows", flush=True)
    return rows


def guard_rows(
    spec: str, langs: list[str], store, params: ClassifyParams, gather: frozenset[str]
) -> list[dict]:
    sets, selection, prefix = spec.split(":")
    sel = json.loads(Path(selection).read_text(encoding="utf-8"))
    event = {d: t for t, d in sel["docs"]}
    rows = []
    for lang in langs:
        folder = Path(sets) / f"{prefix}-{lang}"
        if not folder.exists():
            continue
        docs = fingerprint(translations(folder, lang), Config(), cache=store)
        store.commit()
        support = CorpusSupport(docs)
        for i, j in candidate_pairs(docs, Config().candidates):
            a, b = docs[i], docs[j]
            if a.lang != b.lang or a.lang not in gather:
                continue
            da, db = a.id.rsplit("/", 1)[0], b.id.rsplit("/", 1)[0]
            kind = "independent_event" if event[da] == event[db] else "independent_other"
            rows.append(_row(a, b, support, params, kind, prefix))
        print(f"{folder}: {len(rows)} rows so far", flush=True)
    return rows


def _fit(X, kinds, neg_weight: float, c: float):
    from sklearn.linear_model import LogisticRegression

    y = np.array([k in POSITIVE for k in kinds])
    count = Counter(kinds)
    w = np.array([(1.0 if k in POSITIVE else neg_weight) / count[k] for k in kinds])
    w *= len(w) / w.sum()
    return LogisticRegression(C=c, max_iter=20000).fit(X, y, sample_weight=w)


def _table(name: str, kinds, groups, pred) -> None:
    per: dict[str, Counter] = defaultdict(Counter)
    for k, g in zip(kinds, pred):
        per[k][bool(g)] += 1
    shown = "  ".join(f"{k} {per[k][True]}/{sum(per[k].values())}" for k in sorted(per))
    print(f"  {name:28s} whole: {shown}")


def readings(rows: list[dict], params: ClassifyParams, neg_weight: float) -> None:
    """classify's whole reading of each row with the shipped model for scripts without
    capitals, emulated (the whole-text model, then for a pair it leaves whose aligned
    text is reworded the rewrite model at its cut or in its band with the body-details
    share, then the pieces-carried gate), beside variants: no rewrite model, no band, the
    rewrite model refitted on these rows (one group out, its cut chosen as above), and
    the gate on the whole path lowered. (The whole model is in sample here: it was fitted
    on these rows.) Rows written by an older version of this script lack the fields."""
    p = params
    kinds = np.array([r["kind"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    X, RX = np.array([r["x"] for r in rows]), np.array([r["rx"] for r in rows])
    sec = np.array([r["second"] for r in rows])
    verb = np.array([r["verbatim"] for r in rows])
    got_w, got_r = np.array([r["got_w"] for r in rows]), np.array([r["got_r"] for r in rows])
    need = np.array([r["need"] for r in rows])
    pos = np.isin(kinds, POSITIVE)

    def sig(z):
        return 1 / (1 + np.exp(-z))

    whole = sig(X @ np.array(p.caseless_whole_weights) + p.caseless_whole_bias)
    whole = whole >= p.caseless_whole_cut
    reads = ~whole & (verb < p.copy_verbatim)

    def claims(rprob, cut, band=2.0, lower=0):
        second = (rprob >= band) & (rprob < cut) & (sec >= p.rewrite_secondary)
        taken = reads & ((rprob >= cut) | second)
        return (whole & (got_w >= np.maximum(need - lower, 0))) | (taken & (got_r >= need))

    def gain(c) -> float:
        return float((c & pos).sum() - neg_weight * (c & ~pos).sum())

    def show(name: str, c) -> None:
        per: dict[str, Counter] = defaultdict(Counter)
        for k, g in zip(kinds, c):
            per[k][bool(g)] += 1
        shown = "  ".join(f"{k} {per[k][True]}/{sum(per[k].values())}" for k in sorted(per))
        print(f"  {name:44s} gain {gain(c):5.0f}  {shown}")

    print("\nclassify's reading, emulated (claims after the gate):")
    shipped = sig(RX @ np.array(p.rewrite_weights) + p.rewrite_bias)
    show("shipped rewrite model (cut and band)", claims(shipped, p.rewrite_cut, p.rewrite_band))
    show("no rewrite model", claims(shipped, 2.0))
    show("rewrite model at its cut, no band", claims(shipped, p.rewrite_cut))
    for lower in (1, 2):
        show(
            f"whole path needs {lower} piece(s) fewer",
            claims(shipped, p.rewrite_cut, p.rewrite_band, lower),
        )
    for c in (0.3, 1.0, 3.0, 10.0):
        rprob = np.zeros(len(rows))
        for g in sorted(set(groups)):
            te = groups == g
            tr = reads & ~te
            rprob[te] = _fit(RX[tr], kinds[tr], neg_weight, c).predict_proba(RX[te])[:, 1]
        cut = max(np.arange(0.3, 0.96, 0.05), key=lambda t: gain(claims(rprob, t)))
        show(f"rewrite model refitted, C {c:g}, cut {cut:.2f}, no band", claims(rprob, cut))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", required=True)
    ap.add_argument("--piles", nargs="*", default=[])
    ap.add_argument("--guard", action="append", default=[], help="SETS:SELECTION:PREFIX")
    ap.add_argument("--langs", default="ja,ko,zh")
    ap.add_argument(
        "--gather", default="", help="languages whose pairs are gathered (default: caseless_langs)"
    )
    ap.add_argument("--unlabelled", type=int, default=60, help="unlabelled pairs per pile")
    ap.add_argument("--neg-weight", type=float, default=3.0)
    ap.add_argument("--C", default="0.3,1,3,10,30", help="inverse regularisation strengths tried")
    ap.add_argument("--rows", help="write the rows here (JSON lines) / read them if present")
    ap.add_argument(
        "--readings", action="store_true", help="also emulate classify's whole reading (readings())"
    )
    args = ap.parse_args()
    params = ClassifyParams()
    if args.rows and Path(args.rows).exists():
        rows = [json.loads(x) for x in open(args.rows, encoding="utf-8")]
    else:
        store = Store(args.cache)
        rng = random.Random(0)
        # the languages whose pairs are gathered (default: those the caseless reading is
        # for, ``ClassifyParams.caseless_langs``)
        row_langs = frozenset(args.gather.split(",")) if args.gather else params.caseless_langs
        rows = []
        for p in args.piles:
            rows += pile_rows(Path(p), store, params, args.unlabelled, rng, row_langs)
        for g in args.guard:
            rows += guard_rows(g, args.langs.split(","), store, params, row_langs)
        store.close()
        if args.rows:
            with open(args.rows, "w", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
    langs = set(args.langs.split(","))
    rows = [r for r in rows if r["lang"] in langs]  # the languages the model is for
    X = np.array([r["x"] for r in rows])
    kinds = np.array([r["kind"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    w0 = np.array(params.whole_weights)
    shipped = 1 / (1 + np.exp(-(X @ w0 + params.whole_bias))) >= params.whole_cut
    print(f"\n{len(rows)} rows: {dict(Counter(kinds))}")
    _table("shipped whole model", kinds, groups, shipped)
    pos = np.isin(kinds, POSITIVE)

    def gain(pred) -> float:  # found minus neg_weight x false claims
        return float((pred & pos).sum() - args.neg_weight * (pred & ~pos).sum())

    grid = np.round(np.arange(0.3, 0.951, 0.025), 3)
    print(f"\ngain (found - {args.neg_weight:g} x false) out of group: shipped {gain(shipped):.0f}")
    best = (-np.inf, 0.0, 0.5)
    for c in (float(x) for x in args.C.split(",")):
        prob = np.zeros(len(rows))
        for g in sorted(set(groups)):  # one pile, or one guard round, out at a time
            te = groups == g
            prob[te] = _fit(X[~te], kinds[~te], args.neg_weight, c).predict_proba(X[te])[:, 1]
        t = max(grid, key=lambda t: gain(prob >= t))
        print(f"  C {c:g}: best cut {t:g}, gain {gain(prob >= t):.0f}")
        _table(f"refit C {c:g}, one group out, cut {t:g}", kinds, groups, prob >= t)
        if gain(prob >= t) > best[0]:
            best = (gain(prob >= t), c, float(t))
    _, c, cut = best
    m = _fit(X, kinds, args.neg_weight, c)
    print(f"\nchosen: C {c:g}, cut {cut:g}")
    _table("refit, in sample", kinds, groups, m.predict_proba(X)[:, 1] >= cut)
    print("\ncaseless_whole_weights =", tuple(round(float(v), 3) for v in m.coef_[0]))
    print("caseless_whole_bias =", round(float(m.intercept_[0]), 3))
    print("caseless_whole_cut =", cut)
    for n, v in zip(params.whole_features, m.coef_[0]):
        print(f"  {n:10s} {v:+.3f}")
    if args.readings:
        readings(rows, params, args.neg_weight)
    return 0


if __name__ == "__main__":
    sys.exit(main())
