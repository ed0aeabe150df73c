"""Simulate a rule not built: a `spun` claim X-B whose pieces are explained by X's
stronger whole claim to an A that is in no reuse relation with B is no claim.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/explained_claims.py CACHE PILE

PILE: a routes folder (articles.jsonl, labels.jsonl). Analyses it with the local engine
(fingerprints cached in the Store CACHE) and prints each claim the rule would drop,
labelled or not, and the counts (docs/benchmarks.md, session 39). X's pieces with B left
unexplained: X's sentences aligned to B and not to A, figures of X and B that A lacks,
quotations of X found in B and not in A; fewer than 3 drop the claim. Either side of a
claim may be X (no direction is read). Reads only.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from unspin.evidence import doc_facts
from unspin.model import REUSE_RELATIONS, Article, Relation
from unspin.pipeline import Config, analyse, fingerprint
from unspin.store import Store

FIELDS = ("id", "text", "title", "lang", "outlet", "published_at", "url")
WHOLE = ("spun", "copy", "translation", "duplicate")
MIN_PIECES = 3


def _aligned(r: Relation, side: str) -> set[int]:
    """Sentences of ``side`` in the evidence passages of ``r``."""
    out: set[int] = set()
    for p in r.alignment:
        if getattr(p, "is_evidence", True):
            out |= set(p.a_sentences if r.a == side else p.b_sentences)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    store, pile = Store(argv[0]), Path(argv[1])
    with (pile / "articles.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    arts = [Article(**{k: v for k, v in row.items() if k in FIELDS}) for row in rows]
    with (pile / "labels.jsonl").open(encoding="utf-8") as f:
        labelled = {frozenset((r["a"], r["b"])) for r in map(json.loads, f)}
    cfg = Config()
    res = analyse(fingerprint(arts, cfg, cache=store), cfg, cache=store)
    docs = {d.id: d for d in res.docs}
    reuse = {frozenset((r.a, r.b)): r for r in res.relations if r.relation in REUSE_RELATIONS}

    def unexplained(r: Relation, x: str, b: str, a: str) -> int:
        ra = reuse[frozenset((x, a))]
        fx, fb, fa = doc_facts(docs[x]), doc_facts(docs[b]), doc_facts(docs[a])
        sents = len(_aligned(r, x) - _aligned(ra, x))
        figs = len((fx.figures & fb.figures) - fa.figures)
        quotes = sum(q in fb.joined and q not in fa.joined for q in fx.quotes)
        return sents + figs + quotes

    counts: Counter = Counter()
    for key, r in reuse.items():
        if r.relation != "spun":
            continue
        for x in (r.a, r.b):
            b = r.b if x == r.a else r.a
            best: tuple[Relation, str] | None = None
            for k, o in reuse.items():
                if x not in k or k == key or o.relation not in WHOLE:
                    continue
                a = next(iter(k - {x}))
                if frozenset((a, b)) in reuse or o.confidence <= r.confidence:
                    continue  # a and b related, or the other claim is no stronger
                if best is None or o.confidence > best[0].confidence:
                    best = (o, a)
            if best is None:
                continue
            n = unexplained(r, x, b, best[1])
            if n < MIN_PIECES:
                kind = "labelled" if key in labelled else "unlabelled"
                counts[kind] += 1
                print(
                    f"drop {kind}: {r.a} / {r.b} ({r.confidence:.2f}); {x}'s stronger "
                    f"claim: {best[1]} ({best[0].confidence:.2f}); pieces left {n}"
                )
                break
    print(f"dropped: {counts['labelled']} labelled, {counts['unlabelled']} unlabelled")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
