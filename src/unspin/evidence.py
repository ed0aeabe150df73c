"""Classify-stage evidence: named evidence functions, their registry, and the pair context
they read.

The classify stage decides two things about an aligned pair, each from named evidence
whose parameters live in :class:`unspin.classify.ClassifyParams` and whose contribution
is recorded on the relation (``Relation.evidence``, ``relations.jsonl``):

* **type**: whether one text is a whole derivative of the other (a copy, a spin, a
  rewrite, condensed or not) rather than passage reuse or independent coverage. Typing
  features (:data:`TYPING_FEATURES`) measure how much of each text the other accounts
  for, in meaning (sentence vectors) and in checkable facts (figures, names, quotations);
  a logistic model fitted on labelled data (``bench/fit_classify.py``) weighs them.
* **direction**: which text is the source. Direction evidence
  (:data:`DIRECTION_EVIDENCE`) gives a signed value, positive when the pair's first text
  ``a`` looks like the source; the same fitting script weighs them, and a pair whose
  weighted sum stays under a margin is left undecided.

Every function here is pure: it reads the two Docs, their Alignment, the per-article
facts (:func:`doc_facts`, computed once per article) and, where given, the corpus
statistics (:class:`unspin.corpus.CorpusSupport`, a view that leaves the pair out).
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import regex

from unspin.fingerprint import (
    CALENDAR_LANGS,
    NOUN_CAPITALS,
    date_keys,
    kept_body,
    salient_keys,
)
from unspin.model import Alignment, Doc, Sentence, compared_text
from unspin.normalise import (
    APOSTROPHE_ENDINGS,
    DATE_WORDS,
    POSSESSIVE,
    SMALL_FIGURES,
    cross_language,
    decase_headlines,
    edit_distance_within,
    figure_signatures,
    full_names,
    inflection_keys,
    known_compound,
    latin_head,
    local_figures,
    name_form,
    names,
    names_inflect,
    rare_word,
    spaced_style,
    token_spans,
    words,
    zipf,
)


@dataclass(frozen=True)
class Contribution:
    """What one named piece of evidence added to a decision.

    ``value`` is the evidence's own measure (a share, a count, a difference); ``weight``
    is what it added to the decision's score (the fitted weight times the value: for the
    type, towards a whole-text derivative; for direction, towards ``a`` being the source).
    """

    stage: str  # "type" | "direction"
    name: str
    value: float
    weight: float
    detail: str = ""

    def to_record(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "name": self.name,
            "value": round(float(self.value), 4),
            "weight": round(float(self.weight), 4),
            "detail": self.detail,
        }


# ---------------------------------------------------------------- per-article facts

#: a sentence shorter than this many words (a dateline, "he said") is not content
CONTENT_MIN_WORDS = 4
#: content sentences of an article's opening that, with its title, make its lead: the
#: facts any report of the event states first (:attr:`DocFacts.lead`)
LEAD_SENTENCES = 2
#: quotations shorter than this many words are not compared as facts
FACT_QUOTE_WORDS = 5


@dataclass(frozen=True)
class DocFacts:
    """Checkable details of one article and its content sentences, computed once."""

    figures: frozenset[str]
    names: frozenset[str]  # lower-cased capitalised words that do not open a sentence
    quotes: tuple[str, ...]  # quotations of FACT_QUOTE_WORDS+ words, as word strings
    words: frozenset[str]
    joined: str  # the text's words joined by single spaces (for containment of quotes)
    content: tuple[int, ...]  # content sentence indexes
    #: written in tokeniser spacing (:func:`unspin.normalise.spaced_style`): its spaced
    #: punctuation is the text's format, not a translation or spinning artefact
    spaced: bool = False
    #: its figures by their digits alone, as a translation keeps them
    #: (:func:`unspin.normalise.figure_signatures`)
    signatures: frozenset[str] = frozenset()
    #: the text :attr:`style` is read from, and its language
    style_text: str | None = field(default=None, repr=False, compare=False)
    style_lang: str = "en"
    #: its salient keys (names, numbers, months, weekdays: :attr:`unspin.model.Doc.keys`)
    keys: frozenset[str] = frozenset()
    #: its checkable details: figures (but ``SMALL_FIGURES``) and rare names
    #: (:func:`unspin.normalise.rare_word`, a possessive 's left out)
    details: frozenset[str] = frozenset()
    #: figures and names of its lead: the title (every capitalised word) and the first
    #: ``LEAD_SENTENCES`` distinct content sentences
    lead: frozenset[str] = frozenset()
    #: its two-word names (:func:`unspin.normalise.full_names`), and those of its lead
    name_pairs: frozenset[str] = frozenset()
    lead_pairs: frozenset[str] = frozenset()
    #: where names inflect (:func:`unspin.normalise.names_inflect`), the keys by which its
    #: words meet other cases of a name (:func:`unspin.normalise.inflection_keys`); empty
    #: elsewhere
    word_keys: frozenset[str] = frozenset()
    lang: str | None = None  # the text's language (the keys' and names' forms)

    @cached_property
    def style(self) -> float | None:
        """Probability that the text was written by a language model
        (:func:`model_style`; None: a language without a model, or too few words of its
        own to tell).
        Read on first use: only the direction evidence of a pair typed as reuse reads
        it, so most articles of a pile never run the style model (~2 ms an article,
        once in every worker that aligned one of its pairs)."""
        if self.style_text is None:
            return None
        return model_style(self.style_text, self.style_lang)


#: languages that capitalise every noun: a capital inside a sentence is no sign of a name
NOUN_CAPITALISING = frozenset({"de", "lb"})
#: how much more frequent in its own language than in English a capitalised word may be
#: and still read as a name (``name_travels``)
NAME_TRAVEL_MARGIN = 2.0


def name_travels(word: str, lang: str) -> bool:
    """Whether a capitalised word of a noun-capitalising language reads as a name: names
    cross languages unchanged ("Junqueras", "Sainsbury", "Trump", "London"), nouns do not
    ("Polizei", "Bereitschaftspolizei", "Rangeleien"); so a word English writes about as
    often (wordfreq Zipf, within ``NAME_TRAVEL_MARGIN``), or one neither language lists,
    is a name, unless it is a compound of two words its language lists
    ("Loyalitätsprüfungen", "Schulleitervereinigung": :func:`known_compound`). Loanwords
    both languages use ("Hotel", "Internet") read as names too."""
    own, en = zipf(word, lang), zipf(word, "en")
    if own is None or en is None:
        return True
    if own == 0 and en == 0:
        return not known_compound(word, lang)
    return en > 0 and en >= own - NAME_TRAVEL_MARGIN


def doc_facts(doc: Doc) -> DocFacts:
    """The article's :class:`DocFacts` (cached on the doc: per-article work done once)."""
    cached = getattr(doc, "_facts", None)
    if cached is not None:
        return cached
    text = compared_text(doc)  # the kept part of a cut article (FingerprintParams)
    end = len(text)
    ws = words(text)
    # a title-case headline capitalises every word: its common words are no names or keys
    cased = decase_headlines(text, doc.lang)
    content = tuple(
        s.index
        for s in doc.sentences
        if not s.boilerplate and len(words(s.text)) >= CONTENT_MIN_WORDS
    ) or tuple(s.index for s in doc.sentences)
    # figures by their value as the language groups thousands ("10 000", "10.000")
    figs, nms = local_figures(text, doc.lang), frozenset(names(cased))
    if doc.lang in NOUN_CAPITALISING:
        nms = frozenset(n for n in nms if name_travels(n, doc.lang))
    opening, title = _lead_text(doc, content), doc.article.title or ""
    lead, pairs = _lead_facts(opening, title, doc.lang), frozenset(full_names(cased))
    lead_pairs = frozenset(full_names(opening) | full_names(title))
    # a Latin name with a Korean particle glued on ("FBI에게") uses the name ("fbi")
    known, keys = frozenset(ws) | {latin_head(w) for w in ws if not w.isascii()}, frozenset()
    if doc.lang in APOSTROPHE_ENDINGS:  # "Çin'in" is "Çin": a name without its ending
        lang = doc.lang
        nms, lead = _forms(nms, lang), _forms(lead, lang)
        known = known | _forms(known, lang)
    if names_inflect(doc.lang):  # one name in two cases is one name ("Трампа", "Трамп")
        keys = frozenset().union(*(inflection_keys(w, doc.lang) for w in set(ws)))
    facts = DocFacts(
        figures=figs,
        names=nms,
        quotes=tuple(
            " ".join(words(q.text))
            for q in doc.quotes
            if q.end <= end and len(words(q.text)) >= FACT_QUOTE_WORDS
        ),
        words=known,
        joined=" ".join(ws),
        content=content,
        spaced=spaced_style(text),
        signatures=figure_signatures(text),
        style_text=text,  # read on first use, by the model of its language (model_style)
        style_lang=doc.lang,
        keys=_fact_keys(
            doc.keys
            if cased is text and doc.lang not in NOUN_CAPITALS
            else _cased_keys(doc, text, cased, noun_names=doc.lang in NOUN_CAPITALS),
            doc,
        ),
        details=_fact_details(figs, nms, doc.lang),
        lead=lead,
        name_pairs=pairs,
        lead_pairs=lead_pairs,
        word_keys=keys,
        lang=doc.lang,
    )
    doc._facts = facts  # type: ignore[attr-defined]
    return facts


def unused_names(mine: DocFacts, theirs: DocFacts) -> frozenset[str]:
    """Names of ``mine`` the other text never uses as words; where names inflect, a
    name the other writes in another case (a shared :func:`inflection_keys` prefix:
    "Брайтона" for "Брайтон") is used."""
    out = mine.names - theirs.words
    if not out or not theirs.word_keys:
        return out
    return frozenset(n for n in out if not inflection_keys(n, mine.lang) & theirs.word_keys)


def _used_share(mine: DocFacts, theirs: DocFacts) -> float:
    """Share of ``mine``'s names the other uses as words (:func:`unused_names`),
    smoothed towards 1/2 as :func:`_share`."""
    return (len(mine.names) - len(unused_names(mine, theirs)) + 1) / (len(mine.names) + 2)


def _forms(xs: frozenset[str], lang: str) -> frozenset[str]:
    """Each name or word in the form names are compared by
    (:func:`unspin.normalise.name_form`: Turkish "çin'in" -> "çin")."""
    return frozenset(name_form(x, lang) for x in xs)


def _pair_keys(pair: str, lang: str | None) -> frozenset[str]:
    """The keys by which a two-word name meets its other cases ("джеффа флейка" /
    "джеффом флейком"): each word's :func:`inflection_keys`, paired; where names do not
    inflect (:func:`unspin.normalise.names_inflect`), the name itself."""
    if not names_inflect(lang):
        return frozenset((pair,))
    first, _, last = pair.partition(" ")
    return frozenset(
        f"{x} {y}" for x in inflection_keys(first, lang) for y in inflection_keys(last, lang)
    )


def _meet(pairs: frozenset[str], other: frozenset[str], lang: str | None) -> frozenset[str]:
    """The two-word names of ``pairs`` that ``other`` has too, in any case where names
    inflect (:func:`_pair_keys`)."""
    if not names_inflect(lang):
        return pairs & other
    keys = frozenset().union(*(_pair_keys(x, lang) for x in other))
    return frozenset(x for x in pairs if _pair_keys(x, lang) & keys)


def _cased_keys(doc: Doc, text: str, cased: str, noun_names: bool = False) -> list[str]:
    """The salient keys :func:`unspin.fingerprint.prepare` reads (its
    :func:`unspin.fingerprint.kept_body`), read from ``cased`` (``text`` with its
    headline decased: the same offsets); ``noun_names``: a German text's common nouns
    read as names, as the rewrite model's keys were (:func:`_fact_keys`)."""

    def read(s: Sentence) -> str:
        return cased[s.start : s.end] if text[s.start : s.end] == s.text else s.text

    return salient_keys(kept_body(doc.sentences, cased, read), doc.lang, noun_names=noun_names)


def _fact_keys(keys: list[str], doc: Doc) -> frozenset[str]:
    """:attr:`DocFacts.keys`: the salient keys but those read in a script without
    capitals (``u:``: :func:`unspin.normalise.tagged_names`,
    :func:`unspin.normalise.rare_script_words`). The rewrite model's
    ``short_keys_in`` was fitted on names read by their capitals; with the tagged names a
    brief beside a long report of one event keeps most of its keys in the other and
    crossed the model's cut (session 48: 3 more false claims between independent reports
    in the translated guard rounds, for 6 more rewrites found in 1,218). Likewise its
    months and weekdays are those of English and Spanish names only, as the model was
    fitted (:func:`unspin.fingerprint.date_keys`): a language's own names, story keys
    since session 51, put a shared weekday into a Hindi brief beside a long report of one
    event and the pair over the cut (NTREX dev, cnbc.com.6769 / reuters.218861). A German
    text's keys here read its capitalised common nouns as names, as before session 51
    (story keys leave them out: :func:`unspin.fingerprint.common_noun`)."""
    out = {k for k in keys if not k.startswith("u:")}
    if (doc.lang or "").split("-")[0] in CALENDAR_LANGS:
        body = kept_body(doc.sentences, doc.article.text)
        out = {k for k in out if k[:2] not in ("m:", "d:")} | date_keys(body, None)
    return frozenset(out)


def _fact_details(figs: frozenset[str], nms: frozenset[str], lang: str | None) -> frozenset[str]:
    """:attr:`DocFacts.details` from the text's figures and names."""
    rare = {n for n in (POSSESSIVE.sub("", x) for x in nms) if n and rare_word(n, lang or "en")}
    return frozenset((figs - SMALL_FIGURES) | rare)


def _lead_text(doc: Doc, content: tuple[int, ...]) -> str:
    """The article's first ``LEAD_SENTENCES`` distinct content sentences, joined."""
    opening: list[str] = []
    for i in content:
        t = doc.sentences[i].text
        if t not in opening:  # a text that repeats each sentence (ECB+) leads with one
            opening.append(t)
        if len(opening) >= LEAD_SENTENCES:
            break
    return " ".join(opening)


#: patterns compiled once (the regex module's pattern cache costs ~8 µs a call): a run
#: of word characters, a line with something on it, a word of lower-case letters
_WORD_RUN = regex.compile(r"\w+")
_TEXT_LINE = regex.compile(r"[^\n]*\S[^\n]*")
_LOWER_WORD = regex.compile(r"\b\p{Ll}[\p{Ll}'’]+\b")


