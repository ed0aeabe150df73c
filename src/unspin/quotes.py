"""Quotations across the corpus: who is quoted, and which articles carry which words.

Every quotation of every doc is indexed with its speaker (a heuristic read of the
attribution around it), then variants of one quotation are grouped across articles,
MemeTracker-style: two quotations are variants when one contains the other (an article
may quote a passage whole where another splits it in two), when they share a run of
``MIN_RUN`` words (and half the shorter quotation), or when their word edit distance is
small for their length. Pairs are only compared when they share a word 4-gram (or,
below four words, the whole quotation), so the corpus is never compared all against all.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import networkx as nx
import regex
from rich.table import Table
from rich.text import Text

from unspin.model import Doc, Quote
from unspin.normalise import edit_distance_within, normalise_text, words

#: shared consecutive words that make two quotations variants (and at least half of
#: the shorter one, so two different quotations of one speech do not chain together)
MIN_RUN = 6
#: a quotation at least this long (words) wholly inside another is a variant of it
MIN_CONTAINED = 4
#: word edit distance allowed, as a share of the shorter quotation
MAX_EDIT = 0.3
#: word n-gram blocking key; a key shared by more distinct quotations is a stock phrase
BLOCK_N, MAX_BLOCK = 4, 200
#: a block of more distinct quotations than this compares a pair only when the two are
#: not already in one group (through pairs compared before): the groups are the same,
#: and a pile that quotes one passage in many wordings costs about linear time, not
#: quadratic. Smaller blocks compare every pair, so that a later run that removes an
#: article finds every verdict it needs kept (:class:`KnownQuotes`).
DENSE_BLOCK = 32

Words = tuple[str, ...]

# ---------------------------------------------------------------- speakers

_SAY = (
    r"(?:said|says|say|told|tells|added|adds|stated|states|explained|noted|wrote|writes|"
    r"tweeted|posted|continued|insisted|argued|warned|claimed|declared|recalled|replied|"
    r"responded|remarked|confirmed|admitted|acknowledged|emphasi[sz]ed|stressed|reiterated|"
    r"announced|asked|urged|hinted|suggested|went on)\b"
)
_NOT_NAME = (
    r"(?!(?:The|A|An|He|She|It|They|We|I|You|Its|His|Her|Their|Our|My|This|That|These|Those|"
    r"But|And|Or|So|In|On|At|"
    r"For|However|When|While|After|Before|As|If|Then|There|Here|Meanwhile|Still|Yet|"
    r"According)\b)"
)
#: a name: a run of words each opening with a capital of any script (\p{Lu}: "Ömer
#: Çelik", "Σάκης", "Иван") (the ``regex`` module, which knows Unicode properties)
_NAME = _NOT_NAME + r"\p{Lu}[\w'’.-]*(?:\s+(?:\p{Lu}[\w'’.-]*|de|van|von|da|del|al|bin))*"
_SOURCE = (
    r"(?:[Aa]n?|[Tt]he|[Oo]ne|[Tt]wo|[Ss]everal|[Aa]nother)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:sources?|officials?|spokes(?:man|woman|person)|aides?|insiders?|advis[eo]rs?|"
    r"staffers?|witness(?:es)?|person|people|officers?|representatives?)\b"
)
_PRONOUN = r"(?:[Hh]e|[Ss]he|[Tt]hey)\b"
#: lower-case role words before a name: "union president Dara Kessling"
_ROLE = r"(?:[a-z][\w-]*\s+){0,3}?"
_NAME_RE = regex.compile(_NAME)  # compiled once (the module cache costs ~8 µs a call)
_SPK = rf"(?:(?P<s>{_SOURCE}|{_PRONOUN})|{_ROLE}(?P<n>{_NAME}))"
#: between a speaker and the verb: ", who voted against,", "close to X", "also"
_ADV = (
    r"(?:,\s+[^,\x00\x01]{1,60},)?"
    r"(?:\s+(?:close to|familiar with|with knowledge of|from|at|in)\s+[^,.;:\x00\x01]{1,50}?)?"
    r"(?:\s+(?:\w+ly|also|then|later))?,?"
)
#: ``Q, Homan said`` / ``Q the unnamed source told the paper``
_AFTER = regex.compile(rf"^\W{{0,4}}{_SPK}{_ADV}\s+{_SAY}")
#: ``Q, said Adams``
_AFTER_INV = regex.compile(rf"^\W{{0,4}}{_SAY}\s+(?:(?P<s>{_SOURCE})|{_ROLE}(?P<n>{_NAME}))")
#: ``Homan said in a radio interview: Q``
_BEFORE = regex.compile(rf"{_SPK}{_ADV}\s+{_SAY}[^\x00\x01]{{0,60}}?[:,]?\W{{0,4}}$")
#: anywhere in the sentence: ``according to X`` or ``X said in a statement``
_ACCORDING = regex.compile(rf"\baccording to (?:(?P<s>{_SOURCE})|{_ROLE}(?P<n>{_NAME}))")
_ANYWHERE = regex.compile(rf"{_SPK}{_ADV}\s+{_SAY}")
_MARKS = "\"“”„‟«»‘’‚‛`'「」『』"
_MASKED = re.compile(rf"[{_MARKS}]*([\x00\x01])[,.;:!?]?[{_MARKS}]*")


def _clean_speaker(s: str) -> str:
    """Drop a possessive and lower-case a leading determiner ("The source" -> "the source")."""
    s = re.sub(r"['’]s?$", "", " ".join(s.split()).rstrip(".,"))
    first, _, rest = s.partition(" ")
    if rest and first.lower() in {"a", "an", "the", "one", "two", "several", "another"}:
        return f"{first.lower()} {rest}"
    return s


def _masked(doc: Doc, start: int, end: int, target: Quote | None) -> str:
    """``text[start:end]`` with the target quotation as ``\\x01``, other quotations as
    ``\\x00`` and the quote marks around them removed."""
    text, out, pos = doc.article.text, [], start
    for q in sorted(doc.quotes, key=lambda q: q.start):
        if q.end <= start or q.start >= end:
            continue
        out += [text[pos : max(pos, q.start)], "\x01" if q is target else "\x00"]
        pos = max(pos, q.end)
    out.append(text[pos:end])
    return _MASKED.sub(r"\1", "".join(out))


def _who(m: re.Match | None) -> str | None:
    return (m.group("s") or m.group("n")) if m else None


def _attribution(text: str) -> str | None:
    """The speaker named anywhere in an unquoted text: ``according to X``, ``X said``."""
    return _who(_ACCORDING.search(text)) or _who(_ANYWHERE.search(text))


def _local_speaker(ctx: str) -> str | None:
    """The speaker of the quotation ``\\x01`` as named in its own sentence(s)."""
    before, _, after = ctx.partition("\x01")
    for rx, part in ((_AFTER, after), (_AFTER_INV, after), (_BEFORE, before)):
        if who := _who(rx.search(part)):
            return who
    return _attribution(f"{before} {after}".replace("\x00", " "))


def _named(who: str | None) -> str | None:
    """A speaker that is not a pronoun, cleaned; None otherwise."""
    return None if who is None or re.fullmatch(_PRONOUN, who) else _clean_speaker(who)


def _last_full_name(text: str) -> str | None:
    """The last name of two or more capitalised words ("Gerald Fenwick") in a text."""
    names = [m.group(0) for m in _NAME_RE.finditer(text) if len(m.group(0).split()) > 1]
    return names[-1] if names else None


def doc_speakers(doc: Doc) -> list[str | None]:
    """The speaker of each of ``doc.quotes`` (same order), or None when unclear.

    Heuristics, in order: an attribution right after or before the quotation in its
    sentence (``"…," Homan said``, ``said Adams``, ``X told the paper``, ``X said:``),
    then ``according to X`` / ``X said …`` anywhere in that sentence. A quotation that
    stands as a sentence of its own takes the speaker of the quotation or attribution
    in the sentence before it (a continued quote, or "The source noted that …"). A
    pronoun (``he said``) resolves to the speaker of a quotation in the sentence
    before, else to an attribution ("Abernathy said …") or the last full name
    ("Gerald Fenwick") in that sentence or before the quotation, else to a speaker
    of the two sentences before that; otherwise it stays None.
    """
    sents, found, out = doc.sentences, {}, []
    for q in doc.quotes:
        idx = [s.index for s in sents if s.start < q.end and s.end > q.start] or [0]
        lo, hi = idx[0], idx[-1]
        ctx = _masked(doc, sents[lo].start, sents[hi].end, q) if sents else "\x01"
        prev = ""
        if lo and not sents[lo - 1].boilerplate:
            prev = _masked(doc, sents[lo - 1].start, sents[lo - 1].end, None).replace("\x00", " ")
        who = _local_speaker(ctx)
        speaker = _named(who)
        if who is None and len(words(ctx.replace("\x00", " "))) < 3:
            speaker = found.get(lo - 1) or _named(_attribution(prev))
        elif who is not None and speaker is None:
            lead = ctx.partition("\x01")[0].replace("\x00", " ")
            speaker = (
                found.get(lo - 1)
                or _named(_attribution(f"{prev} {lead}"))
                or _last_full_name(f"{prev} {lead}")
                or found.get(lo - 2)
                or found.get(lo - 3)
            )
        if speaker:
            found[hi] = speaker
        out.append(speaker)
    return out


# ---------------------------------------------------------------- variants and groups


@dataclass
class QuoteVariant:
    """One article's wording of a quotation (``text`` is ``article_text[start:end]``)."""

    article: str
    start: int
    end: int
    text: str
    speaker: str | None

    def to_record(self) -> dict:
        return asdict(self)


