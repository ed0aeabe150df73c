"""Fit the whole-translation model (``ClassifyParams.translation_*``) on cross-language
pairs typed `translation`.

A pair of two languages whose aligned passages cover both texts in one in-order chain is
typed `translation`; two reports of one event in two languages can pass that too (every
fact has a counterpart, retold). This script scans, with the model read but never
applied (``translation_cut`` 1e-15):

* NTREX dev (``--ntrex``): every version of a document against every other (positives);
* hand translations of ECB+ reports (``--guard SETS:SELECTION:PREFIX``, the folders of
  ``bench/translated_guard.py``), each language's translations beside the English
  originals: a document against its own translation (positives) and against another
  document's (negatives, except a pair whose English originals the English scan itself
  calls reuse);

and fits a logistic regression (balanced classes) over the model's features, read from
each relation's recorded evidence. The cut is the probability under which ``--lose`` of
the positives fall. Prints the parameters and the counts.

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/fit_translation.py --cache DIR \
        --ntrex ../shared/data/ntrex_dev/articles.jsonl \
        --guard /work/rw42:/work/rw42/ecb_selection.json:tr ... --langs ja,ko,zh,ar
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np
from common import SHARED
from translated_guard import doc_of, english, scan, translations

from unspin.classify import ClassifyParams
from unspin.evaluate import loaders
from unspin.model import REUSE_RELATIONS, Result
from unspin.pipeline import Config
from unspin.store import Store

#: never reached by the model's probability: read and recorded, never applied
READ_ONLY_CUT = 1e-15


def rows_of(res: Result, names: tuple[str, ...]) -> list[tuple[str, str, list[float]]]:
    """(a, b, features) of each relation typed translation whose model was read."""
    out = []
    for r in res.relations:
        if r.relation != "translation":
            continue
        ev = {e.name: e.value for e in r.evidence if e.stage == "type"}
        if all(f"translation.{n}" in ev for n in names):
            out.append((r.a, r.b, [ev[f"translation.{n}"] for n in names]))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", help="Store folder for the fingerprints")
    ap.add_argument("--ntrex", help="NTREX dev articles.jsonl")
    ap.add_argument("--guard", action="append", default=[], help="SETS:SELECTION:PREFIX")
    ap.add_argument("--langs", default="ja,ko,zh,ar")
    ap.add_argument("--lose", type=float, default=0.002, help="share of positives under the cut")
    ap.add_argument("--C", type=float, default=10.0, help="inverse regularisation strength")
    args = ap.parse_args()
    from sklearn.linear_model import LogisticRegression

    store = Store(args.cache) if args.cache else None
    base = ClassifyParams()
    names = base.translation_features
    cfg = Config(classify=dataclasses.replace(base, translation_cut=READ_ONLY_CUT))
    X: list[list[float]] = []
    y: list[int] = []
    if args.ntrex:
        v = loaders.load_ntrex(Path(args.ntrex))
        for a, b, f in rows_of(scan(v.articles, store, cfg, memo=False), names):
            X.append(f)
            y.append(int(doc_of(a) == doc_of(b)))
        print(f"NTREX: {len(y)} pairs typed translation", file=sys.stderr)
    ecb = SHARED / "data" / "ecbplus_dev.jsonl"
    rows = {(r := json.loads(x))["doc_id"]: r for x in ecb.open(encoding="utf-8")}
    for spec in args.guard:
        sets, selection, prefix = spec.split(":")
        docs = [d for _, d in json.loads(Path(selection).read_text())["docs"]]
        en = english(rows, docs)
        ref = {
            frozenset((doc_of(r.a), doc_of(r.b)))
            for r in scan(en, store, memo=False).relations
            if r.relation in REUSE_RELATIONS
        }
        for lang in args.langs.split(","):
            folder = Path(sets) / f"{prefix}-{lang}"
            if not folder.is_dir():
                continue
            arts = en + translations(folder, (folder / "LANG").read_text().strip())
            for a, b, f in rows_of(scan(arts, store, cfg, memo=False), names):
                da, db = doc_of(a), doc_of(b)
                if da != db and frozenset((da, db)) in ref:
                    continue  # the English scan calls them reuse too
                X.append(f)
                y.append(int(da == db))
            print(f"{prefix}-{lang}: {len(y)} pairs so far", file=sys.stderr)
    xa, ya = np.array(X), np.array(y)
    if len(set(y)) < 2:
        print("need pairs of both kinds", file=sys.stderr)
        return 2
    model = LogisticRegression(C=args.C, class_weight="balanced", max_iter=2000).fit(xa, ya)
    prob = model.predict_proba(xa)[:, 1]
    cut = float(np.quantile(prob[ya == 1], args.lose))
    kept = int(((prob >= cut) & (ya == 0)).sum())
    print(f"features {names}")
    print(f"translation_weights = {tuple(round(float(w), 2) for w in model.coef_[0])}")
    print(f"translation_bias = {float(model.intercept_[0]):.2f}")
    print(f"translation_cut = {cut:.3f}")
    print(
        f"positives {int(ya.sum())}, under the cut {int(((prob < cut) & (ya == 1)).sum())}; "
        f"negatives {int((ya == 0).sum())}, kept as translations {kept}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
