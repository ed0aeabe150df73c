"""Folders for helpers who write evaluation data by hand (issues 10 and 11): model-written
rewrites of real articles, and translations of independent reports of one event.

The texts helpers write are kept outside the repository (they are derivatives of the
third-party texts in ``../shared``), so they go when the machine goes; this script makes
each commission the same way every time, from a seed: the sources a writer or translator
gets, the manifest the benches read, the brief, and a checker the helper runs before
handing in. The checker is written into the folder as a standalone script (no import of
unspin: a writer must never see the software the texts will test).

Usage::

    # 12 NTREX originals of a language, rewritten same length / condensed / framed
    .venv/bin/python bench/commission.py rewrites OUT/es9 --lang spa --seed 5060 [--avoid OUT/es8]
    # condensed only, 24 sources, in a script without spaces between words
    .venv/bin/python bench/commission.py rewrites OUT/ja22 --lang jpn --n 24 \
        --styles condensed --seed 5061
    # independent ECB+ reports of 12 events (3 each) for translators, two per language
    .venv/bin/python bench/commission.py guard OUT/tr --prefix g2 --langs es,fr --seed 5062
    # once translated: one folder a language, as bench/translated_guard.py reads them
    .venv/bin/python bench/commission.py assemble OUT/tr --prefix g2 --langs es,fr

Then ``bench/lang_routes.py PILE --rewrites OUT/es9`` builds a rewrite pile, and
``bench/translated_guard.py OUT/tr OUT/tr/g2-selection.json --prefix g2 --langs es,fr``
scans the translations. ``UNSPIN_SHARED`` points at ``../shared``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from collections import defaultdict
from pathlib import Path

from common import SHARED, jsonl

#: each rewrite style and the length band of its words (of letters and digits in a script
#: written without spaces) as a share of its source's
STYLE_BANDS: dict[str, tuple[float, float]] = {
    "same": (0.8, 1.25),
    "condensed": (0.35, 0.65),
    "framed": (0.7, 1.4),
}
#: what each style asks of the writer (the brief's words)
STYLE_ASKS: dict[str, str] = {
    "same": (
        "a paraphrase of about the same length: every sentence reworded, the facts, names, "
        "figures and quotations kept (a quotation may be shortened or turned into reported "
        "speech), in your site's voice"
    ),
    "condensed": (
        "a condensed rewrite: the main facts, names and figures kept and reworded, details "
        "dropped or merged as a busy web desk would"
    ),
    "framed": (
        "a rewrite with a new framing of your own (an angle, an opening that sets the scene, a "
        "closing line for your readers) that credits the story to an outlet that does not "
        "exist (make up a plausible name and credit it once or twice as the press of that "
        "language does)"
    ),
}
#: NTREX languages written without spaces between words: lengths and copied runs are
#: counted in characters there
UNSPACED = ("jpn", "zho-CN", "zho-TW", "tha")
#: the longest run a rewrite may copy from its source outside quotation marks: words, or
#: characters (letters and digits) in a script without spaces
COPY_WORDS, COPY_CHARS = 9, 20


def _pick(pool: list[dict], n: int, seed: str) -> list[dict]:
    if len(pool) < n:
        raise SystemExit(f"only {len(pool)} sources fit, {n} asked")
    return random.Random(seed).sample(sorted(pool, key=lambda r: r["id"]), n)


def rewrites(args: argparse.Namespace) -> int:
    """A writer's folder: ``sources/NN.txt`` (title, blank line, body), ``manifest.json``
    (file -> NTREX id, as ``bench/lang_routes.py --rewrites`` reads it), one empty folder a
    style, ``BRIEF.md`` and ``check.py``."""
    out = Path(args.out)
    styles = [s for s in args.styles.split(",") if s]
    unknown = [s for s in styles if s not in STYLE_BANDS]
    if unknown:
        raise SystemExit(f"unknown style(s) {unknown}; known: {sorted(STYLE_BANDS)}")
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out}: exists and is not empty")
    avoid = set()
    for folder in args.avoid or []:
        man = json.loads((Path(folder) / "manifest.json").read_text(encoding="utf-8"))
        avoid |= {cid.rsplit("/", 1)[0] for cid in man.values()}
    unit = "chars" if args.lang in UNSPACED else "words"
    rows = jsonl(Path(args.corpus or SHARED / "data" / "ntrex_dev" / "articles.jsonl"))

    def size(r: dict) -> int:
        return len(r["text"]) // 3 if unit == "chars" else len(r["text"].split())

    pool = [
        r
        for r in rows
        if r["lang"] == args.lang
        and r["doc_id"] not in avoid
        and args.min_words <= size(r) <= args.max_words
    ]
    pick = _pick(pool, args.n, f"{args.seed}:{out.name}")
    (out / "sources").mkdir(parents=True)
    for s in styles:
        (out / s).mkdir()
    manifest = {}
    for k, r in enumerate(pick, 1):
        name = f"{k:02d}.txt"
        manifest[name] = r["id"]
        (out / "sources" / name).write_text(f"{r['title']}\n\n{r['text']}\n", encoding="utf-8")
    (out / "manifest.json").write_text(
        json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8"
    )
    bands = {s: STYLE_BANDS[s] for s in styles}
    (out / "check.py").write_text(checker(bands, unit), encoding="utf-8")
    (out / "BRIEF.md").write_text(rewrite_brief(out, styles, unit, len(pick)), encoding="utf-8")
    print(f"{out}: {len(pick)} sources of {len(pool)} that fit ({args.lang}), styles {styles}")
    return 0


def rewrite_brief(out: Path, styles: list[str], unit: str, n: int) -> str:
    measure = "letters and digits" if unit == "chars" else "words"
    if unit == "chars":
        run = f"{COPY_CHARS} characters (letters and digits; spaces ignored)"
    else:
        run = f"{COPY_WORDS} words"
    lines = [
        "# Brief: rewrite news articles as a content-farm writer would",
        "",
        f"`{out}/sources/NN.txt` holds {n} news articles (first line: the title; then the",
        "body), all in one language. Write, **in that same language**, for each source:",
        "",
    ]
    for s in styles:
        lo, hi = STYLE_BANDS[s]
        lines.append(f"- `{s}/NN.txt`: {STYLE_ASKS[s]}; {lo}-{hi} of the source's {measure}.")
    lines += [
        "",
        "Rules:",
        "- First line of every file: a title of your own; a blank line; then the body in",
        "  paragraphs separated by blank lines. Plain text, UTF-8.",
        f"- Do not copy: no run of {run} of the source outside quotation marks.",
        "  Quotations in quotation marks may be kept word for word.",
        "- Write as a human web editor of that language would (not a translation, not a list).",
        f"- Check your work with `python3 {out}/check.py` and fix what it reports until it",
        "  prints `ALL OK`.",
        "- Work only in your own folder; do not open any other folder of this machine's work",
        "  area (you must not see the software these texts will test). The sources are",
        "  third-party texts for research use: do not copy them anywhere else.",
        "",
    ]
    return "\n".join(lines)


#: the checker written into a writer's folder (standalone: the standard library only).
#: Quotation marks: straight and curly double quotes, guillemets, low-9 and corner
#: brackets; single quotes are not read as marks (an apostrophe, French "l'", Italian
#: "dell'", English "Sainsbury's", would pair with another and hide the text between)
_CHECKER = '''"""Check the rewrites in this folder: each exists, has a title line, its
length is in its style's band, and it copies no long run of its source outside quotation
marks. Prints ALL OK when nothing is wrong."""
import json
import re
import sys
from pathlib import Path

BANDS = {bands!r}
UNIT = {unit!r}
RUN = {run!r}
MARKS = '"' + "\u201c\u201d\u201e\u00ab\u00bb\u300c\u300d\u300e\u300f"
QUOTE = re.compile("[" + MARKS + "][^" + MARKS + "]{{0,1500}}?[" + MARKS + "]", re.S)
WORD = re.compile(r"[^\\W_]+")


def units(text):
    text = QUOTE.sub(" ", text)
    if UNIT == "chars":
        return [c for c in text if c.isalnum()]
    return [w.lower() for w in WORD.findall(text)]


def size(text):
    return len([c for c in text if c.isalnum()]) if UNIT == "chars" else len(WORD.findall(text))


def copied(src, out):
    s, o = units(src), units(out)
    grams = {{tuple(s[i:i + RUN]) for i in range(len(s) - RUN + 1)}}
    return [o[i:i + RUN] for i in range(len(o) - RUN + 1) if tuple(o[i:i + RUN]) in grams]


def main():
    here = Path(__file__).resolve().parent
    ok = True
    manifest = json.loads((here / "manifest.json").read_text(encoding="utf-8"))
    for name in sorted(manifest):
        src = (here / "sources" / name).read_text(encoding="utf-8")
        for style, (lo, hi) in BANDS.items():
            p = here / style / name
            if not p.exists():
                print("MISSING", p)
                ok = False
                continue
            text = p.read_text(encoding="utf-8")
            if not text.strip().split("\\n")[0].strip():
                print("NO TITLE LINE", p)
                ok = False
            r = size(text) / max(1, size(src))
            if not lo <= r <= hi:
                print(f"LENGTH {{p}}: {{r:.2f}} of the source, not in {{lo}}-{{hi}}")
                ok = False
            bad = copied(src, text)
            if bad:
                sep = "" if UNIT == "chars" else " "
                print(f"COPIED {{p}}: {{len(bad)}} runs, e.g. '{{sep.join(bad[0])}}'")
                ok = False
    print("ALL OK" if ok else "PROBLEMS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
'''


def checker(bands: dict[str, tuple[float, float]], unit: str) -> str:
    """The standalone ``check.py`` for a folder of ``bands`` (style -> length band)."""
    run = COPY_CHARS if unit == "chars" else COPY_WORDS
    return _CHECKER.format(bands=bands, unit=unit, run=run)


TRANSLATION_BRIEF = """# Brief: translate news reports

