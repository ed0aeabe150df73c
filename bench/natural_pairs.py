"""Natural reuse pairs among the untouched BBC articles of a derivative set: list them for
reading by hand, and load the hand verdicts ``bench/fit_classify.py`` fits on.

Usage (listing; prints titles and openings to the terminal, nothing is written into the
repository): PYTHONPATH=src:bench .venv/bin/python bench/natural_pairs.py FOLDER...
    [--cache /work/deriv/cache] [--min-prob 0.05] [--half tune]
Counting an evaluation's unlabelled whole pairs by half (corpus ids only):
    PYTHONPATH=src:bench .venv/bin/python bench/natural_pairs.py FOLDER --score PAIRS_JSONL

Every ``make-derivatives`` / ``make-routes`` set hides its derivatives among (nearly) all
the BBC articles, so the same natural pairs (the BBC's own updates of one story, one
body under two titles) turn up in every set, tuning and evaluation sets alike. To keep
some of them out of tuning, a pair is given to one half by a stable hash of its two
corpus ids (:func:`pair_half`): only pairs of the ``tune`` half are read and labelled;
the ``held`` half is left for reporting. The verdicts live in
``bench/natural_pairs_tune.tsv`` (corpus ids and verdict only, never text):

* ``update``: two versions of one story, each with facts of its own (a later report that
  adds a result, new quotations, new figures): not a whole derivative;
* ``same``: one text published twice (under two titles, or with a line or two edited):
  a whole derivative;
* ``other``: two different articles sharing a passage or stock lines: not whole.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import math
import sys
from pathlib import Path

from unspin.align import align
from unspin.candidates import candidate_pairs
from unspin.classify import reuse_type
from unspin.corpus import CorpusSupport
from unspin.evidence import PairCtx, whole_score
from unspin.model import Article
from unspin.pipeline import Config, fingerprint
from unspin.store import Store

VERDICTS = Path(__file__).with_name("natural_pairs_tune.tsv")
#: verdict -> whole derivative or not
WHOLE_VERDICT = {"update": False, "other": False, "same": True}


def pair_half(cid_a: str, cid_b: str) -> str:
    """``tune`` or ``held``: the half a pair of corpus articles belongs to (stable hash)."""
    key = "|".join(sorted((cid_a, cid_b)))
    return ("tune", "held")[hashlib.sha1(f"natural|{key}".encode()).digest()[0] % 2]


def corpus_ids(folder: Path) -> dict[str, str]:
    """Set id -> corpus id of the untouched originals of a derivative set."""
    got = json.load(open(folder / "manifest.json", encoding="utf-8"))["corpus_ids"]
    return ast.literal_eval(got) if isinstance(got, str) else dict(got)


def load_verdicts(path: Path = VERDICTS) -> dict[tuple[str, str], str]:
    """(corpus id, corpus id) sorted -> verdict, from the hand-labelled file."""
    out = {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        a, b, verdict, *_ = line.split("\t")
        if verdict not in WHOLE_VERDICT:
            raise ValueError(f"{path}: unknown verdict {verdict!r} for {a} / {b}")
        out[tuple(sorted((a, b)))] = verdict
    return out


def score(pairs_file: Path, folder: Path) -> None:
    """Unlabelled pairs an evaluation typed as whole reuse (copy, spun, duplicate): how
    many are natural pairs of the tune half (read by hand; fitted on), of the held half
    (never read), or involve a derivative (reuse inherited from its source's partner)."""
    cid = corpus_ids(folder)
    verdicts = load_verdicts()
    out: dict[str, list[str]] = {}
    for r in map(json.loads, open(pairs_file, encoding="utf-8")):
        if r.get("labelled") or r.get("predicted") not in ("copy", "spun", "duplicate"):
            continue
        if r["a"] in cid and r["b"] in cid:
            key = tuple(sorted((cid[r["a"]], cid[r["b"]])))
            group = f"natural, {pair_half(*key)} half" + (
                f" (verdict: {verdicts[key]})" if key in verdicts else ""
            )
            shown = f"{key[0]}/{key[1]} {r['predicted']}"
        else:
            group, shown = "with a derivative", f"{r['a']}/{r['b']} {r['predicted']}"
        out.setdefault(group, []).append(shown)
    for group, items in sorted(out.items()):
        print(f"{group}: {len(items)}: {', '.join(sorted(items))}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folders", nargs="+")
    ap.add_argument(
        "--score", metavar="PAIRS_JSONL", help="count an evaluation's unlabelled whole pairs"
    )
    ap.add_argument("--cache", default="/work/deriv/cache")
    ap.add_argument("--min-prob", type=float, default=0.05)
    ap.add_argument("--half", default="tune", choices=("tune", "held"))
    ap.add_argument("--chars", type=int, default=500)
    args = ap.parse_args()
    if args.score:
        score(Path(args.score), Path(args.folders[0]))
        return 0
    cfg = Config()
    store = Store(args.cache)
    seen: set[tuple[str, str]] = set()
    for folder in map(Path, args.folders):
        cid = corpus_ids(folder)
        arts = [
            Article(id=r["id"], text=r["text"], title=r.get("title"))
            for r in map(json.loads, open(folder / "articles.jsonl", encoding="utf-8"))
        ]
        docs = fingerprint(arts, cfg, cache=store)
        store.commit()
        support = CorpusSupport(docs)
        for i, j in candidate_pairs(docs, cfg.candidates):
            a, b = docs[i], docs[j]
            if a.id not in cid or b.id not in cid or a.lang != b.lang:
                continue
            key = tuple(sorted((cid[a.id], cid[b.id])))
            if key in seen or pair_half(*key) != args.half:
                continue
            al = align(a, b, cfg.align)
            ctx = PairCtx(a, b, al, cfg.classify, support, cfg.align)
            rel, *_ = reuse_type(a, b, al, cfg.classify, cfg.align, support, ctx)
            if rel is None:
                continue
            z, _ = whole_score(ctx)
            prob = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
            if prob < args.min_prob and rel not in ("copy", "spun"):
                continue
            seen.add(key)
            print(f"\n=== {key[0]}\t{key[1]}\t{rel}\tp={prob:.2f}\t({folder.name})")
            for d in (a, b):
                print(f"--- {cid[d.id]}: {d.article.title}")
                print(d.article.text[: args.chars].replace("\n", " "))
    store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
