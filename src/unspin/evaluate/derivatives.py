"""Synthetic derivatives of a real news corpus, with exact labels, to evaluate unspin on.

:func:`make_derivatives` samples source articles from a corpus and makes one derivative
of a known kind per source: an Apertium round trip (``spun``), an edited copy, a partial
reuse inside another real article, a copy with injected edits (or none), and, given
parallel pairs, a real translation. It writes to the out dir:

- ``articles.jsonl``: ``{id, title, text}`` per article, sources + distractors +
  derivatives, shuffled. *Every* id is opaque (``a-<12 hex>``), originals included, so no
  id tells an original from a derivative.
- ``labels.jsonl``: one line per derivative: ``source``, ``derivative``, ``relation``,
  ``kind``, ``spans`` (reused passages as exact character offsets into both texts, with
  ``how``: verbatim | roundtrip | edited), ``edits`` (``injected_edits`` only), ``host``
  (partial only: corpus id of the host article), ``source_corpus_id``, ``notes``; also
  ``a``/``b`` (= source/derivative) so :func:`unspin.evaluate.loaders.load_labels` reads it.
- ``manifest.json``: spec, counts, timings, opaque id -> corpus id of every original.
- ``.mt-cache.jsonl``: round trips keyed by sha1 of translator name + input.

Partial-reuse hosts are left out of ``articles.jsonl``: the composite holds nearly all of
its host, so keeping the host would add an unlabelled copy relation. Duplicates in the
corpus (exact, or same title and >= 50% shared 5-grams: ~130 in BBC) are dropped first.
"""

from __future__ import annotations

import json
import random
import re
import shutil  # noqa: F401  (tests patch shutil.which through this module)
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from unspin.evaluate.corpora import opaque_id as _oid
from unspin.evaluate.corpora import read_corpus, read_parallel
from unspin.evaluate.corpora import write_jsonl as _write_jsonl
from unspin.evaluate.mt import (
    SEPARATOR,
    ApertiumTranslator,
    Progress,
    Translator,
    TranslatorError,
)
from unspin.evaluate.mt import MTCache as _MTCache
from unspin.model import Article
from unspin.normalise import find_quotes, normalise_text, split_sentences, words

__all__ = [
    "SEPARATOR",
    "ApertiumTranslator",
    "DerivativeSpec",
    "Translator",
    "TranslatorError",
    "make_derivatives",
    "read_corpus",
    "read_parallel",
]

KINDS = ("roundtrip", "edited_copy", "partial", "partial_roundtrip", "injected_edits")
RELATION_OF = {
    "roundtrip": "spun",
    "edited_copy": "copy",
    "partial": "partial",
    "partial_roundtrip": "partial",
    "injected_edits": "copy",
    "translation": "translation",
}
EDIT_KINDS = ("quote_altered", "number_changed", "entity_changed", "attribution_changed")


@dataclass
class DerivativeSpec:
    """What to make: ``n`` derivatives (kinds round-robin), each from its own source."""

    n: int = 300
    seed: int = 1
    kinds: tuple[str, ...] = KINDS
    #: originals kept besides the sources (None: all remaining corpus articles)
    n_distractors: int | None = None
    #: share of ``injected_edits`` derivatives left unedited (plain copies, edits [])
    unedited_share: float = 0.25
    #: sources need this many body paragraphs and words
    min_paragraphs: int = 4
    min_words: int = 150


# ---------------------------------------------------------------- text helpers


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Paragraph spans: blocks between blank lines, or lines if there is no blank line."""
    block = re.search(r"\n[ \t]*\n", text)
    pat = r"\S[^\n]*(?:\n[ \t]*\S[^\n]*)*" if block else r"\S[^\n]*"
    return [(m.start(), m.start() + len(m.group(0).rstrip())) for m in re.finditer(pat, text)]


def ngram_retention(source: str, derivative: str, n: int = 5) -> float:
    """Share of the source's distinct word n-grams that occur in the derivative."""

    def grams(t: str) -> set[tuple[str, ...]]:
        w = words(t)
        return {tuple(w[i : i + n]) for i in range(len(w) - n + 1)}

    src = grams(source)
    return len(src & grams(derivative)) / len(src) if src else 0.0


def _case_like(model: str, word: str) -> str:
    return word[:1].upper() + word[1:] if model[:1].isupper() else word


