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

and fits a logistic regression (balanced classes) over the model's features (``--features``
to try others), read from each relation's recorded evidence. The cut is the probability
under which ``--lose`` of the positives fall. Prints the parameters and the counts;
``--dump FILE`` keeps every pair's ids, detected languages, label and features, and
``--floors-from FILE`` reads such a dump and prints each language's floor
(``ClassifyParams.translation_lang_floors``: the lowest log-odds the shipped model gives a
translation between the language and English among NTREX half A's documents).

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/fit_translation.py --cache DIR \
        --ntrex ../shared/data/ntrex_dev/articles.jsonl \
        --guard /work/rw42:/work/rw42/ecb_selection.json:tr ... --langs ja,ko,zh,ar
    # session 51: the rows, then the language floors from NTREX half A
    PYTHONPATH=src:bench .venv/bin/python bench/fit_translation.py --cache DIR \
        --ntrex ../shared/data/ntrex_dev/articles.jsonl --guard SETS:SELECTION:g1 \
        --guard SETS:SELECTION:g2 --langs es,fr,it,pt,de --dump rows.jsonl
    PYTHONPATH=src:bench .venv/bin/python bench/fit_translation.py --floors-from rows.jsonl
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
    return [(a, b, f) for a, b, _, f in lang_rows_of(res, names)]


def lang_rows_of(
    res: Result, names: tuple[str, ...]
) -> list[tuple[str, str, tuple[str, str], list[float]]]:
    """(a, b, (language of a, of b) as detected, features) of each relation typed
    translation whose model was read."""
    lang = {d.id: d.lang or "und" for d in res.docs}
    out = []
    for r in res.relations:
        if r.relation != "translation":
            continue
        ev = {e.name: e.value for e in r.evidence if e.stage == "type"}
        if all(f"translation.{n}" in ev for n in names):
            out.append((r.a, r.b, (lang[r.a], lang[r.b]), [ev[f"translation.{n}"] for n in names]))
    return out


def language_floors(rows: list[dict], params: ClassifyParams, hub: str = "en") -> dict[str, float]:
    """Per language, the lowest log-odds the shipped whole-translation model gives a
    translation between that language and ``hub`` among ``rows`` (dump rows of one
    document's versions: ``own`` 1), what ``ClassifyParams.translation_lang_floors``
    holds."""
    w = dict(zip(params.translation_features, params.translation_weights, strict=True))
    floors: dict[str, float] = {}
    for r in rows:
        la, lb = r["la"], r["lb"]
        if not r["own"] or (la == hub) == (lb == hub):
            continue
        other = lb if la == hub else la
        z = params.translation_bias + sum(w[n] * r[n] for n in w)
        floors[other] = min(floors.get(other, z), z)
    return floors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", help="Store folder for the fingerprints")
    ap.add_argument("--ntrex", help="NTREX dev articles.jsonl")
    ap.add_argument("--guard", action="append", default=[], help="SETS:SELECTION:PREFIX")
    ap.add_argument("--langs", default="ja,ko,zh,ar")
    ap.add_argument("--lose", type=float, default=0.002, help="share of positives under the cut")
    ap.add_argument("--features", help="comma-separated typing features (default: the model's)")
    ap.add_argument("--dump", help="JSONL file: each pair's ids, label and features")
    ap.add_argument(
        "--floors-from",
        help="a --dump file: print each language's floor (NTREX half A) and stop",
    )
    ap.add_argument("--C", type=float, default=10.0, help="inverse regularisation strength")
    args = ap.parse_args()
    if args.floors_from:
        rows = [json.loads(x) for x in Path(args.floors_from).open(encoding="utf-8")]
        floors = language_floors([r for r in rows if r["pile"] == "ntrex-A"], ClassifyParams())
        print(tuple((k, round(v, 2)) for k, v in sorted(floors.items())))
        return 0
    from sklearn.linear_model import LogisticRegression

    store = Store(args.cache) if args.cache else None
    base = ClassifyParams()
    names = tuple(args.features.split(",")) if args.features else base.translation_features
    read = dataclasses.replace(
        base,
        translation_features=names,
        translation_weights=(0.0,) * len(names),
        translation_bias=0.0,  # every pair at probability 0.5: read, never turned away
        translation_cut=READ_ONLY_CUT,
        translation_lang_floors=(),
    )
    cfg = Config(classify=read)
    X: list[list[float]] = []
    y: list[int] = []
    ids: list[tuple[str, str, str, str, str]] = []
    if args.ntrex:
        v = loaders.load_ntrex(Path(args.ntrex))
        half = v.halves()
        for a, b, langs, f in lang_rows_of(scan(v.articles, store, cfg, memo=False), names):
            X.append(f)
            y.append(int(doc_of(a) == doc_of(b)))
            ids.append((f"ntrex-{'AB'[half[v.doc[a]]]}", a, b, *langs))
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
            tag = folder / "LANG"  # the language code as the ids carry it (else the folder's)
            arts = en + translations(folder, tag.read_text().strip() if tag.is_file() else lang)
            for a, b, langs, f in lang_rows_of(scan(arts, store, cfg, memo=False), names):
                da, db = doc_of(a), doc_of(b)
                if da != db and frozenset((da, db)) in ref:
                    continue  # the English scan calls them reuse too
                X.append(f)
                y.append(int(da == db))
                ids.append((f"{prefix}-{lang}", a, b, *langs))
            print(f"{prefix}-{lang}: {len(y)} pairs so far", file=sys.stderr)
    if args.dump:
        with open(args.dump, "w", encoding="utf-8") as fh:
            for (pile, a, b, la, lb), f, label in zip(ids, X, y, strict=True):
                row = {"pile": pile, "a": a, "b": b, "la": la, "lb": lb, "own": label}
                row.update(zip(names, f, strict=True))
                fh.write(json.dumps(row) + "\n")
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
