"""Corpus support: which wording the rest of the corpus agrees with.

A copy's edits (a name swapped, words moved inside a quotation, a literal translation of
a proper noun) leave it with word pairs that other articles do not use, while the
source's wording is usually shared by independent reports of the same story. The
classify stage asks this index, for one pair of articles, how many *other* articles use
a name or a word pair. It is built once per corpus from the prepared Docs (a global
statistic, like document frequencies; a cluster engine broadcasts it).

Guarantee: counts are exact document frequencies of the 64-bit hashed word pair
(collisions aside, about 1 in 2^64 per pair), minus the two articles asked about. Copies
of a derivative count as support for its wording too: the index cannot tell independent
articles from copies.

It also counts, per sentence (its :func:`line_key`), the articles of the pile that hold
it, the pair's own included: the align stage treats a sentence found in many articles as
a stock line (a credit line, a standard footer) where the pair holds it in different
surroundings (:func:`unspin.align.stock_lines`).
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache

import numpy as np
import regex

from unspin.model import Doc, compared_text
from unspin.normalise import (
    CAP_WORD,
    DATE_WORDS,
    LOWER,
    NUMBER_WORDS,
    caps_names,
    caps_words,
    normalise_text,
    token_spans,
    words,
)


def bigram_hashes(tokens: Sequence[str]) -> np.ndarray:
    """Stable 64-bit hashes of consecutive word pairs (the same in every process)."""
    out = np.empty(max(len(tokens) - 1, 0), dtype=np.uint64)
    for i in range(len(out)):
        h = hashlib.blake2b(f"{tokens[i]} {tokens[i + 1]}".encode(), digest_size=8)
        out[i] = int.from_bytes(h.digest(), "little")
    return out


#: a capitalised word that does not open a sentence, a quotation or a bracket
_MID_CAP = regex.compile(rf"(?<![.!?:;\"“”‘’'(\[\n])(?<![.!?:;\"“”‘’'(\[]\s)(?<!^)\b({CAP_WORD})\b")
#: a word in lower case
_LOWER = regex.compile(rf"\b{LOWER}+\b")


def body_sentences(doc: Doc) -> list[int]:
    """Indexes of sentences that end like prose (headlines and subheads may be title-cased)."""
    ends = (".", "!", "?", '"', "”", "’", "'")
    return [s.index for s in doc.sentences if s.text.rstrip().endswith(ends)]


def mid_capitals(text: str) -> set[str]:
    """Lower-cased words written with a capital inside a sentence ("met Mayor Ken")."""
    return {m.group(1).lower() for m in _MID_CAP.finditer(text)}


def line_key(text: str) -> str:
    """A sentence as a line of the pile: case-, space-, quote-insensitive, final
    punctuation ignored ("... co-production." and "... co-production" are one line)."""
    return normalise_text(text).rstrip(" .!?;:,")


def line_hashes(doc: Doc) -> np.ndarray:
    """Stable 64-bit hashes of the doc's sentences as lines (:func:`line_key`), in order."""
    out = np.empty(len(doc.sentences), dtype=np.uint64)
    for k, x in enumerate(doc.sentences):
        h = hashlib.blake2b(line_key(x.text).encode(), digest_size=8)
        out[k] = int.from_bytes(h.digest(), "little")
    return out


#: sentences whose frames (:func:`frame_key`) are kept per process: the corpus
#: statistics, the form check and the series check of a pair ask for the same lines'
#: frames (two long near-copies: each of 4,000 lines three times)
FRAME_CACHE = 65_536