def _lead_facts(x: str, title: str, lang: str | None = None) -> frozenset[str]:
    """:attr:`DocFacts.lead`: figures (:func:`unspin.normalise.local_figures`) and names
    of the title and opening sentences."""
    caps = {w.lower() for w in _WORD_RUN.findall(title) if w[:1].isupper()}
    figs = local_figures(x, lang) | local_figures(title, lang)
    return frozenset(figs | names(x) | names(title) | caps)


# ---------------------------------------------------------------- model-written style

#: the shipped style model, written by ``bench/fit_model_style.py`` (and only by it)
STYLE_MODEL_FILE = Path(__file__).with_name("data") / "model_style.json"
#: ... and the shape-only one for other languages (``bench/fit_model_style_intl.py``)
STYLE_MODEL_INTL_FILE = Path(__file__).with_name("data") / "model_style_intl.json"
#: quotation marks and dashes folded before the style is read (a format, not a style)
_STYLE_TRANS = str.maketrans(
    {"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'", "`": "'",
     "–": "-", "—": "-", "\u00a0": " "}
)  # fmt: skip
#: tokeniser spacing (as :data:`unspin.normalise._TOKENISER_SPACE`): "do n't", "Sununu 's"
_STYLE_SPACE = regex.compile(
    r" (?=[,.;:!?%)\]}\"-]|n't\b|'(?:s|re|ve|ll|d|m)\b)|(?<=[(\[{$\"-]) ", regex.IGNORECASE
)
#: a quotation (the quoted speaker's words, not the writer's)
_STYLE_QUOTE = regex.compile(r'"[^"\n]{1,800}"')
#: a line break inside a paragraph (wire copy wrapped at 70 columns, a sentence a line)
_STYLE_WRAP = regex.compile(r"(?<!\n)\n(?!\n)")


@dataclass(frozen=True)
class StyleView:
    """What the style model reads of one text: the writer's own words (quotations left
    out, format folded: quote marks, dashes, tokeniser spacing, wrapped lines) and the
    shape of its sentences."""

    own: tuple[str, ...]  # word tokens outside quotations, in order
    n_words: int  # all word tokens
    sentence_words: tuple[int, ...]  # words per sentence
    sentence_commas: tuple[int, ...]  # commas per sentence
    #: question marks, colons and exclamation marks outside quotations
    own_marks: tuple[int, int, int] = (0, 0, 0)

    @property
    def shape(self) -> dict[str, float]:
        """Sentence-shape statistics (:data:`STYLE_SHAPES`)."""
        n = np.array(self.sentence_words or (0,), float)
        mean = float(n.mean())
        own = self.own
        return {
            "sent_mean": mean,
            "sent_cv": float(n.std() / mean) if mean else 0.0,
            "sent_long": float((n > 30).mean()),
            "sent_short": float((n < 8).mean()),
            "commas_per_sent": float(np.mean(self.sentence_commas or (0,))),
            "word_len": float(np.mean([len(w) for w in own])) if own else 0.0,
            "ttr150": len(set(own[:150])) / max(1, len(own[:150])),
            "quoted_share": 1.0 - len(own) / max(1, self.n_words),
            "q_rate": self.own_marks[0] / max(1, len(n)),
            "colon_rate": self.own_marks[1] / max(1, len(n)),
            "excl_rate": self.own_marks[2] / max(1, len(n)),
        }


#: the sentence-shape statistics the style model may weigh (:attr:`StyleView.shape`)
STYLE_SHAPES = (
    "sent_mean", "sent_cv", "sent_long", "sent_short", "commas_per_sent", "word_len",
    "ttr150", "quoted_share", "q_rate", "colon_rate", "excl_rate",
)  # fmt: skip


def style_view(text: str) -> StyleView:
    """The :class:`StyleView` of a text."""
    from unspin.normalise import split_sentences

    t = unicodedata.normalize("NFKC", text).translate(_STYLE_TRANS).replace("''", '"')
    t = _STYLE_WRAP.sub(" ", _STYLE_SPACE.sub("", t))
    own = _STYLE_QUOTE.sub(" ", t)
    sents = [t[s:e] for s, e in split_sentences(t)]
    sw = [len(words(x)) for x in sents]
    keep = [i for i, n in enumerate(sw) if n >= 3]  # a heading or a dateline is no sentence
    return StyleView(
        own=tuple(words(own)),
        n_words=len(words(t)),
        sentence_words=tuple(sw[i] for i in keep),
        sentence_commas=tuple(sents[i].count(",") for i in keep),
        own_marks=(own.count("?"), own.count(":"), own.count("!")),
    )


def style_terms(own: Sequence[str]) -> dict[str, int]:
    """Counts of the words and adjacent word pairs ("according to") of a text's own words."""
    out: dict[str, int] = {}
    for w in own:
        out[w] = out.get(w, 0) + 1
    for x, y in zip(own, own[1:]):
        k = f"{x} {y}"
        out[k] = out.get(k, 0) + 1
    return out


def style_row(view: StyleView, terms: Sequence[str], shapes: Sequence[str]) -> np.ndarray:
    """The style model's input for one text: log(1 + rate per 1,000 own words) of each
    term, then each sentence-shape statistic."""
    counts = style_terms(view.own)
    n = max(1, len(view.own))
    shape = view.shape
    rates = [math.log1p(1000.0 * counts.get(t, 0) / n) for t in terms]
    return np.array(rates + [shape[s] for s in shapes], float)


@dataclass(frozen=True)
class StyleModel:
    """A linear model of "written by a language model" over style (:func:`style_row`):
    standardised inputs (``mean``, ``scale``), coefficients and intercept, then a
    calibration (``slope``, ``offset``: Platt scaling fitted on cross-validated scores), as
    ``bench/fit_model_style.py`` fitted them; ``min_words``: a text with fewer words of its
    own (outside quotations) is not read."""

    terms: tuple[str, ...]
    shapes: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    slope: float
    offset: float
    min_words: int

    def logit(self, text: str) -> float | None:
        """The calibrated log-odds that ``text`` was written by a language model."""
        view = style_view(text)
        if len(view.own) < self.min_words:
            return None
        x = (style_row(view, self.terms, self.shapes) - self.mean) / self.scale
        return self.slope * (float(x @ self.coef) + self.intercept) + self.offset

    def prob(self, text: str) -> float | None:
        z = self.logit(text)
        return None if z is None else 1.0 / (1.0 + math.exp(-z))


def load_style_model(path: Path) -> StyleModel:
    """A :class:`StyleModel` from its JSON file (a clear error naming the file)."""
    try:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
        terms, shapes = tuple(d["terms"]), tuple(d["shapes"])
        n = len(terms) + len(shapes)
        arrays = [np.array(d[k], float) for k in ("mean", "scale", "coef")]
        if any(a.shape != (n,) for a in arrays) or (arrays[1] <= 0).any():
            raise ValueError(f"mean, scale and coef need {n} values each, scales > 0")
        unknown = [x for x in shapes if x not in STYLE_SHAPES]
        if unknown:
            raise ValueError(f"unknown shape statistics {unknown}")
        return StyleModel(
            terms=terms,
            shapes=shapes,
            mean=arrays[0],
            scale=arrays[1],
            coef=arrays[2],
            intercept=float(d["intercept"]),
            slope=float(d["calibration"][0]),
            offset=float(d["calibration"][1]),
            min_words=int(d["min_words"]),
        )
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        raise ValueError(f"style model {path}: unreadable ({type(e).__name__}: {e})") from e


@lru_cache(maxsize=1)
def shipped_style_model() -> StyleModel | None:
    """The shipped :class:`StyleModel` (None when the package has no model file)."""
    if not STYLE_MODEL_FILE.exists():
        return None
    return load_style_model(STYLE_MODEL_FILE)


@lru_cache(maxsize=1)
def shipped_intl_style_model() -> StyleModel | None:
    """The shipped style model for languages other than English (sentence shapes and
    punctuation only, no words: ``bench/fit_model_style_intl.py``); None without its file."""
    if not STYLE_MODEL_INTL_FILE.exists():
        return None
    return load_style_model(STYLE_MODEL_INTL_FILE)


#: languages the shape-only style model is not read in: English (its own model) and
#: scripts written without spaces (words and sentence lengths are not what it was fitted on)
INTL_STYLE_SKIP = frozenset({"en", "und", "zh", "zh-Hant", "ja", "th", "lo", "km", "my"})


def model_style(text: str, lang: str = "en") -> float | None:
    """Probability that a text was written by a language model: English from the shipped
    word-and-shape model, other languages (but ``INTL_STYLE_SKIP``) from the shape-only
    one (None: no model for the language, or too few words of the writer's own)."""
    if lang == "en":
        m = shipped_style_model()
    elif lang in INTL_STYLE_SKIP:
        return None
    else:
        m = shipped_intl_style_model()
    return None if m is None else m.prob(text)


# ---------------------------------------------------------------- the pair context


@dataclass
class PairCtx:
    """Everything evidence about one aligned pair reads (``a`` first in id order).

    ``relation``: the type decided (set before direction evidence is read). ``params``:
    the classify parameters; ``support``: corpus statistics or None."""

    a: Doc
    b: Doc
    al: Alignment
    params: Any
    support: Any = None
    align_params: Any = None
    relation: str | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def fa(self) -> DocFacts:
        return doc_facts(self.a)

    @cached_property
    def fb(self) -> DocFacts:
        return doc_facts(self.b)

    @cached_property
    def ia(self) -> set[int]:
        return {i for x in self.al.passages if x.is_evidence for i in x.a_sentences}

    @cached_property
    def ib(self) -> set[int]:
        return {j for x in self.al.passages if x.is_evidence for j in x.b_sentences}

    @cached_property
    def same_language(self) -> bool:
        return self.a.lang == self.b.lang

    @cached_property
    def rows(self) -> tuple[BestRows | None, BestRows | None]:
        """Per side: each content sentence's best match in the other text (see
        :func:`best_rows`), computed once for the typing features and direction evidence,
        both sides from one product (:func:`best_rows_both`)."""
        return best_rows_both(self.a, self.fa, self.b, self.fb)

    @cached_property
    def soft(self) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float]]:
        """Per side: (share of its content characters whose best match in the other has
        cosine >= ``soft_match``, length-weighted mean best cosine, share of those matches
        in order, share whose best match stands out of its row by ``peak_margin``). A
        rewrite's every sentence has a counterpart in its source, reworded or merged; an
        independent article's do not."""
        p = self.params
        return (
            _soft_cover(self.a, self.fa, self.b, self.fb, p.soft_match, p.peak_margin,
                        p.peak_min_sentences, self.rows[0]),
            _soft_cover(self.b, self.fb, self.a, self.fa, p.soft_match, p.peak_margin,
                        p.peak_min_sentences, self.rows[1]),
        )  # fmt: skip

    @cached_property
    def unique_details(self) -> tuple[int, int]:
        """Per side: the details only that text has (:func:`_unique_facts`), read by the
        ``details`` evidence and the condensed lead (:func:`condensed_lead`)."""
        return _unique_facts(self.fa, self.fb), _unique_facts(self.fb, self.fa)

    @cached_property
    def short_side(self) -> int:
        """0 when ``a`` is the shorter text (in characters; ``a`` on a tie), else 1: the
        side a condensed rewrite would be on."""
        return 0 if len(self.a.article.text) <= len(self.b.article.text) else 1

    @cached_property
    def lowered(self) -> tuple[str, str]:
        """Both texts lower-cased (for "does the other text use this name")."""
        return compared_text(self.a).lower(), compared_text(self.b).lower()


#: most sentence-pair cosines :func:`_soft_cover` holds at once (16 MB of float32): two
#: longer texts are compared a block of rows at a time (the same values up to float
#: rounding; news articles never are)
SOFT_CELLS = 1 << 22


@dataclass(frozen=True)
class BestRows:
    """Each content sentence of one text (``ids``) against the other's (``ios``): its best
    cosine, the position in ``ios`` of that best match, and the median of its cosines."""

    ids: list[int]
    ios: list[int]
    best: np.ndarray
    arg: np.ndarray
    median: np.ndarray


