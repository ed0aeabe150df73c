"""The pipeline: Articles -> Docs -> candidate pairs -> alignments -> relations -> stories.

Three kinds of work, each a pure module-level function of one item and a read-only
context (what a cluster would broadcast):

* per article: :func:`prepare_work` (sentences, language, MinHash, keys), :func:`embed_work`
  (a batch of distinct sentences -> vectors), :func:`support_work` (the article's share of
  the corpus statistics);
* per candidate pair: :func:`pair_result` (alignment, reuse type, direction) and
  :func:`pair_features` (story features), over the two Docs and the corpus statistics;
* per story component: :func:`component_result` (features of every pair inside,
  event probabilities, average-linkage groups).

An :class:`Engine` maps them. :class:`LocalEngine` maps them in worker processes on this
machine (forked, so the context is shared copy-on-write, never pickled);
:mod:`unspin.spark` maps the same functions on Apache Spark. The functions close over no
corpus-wide state and keep no counters: what one item needs travels with it or in the
context.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from unspin.align import AlignParams, align
from unspin.candidates import CandidateParams, candidate_pairs, quote_keys
from unspin.classify import ClassifyParams, classify
from unspin.corpus import CorpusStats, SupportLocal, SupportView
from unspin.embed import get_embedder
from unspin.fingerprint import prepare, sentence_key, set_vectors
from unspin.model import Article, Doc, InputError, Relation, Result
from unspin.stories import (
    StoryParams,
    cluster_component,
    component_features,
    components,
    make_stories,
    story_probability,
)
from unspin.stories import pair_features as _story_pair_features

Progress = Callable[[str, int, int], None]  # (stage, done, total)

#: most distinct sentences per embedding task (one worker encodes them in one call;
#: smaller when there are few, so every worker gets several tasks)
EMBED_CHUNK = 1024
#: below this many items a map runs in this process (forking costs more than it saves)
MIN_PARALLEL = 32


@dataclass(frozen=True)
class Config:
    """Every parameter of a scan, validated on construction.

    ``workers``: processes the local engine maps work onto (0: one per core).
    """

    embedder: str = "use"
    candidates: CandidateParams = field(default_factory=CandidateParams)
    align: AlignParams = field(default_factory=AlignParams)
    classify: ClassifyParams = field(default_factory=ClassifyParams)
    stories: StoryParams = field(default_factory=StoryParams)
    batch_size: int = 64
    workers: int = 0

    def __post_init__(self) -> None:
        from unspin.embed import BACKENDS

        if self.embedder not in BACKENDS:
            raise ValueError(
                f"unknown embedder {self.embedder!r}; choose one of {sorted(BACKENDS)}"
            )
        if self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if self.workers < 0:
            raise ValueError("workers must be >= 0 (0: one per core)")


# ---------------------------------------------------------------- engines


class Engine(Protocol):
    """Maps the three kinds of work. ``fn(context, item)`` is a pure module-level
    function; ``context`` is read-only data every call may read (broadcast)."""

    def map_articles(
        self, fn: Callable[[Any, Any], Any], items: Sequence[Any], context: Any = None
    ) -> list[Any]: ...

    def map_pairs(
        self, fn: Callable[[Any, Any], Any], items: Sequence[Any], context: Any = None
    ) -> list[Any]: ...

    def map_components(
        self, fn: Callable[[Any, Any], Any], items: Sequence[Any], context: Any = None
    ) -> list[Any]: ...


_TASK: tuple[Callable[[Any, Any], Any], Any, Sequence[Any]] | None = None


def _run_chunk(bounds: tuple[int, int]) -> list[Any]:
    assert _TASK is not None
    fn, context, items = _TASK
    return [fn(context, items[k]) for k in range(*bounds)]


def _worker_init() -> None:
    # a worker has one core's share: one BLAS thread each (the encoder's matrices)
    for name in ("use", "hashing"):
        from unspin.embed import _CACHE

        if name in _CACHE:
            _CACHE[name].set_threads(1)


class LocalEngine:
    """Maps work onto ``workers`` processes forked from this one (the context and the
    loaded model are inherited copy-on-write; only items' results travel back), in
    order. One worker (or a platform without ``fork``) maps in this process."""

    def __init__(
        self, workers: int = 0, min_parallel: int = MIN_PARALLEL, progress: Progress | None = None
    ) -> None:
        if workers < 0:
            raise ValueError("workers must be >= 0 (0: one per core)")
        self.workers = workers or os.cpu_count() or 1
        self.min_parallel = min_parallel
        self.progress = progress
        #: seconds spent per stage name (the scan's stage timer)
        self.timings: dict[str, float] = {}

    def _map(self, stage: str, fn, items: Sequence[Any], context: Any) -> list[Any]:
        global _TASK
        t0 = time.perf_counter()
        items = items if isinstance(items, Sequence) else list(items)
        n = len(items)
        parallel = (
            self.workers > 1 and n >= self.min_parallel and "fork" in mp.get_all_start_methods()
        )
        out: list[Any] = []
        if not parallel:
            step = max(1, n // 20)
            for k in range(n):
                out.append(fn(context, items[k]))
                if self.progress and ((k + 1) % step == 0 or k + 1 == n):
                    self.progress(stage, k + 1, n)
        else:
            size = max(1, min(256, n // (self.workers * 8)))
            bounds = [(k, min(n, k + size)) for k in range(0, n, size)]
            _TASK = (fn, context, items)
            try:
                with mp.get_context("fork").Pool(self.workers, initializer=_worker_init) as pool:
                    for part in pool.imap(_run_chunk, bounds):
                        out.extend(part)
                        if self.progress:
                            self.progress(stage, len(out), n)
            finally:
                _TASK = None
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - t0
        return out

    def map_articles(self, fn, items, context=None, stage: str = "articles") -> list[Any]:
        return self._map(stage, fn, items, context)

    def map_pairs(self, fn, items, context=None, stage: str = "pairs") -> list[Any]:
        return self._map(stage, fn, items, context)

    def map_components(self, fn, items, context=None, stage: str = "stories") -> list[Any]:
        return self._map(stage, fn, items, context)

    def timed(self, stage: str, fn: Callable[[], Any]) -> Any:
        """Run a driver-side step and add its time to ``timings``."""
        t0 = time.perf_counter()
        try:
            return fn()
        finally:
            self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - t0


def _noop(stage: str, done: int, total: int) -> None:
    return None


def _engine(engine: Any, config: Config, progress: Progress) -> Any:
    if engine is not None:
        return engine
    return LocalEngine(config.workers, progress=None if progress is _noop else progress)


# ---------------------------------------------------------------- per article


def prepare_work(context: Any, article: Article) -> Doc:
    """Article -> Doc without vectors (pure; see :func:`unspin.fingerprint.prepare`)."""
    return prepare(article)


def embed_work(embedder_name: str, texts: Sequence[str]) -> np.ndarray:
    """Vectors of a batch of sentences (the encoder loaded once per process)."""
    emb = get_embedder(embedder_name)
    if not texts:
        return np.zeros((0, emb.dim), np.float32)
    return emb.encode(list(texts))


def support_work(docs: Sequence[Doc], i: int) -> SupportLocal:
    """Article ``i``'s share of the corpus statistics."""
    return SupportLocal(docs[i])


def embed_sentences(
    docs: Sequence[Doc], config: Config, engine: Any, cache: Any = None
) -> dict[str, np.ndarray]:
    """Vectors of every distinct sentence of ``docs``, by :func:`sentence_key`: each
    sentence is embedded once per scan, and once ever with a store (``cache``)."""
    embedder = get_embedder(config.embedder)
    keys: dict[str, str] = {}
    for d in docs:
        for s in d.sentences:
            keys.setdefault(sentence_key(s.text), s.text)
    found = cache.get_sentence_vectors(list(keys), embedder.name) if cache is not None else {}
    todo = [k for k in keys if k not in found]
    if todo:
        embedder.warm()
        workers = getattr(engine, "workers", 1)
        size = max(64, min(EMBED_CHUNK, len(todo) // (4 * workers) + 1))
        chunks = [todo[k : k + size] for k in range(0, len(todo), size)]
        texts = [[keys[k] for k in c] for c in chunks]
        parts = engine.map_articles(embed_work, texts, config.embedder, stage="embed")
        new = {k: v for c, m in zip(chunks, parts) for k, v in zip(c, m)}
        if cache is not None:
            cache.put_sentence_vectors(new, embedder.name)
        found.update(new)
    return found


def fingerprint(
    articles: Sequence[Article],
    config: Config,
    cache: Any = None,
    progress: Progress = _noop,
    engine: Any = None,
) -> list[Doc]:
    """Docs for the articles, taking fingerprints from ``cache`` (a Store) when present.

    Articles are prepared in parallel, then every distinct sentence not in the cache is
    embedded once (in parallel) and the vectors put back on the docs.
    """
    engine = _engine(engine, config, progress)
    embedder = get_embedder(config.embedder)
    docs: list[Doc | None] = [None] * len(articles)
    todo = []
    for i, a in enumerate(articles):
        hit = cache.get_doc(a, embedder.name) if cache is not None else None
        if hit is not None:
            docs[i] = hit
        else:
            todo.append(i)
    progress("fingerprint", len(articles) - len(todo), len(articles))
    if todo:
        fresh = engine.map_articles(
            prepare_work, [articles[i] for i in todo], None, stage="prepare"
        )
        vecs = embed_sentences(fresh, config, engine, cache)
        for i, d in zip(todo, fresh):
            rows = [vecs[sentence_key(s.text)] for s in d.sentences]
            mat = np.vstack(rows) if rows else np.zeros((0, embedder.dim), np.float32)
            set_vectors(d, mat.astype(np.float32, copy=False), embedder.dim)
            docs[i] = d
            if cache is not None:
                cache.put_doc(d, embedder.name)
        progress("fingerprint", len(articles), len(articles))
    return [d for d in docs if d is not None]


# ---------------------------------------------------------------- per pair


def pair_result(a: Doc, b: Doc, support: Any, config: Config) -> Relation | None:
    """The reuse relation of two docs (aligned and classified in id order), or None."""
    if a.id > b.id:
        a, b = b, a
    al = align(a, b, config.align)
    return classify(a, b, al, config.classify, support, config.align)


def pair_features(a: Doc, b: Doc, shared_quotes: int) -> dict[str, float]:
    """Story features of a pair (``a`` first in corpus order)."""
    return _story_pair_features(a, b, shared_quotes)


@dataclass
class PairContext:
    """What per-pair work reads: the docs, each one's share of the corpus statistics and
    quotation keys, the global statistics and the settings."""

    docs: Sequence[Doc]
    locals: Sequence[SupportLocal]
    stats: CorpusStats
    qkeys: Sequence[set[str]]
    config: Config


def pair_work(ctx: PairContext, pair: tuple[int, int]) -> tuple[Relation | None, dict]:
    """Reuse relation and story features of candidate pair ``(i, j)``, ``i < j``."""
    i, j = pair
    support = SupportView(ctx.stats, (ctx.locals[i], ctx.locals[j]))
    rel = pair_result(ctx.docs[i], ctx.docs[j], support, ctx.config)
    return rel, pair_features(ctx.docs[i], ctx.docs[j], len(ctx.qkeys[i] & ctx.qkeys[j]))


@dataclass
class PairStage:
    """What the per-pair work produced: reuse relations and story features by pair."""

    pairs: list[tuple[int, int]]
    reuse: dict[tuple[int, int], Relation]
    features: dict[tuple[int, int], dict[str, float]]
    feature_fn: Callable[[int, int], dict[str, float]]


@dataclass
class _FeatureFn:
    """Story features of any pair of docs by index (picklable, no closure)."""

    docs: Sequence[Doc]
    qkeys: Sequence[set[str]]

    def __call__(self, i: int, j: int) -> dict[str, float]:
        return pair_features(self.docs[i], self.docs[j], len(self.qkeys[i] & self.qkeys[j]))


def corpus_context(docs: Sequence[Doc], config: Config, engine: Any) -> PairContext:
    """Per-article support shares and quotation keys, and the global statistics."""
    locs = engine.map_articles(support_work, range(len(docs)), docs, stage="corpus")
    stats = CorpusStats(locs)
    qkeys = [quote_keys(d, config.candidates.quote_min_words) for d in docs]
    return PairContext(docs, locs, stats, qkeys, config)


def pair_stage(
    docs: Sequence[Doc],
    config: Config,
    engine: Any = None,
    progress: Progress = _noop,
    context: PairContext | None = None,
) -> PairStage:
    """Candidates, then per candidate pair: alignment, reuse typing, story features."""
    engine = _engine(engine, config, progress)
    timed = getattr(engine, "timed", lambda stage, fn: fn())
    pairs = timed("candidates", lambda: sorted(candidate_pairs(docs, config.candidates)))
    ctx = context or corpus_context(docs, config, engine)
    results = engine.map_pairs(pair_work, pairs, ctx, stage="align")
    return PairStage(
        pairs=pairs,
        reuse={pair: rel for pair, (rel, _) in zip(pairs, results) if rel is not None},
        features={pair: f for pair, (_, f) in zip(pairs, results)},
        feature_fn=_FeatureFn(docs, ctx.qkeys),
    )


# ---------------------------------------------------------------- per component


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


def component_result(
    docs: Sequence[Doc],
    members: list[int],
    base: dict[tuple[int, int], dict[str, float]],
    reuse: set[tuple[int, int]] | dict,
    feat_fn: Callable[[int, int], dict[str, float]],
    sp: StoryParams,
) -> tuple[list[list[int]], dict[tuple[int, int], tuple[float, dict[str, float]]]]:
    """A component's story groups, and probability and features of its candidate pairs.

    ``base``: the candidate pairs' features (the others inside the component are computed
    with ``feat_fn``); ``reuse``: candidate pairs with a reuse relation (probability 1)."""
    cf = component_features(docs, members, base, feat_fn)
    probs: dict[tuple[int, int], float] = {}
    for pair, f in cf.items():
        probs[pair] = 1.0 if pair in reuse else story_probability(f, sp)
    groups = cluster_component(members, probs, sp)
    return groups, {p: (probs[p], cf[p]) for p in cf if p in base}


@dataclass
class ComponentContext:
    docs: Sequence[Doc]
    ps: PairStage
    sp: StoryParams


def component_work(ctx: ComponentContext, members: list[int]):
    """:func:`component_result` for one component of the scan."""
    return component_result(
        ctx.docs, members, ctx.ps.features, ctx.ps.reuse, ctx.ps.feature_fn, ctx.sp
    )


def story_relations(
    docs: Sequence[Doc],
    pairs: Iterable[tuple[int, int]],
    reuse: dict[tuple[int, int], Relation],
    scored: dict[tuple[int, int], tuple[float, dict[str, float]]],
    story_of: dict[int, int],
    sp: StoryParams,
) -> list[Relation]:
    """``same_story`` / ``related`` relations of candidate pairs without reuse."""
    out = []
    for pair in pairs:
        if pair in reuse or pair not in scored or scored[pair][0] < sp.related:
            continue
        i, j = pair
        pr, f = scored[pair]
        kind = "same_story" if story_of[i] == story_of[j] else "related"
        a, b = sorted((docs[i].id, docs[j].id))
        out.append(
            Relation(
                a=a,
                b=b,
                relation=kind,
                confidence=round(pr if kind == "same_story" else 1 - pr, 4),
                reasons=[
                    f"event similarity {pr:.2f} (documents {f['doc_sim']:.2f}, best sentences "
                    f"{f['top_sent']:.2f}, names/numbers/dates {f['keys']:.2f}, within topic "
                    f"{f['keys_local']:.2f}, shared quotations {int(f['quotes'] * 2)})",
                    "no passage reuse beyond shared quotations"
                    if kind == "same_story"
                    else "grouped into different stories",
                ],
                features=f,
            )
        )
    return out


def analyse(
    docs: Sequence[Doc],
    config: Config,
    errors: Sequence[InputError] = (),
    engine: Any = None,
    progress: Progress = _noop,
) -> Result:
    """Pairs, relations and stories for fingerprinted docs."""
    engine = _engine(engine, config, progress)
    timed = getattr(engine, "timed", lambda stage, fn: fn())
    ps = pair_stage(docs, config, engine, progress)
    sp = config.stories
    comps = timed("components", lambda: story_components(docs, ps, config))
    # largest first, so one big component does not finish last on its own
    order = sorted(range(len(comps)), key=lambda k: -len(comps[k]))
    done = engine.map_components(
        component_work, [comps[k] for k in order], ComponentContext(docs, ps, sp)
    )
    groups: list[list[int]] = []
    scored: dict[tuple[int, int], tuple[float, dict[str, float]]] = {}
    for gs, sc in done:
        groups.extend(gs)
        scored.update(sc)
    groups.sort(key=lambda g: g[0])
    story_of = {i: g for g in range(len(groups)) for i in groups[g]}
    relations: list[Relation] = list(ps.reuse.values())
    relations += story_relations(docs, ps.pairs, ps.reuse, scored, story_of, sp)
    relations.sort(key=lambda r: (r.a, r.b))
    stories = make_stories(docs, groups, relations)
    return Result(docs=list(docs), relations=relations, stories=stories, errors=list(errors))
