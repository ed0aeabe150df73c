"""Align stage: sentence alignment between the two articles of a candidate pair.

Sentences are matched on embedding cosine, lifted by lexical overlap, keeping a
match when it is the best for either side (so split and merged sentences align to
their counterpart) and regardless of order (reordered paragraphs). Adjacent matches
merge into passages, across a few garbled or dropped sentences when the gap looks like
the same block, and a passage takes in weaker neighbours at its ends. Matches that touch
boilerplate are dropped; matches that rest on quoted material alone are kept but
flagged, because two outlets quoting the same person is not reuse of each other, unless
they sit inside a reused block (then they are part of it, though not evidence for it).
Passages whose wording agrees while many of their names and figures differ are flagged
too: two items written to one template (earnings notices of two companies) are not
reuse of each other, whereas a copy, a spin or a translation keeps names and figures.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from unspin.model import AlignedPassage, Alignment, Doc, Sentence
from unspin.normalise import (
    NUMBER_WORDS,
    SMALL_FIGURES,
    caps_names,
    caps_words,
    content_words,
    cross_language,
    crosslingual_matching,
    figure_signatures,
    figures,
    names,
    np_sum,
    numbers,
    unquoted_text,
    word_spans,
    words,
)


@dataclass(frozen=True)
class AlignParams:
    """Thresholds of the aligner (validated on construction)."""

    min_score: float = 0.80  # a sentence pair at or above this is "the same passage"
    # the same across languages, where cross-lingual cosines run lower (a faithful
    # translation: median 0.68 Japanese-English, 0.82 Spanish-English on NTREX): a pair
    # that is each other's best match and at least this close (the highest value that
    # types every English-other pair of NTREX half A as a translation)
    min_score_cross: float = 0.45
    strong: float = 0.88  # a match this close counts towards partial reuse
    # ... across languages: where sentences of one document that are not translations of
    # each other (one topic, the same names) stop (1 in 10^5 English-other pairs of
    # NTREX half A at or above it; half of the translations; docs/benchmarks.md)
    strong_cross: float = 0.75
    prefilter: float = 0.55  # cosine below which no lexical check is made
    min_unquoted_words: int = 4  # shorter remainders outside quotes cannot carry reuse
    min_strong_words: int = 6  # shorter sentences (datelines, "he said") prove nothing
    max_gap: int = 1  # unaligned sentences a passage may span anywhere
    bridge_gap: int = 3  # ... and up to this many when the gap looks like the same block
    bridge_chars: int = 160  # a gap this short on both sides is bridged whatever its shape
    bridge_cos: float = 0.45  # a gap of as many sentences on each side: mean cosine in it
    extend_score: float = 0.6  # a neighbour pair this close extends a passage at its ends
    # template: at least this many figures/names of EACH side missing from the other ...
    template_min_slots: int = 2
    # ... making up at least this share of all the passage's figures, or of all its names
    template_share: float = 0.5
    # names alone: ... while this share of word 3-grams agree, figures and names blanked
    template_frame: float = 0.6  # as copy_verbatim: the frame is copied, the slots are not
    # two long texts: up to this many sentence pairs (sentences of a times sentences of b)
    # every pair is scored, which covers news articles (500 sentences a side); beyond
    # it the alignment is blocked, so time and memory grow with n + m, not n * m ...
    max_cells: int = 250_000
    # ... each sentence's long_top_k closest sentences of the other side by cosine (both
    # ways) are the candidates for its best match; other pairs are scored only when a
    # passage reaches them (its neighbours); cosines are computed max_cells at a time
    long_top_k: int = 5
    # a sentence of at least min_strong_words words found in at least this many articles
    # of the pile (the pair's own included; corpus.line_key: case, spacing, quotes and
    # final punctuation ignored) is a stock line (a credit line such as "X is technology
    # correspondent for ...", a wire's standard footer) wherever the two articles hold it
    # in different surroundings: boilerplate for that pair's evidence (stock_lines). Five:
    # above the three or four articles a follow-up story's background line reaches in
    # BBC News, at the seven that one columnist's credit line reaches there
    stock_min_docs: int = 5
    # wire forms (corpus.frame_key: a line with its figures and names blanked): a frame
    # the pile fills in at least form_min_fills different ways is a form line; an article
    # whose form lines are at least form_share of its content is a form item (a dividend
    # notice, an earnings table). Two form items whose aligned form lines differ in their
    # fill in at least form_diff_share of them (and at least once) are one form filled in
    # for two items: those lines are template passages, not reuse evidence. Fewer
    # differences (a corrected re-issue of one item: one line of a four-line notice;
    # one in three differing, as a fund notice with another payout, is two items)
    # leave them evidence. A line the pile holds word for word in form_min_fills
    # articles ("Pay March 31") is a form line too.
    form_min_fills: int = 5
    form_share: float = 0.5
    form_diff_share: float = 0.33
    # series (a daily market report, a rate table, a price notice on another day or at
    # another hour): the same lines written again with other figures. Of the aligned
    # sentence pairs whose two sentences have one frame with figures in it
    # (corpus.frame_key: words equal once figures, dates and names are blanked), at least
    # series_share (and at least series_min_lines) carry other figures (by value): the
    # pair is two items of one series: never a whole copy, and its passages of such
    # lines (more of them than lines keeping their figures) are template. A copy, a spin
    # or a corrected re-issue keeps the figures of lines it writes the same way (an
    # edited copy changes one here and there). The share was set reading Reuters
    # articles 12,001-15,500 (docs/benchmarks.md).
    series_share: float = 0.5
    series_min_lines: int = 1
    # an edited copy is no series: where the shorter text has at least
    # series_edit_min_words words (normalise.words) and one of the two whole texts
    # states fewer than series_min_own_figures figures (small counts aside) that the
    # other never states, the lines with other figures are one figure edited in a copy
    # (an age, a count), not another day's item: a longer item of a series written
    # again changes more of its figures. Set on Reuters 6,001-9,500, 12,001-15,500 and
    # 15,501-19,000 (every pair it would move there is a notice of at most 100 words)
    # and on edited copies of NTREX articles (docs/benchmarks.md, session 62);
    # series_min_own_figures 0 turns it off
    series_min_own_figures: int = 2
    series_edit_min_words: int = 120
    # a series reworded: when True, aligned lines count as carrying other figures (and
    # as keeping them) in any wording, not only when their frames match, provided each
    # of the two lines has figures the other lacks ("one" as a word only with a 1 in
    # digits beside it: the pronoun, "BBC One"; a rewrite that drops figures, or
    # adds a converted one beside the kept ones, is not another item); within one
    # language only (a translation keeps its figures). Reuters series are often written
    # again in other words (the money market on two days, a tender a week later).
    series_reworded: bool = True
    # languages whose figures the series, template and form checks compare as written
    # (:func:`unspin.normalise.figures`, "77,000" == 77000, "five" == 5); in every other
    # language they compare by their digits (:func:`unspin.normalise.figure_signatures`):
    # number formats there vary between writers of one language ("77.000" and "77 ألف",
    # "25.000" and "25 000", "2万5000" and "25.000"), and one figure written two ways
    # made a whole rewrite "two items of one series" (docs/benchmarks.md, session 35)
    exact_figure_langs: tuple[str, ...] = ("en",)

    def __post_init__(self) -> None:
        for name in (
            "min_score",
            "min_score_cross",
            "strong",
            "strong_cross",
            "prefilter",
            "bridge_cos",
            "template_share",
            "template_frame",
            "form_share",
            "form_diff_share",
            "series_share",
        ):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"AlignParams.{name} must be in [0, 1], got {v}")
        # (across languages the lexical lift is moot: scores there are cosines)
        if self.prefilter > self.min_score:
            raise ValueError("AlignParams.prefilter must not exceed min_score")
        if not self.prefilter <= self.extend_score <= 1.0:
            raise ValueError("AlignParams.extend_score must be in [prefilter, 1]")
        if self.bridge_gap < self.max_gap:
            raise ValueError("AlignParams.bridge_gap must not be below max_gap")
        if self.template_min_slots < 1:
            raise ValueError("AlignParams.template_min_slots must be >= 1")
        if self.series_min_lines < 1:
            raise ValueError("AlignParams.series_min_lines must be >= 1")
        if self.series_min_own_figures < 0 or self.series_edit_min_words < 0:
            raise ValueError(
                "AlignParams.series_min_own_figures and series_edit_min_words must be >= 0"
            )
        if self.max_cells < 1 or self.long_top_k < 1:
            raise ValueError("AlignParams.max_cells and long_top_k must be >= 1")
        if self.stock_min_docs < 2:
            raise ValueError("AlignParams.stock_min_docs must be >= 2 (a line in two articles)")
        if self.form_min_fills < 2:
            raise ValueError("AlignParams.form_min_fills must be >= 2 (a frame filled in twice)")


def stock_lines(a: Doc, b: Doc, support: Any, p: AlignParams) -> tuple[Doc, Doc]:
    """The two docs with the stock lines they share marked as boilerplate (copies; the
    given docs are not changed).

    A stock line is a sentence of at least ``min_strong_words`` words that both hold,
    that the pile finds in at least ``stock_min_docs`` articles
    (``support.lines_in_at_least(hashes, n)``, e.g.
    :meth:`unspin.corpus.SupportView.lines_in_at_least`), and that has no neighbouring
    sentence in one article that is next to it in the other: a line repeated across the
    pile, not a passage one took from the other (a reused block carries its neighbours
    along; copies and syndicated versions of one text hold every line in the same
    surroundings, however many there are). A line with no neighbour in one of them (the
    whole text) is never a stock line. ``support`` without ``lines_in_at_least`` (or
    None): no pile, nothing marked. ``support.line_sequence(id)``, when there, gives each
    doc's line hashes computed once per article.
    """
    from unspin.corpus import line_hashes

    in_at_least = getattr(support, "lines_in_at_least", None)
    if in_at_least is None or not a.sentences or not b.sentences:
        return a, b
    seq = getattr(support, "line_sequence", lambda _id: None)
    ha, hb = seq(a.id), seq(b.id)
    ha = line_hashes(a) if ha is None else ha
    hb = line_hashes(b) if hb is None else hb
    # sets of the few line hashes of two articles (numpy's intersect1d and isin cost
    # ~20x as much on arrays this short)
    la, lb = ha.tolist(), hb.tolist()
    common = set(la).intersection(lb)
    if not common:
        return a, b

    def long(doc: Doc, hs: list[int]) -> set[int]:
        return {
            h
            for k, h in enumerate(hs)
            if h in common
            and not doc.sentences[k].boilerplate
            and len(words(doc.sentences[k].text)) >= p.min_strong_words
        }

    shared = sorted(long(a, la) & long(b, lb))
    if not shared:
        return a, b
    often = in_at_least(np.array(shared, dtype=np.uint64), p.stock_min_docs)
    frequent = [h for h, f in zip(shared, often) if f]

    def around(hs: np.ndarray, h: int) -> tuple[list[int], set[int]]:
        at = [int(k) for k in np.flatnonzero(hs == np.uint64(h))]
        near = {int(hs[k + d]) for k in at for d in (-1, 1) if 0 <= k + d < len(hs)}
        return at, near - {h}

    mark_a: set[int] = set()
    mark_b: set[int] = set()
    for h in frequent:
        at_a, near_a = around(ha, h)
        at_b, near_b = around(hb, h)
        if near_a and near_b and not near_a & near_b:
            mark_a.update(at_a)
            mark_b.update(at_b)

    def marked(doc: Doc, idx: set[int]) -> Doc:
        if not idx:
            return doc
        sents = [replace(x, boilerplate=True) if x.index in idx else x for x in doc.sentences]
        return replace(doc, sentences=sents)

    return marked(a, mark_a), marked(b, mark_b)


def dice(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return 2 * len(sa & sb) / (len(sa) + len(sb))


def containment(a: list[str], b: list[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / min(len(sa), len(sb))


def _kgram_share(wa: list[str], wb: list[str], k: int) -> float:
    """Share of the shorter token list's k-grams found in the other (equality when either
    is shorter than k)."""
    if len(wa) < k or len(wb) < k:
        return float(wa == wb)
    ga, gb = _kgram_set(wa, k), _kgram_set(wb, k)
    return len(ga & gb) / min(len(ga), len(gb))


def _kgram_set(ws: list[str], k: int) -> frozenset[tuple[str, ...]]:
    """The k-grams of a token list (empty when it is shorter than k)."""
    return frozenset(tuple(ws[i : i + k]) for i in range(len(ws) - k + 1))


def verbatim(a: str, b: str, k: int = 3) -> float:
    """Share of the shorter text's word k-grams found in the other (1.0 = copied)."""
    return _kgram_share(words(a), words(b), k)