@dataclass
class QuoteGroup:
    """Variants of one quotation across articles.

    ``text`` is the canonical wording (the one most articles carry); ``altered_in``
    lists the articles whose words differ from it (ignoring case, punctuation and quote
    marks). Quoting more or less of the same passage is not alteration: a variant is
    faithful when it is an excerpt of the canonical wording or of a variant containing
    it.
    """

    id: str
    text: str
    variants: list[QuoteVariant]
    articles: list[str]
    altered_in: list[str]
    speaker: str | None

    def to_record(self) -> dict:
        return asdict(self)


def quote_words(text: str) -> Words:
    """The comparison form of a quotation: lowercase words, punctuation and marks dropped."""
    return tuple(words(normalise_text(text)))


def _joined(w: Words) -> str:
    # words hold no control characters: a run of words is a substring of the joined form
    return "\x1f" + "\x1f".join(w) + "\x1f"


def _contains(long: Words, short: Words) -> bool:
    return _joined(short) in _joined(long)


def _shares_run(a: Words, b: Words, n: int) -> bool:
    """Whether ``a`` and ``b`` have ``n`` consecutive words in common (their longest
    common run is at least ``n``), exactly, without comparing every pair of positions:
    any run of ``n`` words of the shorter holds one of its word 4-grams that start at a
    multiple of ``n - 3``; only those are looked up in the longer and grown both ways."""
    n = max(1, n)
    short, long = sorted((a, b), key=len)
    if n > len(short):
        return False
    if n < 4:
        hay = _joined(long)
        return any(_joined(short[j : j + n]) in hay for j in range(len(short) - n + 1))
    hay, starts = _joined(long), None
    for p in range(0, len(short) - 3, n - 3):
        needle = _joined(short[p : p + 4])
        at = hay.find(needle)
        while at >= 0:
            if starts is None:  # the word at each character offset of ``hay``
                starts, pos = {}, 1
                for i, w in enumerate(long):
                    starts[pos] = i
                    pos += len(w) + 1
            q = starts[at + 1]
            back = 0
            while back < min(p, q) and short[p - back - 1] == long[q - back - 1]:
                back += 1
            ahead = 4
            while p + ahead < len(short) and q + ahead < len(long):
                if short[p + ahead] != long[q + ahead]:
                    break
                ahead += 1
            if back + ahead >= n:
                return True
            at = hay.find(needle, at + 1)
    return False


