"""Labelled derivatives of real articles made by routes the detector was not written beside.

:func:`make_routes` takes real articles (e.g. BBC News) and makes derivatives by *routes*,
each a ``kind`` with the relation a user expects:

=====================  ===============  ================================================
kind                   relation         how
=====================  ===============  ================================================
``mt_spa``             ``spun``         Apertium English -> Spanish -> English
``mt_cat``             ``spun``         Apertium English -> Catalan -> English
``mt_epo``             ``spun``         Apertium English -> Esperanto -> English
``synonym``            ``spun``         about half the content words replaced by thesaurus
                                        synonyms chosen without regard to context
``oneway_spa``         ``translation``  Apertium English -> Spanish (source: the English)
``oneway_cat``         ``translation``  Apertium English -> Catalan
``rewrite_same``       ``spun``         a model-written rewrite of the same length
``rewrite_condensed``  ``spun``         a model-written rewrite condensed to about half
``rewrite_framed``     ``spun``         a model-written rewrite with a new framing and an
                                        invented outlet credited
=====================  ===============  ================================================

The model-written rewrites are read from a folder (``manifest.json`` lists ``file``,
``corpus_id``, ``split``; rewrites are ``<style>/<file>``, first line the headline); the
other routes' sources are sampled by seed. A share of the English machine-made
derivatives gets a credit line of an invented outlet, as content farms add one.

Independence: this module shares no code, word list, margin or threshold with the
detector. It imports nothing from normalise, fingerprint, align, classify, corpus,
changes, quotes or stories (a test checks); its paragraphs, words and de-duplication are
its own, its stop words scikit-learn's, its synonyms the OpenOffice thesaurus (Debian
``mythes-en-us``), its translations Apertium (:mod:`unspin.evaluate.mt`).

Output (the folder format of ``unspin eval make-derivatives``, so its loaders work):
``articles.jsonl`` (``{id, title, text}``, opaque ids, shuffled), ``labels.jsonl``
(``source``, ``derivative``, ``relation``, ``kind``, ``split``, ``spans``,
``source_corpus_id``, ``notes``; ``a``/``b`` too) and ``manifest.json``.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import subprocess
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from unspin.evaluate.corpora import opaque_id, write_jsonl
from unspin.evaluate.mt import ApertiumTranslator, MTCache, Progress
from unspin.model import Article


@dataclass(frozen=True)
class Route:
    """One way of making a derivative: its ``kind``, the relation a user expects, and for
    machine translation the Apertium modes there (and back) and the Debian package."""

    kind: str
    relation: str
    method: str  # roundtrip | oneway | synonym | rewrite
    pair: str | None = None
    back: str | None = None
    package: str | None = None
    style: str | None = None  # rewrite folder name


ROUTES: dict[str, Route] = {
    r.kind: r
    for r in (
        Route("mt_spa", "spun", "roundtrip", "eng-spa", "spa-eng", "apertium-eng-spa"),
        Route("mt_cat", "spun", "roundtrip", "eng-cat", "cat-eng", "apertium-eng-cat"),
        Route("mt_epo", "spun", "roundtrip", "en-eo", "eo-en", "apertium-eo-en"),
        Route("synonym", "spun", "synonym"),
        Route("oneway_spa", "translation", "oneway", "eng-spa", None, "apertium-eng-spa"),
        Route("oneway_cat", "translation", "oneway", "eng-cat", None, "apertium-eng-cat"),
        Route("rewrite_same", "spun", "rewrite", style="same"),
        Route("rewrite_condensed", "spun", "rewrite", style="condensed"),
        Route("rewrite_framed", "spun", "rewrite", style="framed"),
    )
}
SPLITS = ("tune", "held")
#: the OpenOffice English thesaurus as Debian installs it (package mythes-en-us)
THESAURUS = Path("/usr/share/mythes/th_en_US_v2")
THESAURUS_PACKAGE = "mythes-en-us"
DEFAULT_REWRITES = Path("/work/rewrites")


@dataclass
class RouteSpec:
    """What to make. Every number here is the generator's own (none is the detector's)."""

    seed: int = 1
    #: derivatives per sampled route (MT, synonym, one-way); rewrites: as many as exist
    n_per_route: int = 30
    routes: tuple[str, ...] = tuple(ROUTES)
    #: ``tune`` or ``held``: rewrites of that split only, and sampled sources from that
    #: half of the corpus (a stable hash of the corpus id), so the two sets never share a
    #: sampled source; None: every rewrite, sources from the whole corpus
    split: str | None = None
    #: originals kept besides the sources (None: all remaining corpus articles)
    n_distractors: int | None = None
    #: a sampled source needs this many paragraphs after the title, and this many words
    min_paragraphs: int = 4
    min_words: int = 180
    #: synonym route: share of the content words to replace (cheap spinners: about half)
    synonym_share: float = 0.5
    #: synonym route: longest thesaurus entry used, in words
    synonym_max_words: int = 2
    #: share of the English machine-made derivatives (round trips, synonyms) given a
    #: credit line naming an invented outlet (content farms credit themselves)
    credit_share: float = 0.2
    #: de-duplication, as ``make-derivatives`` does it: an article is dropped when it has
    #: the title of a kept one and shares this share of its word 5-grams with it ...
    dup_same_title: float = 0.5
    #: ... or shares this share of the smaller side's 5-grams with a kept one, any title
    dup_any_title: float = 0.7

    def check(self) -> None:
        """Raise ValueError naming the bad parameter."""
        bad = [r for r in self.routes if r not in ROUTES]
        if bad:
            raise ValueError(f"unknown routes {bad}; choose from {', '.join(ROUTES)}")
        if self.split not in (None, *SPLITS):
            raise ValueError(f"split must be one of {SPLITS} (or none), got {self.split!r}")
        if self.n_per_route < 0 or (self.n_distractors or 0) < 0:
            raise ValueError("n_per_route and n_distractors must be >= 0")
        for name in ("synonym_share", "credit_share", "dup_same_title", "dup_any_title"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {v}")


# ---------------------------------------------------------------- text handling (own)

_BLOCK = re.compile(r"\S[^\n]*(?:\n[ \t]*\S[^\n]*)*")
_LINE = re.compile(r"\S[^\n]*")
_TOKEN = re.compile(r"[^\W_]+")


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the paragraphs: blocks between blank lines, or lines when the
    text has no blank line."""
    pat = _BLOCK if re.search(r"\n[ \t]*\n", text) else _LINE
    return [(m.start(), m.start() + len(m.group(0).rstrip())) for m in pat.finditer(text)]