def _overlaps(a: int, b: int, taken: _Taken) -> bool:
    return any(a < e and s < b for s, e in taken)


_SYNONYMS = {
    "said": "stated",
    "says": "states",
    "big": "large",
    "buy": "purchase",
    "bought": "purchased",
    "help": "assist",
    "helped": "assisted",
    "started": "began",
    "showed": "indicated",
    "shows": "indicates",
    "firm": "company",
    "company": "firm",
    "expected": "anticipated",
    "major": "key",
    "nearly": "almost",
    "almost": "nearly",
    "rose": "climbed",
    "fell": "dropped",
    "quickly": "rapidly",
    "important": "significant",
    "believe": "think",
    "children": "youngsters",
}
_SYN_RE = re.compile(r"\b(?:" + "|".join(_SYNONYMS) + r")\b", re.IGNORECASE)
#: meaning-changing swaps for words inside quotations
_FLIP = {
    "will": "would",
    "can": "could",
    "always": "never",
    "never": "always",
    "more": "less",
    "less": "more",
    "good": "bad",
    "best": "worst",
    "increase": "decrease",
    "support": "oppose",
    "must": "may",
    "very": "fairly",
    "many": "few",
    "great": "modest",
    "strong": "weak",
}
# made-up replacement names: surnames and company names built from syllables, so that
# two derivatives seldom share one (a name shared by unrelated articles would read as
# corpus support for the copy's wording, which a real spinner's invention does not get)
_FIRST = """Maria David Helen Paolo Anika Thomas Grace Jonas Ingrid Kofi Lucia Marek Nadia
    Oscar Priya Rafael Sofia Tomasz Ulrike Viktor Wen Yusuf Zainab Emeka""".split()
_SYLLABLES = "bar dun vel kor mis tan ro hal wen sted fir lo gra ven mar tho bek ri".split()
_ORG_TAILS = "Capital Group Holdings Systems Partners Council Industries Trust".split()


def _made_up(rng: random.Random, org: bool) -> str:
    """A person's or company's name that no real article is likely to use."""
    word = "".join(rng.choice(_SYLLABLES) for _ in range(3)).capitalize()  # 5,832 of them
    return f"{word} {rng.choice(_ORG_TAILS)}" if org else f"{rng.choice(_FIRST)} {word}"


_ORG_WORDS = frozenset(
    """Bank Group Inc Corp Corporation Company Council Party Commission Ministry Association
    Union Agency Airways Airlines Motors Bros Foundation Institute University Committee Office
    Department Federation League Club Holdings Systems Times News Court Service Board""".split()
)
_NOT_NAMES = frozenset(
    """The A An And But In On At For Of To Mr Mrs Ms Dr It He She They We This That These
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May
    June July August September October November December""".split()
)
_JOURNALISTS = ("Sam Ortega", "Lena Fischer", "Owen Pryce", "Rita Das", "Karl Jansen")
_OUTLETS = ("Daily Courier", "Metro Wire", "Capital Post", "Northern Herald", "Atlantic Press")
_NAME_RE = re.compile(r"\b[A-Z][a-z]+(?: (?:[A-Z][a-z]+|[A-Z]{2,}))+\b")
_NUM_RE = re.compile(r"(?<![\w.,])\d[\d,]*(?:\.\d+)?")
_CREDIT_RE = re.compile(
    r"^\(?\s*(?:(?:additional )?reporting|writing|editing) by\b|contributed to this "
    r"(?:report|story)|^reuters?$",
    re.IGNORECASE,
)


def _credit_line(rng: random.Random) -> str:
    a, b = rng.sample(_JOURNALISTS, 2)
    outlet = rng.choice(_OUTLETS)
    return rng.choice(
        (
            f"Reporting by {a}; editing by {b}",
            f"{a} contributed to this report.",
            f"Additional reporting by {a} for {outlet}.",
        )
    )


# ---------------------------------------------------------------- building blocks


