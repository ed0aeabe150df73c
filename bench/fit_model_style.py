"""Fit the style model behind the ``model_style`` direction evidence and write the shipped
coefficients file (``src/unspin/data/model_style.json``).

Usage: PYTHONPATH=src:bench .venv/bin/python bench/fit_model_style.py [--train /work/mstyle-train]
           [--rewrites /work/rewrites] [--routes /work/deriv3/routes-tune]
           [--held /work/deriv3/routes-held] [--mixed /work/deriv3/mixed-tune51]
           [--reu-tune /work/deriv3/reu-tune61s] [--out src/unspin/data/model_style.json]

Training data, kept apart from every evaluation set (the held routes set, PAC dev and its
rewrites, NTREX, MEANTIME, the Reuters slice 15,501-19,000 judged by hand):

* written by a language model (label 1): the 60 tune-split rewrites of
  ``/work/rewrites`` (``t01``-``t20`` in ``same``, ``condensed``, ``framed``; the held
  ``h*`` files are never read) and the rewrites in ``--train`` (its ``manifest.json``:
  ECB+ dev articles rewritten as a content farm instructs a model: same-length
  paraphrase, condensed, SEO blog post, new framing with an invented outlet, neutral
  news tone);
* written by people or machines that are not language models (label 0): the 20 BBC
  sources of the tune rewrites, the other BBC originals of the routes tune set that the
  held set does not hold, every ECB+ dev article (the ``--train`` sources among them),
  300 Reuters-21578 items outside the Reuters tuning set and the judged slice, and the
  machine-made derivatives of the tuning sets: Apertium round trips (``mt_spa``,
  ``mt_cat``, ``mt_epo``, the mixed set's ``roundtrip``) and the thesaurus spinner
  (``synonym``). Machine translation and spinning are not model writing: the evidence
  must stay silent on them.

Features (:func:`unspin.evidence.style_row`): log(1 + rate per 1,000 of the writer's own
words, quotations left out) of common English words (``wordfreq`` zipf >= ``--zipf``) and
of adjacent pairs of such words, used by at least ``--min-df`` of the training texts;
and the sentence-shape statistics of :data:`unspin.evidence.STYLE_SHAPES`. Model:
L1-regularised logistic regression (few terms carry weight), the two labels weighed
alike; ``C`` chosen by five-fold cross-validation grouped by source article (a source
and its rewrites in one fold), the smallest ``C`` within 0.01 of the best log-loss.
Prints the cross-validated probabilities by kind of text and the weightiest terms.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from common import SHARED
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

from unspin.evidence import STYLE_SHAPES, style_row, style_terms, style_view
from unspin.normalise import normalise_text, text_hash, zipf

ROUTE_MACHINE = {"mt_spa", "mt_cat", "mt_epo", "synonym"}


def _key(text: str) -> str:
    return hashlib.md5(re.sub(r"\W+", " ", text.lower()).strip()[:400].encode()).hexdigest()


def oof_key(text: str) -> str:
    """The key of a text in the ``--oof`` table (its normal form's hash)."""
    return text_hash(normalise_text(text))


def _jsonl(path: Path) -> list[dict]:
    op = gzip.open if str(path).endswith(".gz") else open
    with op(path, "rt", encoding="utf-8") as f:
        return [json.loads(x) for x in f if x.strip()]


def _ecb_text(text: str) -> str:
    """An ECB+ article without its leading URL line(s) (the crawl's, not the writer's)."""
    return "\n".join(x for x in text.split("\n") if not x.lstrip().startswith("http"))


def load_rows(args) -> list[dict]:
    """Training texts: dicts with text, label (1: model-written), kind and group."""
    rows: list[dict] = []
    bbc = {r["id"]: r for r in _jsonl(SHARED / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz")}
    held = json.loads((Path(args.held) / "manifest.json").read_text())["corpus_ids"]
    held_ids, held_keys = set(held.values()), set()
    for r in _jsonl(Path(args.held) / "articles.jsonl"):
        held_keys.add(_key(r["text"]))

    def bbc_text(cid: str) -> str:
        r = bbc[cid]
        return f"{r['title']}\n\n{r['text']}"

    # model-written: the tune-split rewrites and their BBC sources
    man = json.loads((Path(args.rewrites) / "manifest.json").read_text())
    for m in man:
        if m["split"] != "tune":
            continue
        cid = m["corpus_id"]
        rows.append(dict(text=bbc_text(cid), label=0, kind="bbc_source", group=f"bbc:{cid}"))
        for style in ("same", "condensed", "framed"):
            t = (Path(args.rewrites) / style / m["file"]).read_text(encoding="utf-8")
            rows.append(dict(text=t, label=1, kind=f"tune_{style}", group=f"bbc:{cid}"))
    # model-written: this session's rewrites of ECB+ dev articles
    ecb = {r["doc_id"]: r for r in _jsonl(SHARED / "data" / "ecbplus_dev.jsonl")}
    tm = json.loads((Path(args.train) / "manifest.json").read_text())
    for m in tm["rewrites"]:
        t = (Path(args.train) / m["file"]).read_text(encoding="utf-8")
        rows.append(
            dict(text=t, label=1, kind=f"train_{m['style']}", group=f"ecb:{m['source_id']}")
        )
    for doc_id, r in ecb.items():
        text = _ecb_text(r["text"])
        if len(text.split()) >= 80:
            rows.append(dict(text=text, label=0, kind="ecb", group=f"ecb:{doc_id}"))
    # people: BBC originals of the routes tune set that the held set does not hold
    tune_man = json.loads((Path(args.routes) / "manifest.json").read_text())["corpus_ids"]
    labels = _jsonl(Path(args.routes) / "labels.jsonl")
    derived = {x["derivative"] for x in labels}
    seen = {r["group"] for r in rows}
    arts = {r["id"]: r for r in _jsonl(Path(args.routes) / "articles.jsonl")}
    for aid, r in arts.items():
        cid = tune_man.get(aid)
        if aid in derived or cid is None or cid in held_ids or f"bbc:{cid}" in seen:
            continue
        if _key(r["text"]) in held_keys:
            continue
        rows.append(dict(text=r["text"], label=0, kind="bbc", group=f"bbc:{cid}"))
    # machines: the tune routes' round trips and spinner, the mixed set's round trips
    for x in labels:
        if x["kind"] in ROUTE_MACHINE:
            src = tune_man.get(x["source"], x["source"])
            rows.append(
                dict(
                    text=arts[x["derivative"]]["text"], label=0, kind=x["kind"], group=f"bbc:{src}"
                )
            )
    mix_arts = {r["id"]: r for r in _jsonl(Path(args.mixed) / "articles.jsonl")}
    mix_man = json.loads((Path(args.mixed) / "manifest.json").read_text())["corpus_ids"]
    for x in _jsonl(Path(args.mixed) / "labels.jsonl"):
        if x["kind"] == "roundtrip":
            src = mix_man.get(x["source"], x["source"])
            if src in held_ids:
                src = f"heldsrc:{src}"  # its text is the held set's: only the round trip
            rows.append(
                dict(text=mix_arts[x["derivative"]]["text"], label=0, kind="roundtrip",
                     group=f"bbc:{src}")
            )  # fmt: skip
    # people: Reuters items outside the Reuters tuning set and the judged slice
    reu_tune = {_key(r["text"]) for r in _jsonl(Path(args.reu_tune) / "articles.jsonl")}
    reu = []
    for i, r in enumerate(_jsonl(SHARED / "data" / "reuters21578" / "reuters21578.jsonl.gz"), 1):
        body = r.get("body") or ""
        if i >= 15_501 or len(body.split()) < 120 or _key(body) in reu_tune:
            continue
        reu.append((i, f"{r.get('title') or ''}\n\n{body}"))
    for i, t in random.Random(13).sample(reu, min(args.reuters, len(reu))):
        rows.append(dict(text=t, label=0, kind="reuters", group=f"reu:{i}"))
    return rows


def vocabulary(views: list, min_df: float, min_zipf: float) -> list[str]:
    """Words of zipf >= ``min_zipf`` and pairs of such words, in >= ``min_df`` of the texts."""
    df: Counter[str] = Counter()
    for v in views:
        df.update(style_terms(v.own).keys())
    common: dict[str, bool] = {}

    def ok(w: str) -> bool:
        if w not in common:
            z = zipf(w, "en")
            common[w] = (
                bool(re.fullmatch(r"[a-z]+(?:'[a-z]+)?", w)) and z is not None and z >= min_zipf
            )
        return common[w]

    need = min_df * len(views)
    return sorted(t for t, n in df.items() if n >= need and all(ok(w) for w in t.split(" ")))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="/work/mstyle-train")
    ap.add_argument("--rewrites", default="/work/rewrites")
    ap.add_argument("--routes", default="/work/deriv3/routes-tune")
    ap.add_argument("--held", default="/work/deriv3/routes-held")
    ap.add_argument("--mixed", default="/work/deriv3/mixed-tune51")
    ap.add_argument("--reu-tune", default="/work/deriv3/reu-tune61s")
    ap.add_argument("--reuters", type=int, default=300)
    ap.add_argument("--min-df", type=float, default=0.03)
    ap.add_argument("--zipf", type=float, default=5.0)
    ap.add_argument("--grid", type=float, nargs="+", default=[0.003, 0.01, 0.03])
    ap.add_argument("--show", type=int, default=40)
    ap.add_argument("--min-words", type=int, default=80)
    ap.add_argument("--out", default="src/unspin/data/model_style.json")
    ap.add_argument(
        "--oof",
        default="/work/mstyle-train/oof.json",
        help="write each training text's cross-validated probability here (for fit_classify.py)",
    )
    ap.add_argument("--dry-run", action="store_true", help="print, do not write the model")
    args = ap.parse_args()

    rows = [r for r in load_rows(args)]
    views = [style_view(r["text"]) for r in rows]
    keep = [i for i, v in enumerate(views) if len(v.own) >= args.min_words]
    rows, views = [rows[i] for i in keep], [views[i] for i in keep]
    kinds = np.array([r["kind"] for r in rows])
    print("texts:", dict(Counter(kinds)))
    terms = vocabulary(views, args.min_df, args.zipf)
    shapes = list(STYLE_SHAPES)
    X = np.array([style_row(v, terms, shapes) for v in views])
    y = np.array([r["label"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    print(
        f"{len(terms)} terms, {len(shapes)} shapes; {int(y.sum())} model-written,"
        f" {int((1 - y).sum())} not"
    )
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - mean) / scale
    folds = list(GroupKFold(5).split(Z, y, groups))

    def fit(C: float, idx: np.ndarray) -> LogisticRegression:
        return LogisticRegression(
            C=C, solver="liblinear", class_weight="balanced", max_iter=5000
        ).fit(Z[idx], y[idx])

    oof_by_c = {}
    print("\nC (L2): grouped 5-fold AUC")
    for C in args.grid:
        oof = np.zeros(len(y))
        for tr, te in folds:
            oof[te] = fit(C, tr).decision_function(Z[te])
        oof_by_c[C] = oof
        print(f"  {C:6}: {roc_auc_score(y, oof):.4f}")
    C = max(oof_by_c, key=lambda c: roc_auc_score(y, oof_by_c[c]))
    # Platt scaling of the cross-validated scores, the two labels weighed alike
    cal = LogisticRegression(C=1e6, class_weight="balanced").fit(oof_by_c[C][:, None], y)
    slope, offset = float(cal.coef_[0][0]), float(cal.intercept_[0])
    oof = slope * oof_by_c[C] + offset
    print(f"\nchosen C {C}; calibration slope {slope:.3f}, offset {offset:.3f}")
    print("cross-validated calibrated probability by kind (mean; share >= 0.5; <= 0.2):")
    per = defaultdict(list)
    for k, z in zip(kinds, oof):
        per[k].append(1 / (1 + np.exp(-z)))
    for k in sorted(per):
        p = np.array(per[k])
        print(
            f"  {k:18s} n={len(p):4d}  mean {p.mean():.3f}  >=0.5 {np.mean(p >= 0.5):.3f}"
            f"  <=0.2 {np.mean(p <= 0.2):.3f}"
        )
    # pairs: a text written by a model or a machine beside its human source
    src: dict[str, int] = {}
    for i, r in enumerate(rows):
        if r["kind"] in ("bbc_source", "ecb", "bbc"):
            src.setdefault(r["group"], i)
    machine = ROUTE_MACHINE | {"roundtrip"}
    pairs = [(i, src[groups[i]]) for i in range(len(y)) if y[i] == 1 and groups[i] in src]
    mpairs = [
        (i, src[groups[i]]) for i in range(len(y)) if kinds[i] in machine and groups[i] in src
    ]
    print(
        "\nthe direction rule on cross-validated scores: model-written side p >= written, the"
        f" other at least margin lower in log-odds; {len(pairs)} rewrite/source pairs,"
        f" {len(mpairs)}"
        " machine/source pairs (right = the derivative read as model-written)"
    )
    for written in (0.2, 0.3, 0.4, 0.5):
        for margin in (0.5, 1.0, 1.5, 2.0):
            w0 = np.log(written / (1 - written))
            got = []
            for ps in (pairs, mpairs):
                r = w = 0
                for i, j in ps:
                    hi = max(oof[i], oof[j])
                    if hi >= w0 and abs(oof[i] - oof[j]) >= margin:
                        r += oof[i] > oof[j]
                        w += oof[i] < oof[j]
                got.append(f"{r}/{w}")
            print(
                f"  written {written} margin {margin}: rewrites right/wrong {got[0]};"
                f" machine {got[1]}"
            )
    model = fit(C, np.arange(len(y)))
    coef = model.coef_[0]
    names = terms + shapes
    order = np.argsort(-np.abs(coef))
    print("\nweightiest inputs (standardised; > 0: reads model-written):")
    for i in order[: args.show]:
        kind = "shape" if i >= len(terms) else "term"
        print(f"  {names[i]:22s} {kind:5s} {coef[i]:+.3f}")
    share = np.abs(coef) / np.abs(coef).sum()
    print(
        f"largest single share of the total |weight|: {share.max():.3f};"
        f" top 10: {np.sort(share)[-10:].sum():.3f}"
    )
    out = dict(
        note="written by bench/fit_model_style.py; see docs/benchmarks.md (session 13)",
        C=C,
        min_words=args.min_words,
        n_texts=dict(Counter(kinds.tolist())),
        intercept=round(float(model.intercept_[0]), 5),
        calibration=[round(slope, 5), round(offset, 5)],
        terms=terms,
        shapes=shapes,
        mean=[round(float(v), 5) for v in mean],
        scale=[round(float(v), 5) for v in scale],
        coef=[round(float(v), 5) for v in coef],
    )
    oof_p = {oof_key(r["text"]): round(float(1 / (1 + np.exp(-z))), 5) for r, z in zip(rows, oof)}
    if args.dry_run:
        print("\n(dry run: nothing written)")
        return 0
    Path(args.out).write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    Path(args.oof).write_text(json.dumps(oof_p) + "\n", encoding="utf-8")
    print(
        f"\nwrote {args.out}: {len(names)} inputs; {args.oof}: {len(oof_p)} cross-validated"
        " probabilities"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