#: texts whose names (:func:`_names`) are kept: a template check reads a text's names
#: twice (its slots, then its frame)
NAMES_MEMO = 4
_NAMES: dict[tuple[str, int], tuple[Any, set[str]]] = {}


def _names(text: str, casing: Casing | None) -> frozenset[str] | set[str]:
    """:func:`unspin.normalise.names` with ``caps=True``, the last ``NAMES_MEMO`` texts
    kept (for the very same ``casing``); the set is read, never changed."""
    key = (text, id(casing))
    got = _NAMES.get(key)
    if got is not None and got[0] is casing:
        return got[1]
    out = caps_names(text) if casing is None else names(text, caps=True, casing=casing)
    _NAMES[key] = (casing, out)
    while len(_NAMES) > NAMES_MEMO:
        del _NAMES[next(iter(_NAMES))]
    return out


def _frame(text: str, casing: Casing | None = None) -> list[str]:
    """The text's words with its figures and name words blanked: a template's frame."""
    nms = {w.removesuffix("'s") for w in _names(text, casing)}
    nums = numbers(text)
    out = []
    for w in words(text):
        bare = w.removesuffix("'s")
        figure = w in nums or w.isdigit() or w in NUMBER_WORDS
        out.append("#" if figure else "@" if bare in nms else w)
    return out


def frame_kgrams(text: str, k: int = 3) -> frozenset[tuple[str, ...]]:
    """The word k-grams of ``text``'s frame (:func:`_frame`: figures and names blanked),
    computed once per article where many pairs compare it (the story stage's
    ``StoryParams.items_frame``); empty when the frame has fewer than ``k`` words."""
    return _kgram_set(_frame(text), k)


def kgram_set_share(ga: frozenset, gb: frozenset) -> float:
    """:func:`frame_agreement` from two texts' :func:`frame_kgrams`: the share of the
    smaller set found in the other (0 when either is empty)."""
    if not ga or not gb:
        return 0.0
    if len(ga) > len(gb):
        ga, gb = gb, ga
    return len(ga & gb) / len(ga)


def frame_agreement(a: str, b: str, k: int = 3, casing: Casing | None = None) -> float:
    """Share of the shorter text's word k-grams, figures and names blanked, found in the
    other: a template filled in twice agrees almost everywhere once its slots are blanked;
    a translation or a spin rewords the frame too. ``casing`` as in :func:`slot_mismatch`."""
    return _kgram_share(_frame(a, casing), _frame(b, casing), k)


#: a corpus's verdict on how a lower-cased word is written inside sentences: True
#: capitalised (a name), False lower case, None unknown
Casing = Callable[[str], bool | None]


class Slots(NamedTuple):
    """Figures and names of two aligned texts, and how many of each side the other lacks."""

    fig_a: int  # a's figures missing from b
    fig_b: int  # b's figures missing from a
    figs: int  # figures of both sides
    name_a: int  # a's names missing from b
    name_b: int
    names: int

    def __add__(self, other: tuple) -> Slots:  # type: ignore[override]
        return Slots(*(x + y for x, y in zip(self, other)))