@dataclass
class _Src:
    """A corpus article split into paragraphs; ``body`` is 1 when paragraph 0 is the title."""

    art: Article
    paras: list[tuple[int, int]]
    body: int

    @classmethod
    def of(cls, art: Article) -> _Src:
        paras = paragraphs(art.text)
        first = art.text[paras[0][0] : paras[0][1]].strip() if paras else ""
        has_title = bool(art.title) and first == (art.title or "").strip() and len(paras) > 1
        return cls(art, paras, int(has_title))

    @property
    def text(self) -> str:
        return self.art.text

    def para(self, i: int) -> str:
        return self.text[self.paras[i][0] : self.paras[i][1]]

    def sentences(self) -> list[list[tuple[int, int]]]:
        """Sentence spans grouped by paragraph."""
        spans = split_sentences(self.text)
        return [[(s, e) for s, e in spans if a <= s and e <= b] for a, b in self.paras]


class _Builder:
    """Assembles a derivative paragraph by paragraph, recording reuse spans as it goes."""

    def __init__(self, source: str) -> None:
        self.source, self.parts, self.spans, self.pos = source, [], [], 0

    def para(self, pieces: Sequence[tuple[str, tuple[int, int] | None, str]]) -> None:
        """Add a paragraph of pieces ``(text, source span or None, how)`` joined by spaces."""
        pieces = [p for p in pieces if p[0]]
        if not pieces:
            return
        self.pos += 2 if self.parts else 0
        for k, (t, src, how) in enumerate(pieces):
            self.pos += 1 if k else 0
            if src is not None:
                same = self.source[src[0] : src[1]] == t
                self.spans.append(
                    {
                        "source_start": src[0],
                        "source_end": src[1],
                        "derivative_start": self.pos,
                        "derivative_end": self.pos + len(t),
                        "how": "verbatim" if same else how,
                    }
                )
            self.pos += len(t)
        self.parts.append(" ".join(p[0] for p in pieces))

    @property
    def text(self) -> str:
        return "\n\n".join(self.parts)


def _merge(spans: list[dict[str, Any]], src: str, der: str) -> list[dict[str, Any]]:
    """Join verbatim spans that are adjacent on both sides with the same text between."""
    out: list[dict[str, Any]] = []
    for s in sorted(spans, key=lambda s: s["derivative_start"]):
        p = out[-1] if out else None
        if (
            p
            and p["how"] == s["how"] == "verbatim"
            and s["source_start"] >= p["source_end"]
            and src[p["source_end"] : s["source_start"]]
            == der[p["derivative_end"] : s["derivative_start"]]
        ):
            p["source_end"], p["derivative_end"] = s["source_end"], s["derivative_end"]
        else:
            out.append(dict(s))
    return out


@dataclass
class _Made:
    text: str
    title: str | None
    spans: list[dict[str, Any]]
    notes: dict[str, Any] = field(default_factory=dict)
    edits: list[dict[str, Any]] | None = None
    host: str | None = None


@dataclass
class _Plan:
    """Texts a derivative needs round-tripped, and how to build it once they are."""

    needs: list[str]
    build: Callable[[dict[str, str]], _Made]


# ---------------------------------------------------------------- generators


def _gen_roundtrip(s: _Src) -> _Plan:
    """The whole article through the translator, paragraph by paragraph."""
    texts = [s.para(i) for i in range(len(s.paras))]
    extra = [s.art.title] if s.art.title and not s.body else []

    def build(mt: dict[str, str]) -> _Made:
        b = _Builder(s.text)
        for span, t in zip(s.paras, texts):
            b.para([(mt[t], span, "roundtrip")])
        title = mt[extra[0]] if extra else (mt[texts[0]] if s.body else None)
        return _Made(b.text, title, b.spans)

    return _Plan(texts + extra, build)


def _first_clause_end(sentence: str) -> int | None:
    """Where the lead's first clause ends (after ", "), if trimming it leaves a sentence."""
    i = sentence.find(", ")
    if i < 0 or i > 0.6 * len(sentence) or len(words(sentence[:i])) < 3:
        return None
    return i + 2 if len(words(sentence[i:])) >= 6 else None


