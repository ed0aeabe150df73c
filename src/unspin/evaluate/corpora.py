"""Reading article corpora (BBC, Reuters-21578, parallel files) and writing the JSON Lines
of a labelled set: plain I/O shared by the derivative generators.

It imports nothing from the detector, so a generator that uses it stays independent.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import re
from pathlib import Path
from typing import Any

from unspin.model import Article


def _unwrap_reuters(body: str) -> str:
    """Reuters bodies are hard-wrapped with indented paragraph starts: blank-line paragraphs."""
    body = html.unescape(body.replace("\x03", "").replace("&#3;", ""))
    paras = (" ".join(p.split()) for p in re.split(r"\n[ \t]+", body))
    return "\n\n".join(p for p in paras if p)


def read_corpus(path: str | Path) -> list[Article]:
    """Articles from (gzipped) JSON Lines: BBC (id/title/text), Reuters (title/body), id/text.

    The title becomes the first paragraph of the text (articles are read as published);
    Reuters ids are ``reuters-<line>``; records without text are skipped.
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    out: list[Article] = []
    with opener(path, "rt", encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            rec = json.loads(line)
            title = " ".join(str(rec.get("title") or "").split()) or None
            if "body" in rec:
                body, aid = _unwrap_reuters(str(rec["body"] or "")), f"reuters-{line_no}"
            else:
                body = str(rec.get("text") or "").strip()
                aid = str(rec.get("id") or rec.get("doc_id") or f"{path.stem}-{line_no}")
            if not body:
                continue
            text = f"{title}\n\n{body}" if title and not body.startswith(title) else body
            out.append(
                Article(
                    id=aid,
                    text=text,
                    title=title,
                    lang=rec.get("lang"),
                    input=str(path),
                    location=f"line {line_no}",
                )
            )
    return out


def read_parallel(src_path: str | Path, tgt_path: str | Path) -> list[tuple[Article, Article]]:
    """Pairs (original, translation) matched by id, e.g. MEANTIME ``meantime_{en,es}.jsonl``."""
    tgt = {a.id: a for a in read_corpus(tgt_path)}
    return [(a, tgt[a.id]) for a in read_corpus(src_path) if a.id in tgt]


def opaque_id(seed: int, *key: object) -> str:
    """Opaque article id (``a-<12 hex>``): the same shape for originals and derivatives."""
    return "a-" + hashlib.sha1("|".join(map(str, (seed, *key))).encode()).hexdigest()[:12]


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    """One JSON object per line, UTF-8, non-ASCII kept as is."""
    with path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