def _name_runs(text: str, name_words: set[str]) -> set[str]:
    """Names as phrases: runs of consecutive name words ("East Midlands" is one name).

    In an all-caps stretch (a wire title) there is no casing to tell where a name ends, so
    a run would join a company's name to the rare words of the template around it ("ACME
    QTLY"): there each name word counts on its own."""
    runs: set[str] = set()
    cur: list[str] = []
    caps = caps_words(text)
    for w, c in [*zip(words(text), caps), ("", False)]:
        w = w.removesuffix("'s")
        if w and w in name_words and not c:
            cur.append(w)
            continue
        if cur:
            runs.add(" ".join(cur))
            cur = []
        if w and w in name_words:
            runs.add(w)
    return runs


def name_lost(name: str, other: set[str]) -> bool:
    """A name is lost when most of its words are missing from the other side (machine
    translation may render "Mr Kennedy" as "Gentleman Kennedy": the name is kept)."""
    ws = name.split()
    return 2 * sum(w not in other for w in ws) > len(ws)


def slot_mismatch(
    ta: str,
    tb: str,
    casing: Casing | None = None,
    figs: Callable[[str], frozenset[str]] = figures,
) -> Slots:
    """Figures and names of two aligned texts that the other side lacks.

    Figures as :func:`unspin.normalise.figures` finds them (spelled-out figures and
    fractions count, "five" == 5), name words as :func:`~unspin.normalise.names` with
    ``caps=True`` (in an all-caps title the rare words; months and weekdays are not names);
    the texts hold one sentence a line. Names are counted as phrases (runs of name words;
    in an all-caps title each word on its own), and a name is kept when the other side has
    at least half of its words as any words (they may open a sentence there); possessives
    are compared bare.

    ``casing``: how the corpus writes a word inside its sentences
    (:meth:`unspin.corpus.CorpusSupport.casing`, the two articles left out). An all-caps
    title hides it, and English frequency misreads names made of common words
    ("PREMIER", "OHIO") and template words rare in English ("DEBENTURES"); where the
    corpus tells, it decides (:func:`unspin.normalise.names`). Without it, as above.
    ``figs``: how figures are read (:func:`figures_for`: by their digits outside
    ``AlignParams.exact_figure_langs``).
    """

    def bare(ws: set[str] | list[str]) -> set[str]:  # "Google's" keeps the name "Google"
        return {w.removesuffix("'s") for w in ws}

    na, nb = figs(ta), figs(tb)
    ma = _name_runs(ta, bare(_names(ta, casing)))
    mb = _name_runs(tb, bare(_names(tb, casing)))
    wa, wb = bare(words(ta)), bare(words(tb))
    lost_a = sum(name_lost(m, wb) for m in ma)
    lost_b = sum(name_lost(m, wa) for m in mb)
    return Slots(len(na - nb), len(nb - na), len(na) + len(nb), lost_a, lost_b, len(ma) + len(mb))


def figure_slots(ta: str, tb: str) -> Slots:
    """:func:`slot_mismatch` for texts in two languages: figures only, compared by
    :func:`unspin.normalise.figure_signatures` (names are written in other scripts and
    forms, so they are not compared)."""
    na, nb = figure_signatures(ta), figure_signatures(tb)
    return Slots(len(na - nb), len(nb - na), len(na) + len(nb), 0, 0, 0)


def is_template(s: Slots, p: AlignParams, frame: float = 1.0) -> bool:
    """Whether aligned text differing in these figures and names reads as one template
    filled in twice rather than as reuse.

    A template swaps its figures, or its names, on both sides: at least
    ``template_min_slots`` of them a side, and at least ``template_share`` of all its
    figures (or of all its names), while the words around them agree. A short notice has
    too few of either, so figures and names also count together when at least one figure
    a side is swapped. An edited copy changes a figure or a name here and there (one a
    side, or a small share of all); a spin or a translation keeps the figures, and the
    names too, except that a translation may render a name its own way ("UK think-tank
    Demos" -> "United Kingdom thinks-tank Give"): swapped names alone make a template only
    when the ``frame`` (:func:`frame_agreement`) is at least ``template_frame``.
    """

    def swapped(only_a: int, only_b: int, n: int) -> bool:
        return min(only_a, only_b) >= p.template_min_slots and only_a + only_b >= (
            p.template_share * n
        )

    return (
        swapped(s.fig_a, s.fig_b, s.figs)
        or (swapped(s.name_a, s.name_b, s.names) and frame >= p.template_frame)
        or (
            min(s.fig_a, s.fig_b) >= 1
            and swapped(s.fig_a + s.name_a, s.fig_b + s.name_b, s.figs + s.names)
        )
    )


def _templates(a: Doc, b: Doc, passages: list[AlignedPassage], p: AlignParams) -> list[bool]:
    """Which passages are template fill-ins (:func:`is_template`): each on its own, then
    the remaining reuse passages together (a template split by a reordered or dropped
    line into several passages, each with too few slots to tell)."""

    def text(doc: Doc, idx: list[int]) -> str:
        # one sentence a line: a sentence without a full stop (a title) still ends there,
        # so the next one's opening word is not taken for a name
        return "\n".join(doc.sentences[i].text for i in idx)

    # a translation renders names its own way ("Estados Unidos"), and number formats
    # ("3,5"): across languages figures are compared by their digits alone
    figs = figures_for(a.lang, p)
    slots = figure_slots if cross_language(a, b) else lambda x, y: slot_mismatch(x, y, None, figs)
    none = Slots(0, 0, 0, 0, 0, 0)

    def frame(idx: list[int]) -> float:
        ta = "\n".join(text(a, passages[k].a_sentences) for k in idx)
        tb = "\n".join(text(b, passages[k].b_sentences) for k in idx)
        return frame_agreement(ta, tb)

    counts: list[Slots] = []
    out: list[bool] = []
    for k, x in enumerate(passages):  # a passage's slots, then its frame (names read once)
        c = slots(text(a, x.a_sentences), text(b, x.b_sentences)) if not x.quote_only else none
        counts.append(c)
        out.append(x.template or (not x.quote_only and is_template(c, p, frame([k]))))
    rest = [k for k, x in enumerate(passages) if not x.quote_only and not out[k]]
    if len(rest) > 1:
        total = sum((counts[k] for k in rest), none)
        if is_template(total, p, frame(rest)):
            for k in rest:
                out[k] = True
    return out


def _quote_only(sa: Sentence, sb: Sentence, ta: str, tb: str, p: AlignParams) -> bool:
    """Whether a matched sentence pair rests on a quotation alone: one of them is mostly
    quoted and what their writers wrote around it is short or not alike. A word both
    frames hold that either writes capitalised is left out of the likeness: it names the
    speaker or the body quoted ("..., Trump said in a statement accompanying his veto"
    and "..., Trump wrote in explaining his veto"), which any two reports of one
    quotation share. Leaving shared words out never makes two frames more alike."""
    if max(sa.quoted_share, sb.quoted_share) < 0.5:
        return False
    fa, fb = unquoted_text(sa, ta), unquoted_text(sb, tb)
    ra, rb = content_words(fa), content_words(fb)
    if len(ra) < p.min_unquoted_words or len(rb) < p.min_unquoted_words:
        return True
    # a word both share that either capitalises is no evidence either way: out of both
    neutral = set(ra) & set(rb) & (_capitalised(fa) | _capitalised(fb))
    return dice([w for w in ra if w not in neutral], [w for w in rb if w not in neutral]) < 0.5


def _capitalised(text: str) -> set[str]:
    """The words (as :func:`unspin.normalise.words` gives them) that ``text`` writes
    with a capital (any script with case; a script without case has none)."""
    return {w for w, (s, _) in zip(words(text), word_spans(text)) if text[s].isupper()}


