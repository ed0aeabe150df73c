"""Independent reports of one event, translated: do reuse claims hold up in other languages?

ECB+ dev holds several independent reports of each event. Hand translations of a sample of
them (folders written by translators outside this repository: ``<sets>/<prefix>-<lang>/``
with ``manifest.json`` (file -> ECB+ doc_id), ``out/NN.txt``) give what the rewrite sets
of issue 10 lack: independent coverage of one event in another language. The English
originals, scanned by the same code, are the reference: a reuse claim between two
different documents in translation that the English scan does not make is a **false
claim** (a rewrite or a translation needs the same evidence in any language; issue 11:
"a cross-language pair is reuse only on evidence that a same-language pair would need
too").

Per language two piles are scanned: the translations alone (same-language claims) and
the English originals with the translations (claims across languages; each document's
own translation must come out ``translation``; the stories of each pile are scored too:
ARI against the events, and whether each document shares a story with its own
translation). Beside unspin, a simple baseline for the
cross-language claims: "translation when the two documents' vectors (mean of the
sentence vectors, the same encoder) are at least t apart", t the highest that types every
document's own translation as one in that pile (tuned on the pile it is scored on: the
baseline's best case).

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/translated_guard.py SETS SELECTION.json \
        --prefix tr --langs ja,ko,zh,ar [--cache DIR] [--out DIR] [--report FILE.md]

``SELECTION.json``: ``{"docs": [[subtopic, doc_id], ...]}``. Needs ``../shared/data``
(``UNSPIN_SHARED`` to point elsewhere); skips saying why without it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from common import SHARED

from unspin.model import REUSE_RELATIONS, Article, Result
from unspin.pipeline import Config, analyse, fingerprint


def english(rows: dict[str, dict], docs: list[str]) -> list[Article]:
    return [Article(id=f"{d}/en", text=rows[d]["text"], lang="en") for d in docs]


def translations(folder: Path, lang: str) -> list[Article]:
    man = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    out = []
    for fn, d in sorted(man.items()):
        p = folder / "out" / fn
        if not p.exists():
            raise SystemExit(f"{p}: missing (the translator's folder is not finished)")
        out.append(Article(id=f"{d}/{lang}", text=p.read_text(encoding="utf-8")))
    return out


def scan(arts: list[Article], cache, cfg: Config | None = None, memo: bool = True) -> Result:
    """The pile's result with fingerprints cached in ``cache`` (a Store or None);
    ``memo`` False: every pair analysed afresh, the stored pair results not read (a
    config other than the one they were stored under)."""
    cfg = cfg or Config()
    docs = fingerprint(arts, cfg, cache=cache)
    if cache is not None:
        cache.commit()
    return analyse(docs, cfg, cache=cache if memo else None)


def doc_of(i: str) -> str:
    return i.rsplit("/", 1)[0]


def claims(res: Result, event: dict[str, str]) -> list[dict]:
    """Every relation between two articles, with whether it is a reuse claim and what
    kind of pair it is (same document, same event, other event)."""
    out = []
    for r in res.relations:
        da, db = doc_of(r.a), doc_of(r.b)
        kind = "same-doc" if da == db else ("same-event" if event[da] == event[db] else "other")
        out.append(
            {"a": r.a, "b": r.b, "relation": r.relation, "kind": kind,
             "reuse": r.relation in REUSE_RELATIONS, "confidence": round(r.confidence, 3)}
        )  # fmt: skip
    return out


def story_ari(res: Result, event: dict[str, str]) -> float:
    """Adjusted Rand index of the scan's stories against the ECB+ events (an article in
    no story is a story of its own)."""
    from sklearn.metrics import adjusted_rand_score

    story = {m: s.id for s in res.stories for m in s.articles}
    ids = [d.id for d in res.docs]
    return float(
        adjusted_rand_score([event[doc_of(i)] for i in ids], [story.get(i, i) for i in ids])
    )


def one_story(res: Result, a: str, b: str) -> bool:
    """Whether articles ``a`` and ``b`` are members of one story of the scan."""
    return any(a in s.articles and b in s.articles for s in res.stories)


def doc_cos_baseline(res: Result) -> tuple[float, int, int, int]:
    """The document-cosine baseline on a mixed pile: its tuned cut, translations it
    types, cross-language different-document pairs it claims, and such pairs."""
    docs = {d.id: d for d in res.docs}
    en = [i for i in docs if i.endswith("/en")]
    xx = [i for i in docs if not i.endswith("/en")]
    cos = {
        (a, b): float(np.dot(docs[a].doc_vector, docs[b].doc_vector))
        for a, b in itertools.product(en, xx)
        if docs[a].doc_vector is not None and docs[b].doc_vector is not None
    }
    own = [c for (a, b), c in cos.items() if doc_of(a) == doc_of(b)]
    cut = min(own) if own else 1.0
    other = [c for (a, b), c in cos.items() if doc_of(a) != doc_of(b)]
    return cut, sum(c >= cut for c in own), sum(c >= cut for c in other), len(other)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", help="folder holding <prefix>-<lang>/ translation folders")
    ap.add_argument("selection", help="JSON with docs: [[subtopic, doc_id], ...]")
    ap.add_argument("--prefix", default="tr")
    ap.add_argument("--langs", default="ja,ko,zh,ar")
    ap.add_argument("--cache", help="a Store folder for fingerprints (default: none)")
    ap.add_argument("--out", help="folder for each pile's claims (JSONL)")
    ap.add_argument("--report", help="write the table here (Markdown)")
    args = ap.parse_args()
    data = SHARED / "data"
    if not (data / "ecbplus_dev.jsonl").is_file():
        print(
            f"skipped: {data / 'ecbplus_dev.jsonl'} not found (set UNSPIN_SHARED)", file=sys.stderr
        )
        return 0
    rows = {
        (r := json.loads(line))["doc_id"]: r
        for line in (data / "ecbplus_dev.jsonl").read_text(encoding="utf-8").splitlines()
    }
    sel = json.loads(Path(args.selection).read_text(encoding="utf-8"))
    event = {d: s for s, d in sel["docs"]}
    docs = [d for _, d in sel["docs"]]
    cache = None
    if args.cache:
        from unspin.store import Store

        cache = Store(args.cache)
    out = Path(args.out or tempfile.mkdtemp(prefix="translated_guard_"))
    out.mkdir(parents=True, exist_ok=True)
    same_event = sum(1 for a, b in itertools.combinations(docs, 2) if event[a] == event[b])

    def run(name: str, arts: list[Article]) -> tuple[list[dict], Result]:
        res = scan(arts, cache)
        got = claims(res, event)
        with open(out / f"{name}.jsonl", "w", encoding="utf-8") as f:
            for c in got:
                f.write(json.dumps(c) + "\n")
        return got, res

    ref, ref_res = run("en", english(rows, docs))
    en_claims = {frozenset((doc_of(c["a"]), doc_of(c["b"]))) for c in ref if c["reuse"]}
    stories = [f"English originals: story ARI by event {story_ari(ref_res, event):.3f}"]
    lines = [
        f"{len(docs)} ECB+ documents, {len(set(event.values()))} events, {same_event} "
        f"same-event document pairs; English reference: {len(en_claims)} reuse claims "
        "between different documents",
        "",
        "| language | pile | own translations typed `translation` | reuse claims between "
        "different documents | of them the English scan makes too | **false claims** "
        "(same event) | false claims (other events) | doc-cosine baseline (tuned): false "
        "claims of cross-language pairs |",
        "|---|---|---|---|---|---|---|---|",
    ]
    false_total = Counter()  # by pile kind: English + translations (True) or not
    for lang in args.langs.split(","):
        folder = Path(args.sets) / f"{args.prefix}-{lang}"
        tr = translations(folder, lang)
        for name, arts in ((lang, tr), (f"en+{lang}", english(rows, docs) + tr)):
            mixed = name.startswith("en+")
            got, res = run(name, arts)
            own = [c for c in got if c["kind"] == "same-doc"]
            typed = sum(c["relation"] == "translation" for c in own)
            diff = [c for c in got if c["kind"] != "same-doc" and c["reuse"]]
            false = [
                c for c in diff if frozenset((doc_of(c["a"]), doc_of(c["b"]))) not in en_claims
            ]
            false_ev = sum(c["kind"] == "same-event" for c in false)
            false_other = len(false) - false_ev
            base = "–"
            if mixed:
                cut, kept, fp, n = doc_cos_baseline(res)
                base = f"{fp} of {n} (cut {cut:.3f}, {kept} translations)"
            false_total[mixed] += len(false)
            if not mixed:
                stories.append(f"{lang} alone: story ARI by event {story_ari(res, event):.3f}")
            if mixed:
                joined = sum(one_story(res, f"{d}/en", f"{d}/{lang}") for d in docs)
                stories.append(
                    f"English + {lang}: story ARI by event {story_ari(res, event):.3f}; each "
                    f"document in one story with its own translation: {joined} / {len(docs)}"
                )
            lines.append(
                f"| {lang} | {'English + translations' if mixed else 'translations'}"
                f" | {f'{typed} / {len(docs)}' if mixed else '–'} | {len(diff)}"
                f" | {len(diff) - len(false)} | **{false_ev}** | {false_other} | {base} |"
            )
            print(lines[-1], flush=True)
    lines += [
        "",
        f"false claims: translations alone {false_total[False]}, with English "
        f"{false_total[True]} (claims files in {out})",
        "",
        "stories (ARI of the scan's stories against the events; an article in no story "
        "counts as a story of its own):",
        *[f"- {x}" for x in stories],
    ]
    text = "\n".join(lines)
    print(text)
    if args.report:
        Path(args.report).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