def _gen_edited(rng: random.Random, s: _Src) -> _Plan:
    """Drop 10-20% of sentences, swap two paragraphs, rewrite the lead, swap a few words,
    append a credit line."""
    sents = s.sentences()
    body = [p for p in range(s.body, len(s.paras)) if sents[p]]
    lead = (body[0], 0)
    cand = [(p, k) for p in body for k in range(len(sents[p])) if (p, k) != lead]
    n_drop = round(rng.uniform(0.10, 0.20) * (len(cand) + 1))
    dropped = set(rng.sample(cand, min(len(cand) - 1, max(1, n_drop)))) if len(cand) > 1 else set()
    order = body[:]
    if len(body) >= 3:
        i, j = sorted(rng.sample(range(1, len(body)), 2))
        order[i], order[j] = order[j], order[i]
    ls, le = sents[lead[0]][0]
    lead_text = s.text[ls:le]
    cut = _first_clause_end(lead_text)
    mode = "trim" if cut and rng.random() < 0.5 else "roundtrip"
    quotes = [(q.start, q.end) for q in find_quotes(s.text, min_words=1)]
    subs = [
        (m.start(), m.end())
        for p in body
        for k, (a, e) in enumerate(sents[p])
        if (p, k) not in dropped and (p, k) != lead
        for m in _SYN_RE.finditer(s.text, a, e)
        if not _overlaps(m.start(), m.end(), quotes)
    ]
    chosen = sorted(rng.sample(subs, min(len(subs), rng.randint(2, 5))))
    credit = _credit_line(rng)

    def substituted(a: int, e: int) -> str:
        out, pos = [], a
        for x, y in chosen:
            if a <= x and y <= e:
                w = s.text[x:y]
                out += [s.text[pos:x], _case_like(w, _SYNONYMS[w.lower()])]
                pos = y
        return "".join(out) + s.text[pos:e]

    def build(mt: dict[str, str]) -> _Made:
        b = _Builder(s.text)
        if s.body:
            b.para([(s.para(0), s.paras[0], "verbatim")])
        for p in order:
            pieces: list[tuple[str, tuple[int, int] | None, str]] = []
            for k, (a, e) in enumerate(sents[p]):
                if (p, k) in dropped:
                    continue
                if (p, k) == lead and mode == "trim" and cut:
                    rest = s.text[a + cut : e]
                    pieces.append((rest[:1].upper() + rest[1:], (a + cut, e), "edited"))
                elif (p, k) == lead:
                    pieces.append((mt[lead_text], (a, e), "roundtrip"))
                else:
                    pieces.append((substituted(a, e), (a, e), "edited"))
            b.para(pieces)
        b.para([(credit, None, "")])
        notes = {
            "dropped_sentences": len(dropped),
            "paragraph_order": [p - s.body for p in order],
            "lead": mode,
            "word_substitutions": len(chosen),
        }
        return _Made(b.text, s.art.title, _merge(b.spans, s.text, b.text), notes)

    return _Plan([lead_text] if mode == "roundtrip" else [], build)


def _gen_partial(rng: random.Random, s: _Src, host: _Src, roundtrip: bool) -> _Plan:
    """1-3 consecutive source paragraphs, verbatim or round-tripped, inside a host article."""
    n_body = len(s.paras) - s.body
    k = rng.randint(1, min(3, n_body - 1))
    first = rng.randint(s.body, len(s.paras) - k)
    reused = list(range(first, first + k))
    lo, hi = host.body + 1, len(host.paras) - 1
    at = rng.randint(lo, hi) if lo <= hi else len(host.paras)
    texts = [s.para(p) for p in reused]

    def build(mt: dict[str, str]) -> _Made:
        b = _Builder(s.text)
        for q in range(len(host.paras) + 1):
            if q == at:
                for p, t in zip(reused, texts):
                    b.para([(mt[t] if roundtrip else t, s.paras[p], "roundtrip")])
            if q < len(host.paras):
                b.para([(host.para(q), None, "")])
        notes = {"paragraphs": [p - s.body for p in reused], "inserted_at": at}
        spans = _merge(b.spans, s.text, b.text)
        return _Made(b.text, host.art.title, spans, notes, host=host.art.id)

    return _Plan(texts if roundtrip else [], build)


#: an injected edit: source start, end, replacement, chars of it before the edit proper
_Edit = tuple[int, int, str, int]
_Taken = list[tuple[int, int]]