def tokens(text: str) -> list[str]:
    """Lower-cased letter/digit runs of the NFKC form (for de-duplication only)."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def _shingles(toks: list[str], n: int = 5) -> set[tuple[str, ...]]:
    return {tuple(toks[i : i + n]) for i in range(len(toks) - n + 1)}


def dedupe(
    corpus: Sequence[Article], same_title: float, any_title: float, first: Sequence[str] = ()
) -> tuple[list[Article], int]:
    """Drop repeated ids, exact duplicates (same tokens), same-title near duplicates
    (``same_title`` of the 5-grams shared) and any article sharing ``any_title`` of the
    smaller side's 5-grams with a kept one. Articles whose ids are in ``first`` are
    considered first, so they are the ones kept (the rewrites' sources)."""
    pri = {i: k for k, i in enumerate(first)}
    order = sorted(range(len(corpus)), key=lambda k: (pri.get(corpus[k].id, len(pri)), k))
    seen_ids: set[str] = set()
    seen_text: set[str] = set()
    by_title: dict[str, list[set[tuple[str, ...]]]] = {}
    by_gram: dict[tuple[str, ...], list[int]] = {}
    sizes: list[int] = []
    kept: list[int] = []
    for k in order:
        a = corpus[k]
        toks = tokens(a.text)
        key = " ".join(toks)
        if not key or a.id in seen_ids or key in seen_text:
            continue
        grams = _shingles(toks)
        title = " ".join(tokens(a.title or ""))
        same = by_title.setdefault(title, []) if title else []
        if grams and any(len(grams & g) / len(grams) >= same_title for g in same):
            continue
        shared = Counter(j for g in grams for j in by_gram.get(g, ()))
        if any(n / max(1, min(len(grams), sizes[j])) >= any_title for j, n in shared.items()):
            continue
        for g in grams:
            by_gram.setdefault(g, []).append(len(sizes))
        sizes.append(len(grams))
        seen_ids.add(a.id)
        seen_text.add(key)
        same.append(grams)
        kept.append(k)
    out = [corpus[k] for k in sorted(kept)]
    return out, len(corpus) - len(out)


# ---------------------------------------------------------------- the synonym spinner


class ThesaurusError(RuntimeError):
    """The thesaurus files are missing or unreadable."""


class Thesaurus:
    """The OpenOffice (MyThes) thesaurus: ``.idx`` (word|offset) and ``.dat`` (word|n,
    then n lines ``(pos)|term|term (similar term)|...``), read lazily by offset."""

    def __init__(self, base: Path = THESAURUS, package: str = THESAURUS_PACKAGE) -> None:
        self.idx_path, self.dat_path = Path(f"{base}.idx"), Path(f"{base}.dat")
        if not (self.idx_path.is_file() and self.dat_path.is_file()):
            raise ThesaurusError(
                f"thesaurus not found at {base}.idx/.dat; install it with: "
                f"sudo apt-get install {package}"
            )
        lines = self.idx_path.read_text(encoding="utf-8").splitlines()
        self.offsets: dict[str, int] = {}
        for line in lines[2:]:
            word, _, off = line.rpartition("|")
            if word and off.isdigit():
                self.offsets[word] = int(off)
        self._dat = self.dat_path.open("rb")
        self._memo: dict[tuple[str, int], list[str]] = {}

    def close(self) -> None:
        self._dat.close()

    def senses(self, word: str) -> list[tuple[str, list[str]]]:
        """``(part of speech, terms)`` per sense of ``word`` (terms with their notes)."""
        off = self.offsets.get(word)
        if off is None:
            return []
        self._dat.seek(off)
        head = self._dat.readline().decode("utf-8").rstrip("\n")
        n = int(head.rpartition("|")[2] or 0)
        out = []
        for _ in range(n):
            parts = self._dat.readline().decode("utf-8").rstrip("\n").split("|")
            out.append((parts[0].strip("()"), parts[1:]))
        return out

    def synonyms(self, word: str, max_words: int, pos: str | None = None) -> list[str]:
        """Plain synonyms over every sense (the context is not looked at), of part of
        speech ``pos`` when given; when a word has none, its "similar terms". Generic
        terms, related terms, antonyms and proper names are left out."""
        key = (word, max_words, pos)
        if key in self._memo:
            return self._memo[key]
        plain, similar = [], []
        for sense_pos, terms in self.senses(word):
            if pos is not None and sense_pos != pos:
                continue
            for t in terms:
                bare, _, note = t.partition(" (")
                if (
                    not bare
                    or bare.lower() == word
                    or len(bare.split()) > max_words
                    or not re.fullmatch(r"[a-z][A-Za-z' -]*", bare)
                ):
                    continue
                if not note:
                    plain.append(bare)
                elif note.startswith("similar"):
                    similar.append(bare)
        got = list(dict.fromkeys(plain or similar))
        self._memo[key] = got
        return got


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


_WORD = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_SENTENCE_END = re.compile(r"[.!?][\"'”’)]*\s+$")


def _inflect(base: str, suffix: str) -> str:
    """Crude English inflection of the last word of ``base`` (as a cheap spinner does)."""
    head, _, last = base.rpartition(" ")
    if suffix == "s":
        if re.search(r"(?:s|x|z|ch|sh)$", last):
            last += "es"
        elif re.search(r"[^aeiou]y$", last):
            last = last[:-1] + "ies"
        else:
            last += "s"
    elif suffix == "ed":
        last = last + "d" if last.endswith("e") else last + "ed"
    elif suffix == "ing":
        last = (last[:-1] if last.endswith("e") and not last.endswith("ee") else last) + "ing"
    return f"{head} {last}" if head else last


#: the part of speech whose synonyms a crude inflection fits
_SUFFIX_POS = {"s": "noun", "ed": "verb", "ing": "verb"}


def _lemmas(word: str) -> list[tuple[str, str]]:
    """``(base, suffix)`` guesses for an inflected word the thesaurus does not list."""
    out = []
    if word.endswith("ies"):
        out.append((word[:-3] + "y", "s"))
    if word.endswith("es"):
        out.append((word[:-2], "s"))
    if word.endswith("s") and not word.endswith("ss"):
        out.append((word[:-1], "s"))
    if word.endswith("ed"):
        out += [(word[:-2], "ed"), (word[:-1], "ed")]
    if word.endswith("ing"):
        out += [(word[:-3], "ing"), (word[:-3] + "e", "ing")]
    return out


def _match_case(model: str, word: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


def spin_synonyms(
    text: str, thesaurus: Thesaurus, rng: random.Random, share: float, max_words: int = 2
) -> tuple[str, dict[str, Any]]:
    """Replace about ``share`` of the content words of ``text`` by a thesaurus synonym
    picked at random over all senses. Content words: 3+ letters, not a stop word, not a
    capitalised word inside a sentence (a name). Returns the text and counts."""
    stop = _stop_words()
    cands: list[tuple[re.Match[str], list[str], str | None]] = []
    n_content = 0
    for m in _WORD.finditer(text):
        w = m.group(0)
        low = w.lower()
        if len(w) < 3 or low in stop or w.isupper() and len(w) > 1:
            continue
        before = text[: m.start()]
        starts = not before.strip() or bool(_SENTENCE_END.search(before)) or before.endswith("\n")
        if w[0].isupper() and not starts:
            continue  # a name
        n_content += 1
        syns = thesaurus.synonyms(low, max_words)
        if syns:
            cands.append((m, syns, None))
            continue
        for base, suffix in _lemmas(low):
            syns = thesaurus.synonyms(base, max_words, _SUFFIX_POS[suffix])
            if syns:
                cands.append((m, syns, suffix))
                break
    p = min(1.0, share * n_content / len(cands)) if cands else 0.0
    out, pos, n = [], 0, 0
    for m, syns, suffix in cands:
        if rng.random() >= p:
            continue
        new = rng.choice(syns)
        if suffix:
            new = _inflect(new, suffix)
        out += [text[pos : m.start()], _match_case(m.group(0), new)]
        pos = m.end()
        n += 1
    out.append(text[pos:])
    return "".join(out), {"content_words": n_content, "with_synonyms": len(cands), "replaced": n}


# ---------------------------------------------------------------- credit lines (own)

_GIVEN = "Dana Milo Tessa Ravi Ines Colm Yara Bruno Esme Tariq Livia Anders".split()
_FAMILY = "Quill Ashdown Varga Okafor Lindqvist Moretti Penhale Szabo Rourke Adair".split()
_OUTLET_A = "Bright Harbor Summit Clearwater Redline Keystone Pinewood Silverline".split()
_OUTLET_B = "Ledger Dispatch Bulletin Digest Newsroom Insider Gazette Report".split()


def credit_line(rng: random.Random) -> str:
    """A content farm's credit to itself, in phrasings of this module's own."""
    name = f"{rng.choice(_GIVEN)} {rng.choice(_FAMILY)}"
    outlet = f"{rng.choice(_OUTLET_A)} {rng.choice(_OUTLET_B)}"
    return rng.choice(
        (
            f"This story was put together by the {outlet} news desk.",
            f"Source: {outlet}",
            f"Story by {name} / {outlet}",
            f"Filed for {outlet} by {name}.",
            f"{outlet} | {name}",
        )
    )


# ---------------------------------------------------------------- rewrites


@dataclass
class Rewrite:
    """A model-written rewrite of one corpus article."""

    kind: str
    corpus_id: str
    split: str | None
    file: str
    title: str
    text: str


def read_rewrites(folder: Path, kinds: Sequence[str]) -> tuple[list[Rewrite], dict[str, Any]]:
    """The rewrites of ``kinds`` found under ``folder`` (see the module doc), and counts
    per kind: listed, found, missing (not written yet), empty."""
    kinds = [k for k in kinds if ROUTES[k].method == "rewrite"]
    stats: dict[str, Any] = {k: {"listed": 0, "found": 0, "missing": 0, "empty": 0} for k in kinds}
    if not kinds:
        return [], stats
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        raise FileNotFoundError(f"{manifest}: no rewrite manifest (needed for {kinds})")
    entries = json.loads(manifest.read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise ValueError(f"{manifest}: expected a list of {{file, corpus_id, split}}")
    out = []
    for e in entries:
        try:
            file, cid, split = str(e["file"]), str(e["corpus_id"]), e.get("split")
        except (KeyError, TypeError) as err:
            raise ValueError(f"{manifest}: entry {e!r} lacks {err}") from err
        for k in kinds:
            s = stats[k]
            s["listed"] += 1
            path = folder / str(ROUTES[k].style) / file
            if not path.is_file():
                s["missing"] += 1
                continue
            raw = path.read_text(encoding="utf-8").strip()
            head, _, body = raw.partition("\n")
            if not head.strip() or not body.strip():
                s["empty"] += 1
                continue
            s["found"] += 1
            title = " ".join(head.split())
            out.append(Rewrite(k, cid, split, file, title, f"{title}\n\n{body.strip()}"))
    return out, stats


# ---------------------------------------------------------------- the generator


def split_of(corpus_id: str) -> str:
    """The half of the corpus a sampled source comes from (a stable hash of its id)."""
    return SPLITS[hashlib.sha1(f"routes|{corpus_id}".encode()).digest()[0] % 2]


@dataclass
class _Made:
    text: str
    title: str | None
    spans: list[dict[str, int | str]]
    notes: dict[str, Any] = field(default_factory=dict)


def _assemble(
    src: Article, paras: list[tuple[int, int]], outs: list[str], how: str
) -> tuple[str, list[dict[str, int | str]]]:
    """Derivative paragraphs joined by blank lines, with a span per source paragraph."""
    text, spans = "", []
    for (a, e), o in zip(paras, outs, strict=True):
        if not o:
            continue
        if text:
            text += "\n\n"
        spans.append(
            {
                "source_start": a,
                "source_end": e,
                "derivative_start": len(text),
                "derivative_end": len(text) + len(o),
                "how": how,
            }
        )
        text += o
    return text, spans


def _title_of(src: Article, paras: list[tuple[int, int]], outs: list[str]) -> str | None:
    first = src.text[paras[0][0] : paras[0][1]] if paras else ""
    return outs[0] if src.title and first.strip() == src.title.strip() else None


def _add_credit(made: _Made, rng: random.Random) -> None:
    line = credit_line(rng)
    if rng.random() < 0.5:
        made.text = f"{made.text}\n\n{line}"
        made.notes["credit"] = {"text": line, "at": "end"}
    else:
        shift = len(line) + 2
        made.text = f"{line}\n\n{made.text}"
        for s in made.spans:
            s["derivative_start"] = int(s["derivative_start"]) + shift
            s["derivative_end"] = int(s["derivative_end"]) + shift
        made.notes["credit"] = {"text": line, "at": "start"}


def _versions(packages: Sequence[str]) -> dict[str, str | None]:
    """Installed Debian package versions (None where unknown), for the manifest."""
    out: dict[str, str | None] = {}
    for p in packages:
        try:
            r = subprocess.run(
                ["dpkg-query", "-W", "-f=${Version}", p], capture_output=True, text=True
            )
            out[p] = (r.stdout.strip() or None) if r.returncode == 0 else None
        except OSError:
            out[p] = None
    return out


TranslatorFactory = Callable[[Route], Any]


def _apertium(route: Route) -> ApertiumTranslator:
    return ApertiumTranslator(str(route.pair), back=route.back, package=route.package)


def make_routes(
    corpus: list[Article],
    spec: RouteSpec,
    out: Path,
    rewrites: Path | None = DEFAULT_REWRITES,
    translators: TranslatorFactory = _apertium,
    thesaurus: Thesaurus | None = None,
    progress: Progress | None = None,
) -> Path:
    """Write ``articles.jsonl``, ``labels.jsonl`` and ``manifest.json`` to ``out``;
    deterministic given ``spec.seed``, the translators, the thesaurus and the rewrites
    present. ``translators(route)`` gives the translator of an MT route (Apertium by
    default; it needs ``roundtrip`` or ``translate``). Returns ``out``."""
    t0 = time.perf_counter()
    spec.check()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    routes = [ROUTES[k] for k in spec.routes]
    by_id = {a.id: a for a in corpus}

    rw_list, rw_stats = (
        read_rewrites(Path(rewrites), spec.routes) if rewrites is not None else ([], {})
    )
    if rewrites is None and any(r.method == "rewrite" for r in routes):
        rw_stats = {r.kind: {"skipped": "no rewrites folder given"} for r in routes}
    other_split = {rw.corpus_id for rw in rw_list if spec.split and rw.split != spec.split}
    rw_list = [rw for rw in rw_list if spec.split is None or rw.split == spec.split]
    not_in_corpus = sorted({rw.corpus_id for rw in rw_list if rw.corpus_id not in by_id})
    rw_list = [rw for rw in rw_list if rw.corpus_id in by_id]
    rw_sources = list(dict.fromkeys(rw.corpus_id for rw in rw_list))

    arts, n_dupes = dedupe(corpus, spec.dup_same_title, spec.dup_any_title, first=rw_sources)
    kept = {a.id for a in arts}
    dropped_rw = sorted(set(rw_sources) - kept)  # a duplicate listed first in the manifest
    rw_list = [rw for rw in rw_list if rw.corpus_id in kept]

    def eligible(a: Article) -> bool:
        paras = paragraph_spans(a.text)
        body = len(paras) - (1 if a.title else 0)
        return body >= spec.min_paragraphs and len(tokens(a.text)) >= spec.min_words

    taken = set(rw_sources) | other_split
    pool = [
        a
        for a in arts
        if a.id not in taken
        and (spec.split is None or split_of(a.id) == spec.split)
        and eligible(a)
    ]
    sampled = [r for r in routes if r.method != "rewrite"]
    need = spec.n_per_route * len(sampled)
    if need > len(pool):
        raise ValueError(
            f"{need} sources wanted ({spec.n_per_route} per route for {len(sampled)} routes) "
            f"but only {len(pool)} eligible articles (>= {spec.min_paragraphs} paragraphs, "
            f">= {spec.min_words} words{', split ' + spec.split if spec.split else ''})"
        )
    rng = random.Random(spec.seed)
    chosen = rng.sample(pool, need)
    jobs: list[tuple[Route, Article]] = [
        (r, chosen[i * spec.n_per_route + j])
        for i, r in enumerate(sampled)
        for j in range(spec.n_per_route)
    ]

    made: list[tuple[Route, Article, _Made, str | None]] = []
    # machine translation: every paragraph of a route's sources in one cached batch
    for route in sampled:
        if route.method not in ("roundtrip", "oneway"):
            continue
        srcs = [a for r, a in jobs if r is route]
        paras = {a.id: paragraph_spans(a.text) for a in srcs}
        texts = [a.text[s:e] for a in srcs for s, e in paras[a.id]]
        cache = MTCache(
            translators(route), out / ".mt-cache.jsonl", oneway=route.method == "oneway"
        )
        uniq = list(dict.fromkeys(texts))  # identical paragraphs share one translation
        got = dict(zip(uniq, cache.roundtrip(uniq, progress)))
        for a in srcs:
            outs = [got[a.text[s:e]] for s, e in paras[a.id]]
            how = "roundtrip" if route.method == "roundtrip" else "translation"
            text, spans = _assemble(a, paras[a.id], outs, how)
            m = _Made(text, _title_of(a, paras[a.id], outs), spans, {"via": route.pair})
            made.append((route, a, m, spec.split or split_of(a.id)))
    if any(r.method == "synonym" for r in sampled):
        thes = thesaurus or Thesaurus()
        for route, a in jobs:
            if route.method != "synonym":
                continue
            r = random.Random(f"{spec.seed}:synonym:{a.id}")
            paras = paragraph_spans(a.text)
            outs, counts = [], Counter()
            for s, e in paras:
                o, c = spin_synonyms(
                    a.text[s:e], thes, r, spec.synonym_share, spec.synonym_max_words
                )
                outs.append(" ".join(o.split()))
                counts.update(c)
            text, spans = _assemble(a, paras, outs, "synonym")
            notes = dict(counts) | {
                "replaced_share": round(counts["replaced"] / max(1, counts["content_words"]), 3)
            }
            m = _Made(text, _title_of(a, paras, outs), spans, notes)
            made.append((route, a, m, spec.split or split_of(a.id)))
    # credit lines on a share of the English machine-made derivatives, by seed
    english = [i for i, (r, *_rest) in enumerate(made) if r.relation == "spun"]
    crng = random.Random(f"{spec.seed}:credit")
    for i in sorted(crng.sample(english, round(spec.credit_share * len(english)))):
        _add_credit(made[i][2], random.Random(f"{spec.seed}:credit:{i}"))
    for rw in rw_list:
        src = by_id[rw.corpus_id]
        notes = {
            "file": rw.file,
            "words": len(rw.text.split()),
            "source_words": len(src.text.split()),
        }
        made.append((ROUTES[rw.kind], src, _Made(rw.text, rw.title, [], notes), rw.split))

    used = {a.id for _, a, _, _ in made}
    rest = [a for a in arts if a.id not in used]
    if spec.n_distractors is not None:
        rest = rng.sample(rest, min(spec.n_distractors, len(rest)))
    originals = [a for a in arts if a.id in used] + rest
    oid = {a.id: opaque_id(spec.seed, "o", a.id) for a in originals}
    records = [{"id": oid[a.id], "title": a.title, "text": a.text} for a in originals]
    labels = []
    for route, a, m, split in made:
        did = opaque_id(spec.seed, "d", route.kind, a.id)
        records.append({"id": did, "title": m.title, "text": m.text})
        src = oid[a.id]
        labels.append(
            {"a": src, "b": did, "source": src, "derivative": did}
            | {"relation": route.relation, "kind": route.kind, "split": split}
            | {"spans": m.spans, "source_corpus_id": a.id, "notes": m.notes}
        )
    random.Random(f"{spec.seed}:shuffle").shuffle(records)
    write_jsonl(out / "articles.jsonl", records)
    write_jsonl(out / "labels.jsonl", labels)
    counts = Counter(lab["kind"] for lab in labels)
    packages = sorted({r.package for r in routes if r.package})
    if any(r.method == "synonym" for r in routes):
        packages.append(THESAURUS_PACKAGE)
    manifest = {
        "generator": "unspin.evaluate.routes",
        "spec": asdict(spec),
        "rewrites": str(rewrites) if rewrites is not None else None,
        "rewrite_files": rw_stats,
        "rewrite_sources_not_in_corpus": not_in_corpus,
        "rewrite_sources_dropped_as_duplicates": dropped_rw,
        "packages": _versions(packages) if packages else {},
        "n_articles": len(records),
        "n_originals": len(originals),
        "n_derivatives": len(labels),
        "counts": {r.kind: counts.get(r.kind, 0) for r in routes},
        "credit_lines": sum("credit" in lab["notes"] for lab in labels),
        "dropped_duplicates": n_dupes,
        "seconds": round(time.perf_counter() - t0, 2),
        "corpus_ids": {oid[a.id]: a.id for a in originals},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return out
