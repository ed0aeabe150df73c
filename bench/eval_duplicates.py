"""Natural exact-duplicate groups (Reuters-21578, BBC): are all their pairs found as `duplicate`?

Usage: .venv/bin/python bench/eval_duplicates.py reuters|bbc [--n N] [--embedder NAME]
Gold: pairs of articles whose bodies are identical after normalising case, spacing and
quote marks (unspin.normalise.normalise_text). Reports recall, the share typed
`duplicate`, time per stage and peak RSS.
"""

from __future__ import annotations

import argparse
import itertools
import resource
import sys
import time
from collections import defaultdict
from datetime import datetime

from common import SHARED, jsonl

from unspin.evaluate.metrics import expand_duplicates
from unspin.model import Article
from unspin.normalise import normalise_text
from unspin.pipeline import Config, analyse, fingerprint


def reuters_date(value: str | None) -> str | None:
    """Reuters-21578's DATE ("26-FEB-1987 15:01:01.79") as ISO 8601, None if unreadable."""
    try:
        return datetime.strptime(
            (value or "").strip().split(".")[0], "%d-%b-%Y %H:%M:%S"
        ).isoformat()
    except ValueError:
        return None


def load(name: str, n: int | None, skip: int = 0, dates: bool = False) -> list[Article]:
    """The corpus's articles (Reuters: those with a body), from the ``skip``-th, at most
    ``n``; ``dates``: Reuters articles carry their DATE as ``published_at``."""
    if name == "reuters":
        rows = jsonl(SHARED / "data" / "reuters21578" / "reuters21578.jsonl.gz")
        arts = [
            Article(
                id=f"reuters-{i}",
                text=(r.get("title") or "") + "\n\n" + (r.get("body") or ""),
                published_at=reuters_date(r.get("date")) if dates else None,
            )
            for i, r in enumerate(rows, 1)
            if (r.get("body") or "").strip()
        ]
    else:
        rows = jsonl(SHARED / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz")
        arts = [Article(id=r["id"], text=r["title"] + "\n\n" + r["text"]) for r in rows]
    arts = arts[skip:]
    return arts[:n] if n else arts


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", choices=("reuters", "bbc"))
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--embedder", default="use", help="sentence embedder (default: use)")
    args = ap.parse_args()
    arts = load(args.corpus, args.n)
    groups = defaultdict(list)
    for a in arts:
        groups[normalise_text(a.text)].append(a.id)
    gold = {
        tuple(sorted(p))
        for g in groups.values()
        if len(g) > 1
        for p in itertools.combinations(g, 2)
    }
    cfg = Config(embedder=args.embedder)
    t0 = time.perf_counter()
    docs = fingerprint(arts, cfg)
    t1 = time.perf_counter()
    res = analyse(docs, cfg)
    t2 = time.perf_counter()
    # a group is a star of `duplicate` relations to its representative: pairs are
    # scored by the transitive closure (every pair of a group found when all are linked)
    rel = {(r.a, r.b): r.relation for r in expand_duplicates(res.relations)}
    found = [p for p in gold if p in rel]
    typed = [p for p in gold if rel.get(p) == "duplicate"]
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.corpus}: {len(arts)} articles, {len(gold)} gold duplicate pairs")
    n = max(1, len(gold))
    # gold is the normalised hash unspin finds duplicates by: passes by construction
    print(
        f"(self-check) recall {len(found) / n:.4f}; typed duplicate {len(typed) / n:.4f} "
        "(gold defined by the same normalised hash)"
    )
    print(f"fingerprint {t1 - t0:.0f} s, pairs+stories {t2 - t1:.0f} s, peak RSS {rss:.0f} MB")
    counts: dict[str, int] = defaultdict(int)
    for r in res.relations:
        counts[r.relation] += 1
    print(f"relations: {dict(counts)}; stories: {len(res.stories)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
