"""Edited copies of NTREX dev originals in many languages, hidden among the originals of
their language: a guard for copy typing and for the changes reported (issue 10).

Usage::

    UNSPIN_SHARED=../shared .venv/bin/python bench/edited_copies.py OUT --kind KIND \\
        [--langs spa,fra,...] [--n 30] [--seed TAG]

Kinds (one folder per language under ``OUT``, ``articles.jsonl`` and ``labels.jsonl``):

- ``swap``: the last paragraph dropped, the second and third swapped, the first integer
  figure +1 (session 61's guard; German, Spanish, French, Italian, Portuguese, Dutch,
  Polish by default). Score with ``bench/cached_eval.py CACHE routes OUT/copy_LANG``.
- ``lead``: the first paragraph dropped, the last integer figure +10 (session 62's held
  guard; English, Arabic, Greek, Hindi, Japanese, Korean, Russian, Turkish, Chinese).
  Scored the same way.
- ``inject``: one name (a capitalised word after a lower-case one, never written in lower
  case in the language's documents) replaced by such a name of another document of the
  language, and one integer figure +7; labels in ``make-derivatives``' format with the
  two edits' spans (``injected_edits``), scored with ``bench/cached_eval.py CACHE
  derivatives OUT/inject_LANG``. Not for German, whose nouns are all capitalised.

Each copy is labelled ``copy`` of its original. The generator reads nothing of the
detector: its figures and names are regular expressions of its own. The texts come from
``../shared`` (``UNSPIN_SHARED``), research use only, and are never copied into the
repository.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

from common import SHARED

NTREX = SHARED / "data" / "ntrex_dev" / "articles.jsonl"
#: NTREX language code -> the language code given to unspin
ISO = {
    "eng": "en",
    "deu": "de",
    "spa": "es",
    "fra": "fr",
    "ita": "it",
    "por": "pt",
    "nld": "nl",
    "pol": "pl",
    "rus": "ru",
    "tur": "tr",
    "ell": "el",
    "arb": "ar",
    "hin": "hi",
    "jpn": "ja",
    "kor": "ko",
    "zho-CN": "zh",
}
DEFAULT_LANGS = {
    "swap": ("deu", "spa", "fra", "ita", "por", "nld", "pol"),
    "lead": ("eng", "rus", "tur", "ell", "arb", "hin", "jpn", "kor", "zho-CN"),
    "inject": ("eng", "fra", "ita", "spa", "por", "nld", "pol", "rus", "tur", "ell"),
}
#: seeds of the sets the sessions ran (the default reproduces them)
DEFAULT_SEED = {"swap": "guard61", "lead": "guard62", "inject": "inject62"}
WORD = re.compile(r"[^\W\d_][\w'-]*")
#: an integer not part of a decimal, a time, a date or a range
INTEGER = {
    "swap": re.compile(r"\b\d+\b"),
    "lead": re.compile(r"(?<![\d.,])\d+(?![\d.,])"),
    "inject": re.compile(r"(?<![\d.,:/-])\d+(?![\d.,:/-])"),
}


def _paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n") if p.strip()]


def edited(text: str, kind: str) -> str | None:
    """The ``swap`` or ``lead`` edit of ``text``; None when it has no integer figure
    (``lead``: such a text is skipped; ``swap`` keeps it with its paragraphs moved)."""
    paras = _paragraphs(text)
    if kind == "swap":
        if len(paras) >= 4:
            paras = paras[:-1]
            paras[1], paras[2] = paras[2], paras[1]
        out = "\n".join(paras)
        m = INTEGER["swap"].search(out)
        if m:
            out = out[: m.start()] + str(int(m.group(0)) + 1) + out[m.end() :]
        return out
    if len(paras) >= 4:
        paras = paras[1:]
    out = "\n".join(paras)
    found = list(INTEGER["lead"].finditer(out))
    if not found:
        return None
    m = found[-1]
    return out[: m.start()] + str(int(m.group(0)) + 10) + out[m.end() :]


def cap_names(text: str, lower: set[str]) -> list[tuple[int, int, str]]:
    """(start, end, word) of capitalised words of 4+ letters after a lower-case word in
    one sentence, never written in lower case in ``lower`` (the language's words)."""
    toks = list(WORD.finditer(text))
    out = []
    for prev, t in zip(toks, toks[1:]):
        w, gap = t.group(0), text[prev.end() : t.start()]
        if (
            len(w) >= 4
            and w[0].isupper()
            and not w.isupper()
            and prev.group(0)[0].islower()
            and not any(c in gap for c in '.!?:"«»“”\n')
            and w.lower() not in lower
        ):
            out.append((t.start(), t.end(), w))
    return out


def injected(
    text: str, lower: set[str], pool: list[str], rng: random.Random
) -> tuple[str, list[dict[str, Any]]] | None:
    """``text`` with one name and one integer changed, and the two edits' labels."""
    names = cap_names(text, lower)
    nums = list(INTEGER["inject"].finditer(text))
    fresh = [w for w in pool if w not in text]
    if not names or not nums or not fresh:
        return None
    s0, e0, _ = rng.choice(names)
    new_name = rng.choice(fresh)
    m = rng.choice(nums)
    if m.start() < e0 and m.end() > s0:
        return None
    edits = sorted(
        [
            (s0, e0, new_name, "entity_changed"),
            (m.start(), m.end(), str(int(m.group(0)) + 7), "number_changed"),
        ]
    )
    parts, labels, shift, pos = [], [], 0, 0
    for s, e, rep, kind in edits:
        parts += [text[pos:s], rep]
        labels.append(
            {
                "kind": kind,
                "source_span": [s, e],
                "derivative_span": [s + shift, s + shift + len(rep)],
                "source_text": text[s:e],
                "derivative_text": rep,
            }
        )
        shift += len(rep) - (e - s)
        pos = e
    parts.append(text[pos:])
    return "".join(parts), labels


def make(
    rows: list[dict[str, Any]], out: Path, kind: str, langs: list[str], n: int, seed: str
) -> dict[str, int]:
    """Write one folder per language; returns the copies made per language."""
    made = {}
    for lang in langs:
        docs = [r for r in rows if r["lang"] == lang]
        if not docs:
            raise SystemExit(f"edited_copies: no documents in language {lang!r} in {NTREX}")
        rng = random.Random(f"{seed}:{lang}")
        folder = out / f"{'inject' if kind == 'inject' else 'copy'}_{lang}"
        folder.mkdir(parents=True, exist_ok=True)
        lower: set[str] = set()
        pool: list[str] = []
        if kind == "inject":  # the language's words and names, read for names only
            lower = {
                t.group(0)
                for r in docs
                for t in WORD.finditer(r["text"])
                if t.group(0)[0].islower()
            }
            pool = sorted({w for r in docs for _, _, w in cap_names(r["text"], lower)})
        picks = (
            rng.sample(docs, min(n, len(docs))) if kind != "inject" else rng.sample(docs, len(docs))
        )
        count = 0
        with (
            open(folder / "articles.jsonl", "w", encoding="utf-8") as fa,
            open(folder / "labels.jsonl", "w", encoding="utf-8") as fl,
        ):
            for r in docs:
                art = {"id": r["id"], "title": r["title"], "text": r["text"], "lang": ISO[lang]}
                fa.write(json.dumps(art, ensure_ascii=False) + "\n")
            for r in picks:
                if count >= n:
                    break
                edits: list[dict[str, Any]] = []
                if kind == "inject":
                    got = injected(r["text"], lower, pool, rng)
                    if got is None:
                        continue
                    text, edits = got
                else:
                    text = edited(r["text"], kind)
                    if text is None:
                        continue
                tag = {"swap": "", "lead": "g62", "inject": "i62"}[kind] + r["id"]
                did = ("ij-" if kind == "inject" else "cp-") + hashlib.sha1(
                    tag.encode()
                ).hexdigest()[:12]
                art = {"id": did, "title": r["title"], "text": text, "lang": ISO[lang]}
                fa.write(json.dumps(art, ensure_ascii=False) + "\n")
                label: dict[str, Any] = {
                    # (pairs as the sets the sessions ran wrote them)
                    "a": min(r["id"], did) if kind == "inject" else r["id"],
                    "b": max(r["id"], did) if kind == "inject" else did,
                    "source": r["id"],
                    "derivative": did,
                    "relation": "copy",
                    "kind": "injected_edits" if kind == "inject" else f"edited_copy_{ISO[lang]}",
                    "spans": [],
                }
                if kind == "inject":  # make-derivatives' format: the evaluator splits
                    label["edits"] = edits
                else:
                    label["split"] = "held"
                fl.write(json.dumps(label, ensure_ascii=False) + "\n")
                count += 1
        made[lang] = count
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--kind", choices=sorted(DEFAULT_LANGS), required=True)
    ap.add_argument("--langs", help="NTREX language codes, comma-separated")
    ap.add_argument("--n", type=int, help="copies per language (30; inject 25)")
    ap.add_argument("--seed", help="seed tag (default: the one the sessions ran)")
    args = ap.parse_args(argv)
    langs = args.langs.split(",") if args.langs else list(DEFAULT_LANGS[args.kind])
    unknown = [x for x in langs if x not in ISO]
    if unknown:
        ap.error(f"unknown language code(s) {unknown}; known: {sorted(ISO)}")
    if not NTREX.is_file():
        print(f"edited_copies: {NTREX} not found (set UNSPIN_SHARED)", file=sys.stderr)
        return 2
    rows = [json.loads(line) for line in NTREX.open(encoding="utf-8")]
    n = args.n or (25 if args.kind == "inject" else 30)
    made = make(rows, Path(args.out), args.kind, langs, n, args.seed or DEFAULT_SEED[args.kind])
    for lang, count in made.items():
        print(f"{lang}: {count}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