def _edit_quote(rng: random.Random, s: _Src, body_start: int, taken: _Taken) -> _Edit | None:
    quotes = [q for q in find_quotes(s.text, min_words=4) if q.start >= body_start]
    for q in rng.sample(quotes, len(quotes)):
        ws = [
            m
            for m in re.finditer(r"[A-Za-z]+", s.text[q.start : q.end])
            if not _overlaps(q.start + m.start(), q.start + m.end(), taken)
        ]
        flips = [m for m in ws if m.group(0).lower() in _FLIP]
        if flips:
            m = rng.choice(flips)
            new = _case_like(m.group(0), _FLIP[m.group(0).lower()])
            return q.start + m.start(), q.start + m.end(), new, 0
        pairs = [
            (x, y)
            for x, y in zip(ws, ws[1:])
            if s.text[q.start + x.end() : q.start + y.start()] == " "
            and x.group(0).lower() != y.group(0).lower()
            and x.group(0).islower()
            and y.group(0).islower()
        ]
        if pairs:
            x, y = rng.choice(pairs)
            return q.start + x.start(), q.start + y.end(), f"{y.group(0)} {x.group(0)}", 0
    return None


def _edit_number(rng: random.Random, s: _Src, body_start: int, taken: _Taken) -> _Edit | None:
    nums = [
        m
        for m in _NUM_RE.finditer(s.text, body_start)
        if not (re.fullmatch(r"1[89]\d\d|20\d\d", m.group(0)))
        and not _overlaps(m.start(), m.end(), taken)
    ]
    if not nums:
        return None
    m = rng.choice(nums)
    digit = rng.choice([d for d in "123456789" if d != m.group(0)[0]])
    return m.start(), m.end(), digit + m.group(0)[1:], 0


def _edit_entity(rng: random.Random, s: _Src, body_start: int, taken: _Taken) -> _Edit | None:
    starts = {a for a, _ in split_sentences(s.text)}
    names = []
    for m in _NAME_RE.finditer(s.text, body_start):
        toks, a = m.group(0).split(" "), m.start()
        while toks and (toks[0] in _NOT_NAMES or a in starts):
            a += len(toks.pop(0)) + 1
        if len(toks) >= 2 and not any(t in _NOT_NAMES for t in toks):
            if not _overlaps(a, m.end(), taken):
                names.append((a, m.end(), toks))
    if not names:
        return None
    a, e, toks = rng.choice(names)
    new = _made_up(rng, toks[-1] in _ORG_WORDS)
    return a, e, new, 0


def _edit_attribution(rng: random.Random, s: _Src, body_start: int, taken: _Taken) -> _Edit:
    a, e = s.paras[-1]
    journalist, outlet = rng.choice(_JOURNALISTS), rng.choice(_OUTLETS)
    line = rng.choice(
        (f"Reporting by {journalist} for {outlet}", f"{outlet} staff contributed to this report.")
    )
    if _CREDIT_RE.search(s.text[a:e]) and not _overlaps(a, e, taken):
        return a, e, line, 0
    return len(s.text), len(s.text), "\n\n" + line, 2


_EDITORS = {
    "quote_altered": _edit_quote,
    "number_changed": _edit_number,
    "entity_changed": _edit_entity,
    "attribution_changed": _edit_attribution,
}


def _gen_injected(rng: random.Random, s: _Src, unedited: bool) -> _Plan:
    """A verbatim copy with 1-3 recorded edits (or none: a plain copy, for false positives)."""
    body_start = s.paras[s.body][0]
    edits: list[tuple[int, int, str, int, str]] = []
    if not unedited:
        want = rng.randint(1, 3)
        for kind in rng.sample(EDIT_KINDS, len(EDIT_KINDS)):
            if len(edits) == want:
                break
            taken = [(a, e) for a, e, *_ in edits]
            got = _EDITORS[kind](rng, s, body_start, taken)
            if got:
                edits.append((*got, kind))
    edits.sort()

    def build(mt: dict[str, str]) -> _Made:
        parts, pos, delta, recs = [], 0, 0, []
        for a, e, new, skip, kind in edits:
            parts += [s.text[pos:a], new]
            recs.append(
                {
                    "kind": kind,
                    "source_span": [a, e],
                    "derivative_span": [a + delta + skip, a + delta + len(new)],
                    "source_text": s.text[a:e],
                    "derivative_text": new[skip:],
                }
            )
            delta += len(new) - (e - a)
            pos = e
        text = "".join(parts) + s.text[pos:]

        def shift(p: int) -> int:
            return p + sum(len(n) - (e - a) for a, e, n, *_ in edits if e < p or a < e == p)

        spans = []
        for a, e in s.paras:
            if any(x <= a and e <= y for x, y, *_ in edits):
                continue  # a replaced credit line is not reused
            da, de = shift(a), shift(e)
            how = "verbatim" if s.text[a:e] == text[da:de] else "edited"
            spans.append(
                {
                    "source_start": a,
                    "source_end": e,
                    "derivative_start": da,
                    "derivative_end": de,
                    "how": how,
                }
            )
        notes = {"unedited": unedited}
        return _Made(text, s.art.title, _merge(spans, s.text, text), notes, edits=recs)

    return _Plan([], build)


