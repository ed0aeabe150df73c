"""What the series rule changes on ordinary news: the first N BBC articles scanned twice
with the same code and fingerprints, the rule on and off (``AlignParams.series_min_lines``
beyond reach), and the relations that differ.

Usage: PYTHONPATH=src .venv/bin/python bench/series_effect.py N [SHARED]
"""

import dataclasses
import gzip
import json
import sys
from pathlib import Path

from unspin.align import AlignParams
from unspin.model import Article
from unspin.pipeline import Config, analyse, fingerprint

shared = Path(sys.argv[2] if len(sys.argv) > 2 else "../shared")
path = shared / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz"
with gzip.open(path, "rt", encoding="utf-8") as fh:
    rows = [json.loads(line) for line in fh][: int(sys.argv[1])]
arts = [
    Article(id=str(r["id"]), text=r["title"] + "\n\n" + r["text"], title=r["title"]) for r in rows
]
on = Config(embedder="hashing")
off = dataclasses.replace(on, align=AlignParams(series_min_lines=10**6))
docs = fingerprint(arts, on)
a = {(r.a, r.b): r.relation for r in analyse(docs, on).relations}
b = {(r.a, r.b): r.relation for r in analyse(docs, off).relations}
diff = {k: (b.get(k), a.get(k)) for k in set(a) | set(b) if a.get(k) != b.get(k)}
print(len(arts), "articles; relations on", len(a), "off", len(b), "differ", len(diff))
for k, v in sorted(diff.items())[:20]:
    print(k, "off->on", v)
