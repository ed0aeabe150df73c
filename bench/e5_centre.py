"""The second encoder's centring vector (src/unspin/data/e5_centre.npy): the mean raw
multilingual-e5-small vector of the leads (unspin.second.lead_text) of every NTREX
version in half A (the even documents in file order, all 22 languages), so that the
centred cosines of the e5 space spread as the main encoder's do. Half B is not read.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/e5_centre.py NTREX_JSONL [CACHE_DIR]
(CACHE_DIR: a Store whose cached e5 vectors are reused and filled.)
"""

from __future__ import annotations

import sys

import numpy as np

from unspin.evaluate.loaders import load_ntrex
from unspin.fingerprint import prepare
from unspin.second import CENTRE_FILE, SecondParams, _encode, lead_text
from unspin.store import Store


def main() -> int:
    v = load_ntrex(sys.argv[1])
    store = Store(sys.argv[2]) if len(sys.argv) > 2 else None
    half_a = set(v.order[0::2])
    p = SecondParams()
    texts = [lead_text(prepare(a), p.lead_chars) for a in v.articles if v.doc[a.id] in half_a]
    vecs = _encode(texts, p.embedder, store)
    if store is not None:
        store.commit()
        store.close()
    mean = vecs.mean(axis=0).astype(np.float32)
    CENTRE_FILE.parent.mkdir(parents=True, exist_ok=True)
    np.save(CENTRE_FILE, mean)
    print(f"{len(texts)} leads of half A; centre norm {float(np.linalg.norm(mean)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
