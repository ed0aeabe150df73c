"""Direction and injected-edit detection on every labelled pair of a make-derivatives folder.

Usage: PYTHONPATH=src:bench .venv/bin/python bench/provenance_pairs.py DIR [--times]

Unlike `unspin eval derivatives` (the whole pipeline, half the labels), this aligns and
classifies each labelled pair directly (so a pair the candidate stage would miss is still
judged) with corpus support from all articles of the folder. It extracts changes with
the true direction, and as the output lists them for the pair as classified. `--times`
gives each source a publication time one day before its derivative. Prints right /
undecided / wrong per kind and the injected edits found.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections import defaultdict
from pathlib import Path

from unspin.align import align
from unspin.changes import extract_changes, undirected_changes
from unspin.classify import classify
from unspin.corpus import CorpusSupport
from unspin.evaluate.runner import _found, _unedited
from unspin.fingerprint import prepare
from unspin.model import Article
from unspin.pipeline import Config, fingerprint


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=Path)
    ap.add_argument("--times", action="store_true")
    args = ap.parse_args()
    rows = [json.loads(x) for x in (args.folder / "articles.jsonl").open(encoding="utf-8")]
    arts = {r["id"]: Article(id=r["id"], text=r["text"], title=r.get("title")) for r in rows}
    labels = [json.loads(x) for x in (args.folder / "labels.jsonl").open(encoding="utf-8")]
    support = CorpusSupport([prepare(a) for a in arts.values()])
    need = sorted({x for lab in labels for x in (lab["source"], lab["derivative"])})
    docs = {d.id: d for d in fingerprint([arts[i] for i in need], Config())}
    if args.times:
        for lab in labels:
            for i, when in ((lab["source"], "2026-01-01T00:00"), (lab["derivative"], "2026-01-02")):
                art = dataclasses.replace(docs[i].article, published_at=when)
                docs[i] = dataclasses.replace(docs[i], article=art)
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    found: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    false_quotes = unedited = 0
    in_output = [0, 0]  # injected edits in the changes listed for the pair as classified
    for lab in labels:
        src, der = lab["source"], lab["derivative"]
        a, b = sorted((src, der))
        rel = classify(docs[a], docs[b], align(docs[a], docs[b]), support=support)
        kind = "unedited copy" if _unedited(lab) else lab["kind"]
        guess = rel.source if rel is not None else None
        by_kind[kind][0 if guess == src else 1 if guess is None else 2] += 1
        if lab["kind"] != "injected_edits" or rel is None:
            continue
        changes = extract_changes(docs[src], docs[der], dataclasses.replace(rel, source=src))
        # what changes.jsonl lists for the pair as classified (directed, or differences)
        if rel.source == src:
            listed = extract_changes(docs[src], docs[der], rel)
        else:
            listed = undirected_changes(docs[a], docs[b], rel) if rel.source is None else []
        if _unedited(lab):
            unedited += 1
            false_quotes += sum(c.kind == "quote_altered" for c in changes)
        for e in lab["edits"]:
            found[e["kind"]][0] += _found(e, changes)
            found[e["kind"]][1] += 1
            in_output[0] += _found(e, listed, der)
            in_output[1] += 1
    print(f"{args.folder} {'with' if args.times else 'without'} publication times")
    total = [0, 0, 0]
    for kind, v in sorted(by_kind.items()):
        print(f"  direction {kind:22s} right {v[0]:3d}  undecided {v[1]:3d}  wrong {v[2]:3d}")
        if kind != "unedited copy":
            total = [x + y for x, y in zip(total, v)]
    n = sum(total)
    print(
        f"  direction, pairs with edits: {total[0]}/{n} right ({total[0] / n:.3f}), "
        f"{total[2]} wrong; right of decided {total[0] / max(1, total[0] + total[2]):.3f}"
    )
    for kind, (k, m) in sorted(found.items()):
        print(f"  injected {kind:22s} {k}/{m}")
    k, m = sum(v[0] for v in found.values()), sum(v[1] for v in found.values())
    if m:
        print(
            f"  injected edits found {k}/{m} ({k / m:.3f}); false quote_altered "
            f"{false_quotes} in {unedited} unedited copies"
        )
        print(
            f"  injected edits in the changes listed for the pair as classified "
            f"(directed, or differences of an undirected pair): {in_output[0]}/{in_output[1]}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
