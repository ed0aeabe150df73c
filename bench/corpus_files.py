"""Write the third-party corpora in ../shared as JSON Lines that `unspin scan` reads
(outside the repository: the texts are never copied into it).

Usage: .venv/bin/python bench/corpus_files.py reuters|mixed20k OUT.jsonl
``reuters``: all 19,043 Reuters-21578 articles with a body (id ``reuters-N``, title, text,
``published_at`` from the ``date`` field as ISO 8601). ``mixed20k``: those plus the first
957 BBC News articles (20,000 in all), the store of the service's POST-latency benchmark.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from common import SHARED, jsonl


def reuters() -> Iterator[dict]:
    for i, r in enumerate(jsonl(SHARED / "data" / "reuters21578" / "reuters21578.jsonl.gz"), 1):
        body = r.get("body") or ""
        if not body.strip():
            continue
        when = None
        try:
            when = datetime.strptime(r.get("date", "").strip(), "%d-%b-%Y %H:%M:%S.%f").isoformat()
        except ValueError:
            pass
        yield {
            "id": f"reuters-{i}",
            "title": r.get("title") or None,
            "text": body,
            "published_at": when,
            "outlet": "Reuters",
        }


def bbc(n: int) -> Iterator[dict]:
    rows = jsonl(SHARED / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz")[:n]
    for r in rows:
        yield {"id": f"bbc-{r['id']}", "title": r["title"], "text": r["text"], "outlet": "BBC"}


def main() -> int:
    kind, out = sys.argv[1], Path(sys.argv[2])
    if kind == "reuters":
        rows = list(reuters())
    elif kind == "mixed20k":
        rows = list(reuters())
        rows += list(bbc(20_000 - len(rows)))
    else:
        print(f"unknown corpus {kind!r}: reuters or mixed20k", file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"{len(rows)} articles -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