def are_variants(a: Words, b: Words) -> bool:
    """Containment (of ``MIN_CONTAINED`` words or more), a long shared word run, or a
    small word edit distance (between quotations of ``MIN_RUN`` words or more)."""
    short, long = sorted((a, b), key=len)
    if len(short) >= MIN_CONTAINED and _contains(long, short):
        return True
    # a common run of at least max(MIN_RUN, half the shorter) words (runs are whole)
    if _shares_run(a, b, max(MIN_RUN, (len(short) + 1) // 2)):
        return True
    limit = MAX_EDIT * len(short)
    if len(short) < MIN_RUN or len(long) - len(short) > limit:
        return False  # a one-word change in a short phrase makes another phrase
    # every edit leaves a word unmatched: the distance is at least the longer length
    # less the words the two have in common (as multisets), a cheap exact bound first
    if len(long) - sum((Counter(a) & Counter(b)).values()) > limit:
        return False
    return edit_distance_within(a, b, int(limit))  # distances are whole: <= floor(limit)


def block_keys(w: Words) -> set[Words]:
    """A quotation's blocking keys: its word ``BLOCK_N``-grams (below ``BLOCK_N`` words,
    the whole quotation). :func:`quote_groups` compares two quotations only when they
    share one; :func:`may_be_variants` reads them as the 4-grams they are."""
    return {w[j : j + BLOCK_N] for j in range(max(1, len(w) - BLOCK_N + 1))}


def may_be_variants(
    a: Words, b: Words, grams_a: set[Words], grams_b: set[Words], set_a: set, set_b: set
) -> bool:
    """False only where :func:`are_variants` is False, from each quotation's set of word
    4-grams and set of words (computed once per quotation, not per pair): most pairs
    that share a stock 4-gram are told apart here without the string searches.

    Containment puts the shorter's first 4-gram in the longer; a run of ``n`` words holds
    a 4-gram of the shorter starting at a multiple of ``n - 3`` (:func:`_shares_run`); the
    edit distance needs lengths within ``MAX_EDIT`` and, as there, at most ``limit`` words
    of the longer unmatched, of which the distinct shared words plus the shorter's
    repeated ones are an upper bound on the matched."""
    # the order are_variants sorts them in (stable: a first at equal lengths)
    if len(b) < len(a):
        a, b, grams_a, grams_b, set_a, set_b = b, a, grams_b, grams_a, set_b, set_a
    ls, ll = len(a), len(b)
    if ls < min(MIN_CONTAINED, MIN_RUN):
        return False
    limit = MAX_EDIT * ls
    if ls >= MIN_RUN and ll - ls <= limit:
        common = len(set_a & set_b) + (ls - len(set_a))
        if ll - common <= limit:
            return True
    if ls >= MIN_CONTAINED and a[:4] in grams_b:
        return True
    n = max(MIN_RUN, (ls + 1) // 2)
    return n <= ls and any(a[p : p + 4] in grams_b for p in range(0, ls - 3, n - 3))


def index_quotes(
    docs: Sequence[Doc], speakers: Callable[[Doc], list[str | None]] = doc_speakers
) -> list[QuoteVariant]:
    """Every quotation of every doc, with its speaker (``speakers(doc)``: each quotation's,
    as :func:`doc_speakers` gives them; a caller may pass them kept from an earlier run)."""
    return [
        QuoteVariant(d.id, q.start, q.end, q.text, spk)
        for d in docs
        for q, spk in zip(d.quotes, speakers(d))
    ]


def _pair_key(a: Words, b: Words) -> tuple[Words, Words]:
    # :func:`are_variants` is symmetric (containment of the shorter, the longest common
    # run, the edit distance): one kept verdict per unordered pair
    return (a, b) if a <= b else (b, a)


@dataclass
class KnownQuotes:
    """What :func:`quote_groups` works out per quotation and per pair of quotations, kept
    by a caller from one run to the next (a store) so that a run works out only what its
    new quotations bring: each text's comparison words (:func:`quote_words`) and the
    verdict of each pair compared (:func:`are_variants`, by the unordered pair).
    Both are pure functions of their inputs, so a kept entry is the value itself.
    ``used_words`` and ``used_variants`` collect what this run read (what a caller keeps
    for the next: entries of quotations no longer in the pile drop out); ``added``
    counts the entries worked out in this run."""

    words: dict[str, Words] = field(default_factory=dict)
    variants: dict[tuple[Words, Words], bool] = field(default_factory=dict)
    added: int = 0
    used_words: dict[str, Words] = field(default_factory=dict, repr=False)
    used_variants: dict[tuple[Words, Words], bool] = field(default_factory=dict, repr=False)

    def words_of(self, text: str) -> Words:
        w = self.words.get(text)
        if w is None:
            w = self.words[text] = quote_words(text)
            self.added += 1
        self.used_words[text] = w
        return w

    def variant(self, a: Words, b: Words, ruled_out: bool = False) -> bool:
        """The pair's kept verdict, else :func:`are_variants`'s (kept); ``ruled_out``: a
        prefilter (:func:`may_be_variants`) said no, so the verdict is no without the
        rule (kept all the same: an add then finds every verdict it had)."""
        key = _pair_key(a, b)
        v = self.variants.get(key)
        if v is None:
            v = self.variants[key] = False if ruled_out else are_variants(a, b)
            self.added += 1
        self.used_variants[key] = v
        return v

    def kept_verdict(self, a: Words, b: Words) -> bool | None:
        """The kept verdict of the pair (read, so kept for the next run), or None."""
        key = _pair_key(a, b)
        v = self.variants.get(key)
        if v is not None:
            self.used_variants[key] = v
        return v

    def kept(self) -> KnownQuotes:
        """The entries this run read, to keep for the next."""
        return KnownQuotes(dict(self.used_words), dict(self.used_variants))


@dataclass
class QuoteState:
    """What :func:`quote_groups` built in its last run, kept by a long-running caller
    (the service) so that a run on the same docs with more appended to them works out
    only the new quotations: their blocks, their pairs, and the groups they join. A
    group none of whose quotations gained a variant or a variant pair, and none of
    whose articles turned derived or original, is the group it was. ``docs``: the
    docs read, as (id, key) in order, where ``key`` stands for the doc's quotations
    and speakers (a caller's article key)."""

    docs: list[tuple[str, str]]
    min_articles: int
    derived: frozenset[str]
    known: KnownQuotes
    by_words: dict[Words, list[QuoteVariant]]
    texts: list[Words]
    index: dict[Words, int]
    grams: list[set[Words]]
    blocks: dict[Words, list[int]]
    joined: nx.utils.UnionFind
    #: per component's root (a text index): its group (None: fewer articles than asked)
    groups: dict[int, QuoteGroup | None]


def quote_groups(
    docs: Sequence[Doc],
    min_articles: int = 2,
    derived: frozenset[str] = frozenset(),
    speakers: Callable[[Doc], list[str | None]] = doc_speakers,
    known: KnownQuotes | None = None,
    state: dict[str, QuoteState] | None = None,
    keys: Sequence[str] | None = None,
) -> list[QuoteGroup]:
    """Variants of one quotation grouped across articles, most widely carried first.

    Only groups carried by at least ``min_articles`` articles are returned. Articles in
    ``derived`` (known derivatives of another article) count for the canonical wording
    only after every article that is not derived, so a spun copy never sets it.
    ``speakers`` as for :func:`index_quotes`. ``known``: the words and pair verdicts of
    an earlier run (:class:`KnownQuotes`, updated in place): the same groups, with only
    the new quotations' words and pairs worked out. ``state`` (a dict the caller keeps,
    with ``keys``: each doc's key, see :class:`QuoteState`): the last run's work, taken
    up where the docs are the last run's with more appended (else built anew); this
    run's is left in it under ``"last"``.
    """
    last = state.pop("last", None) if state is not None else None
    ids = [(d.id, k) for d, k in zip(docs, keys)] if keys is not None else None
    out = None
    if last is not None and ids is not None and last.min_articles == min_articles:
        out = _groups_appended(docs, ids, last, derived, speakers)
    if out is None:
        known = KnownQuotes() if known is None else known
        # this pass reads every quotation and compared pair of the pile: what it reads is
        # what a caller keeps (a kept state's reads of removed docs drop out here)
        known.used_words.clear()
        known.used_variants.clear()
        st = QuoteState(
            docs=[],
            min_articles=min_articles,
            derived=frozenset(),
            known=known,
            by_words=defaultdict(list),
            texts=[],
            index={},
            grams=[],
            blocks=defaultdict(list),
            joined=nx.utils.UnionFind(),
            groups={},
        )
        out = _groups_appended(docs, ids or [(d.id, "") for d in docs], st, derived, speakers)
        assert out is not None  # nothing kept: nothing to fall back from
        # the state taken up next holds the live entries only, all read (each later run
        # adds its reads to them, so a caller keeps them all)
        words, variants = dict(known.used_words), dict(known.used_variants)
        st.known = KnownQuotes(words, variants, 0, dict(words), dict(variants))
    groups, st = out
    if state is not None and ids is not None:
        state["last"] = st
    return groups


def _groups_appended(
    docs: Sequence[Doc],
    ids: list[tuple[str, str]],
    st: QuoteState,
    derived: frozenset[str],
    speakers: Callable[[Doc], list[str | None]],
) -> tuple[list[QuoteGroup], QuoteState] | None:
    """:func:`quote_groups` from the state ``st`` of a run on the first docs (updated in
    place): None when ``docs`` are not those with more appended, or when a block the new
    quotations join grows past ``MAX_BLOCK`` (its pairs then no longer count)."""
    m = len(st.docs)
    if len(ids) < m or ids[:m] != st.docs:
        return None
    known = st.known
    known.added = 0
    new_variants = index_quotes(docs[m:], speakers)
    touched: set[int] = set()  # texts that gained a variant or a variant pair
    fresh: list[int] = []
    for v in new_variants:
        w = known.words_of(v.text)
        if not w:
            continue
        t = st.index.get(w)
        if t is None:
            t = st.index[w] = len(st.texts)
            st.texts.append(w)
            st.grams.append(block_keys(w))
            st.joined[t]  # a set of its own
            fresh.append(t)
        st.by_words[w].append(v)
        touched.add(t)
    # the blocks the new quotations join, and which of their members are new
    grown: dict[Words, list[int]] = defaultdict(list)
    for t in fresh:
        for k in st.grams[t]:
            grown[k].append(t)
    for k, added in grown.items():
        old = len(st.blocks.get(k, ()))
        if old + len(added) > MAX_BLOCK and 1 < old <= MAX_BLOCK:
            return None  # its pairs were compared and now are not: built anew
    texts, grams, joined = st.texts, st.grams, st.joined
    sets: dict[int, set[str]] = {}

    def word_set(i: int) -> set[str]:
        got = sets.get(i)
        if got is None:
            got = sets[i] = set(texts[i])
        return got

    prefilter = BLOCK_N == 4
    checked: set[tuple[int, int]] = set()
    blocks = st.blocks
    paired = []  # the grown blocks that pair anything (most blocks hold one quotation)
    for k, added in grown.items():
        members = blocks.get(k)
        if members is None:
            members = blocks[k] = added
        else:
            members.extend(added)
        if 1 < len(members) <= MAX_BLOCK:
            paired.append((members, added))
    # smaller blocks first, so that in a dense one most pairs are joined already
    # (skipping them changes no group: the groups are the joined sets)
    paired.sort(key=lambda x: len(x[0]))
    for members, added in paired:
        dense = len(members) > DENSE_BLOCK
        before = members[: len(members) - len(added)]  # the block's members until now
        pairs = ((i, j) for x, j in enumerate(added) for i in (*before, *added[:x]))
        for i, j in pairs:  # each pair with a new text once
            a, b = (i, j) if i < j else (j, i)
            if (a, b) in checked or (dense and joined[a] == joined[b]):
                continue
            checked.add((a, b))
            v = known.kept_verdict(texts[a], texts[b])
            if v is None:
                out = prefilter and not may_be_variants(
                    texts[a], texts[b], grams[a], grams[b], word_set(a), word_set(b)
                )
                v = known.variant(texts[a], texts[b], ruled_out=out)
            if v:
                joined.union(a, b)
    st.docs = list(ids)
    # docs whose derived mark changed: the groups of their quotations are built again
    flipped = derived ^ st.derived
    if flipped:
        for w, vs in st.by_words.items():
            if any(v.article in flipped for v in vs):
                touched.add(st.index[w])
    st.derived = derived
    dirty = {joined[t] for t in touched}
    order = {d.id: (d.article.published_at or "~", i) for i, d in enumerate(docs)}
    kept_groups: dict[int, QuoteGroup | None] = {}
    groups: list[QuoteGroup] = []
    for comp in joined.to_sets():
        root = joined[next(iter(comp))]
        if root in dirty or root not in st.groups:
            g = _group(sorted(comp), st, order, derived)
        else:
            g = st.groups[root]
        kept_groups[root] = g
        if g is not None:
            groups.append(g)
    st.groups = kept_groups
    groups.sort(key=lambda g: (-len(g.articles), order[g.articles[0]], g.variants[0].start))
    gids = [group_id(g.variants) for g in groups]
    twice = {i for i, n in Counter(gids).items() if n > 1}
    for g, i in zip(groups, gids):
        g.id = group_id(g.variants, full=True) if i in twice else i
    return groups, st


def _group(
    forms: list[int], st: QuoteState, order: dict[str, tuple], derived: frozenset[str]
) -> QuoteGroup | None:
    """The group of the quotations ``forms`` (text indices, ascending: one component of
    the variant pairs), or None when fewer than ``st.min_articles`` articles carry it."""
    texts, by_words, known = st.texts, st.by_words, st.known
    variants = [v for i in forms for v in by_words[texts[i]]]
    articles = sorted({v.article for v in variants}, key=order.__getitem__)
    if len(articles) < st.min_articles:
        return None

    def rank(i: int) -> tuple:
        arts = {v.article for v in by_words[texts[i]]}
        originals = arts - derived
        return (-len(originals), -len(arts), min(order[a] for a in arts))

    canon = texts[min(forms, key=rank)]
    whole = [texts[i] for i in forms if _contains(texts[i], canon)]
    variants.sort(key=lambda v: (order[v.article], v.start))
    per_article: dict[str, list[Words]] = defaultdict(list)
    for v in variants:
        per_article[v.article].append(known.words_of(v.text))
    named = {(v.article, v.speaker.lower()): v.speaker for v in variants if v.speaker}
    votes = Counter(s for _, s in named)
    shown = {k[1]: s for k, s in reversed(named.items())}
    return QuoteGroup(
        id="",
        text=min(by_words[canon], key=lambda v: (v.article in derived, order[v.article])).text,
        variants=variants,
        articles=articles,
        altered_in=[
            a
            for a in articles
            if not any(
                _contains(canon, w) or any(_contains(f, w) for f in whole) for w in per_article[a]
            )
        ],
        speaker=shown[votes.most_common(1)[0][0]] if votes else None,
    )


#: hex digits of a quotation group's id after its "q" (:func:`group_id`): 48 bits, so some
#: two of 100,000 groups share one with a chance of about 2 in 100,000 (those two then
#: get all 40)
QUOTE_ID_HEX = 12


def group_id(variants: Sequence[QuoteVariant], full: bool = False) -> str:
    """A quotation group's id: "q" and the first ``QUOTE_ID_HEX`` hex digits (all 40 with
    ``full``) of the SHA-1 of its first variant in (article id, offset) order. The id
    stays while the group keeps that variant, so adding an article leaves the ids of the
    groups it does not join as they were (numbered ids, most widely carried first,
    shifted whenever an add moved one group up the list)."""
    first = min((v.article, v.start) for v in variants)
    h = hashlib.sha1(f"{first[0]}\x00{first[1]}".encode()).hexdigest()
    return "q" + (h if full else h[:QUOTE_ID_HEX])


def _cut(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def render_quotes(groups: Sequence[QuoteGroup], width: int = 70) -> Table:
    """The quotation groups as a table (for ``unspin quotes RESULTS``)."""
    table = Table(show_lines=False)
    for col, kw in (
        ("group", {"no_wrap": True}),
        ("quotation", {}),
        ("speaker", {}),
        ("articles", {"justify": "right"}),
        ("altered in", {}),
    ):
        table.add_column(col, **kw)
    for g in groups:
        table.add_row(
            g.id,
            Text(_cut(g.text, width)),
            Text(g.speaker or "?"),
            str(len(g.articles)),
            Text(", ".join(g.altered_in) or "-"),
        )
    return table