def best_rows(d: Doc, fd: DocFacts, o: Doc, fo: DocFacts) -> BestRows | None:
    """:class:`BestRows` of ``d`` against ``o`` (None: no vectors or no content sentence).
    Two long texts are compared a block of rows at a time (``SOFT_CELLS``), never the
    n x m matrix."""
    if d.sentence_vectors is None or o.sentence_vectors is None:
        return None
    ia, io = list(fd.content), list(fo.content)
    if not ia or not io:
        return None
    va, vo = d.sentence_vectors[ia], o.sentence_vectors[io]
    step = len(ia) if len(ia) * len(io) <= SOFT_CELLS else max(1, SOFT_CELLS // len(io))
    parts = []
    for k in range(0, len(ia), step):
        x = va[k : k + step] @ vo.T
        parts.append((x.max(axis=1), x.argmax(axis=1), _row_medians(x)))
    if len(parts) == 1:
        return BestRows(ia, io, *parts[0])
    return BestRows(
        ia,
        io,
        np.concatenate([m for m, _, _ in parts]),
        np.concatenate([g for _, g, _ in parts]),
        np.concatenate([q for _, _, q in parts]),
    )


def best_rows_both(
    a: Doc, fa: DocFacts, b: Doc, fb: DocFacts
) -> tuple[BestRows | None, BestRows | None]:
    """``(best_rows(a, fa, b, fb), best_rows(b, fb, a, fa))`` from one product of the two
    texts' content sentences, read by rows for ``a`` and by columns for ``b`` (two long
    texts, above ``SOFT_CELLS``: each side a block of rows at a time, as
    :func:`best_rows`). The columns' cosines are the same dot products as the other
    side's own product up to float rounding in the last bits (BLAS adds in another
    order)."""
    if a.sentence_vectors is None or b.sentence_vectors is None:
        return None, None
    ia, ib = list(fa.content), list(fb.content)
    if not ia or not ib:
        return None, None
    if len(ia) * len(ib) > SOFT_CELLS:
        return best_rows(a, fa, b, fb), best_rows(b, fb, a, fa)
    x = a.sentence_vectors[ia] @ b.sentence_vectors[ib].T
    xt = x.T
    return (
        BestRows(ia, ib, x.max(axis=1), x.argmax(axis=1), _row_medians(x)),
        BestRows(ib, ia, xt.max(axis=1), xt.argmax(axis=1), _row_medians(xt)),
    )


def _row_medians(x: np.ndarray) -> np.ndarray:
    """``np.median(x, axis=1)``, the same values (the middle of each sorted row, or the
    mean of the two middle ones in ``x``'s precision) in one sort: ``np.median``'s checks
    and reductions cost ~10x the work on a pair's few rows, twice per pair."""
    s = np.sort(x, axis=1)
    h = x.shape[1] // 2
    if x.shape[1] % 2:
        return s[:, h]
    return (s[:, h - 1] + s[:, h]) / 2


def _soft_cover(
    d: Doc,
    fd: DocFacts,
    o: Doc,
    fo: DocFacts,
    bar: float,
    margin: float,
    min_other: int,
    rows: BestRows | None = None,
) -> tuple[float, float, float, float]:
    """One side of :attr:`PairCtx.soft` (``rows``: :func:`best_rows` of the pair, when
    already computed)."""
    from unspin.align import _order

    r = rows if rows is not None else best_rows(d, fd, o, fo)
    if r is None:
        return 0.0, 0.0, 1.0, 0.0
    w = np.array([len(d.sentences[i].text) for i in r.ids], float)
    total = float(w.sum()) or 1.0
    hit = r.best >= bar
    pairs = [(i, r.ios[int(k)]) for i, k, h in zip(r.ids, r.arg, hit) if h]
    share = float((w * hit).sum() / total)
    if len(r.ios) < min_other:
        peak = share  # too few sentences in the other for a background: the plain share
    else:
        peak = float((w * (r.best - r.median >= margin)).sum() / total)
    return share, float((w * r.best).sum() / total), _order(pairs), peak


# ---------------------------------------------------------------- registry

#: a typing feature: the pair context -> a number
TypingFeature = Callable[[PairCtx], float]
#: a direction evidence: the pair context -> (signed value, detail) or None (no evidence)
DirectionEvidence = Callable[[PairCtx], "tuple[float, str] | None"]

TYPING_FEATURES: dict[str, TypingFeature] = {}
DIRECTION_EVIDENCE: dict[str, DirectionEvidence] = {}
#: a condition on weighing a direction evidence's value: (pair context, value) -> weigh it
WeighGate = Callable[[PairCtx, float], bool]
#: per direction evidence registered with one, when its value is weighed and what its
#: reason says when it is not (:func:`direction_score` records it with weight 0)
DIRECTION_GATES: dict[str, tuple[WeighGate, str]] = {}
#: how a lead evidence's value reads in the lead stage, where one is registered with it
#: (:func:`direction_score`): (pair context, value, detail) -> (value, detail)
LeadValue = Callable[[PairCtx, float, str], "tuple[float, str]"]
DIRECTION_LEAD_VALUES: dict[str, LeadValue] = {}


def typing_feature(name: str) -> Callable[[TypingFeature], TypingFeature]:
    """Register a typing feature under ``name`` (its weight is a ClassifyParams entry)."""

    def deco(fn: TypingFeature) -> TypingFeature:
        TYPING_FEATURES[name] = fn
        return fn

    return deco


def direction_evidence(
    name: str,
    weighed: WeighGate | None = None,
    not_weighed: str = "",
    lead_value: LeadValue | None = None,
) -> Callable[[DirectionEvidence], DirectionEvidence]:
    """Register a direction evidence under ``name`` (weight in ClassifyParams).
    ``weighed``: when a value of it is weighed at all (else it is recorded with weight
    0 and ``not_weighed`` as the reason); the value itself is still what it is for the
    machine-made recogniser, which reads every evidence's value. ``lead_value``: how its
    value reads where it leads (``ClassifyParams.lead_evidence``), if not as it is."""

    def deco(fn: DirectionEvidence) -> DirectionEvidence:
        DIRECTION_EVIDENCE[name] = fn
        if weighed is not None:
            DIRECTION_GATES[name] = (weighed, not_weighed)
        if lead_value is not None:
            DIRECTION_LEAD_VALUES[name] = lead_value
        return fn

    return deco


# ---------------------------------------------------------------- typing features


def _share(part: frozenset[str] | set[str], whole: frozenset[str] | set[str]) -> float:
    """Share of ``part`` found in ``whole``, smoothed towards 1/2 (few facts say little)."""
    return (len(part & whole) + 1) / (len(part) + 2)


def _quote_share(qs: tuple[str, ...], joined: str) -> float:
    return (sum(q in joined for q in qs) + 1) / (len(qs) + 2)


@typing_feature("min_sents")
def _min_sents(c: PairCtx) -> float:
    """log(1 + content sentences of the shorter text): little text is little evidence."""
    return math.log1p(min(len(c.fa.content), len(c.fb.content)))


@typing_feature("cov_hi")
def _cov_hi(c: PairCtx) -> float:
    """Share of the more covered text inside aligned reuse passages."""
    return max(c.al.features["cov_a"], c.al.features["cov_b"])


@typing_feature("cov_lo")
def _cov_lo(c: PairCtx) -> float:
    """Share of the less covered text inside aligned reuse passages."""
    return min(c.al.features["cov_a"], c.al.features["cov_b"])


@typing_feature("soft_hi")
def _soft_hi(c: PairCtx) -> float:
    """Share of the more covered text whose sentences have a close counterpart."""
    return max(c.soft[0][0], c.soft[1][0])


@typing_feature("soft_lo")
def _soft_lo(c: PairCtx) -> float:
    return min(c.soft[0][0], c.soft[1][0])


@typing_feature("mean_hi")
def _mean_hi(c: PairCtx) -> float:
    """Mean best sentence cosine of the more covered text (length-weighted)."""
    return max(c.soft[0][1], c.soft[1][1])


@typing_feature("mean_lo")
def _mean_lo(c: PairCtx) -> float:
    return min(c.soft[0][1], c.soft[1][1])


@typing_feature("peak_hi")
def _peak_hi(c: PairCtx) -> float:
    """Share of the more covered text whose sentences each have one counterpart that
    stands out: best cosine at least ``peak_margin`` above the median of the sentence's
    cosines to the other text. Relative to the pair's own background, so it reads the
    same in every language and encoder: a rewrite's sentence points at one source
    sentence; a sentence of an independent report of the same event is about equally
    close to many (a brief beside a long report of one speech: 0.55 to all of them)."""
    return max(c.soft[0][3], c.soft[1][3])


@typing_feature("fig_in")
def _fig_in(c: PairCtx) -> float:
    """Share of one text's figures the other has (the higher of the two): a rewrite
    adds few figures of its own; an independent article has its own."""
    return max(_share(c.fa.figures, c.fb.figures), _share(c.fb.figures, c.fa.figures))


@typing_feature("name_in")
def _name_in(c: PairCtx) -> float:
    """Share of one text's names the other uses as words (the higher of the two)."""
    return max(_used_share(c.fa, c.fb), _used_share(c.fb, c.fa))


@typing_feature("quote_in")
def _quote_in(c: PairCtx) -> float:
    """Share of one text's quotations found word for word in the other (the higher)."""
    return max(_quote_share(c.fa.quotes, c.fb.joined), _quote_share(c.fb.quotes, c.fa.joined))


def _own_checkable(mine: DocFacts, theirs: DocFacts) -> int:
    """Figures and names only ``mine`` has (names the other text never uses as words)."""
    return len(mine.figures - theirs.figures) + len(unused_names(mine, theirs))


@typing_feature("own_lo")
def _own_lo(c: PairCtx) -> float:
    """log(1 + figures and names of its own on the side with fewer): each side carrying
    facts of its own is what two reports of one story (an update and its predecessor)
    have and a copy, a spin or a rewrite (which adds few checkable details) has not. The
    fact shares above take the higher direction, so an update that contains its
    predecessor's facts reads as a rewrite without this. (The lower-direction shares of
    figures, names and quotations were tried beside it and not kept: no better on held-out
    folds of the tuning data, see docs/benchmarks.md.)"""
    return math.log1p(min(_own_checkable(c.fa, c.fb), _own_checkable(c.fb, c.fa)))


# Features of the shorter text against the longer (:attr:`PairCtx.short_side`): what
# the rewrite-of-one-text model reads (``ClassifyParams.rewrite_features``). A rewrite,
# condensed or not, follows its source's names, figures and quotations and adds few of
# its own; its source keeps many the rewrite dropped. An independent report of the same
# event, a short brief beside a long one among them, carries names, figures and
# quotations of its own.


def _short_long(c: PairCtx) -> tuple[DocFacts, DocFacts]:
    return (c.fa, c.fb) if c.short_side == 0 else (c.fb, c.fa)


@typing_feature("short_keys_in")
def _short_keys_in(c: PairCtx) -> float:
    """Share of the shorter text's salient keys (names, numbers, months, weekdays) that
    the longer has, smoothed towards 1/2."""
    s, lg = _short_long(c)
    return _share(s.keys, lg.keys)


@typing_feature("short_fig_in")
def _short_fig_in(c: PairCtx) -> float:
    """Share of the shorter text's figures that the longer has, smoothed towards 1/2."""
    s, lg = _short_long(c)
    return _share(s.figures, lg.figures)


@typing_feature("short_quote_in")
def _short_quote_in(c: PairCtx) -> float:
    """Share of the shorter text's quotations found word for word in the longer,
    smoothed towards 1/2."""
    s, lg = _short_long(c)
    return _quote_share(s.quotes, lg.joined)


@typing_feature("short_peak")
def _short_peak(c: PairCtx) -> float:
    """Share of the shorter text's sentences with one counterpart that stands out (as
    ``peak_hi``): a rewrite's sentence points at one source sentence."""
    return c.soft[c.short_side][3]


@typing_feature("long_own")
def _long_own(c: PairCtx) -> float:
    """log(1 + figures and names only the longer text has): what a condensed rewrite
    dropped, or what the longer of two reports found on its own."""
    s, lg = _short_long(c)
    return math.log1p(_own_checkable(lg, s))


# Candidates for the rewrite model that the shipped one does not read
# (``bench/fit_rewrite.py --features``; docs/benchmarks.md, session 25: on 48 new condensed
# tune rewrites they took no more rewrites than the shipped features at the 1% guard).


@typing_feature("short_own")
def _short_own(c: PairCtx) -> float:
    """log(1 + figures and names only the shorter text has): what a rewrite adds to its
    source (next to nothing: it follows one text) against what the shorter of two
    independent reports found on its own. A count, not a share: a short text's few keys
    make a smoothed share say little."""
    s, lg = _short_long(c)
    return math.log1p(_own_checkable(s, lg))


@typing_feature("short_secondary")
def secondary_share(c: PairCtx) -> float:
    """Share of the shorter text's details (:attr:`DocFacts.details`) that are details of
    the longer text's body and not of its lead, over the details plus one: a rewrite
    carries its source's secondary details down to the last paragraph; an independent
    report of the event shares the lead's facts (what anyone reporting it states first)
    and finds details of its own (``ClassifyParams.rewrite_secondary``)."""
    s, lg = _short_long(c)
    return len((lg.details - lg.lead) & s.details) / (len(s.details) + 1)


@typing_feature("short_names_in")
def _short_names_in(c: PairCtx) -> float:
    """Share of the shorter text's names that the longer uses as words, smoothed."""
    s, lg = _short_long(c)
    return _used_share(s, lg)


@typing_feature("short_soft")
def _short_soft(c: PairCtx) -> float:
    """Share of the shorter text's content with a close counterpart in the longer."""
    return c.soft[c.short_side][0]


@typing_feature("short_mean")
def _short_mean(c: PairCtx) -> float:
    """Mean best sentence cosine of the shorter text's sentences (length-weighted)."""
    return c.soft[c.short_side][1]


@typing_feature("short_order")
def _short_order(c: PairCtx) -> float:
    """Share of the shorter text's close counterparts that keep their order: a rewrite
    follows its source's order, condensed or not."""
    return c.soft[c.short_side][2]


# Features of a cross-language pair the whole-translation model reads
# (``ClassifyParams.translation_features``): a translation follows its source sentence by
# sentence, so each sentence's best counterpart stands out of the other text; two reports
# of one event in two languages retell the same facts, each sentence about as close to
# several of the other's.


@typing_feature("chain")
def _chain(c: PairCtx) -> float:
    """The lower of the two texts' shares of their sentences on one in-order chain of
    matched sentences (:func:`unspin.align.chain_features`)."""
    return float(c.al.features.get("chain", 0.0))


@typing_feature("semantic")
def _semantic(c: PairCtx) -> float:
    """Mean cosine of the aligned passages' sentence pairs."""
    return float(c.al.features.get("semantic", 0.0))


def stand_out_ready(c: PairCtx, min_other: int) -> bool:
    """Whether both texts have at least ``min_other`` content sentences, the background
    :func:`stand_out` reads each best match against."""
    ra, rb = c.rows
    return ra is not None and rb is not None and min(len(ra.ios), len(rb.ios)) >= min_other


@typing_feature("stand_out")
def stand_out(c: PairCtx) -> float:
    """How far each sentence's best counterpart stands out of its cosines to the other
    text: the mean over a text's content sentences of best minus median cosine, the lower
    of the two texts (0 without vectors). A faithful translation's sentence points at its
    own counterpart (NTREX, hand translations of ECB+ reports: median 0.43, 1% under
    0.24); a retelling of the same fact is about as close to the other sentences of one
    event (independent reports typed translations before this was read: 0.12-0.31)."""
    ra, rb = c.rows
    if ra is None or rb is None:
        return 0.0
    return float(min((ra.best - ra.median).mean(), (rb.best - rb.median).mean()))


@typing_feature("verbatim")
def _verbatim(c: PairCtx) -> float:
    """Word 3-grams shared inside the aligned reuse passages."""
    return c.al.features["verbatim"]


@typing_feature("lenratio")
def _lenratio(c: PairCtx) -> float:
    la, lb = len(c.a.article.text), len(c.b.article.text)
    return min(la, lb) / max(la, lb, 1)


@typing_feature("doc_sim")
def _doc_sim(c: PairCtx) -> float:
    return c.al.features["doc_sim"]


@typing_feature("order")
def _soft_order(c: PairCtx) -> float:
    """Share of the more covered text's close counterparts that keep their order."""
    side = 0 if c.soft[0][0] >= c.soft[1][0] else 1
    return c.soft[side][2]


def _typing_score(
    c: PairCtx, names: Sequence[str], weights: Sequence[float], bias: float, prefix: str
) -> tuple[float, list[Contribution]]:
    """Log-odds of a logistic model over typing features, and each one's contribution
    (named ``prefix`` + feature; the intercept ``prefix`` + "bias")."""
    out = [Contribution("type", prefix + "bias", 1.0, bias, "fitted intercept")]
    z = bias
    for name, w in zip(names, weights):
        v = float(TYPING_FEATURES[name](c))
        z += w * v
        out.append(Contribution("type", prefix + name, v, w * v))
    return z, out


def caseless_whole(c: PairCtx) -> bool:
    """Whether the pair is read by the whole-derivative model refitted for scripts without
    capitals (``ClassifyParams.caseless_whole_*``): both texts in one language of
    ``caseless_whole_langs``."""
    return c.a.lang == c.b.lang and c.a.lang in c.params.caseless_whole_langs


def whole_model(c: PairCtx) -> tuple[Sequence[float], float, float]:
    """The whole-derivative model the pair is read with: its weights, bias and cut (the
    fit for scripts without capitals where :func:`caseless_whole`, else the English one)."""
    p = c.params
    if caseless_whole(c):
        return p.caseless_whole_weights, p.caseless_whole_bias, p.caseless_whole_cut
    return p.whole_weights, p.whole_bias, p.whole_cut


def whole_score(c: PairCtx) -> tuple[float, list[Contribution]]:
    """The logistic score (log-odds) that one text is a whole derivative of the other,
    and each typing feature's contribution (:func:`whole_model`: with the weights fitted
    in scripts without capitals, whose texts show no names, where they apply)."""
    weights, bias, _ = whole_model(c)
    return _typing_score(c, c.params.whole_features, weights, bias, "")


def rewrite_score(c: PairCtx) -> tuple[float, list[Contribution]]:
    """The logistic score (log-odds) that the shorter text of a same-language pair is a
    rewrite of the longer (``ClassifyParams.rewrite_*``), and each feature's
    contribution. Read only where :func:`whole_score` did not call the pair whole: a
    rewrite that rewords every sentence and drops half of its source aligns few
    passages, and the whole-text model weighs the source's own text against it."""
    p = c.params
    return _typing_score(c, p.rewrite_features, p.rewrite_weights, p.rewrite_bias, "rewrite.")


def translation_score(c: PairCtx) -> tuple[float, list[Contribution]]:
    """The logistic score (log-odds) that a cross-language pair whose passages cover both
    texts is one text translated (``ClassifyParams.translation_*``), and each feature's
    contribution."""
    p = c.params
    return _typing_score(
        c, p.translation_features, p.translation_weights, p.translation_bias, "translation."
    )


def carried_evidence(c: PairCtx, named_phrases: bool = False) -> tuple[int, int]:
    """Pieces of the text itself the two articles share, and how many a whole-derivative
    claim needs (``ClassifyParams.whole_min_carried``).

    Pieces: aligned sentence pairs (sentences of the less aligned side inside reuse
    passages), figures both texts hold (by their digits across languages:
    :func:`unspin.normalise.figure_signatures`) and quotations of one found word for word
    in the other; in one language also the two-word names of the longer text's body that
    the shorter spells as it does (:func:`body_names`, with
    ``ClassifyParams.carried_body_names``). They are what a copy, a spin, a rewrite and a
    translation carry over from their source in any language and what two reports of one
    event need not share;
    the typing model's other features (topic cosines, names, the smoothed fact shares)
    read the same for two reports of one event, and read differently for the same two
    texts once translated (NTREX: a brief beside a long report of one event, typed
    ``spun`` in Italian and not in English). A text of fewer content sentences needs
    no more pieces than it has sentences (a short copy aligned whole)."""
    f = c.al.features
    sents = int(min(f.get("n_sent_a", 0.0), f.get("n_sent_b", 0.0)))
    body = 0
    if cross_language(c.a, c.b):
        figs = len(c.fa.signatures & c.fb.signatures)
    else:
        figs = len(c.fa.figures & c.fb.figures)
        if c.params.carried_body_names:
            caseless = c.a.lang in c.params.caseless_langs
            body = body_phrases(c, named_phrases) if caseless else len(body_names(c))
    quotes = max(
        sum(q in c.fb.joined for q in c.fa.quotes), sum(q in c.fa.joined for q in c.fb.quotes)
    )
    need = min(c.params.whole_min_carried, len(c.fa.content), len(c.fb.content))
    return sents + figs + quotes + body, need


def _word_pairs(doc: Doc, idx: Sequence[int]) -> list[list[str]]:
    """Per sentence of ``idx``: its adjacent word pairs with only a space between them
    ("a b"), both words with a letter; ``""`` for any other adjacent pair, so a run of
    pairs breaks there. In a run of a script without spaces, cut into overlapping
    character bigrams (:func:`unspin.normalise.token_spans`), two adjacent bigrams make
    a pair too (three characters, marked by a leading ``"\x00"``: :func:`body_phrases`
    counts their runs only from ``spaceless_run`` pairs on)."""
    out = []
    for i in idx:
        text = doc.sentences[i].text
        spans = token_spans(text)
        row = []
        for (s0, e0), (s1, e1) in zip(spans, spans[1:]):
            w0, w1 = text[s0:e0], text[s1:e1]
            if s0 < s1 < e0:  # two overlapping bigrams of one run
                row.append(f"\x00{w0.lower()} {w1.lower()}")
                continue
            keep = text[e0:s1].isspace() and all(any(ch.isalpha() for ch in w) for w in (w0, w1))
            row.append(f"{w0.lower()} {w1.lower()}" if keep else "")
        out.append(row)
    return out


def body_phrases(c: PairCtx, named: bool = False) -> int:
    """:func:`body_names` in a script without capitals (``ClassifyParams.caseless_langs``),
    where no word reads as a name: the phrases of the longer text's body (its content
    sentences after the first ``LEAD_SENTENCES``) that the shorter writes word for word
    and no other article of the pile uses, counted as runs of adjacent word pairs
    ("डोनाल्ड ट्रम्प", "घोस्ट टाउन", "إليفي لتكنولوجيا"): the people, places and terms a
    rewrite carries down from its source's later paragraphs, as names are elsewhere.
    Without a pile (no ``phrase_support``) none counts: a phrase both texts use may be
    the language's, not the text's. ``named``: only word pairs with a word rare in the
    language (:func:`unspin.normalise.rare_word`: a name, a term; "लोम्बोक में", "in
    Lombok") count, not two of its common words ("तट पर", "on the coast"; "मारे गए",
    "were killed"), which two reports of one event write alike and a small pile with few
    other articles in the language lets through as unused: what a claim that rests on
    facts kept, not on passages aligned, may count (``ClassifyParams.caseless_langs``)."""
    phrase = getattr(c.support, "phrase_support", None)
    if phrase is None:
        return 0
    from unspin.corpus import bigram_hashes

    (sd, sf), (ld, lf) = ((c.a, c.fa), (c.b, c.fb))[:: 1 if c.short_side == 0 else -1]
    short = {x for row in _word_pairs(sd, sf.content) for x in row if x}
    rows = _word_pairs(ld, lf.content[LEAD_SENTENCES:])
    shared = sorted({x for row in rows for x in row if x and x in short})
    if not shared:
        return 0
    hashes = np.concatenate([bigram_hashes(x.lstrip("\x00").split(" ")) for x in shared])
    unique = {x for x, k in zip(shared, phrase(hashes, c.a.id, c.b.id)) if k == 0}
    if named:
        lang = c.a.lang or "en"
        unique = {
            x
            for x in unique
            if x.startswith("\x00") or any(rare_word(w, lang) for w in x.split(" "))
        }
    p = c.params
    least = p.spaceless_run if c.a.lang in p.spaceless_run_langs else 0
    runs = 0
    for row in rows:
        spaced = length = 0  # the current run: its spaced word pairs, all its pairs
        for x in [*row, ""]:
            if x in unique:
                length += 1
                spaced += not x.startswith("\x00")
                continue
            runs += bool(length) and (spaced > 0 or (least > 0 and length >= least))
            spaced = length = 0
    return runs


def body_names(c: PairCtx) -> frozenset[str]:
    """Two-word names (:attr:`DocFacts.name_pairs`) of the longer text's body, not of its
    lead, that the shorter spells as it does and no other article of the pile uses: the
    secondary people and bodies a rewrite carries down from its source's later paragraphs
    ("Liam Fox", "Baroness Kennedy"), where an independent report of the event shares the
    lead's names and finds others. A name other articles use too (the fire chief every
    report of one fire quotes, "Tony Blair") is the event's or the pile's, not the text's.
    Without a pile (no ``phrase_support``) every such name counts."""
    s, lg = _short_long(c)
    body = lg.name_pairs - _meet(lg.name_pairs, lg.lead_pairs, lg.lang)
    found = _meet(body, s.name_pairs, lg.lang)
    phrase = getattr(c.support, "phrase_support", None)
    if not found or phrase is None:
        return found
    from unspin.corpus import bigram_hashes

    names = sorted(found)
    # each name as written and with a possessive ("Mr Howard's"): the pile's words keep it
    pairs = [n.split(" ", 1) for n in names]
    hashes = np.concatenate([bigram_hashes([f, x]) for f, w in pairs for x in (w, f"{w}'s")])
    used = phrase(hashes, c.a.id, c.b.id).reshape(len(names), 2).max(axis=1)
    return frozenset(n for n, k in zip(names, used, strict=True) if k == 0)


def kept_share(c: PairCtx, bar: float | None = None) -> float:
    """Share of the words of ``a``'s aligned sentences kept nearly as they were (a word
    edit distance of at most ``bar``, default ``kept_edit``, of the sentence's words to one
    sentence of its passage on the other side; 0: kept word for word): a copy keeps its
    sentences and edits a few; a spin, a translation round trip or a rewrite rewords
    nearly all of them."""
    bar = c.params.kept_edit if bar is None else bar
    total = kept = 0
    for x in c.al.passages:
        if not x.is_evidence:
            continue
        others = [words(c.b.sentences[j].text) for j in x.b_sentences]
        # a sentence is kept when some sentence of the passage is within
        # ``_edits_allowed`` word edits: exact matches by hash, the rest only among
        # sentences of a length that could be, with a banded distance (a passage of
        # thousands of sentences on each side is not n * m full edit distances)
        exact = {tuple(wb) for wb in others}
        by_len: dict[int, list[list[str]]] = {}
        for wb in others:
            by_len.setdefault(len(wb), []).append(wb)
        for i in x.a_sentences:
            wa = words(c.a.sentences[i].text)
            if not wa:
                continue
            total += len(wa)
            if not others:
                kept += len(wa) * (1.0 <= bar)
                continue
            k = _edits_allowed(len(wa), bar)
            ok = k >= 0 and (
                tuple(wa) in exact
                or k > 0  # within 0 edits is equal: the hash said no
                and any(
                    edit_distance_within(wa, wb, k)
                    for n, group in by_len.items()
                    if abs(n - len(wa)) <= k
                    for wb in group
                )
            )
            kept += len(wa) * ok
    return kept / total if total else 0.0


def _edits_allowed(n: int, bar: float) -> int:
    """The most word edits ``d`` with ``d / n <= bar`` (-1: none), so that "some
    sentence within ``d`` edits" is exactly "best edit share <= bar"."""
    k = max(-1, math.floor(bar * n))
    while (k + 1) / n <= bar:
        k += 1
    while k >= 0 and k / n > bar:
        k -= 1
    return k


# ---------------------------------------------------------------- direction evidence

#: a credit to an outlet: "first reported by the X", "according to a report in X",
#: "(Source: X)", "as X reported" (X: a run of capitalised words)
_OUTLET = r"((?:[Tt]he\s+)?(?-i:\p{Lu}[\w&'’.-]*)(?:\s+(?:&\s+)?(?-i:\p{Lu}[\w&'’.-]*)){0,5})"
_CREDIT = regex.compile(
    r"(?:(?:first|originally|initially)\s+)?(?:reported|published|revealed|broken)\s+"
    r"(?:first\s+)?(?:by|in)\s+"
    + _OUTLET
    + r"|according\s+to\s+(?:an?\s+(?:\w+\s+){0,3}?(?:report|article|story|piece)\s+"
    r"(?:\w+\s+){0,2}?(?:by|in|from)\s+)?"
    + _OUTLET
    + r"|\(\s*(?:source|via|credit)\s*:\s*"
    + _OUTLET
    + r"|\bas\s+"
    + _OUTLET
    + r"\s+(?:first\s+)?(?:reported|revealed|noted)"
    + r"|,\s*"
    + _OUTLET
    + r"\s+(?:first\s+)?reported\b",
    regex.IGNORECASE,
)


#: an outlet's name in languages that join its words with short lower-case ones ("Diario
#: de la Tarde", "L'Écho du Centre", "Gazzetta di Parma", "Bote vom Rhein")
_OUTLET_INTL = (
    r"((?:[dl]['’])?(?-i:\p{Lu}[\w&'’.-]*)(?:[ \t]+(?:(?:de|del|de la|la|le|les|du|des|di"
    r"|della|da|do|dos|das|der|die|von|vom|am|im|y|e|et|und)[ \t]+)?(?:[dl]['’])?"
    r"(?-i:\p{Lu}[\w&'’.-]*)){0,5})"
)
#: credits to an outlet in the forms of other languages' press (Spanish, Portuguese,
#: French, Italian, German): a credit label opening a line ("Fuente: X", "Quelle: X",
#: "Fonte: X", "Source : X" with the French space), "with information from X" ("Con
#: información de", "Com informações de", "Con informazioni di", "Avec des informations
#: de", "Mit Material von"), "first published by / in X" and "as X reported" ("según
#: informó X", "come riportato da X"; not German "wie X berichtete", which independent
#: reports write too). English keeps :data:`_CREDIT`. The same cues without the name are
#: a credit line to the changes (:data:`unspin.changes._CREDIT`, its last form; "según
#: informó" and "come riportato" are not among them there).
_CREDIT_INTL = regex.compile(
    r"^[ \t(*_—–-]*(?:(?:fuentes?|fontes?|quellen?|fonti|cr[ée]ditos)[ \t]*"
    r"|(?:sources?|cr[ée]dits?)[ \t]+):[ \t]*(?:(?:el|la|los|las|le|les|der|die|das"
    r"|il|lo|o|a|os|as)[ \t]+)?"
    + _OUTLET_INTL
    + r"|\b(?:con[ \t]+informaci[óo]n[ \t]+de|com[ \t]+informa[çc][õo]es[ \t]+d[eoa]s?"
    r"|con[ \t]+informazioni[ \t]+d[ie]|avec[ \t]+des[ \t]+informations[ \t]+d[eu]s?"
    r"|mit[ \t]+material[ \t]+(?:von|vom|der|des)"
    r"|(?:publicad[oa]|publi[ée]e?|pubblicat[oa]|ver[öo]ffentlicht|erschienen)[ \t]+"
    r"(?:originalmente|originariamente|initialement|d'abord|zuerst|urspr[üu]nglich)[ \t]+"
    r"(?:en|por|em|dans|par|su|da|in|bei|von)"
    r"|(?:zuerst|urspr[üu]nglich)[ \t]+(?:erschienen|ver[öo]ffentlicht)[ \t]+(?:bei|in|von)"
    r"|erschien[ \t]+(?:zuerst|urspr[üu]nglich)[ \t]+(?:bei|in)"
    r"|seg[úu]n[ \t]+(?:inform[óo]|public[óo]|report[óo]|revel[óo])"
    r"|come[ \t]+riportato[ \t]+d[ai]|secondo[ \t]+quanto[ \t]+riportato[ \t]+d[ai])"
    r"[ \t]+(?:(?:el|la|los|las|le|les|der|die|das|dem|den|il|lo|o|a|os|as)[ \t]+)?" + _OUTLET_INTL,
    regex.IGNORECASE | regex.MULTILINE,
)


#: an outlet's name in Chinese, Japanese, Korean or Thai text: a run of letters, marks
#: and digits (with "・", "·", "&", ".", "-" inside), optionally in brackets, ending at a
#: space, punctuation or the line's end (a Thai name run on into the sentence, "ตามรายงาน
#: ของX ระบุ...", is no name); ``_NAME_EAST``: the run alone, for a form that ends it
_NAME_EAST = r"[\p{L}\p{N}][\p{L}\p{M}\p{N}・·&.\-]{0,23}?"
_OUTLET_EAST = rf"[「『《〈【“\"]?({_NAME_EAST})[」』》〉】”\"]?(?=[\s\p{{P}}]|$)"
#: credit labels opening a line: the label and its colon ("来源：", "出典：", "출처:",
#: "ที่มา:"); Thai labels that are credits by their words alone need none
_LABEL_EAST = (
    r"(?:(?:来源|來源|资料来源|資料來源|出处|出處|文章来源|本文来源|原文来源|出典|出典元|出所"
    r"|ソース|参照元|引用元|情報元|記事提供|元記事|初出|출처|기사[ \t]*제공|기사[ \t]*원문"
    r"|원문[ \t]*출처|콘텐츠[ \t]*제휴|ที่มา|แหล่งที่มา|อ้างอิง)[ \t]*[:：=][ \t]*"
    r"|(?:ขอบคุณข้อมูลจาก|เรียบเรียงจาก)[ \t]*[:：]?[ \t]*)"
)
#: "reprinted from / first published in X" and Thai "according to X's report"
_FROM_EAST = (
    r"(?:转载自|轉載自|本文首发于|首发于|首發於|原载于|原載於|原文刊载于|原文刊載於"
    r"|整理自|本文由|ตามรายงานของ|(?:เผยแพร่|ตีพิมพ์)ครั้งแรก(?:ที่|บน|ใน)(?:เว็บไซต์)?"
    r"|ต้นฉบับ(?:เผยแพร่|ตีพิมพ์)(?:ที่|บน|ใน)(?:เว็บไซต์)?)[ \t]*"
)
#: credits to an outlet in the forms of the Chinese, Japanese, Korean and Thai press: a
#: credit label opening a line (:data:`_LABEL_EAST`), "reprinted from / first published
#: in X" (:data:`_FROM_EAST`), "according to X's report" ("据X报道", "X 보도에 따르면"),
#: "first carried by X" ("X에 먼저 실렸", "Xより転載"). Read as :data:`_CREDIT_INTL`:
#: credits, never bylines.
_CREDIT_EAST = regex.compile(
    rf"^[ \t(（【\[*_—–-]*{_LABEL_EAST}{_OUTLET_EAST}"
    rf"|{_FROM_EAST}{_OUTLET_EAST}"
    rf"|据[ \t]*[「『《“]?({_NAME_EAST})[」』》”]?[ \t]*(?:的)?(?:报道|报导|消息)"
    rf"|據[ \t]*[「『《“]?({_NAME_EAST})[」』》”]?[ \t]*(?:的)?(?:報導|報道|消息)"
    rf"|(?:^|[ \t「『])({_NAME_EAST})(?:의)?[ \t]*보도에[ \t]*따르면"
    rf"|(?:^|[ \t「『])({_NAME_EAST})에[ \t]*(?:먼저|처음)[ \t]*(?:실렸|실린|게재)"
    rf"|(?:^|[ \t「『])({_NAME_EAST})(?:를|을)[ \t]*통해[ \t]*(?:처음|먼저)[ \t]*알려"
    r"|(?<![\p{Han}\p{Katakana}\p{Latin}\p{N}ー・&.\-])"
    r"([\p{Han}\p{Katakana}\p{Latin}\p{N}ー・&.\-]{2,24})[」』]?に(?:最初に|初めて)?掲載され"
    r"|(?<![\p{Han}\p{Katakana}\p{Latin}\p{N}ー・&.\-])"
    r"([\p{Han}\p{Katakana}\p{Latin}\p{N}ー・&.\-]{2,24})[」』]?(?:より|から)(?:転載|転電|引用)",
    regex.MULTILINE,
)


#: the words that make a name an outlet's (a masthead) in the press of Japanese, Chinese,
#: Korean and Thai: "…通信", "…新報", "…日报", "…신문", "สำนักข่าว…", "…นิวส์"; a name
#: the credit forms of :data:`_CREDIT_MASTHEAD` read must have one, so a person or an
#: office a text attributes a fact to ("警察によると", "경찰에 따르면") is no credit
_MASTHEAD_JA = (
    r"(?:通信社?|新聞|新報|報知|日報|時報|週報|週刊|タイムズ|ポスト|ジャーナル|ニュース"
    r"|テレビ|放送|デイリー|ウィークリー|トゥデイ|プレス|ヘラルド|トリビューン|ガゼット)"
)
_MASTHEAD_ZH = (
    r"(?:日报|晚报|早报|时报|周报|周刊|新闻网?|通讯社|电视台|网|报"
    r"|日報|時報|週報|新聞網?|通訊社|電視台|網)"
)
_PRESS_NAME_ZH = r"[\p{Han}\p{Latin}\p{N}·&]"
_MASTHEAD_KO = (
    r"(?:신문|일보|뉴스|통신|타임스|방송|미디어|저널|데일리|투데이|포스트|위클리|프레스|헤럴드)"
)
_MASTHEAD_TH = (
    r"(?:สำนักข่าว|ทีมข่าว|ศูนย์ข่าว|หนังสือพิมพ์|นิตยสาร|สถานีโทรทัศน์|นิวส์|เดลี่|ไทม์ส|โพสต์"
    r"|ทูเดย์|ออนไลน์)"
)
#: what follows a Korean outlet's name in a credit: "…의 보도에 따르면", "…에 따르면",
#: "…가 (…) 보도했다 / 전했다"
_CUE_KO = (
    r"(?:의[ \t]*(?:보도|기사)에[ \t]*따르면|[ \t]*(?:보도|기사)에[ \t]*따르면|에[ \t]*따르면"
    r"|(?:이|가|은|는)[ \t]+(?:\S+[ \t]+){0,3}?(?:보도했|전했|보도한|전한|보도하|전하))"
)
#: a word for a news outlet that may stand before its name in quotation marks, which
#: then needs no masthead word (미디어 전문지 '아메리칸 스크린 리뷰'에 따르면); Arabic: a
#: newspaper, agency, network, site, platform, magazine, channel, radio, before the name
#: or opening it inside the marks («شبكة رصيف الأخبار»)
_TYPE_KO = r"(?:매체|전문지|신문|일간지|주간지|통신사|방송사|방송|잡지|웹사이트|사이트|포털|언론)"
_TYPE_AR = r"(?:صحيفة|جريدة|وكالة|شبكة|موقع|منصة|مجلة|قناة|إذاعة)"
#: what a name of those scripts is made of, and where it starts (a line's start, a space,
#: punctuation or an opening bracket: the scripts write no space between words, so a
#: name read from anywhere would take the clause before it)
_PRESS_NAME_JA = r"[\p{Han}\p{Katakana}\p{Hiragana}ーA-Za-z0-9・&]"
_PRESS_START = r"(?:(?<=^|[\s、。，,：:「『《（(【“\"])|(?<=^|[\s(（])据)"
#: credits naming a masthead (one of the words above, in Arabic and Greek a word for a
#: newspaper, agency or site before the name) in the forms of the press of Japanese
#: ("Xによると", "Xが伝えています", "Xの報道", a "（X）" line), Chinese ("《X》报道",
#: "来自X"), Korean ("X에 따르면", "X가 보도했다", "(X)"), Thai ("Xรายงานว่า",
#: "(สำนักข่าวX)"), Arabic ("بحسب ما أوردته صحيفة "X"", "نقلت وكالة "X"") and Greek
#: ("σύμφωνα με την εφημερίδα «X»", "όπως μεταδίδει ο ιστότοπος X"). Read as
#: :data:`_CREDIT_EAST`: credits, never bylines; each name is the text's own words for
#: an outlet, which :func:`_unknown_credits` looks for in the other texts. In Japanese
#: and Korean a name before the masthead word is needed: the word alone is the common
#: noun ("공개한 뉴스에 따르면", "according to the news it released"; "新聞によると")
_CREDIT_MASTHEAD = regex.compile(
    rf"{_PRESS_START}(?!同)({_PRESS_NAME_JA}{{1,14}}?{_MASTHEAD_JA})[」』]?"
    r"(?:によると|によれば|の報道|の記事|の取材|が伝え|は伝え|も伝え|が報じ|は報じ|が報道|は報道"
    r"|が(?:[^。\n]{0,12})を伝え)"
    rf"|^[ \t]*[（(]({_PRESS_NAME_JA}{{1,14}}?{_MASTHEAD_JA})[）)][ \t]*$"
    rf"|《({_PRESS_NAME_ZH}{{1,14}}?{_MASTHEAD_ZH})》"
    r"(?:报道|报导|報導|報道|称|稱|消息|援引|指出|获悉|獲悉|发文|發文|刊文)"
    rf"|(?:来自|來自|援引|转引自|轉引自)[ \t]*《({_PRESS_NAME_ZH}{{1,14}}?{_MASTHEAD_ZH})》"
    rf"|(?<![\p{{Hangul}}\p{{Latin}}\p{{N}}])([\p{{Hangul}}\p{{Latin}}\p{{N}}]{{1,12}}{_MASTHEAD_KO})"
    rf"['’\"”」』]?{_CUE_KO}"
    rf"|{_TYPE_KO}[ \t]*['‘\"“「『]([^'’\"”」』\n]{{1,24}})['’\"”」』]{_CUE_KO}"
    rf"|^[ \t]*\(([\p{{Hangul}}\p{{Latin}}\p{{N}}]{{1,12}}{_MASTHEAD_KO})\)"
    rf"|(?:^|(?<=[\s(（]))(?!ตาม)([\p{{Thai}}A-Za-z0-9]{{0,20}}?{_MASTHEAD_TH}[\p{{Thai}}A-Za-z0-9]{{0,20}}?)"
    r"[ \t]*(?:รายงานว่า|รายงานข่าวว่า|รายงานเมื่อ)"
    rf"|\((?:สำนักข่าว)?([\p{{Thai}}A-Za-z0-9]{{0,20}}?{_MASTHEAD_TH}[\p{{Thai}}A-Za-z0-9]{{0,20}}?)\)"
    rf"|{_TYPE_AR}(?:[ \t]+(?:أنباء|الأنباء|أخبار))?[ \t]*[\"«“]([^\"»”\n]{{2,40}})[\"»”]"
    rf"|[\"«“]({_TYPE_AR}[ \t]+[^\"»”\n]{{2,40}})[\"»”]"
    r"|(?i:(?:σύμφωνα[ \t]+με|όπως[ \t]+(?:μεταδίδει|μετέδωσε|αναφέρει|ανέφερε|γράφει|έγραψε"
    r"|αποκαλύπτει|αποκάλυψε|σημειώνει|επισημαίνει|ενημερώνει)|κατά)[ \t]+"
    r"(?:(?:το|τον|την|τα|τις|τους|η|ο|οι|της|του)[ \t]+)?"
    r"(?:(?:δημοσίευμα|ρεπορτάζ|άρθρο|αποκάλυψη)[ \t]+(?:της|του|των)[ \t]+)?"
    r"(?:(?:εφημερίδας?|ιστοσελίδας?|ιστότοπο[συ]?|ιστοτόπου|πρακτορείου?|ειδησεογραφικ(?:ό|ού|ός)"
    r"|ενημερωτικ(?:ό|ού|ός)|site|portal|κανάλι|καναλιού|σταθμ(?:ός|ό|ού)|περιοδικ(?:ό|ού))"
    r"[ \t]+)+)"
    r"(?:[\"«“]([^\"»”\n]{2,40})[\"»”]"
    r"|(\p{Lu}[\p{L}\p{N}.\-]*(?:[ \t]+\p{Lu}[\p{L}\p{N}.\-]*){0,3}))"
    r"|(?i:(?:σύμφωνα[ \t]+με|όπως[ \t]+(?:μεταδίδει|μετέδωσε|αναφέρει|ανέφερε|γράφει|έγραψε))"
    r"[ \t]+(?:(?:το|τον|την|τα|η|ο|της|του)[ \t]+)?)«([^»\n]{2,40})»",
    regex.MULTILINE,
)


#: a letter of the scripts :data:`_CREDIT_EAST` reads (a text without one is not searched)
_EAST_SCRIPT = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}]")


