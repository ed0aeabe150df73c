"""Direction of known translation pairs, from the classify stage's direction evidence alone.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/translation_direction.py SET... [--out F.jsonl]

Each SET names labelled (source, translation) pairs:

* ``routes:FOLDER``: the ``translation`` pairs of an ``unspin eval make-routes`` folder
  (Apertium English -> Spanish / Catalan; source the English);
* ``meantime:DIR``: MEANTIME (``meantime_en.jsonl`` / ``meantime_es.jsonl``): English
  Wikinews articles and their professional Spanish translations (source the English);
* ``ntrex:FILE:A`` / ``ntrex:FILE:B``: NTREX dev, each document's English original
  (``DOC/eng``) and its professional translation into each other language (not the
  English editions), documents of half A (even, in file order) or B (odd), as
  ``unspin eval ntrex`` splits them;
* ``reverse-meantime:DIR`` / ``reverse-ntrex:FILE:A|B``: the other way round, so that
  evidence which just says "the English side is the source" shows: MEANTIME's Spanish
  articles, or NTREX's Spanish versions of the half, machine-translated into English with
  Apertium ``spa-eng`` (source the Spanish).

Every pair is given the relation ``translation`` (the relation the pipeline types them
with; whether a pair is found and typed so is measured by ``unspin eval``, not here) and
``unspin.classify.direction`` weighs the direction evidence, with a corpus view of the
set's own articles. Cross-language direction evidence reads the texts only, so the Docs
are made with the hashing embedder (no sentence encoder). Prints right / undecided /
wrong per set and language, undecided counted wrong, and each evidence's share of pairs
it spoke on and was right.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

from unspin.classify import ClassifyParams, direction
from unspin.corpus import CorpusSupport
from unspin.evaluate.mt import ApertiumTranslator
from unspin.model import Alignment, Article
from unspin.pipeline import Config, fingerprint


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in open(path, encoding="utf-8") if x.strip()]


def _ntrex_half(path: Path, half: str) -> list[dict]:
    """NTREX records of the documents of half A (even, in file order) or B (odd)."""
    recs = _jsonl(path)
    order = list(dict.fromkeys(r["doc_id"] for r in recs))
    keep = {d for k, d in enumerate(order) if k % 2 == "AB".index(half)}
    return [r for r in recs if r["doc_id"] in keep]


def load_set(spec: str) -> tuple[list[Article], list[tuple[str, str, str]]]:
    """Articles and (source id, translation id, group) pairs of one SET."""
    kind, _, rest = spec.partition(":")
    if kind == "routes":
        folder = Path(rest)
        labels = [x for x in _jsonl(folder / "labels.jsonl") if x["relation"] == "translation"]
        need = {x["source"] for x in labels} | {x["derivative"] for x in labels}
        arts = [
            Article(r["id"], r["text"], title=r.get("title"))
            for r in _jsonl(folder / "articles.jsonl")
            if r["id"] in need
        ]
        return arts, [(x["source"], x["derivative"], x["kind"]) for x in labels]
    if kind == "reverse-ntrex":
        path, _, half = rest.rpartition(":")
        recs = [r for r in _ntrex_half(Path(path), half) if r["lang"] == "spa"]
        mt = ApertiumTranslator("spa-eng").translate([r["text"] for r in recs])
        arts = [Article(r["id"], r["text"]) for r in recs]
        arts += [Article(f"mt-en/{r['id']}", t) for r, t in zip(recs, mt)]
        return arts, [(r["id"], f"mt-en/{r['id']}", f"reverse ntrex {half} spa->en") for r in recs]
    if kind in ("meantime", "reverse-meantime"):
        folder = Path(rest)
        en = {r["doc_id"]: r for r in _jsonl(folder / "meantime_en.jsonl")}
        es = {r["doc_id"]: r for r in _jsonl(folder / "meantime_es.jsonl")}
        ids = sorted(set(en) & set(es))
        if kind == "meantime":
            arts = [Article(f"en/{d}", en[d]["text"]) for d in ids]
            arts += [Article(f"es/{d}", es[d]["text"]) for d in ids]
            return arts, [(f"en/{d}", f"es/{d}", "meantime en->es") for d in ids]
        mt = ApertiumTranslator("spa-eng").translate([es[d]["text"] for d in ids])
        arts = [Article(f"es/{d}", es[d]["text"]) for d in ids]
        arts += [Article(f"mt-en/{d}", t) for d, t in zip(ids, mt)]
        return arts, [(f"es/{d}", f"mt-en/{d}", "reverse es->en (apertium)") for d in ids]
    if kind == "ntrex":
        path, _, half = rest.rpartition(":")
        recs = _ntrex_half(Path(path), half)
        arts = [Article(r["id"], r["text"], title=r.get("title")) for r in recs]
        pairs = [
            (f"{r['doc_id']}/eng", r["id"], f"ntrex {half} eng->{r['lang']}")
            for r in recs
            if not r["lang"].startswith("eng")
        ]
        return arts, pairs
    raise SystemExit(
        f"unknown set {spec!r}: routes:, meantime:, ntrex:FILE:A|B, reverse-meantime:, "
        "reverse-ntrex:FILE:A|B"
    )


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("sets", nargs="+")
    ap.add_argument("--out", help="one JSON line per pair: set, group, verdict, evidence")
    args = ap.parse_args()
    cfg = Config(embedder="hashing")
    params = ClassifyParams()
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    for spec in args.sets:
        arts, pairs = load_set(spec)
        docs = fingerprint(arts, cfg)
        by_id = {d.id: d for d in docs}
        support = CorpusSupport(docs)
        tally: dict[str, Counter] = defaultdict(Counter)
        spoke: dict[str, Counter] = defaultdict(Counter)
        for src, tr, group in pairs:
            a, b = sorted((by_id[src], by_id[tr]), key=lambda d: d.id)
            al = Alignment(a.id, b.id, [], {})
            got, _, why, ev = direction(a, b, al, "translation", params, support)
            verdict = "undecided" if got is None else "right" if got == src else "wrong"
            for g in (group, "all"):
                tally[g][verdict] += 1
            for e in ev:  # positive weight: towards a being the source
                ok = (e.weight > 0) == (a.id == src)
                spoke[e.name]["right" if ok else "wrong"] += 1
            if out:
                rec = dict(set=spec, group=group, source=src, translation=tr, verdict=verdict)
                rec["langs"] = [by_id[src].lang, by_id[tr].lang]
                rec["evidence"] = [e.to_record() for e in ev]
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
        print(f"\n{spec}: {len(pairs)} pairs")
        for g in sorted(tally, key=lambda g: (g == "all", g)):
            t = tally[g]
            n = sum(t.values())
            print(
                f"  {g:32s} right {t['right'] / n:.3f}  "
                f"({t['right']} / {t['undecided']} / {t['wrong']})"
            )
        for name, c in sorted(spoke.items()):
            print(f"  evidence {name:20s} spoke on {sum(c.values())}: right {c['right']}")
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