def _translation_spans(en: Article, es: Article) -> list[dict[str, Any]]:
    """Paragraph (line) pairs when both sides have as many, else the whole texts."""
    pa, pb = paragraphs(en.text), paragraphs(es.text)
    if len(pa) != len(pb) or not pa:
        pa, pb = [(0, len(en.text))], [(0, len(es.text))]
    return [
        {
            "source_start": a[0],
            "source_end": a[1],
            "derivative_start": b[0],
            "derivative_end": b[1],
            "how": "translation",
        }
        for a, b in zip(pa, pb)
    ]


# ---------------------------------------------------------------- the generator


def _dedupe(corpus: Sequence[Article]) -> tuple[list[Article], int]:
    """Drop repeated ids, exact duplicate texts, same-title near duplicates (>= 50% of word
    5-grams shared) and any article sharing >= 70% of its (or an earlier kept article's)
    word 5-grams with an earlier kept one, whatever the titles: the same story published
    twice would be an unlabelled copy of a source or host, and every derivative of the
    one would be an unlabelled derivative of the other. (70%, not 50%: articles written
    to one template share half their 5-grams and are not copies.)"""
    seen_ids: set[str] = set()
    seen_text: set[str] = set()
    by_title: dict[str, list[str]] = {}
    by_gram: dict[tuple[str, ...], list[int]] = {}
    sizes: list[int] = []
    out = []
    for a in corpus:
        h = normalise_text(a.text)
        same_title = by_title.setdefault(normalise_text(a.title or ""), []) if a.title else []
        if a.id in seen_ids or h in seen_text or not h:
            continue
        if any(ngram_retention(t, h) >= 0.5 for t in same_title):
            continue
        w = words(h)
        grams = {tuple(w[i : i + 5]) for i in range(len(w) - 4)}
        shared = Counter(k for g in grams for k in by_gram.get(g, ()))
        if any(n / min(len(grams), sizes[k]) >= 0.7 for k, n in shared.items()):
            continue
        for g in grams:
            by_gram.setdefault(g, []).append(len(sizes))
        sizes.append(len(grams))
        seen_ids.add(a.id)
        seen_text.add(h)
        same_title.append(h)
        out.append(a)
    return out, len(corpus) - len(out)


