"""Machine-translation round trips of non-English originals, hidden among the other
articles of their language (issue 10: spins of every kind, in many languages).

Usage::

    .venv/bin/python bench/lang_routes.py OUT [--split tune|held|all] [--n-per-route 30]
        [--routes spa_eng,spa_fra,fra_spa,por_spa,ita_cat,mt_es_fra]

One folder per route under ``OUT`` (``articles.jsonl``, ``labels.jsonl`` in the format of
``unspin eval make-routes``, so ``unspin eval routes OUT/ROUTE`` scores it with its
baselines). A route's pile is every original of its language in its corpus (NTREX dev:
62 documents a language; MEANTIME: 120 Spanish articles), and round trips of up to
``--n-per-route`` of them, made paragraph by paragraph with Apertium there and back (a
Debian package per pair: ``apertium-eng-spa``, ``apertium-fr-es``, ``apertium-es-pt``,
``apertium-cat-ita``; ``apertium-fra-cat`` and ``apertium-pt-gl`` for two routes added
after the rules were fixed; ``apertium-spa-ita``, ``apertium-es-gl``, ``apertium-por-cat``,
``apertium-oci-fra``, ``apertium-afr-nld`` and ``apertium-pol-szl`` for seven routes added
in session 61, the first through Dutch and Polish; ``apertium-spa-cat``, ``apertium-oc-es``,
``apertium-spa-arg`` and ``apertium-fra-frp`` for eight added in session 64). Sources are
split in halves by a stable hash of the document id (NTREX: the same document is in the
same half in every language), so routes can be tuned on one half and reported on the
other.

The generator reads nothing of the detector (:mod:`unspin.evaluate.mt` imports no part of
unspin); the texts come from ``../shared`` (``UNSPIN_SHARED``), research use only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path

from unspin.evaluate.mt import ApertiumTranslator


@dataclass(frozen=True)
class LangRoute:
    name: str
    corpus: str  # ntrex | meantime
    lang: str  # the corpus's language code
    iso: str  # the article's language as given to unspin
    there: str  # Apertium mode into the pivot language
    back: str  # and back
    package: str
    #: the route's pair leaves Apertium's marks (``*``, ``#``, ``@``) on words its
    #: generator could not inflect, even under ``-u``: a farm's copy would not show them
    strip_marks: bool = False


LANG_ROUTES = {
    r.name: r
    for r in (
        LangRoute("spa_eng", "ntrex", "spa", "es", "spa-eng", "eng-spa", "apertium-eng-spa"),
        LangRoute("spa_fra", "ntrex", "spa", "es", "es-fr", "fr-es", "apertium-fr-es"),
        LangRoute("fra_spa", "ntrex", "fra", "fr", "fr-es", "es-fr", "apertium-fr-es"),
        LangRoute("por_spa", "ntrex", "por", "pt", "pt-es", "es-pt", "apertium-es-pt"),
        LangRoute("ita_cat", "ntrex", "ita", "it", "ita-cat", "cat-ita", "apertium-cat-ita"),
        LangRoute("fra_cat", "ntrex", "fra", "fr", "fra-cat", "cat-fra", "apertium-fra-cat"),
        LangRoute("por_glg", "ntrex", "por", "pt", "pt-gl", "gl-pt", "apertium-pt-gl"),
        LangRoute("mt_es_fra", "meantime", "es", "es", "es-fr", "fr-es", "apertium-fr-es"),
        LangRoute("mt_es_eng", "meantime", "es", "es", "spa-eng", "eng-spa", "apertium-eng-spa"),
        # session 61: seven routes through pairs no rule was fitted on (a fresh held set)
        LangRoute("spa_ita", "ntrex", "spa", "es", "spa-ita", "ita-spa", "apertium-spa-ita"),
        LangRoute("ita_spa", "ntrex", "ita", "it", "ita-spa", "spa-ita", "apertium-spa-ita"),
        LangRoute("spa_glg", "ntrex", "spa", "es", "es-gl", "gl-es", "apertium-es-gl"),
        LangRoute("por_cat", "ntrex", "por", "pt", "por-cat", "cat-por", "apertium-por-cat"),
        LangRoute("fra_oci", "ntrex", "fra", "fr", "fra-oci", "oci-fra", "apertium-oci-fra"),
        LangRoute("nld_afr", "ntrex", "nld", "nl", "nld-afr", "afr-nld", "apertium-afr-nld", True),
        LangRoute("pol_szl", "ntrex", "pol", "pl", "pol-szl", "szl-pol", "apertium-pol-szl", True),
        # session 64: eight more routes no rule was fitted on (a fresh set for the style
        # lead on non-English round trips; Occitan, Aragonese and Franco-Provençal pairs new)
        LangRoute("spa_cat", "ntrex", "spa", "es", "spa-cat", "cat-spa", "apertium-spa-cat"),
        LangRoute("spa_por", "ntrex", "spa", "es", "es-pt", "pt-es", "apertium-es-pt"),
        LangRoute("spa_oci", "ntrex", "spa", "es", "es-oc", "oc-es", "apertium-oc-es", True),
        LangRoute("spa_arg", "ntrex", "spa", "es", "spa-arg", "arg-spa", "apertium-spa-arg", True),
        LangRoute("fra_frp", "ntrex", "fra", "fr", "fra-frp", "frp-fra", "apertium-fra-frp", True),
        LangRoute("mt_es_cat", "meantime", "es", "es", "spa-cat", "cat-spa", "apertium-spa-cat"),
        LangRoute("mt_es_por", "meantime", "es", "es", "es-pt", "pt-es", "apertium-es-pt"),
        LangRoute("mt_es_oci", "meantime", "es", "es", "es-oc", "oc-es", "apertium-oc-es", True),
    )
}


def shared() -> Path:
    return Path(os.environ.get("UNSPIN_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def half(doc_id: str) -> str:
    """The half a document belongs to: a stable hash of its id."""
    return "tune" if hashlib.sha1(doc_id.encode()).digest()[0] % 2 == 0 else "held"


def originals(route: LangRoute) -> list[dict]:
    """``{id, doc_id, title, text}`` of every original of the route's language."""
    if route.corpus == "ntrex":
        path = shared() / "data" / "ntrex_dev" / "articles.jsonl"
        rows = [json.loads(x) for x in path.open(encoding="utf-8")]
        return [
            {"id": r["id"], "doc_id": r["doc_id"], "title": r["title"], "text": r["text"]}
            for r in rows
            if r["lang"] == route.lang
        ]
    path = shared() / "data" / "meantime" / f"meantime_{route.lang}.jsonl"
    out = []
    for x in path.open(encoding="utf-8"):
        r = json.loads(x)
        title, _, body = r["text"].partition("\n")
        out.append(
            {
                "id": f"meantime-{r['doc_id']}-{route.lang}",
                "doc_id": r["doc_id"],
                "title": title,
                "text": body.strip(),
            }
        )
    return out


