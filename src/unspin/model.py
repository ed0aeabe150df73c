"""The data model: plain dataclasses that every pipeline stage reads and writes.

Data flows one way: ``Article`` (ingest) -> ``Doc`` (normalise + fingerprint) ->
``Alignment`` (align, per candidate pair) -> ``Relation`` (classify) -> ``Story``.
Everything a report or service renders is reachable from ``Result`` as plain data
(``to_record`` gives JSON-ready dicts; see docs/schema.md).
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

SCHEMA_VERSION = "1.5"


def key_json(parts: list[Any]) -> str:
    """``json.dumps(parts, ensure_ascii=False)`` of a list of strings and Nones, built
    from the C string encoder directly (the hashed keys of every article of the pile
    are made on each add; ~30% less per key than going through ``JSONEncoder``). Any
    other value: ``json.dumps`` itself. The same text either way."""
    import json
    from json.encoder import encode_basestring

    out = []
    for p in parts:
        if p is None:
            out.append("null")
        elif type(p) is str:
            out.append(encode_basestring(p))
        else:
            return json.dumps(parts, ensure_ascii=False)
    return "[" + ", ".join(out) + "]"


#: The relation types, strongest reuse first.
RELATIONS = ("duplicate", "copy", "spun", "translation", "partial", "same_story", "related")
#: Relations that mean one text was made from the other (they carry source/derivative).
REUSE_RELATIONS = ("duplicate", "copy", "spun", "translation", "partial")


@dataclass
class Article:
    """One input article as read, before any processing.

    ``input`` and ``location`` say where it came from (file path, and line/record
    number inside a multi-record file) so errors and results can point back to it.
    """

    id: str
    text: str
    title: str | None = None
    url: str | None = None
    outlet: str | None = None
    published_at: str | None = None  # ISO 8601 as given (validated at ingest)
    lang: str | None = None  # as declared by the input; detected language is on Doc
    input: str = ""
    location: str = ""
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class InputError:
    """An input (or part of one) that could not be used, and why."""

    input: str
    location: str
    reason: str
    #: "error": the record was skipped; "warning": it was processed, with this caveat
    severity: str = "error"

    def to_record(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Sentence:
    """A sentence as a span of its article's text (``text[start:end]``)."""

    index: int
    start: int
    end: int
    text: str
    boilerplate: bool = False
    #: character spans (relative to the article text) of quoted material inside it
    quotes: list[tuple[int, int]] = field(default_factory=list)
    #: share of the sentence's letters that lie inside quotation marks
    quoted_share: float = 0.0


@dataclass
class Quote:
    """Text inside quotation marks, any style, with its offsets into the article."""

    start: int
    end: int
    text: str


@dataclass
class Doc:
    """An article with everything the pipeline computed for it (like spaCy's Doc).

    Fingerprints are filled by :mod:`unspin.fingerprint`; later stages only read.
    """

    article: Article
    sentences: list[Sentence]
    lang: str
    lang_confidence: float
    norm_hash: str  # hash of the normalised body text, for exact duplicates
    quotes: list[Quote] = field(default_factory=list)
    #: (n_sentences, dim) float32, L2-normalised; rows follow ``sentences``
    sentence_vectors: np.ndarray | None = None
    doc_vector: np.ndarray | None = None
    minhash: list[int] | None = None
    #: content tokens per sentence (lowercased, for lexical overlap)
    tokens: list[list[str]] = field(default_factory=list)
    #: salient keys for story clustering: entities, numbers, dates (lowercased)
    keys: list[str] = field(default_factory=list)
    #: whether the sentence encoder covers the article's language, so that it can be
    #: matched against articles in other languages (None: the encoder does not say)
    cross_lingual: bool | None = None
    #: the second encoder's vectors (:mod:`unspin.second`), set per scan only where it
    #: is needed: the lead's (centred, 1-d), the sentences' (rows follow ``sentences``)
    #: and the document's; None elsewhere (never stored with the doc)
    second_lead: np.ndarray | None = None
    second_vectors: np.ndarray | None = None
    second_doc_vector: np.ndarray | None = None
    #: a brief's whole text in the second encoder's space (centred), set per scan for the
    #: briefs of cross-language candidate pairs (:func:`unspin.second.brief_vectors`)
    brief_vector: np.ndarray | None = None

    @functools.cached_property
    def id(self) -> str:
        """The article's id (kept on the doc once read: a doc's article is never
        replaced, and a pass over a pile reads it hundreds of thousands of times)."""
        return self.article.id

    @property
    def content_sentences(self) -> list[Sentence]:
        return [s for s in self.sentences if not s.boilerplate]

    def sentence_counts(self) -> tuple[int, int]:
        """How many sentences, and how many of them boilerplate (the articles table's
        counts; a doc read from a store counts them without building its sentences)."""
        return len(self.sentences), sum(s.boilerplate for s in self.sentences)