def make_derivatives(
    corpus: list[Article],
    spec: DerivativeSpec,
    out: Path,
    translator: Translator | None = None,
    parallel: list[tuple[Article, Article]] | None = None,
    progress: Progress | None = None,
) -> Path:
    """Write ``articles.jsonl``, ``labels.jsonl`` and ``manifest.json`` to ``out`` (see module
    doc); deterministic given ``spec.seed`` and the translator. Returns ``out``."""
    t0 = time.perf_counter()
    bad = set(spec.kinds) - set(KINDS)
    if bad:
        raise ValueError(f"unknown derivative kinds {sorted(bad)} (expected some of {KINDS})")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    arts, n_dupes = _dedupe(corpus)
    srcs = {a.id: _Src.of(a) for a in arts}
    eligible = [
        a
        for a in arts
        if len(srcs[a.id].paras) - srcs[a.id].body >= spec.min_paragraphs
        and len(words(a.text)) >= spec.min_words
    ]
    if spec.n and not eligible:
        raise ValueError(
            f"no article has >= {spec.min_paragraphs} paragraphs and >= {spec.min_words} words"
        )
    rng = random.Random(spec.seed)
    order = rng.sample(eligible, len(eligible))
    sources = [order[i % len(order)] for i in range(spec.n)]
    kinds = [spec.kinds[i % len(spec.kinds)] for i in range(spec.n)]
    used = {a.id for a in sources}
    pool = [a for a in arts if a.id not in used and len(srcs[a.id].paras) >= 3]
    n_hosts = sum(k.startswith("partial") for k in kinds)
    if n_hosts > len(pool):
        raise ValueError(f"{n_hosts} partial derivatives need hosts; only {len(pool)} left")
    hosts = rng.sample(pool, n_hosts)
    host_ids = {h.id for h in hosts}

    plans: list[_Plan] = []
    n_injected = 0
    for i, (a, kind) in enumerate(zip(sources, kinds)):
        r, s = random.Random(f"{spec.seed}:{i}:{kind}:{a.id}"), srcs[a.id]
        if kind == "roundtrip":
            plans.append(_gen_roundtrip(s))
        elif kind == "edited_copy":
            plans.append(_gen_edited(r, s))
        elif kind.startswith("partial"):
            host = srcs[hosts.pop().id]
            plans.append(_gen_partial(r, s, host, kind == "partial_roundtrip"))
        else:
            share = spec.unedited_share
            unedited = int((n_injected + 1) * share) > int(n_injected * share)
            n_injected += 1
            plans.append(_gen_injected(r, s, unedited))

    needs = list(dict.fromkeys(t for p in plans for t in p.needs))
    mt: dict[str, str] = {}
    t_mt = time.perf_counter()
    if needs:
        cache = _MTCache(translator or ApertiumTranslator(), out / ".mt-cache.jsonl")
        mt = dict(zip(needs, cache.roundtrip(needs, progress)))
    t_mt = time.perf_counter() - t_mt

    oid = {a.id: _oid(spec.seed, "o", a.id) for a in arts}
    rest = [a for a in arts if a.id not in used and a.id not in host_ids]
    if spec.n_distractors is not None:
        rest = rng.sample(rest, min(spec.n_distractors, len(rest)))
    originals = [a for a in arts if a.id in used] + rest
    records = [{"id": oid[a.id], "title": a.title, "text": a.text} for a in originals]
    labels: list[dict[str, Any]] = []

    def label(src: str, der: str, kind: str, made: _Made, corpus_id: str) -> None:
        rec = {"a": src, "b": der, "source": src, "derivative": der}
        rec |= {"relation": RELATION_OF[kind], "kind": kind, "spans": made.spans}
        if made.edits is not None:
            rec["edits"] = made.edits
        if made.host is not None:
            rec["host"] = made.host
        labels.append(rec | {"source_corpus_id": corpus_id, "notes": made.notes})

    for i, (a, kind, plan) in enumerate(zip(sources, kinds, plans)):
        if progress and i % 50 == 0:
            progress("build", i, len(plans))
        made = plan.build(mt)
        did = _oid(spec.seed, "d", i, kind, a.id)
        records.append({"id": did, "title": made.title, "text": made.text})
        label(oid[a.id], did, kind, made, a.id)
    if progress and plans:
        progress("build", len(plans), len(plans))
    corpus_ids = {oid[a.id]: a.id for a in originals}
    for en, es in parallel or []:
        sid, did = _oid(spec.seed, "o", "parallel", en.id), _oid(spec.seed, "d", "t", es.id)
        records += [
            {"id": sid, "title": en.title, "text": en.text},
            {"id": did, "title": es.title, "text": es.text},
        ]
        corpus_ids[sid] = en.id
        label(sid, did, "translation", _Made(es.text, es.title, _translation_spans(en, es)), en.id)

    random.Random(f"{spec.seed}:shuffle").shuffle(records)
    _write_jsonl(out / "articles.jsonl", records)
    _write_jsonl(out / "labels.jsonl", labels)
    counts: dict[str, int] = {}
    for rec in labels:
        counts[rec["kind"]] = counts.get(rec["kind"], 0) + 1
    tname = getattr(translator, "name", type(translator).__name__) if translator else None
    manifest = {
        "spec": asdict(spec),
        "translator": tname or ("apertium:eng-spa" if needs else None),
        "n_articles": len(records),
        "n_originals": len(originals) + len(parallel or []),
        "n_derivatives": len(labels),
        "counts": counts,
        "dropped_duplicates": n_dupes,
        "excluded_hosts": len(host_ids),
        "reused_sources": len(sources) - len(used),
        "seconds": {"translate": round(t_mt, 2), "total": round(time.perf_counter() - t0, 2)},
        "corpus_ids": corpus_ids,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return out
