"""The pipeline: Articles -> Docs -> candidate pairs -> alignments -> relations -> stories.

The three units of work (per article, per candidate pair, per story component) are
plain functions of plain data, so an engine can map them anywhere; ``LocalEngine``
maps them in this process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from unspin.align import AlignParams, align
from unspin.candidates import CandidateParams, candidate_pairs, quote_keys
from unspin.classify import ClassifyParams, classify
from unspin.corpus import CorpusSupport
from unspin.embed import get_embedder
from unspin.fingerprint import embed_docs, language_warnings, mark_coverage, prepare
from unspin.model import Article, Doc, InputError, Relation, Result
from unspin.stories import (
    StoryParams,
    cluster_component,
    component_features,
    components,
    make_stories,
    pair_features,
    story_probability,
    too_far,
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
            raise ValueError(
                f"unknown embedder {self.embedder!r}; choose one of {sorted(BACKENDS)}"
            )
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
            mark_coverage([hit], embedder)
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


@dataclass
class PairStage:
    """What the per-pair work produced: reuse relations and story features by pair."""

    pairs: list[tuple[int, int]]
    reuse: dict[tuple[int, int], Relation]
    features: dict[tuple[int, int], dict[str, float]]
    feature_fn: Callable[[int, int], dict[str, float]]


def pair_stage(
    docs: Sequence[Doc],
    config: Config,
    engine: LocalEngine | None = None,
    progress: Progress = _noop,
) -> PairStage:
    """Candidates, then per candidate pair: alignment, reuse typing, story features."""
    engine = engine or LocalEngine()
    pairs = sorted(candidate_pairs(docs, config.candidates))
    support = CorpusSupport(docs)
    qkeys = [quote_keys(d, config.candidates.quote_min_words) for d in docs]

    def feature_fn(i: int, j: int) -> dict[str, float]:
        shared = len(qkeys[i] & qkeys[j])
        return pair_features(docs[i], docs[j], shared, config.stories.time_scale_days)

    def per_pair(pair: tuple[int, int]) -> tuple[Relation | None, dict[str, float]]:
        i, j = pair if docs[pair[0]].id <= docs[pair[1]].id else pair[::-1]
        al = align(docs[i], docs[j], config.align)
        rel = classify(docs[i], docs[j], al, config.classify, support, config.align)
        return rel, feature_fn(*pair)

    done = [0]

    def tracked(pair: tuple[int, int]) -> tuple[Relation | None, dict[str, float]]:
        out = per_pair(pair)
        done[0] += 1
        if done[0] % 200 == 0 or done[0] == len(pairs):
            progress("align", done[0], len(pairs))
        return out

    results = engine.map(tracked, pairs)
    return PairStage(
        pairs=pairs,
        reuse={pair: rel for pair, (rel, _) in zip(pairs, results) if rel is not None},
        features={pair: f for pair, (_, f) in zip(pairs, results)},
        feature_fn=feature_fn,
    )


def story_components(docs: Sequence[Doc], ps: PairStage, config: Config) -> list[list[int]]:
    """Components of the graph of reuse pairs, shared quotations and similar candidates.

    A component larger than ``max_component`` is split again with a stricter similarity
    link (reuse and shared-quotation links always hold), so clustering stays dense and small.
    """
    sp = config.stories

    def split(nodes: list[int], link: float) -> list[list[int]]:
        inside = set(nodes)
        edges = [
            pair
            for pair, f in ps.features.items()
            if pair[0] in inside
            and pair[1] in inside
            and (pair in ps.reuse or f["quotes"] > 0 or f["doc_sim"] >= link)
        ]
        local = {n: k for k, n in enumerate(nodes)}
        comps = components(len(nodes), [(local[i], local[j]) for i, j in edges])
        out: list[list[int]] = []
        for c in comps:
            members = [nodes[k] for k in c]
            if len(members) > sp.max_component and link < 1.0:
                out.extend(split(members, min(1.0, link + 0.05)))
            else:
                out.append(members)
        return out

    return split(list(range(len(docs))), sp.link_sim)


def analyse(
    docs: Sequence[Doc],
    config: Config,
    errors: Sequence[InputError] = (),
    engine: LocalEngine | None = None,
    progress: Progress = _noop,
) -> Result:
    """Pairs, relations and stories for fingerprinted docs."""
    from unspin.embed import BACKENDS

    langs = getattr(BACKENDS[config.embedder], "languages", None)
    errors = [*errors, *language_warnings(docs, langs)]
    ps = pair_stage(docs, config, engine, progress)
    sp = config.stories
    groups: list[list[int]] = []
    probs: dict[tuple[int, int], float] = {}
    feats: dict[tuple[int, int], dict[str, float]] = {}
    for members in story_components(docs, ps, config):
        cf = component_features(docs, members, ps.features, ps.feature_fn)
        apart = set()  # published too far apart to be one event, and no reuse between them
        for pair, f in cf.items():
            feats[pair] = f
            probs[pair] = 1.0 if pair in ps.reuse else story_probability(f, sp)
            if pair not in ps.reuse and too_far(f, sp):
                apart.add(pair)
        groups.extend(cluster_component(members, probs, sp, apart))
    groups.sort(key=lambda g: g[0])
    story_of = {i: g for g in range(len(groups)) for i in groups[g]}
    relations: list[Relation] = list(ps.reuse.values())
    for pair in ps.pairs:
        if pair in ps.reuse or pair not in probs or probs[pair] < sp.related:
            continue
        i, j = pair
        pr, f = probs[pair], feats[pair]
        kind = "same_story" if story_of[i] == story_of[j] else "related"
        a, b = sorted((docs[i].id, docs[j].id))
        relations.append(
            Relation(
                a=a,
                b=b,
                relation=kind,
                confidence=round(pr if kind == "same_story" else 1 - pr, 4),
                reasons=[
                    f"event similarity {pr:.2f} (documents {f['doc_sim']:.2f}, best sentences "
                    f"{f['top_sent']:.2f}, names/numbers/dates {f['keys']:.2f}, within topic "
                    f"{f['keys_local']:.2f}, shared quotations {int(f['quotes'] * 2)}"
                    + (f", published {f['days']:.1f} days apart)" if f["days"] >= 0 else ")"),
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
