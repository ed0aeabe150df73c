"""The Spark engine against the local engine on a multilingual pile of real news.

NTREX dev (``../shared/data/ntrex_dev``): the first ``--docs`` documents, each in the
languages of ``--langs`` (professional translations of one English article), scanned
once by the local engine (no store) and once by ``unspin.spark.scan`` in ``local[2]``,
with the same ``Config``. Prints per table whether the two agree, how many rows differ,
the relation counts by type and each engine's wall time. The default languages mix
the main encoder's (English, Japanese, Spanish, Chinese in traditional characters, which
the encoder reads in simplified ones) with three outside it that the second
encoder covers (Greek, Hindi, Swahili), so the second encoder's plan runs in both.
``--input FILE`` compares on any JSON Lines file of articles instead (PAC dev: dated,
with outlets, so the stories' time evidence is read).

    UNSPIN_SHARED=../shared PYTHONPATH=src:bench .venv/bin/python bench/spark_parity.py \
        --docs 15 --out /tmp/parity
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from common import SHARED, jsonl

import unspin
from unspin.output import records
from unspin.pipeline import Config

TABLES = ("relations", "stories", "changes", "quotes", "lineage", "errors")


def pile(docs: int, langs: list[str]) -> list[dict]:
    rows = jsonl(SHARED / "data" / "ntrex_dev" / "articles.jsonl")
    order = list(dict.fromkeys(r["doc_id"] for r in rows))[:docs]
    keep = set(order)
    return [
        {"id": r["id"], "title": r["title"], "text": r["text"]}
        for r in rows
        if r["doc_id"] in keep and r["lang"] in langs
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docs", type=int, default=15)
    ap.add_argument("--langs", default="eng,ell,hin,swa,jpn,spa,zho-TW")
    ap.add_argument("--embedder", default="use")
    ap.add_argument(
        "--input",
        help="a JSON Lines file of articles to compare on instead (e.g. "
        "../shared/data/pac_dev/articles.jsonl: dated, with outlets); --limit caps it",
    )
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--out", required=True, help="folder for the input and both outputs")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.input:
        keep = ("id", "title", "text", "outlet", "published_at", "url", "lang")
        recs = [{k: r[k] for k in keep if k in r} for r in jsonl(Path(args.input))]
        recs = recs[: args.limit] if args.limit else recs
    else:
        recs = pile(args.docs, args.langs.split(","))
    src = out / "in.jsonl"
    src.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8"
    )
    cfg = Config(embedder=args.embedder)
    t0 = time.perf_counter()
    local = unspin.scan([str(src)], out=out / "local", config=cfg, store=False)
    t1 = time.perf_counter()
    from unspin import spark

    result = spark.scan(str(src), str(out / "spark"), cfg)
    t2 = time.perf_counter()
    a, b = records(local), records(result)
    outside = {d.id for d in local.docs if d.cross_lingual is False}
    # the local reader names its file and numbers a JSON Lines file's lines, Spark names
    # the input path and numbers records (one record a line in these inputs)
    for rows in (a["errors"], b["errors"]):
        for e in rows:
            e.pop("input", None)
            e["location"] = e["location"].replace("line ", "record ", 1)
            e["reason"] = e["reason"].replace(" line ", " record ")
    report = {
        "articles": len(recs),
        "input": args.input or f"NTREX dev, {args.docs} documents",
        "languages": None if args.input else args.langs,
        "embedder": args.embedder,
        "local_s": round(t1 - t0, 1),
        "spark_s": round(t2 - t1, 1),
        "relations_by_type": dict(Counter(r["relation"] for r in a["relations"])),
        # relations of articles in a language outside the main encoder (the second
        # encoder's part of the comparison)
        "outside_main_encoder_relations": sum(
            1 for r in a["relations"] if r["a"] in outside or r["b"] in outside
        ),
    }
    for t in TABLES:
        x = [json.dumps(r, sort_keys=True) for r in a[t]]
        y = [json.dumps(r, sort_keys=True) for r in b[t]]
        report[t] = {
            "local": len(x),
            "spark": len(y),
            "equal": x == y,
            "only_local": len(set(x) - set(y)),
            "only_spark": len(set(y) - set(x)),
        }
    print(json.dumps(report, indent=2))
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0 if all(report[t]["equal"] for t in TABLES) else 1


if __name__ == "__main__":
    raise SystemExit(main())
