"""Shared helpers for benchmarks and fitting scripts: locate ../shared and load its sets."""

from __future__ import annotations

import csv
import gzip
import json
import os
from pathlib import Path

from unspin.model import Article

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("UNSPIN_SHARED", REPO.parent / "shared"))


def read_verdicts(path: str | Path, exclude: str = "") -> dict[tuple[str, str], bool]:
    """Hand-read verdicts (``bench/reuters_*_read.tsv``: ``set``, ``a``, ``b``, ``verdict``;
    ``#`` lines skipped) by pair (sorted ids): True right, False wrong; sets whose name
    starts with ``exclude`` left out."""
    out: dict[tuple[str, str], bool] = {}
    with open(path, encoding="utf-8") as fh:
        rows = csv.DictReader((line for line in fh if not line.startswith("#")), delimiter="\t")
        for r in rows:
            if exclude and r["set"].startswith(exclude):
                continue
            out[tuple(sorted((r["a"], r["b"])))] = r["verdict"] == "right"
    return out


def jsonl(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def ecbplus() -> tuple[list[Article], dict[str, str], dict[str, str]]:
    """ECB+ dev articles, and their subtopic and topic labels by id."""
    rows = jsonl(SHARED / "data" / "ecbplus_dev.jsonl")
    arts = [Article(id=r["doc_id"], text=r["text"]) for r in rows]
    return arts, {r["doc_id"]: r["subtopic"] for r in rows}, {r["doc_id"]: r["topic"] for r in rows}


def pac() -> tuple[list[Article], dict[str, str]]:
    """PAC dev articles (with outlets and dates), and their event labels by id."""
    rows = jsonl(SHARED / "data" / "pac_dev" / "articles.jsonl")
    arts = [
        Article(
            id=r["id"],
            text=r["text"],
            title=r.get("title"),
            outlet=r.get("outlet"),
            published_at=r.get("published_at"),
        )
        for r in rows
    ]
    return arts, {r["id"]: r["event"] for r in rows}


def meantime() -> list[Article]:
    """MEANTIME English and Spanish articles; ids ``<doc_id>/<lang>``."""
    out = []
    for lang in ("en", "es"):
        for r in jsonl(SHARED / "data" / "meantime" / f"meantime_{lang}.jsonl"):
            out.append(Article(id=f"{r['doc_id']}/{lang}", text=r["text"], lang=None))
    return out