@lru_cache(maxsize=FRAME_CACHE)
def frame_key(text: str) -> str:
    """A sentence as a form's line: its words with every run of figures and date words
    (months, weekdays) blanked to ``#`` and every run of name words
    (:func:`unspin.normalise.names`, ``caps=True``) to ``@``.

    A wire's forms ("Mthly div 7.1 cts vs 7.1 cts prior", "Pay March 31", "NOTE: Franklin
    Insured Tax-Free Income Fund.") are filled in with other figures and names from one
    item to the next; their frames are the same line. A pure function of the text (no
    corpus), so frame counts are additive over articles."""
    nms = {w.removesuffix("'s") for w in caps_names(text)}
    caps = caps_words(text)
    toks = [text[s:e] for s, e in token_spans(text)]
    out: list[str] = []
    for k, w in enumerate(words(text)):
        # a name: as :func:`~unspin.normalise.names` finds them, or any capitalised word
        # but the first outside an all-caps stretch (after "NOTE:" too: a form's label)
        name = w.removesuffix("'s") in nms or (
            k > 0 and not caps[k] and toks[k][:1].isupper() and w not in DATE_WORDS
        )
        # a figure, and a month or weekday (a date's parts: "Pay June 12", "Pay 20 May")
        figure = w in NUMBER_WORDS or w in DATE_WORDS or any(map(str.isdigit, w))
        tok = "#" if figure else "@" if name else w
        if tok in ("#", "@") and out and out[-1] == tok:
            continue
        out.append(tok)
    return " ".join(out)


def _hash64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def frame_hashes(doc: Doc) -> np.ndarray:
    """Stable 64-bit hashes of the doc's sentences as form lines (:func:`frame_key`)."""
    return np.array([_hash64(frame_key(x.text)) for x in doc.sentences], dtype=np.uint64)


def fill_hashes(frames: np.ndarray, lines: np.ndarray) -> np.ndarray:
    """One 64-bit key per (frame, line) pair: a frame filled in one way."""
    out = np.empty(len(frames), dtype=np.uint64)
    for k, (f, ln) in enumerate(zip(frames.tolist(), lines.tolist())):
        out[k] = _hash64(f"{f}:{ln}")
    return out


def content_chars(doc: Doc) -> np.ndarray:
    """Per sentence, its length in characters, 0 for boilerplate."""
    return np.array([0 if x.boilerplate else len(x.text) for x in doc.sentences], dtype=np.int64)


def form_sentences(
    chars: np.ndarray, frames: np.ndarray, fills: np.ndarray, min_fills: int, share: float
) -> dict[int, int]:
    """A doc's form lines, sentence index -> frame hash, when the doc is a *form item*.

    ``chars``: per sentence its content characters (:func:`content_chars`); ``frames``:
    its frame hashes (:func:`frame_hashes`); ``fills``: in how many different ways the pile
    fills each sentence's frame in (:meth:`CorpusStats.frame_fills`). A content sentence
    is a form line when its frame is filled in at least ``min_fills`` ways; the doc is a
    form item (a wire notice: a dividend, an earnings table, a fund's payout, a market
    report) when its form lines make up at least ``share`` of its body's content
    characters (the first content sentence, its headline, left out when there are more).
    Empty otherwise: an ordinary article's few formulaic lines are not its substance."""
    if min_fills < 1:
        return {}
    form = np.flatnonzero((chars > 0) & (fills >= min_fills))
    # the share is the body's: a headline names the item (it is seldom a form line)
    body = chars.copy()
    content = np.flatnonzero(chars > 0)
    if len(content) > 1:
        body[content[0]] = 0
    total = int(body.sum())
    if not total or int(body[form].sum()) < share * total:
        return {}
    return {int(k): int(frames[k]) for k in form}