class _Dense:
    """Sentence-pair ``(score, cosine, lexical)`` for every pair (texts of up to
    ``max_cells`` pairs); lexical only above the prefilter."""

    def __init__(self, a: Doc, b: Doc, p: AlignParams) -> None:
        cos = np.clip(a.sentence_vectors @ b.sentence_vectors.T, 0.0, 1.0)  # float error past 1
        score = cos.copy()
        lex = np.zeros_like(cos)
        near = cos >= p.prefilter
        if near.any():
            # :func:`_lexical` of every pair at once (templated lines pass the prefilter
            # all with all: 250,000 pairs in Python cost 2.3 s); the same float64 values,
            # then the same float32 steps as ``max(cos, 0.5 * cos + 0.5 * lx)`` per pair
            lx = _lexical_near(a.tokens, b.tokens, near)
            lex[near] = lx[near]
            mixed = np.float32(0.5) * cos + (0.5 * lx).astype(np.float32)
            score[near] = np.where(mixed > cos, mixed, cos)[near]
        self.score, self.cos, self.lex = score, cos, lex
        self.best_j = score.argmax(axis=1)
        self.best_i = score.argmax(axis=0)

    def at(self, i: int, j: int) -> tuple[float, float, float]:
        return float(self.score[i, j]), float(self.cos[i, j]), float(self.lex[i, j])

    def above(self, t: float) -> list[tuple[int, int]]:
        return [(int(i), int(j)) for i, j in zip(*np.nonzero(self.score >= t))]

    def accepted(self, t: float, cross: bool) -> list[tuple[int, int, float, float, float]]:
        """:func:`_accepted` on the matrices (the same pairs in the same order; templated
        lines put every pair above the bar: 250,000 pairs read one by one)."""
        hit = self.score >= t
        n, m = hit.shape
        best_j = np.zeros_like(hit)
        best_j[np.arange(n), self.best_j] = True
        best_i = np.zeros_like(hit)
        best_i[self.best_i, np.arange(m)] = True
        keep = hit & (best_j | best_i)
        if cross:
            mutual = np.pad(hit & best_j & best_i, 1)
            near = np.zeros_like(hit)
            for di in (0, 1, 2):
                for dj in (0, 1, 2):
                    near |= mutual[di : di + n, dj : dj + m]
            keep &= near
        return [
            (int(i), int(j), float(self.score[i, j]), float(self.cos[i, j]), float(self.lex[i, j]))
            for i, j in zip(*np.nonzero(keep))
        ]


def _lexical(a: Doc, b: Doc, i: int, j: int) -> float:
    return max(dice(a.tokens[i], b.tokens[j]), 0.8 * containment(a.tokens[i], b.tokens[j]))


