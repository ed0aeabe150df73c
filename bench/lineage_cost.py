"""CPU of the lineage graphs built the two ways, from a results folder's tables (issue 14).

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/lineage_cost.py RESULTS

``unspin.lineage.build_lineage`` over the whole result (what
``unspin.provenance.add_provenance`` runs, and what ``bench/throughput.py`` ran before
session 18) scans every relation once per story; ``unspin.pipeline.story_lineage`` (what
``unspin scan`` runs) hands each story its own relations. Both are timed on the articles,
relations and stories of ``RESULTS`` (quotation groups left out: both read the same ones)
and their graphs compared.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from unspin.lineage import build_lineage
from unspin.model import Article, Doc, Relation, Result, Story
from unspin.pipeline import story_lineage


def _rows(folder: Path, name: str) -> list[dict]:
    with open(folder / f"{name}.jsonl", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def main() -> int:
    folder = Path(sys.argv[1])
    docs = [
        Doc(
            article=Article(id=r["id"], text="x", title=r.get("title"), outlet=r.get("outlet")),
            sentences=[],
            lang=r.get("lang") or "en",
            lang_confidence=1.0,
            norm_hash="",
        )
        for r in _rows(folder, "articles")
    ]
    rels = [
        Relation(
            a=r["a"],
            b=r["b"],
            relation=r["relation"],
            confidence=r["confidence"],
            source=r["source"],
            derivative=r["derivative"],
        )
        for r in _rows(folder, "relations")
    ]
    stories = [
        Story(id=s["id"], label=s["label"], articles=s["articles"], sources=s["sources"])
        for s in _rows(folder, "stories")
    ]
    res = Result(docs=docs, relations=rels, stories=stories, errors=[])
    c0 = time.process_time()
    whole = build_lineage(res, [])
    c1 = time.process_time()
    by_story = story_lineage(res, [])
    c2 = time.process_time()
    same = [x.to_record() for x in whole] == [x.to_record() for x in by_story]
    print(
        f"{len(docs)} articles, {len(rels)} relations, {len(stories)} stories: "
        f"build_lineage {c1 - c0:.2f} CPU s, story_lineage {c2 - c1:.2f} CPU s, "
        f"same graphs: {same}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