def compared_text(doc: Doc) -> str:
    """The part of ``doc``'s text that is compared with other articles: for an article
    cut at ``FingerprintParams.max_sentences`` sentences (marked by
    :func:`unspin.fingerprint.prepare` or :func:`unspin.fingerprint.mark_cuts`), its text
    up to the end of its last kept sentence; the whole text of every other article (the
    same string object, so whatever an uncut article's facts are read from is unchanged)."""
    end = doc.__dict__.get("_compared_end")
    text = doc.article.text
    return text if end is None else text[:end]


@dataclass
class AlignedPassage:
    """A pair of aligned spans (one or more consecutive sentences on each side)."""

    a_start: int
    a_end: int
    b_start: int
    b_end: int
    score: float  # combined similarity in [0, 1]
    semantic: float  # embedding cosine
    lexical: float  # word overlap in [0, 1]
    a_sentences: list[int] = field(default_factory=list)
    b_sentences: list[int] = field(default_factory=list)
    quote_only: bool = False  # the match rests on quoted material alone
    template: bool = False  # wording agrees, many names and figures differ: not reuse

    @property
    def is_evidence(self) -> bool:
        """Whether the passage counts as reuse (not resting on quotations alone, not one
        template filled in twice)."""
        return not self.quote_only and not self.template

    def to_record(self) -> dict[str, Any]:
        return {
            "a_start": self.a_start,
            "a_end": self.a_end,
            "b_start": self.b_start,
            "b_end": self.b_end,
            "score": round(self.score, 4),
            "semantic": round(self.semantic, 4),
            "lexical": round(self.lexical, 4),
            "quote_only": self.quote_only,
            "template": self.template,
        }


@dataclass
class Alignment:
    """All aligned passages of one candidate pair plus the features derived from them."""

    a: str
    b: str
    passages: list[AlignedPassage]
    features: dict[str, float]


@dataclass
class Relation:
    """Exactly one relation per related pair (``a`` < ``b``)."""

    a: str
    b: str
    relation: str
    confidence: float
    source: str | None = None
    derivative: str | None = None
    direction_reason: str | None = None
    coverage: dict[str, float] = field(default_factory=dict)
    alignment: list[AlignedPassage] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    features: dict[str, float] = field(default_factory=dict)
    #: filled by ``unspin.compare`` only (a scan lists changes in ``Result.changes``)
    changes: list[Change] = field(default_factory=list)
    #: what each named piece of evidence contributed to the type and the direction
    #: (:class:`unspin.evidence.Contribution`)
    evidence: list[Any] = field(default_factory=list)

    def to_record(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "relation": self.relation,
            "confidence": round(self.confidence, 4),
            "source": self.source,
            "derivative": self.derivative,
            "direction_reason": self.direction_reason,
            "coverage": {k: round(v, 4) for k, v in self.coverage.items()},
            "alignment": [p.to_record() for p in self.alignment],
            "reasons": self.reasons,
            "features": {k: round(float(v), 4) for k, v in self.features.items()},
            "evidence": [e.to_record() for e in self.evidence],
        }


#: kinds of change from a source to its derivative, most serious first
CHANGE_KINDS = (
    "quote_altered",
    "quote_added",
    "entity_changed",
    "number_changed",
    "date_changed",
    "negation_flipped",
    "qualifier_dropped",
    "qualifier_added",
    "attribution_changed",
    "sentence_dropped",
    "sentence_added",
)


@dataclass
class Change:
    """One difference between a source and its derivative, with both spans.

    Spans are character offsets into each article's text; a side is ``None`` when the
    change has nothing there (a dropped or added sentence). When the pair's direction is
    unknown, ``directed`` is False and ``source``/``derivative`` are only the pair's first
    and second article: the differences are listed, not who made them.
    """

    source: str
    derivative: str
    kind: str
    severity: str  # "high" | "medium" | "low"
    source_span: tuple[int, int] | None
    derivative_span: tuple[int, int] | None
    source_text: str
    derivative_text: str
    description: str  # one plain-language line
    directed: bool = True

    def to_record(self) -> dict[str, Any]:
        # ``asdict(self)`` built directly (the fields in order; the spans are tuples of
        # ints, kept as tuples), without its deep copy walk over every value
        if type(self) is not Change or not (
            _plain_span(self.source_span) and _plain_span(self.derivative_span)
        ):
            return asdict(self)
        return {
            "source": self.source,
            "derivative": self.derivative,
            "kind": self.kind,
            "severity": self.severity,
            "source_span": _span(self.source_span),
            "derivative_span": _span(self.derivative_span),
            "source_text": self.source_text,
            "derivative_text": self.derivative_text,
            "description": self.description,
            "directed": self.directed,
        }


