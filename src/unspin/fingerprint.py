"""Fingerprint stage: Article -> Doc (sentences, language, MinHash, embeddings, keys).

Work is per article, so it maps onto any engine; ``fingerprint_many`` batches the
embedding calls, which is where the time goes.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import regex

from unspin.embed import Embedder
from unspin.model import Article, Doc, InputError, Sentence
from unspin.normalise import (
    STOPWORDS,
    TAGGED_NAME_MAX_CHARS,
    UPPER,
    ascii_digits,
    canonical_lang,
    content_words,
    detect_language,
    find_quotes,
    name_stem,
    normalise_text,
    rare_script_words,
    sentences_for,
    tagged_names,
    text_hash,
    to_simplified,
    words,
    zipf,
)

NUM_PERM = 128
SHINGLE = 3
#: version of everything that decides a Doc's content; part of the store's cache key
FINGERPRINT_VERSION = "fp-10"


@dataclass(frozen=True)
class FingerprintParams:
    """What the fingerprint stage keeps of one article.

    ``max_sentences``: sentences of one article that are compared with other articles
    (embedded, searched in the sentence k-NN, aligned, typed, read for changes and story
    features). The sentences past it are left out of all of these, with a warning naming the
    article and what was left out (:func:`cut_warnings`); the facts typing reads of an
    article (names, figures, words, style: :func:`unspin.model.compared_text`) come from its
    kept part too. Its exact duplicates, MinHash, salient keys, language and quotations are
    still read from the whole text (identity of the whole article, story keys kept in the
    store, a language read from the first 20,000 characters, quotations the sentence split
    needs whole). The encoder, the sentence k-NN and the pair stages cost per sentence (a
    text at the 2,000,000-character limit: 16,589 sentences, 24.5 CPU s in the encoder
    alone, 3x the rest of its scan). News articles are far below the cap: the largest
    sentence counts in ../shared are Reuters 337, BBC 243, ECB+ 91, PAC 59, MEANTIME 54,
    NTREX 42 (23,458 articles; Reuters' 99.9th percentile 109), so 500 leaves half as much
    again above the longest and changes none of them.
    """

    max_sentences: int = 500

    def __post_init__(self) -> None:
        if self.max_sentences < 1:
            raise ValueError(
                f"FingerprintParams.max_sentences must be >= 1, got {self.max_sentences}"
            )


_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre"
).split()
_WEEKDAYS = (
    "monday tuesday wednesday thursday friday saturday sunday "
    "lunes martes miércoles jueves viernes sábado domingo"
).split()
#: languages whose month and weekday names, as CLDR writes them (through Babel, in their
#: running-text and stand-alone forms: Russian "декабря" and "декабрь"), are read as date
#: keys in a text of that language, besides the English and Spanish ones read in any text:
#: an Italian report's "15 dicembre" dates it as an English one's "December 15" does
#: (session 51). Scripts without spaces write months as figures ("12月"), read as numbers
CALENDAR_LANGS = (
    "ar", "bg", "ca", "cs", "da", "de", "el", "et", "fa", "fi", "fr", "he", "hi", "hr",
    "hu", "id", "it", "lt", "lv", "ms", "nb", "nl", "pl", "pt", "ro", "ru", "sk", "sl",
    "sr", "sv", "sw", "tl", "tr", "uk", "ur", "vi",
)  # fmt: skip


@lru_cache(maxsize=256)  # one entry a language
def calendar_words(lang: str | None) -> tuple[dict[str, str], dict[str, str]]:
    """Word -> month key (``jan`` ... ``dec``) and word -> weekday key (``monday`` ...) for
    a text in ``lang``: the English and Spanish names (as before: any text), and the
    language's own names (:data:`CALENDAR_LANGS`; words of three letters or more)."""
    months = {w: w[:3] for w in _MONTHS[:12]}
    months.update({w: "sep" if w == "sept" else w[:3] for w in _MONTHS[12:24]})
    months.update({w: _MONTHS[k][:3] for k, w in enumerate(_MONTHS[24:])})
    days = {w: _WEEKDAYS[k % 7] for k, w in enumerate(_WEEKDAYS)}
    base = (lang or "").split("-")[0]
    if base in CALENDAR_LANGS:
        from babel.dates import get_day_names, get_month_names

        for ctx in ("format", "stand-alone"):
            for m, name in get_month_names("wide", context=ctx, locale=base).items():
                for w in words(name):
                    if len(w) >= 3:
                        months.setdefault(w, _MONTHS[m - 1][:3])
            for d, name in get_day_names("wide", context=ctx, locale=base).items():
                for w in words(name):
                    if len(w) >= 3:
                        days.setdefault(w, _WEEKDAYS[d])
    return months, days


@lru_cache(maxsize=1)
def other_calendar_words() -> frozenset[str]:
    """Every month and weekday word of :data:`CALENDAR_LANGS` and Spanish that is not an
    English one: a text holding one has date keys it did not have before session 51
    (:func:`unspin.store.cache_key`)."""
    english = set(_MONTHS[:24]) | set(_WEEKDAYS[:7])
    out: set[str] = set(_MONTHS[24:]) | set(_WEEKDAYS[7:])
    for lang in CALENDAR_LANGS:
        months, days = calendar_words(lang)
        out |= set(months) | set(days)
    return frozenset(out - english)


_CAPSEQ = regex.compile(
    rf"\b{UPPER}[\w'’.-]*(?:\s+(?:of|de|la|del|the|van|von|al)?\s*{UPPER}[\w'’.-]*)*"
)
_NUMBER = re.compile(r"\d[\d,.]*\d|\d")


def shingles(tokens: Sequence[str], k: int = SHINGLE) -> list[str]:
    """Word k-grams (the whole text as one shingle when it is shorter than k)."""
    if len(tokens) < k:
        return [" ".join(tokens)] if tokens else []
    return [" ".join(tokens[i : i + k]) for i in range(len(tokens) - k + 1)]


def minhash_of(tokens: Sequence[str]) -> list[int]:
    from rensa import RMinHash

    m = RMinHash(num_perm=NUM_PERM, seed=42)
    m.update(shingles(tokens) or ["<empty>"])
    return [int(x) for x in m.digest()]


def salient_keys(text: str, lang: str | None = None, noun_names: bool = False) -> list[str]:
    """Names, numbers, months and weekdays: what tells one event from a look-alike.
    Months and weekdays are keyed by their English names in every language
    (:func:`calendar_words`).

    Names are capitalised words (``e:`` the phrase, ``w:`` each word); in a Japanese,
    Korean or Chinese text (``lang``), whose scripts have no capitals, also the proper
    nouns its part-of-speech tagger reads (``u:``, :func:`unspin.normalise.tagged_names`),
    and in an Arabic one its rare words (``u:``, :func:`unspin.normalise.rare_script_words`);
    in a language whose names take case endings, also each name word's stem (``u:``,
    :func:`unspin.normalise.name_stem`: "Путина" and "Путину" one key, where their
    ``w:`` keys differ). ``u:`` keys are words of one language: compared within a
    language only (:class:`unspin.stories.StoryKeys`), and not read as facts by the
    reuse rules (:func:`unspin.evidence._fact_keys`). In a language that capitalises every noun
    (:data:`NOUN_CAPITALS`) its common nouns are no names (:func:`common_noun`) unless
    ``noun_names`` (the reading before session 51, which the rewrite model's keys keep)."""
    keys: set[str] = {"u:" + w for w in tagged_names(text, lang) | rare_script_words(text, lang)}
    for m in _CAPSEQ.finditer(text):
        phrase = m.group(0).strip(" .-'’")
        toks = [t for t in words(phrase) if t not in STOPWORDS]
        if not toks:
            continue
        # a lone capitalised word right after a sentence end is usually not a name
        before = text[max(0, m.start() - 2) : m.start()]
        if len(toks) == 1 and (m.start() == 0 or re.search(r"[.!?\n\"“]\s*$", before)):
            continue
        nouns = lang in NOUN_CAPITALS and not noun_names
        common = [nouns and common_noun(t, lang) for t in toks]  # type: ignore[arg-type]
        if all(common):
            continue  # "Die Polizei": a noun, capitalised as every German noun is
        keys.add("e:" + " ".join(toks))
        for t, c in zip(toks, common, strict=True):
            if len(t) > 2 and not c:
                keys.add("w:" + t)
                stem = name_stem(t, lang)
                if stem:  # the name in any of its cases, within the language (``u:``)
                    keys.add("u:" + stem)
    for m in _NUMBER.finditer(ascii_digits(text)):
        keys.add("n:" + m.group(0).replace(",", "").rstrip("."))
    keys |= date_keys(text, lang)
    return sorted(keys)


#: languages that capitalise every noun: a capital there marks no name, so a common word
#: of the language is no name key (:func:`common_noun`)
NOUN_CAPITALS = frozenset({"de", "lb"})
#: :func:`common_noun`: a word at least this frequent in its language (``wordfreq`` Zipf)
#: ... and under this in English (a name the world writes, "Obama", "Google", "Berlin",
#: stays a key). Chosen before any run (German guards g2 and g3 of session 51 were then
#: read once: their stories alone 0.746 -> 0.770 and 0.617 -> 0.674)
COMMON_NOUN_ZIPF = 4.0
COMMON_NOUN_EN_ZIPF = 3.0


def common_noun(word: str, lang: str) -> bool:
    """Whether a capitalised ``word`` of a text in ``lang`` (one of :data:`NOUN_CAPITALS`)
    is a common noun of the language rather than a name: frequent in the language
    (``COMMON_NOUN_ZIPF``) and rare in English (``COMMON_NOUN_EN_ZIPF``): "polizei",
    "feuer", "trainer" are nouns; "banstead", "obama" are names."""
    return (zipf(word, lang) or 0.0) >= COMMON_NOUN_ZIPF and (
        zipf(word, "en") or 0.0
    ) < COMMON_NOUN_EN_ZIPF


def date_keys(text: str, lang: str | None) -> set[str]:
    """The month (``m:``) and weekday (``d:``) keys of ``text`` read in ``lang``
    (:func:`calendar_words`; None: the English and Spanish names only)."""
    months, days = calendar_words(lang)
    out = set()
    for w in words(text):
        if w in months:
            out.add("m:" + months[w])
        elif w in days:
            out.add("d:" + days[w])
    return out


def kept_body(
    sents: Sequence[Sentence], text: str, read: Callable[[Sentence], str] | None = None
) -> str:
    """The sentences that are not boilerplate, joined (``text`` when there are none):
    what the salient keys are read from. ``read``: a sentence's text (default its own)."""
    parts = [read(s) if read is not None else s.text for s in sents if not s.boilerplate]
    return " ".join(parts) or text


def article_language(article: Article) -> tuple[str, float]:
    """The article's language and its confidence: as declared (1.0), else detected
    (:func:`unspin.normalise.detect_language`). What :func:`prepare` keys a doc by, and
    what :func:`unspin.store.cache_key` reads."""
    if article.lang:
        return canonical_lang(article.lang), 1.0
    return detect_language(article.text)


def prepare(article: Article, params: FingerprintParams | None = None) -> Doc:
    """Everything but the embeddings (cheap, pure). Sentences past
    ``params.max_sentences`` are not kept (:class:`FingerprintParams`); the hash,
    MinHash, keys, language and quotations still come from the whole text."""
    p = params or FingerprintParams()
    text = article.text
    quotes = find_quotes(text)
    sents = sentences_for(text, quotes)
    total = len(sents)
    if article.title and sents and sents[0].text.strip() == article.title.strip():
        pass  # the title line stays a sentence: headlines are reused too
    body = kept_body(sents, text)
    lang, conf = article_language(article)
    sents = sents[: p.max_sentences]
    tokens = [content_words(s.text) for s in sents]
    normal = normalise_text(body)
    doc = Doc(
        article=article,
        sentences=sents,
        lang=lang,
        lang_confidence=conf,
        norm_hash=text_hash(normal),
        quotes=quotes,
        minhash=minhash_of(words(normal)),
        tokens=tokens,
        keys=salient_keys(body, lang),
    )
    if total > len(sents):
        doc.__dict__["_sentences_total"] = total
        doc.__dict__["_compared_end"] = sents[-1].end
    return doc


def share_words(docs: Sequence[Doc]) -> None:
    """Intern each doc's tokens and keys (the same lists of equal strings): docs prepared
    in workers come back with strings of their own, one per word of every article
    (~70 MB of tokens alone for all of Reuters, issue 14), which one interned string per
    distinct word replaces."""
    intern = sys.intern
    for d in docs:
        d.tokens = [list(map(intern, ts)) for ts in d.tokens]
        d.keys = list(map(intern, d.keys))


def mark_cuts(docs: Sequence[Doc], params: FingerprintParams) -> None:
    """Mark each article cut at ``params.max_sentences`` sentences (for
    :func:`unspin.model.compared_text`): :func:`prepare` marks the docs it cuts; a doc read from a
    store is marked here (its whole text split again only when it holds ``params.
    max_sentences`` sentences, as :func:`cut_warnings` does). Facts a doc cached before
    it was marked are dropped, so none is read from past the cut."""
    for d in docs:
        if "_compared_end" in d.__dict__:
            continue
        kept, _ = d.sentence_counts()
        if kept < params.max_sentences or sentences_total(d) <= kept:
            continue
        d.__dict__["_compared_end"] = d.sentences[-1].end
        d.__dict__.pop("_facts", None)


def sentences_total(doc: Doc) -> int:
    """How many sentences the whole text of ``doc`` has (more than ``doc.sentences``
    when :func:`prepare` cut it); split again for a doc read from a store."""
    got = doc.__dict__.get("_sentences_total")
    if got is None:
        text = doc.article.text
        got = len(sentences_for(text, find_quotes(text)))
        doc.__dict__["_sentences_total"] = got
    return got


def cut_warnings(docs: Sequence[Doc], params: FingerprintParams) -> list[InputError]:
    """One warning per article cut at ``params.max_sentences`` sentences: it names the
    article and what was left out (the sentences and characters past the cut)."""
    out = []
    for d in docs:
        kept, _ = d.sentence_counts()
        if kept < params.max_sentences:
            continue  # never cut
        total = sentences_total(d)
        if total <= kept:
            continue
        a = d.article
        end = d.sentences[-1].end if d.sentences else 0
        out.append(
            InputError(
                a.input or a.id,
                a.location,
                f"article {a.id!r} has {total:,} sentences: only its first {kept:,} "
                f"(characters 1-{end:,} of {len(a.text):,}) are compared with other "
                f"articles (FingerprintParams.max_sentences); the other {total - kept:,} "
                "sentences are not embedded, aligned, typed, searched for reuse or read "
                "for names, figures, words and style (its exact duplicates, MinHash, "
                "story keys and language are still read from the whole text, the names "
                f"a tagger reads and the rare Arabic and Hindi words in its first "
                f"{TAGGED_NAME_MAX_CHARS:,} characters)",
                severity="warning",
            )
        )
    return out


def mark_coverage(docs: Sequence[Doc], embedder: Embedder) -> None:
    """Set ``Doc.cross_lingual``: whether the embedder covers each doc's language (None
    when the embedder does not say, or the language is unknown)."""
    langs = getattr(embedder, "languages", None)
    for d in docs:
        d.cross_lingual = None if langs is None or d.lang == "und" else d.lang in langs


def language_warnings(
    docs: Sequence[Doc],
    languages: frozenset[str] | None,
    second: frozenset[str] | None = None,
) -> list[InputError]:
    """One warning per article whose language the sentence encoder does not cover
    (``Doc.cross_lingual`` False) and the second encoder did not match this scan
    (``second``: the languages it did, :mod:`unspin.second`): it is still scanned, but
    only matched by wording against articles in its own language."""
    out = []
    for d in docs:
        if d.cross_lingual is False and d.lang not in (second or ()):
            a = d.article
            out.append(
                InputError(
                    a.input or a.id,
                    a.location,
                    f"article {a.id!r} is in a language ({d.lang}) the sentence encoder does "
                    f"not cover ({', '.join(sorted(languages or ()))}): it is matched only "
                    "by wording against articles in its own language; cross-language "
                    "matching (translations, and rewordings) is not available for it",
                    severity="warning",
                )
            )
    return out


def encoder_text(doc: Doc, text: str) -> str:
    """What the encoder reads for a sentence of ``doc``: Chinese in traditional characters
    in simplified ones (the encoder matches it across languages far worse: on NTREX
    half A, mean cosine of English sentences and their traditional Chinese translations
    0.57, 0.70 once simplified, as for the simplified translations)."""
    return to_simplified(text) if doc.lang == "zh-Hant" else text


def sentence_key(text: str) -> str:
    """Cache key of a sentence's vector: a 64-bit hash of the text the encoder sees."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


def set_vectors(doc: Doc, vectors: np.ndarray, dim: int) -> None:
    """Give ``doc`` its sentence vectors (rows follow ``doc.sentences``) and the document
    vector: the length-weighted mean of its content sentences, normalised."""
    d = doc
    d.sentence_vectors = vectors
    mask = [not s.boilerplate for s in d.sentences]
    rows = d.sentence_vectors[mask] if any(mask) else d.sentence_vectors
    if len(rows):
        # weight sentences by length so a one-word line does not steer the doc vector
        w = np.array([len(s.text) for s, m in zip(d.sentences, mask) if m or not any(mask)])
        v = (rows * w[:, None]).sum(axis=0)
        d.doc_vector = (v / (np.linalg.norm(v) or 1.0)).astype(np.float32)
    else:
        d.doc_vector = np.zeros(dim, np.float32)


def lexical_vectors(doc: Doc, dim: int) -> np.ndarray:
    """Sentence vectors of a doc whose language the embedder does not cover
    (``Doc.cross_lingual`` False): lexical (:class:`unspin.embed.HashingEmbedder`), since
    the encoder maps every sentence of a script it does not know to nearly one vector
    (Greek and Hindi sentences of different NTREX documents: mean cosine 0.69, against 0.06
    in English), so its cosines would match anything with anything. Lexical vectors still
    find copies within the language; paraphrases and translations are not found."""
    from unspin.embed import HashingEmbedder

    texts = [s.text for s in doc.sentences]
    return HashingEmbedder(dim).encode(texts) if texts else np.zeros((0, dim), np.float32)


def embed_docs(docs: Sequence[Doc], embedder: Embedder) -> None:
    """Fill sentence and document vectors, one batched encoder call for all the docs
    (:func:`encoder_text` of each sentence; :func:`lexical_vectors` for a doc whose
    language the embedder does not cover)."""
    mark_coverage(docs, embedder)
    sem = [
        encoder_text(d, s.text) for d in docs if d.cross_lingual is not False for s in d.sentences
    ]
    vs = embedder.encode(sem) if sem else np.zeros((0, embedder.dim), np.float32)
    pos = 0
    for d in docs:
        if d.cross_lingual is False:
            set_vectors(d, lexical_vectors(d, embedder.dim), embedder.dim)
        else:
            n = len(d.sentences)
            set_vectors(d, vs[pos : pos + n], embedder.dim)
            pos += n


def fingerprint_many(
    articles: Sequence[Article],
    embedder: Embedder,
    progress: Callable[[int], None] | None = None,
    batch: int = 64,
) -> list[Doc]:
    """Article -> Doc for many articles, embedding in batches (progress per batch)."""
    docs: list[Doc] = []
    for i in range(0, len(articles), batch):
        chunk = [prepare(a) for a in articles[i : i + batch]]
        embed_docs(chunk, embedder)
        docs.extend(chunk)
        if progress:
            progress(len(chunk))
    return docs
