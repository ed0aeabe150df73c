"""CPU seconds of the per-text primitives every stage reads, on the shared corpora's texts.

Usage::

    UNSPIN_SHARED=../shared PYTHONPATH=src:bench .venv/bin/python bench/primitives.py \\
        [--dump OUT.pkl] [--same-as OTHER.pkl]

The texts: every paragraph of Reuters-21578 and its titles, every line of BBC News, NTREX
dev and ECB+ dev (81,071 non-empty texts, 16,931 not ASCII). Each primitive
(:func:`unspin.normalise.caps_words`, ``token_spans``, ``names`` with and without
``caps``, :func:`unspin.corpus.frame_key`) is run once over all of them with its caches
cleared, its process CPU time printed. ``--dump`` keeps every output; ``--same-as`` checks
them against another checkout's dump, output by output (names compared as sets), so a
change that should only be faster can be shown to give the same answers on real text.
Run two checkouts alternately in one period: this machine's speed varies by the hour.
"""

from __future__ import annotations

import argparse
import gzip
import json
import pickle
import sys
import time

from common import SHARED

from unspin import corpus, normalise


def texts() -> list[str]:
    out: list[str] = []
    with gzip.open(SHARED / "data" / "reuters21578" / "reuters21578.jsonl.gz", "rt") as fh:
        for line in fh:
            r = json.loads(line)
            out += [p for p in (r.get("body") or "").split("\n\n") if p.strip()]
            out.append(r.get("title") or "")
    with gzip.open(SHARED / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz", "rt") as fh:
        for line in fh:
            r = json.loads(line)
            out += (r.get("text") or "").split("\n") + [r.get("title") or ""]
    with open(SHARED / "data" / "ntrex_dev" / "articles.jsonl", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            out += (r.get("text") or "").split("\n") + [r.get("title") or ""]
    with open(SHARED / "data" / "ecbplus_dev.jsonl", encoding="utf-8") as fh:
        for line in fh:
            out += (json.loads(line).get("text") or "").split("\n")
    return [t for t in out if t]


PRIMITIVES = {
    "caps_words": lambda t: tuple(normalise.caps_words(t)),
    "token_spans": lambda t: tuple(normalise.token_spans(t)),
    "names": lambda t: frozenset(normalise.names(t)),
    "names_caps": lambda t: frozenset(normalise.names(t, caps=True)),
    "frame_key": corpus.frame_key,
}


def _clear() -> None:
    for fn in (normalise._words, normalise._caps_words, normalise.caps_names, corpus.frame_key):
        fn.cache_clear()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dump", help="write every output here (pickle)")
    ap.add_argument("--same-as", help="another checkout's --dump to compare with")
    args = ap.parse_args()
    ts = texts()
    print(f"{len(ts)} texts, {sum(not t.isascii() for t in ts)} not ASCII")
    outs: dict[str, list] = {}
    for name, fn in PRIMITIVES.items():
        _clear()
        t0 = time.process_time()
        outs[name] = [fn(t) for t in ts]
        print(f"{name:12s} {time.process_time() - t0:6.2f} CPU s")
    if args.dump:
        with open(args.dump, "wb") as fh:
            pickle.dump(outs, fh)
    if args.same_as:
        with open(args.same_as, "rb") as fh:
            other = pickle.load(fh)
        bad = 0
        for name, got in outs.items():
            diff = sum(a != b for a, b in zip(got, other[name])) + abs(len(got) - len(other[name]))
            print(f"{name:12s} outputs differing from {args.same_as}: {diff}")
            bad += diff
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