Your folder holds `sources/NN.txt`: English news reports (one sentence per line; the first
line is often the headline). Translate each into the language of your task, as a
professional newspaper translator would for publication:

- complete and faithful: every sentence translated, nothing dropped, **nothing added**
  (no explanations of your own: they make two translations alike that the originals are not);
- natural, idiomatic news prose of that language (not word for word); names, figures,
  dates, currencies and quotation marks written as that language's press writes them;
- keep the line structure: one output line per source line, in the same order.

Write `out/NN.txt` (UTF-8, same file names). Work only in your own folder; do not open any
other folder of this machine's work area. The sources are third-party texts for research
use: do not copy them anywhere else. When all files are written, reply with how many you
translated.
"""


def guard(args: argparse.Namespace) -> int:
    """``<prefix>-selection.json`` (``{"docs": [[subtopic, doc_id], ...]}``: ``events``
    events of ``events // 2`` ECB+ topics, both look-alike events of each, ``per_event``
    reports each of at most ``max_words`` words) and, per language, ``parts`` translator
    folders ``<prefix>-<lang>-<part>/`` (``sources/``, ``out/``, ``manifest.json``,
    ``BRIEF.md``) dealing the reports out in turn: the reports of one event (consecutive
    in the selection) go to different translators where ``parts`` >= ``per_event``, as
    independent outlets' texts are written by different hands (one translator rendering
    two reports of one fire words them alike where their writers did not)."""
    out = Path(args.out)
    rows = jsonl(Path(args.corpus or SHARED / "data" / "ecbplus_dev.jsonl"))
    by: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        if len(r["text"].split()) <= args.max_words:
            by[(r["topic"], r["subtopic"])].append(r)
    topics: dict[str, list[str]] = defaultdict(list)
    for (t, s), docs in by.items():
        if len(docs) >= args.per_event:
            topics[t].append(s)
    avoid: set[str] = set()
    for sel in args.avoid or []:  # topics of earlier selections: a held guard's are new
        for _sub, doc in json.loads(Path(sel).read_text("utf-8"))["docs"]:
            avoid |= {r["topic"] for r in rows if r["doc_id"] == doc}
    usable = sorted(t for t, subs in topics.items() if len(subs) >= 2 and t not in avoid)
    rng = random.Random(f"{args.seed}:{args.prefix}")
    if len(usable) < args.events // 2:
        raise SystemExit(f"only {len(usable)} topics have two events of {args.per_event} reports")
    selection: list[list[str]] = []
    for t in rng.sample(usable, args.events // 2):
        for s in sorted(topics[t])[:2]:
            docs = sorted(by[(t, s)], key=lambda r: r["doc_id"])
            selection += [[s, r["doc_id"]] for r in rng.sample(docs, args.per_event)]
    out.mkdir(parents=True, exist_ok=True)
    sel_path = out / f"{args.prefix}-selection.json"
    sel_path.write_text(json.dumps({"docs": selection}, indent=0), encoding="utf-8")
    text = {r["doc_id"]: r["text"] for r in rows}
    for lang in args.langs.split(","):
        for p in range(args.parts):
            folder = out / f"{args.prefix}-{lang}-{chr(ord('a') + p)}"
            if folder.exists():
                raise SystemExit(f"{folder}: exists")
            (folder / "sources").mkdir(parents=True)
            (folder / "out").mkdir()
            manifest = {}
            for k in range(p, len(selection), args.parts):
                name = f"{k + 1:02d}.txt"
                manifest[name] = selection[k][1]
                (folder / "sources" / name).write_text(text[selection[k][1]] + "\n", "utf-8")
            (folder / "manifest.json").write_text(json.dumps(manifest, indent=1), "utf-8")
            (folder / "BRIEF.md").write_text(TRANSLATION_BRIEF, encoding="utf-8")
    print(f"{sel_path}: {len(selection)} reports; folders for {args.langs} x {args.parts}")
    return 0


def assemble(args: argparse.Namespace) -> int:
    """Merge the translators' parts of each language into ``<prefix>-<lang>/``
    (``manifest.json``, ``out/``), refusing a part with a translation missing."""
    out = Path(args.out)
    for lang in args.langs.split(","):
        merged = out / f"{args.prefix}-{lang}"
        (merged / "out").mkdir(parents=True, exist_ok=True)
        manifest: dict[str, str] = {}
        parts = sorted(out.glob(f"{args.prefix}-{lang}-?"))
        if not parts:
            raise SystemExit(f"no parts {args.prefix}-{lang}-* in {out}")
        for part in parts:
            for name, doc in json.loads((part / "manifest.json").read_text("utf-8")).items():
                src = part / "out" / name
                if not src.is_file():
                    raise SystemExit(f"{src}: missing (the translator's part is not finished)")
                shutil.copyfile(src, merged / "out" / name)
                manifest[name] = doc
        (merged / "manifest.json").write_text(json.dumps(manifest, indent=1), "utf-8")
        print(f"{merged}: {len(manifest)} translations from {len(parts)} parts")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("rewrites", help="a writer's folder of NTREX sources")
    r.add_argument("out")
    r.add_argument("--lang", required=True, help="NTREX language code (spa, fra, jpn, ...)")
    r.add_argument("--n", type=int, default=12)
    r.add_argument("--seed", required=True)
    r.add_argument("--styles", default="same,condensed,framed")
    r.add_argument("--avoid", nargs="*", help="earlier folders whose documents to leave out")
    r.add_argument("--min-words", type=int, default=150)
    r.add_argument("--max-words", type=int, default=700)
    r.add_argument("--corpus", help="NTREX-format JSONL (default: ../shared's NTREX dev)")
    g = sub.add_parser("guard", help="translator folders of independent ECB+ reports")
    g.add_argument("out")
    g.add_argument("--prefix", required=True)
    g.add_argument("--langs", required=True)
    g.add_argument("--seed", required=True)
    g.add_argument("--events", type=int, default=12)
    g.add_argument("--per-event", type=int, default=3)
    g.add_argument("--max-words", type=int, default=450)
    g.add_argument("--parts", type=int, default=3, help="translators per language")
    g.add_argument("--avoid", nargs="*", help="earlier selections whose topics to leave out")
    g.add_argument("--corpus", help="ECB+-format JSONL (default: ../shared's ECB+ dev)")
    a = sub.add_parser("assemble", help="merge translators' parts for translated_guard.py")
    a.add_argument("out")
    a.add_argument("--prefix", required=True)
    a.add_argument("--langs", required=True)
    args = ap.parse_args(argv)
    return {"rewrites": rewrites, "guard": guard, "assemble": assemble}[args.what](args)


if __name__ == "__main__":
    raise SystemExit(main())