#: where a credited name ends although capitalised words go on: a line break, or a full
#: stop (!, ?) after a word of four or more letters with a lower-case letter in it
#: ("... by Alaska State Troopers.\nAccording to the police report"); a stop after a
#: short or all-capital abbreviation ("U.S.", "St.") is inside the name
_NAME_END = regex.compile(r"\s*\n\s*|(?<=\b(?=\w*\p{Ll})\w{4,}[.!?])\s+")


#: the last word of a news outlet's name (a masthead: "the Harbour Post", "Rinkside
#: Review", "The Ballot Box Daily"): credit lines and bylines name outlets in forms the
#: credit phrases of :data:`_CREDIT` do not read ("By Jo Bloggs | The X Daily",
#: "Match report courtesy of X Review", "Reporting by the X Gazette desk")
MASTHEAD_WORDS = frozenset(
    "post times herald gazette tribune journal review digest monitor ledger dispatch "
    "courier chronicle observer insight weekly daily news briefing bulletin express "
    "telegraph examiner sentinel inquirer magazine".split()
)
#: a capitalised name after a credit word ("by", "for", "from", "at", "of", "courtesy
#: of", "source:", "credit:", a "|" separator) or at a line's start; it is an outlet's
#: only when it ends in a :data:`MASTHEAD_WORDS` word (:func:`credited_outlets`)
_MASTHEAD_CREDIT = regex.compile(
    r"(?:(?:\b(?:by|for|from|at|of|courtesy\s+of)|\b(?:source|credit)\s*:|\|)[ \t]+|^[ \t]*)"
    r"((?:[Tt]he[ \t]+)?(?-i:\p{Lu}[\w&'’-]*)(?:[ \t]+(?:&[ \t]+)?(?-i:\p{Lu}[\w&'’-]*)){1,5})",
    regex.IGNORECASE | regex.MULTILINE,
)