def _lexical_matrix(ta: Sequence[Sequence[str]], tb: Sequence[Sequence[str]]) -> np.ndarray:
    """:func:`_lexical` of every sentence pair, ``(len(ta), len(tb))`` float64 (the same
    values: shared distinct tokens counted by a sparse product, then the same division)."""
    from scipy.sparse import csr_matrix

    vocab: dict[str, int] = {}
    ids_a = [{vocab.setdefault(t, len(vocab)) for t in ts} for ts in ta]
    ids_b = [{vocab.setdefault(t, len(vocab)) for t in ts} for ts in tb]

    def incidence(ids: list[set[int]]) -> tuple[csr_matrix, np.ndarray]:
        sizes = np.array([len(r) for r in ids], np.int64)
        ptr = np.concatenate([[0], np.cumsum(sizes)])
        cols = np.fromiter((c for r in ids for c in sorted(r)), np.int64, count=int(ptr[-1]))
        m = csr_matrix((np.ones(len(cols)), cols, ptr), shape=(len(ids), max(1, len(vocab))))
        return m, sizes.astype(np.float64)

    (ma, na), (mb, nb) = incidence(ids_a), incidence(ids_b)
    both = (ma @ mb.T).toarray()
    la, lb = na[:, None], nb[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.maximum(2 * both / (la + lb), 0.8 * (both / np.minimum(la, lb)))
    out[(la == 0) | (lb == 0)] = 0.0
    return out


#: most sentence pairs above the prefilter whose lexical overlap :func:`_lexical_near`
#: counts pair by pair (set intersections); above it, one sparse product of the texts
#: (templated lines put every pair above the prefilter). Either way the same values:
#: the choice is cost only (a sparse product costs ~0.7 ms a text pair in scipy's
#: checks, an intersection of two sentences' tokens ~0.3 us)
LEX_PAIRWISE_MAX = 2048


def _lexical_near(
    ta: Sequence[Sequence[str]], tb: Sequence[Sequence[str]], near: np.ndarray
) -> np.ndarray:
    """``np.where(near, _lexical_matrix(ta, tb), 0.0)``, the same float64 values: where
    few pairs are ``near`` their shared distinct tokens are counted by set intersections
    (the sentences of those pairs only), then divided as :func:`_lexical_matrix` does."""
    ri, cj = np.nonzero(near)
    if len(ri) > LEX_PAIRWISE_MAX:
        return np.where(near, _lexical_matrix(ta, tb), 0.0)
    out = np.zeros(near.shape, dtype=np.float64)
    if not len(ri):
        return out
    rows, cols = ri.tolist(), cj.tolist()
    sa = {i: set(ta[i]) for i in set(rows)}
    sb = {j: set(tb[j]) for j in set(cols)}
    n = len(rows)
    both = np.fromiter((len(sa[i] & sb[j]) for i, j in zip(rows, cols)), np.float64, count=n)
    la = np.fromiter((len(sa[i]) for i in rows), np.float64, count=n)
    lb = np.fromiter((len(sb[j]) for j in cols), np.float64, count=n)
    with np.errstate(divide="ignore", invalid="ignore"):
        val = np.maximum(2 * both / (la + lb), 0.8 * (both / np.minimum(la, lb)))
    val[(la == 0) | (lb == 0)] = 0.0
    out[ri, cj] = val
    return out


def _lexical_sets(sa: set[str], sb: set[str]) -> float:
    """:func:`_lexical` of two sentences' token sets (the same value)."""
    if not sa or not sb:
        return 0.0
    both = len(sa & sb)
    return max(2 * both / (len(sa) + len(sb)), 0.8 * (both / min(len(sa), len(sb))))


def _top_k(va: np.ndarray, vb: np.ndarray, k: int, cells: int) -> list[tuple[int, int]]:
    """For each row of ``va``, the ``k`` rows of ``vb`` with the highest cosine; the
    cosines are computed ``cells`` at a time."""
    k = min(k, len(vb))
    out: list[tuple[int, int]] = []
    step = max(1, cells // max(1, len(vb)))
    for r0 in range(0, len(va), step):
        c = va[r0 : r0 + step] @ vb.T
        top = np.argpartition(-c, k - 1, axis=1)[:, :k] if k < len(vb) else None
        for r in range(len(c)):
            cols = top[r] if top is not None else range(len(vb))
            out.extend((r0 + r, int(j)) for j in cols)
    return out


class _Blocked:
    """``_Dense`` for two long texts, without the n * m matrices: the candidates for
    each sentence's best match are its ``long_top_k`` nearest by cosine both ways, and
    any other pair is scored when asked for (the same formula)."""

    def __init__(self, a: Doc, b: Doc, p: AlignParams) -> None:
        self.a, self.b, self.p = a, b, p
        # each sentence's tokens as a set once (``_lexical`` builds them per pair)
        self.sa, self.sb = [set(t) for t in a.tokens], [set(t) for t in b.tokens]
        va, vb = a.sentence_vectors, b.sentence_vectors
        cand = set(_top_k(va, vb, p.long_top_k, p.max_cells))
        cand.update((i, j) for j, i in _top_k(vb, va, p.long_top_k, p.max_cells))
        self.cache: dict[tuple[int, int], tuple[float, float, float]] = {}
        best_j: dict[int, tuple[float, int]] = {}
        best_i: dict[int, tuple[float, int]] = {}
        for i, j in sorted(cand):
            sc = self.at(i, j)[0]
            if sc > best_j.get(i, (-1.0, 0))[0]:  # first of equals, as argmax
                best_j[i] = (sc, j)
            if sc > best_i.get(j, (-1.0, 0))[0]:
                best_i[j] = (sc, i)
        self.cand = sorted(cand)
        self.best_j = {i: j for i, (_, j) in best_j.items()}
        self.best_i = {j: i for j, (_, i) in best_i.items()}

    def at(self, i: int, j: int) -> tuple[float, float, float]:
        got = self.cache.get((i, j))
        if got is None:
            cos = float(min(1.0, max(0.0, self.a.sentence_vectors[i] @ self.b.sentence_vectors[j])))
            lx = _lexical_sets(self.sa[i], self.sb[j]) if cos >= self.p.prefilter else 0.0
            got = self.cache[(i, j)] = (max(cos, 0.5 * cos + 0.5 * lx), cos, lx)
        return got

    def above(self, t: float) -> list[tuple[int, int]]:
        return [(i, j) for i, j in self.cand if self.cache[(i, j)][0] >= t]


class _Swapped:
    """A :class:`_Blocked` of ``(a, b)`` read as that of ``(b, a)``: the same scores
    (cosine and lexical overlap are symmetric, the candidates are taken both ways)."""

    def __init__(self, m: _Blocked) -> None:
        self.m, self.best_j, self.best_i = m, m.best_i, m.best_j

    def at(self, i: int, j: int) -> tuple[float, float, float]:
        return self.m.at(j, i)

    def above(self, t: float) -> list[tuple[int, int]]:
        return sorted((j, i) for i, j in self.m.above(t))


#: blocked scores (:class:`_Blocked`) of the last ``LONG_MEMO`` long pairs, kept for the
#: next stage that asks for the same two docs' sentences (the alignment, then the change
#: extraction: two long near-copies scored once, not twice); reused only for the very
#: same vectors and tokens, either way round
LONG_MEMO = 2
_LONG: list[_Blocked] = []


def _blocked(a: Doc, b: Doc, p: AlignParams) -> _Blocked | _Swapped:
    """:class:`_Blocked` scores of the pair, from ``_LONG`` when it holds them."""

    def same(x: Doc, y: Doc) -> bool:
        return x.sentence_vectors is y.sentence_vectors and x.tokens is y.tokens

    for m in _LONG:
        if m.p == p and same(m.a, a) and same(m.b, b):
            return m
        if m.p == p and same(m.a, b) and same(m.b, a):
            return _Swapped(m)
    m = _Blocked(a, b, p)
    _LONG.insert(0, m)
    del _LONG[LONG_MEMO:]
    return m


def _scores(a: Doc, b: Doc, p: AlignParams) -> _Dense | _Blocked | _Swapped:
    """Sentence-pair scores: every pair, or blocked for two long texts (``max_cells``)."""
    if a.sentence_vectors is None or b.sentence_vectors is None:
        raise ValueError("align needs embedded docs (run fingerprint first)")
    if len(a.sentences) * len(b.sentences) <= p.max_cells:
        return _Dense(a, b, p)
    return _blocked(a, b, p)


def _accepted(a: Doc, b: Doc, p: AlignParams, m) -> list[tuple[int, int, float, float, float]]:
    cross = cross_language(a, b)
    if hasattr(m, "accepted"):  # the dense scorer reads its matrices at once
        return m.accepted(p.min_score_cross if cross else p.min_score, cross)
    hits = list(m.above(p.min_score_cross if cross else p.min_score))
    # best for either side (a split or merged sentence matches its parts); across
    # languages, where the bar is lower, for both sides, or for one side next to such a
    # pair on both sides (a translation that splits a long sentence in two: the part
    # that is not the other's best sits beside the part that is)
    mutual = {(i, j) for i, j in hits if m.best_j[i] == j and m.best_i[j] == i}
    out = []
    for i, j in hits:
        either = m.best_j[i] == j or m.best_i[j] == i
        if cross:
            near = any((i + di, j + dj) in mutual for di in (-1, 0, 1) for dj in (-1, 0, 1))
            either = either and near
        if either:
            out.append((i, j, *m.at(i, j)))
    return out


def sentence_matches(a: Doc, b: Doc, p: AlignParams) -> list[tuple[int, int, float, float, float]]:
    """Accepted sentence pairs ``(i, j, score, cosine, lexical)``."""
    if a.sentence_vectors is None or b.sentence_vectors is None:
        raise ValueError("align needs embedded docs (run fingerprint first)")
    if not len(a.sentences) or not len(b.sentences):
        return []
    return _accepted(a, b, p, _scores(a, b, p))


#: a sentence pair inside a passage: i, j, score, cosine, lexical, quote-only, core
#: (core: an accepted match; not core: a neighbour taken in at a passage end)
_Item = tuple[int, int, float, float, float, bool, bool]


def _gap(a: Doc, b: Doc, x: _Item, y: _Item) -> tuple[list[Sentence], list[Sentence]] | None:
    """The unaligned sentences between two items on each side (None: not forward on both)."""
    if not (x[0] <= y[0] and x[1] <= y[1] and (x[0], x[1]) != (y[0], y[1])):
        return None
    return a.sentences[x[0] + 1 : y[0]], b.sentences[x[1] + 1 : y[1]]


def _same_block(a: Doc, b: Doc, x: _Item, y: _Item, p: AlignParams) -> bool:
    """Whether ``y`` continues the passage that ends with ``x``.

    The next sentence on either side (splits, merges) or across ``max_gap`` unaligned
    sentences always does. A wider gap, up to ``bridge_gap`` sentences, does when it is
    plausibly a rewritten or garbled stretch of the same reused block: as many sentences
    on both sides that still resemble each other (mean cosine of the facing pairs at least
    ``bridge_cos``), or at most ``bridge_chars`` characters on both sides.
    """
    g = _gap(a, b, x, y)
    if g is None:
        return False
    ga, gb = g
    if any(s.boilerplate for s in ga + gb):
        return False
    if len(ga) <= p.max_gap and len(gb) <= p.max_gap:
        return True
    if len(ga) > p.bridge_gap or len(gb) > p.bridge_gap:
        return False
    if sum(len(s.text) for s in ga) <= p.bridge_chars >= sum(len(s.text) for s in gb):
        return True
    if len(ga) != len(gb) or a.sentence_vectors is None or b.sentence_vectors is None:
        return False
    va = a.sentence_vectors[[s.index for s in ga]]
    vb = b.sentence_vectors[[s.index for s in gb]]
    return float(np.mean(np.sum(va * vb, axis=1))) >= p.bridge_cos


def _extend(a: Doc, b: Doc, g: list[_Item], m, taken, p: AlignParams) -> list[_Item]:
    """Take in the neighbouring sentence pair at either end while it is close enough.

    A block's first and last sentences are often the ones a rewrite or machine translation
    garbles most; their position next to the block is the evidence the score lacks.
    """
    ta, tb = taken
    na, nb = len(a.sentences), len(b.sentences)

    def ok(i: int, j: int) -> bool:
        if not (0 <= i < na and 0 <= j < nb):
            return False
        if i in ta or j in tb or a.sentences[i].boilerplate or b.sentences[j].boilerplate:
            return False
        here = m.at(i, j)[0]
        if here < p.extend_score:
            return False
        # and each other's best among the neighbours (no sentence slid in beside it)
        return here >= max(m.at(i, y)[0] for y in range(max(0, j - 1), min(nb, j + 2))) and (
            here >= max(m.at(x, j)[0] for x in range(max(0, i - 1), min(na, i + 2)))
        )

    def item(i: int, j: int) -> _Item:
        sa, sb = a.sentences[i], b.sentences[j]
        q = _quote_only(sa, sb, a.article.text, b.article.text, p)
        return (i, j, *m.at(i, j), q, False)

    first, last = min(g, key=lambda x: (x[0], x[1])), max(g, key=lambda x: (x[0], x[1]))
    head: list[_Item] = []
    i, j = first[0] - 1, first[1] - 1
    while ok(i, j):
        head.insert(0, item(i, j))
        ta.add(i)
        tb.add(j)
        i, j = i - 1, j - 1
    tail: list[_Item] = []
    i, j = last[0] + 1, last[1] + 1
    while ok(i, j):
        tail.append(item(i, j))
        ta.add(i)
        tb.add(j)
        i, j = i + 1, j + 1
    return head + g + tail


def _groups(a: Doc, b: Doc, matches, p: AlignParams, m=None) -> list[list[_Item]]:
    """Sentence matches grouped into passages (reused blocks): diagonal runs, splits,
    merges, bridged gaps; with the score matrices ``m``, extended at both ends."""
    ta, tb = a.article.text, b.article.text
    items: list[_Item] = []
    for i, j, sc, cs, lx in sorted(matches):
        sa, sb = a.sentences[i], b.sentences[j]
        if sa.boilerplate or sb.boilerplate:
            continue
        items.append((i, j, sc, cs, lx, _quote_only(sa, sb, ta, tb, p), True))
    groups: list[list[_Item]] = []
    for it in items:
        # a quotation matched inside a reused block is part of the block; the block
        # counts as reuse unless every match in it rests on quotations alone
        if groups and _same_block(a, b, groups[-1][-1], it, p):
            groups[-1].append(it)
        else:
            groups.append([it])
    if m is None or not groups:
        return groups
    taken = ({x[0] for x in items}, {x[1] for x in items})
    groups = [_extend(a, b, g, m, taken, p) if not all(x[5] for x in g) else g for g in groups]
    merged: list[list[_Item]] = [groups[0]]
    for g in groups[1:]:  # extending may have narrowed a gap enough to bridge it
        if _same_block(a, b, merged[-1][-1], g[0], p):
            merged[-1].extend(g)
        else:
            merged.append(g)
    return merged


def _passage(a: Doc, b: Doc, g: list[_Item]) -> AlignedPassage:
    ai = sorted({x[0] for x in g})
    bj = sorted({x[1] for x in g})
    wts = [len(a.sentences[x[0]].text) + len(b.sentences[x[1]].text) for x in g]
    avg = _weighted_means(g, wts)
    return AlignedPassage(
        a_start=a.sentences[ai[0]].start,
        a_end=a.sentences[ai[-1]].end,
        b_start=b.sentences[bj[0]].start,
        b_end=b.sentences[bj[-1]].end,
        score=float(avg[0]),
        semantic=float(avg[1]),
        lexical=float(avg[2]),
        a_sentences=ai,
        b_sentences=bj,
        quote_only=all(x[5] for x in g),
    )


def _weighted_means(g: list[_Item], wts: list[int]) -> tuple[float, float, float]:
    """Weighted means of the items' score, cosine and lexical overlap: what
    ``np.average(rows, axis=0, weights=wts)`` gives, to the last bit (column sums of the
    weighted rows added in row order), in Python: a passage has a few items, and the
    arrays cost more than the sums."""
    scl = float(np_sum([float(w) for w in wts]))
    s0 = s1 = s2 = 0.0
    for k, (x, w) in enumerate(zip(g, wts)):
        p0, p1, p2 = float(x[2]) * w, float(x[3]) * w, float(x[4]) * w
        if k:
            s0, s1, s2 = s0 + p0, s1 + p1, s2 + p2
        else:
            s0, s1, s2 = p0, p1, p2
    return s0 / scl, s1 / scl, s2 / scl


def _core_score(a: Doc, b: Doc, core: list[_Item]) -> float:
    wts = [len(a.sentences[x[0]].text) + len(b.sentences[x[1]].text) for x in core]
    # np.average(scores, weights=wts), the same sums in Python
    return np_sum([float(x[2]) * w for x, w in zip(core, wts)]) / np_sum([float(w) for w in wts])


def _coverage(doc: Doc, idx: set[int]) -> float:
    content = [s for s in doc.sentences if not s.boilerplate]
    total = sum(len(s.text) for s in content)
    if not total:
        return 0.0
    return sum(len(s.text) for s in content if s.index in idx) / total


def _own_run(doc: Doc, spans: list[tuple[int, int]]) -> int:
    """Characters in the longest run of content sentences outside every passage span."""
    best = run = 0
    n = len(doc.sentences)
    marks = [0] * (n + 1)  # +1 at lo, -1 past hi (a list: a few dozen sentences)
    for lo, hi in spans:
        marks[max(0, lo)] += 1
        marks[min(n, hi + 1)] -= 1
    inside, depth = [], 0
    for m in marks:
        depth += m
        inside.append(depth)
    for s in doc.sentences:
        if s.boilerplate:
            continue
        if inside[s.index] > 0:
            run = 0
        else:
            run += len(s.text)
            best = max(best, run)
    return best


def _order(pairs: list[tuple[int, int]]) -> float:
    """Share of matched pairs on the longest order-preserving chain (1.0 = same order)."""
    if len(pairs) < 2:
        return 1.0
    return len(in_order_chain(pairs)) / len(pairs)


def in_order_chain(
    pairs: Sequence[tuple[int, int]],
    units_a: Sequence[int] | None = None,
    units_b: Sequence[int] | None = None,
) -> list[tuple[int, int]]:
    """The longest chain of matched sentence pairs that keeps both texts' order.

    ``units_a`` / ``units_b`` name each sentence's unit (default: its own): sentences of
    one text that read the same (a page that prints each line twice) are one unit, so the
    chain is over units, and a unit's copies do not count against it. A translation
    follows its source sentence by sentence: nearly all of both texts sit on one such
    chain (a sentence split in two puts both parts on it). Two independent reports of one
    event in two languages retell the same facts in their own order and grouping: across
    languages, where the aligner's bar is low, many of their sentences match, but fewer
    lie on one chain (:func:`chain_features`)."""
    import bisect

    pts = sorted(
        {
            (i if units_a is None else units_a[i], j if units_b is None else units_b[j])
            for i, j in pairs
        }
    )
    tails: list[int] = []  # the smallest last unit of b of a chain of each length
    ends: list[int] = []  # ... and that chain's last point (index in pts)
    prev = [-1] * len(pts)
    for k, (_, j) in enumerate(pts):
        at = bisect.bisect_right(tails, j)  # non-decreasing in b (pts sorted by a, then b)
        prev[k] = ends[at - 1] if at else -1
        tails[at : at + 1] = [j]
        ends[at : at + 1] = [k]
    out = []
    k = ends[-1] if ends else -1
    while k >= 0:
        out.append(pts[k])
        k = prev[k]
    return out[::-1]


#: texts whose sentence units are kept (:func:`sentence_units`): a doc meets every pair it
#: is in, pairs of one doc are worked one after another
UNITS_CACHE = 4_096


def sentence_units(d: Doc) -> tuple[int, ...]:
    """Each sentence's unit: sentences of the text that read the same (case and spacing
    aside) share one. Per text once (kept by the sentences' texts), not per pair."""
    return _units_of(tuple(x.text for x in d.sentences))


@lru_cache(maxsize=UNITS_CACHE)
def _units_of(texts: tuple[str, ...]) -> tuple[int, ...]:
    seen: dict[str, int] = {}
    return tuple(seen.setdefault(" ".join(t.lower().split()), len(seen)) for t in texts)


def _distinct_text(d: Doc, idx: set[int]) -> set[int]:
    """``idx`` less each sentence of the same unit (:func:`sentence_units`: the same text,
    case and spacing aside) as an earlier one of ``idx``."""
    units = sentence_units(d)
    first: dict[int, int] = {}
    for i in sorted(idx):
        first.setdefault(units[i], i)
    return set(first.values())


def chain_features(
    a: Doc, b: Doc, matches: Sequence[tuple[int, int, float, float, float]], strong: float
) -> dict[str, float]:
    """The in-order chain of two texts' matched sentences (:func:`in_order_chain`):
    ``chain``, the lower of the two texts' shares of their units on it; ``chain_sents``,
    the lower of the two counts; ``chain_strong``, its pairs scoring at least ``strong``."""
    ua, ub = sentence_units(a), sentence_units(b)
    if not matches or not ua or not ub:
        return {"chain": 0.0, "chain_sents": 0.0, "chain_strong": 0.0, "chain_min": 0.0}
    best: dict[tuple[int, int], float] = {}
    for i, j, score, *_ in matches:
        key = (ua[i], ub[j])
        best[key] = max(best.get(key, 0.0), score)
    ch = in_order_chain([(i, j) for i, j, *_ in matches], ua, ub)
    rows, cols = len({x for x, _ in ch}), len({y for _, y in ch})
    return {
        "chain": min(rows / (max(ua) + 1), cols / (max(ub) + 1)),
        "chain_sents": float(min(rows, cols)),
        "chain_strong": float(sum(best[x] >= strong for x in ch)),
        "chain_min": float(min((best[x] for x in ch), default=0.0)),
    }


def content_lines(d: Doc) -> str:
    """The doc's content, one sentence a line (boilerplate left out): a sentence without
    a full stop (a title) still ends there, so the next one's opening word is not taken
    for a name."""
    return "\n".join(x.text for x in d.sentences if not x.boilerplate)


#: per doc of a pair, its form lines (sentence index -> frame hash), as
#: :func:`unspin.corpus.form_sentences` gives them ({} for an article that is no form item)
Forms = tuple[dict[int, int], dict[int, int]]


def form_split(
    a: Doc,
    b: Doc,
    groups: list[list[_Item]],
    forms: Forms | None,
    p: AlignParams,
    casing: Casing | None = None,
) -> tuple[list[list[_Item]], list[bool], int]:
    """Passages (item groups) split into runs of form-line matches and the rest, with a
    flag per run: True for a run of form lines filled in for another item (template);
    and what the pair is: 2 one form filled in for two items, 1 two form items of one
    form whose fills and names agree (a re-issue), 0 else.

    A match is a form-line match when both its sentences are form lines of one frame. The
    pair is one form filled in twice when, of the frames both texts fill in, at least
    ``form_diff_share`` (and at least one) are filled in with other figures (by value)
    or names, or when each whole text has a name the other lacks (:func:`slot_mismatch`,
    ``casing`` as there: whose notice it is, which the headline may hold outside the
    form); otherwise (no forms, an identical or corrected
    re-issue) the groups come back unchanged."""
    from unspin.corpus import frame_key

    flags = [False] * len(groups)
    if not forms or not forms[0] or not forms[1]:
        return groups, flags, 0
    fa, fb = forms

    def is_form(x: _Item) -> bool:
        f = fa.get(x[0])
        return f is not None and f == fb.get(x[1])

    def fills(doc: Doc, form: dict[int, int]) -> dict[int, set[tuple]]:
        # a fill is what goes into the slots: its figures by value ("16-1/2" == "16.5")
        # and its name words
        out: dict[int, set[tuple]] = {}
        for k, f in form.items():
            text = doc.sentences[k].text
            if {"#", "@"} & set(frame_key(text).split()):  # a line with slots to fill
                slots = (tuple(sorted(figures(text))), tuple(sorted(caps_names(text))))
                out.setdefault(f, set()).add(slots)
        return out

    # whether the slots agree: per frame both hold, the same fill or not (over the whole
    # texts, not only the lines the aligner matched); lines without a figure or name to
    # fill in (a sign-off, "Year") cannot tell
    ga, gb = fills(a, fa), fills(b, fb)
    shared = ga.keys() & gb.keys()
    if not shared:
        return groups, flags, 0
    diff = sum(ga[f] != gb[f] for f in shared)
    if not diff or diff < p.form_diff_share * len(shared):
        s = slot_mismatch(content_lines(a), content_lines(b), casing)
        if min(s.name_a, s.name_b) < 1:  # no name swapped for another
            return groups, flags, 1
    out: list[list[_Item]] = []
    flags = []
    for g in groups:
        run: list[_Item] = []
        cur = False
        for x in g:
            f = is_form(x)
            if run and f != cur:
                out.append(run)
                flags.append(cur)
                run = []
            run.append(x)
            cur = f
        if run:
            out.append(run)
            flags.append(cur)
    return out, flags, 2


def series_lines(
    a: Doc, b: Doc, groups: list[list[_Item]], p: AlignParams
) -> tuple[int, int, list[bool]]:
    """Aligned sentence pairs of one frame with figures (:func:`unspin.corpus.frame_key`):
    how many carry the same figures (by value), how many mostly other figures, each line
    with one the other whole text never states (:func:`_figures_of_its_own`); and per
    group whether its lines that differ so outnumber its lines with figures kept (in any
    wording): a series' line, not a copied passage with one figure edited. Quotation-only
    matches and neighbours taken in at a passage's ends are not counted. Pure: reads the
    two texts only.

    Frames are built only where they can matter (a line's frame is the costly part: it
    finds the names): for lines whose figures differ, and then for lines that keep their
    figures only as far as :func:`is_series` needs them (the same-frame ones are counted
    until the pair can no longer be a series). A copy with no figure changed builds none."""
    from unspin.corpus import frame_key

    def same_frame(ta: str, tb: str) -> bool:
        fk = frame_key(ta)
        return "#" in fk.split() and fk == frame_key(tb)

    # in other words only within one language: a translation keeps its figures, and
    # one edited figure in a short translated text must not make it another item
    reworded = p.series_reworded and a.lang == b.lang
    figs = figures_for(a.lang, p)
    differ = 0
    flags = []
    keep: list[tuple[str, str]] = []  # lines that keep their figures, for the agree count
    whole: dict[str, frozenset[str]] = {}  # each text's figures, read when a line differs
    for g in groups:
        kept = changed = 0
        for x in g:
            if x[5] or not x[6]:
                continue
            ta, tb = a.sentences[x[0]].text, b.sentences[x[1]].text
            fa, fb = figs(ta), figs(tb)
            if fa == fb:
                if fa:  # the same figures; lines without any cannot tell
                    kept += 1
                    keep.append((ta, tb))
            elif (
                2 * len(fa & fb) < len(fa | fb)
                and ((reworded and _own_figures(ta, tb, figs)) or same_frame(ta, tb))
                and _figures_of_its_own(fa - fb, b, figs, whole)
                and _figures_of_its_own(fb - fa, a, figs, whole)
            ):
                # most of the line's figures are others (a corrected figure among kept
                # ones, "70 cts vs 70" -> "70 cts vs 75", is an edit, not another item)
                changed += 1
                differ += 1
        flags.append(changed > kept)
    if differ >= p.series_min_lines and _an_edit(a, b, figs, whole, p):
        # one figure edited in a copy, not another item: no series
        return 0, 0, [False] * len(flags)
    agree = 0
    if differ >= p.series_min_lines:
        for ta, tb in keep:
            if not is_series(agree, differ, p):
                break
            agree += reworded or same_frame(ta, tb)
    return agree, differ, flags


def _an_edit(
    a: Doc,
    b: Doc,
    figs: Callable[[str], frozenset[str]],
    whole: dict[str, frozenset[str]],
    p: AlignParams,
) -> bool:
    """Whether two texts whose lines carry other figures are one text with a figure
    edited (``AlignParams.series_edit_min_words``): the shorter has at least that many
    words and one of them states fewer than ``series_min_own_figures`` figures the
    other never states, small counts (:data:`SMALL_FIGURES`) aside. Two items of a
    series each carry figures of their own; an edited copy carries the one it changed."""
    need = p.series_min_own_figures
    if need == 0:
        return False
    fa, fb = _text_figures(a, figs, whole), _text_figures(b, figs, whole)
    if len(fa - fb - SMALL_FIGURES) >= need and len(fb - fa - SMALL_FIGURES) >= need:
        return False
    return min(_n_words(a), _n_words(b)) >= p.series_edit_min_words


def _n_words(d: Doc) -> int:
    """The words of a doc's sentences (:func:`unspin.normalise.words`)."""
    return sum(len(words(s.text)) for s in d.sentences)


def _figures_of_its_own(
    extra: frozenset[str],
    other: Doc,
    figs: Callable[[str], frozenset[str]],
    whole: dict[str, frozenset[str]],
) -> bool:
    """Whether a line's figures that the aligned line lacks include one that the whole
    ``other`` text never states, or are all small counts (:data:`SMALL_FIGURES`, which
    any text may state somewhere): another item's own figures. A rewrite moves figures
    between sentences (a condensed one merges two lines and keeps a total the source
    gives further on); another day's report states figures of its own."""
    if not extra - SMALL_FIGURES:
        return True
    return bool(extra - _text_figures(other, figs, whole))


def _text_figures(
    d: Doc, figs: Callable[[str], frozenset[str]], whole: dict[str, frozenset[str]]
) -> frozenset[str]:
    """Every figure a text states, read once per pair (``whole``, keyed by doc id)."""
    if d.id not in whole:
        whole[d.id] = frozenset().union(*(figs(s.text) for s in d.sentences))
    return whole[d.id]


def figures_for(lang: str, p: AlignParams) -> Callable[[str], frozenset[str]]:
    """How two texts in ``lang`` compare figures: as written (:func:`figures`) in
    ``p.exact_figure_langs``, else by their digits (:func:`unspin.normalise.figure_signatures`)."""
    return figures if lang in p.exact_figure_langs else figure_signatures


def _own_figures(ta: str, tb: str, figs: Callable[[str], frozenset[str]] = figures) -> bool:
    """Whether each of two lines has a figure the other lacks, "one" as a word left out
    unless the line also writes 1 in digits, and the two differ in a figure written in
    digits: a line of another item in other words ("4.03 billion dlrs" / "4.96 billion
    dlrs", "six pct" / "6-3/16 pct"), not the pronoun or the name read as a figure ("one
    of the core battlegrounds", "BBC One" against "£178m") nor one amount in two
    counting words ("three million" / "thirty lakh")."""

    if figs is not figures:  # by their digits: "77.000" and "77 ألف" are one figure
        fa, fb = figs(ta), figs(tb)
        return bool(fa - fb) and bool(fb - fa)

    def own(t: str) -> frozenset[str]:
        f = figures(t)
        return f - {"1"} if "1" in f and "1" not in numbers(t) else f

    fa, fb = own(ta), own(tb)
    return bool(fa - fb) and bool(fb - fa) and bool(numbers(ta) ^ numbers(tb))


def is_series(agree: int, differ: int, p: AlignParams) -> bool:
    """Whether two texts are two items of one series (``AlignParams.series_share``)."""
    return differ >= p.series_min_lines and differ >= p.series_share * (agree + differ)


def align(
    a: Doc,
    b: Doc,
    params: AlignParams | None = None,
    forms: Forms | None = None,
    casing: Casing | None = None,
) -> Alignment:
    """Align two docs and compute the features the classifier reads.

    ``forms``: the two docs' form lines in their pile, and ``casing`` how the pile writes
    a word (:func:`form_split`); None without a pile."""
    p = params or AlignParams()
    if a.sentence_vectors is None or b.sentence_vectors is None:
        raise ValueError("align needs embedded docs (run fingerprint first)")
    groups: list[list[_Item]] = []
    # across languages the encoder does not cover, cosines say nothing: no passages
    if len(a.sentences) and len(b.sentences) and crosslingual_matching(a, b):
        m = _scores(a, b, p)
        matches = _accepted(a, b, p, m)
        groups = _groups(a, b, matches, p, m)
    else:
        matches = []
    groups, form_flags, form_pair = form_split(a, b, groups, forms, p, casing)
    # two items of one series: not a whole copy (classify); its passages of lines with
    # other figures are template, but a passage that also keeps figures of the source
    # stays evidence (an edited figure in a copied passage is a change, not a series)
    agree, differ, series_flags = series_lines(a, b, groups, p)
    series = is_series(agree, differ, p)
    if series:
        form_flags = [f or s for f, s in zip(form_flags, series_flags)]
    passages = [_passage(a, b, g) for g in groups]
    for x, f in zip(passages, form_flags):
        x.template = f
    for x, t in zip(passages, _templates(a, b, passages, p)):
        x.template = t
    reuse = [x for x in passages if x.is_evidence]
    ia = {i for x in reuse for i in x.a_sentences}
    jb = {j for x in reuse for j in x.b_sentences}
    ia_all = {i for x in passages for i in x.a_sentences}
    jb_all = {j for x in passages for j in x.b_sentences}
    verb = []
    for x in reuse:
        sa = " ".join(a.sentences[i].text for i in x.a_sentences)
        sb = " ".join(b.sentences[j].text for j in x.b_sentences)
        verb.append((verbatim(sa, sb), len(sa) + len(sb)))
    w = sum(n for _, n in verb) or 1
    pair_idx = [(i, j) for i, j, *_ in matches if i in ia and j in jb]
    longest = max((len(x.a_sentences) + len(x.b_sentences) for x in reuse), default=0) / 2
    # evidence of reuse: the accepted matches of a passage that do not rest on quotations
    # (quotations and neighbours taken in at the ends widen a passage, not the evidence)
    core = [
        [x for x in g if x[6] and not x[5]] if not t.template else []
        for g, t in zip(groups, passages)
    ]
    # evidence of partial reuse: core matches as close as a copy's (or, across
    # languages, a faithful translation's), never a passage's length alone
    bar = p.strong_cross if cross_language(a, b) else p.strong
    strong = [c for c in core if c and _core_score(a, b, c) >= bar]
    sa = {
        x[0] for c in strong for x in c if len(words(a.sentences[x[0]].text)) >= p.min_strong_words
    }
    sb = {
        x[1] for c in strong for x in c if len(words(b.sentences[x[1]].text)) >= p.min_strong_words
    }
    # a sentence a page repeats word for word (a scrape that doubles each line) is one
    # piece of evidence, not two
    sa, sb = _distinct_text(a, sa), _distinct_text(b, sb)
    feats = {
        "cov_a": _coverage(a, ia),
        "cov_b": _coverage(b, jb),
        "cov_a_with_quotes": _coverage(a, ia_all),
        "cov_b_with_quotes": _coverage(b, jb_all),
        "n_passages": float(len(reuse)),
        "n_quote_only": float(sum(x.quote_only for x in passages)),
        "n_template": float(sum(x.template for x in passages)),
        # two form items of one wire form (form_split), and whether their fills differ
        "form_items": float(form_pair >= 1),
        "form_pair": float(form_pair == 2),
        # two items of one series: lines of one frame carrying other figures
        "series": float(series),
        "n_sent_a": float(len(ia)),
        "n_sent_b": float(len(jb)),
        "longest_run": float(longest),
        "strong_sents": float(min(len(sa), len(sb))),
        "strong_chars": float(
            min(
                sum(len(a.sentences[i].text) for i in sa), sum(len(b.sentences[j].text) for j in sb)
            )
        ),
        "verbatim": sum(v * n for v, n in verb) / w,
        # the wording kept in the strong sentences alone (word 3-grams, as ``verbatim``):
        # one reused sentence is read by its own words, not its passage's neighbours
        "strong_verbatim": verbatim(
            " ".join(a.sentences[i].text for i in sorted(sa)),
            " ".join(b.sentences[j].text for j in sorted(sb)),
        )
        if sa and sb
        else 0.0,
        # np.mean of each, the same sums in Python
        "semantic": np_sum([x.semantic for x in reuse]) / len(reuse) if reuse else 0.0,
        "lexical": np_sum([x.lexical for x in reuse]) / len(reuse) if reuse else 0.0,
        "order": _order(pair_idx),
        "doc_sim": float(a.doc_vector @ b.doc_vector) if a.doc_vector is not None else 0.0,
        # the longest stretch of each article's own text (not inside a reused passage)
        "own_run_a": float(_own_run(a, [(x.a_sentences[0], x.a_sentences[-1]) for x in reuse])),
        "own_run_b": float(_own_run(b, [(x.b_sentences[0], x.b_sentences[-1]) for x in reuse])),
    }
    if cross_language(a, b):
        # how much of both texts one in-order chain of matched sentences holds, and how
        # close its pairs are: what tells a translation from two reports of one event
        feats.update(chain_features(a, b, matches, p.strong_cross))
        if a.brief_vector is not None and b.brief_vector is not None:
            # a brief beside the other text in the second encoder's space: a second
            # opinion where one or two sentences match only moderately (classify)
            feats["brief_sim"] = float(a.brief_vector @ b.brief_vector)
    return Alignment(a=a.id, b=b.id, passages=passages, features=feats)