#: a mark Apertium puts before a word it could not analyse, generate or translate
_MARKS = re.compile(r"(?<!\w)[*#@]+(\w+)")


def strip_marks(text: str, source: str) -> str:
    """``text`` without the marks some Apertium pairs leave before words even under
    ``-u`` ("*nasleep", "#dicho"); a marked token the ``source`` has as it is (a hashtag,
    a handle) stays, and so does an address ("jo@samaritans.org": the mark is inside)."""
    return _MARKS.sub(lambda m: m.group(0) if m.group(0) in source else m.group(1), text)


def paragraphs(text: str) -> list[str]:
    blocks = [b.strip() for b in text.split("\n\n") if b.strip()]
    if len(blocks) <= 1:
        blocks = [b.strip() for b in text.split("\n") if b.strip()]
    return blocks


def write_pile(out: Path, docs: list[dict], iso: str, derived: list[tuple[dict, dict]]) -> int:
    """``articles.jsonl`` (every original, then each derivative) and ``labels.jsonl``
    (one label a derivative) in ``out``; ``derived``: (article row, label) pairs."""
    out.mkdir(parents=True, exist_ok=True)
    with (
        (out / "articles.jsonl").open("w", encoding="utf-8") as fa,
        (out / "labels.jsonl").open("w", encoding="utf-8") as fl,
    ):
        for d in docs:
            row = {"id": d["id"], "title": d["title"], "text": d["text"], "lang": iso}
            fa.write(json.dumps(row, ensure_ascii=False) + "\n")
        for row, label in derived:
            fa.write(json.dumps(row, ensure_ascii=False) + "\n")
            fl.write(json.dumps(label) + "\n")
    return len(derived)