def _outlet_tokens(name: str) -> list[str]:
    """The words of a credited name, cut at a sentence end, without "the"."""
    name = _NAME_END.split(name, maxsplit=1)[0].rstrip(".!?")
    toks = [t for t in words(name) if t != "the"]
    if toks:  # "The Westbury Courier's politics team": the outlet's name
        toks[-1] = toks[-1].removesuffix("'s").removesuffix("’s")
    return toks


def _masthead(toks: list[str]) -> list[str] | None:
    """The name up to its last masthead word ("paddock ledger's race" -> "paddock
    ledger"), None without one or with no word before it."""
    bare = [t.removesuffix("'s").removesuffix("’s") for t in toks]
    ends = [i for i, t in enumerate(bare) if t in MASTHEAD_WORDS]
    if not ends or ends[-1] == 0:
        return None
    return bare[: ends[-1] + 1]


#: words before a masthead, in its sentence, that make the name a credit to another
#: outlet (it had the story first: "according to the gadgets desk at X Daily", "courtesy
#: of X Review", "Story credit: X News", "first appeared on X Ledger", "via X Post"), not
#: the byline of the text's own outlet ("By Jo Bloggs | X Daily", "Reporting by Jo Bloggs
#: for X Gazette")
_CREDIT_CUE = regex.compile(
    r"according\s+to|courtesy\s+of|\b(?:source|credit)s?\s*:|\bvia\b"
    r"|\b(?:first|originally|initially)\s+(?:\w+\s+){0,2}?"
    r"(?:reported|published|appeared|ran|broke|aired|carried)"
    r"|\b(?:republished|reprinted|syndicated)\b",
    regex.IGNORECASE,
)
#: a byline or imprint line ("By Jo Bloggs", "Reporting by ...", "— reported by ...",
#: "Posted by ...", "© 2026 The Harbour Gazette"): the text says who published it
_BYLINE_LINE = regex.compile(
    r"^\W{0,3}(?:(?i:reporting|reported|written|posted|filed|words|story|text|analysis)"
    r"\s+)?(?i:by)\s+\p{Lu}|^\W{0,3}(?:©|\((?i:c)\)\s|(?i:copyright)\b)"
)
_SENTENCE_STOP = regex.compile(r"[.!?]\s+(?=\p{Lu})")


