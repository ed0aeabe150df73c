"""MEANTIME en-es: is each Spanish article typed `translation` of its English original?

Usage: .venv/bin/python bench/eval_meantime.py
Prints pair precision/recall/F1 of `translation` (a pair counts as predicted when it is
typed translation) and every pair with different doc_ids typed as reuse.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

from common import meantime

from unspin.model import REUSE_RELATIONS
from unspin.pipeline import Config, analyse, fingerprint


def main() -> int:
    arts = meantime()
    t0 = time.time()
    cfg = Config()
    res = analyse(fingerprint(arts, cfg), cfg)
    gold = {tuple(sorted((f"{a.id.split('/')[0]}/en", f"{a.id.split('/')[0]}/es"))) for a in arts}
    pred = {(r.a, r.b) for r in res.relations if r.relation == "translation"}
    tp = len(pred & gold)
    p = tp / len(pred) if pred else 0.0
    r = tp / len(gold)
    f1 = 2 * p * r / (p + r) if p + r else 0.0
    print(f"{len(arts)} articles in {time.time() - t0:.0f} s")
    print(f"translation pairs: precision {p:.3f} recall {r:.3f} F1 {f1:.3f} ({tp}/{len(gold)})")
    wrong = [
        r
        for r in res.relations
        if r.relation in REUSE_RELATIONS and r.a.split("/")[0] != r.b.split("/")[0]
    ]
    by_type = Counter(r.relation for r in wrong)
    print(f"pairs with different doc_ids typed as reuse: {len(wrong)} {dict(by_type)}")
    # a claim across languages should rest on evidence a same-language pair would need
    # too: is either same-language counterpart of the two documents reuse as well?
    reuse = {(r.a, r.b) for r in res.relations if r.relation in REUSE_RELATIONS}
    lang = lambda i: i.split("/")[1]  # noqa: E731
    doc = lambda i: i.split("/")[0]  # noqa: E731
    cross = [r for r in wrong if lang(r.a) != lang(r.b)]
    backed = [
        r
        for r in cross
        if any(tuple(sorted((f"{doc(r.a)}/{x}", f"{doc(r.b)}/{x}"))) in reuse for x in ("en", "es"))
    ]
    print(
        f"  across languages: {len(cross)}, of which {len(cross) - len(backed)} where neither "
        f"same-language pair of the two documents is reuse; within a language: "
        f"{len(wrong) - len(cross)}"
    )
    for r in wrong[:20]:
        print("  ", r.a, r.b, r.relation, r.confidence)
    missed = gold - pred
    by_pair = {(r.a, r.b): r for r in res.relations}
    for g in sorted(missed)[:20]:
        r = by_pair.get(g)
        print("  missed", g, r.relation if r else "no relation", r.reasons[0] if r else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
