"""The pipeline: Articles -> Docs -> candidate pairs -> alignments -> relations -> stories.

The three units of work (per article, per candidate pair, per story component) are
plain functions of plain data, so an engine can map them anywhere; ``LocalEngine``
maps them in this process.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from unspin.align import AlignParams, align
from unspin.candidates import CandidateParams, candidate_pairs, quote_keys
from unspin.classify import ClassifyParams, classify
from unspin.embed import get_embedder
from unspin.fingerprint import embed_docs, prepare
from unspin.model import Article, Doc, InputError, Relation, Result
from unspin.stories import (
    StoryParams,
    build_stories,
    make_stories,
    pair_features,
    story_probability,
)

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True)
class Config:
    """Every parameter of a scan, validated on construction."""

    embedder: str = "use"
    candidates: CandidateParams = field(default_factory=CandidateParams)
    align: AlignParams = field(default_factory=AlignParams)
    classify: ClassifyParams = field(default_factory=ClassifyParams)
    stories: StoryParams = field(default_factory=StoryParams)
    batch_size: int = 64

    def __post_init__(self) -> None:
        from unspin.embed import BACKENDS

        if self.embedder not in BACKENDS:
            raise ValueError(f"unknown embedder {self.embedder!r}; choose one of {sorted(BACKENDS)}")
        if self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")


class LocalEngine:
    """Maps the per-article and per-pair work in this process (in order)."""

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        return [fn(x) for x in items]


def _noop(stage: str, done: int, total: int) -> None:
    return None


def fingerprint(
    articles: Sequence[Article],
    config: Config,
    cache: Any = None,
    progress: Progress = _noop,
) -> list[Doc]:
    """Docs for the articles, taking fingerprints from ``cache`` (a Store) when present."""
    embedder = get_embedder(config.embedder)
    docs: list[Doc | None] = [None] * len(articles)
    todo = []
    for i, a in enumerate(articles):
        hit = cache.get_doc(a, embedder.name) if cache is not None else None
        if hit is not None:
            docs[i] = hit
        else:
            todo.append(i)
    done = len(articles) - len(todo)
    progress("fingerprint", done, len(articles))
    for k in range(0, len(todo), config.batch_size):
        chunk = [prepare(articles[i]) for i in todo[k : k + config.batch_size]]
        embed_docs(chunk, embedder)
        for i, d in zip(todo[k : k + config.batch_size], chunk):
            docs[i] = d
            if cache is not None:
                cache.put_doc(d, embedder.name)
        done += len(chunk)
        progress("fingerprint", done, len(articles))
    return [d for d in docs if d is not None]


def _support_index(docs: Sequence[Doc]) -> Callable[[str, str, str], int]:
    """How many docs other than the pair itself contain a name (as a key word)."""
    index: dict[str, set[str]] = defaultdict(set)
    for d in docs:
        for k in d.keys:
            if k.startswith("w:"):
                index[k[2:]].add(d.id)

    def support(word: str, a: str, b: str) -> int:
        return len(index.get(word, set()) - {a, b})

    return support


def analyse(
    docs: Sequence[Doc],
    config: Config,
    errors: Sequence[InputError] = (),
    engine: LocalEngine | None = None,
    progress: Progress = _noop,
) -> Result:
    """Pairs, relations and stories for fingerprinted docs."""
    engine = engine or LocalEngine()
    cands = candidate_pairs(docs, config.candidates)
    pairs = sorted(cands)
    support = _support_index(docs)
    qkeys = [quote_keys(d, config.candidates.quote_min_words) for d in docs]

    def per_pair(pair: tuple[int, int]) -> tuple[Relation | None, dict[str, float]]:
        i, j = pair if docs[pair[0]].id <= docs[pair[1]].id else pair[::-1]
        al = align(docs[i], docs[j], config.align)
        rel = classify(docs[i], docs[j], al, config.classify, support)
        feats = pair_features(docs[i], docs[j], len(qkeys[i] & qkeys[j]))
        feats.update({k: v for k, v in al.features.items() if k in ("cov_a", "cov_b")})
        return rel, feats

    results = []
    for n, pair in enumerate(pairs, 1):
        results.append(per_pair(pair))
        if n % 200 == 0 or n == len(pairs):
            progress("align", n, len(pairs))
    reuse = [r for r, _ in results if r is not None]
    probs: dict[tuple[int, int], float] = {}
    feats_of: dict[tuple[int, int], dict[str, float]] = {}
    for pair, (rel, feats) in zip(pairs, results):
        feats_of[pair] = feats
        probs[pair] = 1.0 if rel is not None else story_probability(feats, config.stories)

    def prob_fn(i: int, j: int) -> float:
        return story_probability(
            pair_features(docs[i], docs[j], len(qkeys[i] & qkeys[j])), config.stories
        )

    groups = build_stories(docs, probs, reuse, config.stories, prob_fn)
    story_of = {i: g for g in range(len(groups)) for i in groups[g]}
    relations: list[Relation] = list(reuse)
    reuse_pairs = {(r.a, r.b) for r in reuse}
    for (i, j), pr in probs.items():
        a, b = docs[i].id, docs[j].id
        key = (min(a, b), max(a, b))
        if key in reuse_pairs:
            continue
        if story_of[i] == story_of[j] and pr >= config.stories.related:
            kind = "same_story"
        elif pr >= config.stories.related:
            kind = "related"
        else:
            continue
        f = feats_of[(i, j)]
        relations.append(
            Relation(
                a=key[0],
                b=key[1],
                relation=kind,
                confidence=round(pr if kind == "same_story" else 1 - pr, 4),
                reasons=[
                    f"event similarity {pr:.2f} (documents {f['doc_sim']:.2f}, best sentences "
                    f"{f['top_sent']:.2f}, names/numbers/dates {f['keys']:.2f}, shared quotations "
                    f"{int(f['quotes'] * 2)})",
                    "no passage reuse beyond shared quotations"
                    if kind == "same_story"
                    else "grouped into different stories",
                ],
                features=f,
            )
        )
    relations.sort(key=lambda r: (r.a, r.b))
    stories = make_stories(docs, groups, relations)
    return Result(docs=list(docs), relations=relations, stories=stories, errors=list(errors))