@dataclass(frozen=True)
class OutletNames:
    """The outlets a text names in credit forms (:func:`outlet_names`)."""

    #: credits to another outlet: a credit phrase (:data:`_CREDIT`), a masthead with a
    #: credit cue before it in its sentence (:data:`_CREDIT_CUE`), or one named in the
    #: body ("an analyst at the X Monitor said")
    credits: frozenset[str]
    #: mastheads without a credit cue on a byline's place, the first or last lines: the
    #: outlet the text says published it ("Reporting by Jo Bloggs for The X Gazette")
    bylines: frozenset[str]


#: texts whose :func:`outlet_names` and byline lines are kept per process: every pair
#: with an article reads them again (an add's new article is in every one of its pairs;
#: 3 ms a call on a long text, ~4% of an add at 20,000 articles)
OUTLET_CACHE_SIZE = 4096


@lru_cache(maxsize=OUTLET_CACHE_SIZE)
def _end_lines(text: str, k: int, max_words: int) -> tuple[tuple[int, int], ...]:
    """Character spans of the lines on a byline's place: among the first and last ``k``
    non-empty lines of ``text``, those of at most ``max_words`` words (a byline is a
    short line; a sentence of prose there is body). Kept per text (a pure function)."""
    spans = [m.span() for m in _TEXT_LINE.finditer(text)]
    ends = spans[:k] + spans[-k:] if k else []
    return tuple((lo, hi) for lo, hi in ends if len(text[lo:hi].split()) <= max_words)


@lru_cache(maxsize=OUTLET_CACHE_SIZE)
def outlet_names(
    text: str, byline_lines: int = 3, byline_words: int = 16, byline_tail: int = 3
) -> OutletNames:
    """The outlets ``text`` credits and the mastheads its bylines name. A name stops at a
    sentence end (:data:`_NAME_END`): the capitalised first word of the next sentence is
    no part of it. A credit phrase is a credit, except "reported/published by X" with no
    "first" in a byline line ("— reported by Jo Bloggs for ...": a byline). A masthead is
    a credit when its sentence has a credit cue before it ("This story was first
    published by the technology desk of X Times") or it stands in
    the body, and a byline when it stands without a cue in one of the first or last
    ``byline_lines`` non-empty lines that has at most ``byline_words`` words, and at most
    ``byline_tail`` words follow the name on its line ("... for The X Gazette", "... the X
    Gazette research desk"; not "an interview at the X Tribune Festival in Austin, Texas").
    Kept per text (:data:`OUTLET_CACHE_SIZE`; a pure function, its answer immutable)."""
    ends = _end_lines(text, byline_lines, byline_words)
    credits: set[str] = set()
    bylines: set[str] = set()
    for m in _CREDIT.finditer(text):
        toks = _outlet_tokens(next((g for g in m.groups() if g), ""))
        if not toks or all(t in DATE_WORDS for t in toks):  # "published in January"
            continue
        at = m.start(1)
        plain = m.group(1) is not None and not _CREDIT_CUE.search(m.group(0))
        line = next(((lo, hi) for lo, hi in ends if lo <= at < hi), None)
        own = plain and line is not None and bool(_BYLINE_LINE.match(text[line[0] : line[1]]))
        (bylines if own else credits).add(" ".join(toks))
    for m in _CREDIT_INTL.finditer(text):  # credits, never a byline
        toks = _outlet_tokens(next((g for g in m.groups() if g), ""))
        if toks and not all(t in DATE_WORDS for t in toks):
            credits.add(" ".join(toks))
    # credits, never bylines, in forms written in other scripts: the East Asian and Thai
    # press's (only where a letter of those scripts is), and those naming a masthead
    east = _EAST_SCRIPT.search(text) is not None
    for form, read in ((_CREDIT_EAST, east), (_CREDIT_MASTHEAD, not text.isascii())):
        for m in form.finditer(text) if read else ():
            name = next((g for g in m.groups() if g), "").strip(" .-・·&")
            if len(name) >= 2 and not name.isdigit():
                credits.add(name.lower())
    for m in _MASTHEAD_CREDIT.finditer(text):
        toks = _masthead(_outlet_tokens(m.group(1)))
        if not toks:
            continue
        at = m.start(1)
        before = _SENTENCE_STOP.split(text[text.rfind("\n", 0, at) + 1 : at])[-1]
        line = next(((lo, hi) for lo, hi in ends if lo <= at < hi), None)
        tail = len(words(text[at : line[1]])) - len(toks) - 1 if line else 0
        tail += not m.group(1).lower().startswith("the")  # the count above took a "the"
        byline = line is not None and tail <= byline_tail and not _CREDIT_CUE.search(before)
        (bylines if byline else credits).add(" ".join(toks))
    return OutletNames(frozenset(credits), frozenset(bylines - credits))


def credited_outlets(text: str) -> set[str]:
    """Names of outlets a text names in credit forms, credits and bylines alike ("first
    reported by the Harbour Post", "By Jo Bloggs | The Ballot Box Daily")."""
    names = outlet_names(text)
    return set(names.credits | names.bylines)


def _own_outlet(name: str, outlet: str | None) -> bool:
    """Whether a credited ``name`` is the article's own ``outlet`` field (one contains the
    other, spaces and "the" left out: "harbour gazette" in "harbourgazette.com")."""
    own = "".join(t for t in words(outlet or "") if t != "the")
    bare = name.replace(" ", "")
    return bool(own) and bool(bare) and (bare in own or own in bare)


def signed(d: Doc, p: Any) -> bool:
    """Whether ``d`` says who published it: an ``outlet`` field, a masthead in a byline
    (:func:`outlet_names`), or a byline or imprint line (:data:`_BYLINE_LINE`) among its
    first or last ``p.byline_lines`` non-empty lines of at most ``p.byline_words`` words."""
    if d.article.outlet:
        return True
    text = d.article.text
    if outlet_names(text, p.byline_lines, p.byline_words, p.byline_tail).bylines:
        return True
    ends = _end_lines(text, p.byline_lines, p.byline_words)
    return any(_BYLINE_LINE.match(text[lo:hi].strip()) for lo, hi in ends)


def _claimed_outlets(d: Doc, other: Doc, p: Any) -> list[str]:
    """The outlets ``d`` names that count as its credits to another outlet.

    - Credits (a credit phrase in the running text, a credit cue) count, whoever they
      name, as they always have.
    - A byline (a masthead on a short line at the head or foot, :func:`outlet_names`)
      names the text's own publisher, not a source. With an ``outlet`` field the own
      publisher is known: a byline naming the field's outlet is the text's own and says
      nothing; one naming another outlet is that outlet's byline carried over, a credit.
    - Without an ``outlet`` field a byline is the text's own publisher as far as the text
      says. It counts only when the other text of the pair is unsigned (:func:`signed`):
      when both texts say who published them, two mastheads are two publishers' own and
      say nothing of order (an original signed "Reporting by Jo Bloggs for The Harbour
      Gazette" beside a wire copy signed by the wire); when one text alone is signed, by
      an outlet no other article of the pile names, it is read as a content farm's
      invented masthead on a text taken bare, as :func:`_unknown_credit` reads a credit.
      Known limit: an original signed with its own byline beside an unsigned copy of it,
      with no ``outlet`` fields and no other article naming that outlet, reads the wrong
      way.
    """
    names = outlet_names(d.article.text, p.byline_lines, p.byline_words, p.byline_tail)
    own = d.article.outlet
    out = list(names.credits)
    if own:
        out += [n for n in names.bylines if not _own_outlet(n, own)]
    elif not signed(other, p):
        out += names.bylines
    return sorted(out)


def _unknown_credits(d: Doc, other: Doc, other_lower: str, c: PairCtx) -> list[str]:
    """Outlets ``d`` credits (:func:`_claimed_outlets`) that the other text and every
    other article never name."""
    phrase = getattr(c.support, "phrase_support", None)
    out = []
    for name in _claimed_outlets(d, other, c.params):
        if name in other_lower:
            continue
        toks = name.split() if " " in name or name.isascii() else words(name)
        if phrase is None:
            continue  # without a corpus there is no telling an outlet found nowhere else
        if len(toks) == 1:
            known = c.support(toks[0], c.a.id, c.b.id) > 0
        else:
            from unspin.corpus import bigram_hashes

            known = bool((phrase(bigram_hashes(toks), c.a.id, c.b.id) > 0).all())
        if not known:
            out.append(name)
    return out


@direction_evidence("unknown_credit")
def _unknown_credit(c: PairCtx) -> tuple[float, str] | None:
    """A credit to an outlet that the other text and no other article of the pile names
    ("first reported by the Harbour Post"): content farms credit invented or obscure
    outlets; the side with such a credit is the derivative. Bylines count only as
    :func:`_claimed_outlets` says (a text's own masthead is no credit). One language
    only: across languages the other text names the outlet in its own words, or credits
    it in a phrasing the credit pattern (English) does not read."""
    if not c.same_language:
        return None
    la, lb = c.lowered
    ua, ub = _unknown_credits(c.a, c.b, lb, c), _unknown_credits(c.b, c.a, la, c)
    if len(ua) == len(ub):
        return None
    side, names_ = (c.b, ub) if len(ub) > len(ua) else (c.a, ua)
    shown = ", ".join(repr(n) for n in names_[:2])
    return float(len(ub) - len(ua)), f"{side.id} credits {shown}, named nowhere else"


def _fluency_weighed(c: PairCtx, value: float) -> bool:
    """``fluency`` is weighed only in ``ClassifyParams.fluency_langs``, and where the
    language was not determined ("und": short notices of figures, read as before)."""
    return c.a.lang in c.params.fluency_langs or c.a.lang == "und"


@direction_evidence(
    "fluency",
    weighed=_fluency_weighed,
    not_weighed="read only in the languages where it was measured (fluency_langs)",
)
def _fluency(c: PairCtx) -> tuple[float, str] | None:
    """Which text's own wording the rest of the pile uses: of each text's word pairs the
    other lacks, the share that other articles use too. Machine translation, synonym
    spinners and paraphrasers put words together as nobody writes them ("ample consumer",
    "gentleman Callaghan"); a source's wording is the language of its beat. Same language
    only; needs ``min_fluency_pairs`` such word pairs a side and a corpus. Weighed only
    in ``ClassifyParams.fluency_langs`` (see there)."""
    phrase = getattr(c.support, "phrase_support", None)
    if phrase is None or not c.same_language:
        return None
    from unspin.corpus import bigram_hashes

    ha = np.unique(bigram_hashes(words(compared_text(c.a))))
    hb = np.unique(bigram_hashes(words(compared_text(c.b))))
    own_a, own_b = np.setdiff1d(ha, hb), np.setdiff1d(hb, ha)
    n = c.params.min_fluency_pairs
    if len(own_a) < n or len(own_b) < n:
        return None
    fa = float((phrase(own_a, c.a.id, c.b.id) > 0).mean())
    fb = float((phrase(own_b, c.a.id, c.b.id) > 0).mean())
    return fa - fb, (
        f"other articles use {fa:.0%} of {c.a.id}'s own word pairs, {fb:.0%} of {c.b.id}'s"
    )


def _unique_facts(mine: DocFacts, theirs: DocFacts) -> int:
    """Details only ``mine`` has: figures, names the other text never uses, quotations."""
    return (
        len(mine.figures - theirs.figures)
        + len(unused_names(mine, theirs))
        + sum(q not in theirs.joined for q in mine.quotes)
    )


@direction_evidence("details")
def _details(c: PairCtx) -> tuple[float, str] | None:
    """A rewrite drops and merges details of its source and rarely adds checkable ones:
    the log ratio of the details only each text has (figures, names, quotations).
    Whole rewordings (``spun``) only: a copy's edits (a name or figure put for another, an
    added credit line) and a passage's host article say nothing about which text is the
    rewrite."""
    if not c.same_language or c.relation != "spun":
        return None
    ua, ub = c.unique_details
    if ua == ub:
        return None
    return math.log((1 + ua) / (1 + ub)), f"details only in {c.a.id}: {ua}, only in {c.b.id}: {ub}"


def same_language_reuse(c: PairCtx, skip: Sequence[str]) -> bool:
    """Whether the pair is copy, spin or partial reuse within one language, not one of
    ``skip``: where the direction evidence read from the two texts' own words
    (``word_rarity``, ``translated_names``) applies."""
    return c.same_language and c.relation in ("spun", "copy", "partial") and c.a.lang not in skip


