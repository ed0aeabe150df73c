"""Write a Result as JSON Lines (the output contract, docs/schema.md) plus Parquet copies."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from unspin.model import SCHEMA_VERSION, Result

FILES = ("articles", "relations", "stories", "errors", "changes", "quotes", "lineage")


def records(result: Result) -> dict[str, list[dict[str, Any]]]:
    """The tables of the contract as lists of JSON-ready dicts."""
    return {
        "articles": result.article_records(),
        "relations": [r.to_record() for r in result.relations],
        "stories": [s.to_record() for s in result.stories],
        "errors": [e.to_record() for e in result.errors],
        "changes": [c.to_record() for c in result.changes],
        "quotes": [q.to_record() for q in result.quotes],
        "lineage": [x.to_record() for x in result.lineage],
    }


def write_results(result: Result, out: str | os.PathLike, parquet: bool = True) -> list[Path]:
    """Write ``<name>.jsonl`` for each table (and ``.parquet`` where pyarrow is installed).

    Files are written to a temporary name and renamed, so a crash never leaves a
    half-written table behind.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    tables = records(result)
    for name, rows in tables.items():
        path = out / f"{name}.jsonl"
        tmp = path.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        tmp.replace(path)
        written.append(path)
    meta = {"schema_version": SCHEMA_VERSION, "counts": {k: len(v) for k, v in tables.items()}}
    (out / "manifest.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    written.append(out / "manifest.json")
    if parquet:
        written.extend(_write_parquet(tables, out))
    return written


def _write_parquet(tables: dict[str, list[dict[str, Any]]], out: Path) -> list[Path]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return []
    paths = []
    for name, rows in tables.items():
        # nested fields (alignment, coverage, features) go in as JSON strings: stable schema
        flat = [
            {
                k: json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v
                for k, v in row.items()
            }
            for row in rows
        ]
        path = out / f"{name}.parquet"
        pq.write_table(pa.Table.from_pylist(flat) if flat else pa.table({}), path)
        paths.append(path)
    return paths


def read_jsonl(path: str | os.PathLike) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def read_tables(out: str | os.PathLike) -> dict[str, list[dict[str, Any]]]:
    """Every table of a results folder (``FILES``) as lists of dicts; a table the folder
    lacks is an empty list. Readers (``unspin quotes``, the report, the service) go through
    this one function, so how a results folder is laid out on disk stays in this module."""
    out = Path(out)
    return {
        name: read_jsonl(out / f"{name}.jsonl") if (out / f"{name}.jsonl").is_file() else []
        for name in FILES
    }
