"""Briefs and their translations: what tells a translation of a one- or two-sentence text
from another report of the same event in another language?

A cross-language pair whose in-order chain holds one or two matched sentences is a whole
translation only when each reaches ``AlignParams.strong_cross`` (session 42): two
independent briefs of one event match each other as well as a translated sentence
matches its original in the main encoder's space. This script reads, on the folders of
``bench/translated_guard.py`` (hand translations of ECB+ reports, each language beside
the English originals), every pair of an English original and a translation of the same
event where either text has at most ``--max-sentences`` sentences: a document and its own
translation (should be typed ``translation``) against two documents of one event (should
not), with

* the best sentence cosine in the main encoder's space (what the shipped rule reads);
* the cosine of the two whole texts in the second encoder's space (multilingual-e5-small,
  centred as :mod:`unspin.second` centres it; the texts :func:`unspin.second.brief_text`
  gives, as the scan encodes them);

and prints how many pairs of each kind pass each pair of bars. Reads only.

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/brief_translations.py --cache DIR \
        --guard /work/rw42:/work/rw42/ecb_selection.json:tr ... [--langs ja,ko,zh,ar]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from common import SHARED
from translated_guard import english, translations

from unspin.pipeline import Config, fingerprint
from unspin.second import brief_text


def pairs(spec: str, langs: list[str], rows: dict, cache, most: int) -> list[dict]:
    """The brief pairs of one guard round: English original x translation, one event."""
    sets, selection, prefix = spec.split(":")
    sel = json.loads(Path(selection).read_text(encoding="utf-8"))
    event = {d: s for s, d in sel["docs"]}
    docs = [d for _, d in sel["docs"]]
    out = []
    for lang in langs:
        folder = Path(sets) / f"{prefix}-{lang}"
        if not folder.exists():
            continue
        got = fingerprint(english(rows, docs) + translations(folder, lang), Config(), cache=cache)
        if cache is not None:
            cache.commit()
        by = {d.id: d for d in got}
        for d1 in docs:
            for d2 in docs:
                a, b = by[f"{d1}/en"], by[f"{d2}/{lang}"]
                if event[d1] != event[d2] or min(len(a.sentences), len(b.sentences)) > most:
                    continue
                cos = float((a.sentence_vectors @ b.sentence_vectors.T).max())
                out.append(
                    dict(own=d1 == d2, use=cos, a=brief_text(a), b=brief_text(b), round=prefix)
                )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", help="a Store folder for fingerprints")
    ap.add_argument("--guard", action="append", default=[], help="SETS:SELECTION:PREFIX")
    ap.add_argument("--langs", default="ja,ko,zh,ar")
    ap.add_argument("--max-sentences", type=int, default=2)
    args = ap.parse_args()
    data = SHARED / "data" / "ecbplus_dev.jsonl"
    if not data.is_file():
        print(f"skipped: {data} not found (set UNSPIN_SHARED)", file=sys.stderr)
        return 0
    from unspin.embed import E5Embedder
    from unspin.second import centred
    from unspin.store import Store

    rows = {(r := json.loads(x))["doc_id"]: r for x in data.read_text("utf-8").splitlines()}
    cache = Store(args.cache) if args.cache else None
    got = []
    for g in args.guard:
        got += pairs(g, args.langs.split(","), rows, cache, args.max_sentences)
    e5 = E5Embedder(threads=2)
    texts = sorted({t for x in got for t in (x["a"], x["b"])})  # each text encoded once
    vec = dict(zip(texts, centred(e5.encode(texts))))
    for x in got:
        x["e5"] = float(vec[x["a"]] @ vec[x["b"]])
    own = [x for x in got if x["own"]]
    other = [x for x in got if not x["own"]]
    most = args.max_sentences
    print(
        f"{len(own)} documents with their own translation, {len(other)} pairs of two "
        f"documents of one event (either text at most {most} sentences)"
    )
    for name in ("use", "e5"):
        for kind, xs in (("own", own), ("other", other)):
            v = np.array(sorted(x[name] for x in xs))
            q = np.quantile(v, [0.1, 0.25, 0.5, 0.75, 0.9]).round(3).tolist()
            print(f"  {name:3s} {kind:5s} q10-q90 {q}")
    print("\n| main-encoder bar | e5 bar | own translations passing | two documents passing |")
    print("|---|---|---|---|")
    for tu in (0.75, 0.7, 0.65, 0.6, 0.55, 0.5):
        for te in (None, 0.45, 0.48, 0.5):
            ok = [x["use"] >= tu and (te is None or x["e5"] >= te) for x in got]
            n_own = sum(o for o, x in zip(ok, got) if x["own"])
            n_other = sum(o for o, x in zip(ok, got) if not x["own"])
            bar = "–" if te is None else te
            print(f"| {tu} | {bar} | {n_own} / {len(own)} | {n_other} / {len(other)} |")
    if cache is not None:
        cache.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