@direction_evidence("word_rarity")
def _word_rarity(c: PairCtx) -> tuple[float, str] | None:
    """A machine translation there and back puts a dictionary's word where the writer
    chose one ("millares" for "miles", "acontecimiento" for "evento"): of the words each
    side's aligned text has and the other's lacks, the mean word frequency (wordfreq's
    Zipf scale) in the text's language; the side whose own words are rarer is the
    derivative. Same language; copies, spins and partial reuse; not in
    ``word_rarity_skip_langs`` nor a language wordfreq does not list; each side needs
    ``word_rarity_min_words`` such words. Measured on Apertium round trips of Spanish,
    French, Italian and Portuguese articles (docs/benchmarks.md, session 33)."""
    p = c.params
    if not same_language_reuse(c, p.word_rarity_skip_langs):
        return None
    wa = {w for i in c.ia for w in words(c.a.sentences[i].text) if w.isalpha()}
    wb = {w for j in c.ib for w in words(c.b.sentences[j].text) if w.isalpha()}
    own_a, own_b = sorted(wa - wb), sorted(wb - wa)
    if min(len(own_a), len(own_b)) < p.word_rarity_min_words:
        return None
    za = [zipf(w, c.a.lang) for w in own_a]
    zb = [zipf(w, c.b.lang) for w in own_b]
    if None in za or None in zb:
        return None
    ma, mb = math.fsum(za) / len(za), math.fsum(zb) / len(zb)  # type: ignore[arg-type]
    if ma == mb:
        return None
    return ma - mb, (
        f"words only in {c.a.id} average Zipf {ma:.2f}, only in {c.b.id} {mb:.2f} "
        "(the rarer wording is the derivative's)"
    )


#: a sentence end inside a sentence ("... U.K. Farmers", "... an hour?\" he asked",
#: "surgery... medical"): a place where one sentence splitter ends a sentence and another
#: (or the same on a machine translation's wording) does not
_INNER_END = regex.compile(r"(?:\.\.\.|…|[.!?])[\"”’')\]]*\s+(?=\S)")


def _split_not_merge(d: Doc, o: Doc, group: list[int], j: int, ratio: float) -> bool:
    """Whether sentences ``group`` of ``d`` taken up by sentence ``j`` of ``o`` are one
    sentence cut in two rather than sentences merged: the pieces are consecutive, ``o``'s
    sentence has a sentence end inside it for every cut, and the pieces together are about
    as long as it (within a factor ``ratio`` in words: they carry all of it, nothing was
    dropped). A machine translation that mangles "U.K." into "Or.K." or starts a sentence
    after "..." is cut there by the sentence splitter, and its round trip then reads as
    the source having merged two sentences; a rewriter's merge joins two whole sentences
    with a conjunction or a comma, so its merged sentence has no sentence end inside."""
    ids = sorted(group)
    if ids[-1] - ids[0] != len(ids) - 1:
        return False
    merged = o.sentences[j].text.strip()
    if len(_INNER_END.findall(merged)) < len(ids) - 1:
        return False
    pieces = sum(len(words(d.sentences[i].text)) for i in ids)
    return 1.0 / ratio <= pieces / max(1, len(words(merged))) <= ratio


def _merges_into(
    d: Doc, o: Doc, r: BestRows | None, bar: float, split_ratio: float
) -> tuple[int, list[int]]:
    """Sentences of ``d`` merged into one sentence of ``o``: each content sentence of ``d``
    goes to its best counterpart in ``o`` (``r``: :func:`best_rows` of ``d`` against ``o``;
    cosine >= ``bar``); a sentence of ``o`` that takes two or more of them and is longer
    (in words) than each is a merge of them, unless it is one sentence the splitter cut in
    two on one side only (:func:`_split_not_merge`, ``split_ratio``). The number merged
    beyond the first, and the merged sentences of ``o`` (a few shown)."""
    if r is None:
        return 0, []
    took: dict[int, list[int]] = {}
    for i, k, s in zip(r.ids, r.arg, r.best):
        if s >= bar:
            took.setdefault(r.ios[int(k)], []).append(i)
    n, shown = 0, []
    for j, group in took.items():
        if len(group) < 2:
            continue
        longest = max(len(words(d.sentences[i].text)) for i in group)
        if len(words(o.sentences[j].text)) <= longest:
            continue
        if _split_not_merge(d, o, group, j, split_ratio):
            continue
        n += len(group) - 1
        shown.append(j)
    return n, shown


def merges_weighed(c: PairCtx, v: float) -> bool:
    """Whether a ``merged_sentences`` value ``v`` is weighed: the text it calls derived
    (the merging one: ``b`` when ``v`` > 0) is at most ``ClassifyParams.merge_lenratio`` of
    the other's length in characters. A rewriter that condenses merges its source's
    sentences; one that writes as much as its source in sentences of its own merges or
    splits by its voice (short-sentence writers split), which says nothing of order. The
    value is kept for the machine-made recogniser, which was fitted on it as it is."""
    la, lb = len(c.a.article.text), len(c.b.article.text)
    der, other = (lb, la) if v > 0 else (la, lb)
    return der <= c.params.merge_lenratio * other


@direction_evidence(
    "merged_sentences",
    weighed=merges_weighed,
    not_weighed="the merging text is not condensed (its voice)",
)
def _merged_sentences(c: PairCtx) -> tuple[float, str] | None:
    """A rewriter merges sentences of its source into one longer sentence (a condensed
    rewrite above all, and a paraphrase that joins a short sentence to the next); the
    reverse, one sentence whose content two shorter sentences of the other text each take
    up, is what a rewriter that splits does, and less often. Sentences of ``a`` merged
    into ``b`` per ``merge_unit`` content sentences of ``a``, minus the same of ``b``
    merged into ``a`` (:func:`_merges_into`, sentence cosine >= ``merge_match``; a sentence
    the splitter cut in two on one side only is no merge, ``split_ratio``); as many
    merged each way say nothing. Machine translation and spinners keep their source's
    sentences one for one and so say nothing here. One language only (the cosines of a
    sentence and its translation run lower). Weighed only where the merging text is
    condensed (:func:`merges_weighed`)."""
    if not c.same_language:
        return None
    bar, split = c.params.merge_match, c.params.split_ratio
    na, into_b = _merges_into(c.a, c.b, c.rows[0], bar, split)
    nb, into_a = _merges_into(c.b, c.a, c.rows[1], bar, split)
    if na == nb:
        return None
    unit = c.params.merge_unit
    ra, rb = unit * na / len(c.fa.content), unit * nb / len(c.fb.content)
    return ra - rb, (
        f"sentences merged into one: {na} of {c.a.id} into {len(into_b)} of {c.b.id}, "
        f"{nb} of {c.b.id} into {len(into_a)} of {c.a.id}"
    )


def style_logit(p: float) -> float:
    """Log-odds of a probability (kept finite)."""
    p = min(max(p, 1e-6), 1.0 - 1e-6)
    return math.log(p / (1.0 - p))


def _style_lead_value(c: PairCtx, v: float, detail: str) -> tuple[float, str]:
    """The style gap as the lead stage reads it: outside English the two texts' style
    log-odds apart over ``ClassifyParams.style_logit_scale`` (clipped to [-1, 1]) rather
    than their probabilities' difference ``v``. The shape-only model of other languages is
    calibrated on their texts pooled, so one language's originals sit near 0 or 1
    (Russian ~0.85, Spanish ~0.05) and a rewrite's gap in probability is small there; in
    log-odds it is the gap it is elsewhere. Only where the style leads (a pair that does
    not read machine-made): where it decides beside the rest, machine translation's
    round trips read more model-written than their sources as often as not, and the
    probability difference is kept (docs/benchmarks.md, session 34)."""
    scale = c.params.style_logit_scale
    pa, pb = c.fa.style, c.fb.style
    if c.a.lang == "en" or scale <= 0 or pa is None or pb is None:
        return v, detail
    gap = style_logit(pb) - style_logit(pa)
    return max(-1.0, min(1.0, gap / scale)), f"{detail}; log-odds apart {abs(gap):.2f}"


@direction_evidence("model_style", lead_value=_style_lead_value)
def _model_style(c: PairCtx) -> tuple[float, str] | None:
    """How much more the one text reads as written by a language model than the other:
    the difference of the two calibrated style probabilities (:attr:`DocFacts.style`, the
    shipped :class:`StyleModel`), graded in [-1, 1] (+: ``b`` reads more model-written, so
    ``a`` is the source). Content farms rewrite with language models; the outlets they copy
    from are written by people. A decider (``ClassifyParams.decider_evidence``): weighed
    only where the other evidence is unsure (:func:`direction_score`), since machine
    translation and thesaurus spinning, which the model reads as not model-written, leave
    a noisy gap the machine-artefact evidence is surer about. Silent across languages
    (one-way translation), where a side has no style (no model for its language, too few
    words of its own) and on anything but a whole rewording (``spun``): a copy keeps its
    source's words and a passage's host article is its own, so a style gap there is two
    people's."""
    if not c.same_language or c.relation != "spun":
        return None
    pa, pb = c.fa.style, c.fb.style
    if pa is None or pb is None or pa == pb:
        return None
    more = c.b if pb > pa else c.a
    return pb - pa, (
        f"reads more as written by a language model: {more.id} "
        f"(probability {c.a.id} {pa:.2f}, {c.b.id} {pb:.2f})"
    )


def _foreign_rate(d: Doc, other_lang: str, bar_other: float, bar_own: float) -> float:
    """Words of ``d`` (per 100) common in ``other_lang`` and rare in ``d``'s language."""
    ws = [w for w in words(compared_text(d)) if w.isalpha() and len(w) > 2]
    if not ws:
        return 0.0
    n = 0
    for w in ws:
        zo, zd = zipf(w, other_lang), zipf(w, d.lang)
        if zo is not None and zd is not None and zo >= bar_other and zd < bar_own:
            n += 1
    return 100.0 * n / len(ws)


@direction_evidence("untranslated")
def _untranslated(c: PairCtx) -> tuple[float, str] | None:
    """A translation carries words of its source's language it did not translate (names of
    bodies, titles, common words a system left alone); the source rarely carries words of
    its translation's language: per 100 words, words common in the other text's language
    and rare in one's own. Across languages only."""
    if c.same_language or "und" in (c.a.lang, c.b.lang):
        return None
    p = c.params
    ra = _foreign_rate(c.a, c.b.lang, p.foreign_zipf, p.own_rare_zipf)
    rb = _foreign_rate(c.b, c.a.lang, p.foreign_zipf, p.own_rare_zipf)
    if ra == rb:
        return None
    return rb - ra, (
        f"words of the other language per 100: {c.a.id} ({c.a.lang}) {ra:.1f}, "
        f"{c.b.id} ({c.b.lang}) {rb:.1f}"
    )


def _kept_rate(d: Doc, other: Doc, other_words: frozenset[str], p: Any) -> tuple[float, list[str]]:
    """Words of ``d`` (per 100) written in lower case (a word, not a name) that the other
    text has too and that belong to the other text's language, not ``d``'s: common there
    (``kept_zipf_other``), rare in ``d``'s own (``kept_own_rare``: not a word both
    languages write, "era", "per", "met") and at least ``kept_zipf_gap`` more frequent
    there. A few shown."""
    toks = [t for t in _LOWER_WORD.findall(compared_text(d)) if len(t) > 2]
    if not toks:
        return 0.0, []
    kept = []
    for t in toks:
        w = t.replace("’", "'")
        if w not in other_words:
            continue
        zo, zd = zipf(w, other.lang), zipf(w, d.lang)
        if zo is None or zd is None or zd >= p.kept_own_rare:
            continue
        if zo >= p.kept_zipf_other and zo - zd >= p.kept_zipf_gap:
            kept.append(w)
    return 100.0 * len(kept) / len(toks), kept


@direction_evidence("kept_words")
def _kept_words(c: PairCtx) -> tuple[float, str] | None:
    """Words a translation left in its source's language: lower-case words (not names)
    that both texts carry verbatim and that are words of one text's language, not the
    other's ("los shoppers", "the ayuntamiento"). Per 100 words, the other side's rate
    minus one's own; across languages only. Unlike ``untranslated`` a word counts only
    when the other text has it, so the frequency bars can be lower: whatever a machine
    translator did not know, it passed through."""
    if c.same_language or "und" in (c.a.lang, c.b.lang):
        return None
    ra, ka = _kept_rate(c.a, c.b, c.fb.words, c.params)
    rb, kb = _kept_rate(c.b, c.a, c.fa.words, c.params)
    if ra == rb:
        return None
    side, shown = (c.b, kb) if rb > ra else (c.a, ka)
    return rb - ra, (
        f"words of the other language kept per 100: {c.a.id} {ra:.1f}, {c.b.id} {rb:.1f} "
        f"({side.id}: {', '.join(dict.fromkeys(shown[:4]))})"
    )


#: a decimal written with a point ("3.5", "0.25"; not "1.250", a group of thousands)
_POINT_DECIMAL = regex.compile(r"(?<![\d.,])\d+\.\d{1,2}(?![\d]|[.,]\d)")
#: thousands grouped with commas ("12,500", "2,345,000")
_COMMA_GROUPS = regex.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d]|[.,]\d)")
#: a decimal written with a comma ("3,5")
_COMMA_DECIMAL = regex.compile(r"(?<![\d.,])\d+,\d{1,2}(?![\d]|[.,]\d)")
#: thousands grouped with points ("1.200", "40.000")
_POINT_GROUPS = regex.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?![\d]|[.,]\d)")


def _number_style(lang: str, p: Any) -> str | None:
    if lang in p.decimal_point_langs:
        return "point"
    if lang in p.decimal_comma_langs:
        return "comma"
    return None


def number_formats(text: str) -> tuple[int, int]:
    """Numbers written the decimal-point way ("3.5", "12,500") and the decimal-comma way
    ("3,5", "12.500") in a text. A number that reads either way ("1,250" as a group of
    thousands or a decimal with three places) is counted by its grouping."""
    point = len(_POINT_DECIMAL.findall(text)) + len(_COMMA_GROUPS.findall(text))
    comma = len(_COMMA_DECIMAL.findall(text)) + len(_POINT_GROUPS.findall(text))
    return point, comma