def _plain_span(v: Any) -> bool:
    """None, or a plain tuple or list of ints (what :func:`_span` copies as ``asdict``)."""
    return v is None or (type(v) in (tuple, list) and all(type(x) is int for x in v))


def _span(v: Any) -> Any:
    """A span as ``asdict`` copies it: a plain tuple or list of ints copied."""
    return None if v is None else type(v)(v)


@dataclass
class Story:
    """Articles about one real-world event."""

    id: str
    label: str
    articles: list[str]
    sources: list[str]

    def to_record(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Result:
    """Everything one scan produced, as plain data."""

    docs: list[Doc]
    relations: list[Relation]
    stories: list[Story]
    errors: list[InputError]
    #: provenance (see unspin.provenance): what changed, quotation groups, lineage graphs
    changes: list[Change] = field(default_factory=list)
    quotes: list[Any] = field(default_factory=list)  # unspin.quotes.QuoteGroup
    lineage: list[Any] = field(default_factory=list)  # unspin.lineage.Lineage
    #: the settings the results were computed with (``unspin.pipeline.Config`` as plain
    #: data), written to ``manifest.json`` so a run can be repeated
    config: dict[str, Any] = field(default_factory=dict)
    #: the JSON lines of rows their producer already has (the line stored with the
    #: value the row's object was read from), by table and ``id()`` of the row's object
    #: in this Result: the results writer takes them instead of building those rows
    #: again (``unspin.output``). Not results: left out of comparisons and repr.
    lines: dict[str, dict[int, str]] = field(default_factory=dict, repr=False, compare=False)
    #: each doc's ``unspin.pipeline.article_key`` by id, as the run that made the Result
    #: hashed them, with the embedder name they were hashed with (``(name, keys)``; empty
    #: when none): provenance's memo keys read them instead of hashing every article of
    #: the pile again. Not results: left out of comparisons and repr.
    article_keys: tuple[str, dict[str, str]] | tuple[()] = field(
        default_factory=tuple, repr=False, compare=False
    )

    def article_records(self) -> list[dict[str, Any]]:
        story_of = self.story_of_articles()
        return [article_record(d, story_of.get(d.id)) for d in self.docs]

    def story_of_articles(self) -> dict[str, str]:
        """Each article id's story id."""
        return {a: s.id for s in self.stories for a in s.articles}

    def relation(self, a: str, b: str) -> Relation | None:
        """The relation between two article ids, if any (order does not matter)."""
        key = tuple(sorted((a, b)))
        for r in self.relations:
            if (r.a, r.b) == key:
                return r
        return None

    def story_of(self, article_id: str) -> Story | None:
        for s in self.stories:
            if article_id in s.articles:
                return s
        return None


def article_record(d: Doc, story: str | None) -> dict[str, Any]:
    """The articles table's row of ``d`` in story ``story``: it reads the doc's article
    (every field but the text, of which its length), the language fields
    (:func:`article_row_stamp`) and the sentence counts."""
    a = d.article
    counts = d.sentence_counts()
    return {
        "id": a.id,
        "title": a.title,
        "lang": d.lang,
        "lang_confidence": round(d.lang_confidence, 3),
        "cross_language": d.cross_lingual,
        "outlet": a.outlet,
        "published_at": a.published_at,
        "url": a.url,
        "input": a.input,
        "location": a.location,
        "n_chars": len(a.text),
        "n_sentences": counts[0],
        "n_boilerplate": counts[1],
        "story": story,
    }


def article_row_stamp(d: Doc, story: str | None) -> tuple[Any, ...]:
    """What :func:`article_record` of ``d`` reads that a run may set again: the story,
    the article and the language fields (equal stamps, equal rows: tuples compare items
    by identity first, so the same Article object costs no field comparison). A doc's
    sentences are fixed when it is made."""
    return (story, d.article, d.lang, d.lang_confidence, d.cross_lingual)