def _df(keys: np.ndarray, dfs: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """Document frequency of each hash from sorted unique ``keys`` and their ``dfs``."""
    hashes = np.asarray(hashes, dtype=np.uint64)
    if not len(keys) or not len(hashes):
        return np.zeros(len(hashes), dtype=np.int64)
    pos = np.minimum(np.searchsorted(keys, hashes), len(keys) - 1)
    return np.where(keys[pos] == hashes, dfs[pos], 0).astype(np.int64)


def doc_bigrams(doc: Doc) -> np.ndarray:
    """The distinct word-pair hashes of an article (title and body), sorted."""
    return np.unique(bigram_hashes(words(compared_text(doc))))


class CorpusSupport:
    """Document frequencies of names (salient ``w:`` keys), of word pairs and of casing.

    ``support(word, a, b)``: articles other than ``a`` and ``b`` whose keys hold the name.
    ``phrase_support(hashes, a, b)``: per word-pair hash, articles other than ``a`` and
    ``b`` that use it.
    ``lower_only(word, a, b)``: other articles write ``word`` lower case and (almost) never
    capitalise it inside a sentence of prose.
    ``casing(word, a, b)``: whether other articles mostly capitalise ``word`` inside a
    sentence (True), mostly write it lower case (False), or do not tell (None).
    """

    def __init__(self, docs: Iterable[Doc]) -> None:
        docs = list(docs)
        self._view: SupportView | None = None
        self._names: dict[str, set[str]] = defaultdict(set)
        self._pairs: dict[str, np.ndarray] = {}
        chunks, lines = [], []
        self._capital: dict[str, set[str]] = defaultdict(set)
        self._lower: Counter[str] = Counter()
        self._texts: dict[str, str] = {}
        self._words: Counter[str] = Counter()  # articles using each word (title and body)
        self._n = 0
        for d in docs:
            self._n += 1
            self._words.update(set(words(compared_text(d))))
            prose = " ".join(d.sentences[i].text for i in body_sentences(d))
            for w in mid_capitals(prose):
                self._capital[w].add(d.id)
            self._lower.update(set(_LOWER.findall(prose)))
            self._texts[d.id] = prose
            for k in d.keys:
                if k.startswith("w:"):
                    self._names[k[2:]].add(d.id)
            grams = doc_bigrams(d)
            self._pairs[d.id] = grams
            chunks.append(grams)
            lines.append(np.unique(line_hashes(d)))
        allg = np.concatenate(chunks) if chunks else np.empty(0, dtype=np.uint64)
        self._keys, self._df = np.unique(allg, return_counts=True)
        alll = np.concatenate(lines) if lines else np.empty(0, dtype=np.uint64)
        self._line_keys, self._line_df = np.unique(alll, return_counts=True)
        self._docs = docs

    def form_lines(self, doc_id: str, min_fills: int, share: float) -> dict[int, int]:
        """As :meth:`SupportView.form_lines` (the pile's frame counts built on first use)."""
        if self._view is None:
            locs = [SupportLocal(d) for d in self._docs]
            self._view = SupportView(CorpusStats(locs), locs)
        return self._view.form_lines(doc_id, min_fills, share)

    def line_docs(self, hashes: np.ndarray) -> np.ndarray:
        """How many articles of the pile (any, the asking pair's too) hold each line."""
        return _df(self._line_keys, self._line_df, hashes)

    def lines_in_at_least(self, hashes: np.ndarray, n: int) -> np.ndarray:
        """Per line, whether at least ``n`` articles of the pile hold it."""
        return self.line_docs(hashes) >= n

    def __call__(self, word: str, a: str, b: str) -> int:
        return len(self._names.get(word, set()) - {a, b})

    def lower_only(self, word: str, a: str, b: str, min_lower: int = 5) -> bool:
        """Whether at least ``min_lower`` other articles write ``word`` (lower case) in
        prose and at most one in twenty of those counts capitalise it mid-sentence: a
        common word, not a name ("knows", "gentleman"; not "lord", "brown")."""
        if self._lower.get(word, 0) < min_lower:
            return False
        low, cap = self._casing_counts(word, a, b)
        return low >= min_lower and cap * 20 <= low

    def _casing_counts(self, word: str, a: str, b: str) -> tuple[int, int]:
        """Articles other than ``a`` and ``b`` that write ``word`` lower case in prose, and
        that capitalise it inside a sentence."""
        low = self._lower.get(word, 0)
        for own in (a, b):
            text = self._texts.get(own)
            if low and text is not None and re.search(rf"\b{re.escape(word)}\b", text):
                low -= 1
        return low, len(self._capital.get(word, set()) - {a, b})

    def casing(self, word: str, a: str, b: str, house_share: float = 0.1) -> bool | None:
        """How articles other than ``a`` and ``b`` write ``word`` inside sentences of prose:
        True when more of them capitalise it mid-sentence than write it lower case (a name:
        "Michigan", "Premier"), False when more write it lower case (a common word:
        "debentures", "sets"), None when none uses it or they split evenly. The verdict of
        the majority, with no minimum: in an all-caps title it stands in for the casing the
        title hides, where the only other guide is English frequency.

        None too for a word in more than ``house_share`` of all articles: used that widely
        it is the house's vocabulary ("Corp", "Inc", "U.S."), not the name of one item,
        whatever its casing."""
        if self._words.get(word, 0) > house_share * self._n:
            return None
        low, cap = self._casing_counts(word, a, b)
        if cap == low:
            return None
        return cap > low

    def phrase_support(self, hashes: np.ndarray, a: str, b: str) -> np.ndarray:
        """How many articles other than ``a`` and ``b`` use each word pair."""
        hashes = np.asarray(hashes, dtype=np.uint64)
        if not len(self._keys) or not len(hashes):
            return np.zeros(len(hashes), dtype=np.int64)
        pos = np.minimum(np.searchsorted(self._keys, hashes), len(self._keys) - 1)
        df = np.where(self._keys[pos] == hashes, self._df[pos], 0).astype(np.int64)
        for own in (a, b):
            grams = self._pairs.get(own)
            if grams is not None and len(grams):
                df -= np.isin(hashes, grams).astype(np.int64)
        return np.maximum(df, 0)


# ---------------------------------------------------------------- split form


class SupportLocal:
    """One article's share of the corpus statistics (computed once per article).

    The same sets :class:`CorpusSupport` builds for every article; kept per article so an
    engine computes them where the article is, sums them into :class:`CorpusStats`
    (global counts, broadcast) and hands a pair's two locals to :class:`SupportView`.
    """

    __slots__ = (
        "id",
        "names",
        "capitals",
        "lower",
        "words",
        "prose",
        "bigrams",
        "line_seq",
        "lines",
        "frame_seq",
        "fills",
        "fill_frames",
        "chars",
    )

    def __init__(self, doc: Doc) -> None:
        self.id = doc.id
        self.names = frozenset(k[2:] for k in doc.keys if k.startswith("w:"))
        prose = " ".join(doc.sentences[i].text for i in body_sentences(doc))
        self.prose = prose
        self.capitals = frozenset(mid_capitals(prose))
        self.lower = frozenset(_LOWER.findall(prose))
        self.words = frozenset(words(compared_text(doc)))
        self.bigrams = doc_bigrams(doc)
        self.line_seq = line_hashes(doc)  # per sentence, in order
        self.lines = np.unique(self.line_seq)
        self.frame_seq = frame_hashes(doc)  # per sentence, in order
        # the distinct ways the doc fills frames in: (frame, line) keys and their frames
        keys = fill_hashes(self.frame_seq, self.line_seq)
        self.fills, first = np.unique(keys, return_index=True)
        self.fill_frames = self.frame_seq[first]
        self.chars = content_chars(doc)

    #: the word sets: pickled as tuples and interned when read back (below)
    _WORD_SETS = frozenset({"names", "capitals", "lower", "words"})

    def __getstate__(self) -> tuple:
        return tuple(
            tuple(getattr(self, k)) if k in self._WORD_SETS else getattr(self, k)
            for k in self.__slots__
        )

    def __setstate__(self, state: tuple) -> None:
        # a share read back from a worker (or a store) shares its words with every other
        # share read back: unpickled, each share's words were strings of their own (all of
        # Reuters: ~150 MB of the main process's peak, issue 14). Rebuilt from the items in
        # their pickled order, one by one, as the unpickler builds a frozenset: the same
        # set, iterated in the same order
        for k, v in zip(self.__slots__, state):
            setattr(self, k, frozenset(map(sys.intern, v)) if k in self._WORD_SETS else v)


class CorpusStats:
    """The global part of :class:`CorpusSupport`: document frequencies only (names,
    mid-sentence capitals, lower-case prose words, words, word pairs, lines) and the
    article count. Additive: ``add``/``remove`` one article's :class:`SupportLocal`, so an
    incremental add or a cluster aggregate gives the same counts as a full build."""

    def __init__(self, locals_: Iterable[SupportLocal] = ()) -> None:
        self.names: Counter[str] = Counter()
        self.capitals: Counter[str] = Counter()
        self.lower: Counter[str] = Counter()
        self.words: Counter[str] = Counter()
        self.n = 0
        chunks, lines, fills, frames = [], [], [], []
        for loc in locals_:
            self._count(loc, 1)
            chunks.append(loc.bigrams)
            lines.append(loc.lines)
            fills.append(loc.fills)
            frames.append(loc.fill_frames)
        allg = np.concatenate(chunks) if chunks else np.empty(0, dtype=np.uint64)
        self.keys, self.df = np.unique(allg, return_counts=True)
        alll = np.concatenate(lines) if lines else np.empty(0, dtype=np.uint64)
        self.line_keys, self.line_df = np.unique(alll, return_counts=True)
        allf = np.concatenate(fills) if fills else np.empty(0, dtype=np.uint64)
        allfr = np.concatenate(frames) if frames else np.empty(0, dtype=np.uint64)
        self.fill_keys, first, self.fill_df = np.unique(allf, return_index=True, return_counts=True)
        self.fill_frames = allfr[first]
        self._frames_counted()

    def _frames_counted(self) -> None:
        """Per frame, the distinct fills the pile holds (from the fill keys)."""
        self.frame_keys, self.frame_nfill = np.unique(self.fill_frames, return_counts=True)

    def line_docs(self, hashes: np.ndarray) -> np.ndarray:
        """How many articles of the pile hold each line (:func:`line_key` hashes)."""
        return _df(self.line_keys, self.line_df, hashes)

    def frame_fills(self, frames: np.ndarray) -> np.ndarray:
        """In how many different ways the pile fills each frame in (distinct lines with
        that frame, :func:`frame_key`)."""
        return _df(self.frame_keys, self.frame_nfill, frames)

    def _fills_changed(self, loc: SupportLocal, sign: int) -> None:
        keys, df = self.fill_keys, self.fill_df
        had = _held(keys, loc.fills)
        self.fill_keys, self.fill_df, self.fill_frames = _merge(
            keys, df, loc.fills, sign, (self.fill_frames, loc.fill_frames)
        )
        # a frame's distinct fills move by the fills that appeared or disappeared
        if sign > 0:
            moved = loc.fill_frames[~had]
        else:
            moved = loc.fill_frames[~_held(self.fill_keys, loc.fills)]
        if len(moved):
            frames, count = np.unique(moved, return_counts=True)
            self.frame_keys, self.frame_nfill = _merge(
                self.frame_keys, self.frame_nfill, frames, sign, counts=count
            )

    def _count(self, loc: SupportLocal, sign: int) -> None:
        self.n += sign
        for table, items in (
            (self.names, loc.names),
            (self.capitals, loc.capitals),
            (self.lower, loc.lower),
            (self.words, loc.words),
        ):
            for w in items:
                table[w] += sign
                if table[w] <= 0:
                    del table[w]

    def add(self, loc: SupportLocal) -> None:
        """Count one more article (word-pair and line frequencies merged in)."""
        self._count(loc, 1)
        self.keys, self.df = _merge(self.keys, self.df, loc.bigrams, 1)
        self.line_keys, self.line_df = _merge(self.line_keys, self.line_df, loc.lines, 1)
        self._fills_changed(loc, 1)

    def remove(self, loc: SupportLocal) -> None:
        """Count one article fewer."""
        self._count(loc, -1)
        self.keys, self.df = _merge(self.keys, self.df, loc.bigrams, -1)
        self.line_keys, self.line_df = _merge(self.line_keys, self.line_df, loc.lines, -1)
        self._fills_changed(loc, -1)

    @classmethod
    def from_counts(
        cls,
        n: int,
        names: dict[str, int],
        capitals: dict[str, int],
        lower: dict[str, int],
        words_: dict[str, int],
        keys: np.ndarray,
        df: np.ndarray,
        line_keys: np.ndarray | None = None,
        line_df: np.ndarray | None = None,
        fill_keys: np.ndarray | None = None,
        fill_df: np.ndarray | None = None,
        fill_frames: np.ndarray | None = None,
    ) -> CorpusStats:
        """Counts aggregated elsewhere (a cluster's group-by); ``keys``, ``line_keys`` and
        ``fill_keys`` sorted, unique (``fill_frames``: each fill key's frame)."""
        s = cls()
        s.n = n
        s.names, s.capitals = Counter(names), Counter(capitals)
        s.lower, s.words = Counter(lower), Counter(words_)
        s.keys = np.asarray(keys, dtype=np.uint64)
        s.df = np.asarray(df, dtype=np.int64)
        if line_keys is not None and line_df is not None:
            s.line_keys = np.asarray(line_keys, dtype=np.uint64)
            s.line_df = np.asarray(line_df, dtype=np.int64)
        if fill_keys is not None and fill_df is not None and fill_frames is not None:
            s.fill_keys = np.asarray(fill_keys, dtype=np.uint64)
            s.fill_df = np.asarray(fill_df, dtype=np.int64)
            s.fill_frames = np.asarray(fill_frames, dtype=np.uint64)
            s._frames_counted()
        return s


def _held(keys: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Per item, whether sorted unique ``keys`` hold it."""
    if not len(keys):
        return np.zeros(len(items), dtype=bool)
    pos = np.minimum(np.searchsorted(keys, items), len(keys) - 1)
    return keys[pos] == items


def _merge(
    keys: np.ndarray,
    dfs: np.ndarray,
    items: np.ndarray,
    sign: int,
    extra: tuple[np.ndarray, np.ndarray] | None = None,
    counts: np.ndarray | None = None,
):
    """Sorted unique ``keys`` with document frequencies ``dfs``, after adding (``sign``
    1) or removing (-1) one article's distinct ``items`` (sorted, unique), each counted
    once or ``counts`` times; keys whose count falls to 0 are dropped.

    ``extra``: a column aligned with ``keys`` and the items' values of it (kept for the
    keys, inserted with new ones); returned as a third array. In place of a re-sort of
    everything: a binary search of the few items, inserts of the new ones."""
    items = np.asarray(items, dtype=keys.dtype)
    step = np.full(len(items), sign, dtype=dfs.dtype) if counts is None else sign * counts
    col = None if extra is None else extra[0]
    if len(items):
        pos = np.searchsorted(keys, items)
        found = _held(keys, items)
        dfs = dfs.copy()
        dfs[pos[found]] += step[found].astype(dfs.dtype)
        if sign > 0 and not found.all():
            at = pos[~found]
            keys = np.insert(keys, at, items[~found])
            dfs = np.insert(dfs, at, step[~found].astype(dfs.dtype))
            if col is not None and extra is not None:
                col = np.insert(col, at, np.asarray(extra[1], dtype=col.dtype)[~found])
        if sign < 0:
            keep = dfs > 0
            keys, dfs = keys[keep], dfs[keep]
            if col is not None:
                col = col[keep]
    if extra is None:
        return keys, dfs
    return keys, dfs, col


def form_lines_of(loc: SupportLocal, stats: CorpusStats, min_fills: int, share: float):
    """:func:`form_sentences` of one article's share of the statistics. A line the pile
    holds word for word in at least ``min_fills`` articles ("Pay March 31") counts as a
    frame filled in that often: the wire's stock, whatever its fill."""
    fills = np.maximum(stats.frame_fills(loc.frame_seq), stats.line_docs(loc.line_seq))
    return form_sentences(loc.chars, loc.frame_seq, fills, min_fills, share)


class SupportView:
    """:class:`CorpusSupport`'s answers for the articles whose locals it holds (a pair's
    two), from the global :class:`CorpusStats`: the same numbers, without the rest of
    the corpus in memory. Per-pair work builds one from broadcast stats and two locals."""

    def __init__(self, stats: CorpusStats, locals_: Iterable[SupportLocal]) -> None:
        self.stats = stats
        self._local = {loc.id: loc for loc in locals_}

    def _own(self, a: str, b: str) -> list[SupportLocal]:
        return [self._local[x] for x in dict.fromkeys((a, b)) if x in self._local]

    def __call__(self, word: str, a: str, b: str) -> int:
        n = self.stats.names.get(word, 0)
        return n - sum(word in loc.names for loc in self._own(a, b)) if n else 0

    def lower_only(self, word: str, a: str, b: str, min_lower: int = 5) -> bool:
        """As :meth:`CorpusSupport.lower_only`."""
        if self.stats.lower.get(word, 0) < min_lower:
            return False
        low, cap = self._casing_counts(word, a, b)
        return low >= min_lower and cap * 20 <= low

    def _casing_counts(self, word: str, a: str, b: str) -> tuple[int, int]:
        low = self.stats.lower.get(word, 0)
        for own in (a, b):
            loc = self._local.get(own)
            if low and loc is not None and re.search(rf"\b{re.escape(word)}\b", loc.prose):
                low -= 1
        cap = self.stats.capitals.get(word, 0)
        if cap:
            cap -= sum(word in loc.capitals for loc in self._own(a, b))
        return low, cap

    def casing(self, word: str, a: str, b: str, house_share: float = 0.1) -> bool | None:
        """As :meth:`CorpusSupport.casing`."""
        if self.stats.words.get(word, 0) > house_share * self.stats.n:
            return None
        low, cap = self._casing_counts(word, a, b)
        if cap == low:
            return None
        return cap > low

    def line_docs(self, hashes: np.ndarray) -> np.ndarray:
        """As :meth:`CorpusSupport.line_docs`."""
        return self.stats.line_docs(hashes)

    def lines_in_at_least(self, hashes: np.ndarray, n: int) -> np.ndarray:
        """As :meth:`CorpusSupport.lines_in_at_least`."""
        return self.line_docs(hashes) >= n

    def line_sequence(self, doc_id: str) -> np.ndarray | None:
        """The line hashes of a held article's sentences, in order (computed once per
        article, in its :class:`SupportLocal`); None for another article."""
        loc = self._local.get(doc_id)
        return loc.line_seq if loc is not None else None

    def form_lines(self, doc_id: str, min_fills: int, share: float) -> dict[int, int]:
        """A held article's form lines when it is a form item (:func:`form_sentences`);
        {} for another article."""
        loc = self._local.get(doc_id)
        return {} if loc is None else form_lines_of(loc, self.stats, min_fills, share)

    def phrase_support(self, hashes: np.ndarray, a: str, b: str) -> np.ndarray:
        """As :meth:`CorpusSupport.phrase_support`."""
        keys, dfs = self.stats.keys, self.stats.df
        hashes = np.asarray(hashes, dtype=np.uint64)
        if not len(keys) or not len(hashes):
            return np.zeros(len(hashes), dtype=np.int64)
        pos = np.minimum(np.searchsorted(keys, hashes), len(keys) - 1)
        df = np.where(keys[pos] == hashes, dfs[pos], 0).astype(np.int64)
        for own in (a, b):
            loc = self._local.get(own)
            if loc is not None and len(loc.bigrams):
                # its bigrams are sorted and distinct (doc_bigrams): a binary search, not
                # np.isin's sort of the article's every bigram on each call
                b = loc.bigrams
                at = np.minimum(np.searchsorted(b, hashes), len(b) - 1)
                df -= (b[at] == hashes).astype(np.int64)
        return np.maximum(df, 0)