@direction_evidence("number_format")
def _number_format(c: PairCtx) -> tuple[float, str] | None:
    """Figures written in the other language's convention: a text in a decimal-comma
    language (Spanish "3,5", "12.500") with decimal points and comma-grouped thousands
    ("3.5", "12,500"), or the other way round, keeps its source's number format, as
    machine translation does. The log ratio of such figures on each side; only for two
    languages of different conventions (``decimal_point_langs``, ``decimal_comma_langs``)."""
    if c.same_language:
        return None
    sa, sb = _number_style(c.a.lang, c.params), _number_style(c.b.lang, c.params)
    if sa is None or sb is None or sa == sb:
        return None
    pa, ca = number_formats(compared_text(c.a))
    pb, cb = number_formats(compared_text(c.b))
    fa = ca if sa == "point" else pa  # figures in a's text written the other way
    fb = cb if sb == "point" else pb
    if fa == fb:
        return None
    return math.log((1 + fb) / (1 + fa)), (
        f"figures in the other language's number format: {c.a.id} ({c.a.lang}) {fa}, "
        f"{c.b.id} ({c.b.lang}) {fb}"
    )


def capped_evidence(c: PairCtx, name: str) -> tuple[float, str] | None:
    """Direction evidence ``name`` of the pair, its value clipped to
    ``[-evidence_cap, evidence_cap]`` (None: it has nothing to say)."""
    got = DIRECTION_EVIDENCE[name](c)
    if got is None:
        return None
    cap = c.params.evidence_cap
    return max(-cap, min(cap, float(got[0]))), got[1]


def direction_values(c: PairCtx) -> list[float]:
    """Each configured direction evidence's clipped value, 0 where it says nothing: the
    row the direction weights are fitted on (``bench/fit_classify.py``)."""
    out = []
    for name in c.params.direction_evidence:
        got = capped_evidence(c, name)
        out.append(0.0 if got is None else got[0])
    return out


def machine_mass(p: Any, out: Sequence[Contribution]) -> float:
    """The weighted mass of the machine-made evidence (``ClassifyParams.machine_evidence``:
    translation and spinning artefacts, name variants, ...) among a pair's direction
    contributions: the sum of their absolute weighted values, whichever way they point.
    A pair at or over ``machine_bar`` reads as made by a machine (MT, a thesaurus
    spinner), where the style of model-written text says nothing."""
    return sum(abs(x.weight) for x in out if x.name in p.machine_evidence)


#: recogniser features that are not direction evidence: the length ratio of the two texts
#: (the typing feature ``lenratio``: shorter over longer, in characters) and the style
#: probabilities of the more and the less model-written text (:attr:`DocFacts.style`)
RECOGNISER_PAIR_FEATURES = ("lenratio", "style_max", "style_min")


def recogniser_features(
    names: Sequence[str],
    values: dict[str, float],
    styles: tuple[float | None, float | None],
    lenratio: float,
) -> list[float]:
    """The machine-made recogniser's features of a pair, in the order of ``names``: for a
    direction evidence its magnitude (``|value|``, clipped as weighed; 0 where it says
    nothing: which way it points says nothing about who made the pair), else one of
    :data:`RECOGNISER_PAIR_FEATURES`. Shared by :func:`direction_score` and the fitting
    script (``bench/fit_machine_recogniser.py``), so both read a pair alike."""
    known = [s for s in styles if s is not None]
    pair = {
        "lenratio": lenratio,
        "style_max": max(known) if known else 0.0,
        "style_min": min(known) if known else 0.0,
    }
    return [pair[n] if n in pair else abs(values.get(n, 0.0)) for n in names]


def _recogniser_styles(c: PairCtx) -> tuple[float | None, float | None]:
    """The two style probabilities as the machine-made recogniser reads them. It was
    fitted on the English model's, where an original reads low; the shape-only model of
    other languages reads one language's originals near 0 and another's near 1 (Russian,
    Polish, Turkish 0.8-0.95), which its ``style_min`` weight took for a machine's pair.
    So outside English the lower side is put at ``ClassifyParams.recogniser_style_base``
    and the higher one at the same log-odds gap above it (docs/benchmarks.md, session 34);
    0 reads them as they are."""
    pa, pb = c.fa.style, c.fb.style
    base = c.params.recogniser_style_base
    if c.a.lang == "en" or base <= 0 or pa is None or pb is None:
        return pa, pb
    gap = abs(style_logit(pa) - style_logit(pb))
    lo, hi = logistic(style_logit(base)), logistic(style_logit(base) + gap)
    return (lo, hi) if pa <= pb else (hi, lo)


def recogniser_probability(p: Any, feats: Sequence[float]) -> float:
    """Probability that a machine (MT round trip, thesaurus spinner) made the pair rather
    than a language model or a person: the logistic model ``machine_weights`` /
    ``machine_bias`` of :class:`unspin.classify.ClassifyParams` over
    :func:`recogniser_features`."""
    return logistic(p.machine_bias + sum(w * x for w, x in zip(p.machine_weights, feats)))


def logistic(z: float) -> float:
    """1 / (1 + e^-z), with ``z`` clamped to +-50 so a far-off score never overflows."""
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def machine_made(c: PairCtx, out: Sequence[Contribution]) -> tuple[bool, str]:
    """Whether the pair reads made by a machine, and the words saying why: outside
    English first a pair that keeps its sentences' meaning one for one
    (``ClassifyParams.machine_sentence_sim_intl``), then the learned recogniser
    (``ClassifyParams.machine_model``: :func:`recogniser_probability` at or over
    ``machine_cut``, with its two strongest features) or, with it off, session 16's bar
    on the weighted mass of the machine evidence (:func:`machine_mass`)."""
    p = c.params
    bar = p.machine_sentence_sim_intl
    if bar > 0 and c.same_language and c.a.lang != "en":
        kept = float(TYPING_FEATURES["mean_hi"](c))
        if kept >= bar:
            return True, (
                f"sentences kept one for one (mean best sentence cosine {kept:.2f}, at or "
                f"over {bar:g}): no language model's rewording"
            )
    if not p.machine_model:
        mass = machine_mass(p, out)
        word = "at or over" if mass >= p.machine_bar else "under"
        return mass >= p.machine_bar, f"machine evidence {mass:.2f} {word} {p.machine_bar:g}"
    values = {x.name: x.value for x in out}
    lenratio = float(TYPING_FEATURES["lenratio"](c))
    feats = recogniser_features(p.machine_features, values, _recogniser_styles(c), lenratio)
    prob = recogniser_probability(p, feats)
    terms = sorted(
        zip(p.machine_features, feats, p.machine_weights), key=lambda t: -abs(t[1] * t[2])
    )
    top = ", ".join(f"{n} {x:.2f} ({w * x:+.2f})" for n, x, w in terms[:2] if w * x != 0.0)
    word = "at or over" if prob >= p.machine_cut else "under"
    return prob >= p.machine_cut, (
        f"machine-made probability {prob:.2f} {word} {p.machine_cut:g}"
        + (f" (strongest: {top})" if top else "")
    )


def _reads_written(c: PairCtx) -> bool:
    """Whether one text of the pair reads as written by a language model (its style
    probability at least ``ClassifyParams.lead_written``, outside English
    ``lead_written_intl``; 0: always): the lead stage's
    condition, since a pair of two texts people or machines wrote has no model-written
    side for the style to point at."""
    bar = c.params.lead_written if c.a.lang == "en" else c.params.lead_written_intl
    if bar <= 0:
        return True
    styles = [s for s in (c.fa.style, c.fb.style) if s is not None]
    return bool(styles) and max(styles) >= bar


def condensed_lead(c: PairCtx) -> tuple[float, str] | None:
    """``(value, detail)`` when the pair reads as a condensed rewrite of its longer text
    (> 0: ``a`` is the source), else None. A same-language pair typed ``spun``, the shorter
    text at most ``ClassifyParams.condensed_lenratio`` of the longer's length, and the
    longer holding at least ``condensed_details`` times the details only it has (the
    ``details`` evidence's counts, +1 each) as the shorter: a rewrite drops and merges its
    source's details and rarely adds checkable ones. The value is the details' log ratio
    (as the ``details`` evidence), read only in that direction: a shorter text richer in
    details than a longer one is no condensed rewrite, and the other evidence speaks. Nor
    where one text credits an outlet the pile names nowhere else (``unknown_credit``) and
    the credit points the other way: a framed rewrite's byline and masthead are names only
    it has; the credit tells."""
    p = c.params
    if p.condensed_weight <= 0 or not c.same_language or c.relation != "spun":
        return None
    der, src = (c.a, c.b) if c.short_side == 0 else (c.b, c.a)
    ratio = len(der.article.text) / max(len(src.article.text), 1)
    if ratio > p.condensed_lenratio:
        return None
    ua, ub = c.unique_details
    shorter, longer = (ua, ub) if c.short_side == 0 else (ub, ua)
    if (1 + longer) < p.condensed_details * (1 + shorter):
        return None
    value = math.log((1 + ua) / (1 + ub))
    credit = capped_evidence(c, "unknown_credit")
    if credit is not None and credit[0] * value <= 0:
        return None  # a credit to an outlet named nowhere else says which is the rewrite
    return value, (
        f"a condensed rewrite: {der.id} is {ratio:.0%} of {src.id}'s length, and details "
        f"only in {src.id}: {longer}, only in {der.id}: {shorter}"
    )


def credit_lead(c: PairCtx, out: Sequence[Contribution]) -> tuple[float, str] | None:
    """``(value, detail)`` of the pair's weighed ``unknown_credit`` contribution among
    ``out`` (> 0: ``a`` is the source) when it leads the pair's direction: a
    same-language pair outside ``credit_lead_skip_langs`` where one text credits more
    outlets that the other text and no other article name, and the other text is longer
    than ``condensed_lenratio`` of the crediting one's length (a condensed text may have
    dropped a credit its source had); None otherwise (and with ``credit_lead_weight``
    0)."""
    p = c.params
    if p.credit_lead_weight <= 0 or not c.same_language or c.a.lang in p.credit_lead_skip_langs:
        return None
    got = next(((x.value, x.detail) for x in out if x.name == "unknown_credit"), None)
    if got is None or got[0] == 0.0:
        return None
    # a text at most ``condensed_lenratio`` of the crediting one's length may have dropped
    # the credit in condensing (an original citing an outlet the pile names nowhere else)
    crediting, other = (c.b, c.a) if got[0] > 0 else (c.a, c.b)
    if len(other.article.text) <= p.condensed_lenratio * len(crediting.article.text):
        return None
    return got


def direction_score(c: PairCtx) -> tuple[float, list[Contribution]]:
    """Weighted sum of the direction evidence (> 0: ``a`` is the source) and each
    evidence's contribution (evidence that has nothing to say is left out), in two stages,
    after two checks: a condensed rewrite (:func:`condensed_lead`) is directed by its
    details, added with ``condensed_weight`` to the rest, and no lead or decider is weighed;
    else, outside English, a credit to an outlet named nowhere else (:func:`credit_lead`)
    is added with ``credit_lead_weight`` to the rest, likewise.

    1. Where the pair does not read as made by a machine (:func:`machine_made`: the
       learned recogniser, or with it off the mass bar) and one text reads model-written
       (``lead_written``), a lead evidence (``ClassifyParams.lead_evidence``, one of the
       deciders: the style of model-written text) whose value reaches ``lead_min`` in
       magnitude is added with ``lead_weight`` whatever the rest says: on model-written
       rewrites the other evidence, tuned on machine-made derivatives, is often sure and
       wrong. The other deciders, if any, are then not weighed.
    2. Otherwise (a machine-made pair, or a lead value too small) the deciders
       (``ClassifyParams.decider_evidence``) are added only when the sum of the rest is
       under ``decider_bar`` in magnitude: they settle what the rest leaves unsure and
       never overturn what it is sure of. A lead evidence that would have led on a
       machine-made pair and is not weighed is recorded with weight 0, saying why."""
    p = c.params
    z = 0.0
    out: list[Contribution] = []
    deciders: list[tuple[str, float]] = []
    condensed = condensed_lead(c)
    for name, w in zip(p.direction_evidence, p.direction_weights):
        if name in p.decider_evidence:
            deciders.append((name, w))
            continue
        got = capped_evidence(c, name)
        if got is None:
            continue
        v, detail = got
        if v == 0.0 or w == 0.0:
            continue
        gate = DIRECTION_GATES.get(name)
        if gate is not None and not gate[0](c, v):
            out.append(Contribution("direction", name, v, 0.0, f"{detail}; not weighed: {gate[1]}"))
            continue
        z += w * v
        out.append(Contribution("direction", name, v, w * v, detail))
    rest = z
    credit = credit_lead(c, out) if condensed is None else None
    if credit is not None:
        v, why = credit
        w = p.credit_lead_weight
        why = f"{why}; leads (weight {w:g}, the rest {rest:+.2f}): a machine adds no credit"
        return z + w * v, [*out, Contribution("direction", "credit_lead", v, w * v, why)]
    if condensed is not None:
        v, why = condensed
        why = f"{why}; leads (weight {p.condensed_weight:g}, the rest {rest:+.2f})"
        return z + p.condensed_weight * v, [
            *out,
            Contribution("direction", "condensed", v, p.condensed_weight * v, why),
        ]
    leading = p.lead_weight > 0 and bool(p.lead_evidence) and _reads_written(c)
    by_machine, machine = machine_made(c, out) if leading else (False, "")
    got_of = {
        name: capped_evidence(c, name)
        for name, w in deciders
        if w != 0.0 or (leading and name in p.lead_evidence)
    }
    held: list[Contribution] = []  # leads not weighed: the pair reads machine-made
    if leading:
        led = []
        for name, _ in deciders:
            got = got_of.get(name)
            reading = DIRECTION_LEAD_VALUES.get(name)
            if reading is not None and got is not None:
                got = reading(c, *got)
            if name not in p.lead_evidence or got is None or abs(got[0]) < p.lead_min:
                continue
            v, detail = got
            if by_machine:
                held.append(
                    Contribution("direction", name, v, 0.0, f"{detail}; not led: {machine}")
                )
                continue
            why = (
                f"{detail}; leads (weight {p.lead_weight:g}, the rest {rest:+.2f}): the pair "
                f"does not read machine-made ({machine})"
            )
            led.append(Contribution("direction", name, v, p.lead_weight * v, why))
        if led:
            return z + sum(x.weight for x in led), out + led
    if abs(z) >= p.decider_bar:
        return z, out + held
    for name, w in deciders:
        got = got_of.get(name) if w != 0.0 else None
        if got is None or got[0] == 0.0:
            continue
        v, detail = got
        z += w * v
        why = f"{detail}; weighed as the rest ({rest:+.2f}) is under {p.decider_bar:g}"
        if any(x.name == name for x in held):
            why += f" (not led: {machine})"
            held = [x for x in held if x.name != name]
        out.append(Contribution("direction", name, v, w * v, why))
    return z, out + held
