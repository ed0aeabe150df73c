"""Fit the style model of languages other than English behind the ``model_style`` direction
evidence (``src/unspin/data/model_style_intl.json``): sentence shapes and punctuation only
(:data:`unspin.evidence.STYLE_SHAPES`), no words, so one model reads every language with
word spacing.

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/fit_model_style_intl.py \
        --rewrites /work/lr33/rwes1/es1 /work/lr33/rwes2/es2 ... \
        --machine /work/lr33/tune/spa_eng ... [--out src/unspin/data/model_style_intl.json]

Training data (session 33, outside the repository; never the held sets it is reported on):

* written by a language model (label 1): the derivatives of the ``--rewrites`` piles
  (``bench/lang_routes.py --rewrites``: model-written rewrites of Spanish, French, German
  and Italian articles, same length / condensed / framed with an invented outlet);
* not (label 0): every original of those piles (NTREX and MEANTIME articles: written by
  people, professional translations of English news) and the machine-made derivatives of
  the ``--machine`` piles (Apertium round trips): machine translation is not model writing.

Model: L2 logistic regression, the two labels weighed alike, ``C`` by leave-one-pile-out
AUC; Platt calibration of the out-of-pile scores. Prints the out-of-pile probabilities by
kind and, per rewrite style, how often a rewrite reads more model-written than its source.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from unspin.evidence import STYLE_SHAPES, style_row, style_view

OUT = Path(__file__).resolve().parents[1] / "src" / "unspin" / "data" / "model_style_intl.json"


def load(rewrites: list[str], machine: list[str]) -> list[dict]:
    """Texts with label, kind, group (the pile) and id."""
    rows: list[dict] = []
    seen: set[str] = set()
    for folder, model in [(f, True) for f in rewrites] + [(f, False) for f in machine]:
        pile = Path(folder)
        arts = {a["id"]: a for a in map(json.loads, (pile / "articles.jsonl").open())}
        labels = [json.loads(x) for x in (pile / "labels.jsonl").open()]
        derived = {x["derivative"]: x for x in labels}
        for aid, a in arts.items():
            text = f"{a['title']}\n\n{a['text']}"
            if aid in derived:
                kind = derived[aid]["kind"] if model else "machine"
                rows.append(
                    dict(
                        id=aid,
                        text=text,
                        label=int(model),
                        kind=kind,
                        group=pile.name,
                        source=derived[aid]["source"],
                    )
                )
            elif model and aid not in seen:  # originals once, with the first pile that has them
                seen.add(aid)
                rows.append(dict(id=aid, text=text, label=0, kind="original", group=pile.name))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rewrites", nargs="+", required=True)
    ap.add_argument("--machine", nargs="*", default=[])
    ap.add_argument("--min-words", type=int, default=50)
    ap.add_argument("--grid", type=float, nargs="+", default=[0.01, 0.03, 0.1, 0.3, 1.0, 3.0])
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()

    rows = load(args.rewrites, args.machine)
    views = [style_view(r["text"]) for r in rows]
    keep = [i for i, v in enumerate(views) if len(v.own) >= args.min_words]
    rows, views = [rows[i] for i in keep], [views[i] for i in keep]
    shapes = list(STYLE_SHAPES)
    X = np.array([style_row(v, [], shapes) for v in views])
    y = np.array([r["label"] for r in rows])
    groups = np.array([r["group"] for r in rows])
    print("texts:", dict(Counter(r["kind"] for r in rows)))
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = (X - mean) / scale

    def fit(C: float, idx: np.ndarray) -> LogisticRegression:
        return LogisticRegression(C=C, class_weight="balanced", max_iter=5000).fit(Z[idx], y[idx])

    oof_by_c = {}
    for C in args.grid:
        oof = np.zeros(len(y))
        for g in sorted(set(groups)):
            te = groups == g
            oof[te] = fit(C, np.flatnonzero(~te)).decision_function(Z[te])
        oof_by_c[C] = oof
        print(f"C {C:5}: leave-one-pile-out AUC {roc_auc_score(y, oof):.4f}")
    C = max(oof_by_c, key=lambda c: roc_auc_score(y, oof_by_c[c]))
    cal = LogisticRegression(C=1e6, class_weight="balanced").fit(oof_by_c[C][:, None], y)
    slope, offset = float(cal.coef_[0][0]), float(cal.intercept_[0])
    prob = 1 / (1 + np.exp(-(slope * oof_by_c[C] + offset)))
    print(f"chosen C {C}; calibration slope {slope:.3f}, offset {offset:.3f}")
    per = defaultdict(list)
    for r, p in zip(rows, prob):
        per[r["kind"]].append(p)
    for k in sorted(per):
        p = np.array(per[k])
        print(f"  {k:24s} n={len(p):4d} mean {p.mean():.3f}  >=0.5 {np.mean(p >= 0.5):.3f}")
    at = {r["id"]: p for r, p in zip(rows, prob)}
    pairs: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        if r.get("source") in at:
            key = r["kind"] if r["label"] else "machine (derivative reads less)"
            better = at[r["id"]] > at[r["source"]] if r["label"] else at[r["id"]] < at[r["source"]]
            pairs[key][0 if better else 1] += 1
    print("out of pile, a derivative against its source (right / wrong):")
    for k, (a, b) in sorted(pairs.items()):
        print(f"  {k:32s} {a} / {b}")
    model = fit(C, np.arange(len(y)))
    print("weights:", dict(zip(shapes, np.round(model.coef_[0], 3))))
    out = dict(
        note="written by bench/fit_model_style_intl.py; see docs/benchmarks.md (session 33)",
        C=C,
        min_words=args.min_words,
        n_texts=dict(Counter(r["kind"] for r in rows)),
        intercept=round(float(model.intercept_[0]), 5),
        calibration=[round(slope, 5), round(offset, 5)],
        terms=[],
        shapes=shapes,
        mean=[round(float(v), 5) for v in mean],
        scale=[round(float(v), 5) for v in scale],
        coef=[round(float(v), 5) for v in model.coef_[0]],
    )
    if args.dry_run:
        return 0
    Path(args.out).write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print("wrote", args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
