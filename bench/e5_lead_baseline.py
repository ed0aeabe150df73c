"""Baseline for NTREX across all 22 versions (the main encoder's document cosine cannot
compare Greek, Hindi or Swahili with anything): the cosine of the second encoder's
centred lead vectors (unspin.second: what its candidate search reads), a pair being one
document at or above a cut tuned on half A for F1, and stories as average-linkage
clusters of that cosine cut at the value best for ARI on half A; reported on both halves.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/e5_lead_baseline.py NTREX_JSONL [CACHE_DIR]
"""

from __future__ import annotations

import sys

import numpy as np

from unspin.evaluate import baselines as bl
from unspin.evaluate.loaders import load_ntrex
from unspin.evaluate.metrics import adjusted_rand
from unspin.evaluate.runner import NTREX_ORIGINAL, _doc_cosine_stories
from unspin.fingerprint import prepare
from unspin.second import SecondParams, _encode, centred, lead_text
from unspin.store import Store


def main() -> int:
    v = load_ntrex(sys.argv[1])
    store = Store(sys.argv[2]) if len(sys.argv) > 2 else None
    p = SecondParams()
    ids = [a.id for a in v.articles]
    leads = centred(
        _encode([lead_text(prepare(a), p.lead_chars) for a in v.articles], p.embedder, store)
    )
    half = v.halves()
    h = np.array([half[v.doc[i]] for i in ids])
    doc = np.array([v.doc[i] for i in ids])
    sim = leads @ leads.T
    upper = np.triu(np.ones(len(ids), dtype=bool), 1)
    in_a = (h[:, None] == 0) & (h[None, :] == 0)
    same = doc[:, None] == doc[None, :]
    cut = bl.tune_threshold(sim[upper & in_a], same[upper & in_a])
    pos = {i: k for k, i in enumerate(ids)}
    by_doc: dict[str, dict[str, str]] = {}
    for i in ids:
        by_doc.setdefault(v.doc[i], {})[v.lang[i]] = i
    print(f"pair cut (best F1 on half A): {cut:.3f}")
    langs = sorted({v.lang[i] for i in ids} - {NTREX_ORIGINAL})
    for lang in langs:
        row = []
        for hh in (0, 1):
            pairs = [(vs[NTREX_ORIGINAL], vs[lang]) for d, vs in by_doc.items() if half[d] == hh]
            row.append(np.mean([sim[pos[a], pos[b]] >= cut for a, b in pairs]))
        print(f"{lang}: A {row[0]:.3f} B {row[1]:.3f}")
    members = {hh: [i for i in ids if half[v.doc[i]] == hh] for hh in (0, 1)}

    def stories(ms: list[str], c: float) -> dict[str, int]:
        return dict(zip(ms, _doc_cosine_stories(leads[[pos[i] for i in ms]], c)))

    grid = [x / 100 for x in range(0, 100, 2)]
    gold = {hh: {i: v.doc[i] for i in members[hh]} for hh in (0, 1)}
    best = max(grid, key=lambda c: adjusted_rand(gold[0], stories(members[0], c)))
    for hh, name in ((0, "A"), (1, "B")):
        ari = adjusted_rand(gold[hh], stories(members[hh], best))
        print(f"story ARI, all versions, half {name}: {ari:.3f} (cut {best:.2f}, tuned on A)")
    wrong = {
        hh: int((sim[upper & ~same & (h[:, None] == hh) & (h[None, :] == hh)] >= cut).sum())
        for hh in (0, 1)
    }
    print(f"pairs of different documents at or above the cut: A {wrong[0]} B {wrong[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