def label(source: str, derivative: str, kind: str, split: str, **extra: object) -> dict:
    """A label in the format of ``unspin eval make-routes``."""
    return {
        "a": source, "b": derivative, "source": source, "derivative": derivative,
        "relation": "spun", "kind": kind, "split": split, "spans": [], **extra,
    }  # fmt: skip


def make(route: LangRoute, out: Path, split: str, n: int, seed: int) -> int:
    docs = originals(route)
    pool = [d for d in docs if split == "all" or half(d["doc_id"]) == split]
    pick = random.Random(f"{seed}:{route.name}").sample(pool, min(n, len(pool)))
    tr = ApertiumTranslator(route.there, back=route.back, package=route.package)
    # every paragraph and title of the picked articles in one batch, then put back
    pieces = [[d["title"], *paragraphs(d["text"])] for d in pick]
    flat = tr.roundtrip([p for ps in pieces for p in ps])
    if route.strip_marks:
        flat = [strip_marks(t, src) for t, src in zip(flat, [p for ps in pieces for p in ps])]
    derived, pos = [], 0
    for d, ps in zip(pick, pieces):
        got = flat[pos : pos + len(ps)]
        pos += len(ps)
        sid = "rt-" + hashlib.sha1(f"{route.name}:{d['id']}".encode()).hexdigest()[:12]
        row = {"id": sid, "title": got[0], "text": "\n\n".join(got[1:]), "lang": route.iso}
        kind = f"lang_{route.name}"
        derived.append((row, label(d["id"], sid, kind, split, source_corpus_id=d["id"])))
    return write_pile(out, docs, route.iso, derived)


REWRITE_STYLES = ("same", "condensed", "framed")


def rewrites(folder: Path, out: Path) -> int:
    """A pile of model-written rewrites of non-English originals (a folder as the helpers'
    sets: ``manifest.json`` file -> corpus id, ``sources/``, one folder per style), hidden
    among every original of the language in the source corpus."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    first = next(iter(manifest.values()))
    if "/" in first:  # NTREX ids: doc/lang
        lang = first.rsplit("/", 1)[1]
        route = LangRoute("rw", "ntrex", lang, ISO[lang], "", "", "")
    else:
        route = LangRoute("rw", "meantime", "es", "es", "", "", "")
    docs = originals(route)
    ids = {d["id"] for d in docs}
    derived = []
    for file, cid in sorted(manifest.items()):
        src = cid if route.corpus == "ntrex" else f"meantime-{cid}-es"
        if src not in ids:
            raise SystemExit(f"{folder}: {file} names {cid}, not in the corpus")
        for style in REWRITE_STYLES:
            path = folder / style / file
            if not path.exists():
                continue
            title, _, body = path.read_text(encoding="utf-8").strip().partition("\n")
            rid = "rw-" + hashlib.sha1(f"{folder.name}:{style}:{file}".encode()).hexdigest()[:12]
            row = {"id": rid, "title": title.strip(), "text": body.strip(), "lang": route.iso}
            kind = f"rewrite_{style}_{route.iso}"
            extra = {"source_corpus_id": cid, "notes": {"file": file}}
            derived.append((row, label(src, rid, kind, "held", **extra)))
    return write_pile(out, docs, route.iso, derived)


ISO = {
    "spa": "es", "fra": "fr", "deu": "de", "por": "pt", "ita": "it",
    "nld": "nl", "rus": "ru", "pol": "pl", "tur": "tr",
    "jpn": "ja", "zho-CN": "zh", "zho-TW": "zh-Hant", "kor": "ko", "arb": "ar", "hin": "hi",
    "ell": "el", "tha": "th", "swa": "sw",
}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--split", default="tune", choices=["tune", "held", "all"])
    ap.add_argument("--n-per-route", type=int, default=30)
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--routes", default=",".join(LANG_ROUTES))
    ap.add_argument("--rewrites", help="a folder of model-written rewrites (see rewrites())")
    args = ap.parse_args()
    if args.rewrites:
        n = rewrites(Path(args.rewrites), Path(args.out))
        print(f"{args.rewrites}: {n} rewrites")
        return 0
    for name in args.routes.split(","):
        n = make(LANG_ROUTES[name], Path(args.out) / name, args.split, args.n_per_route, args.seed)
        print(f"{name}: {n} round trips")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
