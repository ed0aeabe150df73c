"""Relations, changes and stories of the first N BBC articles, as JSON: run it under two
checkouts (each one's ``src`` first on PYTHONPATH) and compare the files to check that a
change leaves English outputs as they were.

Usage: PYTHONPATH=SRC:bench .venv/bin/python bench/bbc_outputs.py OUT.json [N]
"""

from __future__ import annotations

import json
import sys

from common import SHARED, jsonl

from unspin.model import Article
from unspin.pipeline import Config, analyse, fingerprint
from unspin.provenance import add_provenance


def main() -> int:
    out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 500
    rows = jsonl(SHARED / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz")[:n]
    arts = [Article(id=str(r["id"]), text=r["text"], title=r.get("title")) for r in rows]
    cfg = Config()
    res = add_provenance(analyse(fingerprint(arts, cfg), cfg))
    data = {
        "relations": sorted(
            [r.a, r.b, r.relation, round(r.confidence, 4), r.source, r.reasons]
            for r in res.relations
        ),
        "changes": sorted([c.source, c.derivative, c.kind, c.description] for c in res.changes),
        "stories": sorted(s.articles for s in res.stories),
    }
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(data, fh, ensure_ascii=False, indent=0)
    print({k: len(v) for k, v in data.items()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
