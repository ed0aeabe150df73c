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

import dataclasses
import functools
import hashlib
import json
import multiprocessing as mp
import os
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from unspin.align import AlignParams, Forms, align, stock_lines
from unspin.candidates import (
    CandidateParams,
    grouped_candidate_list,
    pair_index_arrays,
    quote_keys,
    representatives,
)
from unspin.classify import ClassifyParams, classify
from unspin.corpus import CorpusStats, SupportLocal, SupportView, form_lines_of, form_sentences
from unspin.embed import get_embedder
from unspin.fingerprint import (
    FingerprintParams,
    cut_warnings,
    encoder_text,
    language_warnings,
    lexical_vectors,
    mark_coverage,
    mark_cuts,
    prepare,
    sentence_key,
    set_vectors,
    share_words,
)
from unspin.model import Article, Doc, InputError, Relation, Result, key_json
from unspin.second import (
    SecondParams,
    outside_pair,
    pair_config,
    second_pair,
    story_features,
    view,
)
from unspin.stories import (
    PAIR_FEATURE_NAMES,
    StoryKeys,
    StoryParams,
    cluster_component,
    component_features,
    components,
    make_stories,
    pair_claim,
    story_keys,
    story_probability,
    too_far,
)
from unspin.stories import pair_features as _story_pair_features

Progress = Callable[[str, int, int], None]  # (stage, done, total)

#: most distinct sentences per embedding task (one worker encodes them in one call;
#: smaller when there are few, so every worker gets several tasks)
EMBED_CHUNK = 1024
#: below this many items a map runs in this process (forking costs more than it saves)
MIN_PARALLEL = 32
#: fewest candidate pairs to align that are worth forking workers for. A fork of a
#: process holding a large pile costs its page tables and every page the workers touch
#: (copy-on-write: reading a Python object writes its reference count): one add to a
#: 20,000-article pile (1.2 GB resident) aligned its few dozen new pairs in 0.87-0.94 s
#: in this process and 1.5-2.1 s in two forked workers at a load of 8-10, both ~1.0 s at
#: a load of 4-7 (docs/benchmarks.md, session 18). A scan's hundreds of thousands of
#: pairs are aligned in workers as before.
ALIGN_MIN_PARALLEL = 128


@dataclass(frozen=True)
class Config:
    """Every parameter of a scan, validated on construction.

    ``workers``: processes the local engine maps work onto (0: one per core).
    ``blas_threads``: threads numpy's BLAS may use in each process (0: the library's
    own choice, one per core). The engine runs its work in one process per core, so
    BLAS threads only compete with them; and the products a pair or a story needs are
    small (a 150 x 512 by 512 x 30 float32 product took 7-13 ms with two OpenBLAS
    threads on this loaded 2-core machine, 0.15-0.35 ms with one). The held routes
    evaluation with cached vectors: 174 -> 116 CPU s, verdicts identical
    (docs/benchmarks.md, "One BLAS thread per process").
    """

    embedder: str = "use"
    #: what is kept of one article (its sentence cap, :class:`FingerprintParams`)
    fingerprint: FingerprintParams = field(default_factory=FingerprintParams)
    candidates: CandidateParams = field(default_factory=CandidateParams)
    align: AlignParams = field(default_factory=AlignParams)
    classify: ClassifyParams = field(default_factory=ClassifyParams)
    stories: StoryParams = field(default_factory=StoryParams)
    #: the second encoder, for articles outside the main one (:mod:`unspin.second`)
    second: SecondParams = field(default_factory=SecondParams)
    batch_size: int = 64
    workers: int = 0
    blas_threads: int = 1

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
        if self.blas_threads < 0:
            raise ValueError("blas_threads must be >= 0 (0: the BLAS library's default)")


@contextmanager
def blas_threads(threads: int) -> Iterator[None]:
    """numpy's BLAS limited to ``threads`` threads in this process for the block (and in
    the worker processes forked inside it, which inherit the setting); 0 leaves it as
    it is. See ``Config.blas_threads``."""
    if threads <= 0:
        yield
        return
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=threads, user_api="blas"):
        yield


def set_blas_threads(threads: int) -> None:
    """Limit numpy's BLAS to ``threads`` threads for the rest of this process (a Spark
    Python worker's), as :func:`blas_threads` does for a block; 0 leaves it."""
    if threads > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=threads, user_api="blas")


def _blas_limited(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(first, config, ...)`` run under :func:`blas_threads` of ``config``."""

    @functools.wraps(fn)
    def run(first: Any, config: Config, *args: Any, **kwargs: Any) -> Any:
        with blas_threads(config.blas_threads):
            return fn(first, config, *args, **kwargs)

    return run


def config_record(config: Config) -> dict[str, Any]:
    """The whole configuration as plain JSON-ready data (every stage's parameters, the
    fitted weights included), as ``manifest.json`` records it."""
    return dataclasses.asdict(config)


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


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    import ctypes

    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to call
        return None


def release_heap() -> bool:
    """Give the heap's free pages back to the system (glibc's ``malloc_trim``): what a
    stage freed stays resident in this process otherwise, and a worker forked after
    inherits it (counted in its resident memory too). Called before each fork; the data
    is untouched. Whether anything was called (False without glibc)."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


class LocalEngine:
    """Maps work onto ``workers`` processes forked from this one (the context and the
    loaded model are inherited copy-on-write; only items' results travel back), in
    order. One worker, a platform without ``fork``, or a call from any thread but the
    main one (a web service's writer) maps in this process: there, work its caller
    marks safe to run in threads (``threads=True``: the sentence encoder, whose matrix
    products release the interpreter lock) runs in ``workers`` threads instead."""

    def __init__(
        self, workers: int = 0, min_parallel: int = MIN_PARALLEL, progress: Progress | None = None
    ) -> None:
        if workers < 0:
            raise ValueError("workers must be >= 0 (0: one per core)")
        self.workers = workers or os.cpu_count() or 1
        self.min_parallel = min_parallel
        self.progress = progress
        #: seconds spent per stage name (the scan's stage timer), wall clock
        self.timings: dict[str, float] = {}
        #: CPU seconds per stage, this process and its workers (what the stage cost,
        #: whatever else the machine was doing)
        self.cpu: dict[str, float] = {}
        #: per stage, this process's resident memory (MB) when the stage last ended and
        #: its peak so far (the high-water mark: the stage where it jumps holds the peak)
        self.rss: dict[str, tuple[float, float]] = {}

    def forks(self, n: int, min_parallel: int | None = None) -> bool:
        """Whether a map of ``n`` items runs in forked workers (else in this process)."""
        least = self.min_parallel if min_parallel is None else min_parallel
        # forking is safe only from the main thread: a thread that forks while others hold
        # locks (a web server's, the interpreter's) can leave its children hung, and
        # ``_TASK`` is one per process
        return (
            self.workers > 1
            and n >= least
            and "fork" in mp.get_all_start_methods()
            and threading.current_thread() is threading.main_thread()
        )

    def _map(
        self,
        stage: str,
        fn,
        items: Sequence[Any],
        context: Any,
        min_parallel: int | None = None,
        threads: bool = False,
    ) -> list[Any]:
        global _TASK
        t0, c0 = time.perf_counter(), _cpu()
        items = items if isinstance(items, Sequence) else list(items)
        n = len(items)
        parallel = self.forks(n, min_parallel)
        out: list[Any] = []
        least = self.min_parallel if min_parallel is None else min_parallel
        if not parallel and threads and self.workers > 1 and n >= max(2, least):
            out = self._map_threads(stage, fn, items, context)
        elif not parallel:
            step = max(1, n // 20)
            for k in range(n):
                out.append(fn(context, items[k]))
                if self.progress and ((k + 1) % step == 0 or k + 1 == n):
                    self.progress(stage, k + 1, n)
        else:
            size = max(1, min(256, n // (self.workers * 8)))
            bounds = [(k, min(n, k + size)) for k in range(0, n, size)]
            _TASK = (fn, context, items)
            release_heap()  # the workers inherit this process's resident pages
            try:
                with mp.get_context("fork").Pool(self.workers, initializer=_worker_init) as pool:
                    for part in pool.imap(_run_chunk, bounds):
                        out.extend(part)
                        if self.progress:
                            self.progress(stage, len(out), n)
            finally:
                _TASK = None
        self._add(stage, t0, c0)
        return out

    def _map_threads(self, stage: str, fn, items: Sequence[Any], context: Any) -> list[Any]:
        """``fn(context, item)`` of every item in ``workers`` threads of this process, in
        order (each item's result is what the serial map gives: the same call)."""
        from concurrent.futures import ThreadPoolExecutor

        n, out = len(items), []
        with ThreadPoolExecutor(
            max_workers=min(self.workers, n), thread_name_prefix=f"unspin-{stage}"
        ) as pool:
            for got in pool.map(lambda item: fn(context, item), items):
                out.append(got)
                if self.progress:
                    self.progress(stage, len(out), n)
        return out

    def _add(self, stage: str, t0: float, c0: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - t0
        self.cpu[stage] = self.cpu.get(stage, 0.0) + _cpu() - c0
        self.rss[stage] = _rss_mb()

    def map_articles(
        self,
        fn,
        items,
        context=None,
        stage: str = "articles",
        min_parallel: int | None = None,
        threads: bool = False,
    ) -> list[Any]:
        """``min_parallel``: fewest items worth forking for (default ``self.min_parallel``;
        the embedding stage passes 2: each of its items is a batch of sentences).
        ``threads``: ``fn`` may run in several threads at once (where this engine does not
        fork)."""
        return self._map(stage, fn, items, context, min_parallel, threads)

    def map_pairs(
        self, fn, items, context=None, stage: str = "pairs", min_parallel: int | None = None
    ) -> list[Any]:
        return self._map(stage, fn, items, context, min_parallel)

    def map_components(self, fn, items, context=None, stage: str = "stories") -> list[Any]:
        return self._map(stage, fn, items, context)

    def timed(self, stage: str, fn: Callable[[], Any]) -> Any:
        """Run a driver-side step and add its time to ``timings``."""
        t0, c0 = time.perf_counter(), _cpu()
        try:
            return fn()
        finally:
            self._add(stage, t0, c0)


def _rss_mb() -> tuple[float, float]:
    """This process's resident memory now and its peak so far, in MB (now: 0 where
    ``/proc`` is missing)."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        with open("/proc/self/statm") as fh:
            now = int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        now = 0.0
    return now, peak


def _cpu() -> float:
    """CPU seconds of this process and its reaped workers so far."""
    import resource

    return sum(
        getattr(resource.getrusage(who), f)
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        for f in ("ru_utime", "ru_stime")
    )


def _noop(stage: str, done: int, total: int) -> None:
    return None


def _engine(engine: Any, config: Config, progress: Progress) -> Any:
    if engine is not None:
        return engine
    return LocalEngine(config.workers, progress=None if progress is _noop else progress)


# ---------------------------------------------------------------- per article


def prepare_work(context: FingerprintParams | None, article: Article) -> Doc:
    """Article -> Doc without vectors (pure; see :func:`unspin.fingerprint.prepare`)."""
    return prepare(article, context)


def doc_cache_name(config: Config) -> str:
    """The embedder name a store keeps docs under: with a sentence cap other than the
    default in it (a cut doc differs with the cap)."""
    name = get_embedder(config.embedder).name
    cap = config.fingerprint.max_sentences
    return name if cap == FingerprintParams().max_sentences else f"{name};sentences<={cap}"


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
        if d.cross_lingual is False:
            continue  # lexical vectors (fingerprint.lexical_vectors), not the encoder's
        for s in d.sentences:
            text = encoder_text(d, s.text)
            keys.setdefault(sentence_key(text), text)
    found = cache.get_sentence_vectors(list(keys), embedder.name) if cache is not None else {}
    todo = [k for k in keys if k not in found]
    if todo:
        loaded = getattr(embedder, "loaded", lambda: True)()
        embedder.warm()
        workers = getattr(engine, "workers", 1)
        size = max(64, min(EMBED_CHUNK, len(todo) // (4 * workers) + 1))
        chunks = [todo[k : k + size] for k in range(0, len(todo), size)]
        texts = [[keys[k] for k in c] for c in chunks]
        forks = getattr(engine, "forks", None)
        # weights loaded here only for forked workers to share: let them go after (issue
        # 14); a process that had them loaded before (a service) keeps them
        release = not loaded and forks is not None and forks(len(texts), 2)
        try:
            parts = engine.map_articles(
                embed_work,
                texts,
                config.embedder,
                stage="embed",
                min_parallel=2,
                # in threads only under a BLAS limit: the encoder's own per-call limit
                # is not safe across threads, and vectors move with BLAS's thread count
                threads=bool(getattr(embedder, "thread_safe", False)) and config.blas_threads > 0,
            )
        except TypeError:  # an engine without the hints
            parts = engine.map_articles(embed_work, texts, config.embedder)
        if release:
            embedder.release()  # type: ignore[attr-defined]
        new = {k: v for c, m in zip(chunks, parts) for k, v in zip(c, m)}
        if cache is not None:
            cache.put_sentence_vectors(new, embedder.name)
        found.update(new)
    return found


@_blas_limited
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
    # stored docs with their sentence vectors read on first use (the work of an add
    # touches a few docs' vectors; the k-NN rows of the others are kept in the store)
    hits = (
        cache.get_docs(articles, doc_cache_name(config), lazy=True)
        if cache is not None
        else [None] * len(docs)
    )
    for i, hit in enumerate(hits):
        if hit is not None:
            mark_coverage([hit], embedder)
            docs[i] = hit
        else:
            todo.append(i)
    progress("fingerprint", len(articles) - len(todo), len(articles))
    if todo:
        fresh = engine.map_articles(
            prepare_work, [articles[i] for i in todo], config.fingerprint, stage="prepare"
        )
        mark_coverage(fresh, embedder)
        share_words(fresh)
        vecs = embed_sentences(fresh, config, engine, cache)
        for i, d in zip(todo, fresh):
            if d.cross_lingual is False:
                mat = lexical_vectors(d, embedder.dim)
            else:
                rows = [vecs[sentence_key(encoder_text(d, s.text))] for s in d.sentences]
                mat = np.vstack(rows) if rows else np.zeros((0, embedder.dim), np.float32)
            set_vectors(d, mat.astype(np.float32, copy=False), embedder.dim)
            docs[i] = d
            if cache is not None:
                cache.put_doc(d, doc_cache_name(config))
        progress("fingerprint", len(articles), len(articles))
    return [d for d in docs if d is not None]


# ---------------------------------------------------------------- memo keys

#: modules whose code decides a result; the memo's keys change with any of them
_RULE_MODULES = (
    "align",
    "candidates",
    "changes",
    "classify",
    "corpus",
    "embed",
    "evidence",
    "fingerprint",
    "lineage",
    "model",
    "normalise",
    "output",  # the JSON lines stored with pair and component results (row_line)
    "pipeline",
    "quotes",
    "stories",
)


@lru_cache(maxsize=1)
def code_version() -> str:
    """Hash of the source of every module that decides a result (memo keys include it,
    so results stored by other code are never reused)."""
    h = hashlib.sha1()
    for m in _RULE_MODULES:
        h.update(Path(__file__).with_name(f"{m}.py").read_bytes())
    return h.hexdigest()[:16]


def config_key(config: Config) -> str:
    """Everything of the settings and the code that a stored result depends on."""
    same = dataclasses.replace(config, workers=0, batch_size=64)
    return hashlib.sha1(f"{code_version()}|{same!r}".encode()).hexdigest()[:16]


def article_key(a: Article, embedder: str) -> str:
    """Hash of every article field the pipeline reads (id and dates too: relations name
    ids and direction reads publication times)."""
    parts = [embedder, a.id, a.text, a.title, a.url, a.outlet, a.published_at, a.lang]
    return hashlib.sha1(key_json(parts).encode()).hexdigest()[:20]


def archive_tag(config: Config) -> str:
    """What the keys kept with an archived article (:meth:`unspin.store.Store.
    save_articles`) were worked out with: the fingerprint version and embedder name of
    its cache key, and the code and embedder of its :func:`article_key`. A run reads them
    only under its own tag."""
    from unspin.fingerprint import FINGERPRINT_VERSION

    return key_json([FINGERPRINT_VERSION, doc_cache_name(config), code_version(), config.embedder])


def archive_keys(a: Article, config: Config, known: Any = None) -> list[str]:
    """``[tag, cache key, article key]`` of ``a`` to keep with it in the archive
    (:func:`archive_tag`); ``known``: its article key when the run hashed it."""
    from unspin.store import cache_key

    ak = known if known is not None else article_key(a, config.embedder)
    return [archive_tag(config), cache_key(a, doc_cache_name(config)), ak]


def _archived_key(memo: Any, a: Article) -> str | None:
    """``a``'s article key as kept in ``memo``'s archive (a Store), when it was."""
    got = memo.archived_keys(a) if hasattr(memo, "archived_keys") else None
    return got[1] if got is not None else None


def _key(*parts: str) -> str:
    return hashlib.sha1("|".join(parts).encode()).hexdigest()


def pair_key(ck: str, ak: Sequence[str], forms: Sequence[dict[int, int]], i: int, j: int) -> str:
    """The key a pair's result is stored under: the settings and code (``ck``), the two
    articles (``ak``: :func:`article_key` per doc) and, where either has any, their form
    lines in the pile (``forms``: a verdict of the pile that the pair's rules read)."""
    fi = forms[i] if forms else {}
    fj = forms[j] if forms else {}
    if fi or fj:
        return _key(ck, ak[i], ak[j], repr(sorted(fi.items())), repr(sorted(fj.items())))
    return _key(ck, ak[i], ak[j])


class KeyArray(Sequence):
    """Keys (ASCII: the pair keys' hex digits) held as one fixed-width bytes array, read
    as ``str``: the pair state of a 20,000-article pile keeps ~345,000 keys, which an
    add pickles and reads back as one buffer, not as as many strings. Equal to the list
    of the strings it holds."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __len__(self) -> int:
        return len(self.array)

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return [x.decode() for x in self.array[k].tolist()]
        return self.array[k].decode()

    def __iter__(self):
        return (x.decode() for x in self.array.tolist())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, KeyArray)):
            return len(other) == len(self) and list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def key_array(keys: Sequence[str] | np.ndarray) -> np.ndarray:
    """``keys`` as a fixed-width bytes array (:class:`KeyArray`'s); a state kept by
    earlier code holds a list of strings."""
    if isinstance(keys, KeyArray):
        return keys.array
    if isinstance(keys, np.ndarray):
        return keys
    return np.array(list(keys), dtype="S") if len(keys) else np.zeros(0, dtype="S40")


def pair_keys(
    ck: str,
    ak: Sequence[str],
    forms: Sequence[dict[int, int]],
    pairs: Sequence[tuple[int, int]],
    last: PairState | None = None,
    places: np.ndarray | None = None,
) -> Sequence[str]:
    """:func:`pair_key` of each pair; with the last run's state ``last`` (same ``ck``)
    and each pair's place in it (``places``, :func:`last_places`; -1: none), a pair
    with a place takes its key from there, so an add hashes only the pairs that are
    new or whose articles' form lines moved, not every pair of the pile (the keys then
    as a :class:`KeyArray`: one array gather, no string per pair)."""
    if last is None or places is None:
        return [pair_key(ck, ak, forms, i, j) for i, j in pairs]
    kept = key_array(last.keys)
    if len(kept):
        out = kept[np.maximum(places, 0)]
    else:
        out = np.zeros(len(places), dtype="S40")
    new = np.flatnonzero(places < 0)
    if len(new):
        fresh = np.array([pair_key(ck, ak, forms, *pairs[k]) for k in new.tolist()], dtype="S")
        if fresh.dtype.itemsize > out.dtype.itemsize:
            out = out.astype(fresh.dtype)
        out[new] = fresh
    return KeyArray(out)


def pair_position(pair: object, n: int, codes: np.ndarray, order: np.ndarray | None) -> int:
    """Where pair ``(i, j)`` of docs ``0..n-1`` sits among pairs coded ``i * n + j``
    (``codes`` sorted; ``order``: each sorted code's position in the order the pairs were
    given, None when given sorted), or -1 when it is not there (or is no pair)."""
    if not (isinstance(pair, tuple) and len(pair) == 2):
        return -1
    i, j = pair
    if not (0 <= i < n and 0 <= j < n):
        return -1
    code = i * n + j
    at = int(np.searchsorted(codes, code))
    if at >= len(codes) or int(codes[at]) != code:
        return -1
    return at if order is None else int(order[at])


class PairKeys(Mapping):
    """Each candidate pair's stored-result key by pair (``PairStage.pair_keys``), read
    from the pairs' index arrays and a key array: no dict of every pair of the pile."""

    def __init__(self, ei: np.ndarray, ej: np.ndarray, n: int, keys: Sequence[str]) -> None:
        self.n = max(n, 1)
        codes = ei * self.n + ej
        self.order = None
        if len(codes) > 1 and not bool(np.all(codes[1:] > codes[:-1])):
            self.order = np.argsort(codes, kind="stable")
            codes = codes[self.order]
        self.codes, self.array = codes, key_array(keys)

    def _at(self, pair: object) -> int:
        return pair_position(pair, self.n, self.codes, self.order)

    def __getitem__(self, pair: tuple[int, int]) -> str:
        x = self._at(pair)
        if x < 0:
            raise KeyError(pair)
        return self.array[x].decode()

    def __contains__(self, pair: object) -> bool:
        return self._at(pair) >= 0

    def __len__(self) -> int:
        return len(self.codes)

    def __iter__(self):
        ei, ej = self.codes // self.n, self.codes % self.n
        return iter(zip(ei.tolist(), ej.tolist()))


def last_docs(
    last: PairState, ak: Sequence[str], forms: Sequence[dict[int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Per doc, its place in the last run's state (-1: not there), and whether it was
    there with the form lines it has now (its pairs' keys then still hold)."""
    where = {a: x for x, a in enumerate(last.docs or ())}
    old = np.array([where.get(a, -1) for a in ak], dtype=np.int64)
    then = last.forms or {}
    same = np.array(
        [
            o >= 0 and (forms[i] if forms else {}) == then.get(o, {})
            for i, o in enumerate(old.tolist())
        ],
        dtype=bool,
    )
    return old, same


def last_places(
    last: PairState | None,
    ak: Sequence[str],
    forms: Sequence[dict[int, int]],
    ei: np.ndarray,
    ej: np.ndarray,
    mapped: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Per pair ``(ei[k], ej[k])``, its place in the last run's :class:`PairState`
    when the key stored there is its key now (-1 else): the same two articles
    (:func:`article_key`) in the same order, each with the form lines it had then (the
    key is a function of those and ``ck``, which the state's slot holds). Found by
    article key and the last run's pair codes, in arrays: no per-pair hashing.
    ``mapped``: :func:`last_docs` of the same, when the caller has it."""
    out = np.full(len(ei), -1, dtype=np.int64)
    if last is None or last.docs is None or not len(ei) or not len(last.codes):
        return out
    old, same = mapped if mapped is not None else last_docs(last, ak, forms)
    oi, oj = old[ei], old[ej]
    ok = np.flatnonzero(same[ei] & same[ej] & (oi < oj))
    codes = oi[ok] * len(last.docs) + oj[ok]
    order = np.argsort(last.codes, kind="stable")
    sorted_codes = last.codes[order]
    pos = np.minimum(np.searchsorted(sorted_codes, codes), len(sorted_codes) - 1)
    hit = sorted_codes[pos] == codes
    out[ok[hit]] = order[pos[hit]]
    return out


def touched_docs(
    last: PairState | None,
    ak: Sequence[str],
    forms: Sequence[dict[int, int]],
    ei: np.ndarray,
    ej: np.ndarray,
    places: np.ndarray,
    todo: Sequence[int],
    link: np.ndarray,
    reuse: np.ndarray,
    mapped: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray | None:
    """Per doc, whether the story stage may read anything of it that differs from the
    last run's (``last``): a doc new to the pile or whose form lines moved, and both
    docs of every candidate pair that is new (no place in ``last``), computed again
    (``todo``), or whose link strength or reuse flag differs from what ``last`` holds,
    and of every pair of ``last`` that is no candidate pair now. A pair with its place
    and not computed again has its stored result under the same key, so its features
    are the last run's. None without ``last``. ``mapped``: :func:`last_docs` of the
    same, when the caller has it."""
    if last is None or last.docs is None:
        return None
    old, same = mapped if mapped is not None else last_docs(last, ak, forms)
    hit = ~same
    moved = places < 0
    if len(todo):
        moved[np.asarray(todo, dtype=np.int64)] = True
    at = np.flatnonzero(~moved)
    was = places[at]
    diff = (link[at] != last.links[was]) | (reuse[at] != last.reuse[was])
    moved[at[diff]] = True
    hit[ei[moved]] = True
    hit[ej[moved]] = True
    seen = np.zeros(len(last.codes), dtype=bool)
    seen[was] = True
    gone = np.flatnonzero(~seen)
    if len(gone):
        m = max(len(last.docs), 1)
        cur = np.full(m, -1, dtype=np.int64)
        present = np.flatnonzero(old >= 0)
        cur[old[present]] = present
        for side in (last.codes[gone] // m, last.codes[gone] % m):
            c = cur[side]
            hit[c[c >= 0]] = True
    return hit


#: the highest count of other articles a pair rule reads from the pile (``support`` of a
#: name, ``phrase_support`` of word pairs): the rules compare these counts with 0 or with
#: :func:`unspin.classify.wording_votes`' ``min_support`` (2), so a pair is computed from
#: the counts capped here (a count above it reads as it: the same decisions). A stored
#: pair result then replays when a count it read moves above the cap (a phrase 748
#: articles use, then 749), which an add of almost any article does: without the cap
#: every pair that read a common phrase was computed again. A rule that reads a higher
#: count needs this raised (tests/test_incremental.py checks it against ``min_support``).
SUPPORT_CAP = 2


class RecordingSupport:
    """A :class:`~unspin.corpus.SupportView` that logs every question and its answer, so a
    stored pair result can be reused exactly when the corpus gives the same answers now
    (:func:`same_answers`): the rules are deterministic, so same docs and same answers
    replay the same decisions. Counts are answered capped at :data:`SUPPORT_CAP`."""

    def __init__(self, view: SupportView) -> None:
        self.view = view
        self.log: list[tuple] = []

    def __call__(self, word: str, a: str, b: str) -> int:
        v = min(self.view(word, a, b), SUPPORT_CAP)
        self.log.append(("__call__", (word, a, b), v))
        return v

    def lower_only(self, word: str, a: str, b: str, min_lower: int = 5) -> bool:
        v = self.view.lower_only(word, a, b, min_lower)
        self.log.append(("lower_only", (word, a, b, min_lower), v))
        return v

    def casing(self, word: str, a: str, b: str, house_share: float = 0.1) -> bool | None:
        v = self.view.casing(word, a, b, house_share)
        self.log.append(("casing", (word, a, b, house_share), v))
        return v

    def line_sequence(self, doc_id: str) -> np.ndarray | None:
        return self.view.line_sequence(doc_id)  # the article's own data: nothing to log

    def form_lines(self, doc_id: str, min_fills: int, share: float) -> dict[int, int]:
        v = self.view.form_lines(doc_id, min_fills, share)
        self.log.append(("form_lines", (doc_id, min_fills, share), v))
        return v

    def lines_in_at_least(self, hashes: np.ndarray, n: int) -> np.ndarray:
        # the verdict, not the count, is logged: a line held by more articles still than
        # before replays the stored result
        v = self.view.lines_in_at_least(hashes, n)
        raw = np.asarray(hashes, dtype=np.uint64).tobytes()
        self.log.append(("lines_in_at_least", (raw, n), v.tolist()))
        return v

    def phrase_support(self, hashes: np.ndarray, a: str, b: str) -> np.ndarray:
        v = np.minimum(self.view.phrase_support(hashes, a, b), SUPPORT_CAP)
        raw = np.asarray(hashes, dtype=np.uint64).tobytes()
        self.log.append(("phrase_support", (raw, a, b), v.tolist()))
        return v


def same_answers(log: Sequence[tuple], view: SupportView) -> bool:
    """Whether ``view`` answers every logged question as it was answered then."""
    for name, args, v in log:
        if name == "phrase_support":
            got = view.phrase_support(np.frombuffer(args[0], np.uint64), args[1], args[2])
            if np.minimum(got, SUPPORT_CAP).tolist() != v:
                return False
        elif name == "__call__":
            if min(view(*args), SUPPORT_CAP) != v:
                return False
        elif name == "lines_in_at_least":
            got = view.lines_in_at_least(np.frombuffer(args[0], np.uint64), args[1])
            if got.tolist() != v:
                return False
        elif getattr(view, name)(*args) != v:
            return False
    return True


#: at most this many articles added or removed since the last run's pair state for an
#: add to settle stored answers by the corpus change alone (:class:`CorpusChange`);
#: beyond it every stored result that asked the corpus is replayed
SETTLE_MAX = 64


class CorpusChange:
    """What the articles added to and removed from the pile since the last run changed
    in the corpus counts a pair rule asks (:class:`RecordingSupport`): the names,
    capitals, lower-case and plain words, word-pair and line hashes of their
    :class:`~unspin.corpus.SupportLocal` s, and the article count before and after.

    A stored pair result that the last run replayed or computed answered its questions
    as that run's corpus did; a question none of whose counts moved since is answered
    the same now (:meth:`moves`), so the result holds without reading the pair's shares
    or replaying its log: an add replays the results that ask about its own articles'
    words and lines, not every result of the pile that asked anything."""

    def __init__(self, changed: Sequence[SupportLocal], n_then: int, n_now: int) -> None:
        self.names = frozenset().union(*(loc.names for loc in changed))
        self.capitals = frozenset().union(*(loc.capitals for loc in changed))
        self.lower = frozenset().union(*(loc.lower for loc in changed))
        self.words = frozenset().union(*(loc.words for loc in changed))
        self.cased = self.capitals | self.lower | self.words
        self.bigrams = _sorted_union([loc.bigrams for loc in changed])
        self.lines = _sorted_union([loc.lines for loc in changed])
        self.n_then, self.n_now = n_then, n_now

    def moves(self, log: Sequence[tuple], stats: CorpusStats) -> bool:
        """Whether any question of ``log`` may be answered otherwise now (``stats``: the
        pile's counts now). Conservative: a kind of question it does not know moves.
        Read from the log's :class:`LogSummary` (set and array tests, not one call per
        question): the same answer as asking each question (:meth:`_moves`)."""
        g = log_summary(log)
        if g.other or not g.names.isdisjoint(self.names):
            return True
        if g.lower and not (g.lower.isdisjoint(self.lower) and g.lower.isdisjoint(self.capitals)):
            return True
        for word, share in g.casing:
            if word in self.cased:
                return True
            held = stats.words.get(word, 0)
            if (held > share * self.n_then) != (held > share * self.n_now):
                return True
        return _any_of(g.bigrams, self.bigrams) or _any_of(g.lines, self.lines)

    def moved(self, log: Sequence[tuple], stats: CorpusStats) -> list[tuple]:
        """The questions of ``log`` that may be answered otherwise now: the others are
        answered as then, so a replay asks these only (:func:`same_answers`)."""
        return [entry for entry in log if self._moves(entry, stats)]

    def _moves(self, entry: tuple, stats: CorpusStats) -> bool:
        name, args, _ = entry
        if name == "__call__":  # the articles naming the word
            return args[0] in self.names
        if name == "lower_only":  # its lower-case and capitalised counts
            return args[0] in self.lower or args[0] in self.capitals
        if name == "casing":  # those, its word count, and the share of the pile
            word, share = args[0], args[3]
            if word in self.cased:
                return True
            held = stats.words.get(word, 0)
            return (held > share * self.n_then) != (held > share * self.n_now)
        if name == "phrase_support":
            return _any_in(args[0], self.bigrams)
        if name == "lines_in_at_least":
            return _any_in(args[0], self.lines)
        return True


@dataclass(frozen=True)
class LogSummary:
    """A stored pair result's questions to the corpus (:class:`RecordingSupport`'s log)
    by kind: the words asked about by name, by lower-case count and by casing (with
    their shares), the word-pair and line hashes asked about, and whether it asked a
    kind :class:`CorpusChange` does not read (then every change moves it)."""

    names: frozenset[str]
    lower: frozenset[str]
    casing: tuple[tuple[str, float], ...]
    bigrams: np.ndarray
    lines: np.ndarray
    other: bool


#: the summaries of logs a process read (a service keeps the logs it read, so each is
#: summarised once), by the log's id, with the log held so the id names no other (and
#: its length: a log still being recorded is summarised again)
_SUMMARIES: dict[int, tuple[Any, int, LogSummary]] = {}
#: at most this many kept (the oldest go first)
SUMMARY_KEEP_MAX = 200_000


def log_summary(log: Sequence[tuple]) -> LogSummary:
    """:class:`LogSummary` of ``log`` (kept per log object)."""
    got = _SUMMARIES.get(id(log))
    if got is not None and got[0] is log and got[1] == len(log):
        return got[2]
    names: set[str] = set()
    lower: set[str] = set()
    casing: list[tuple[str, float]] = []
    bigrams: list[bytes] = []
    lines: list[bytes] = []
    other = False
    for name, args, _ in log:
        if name == "__call__":
            names.add(args[0])
        elif name == "lower_only":
            lower.add(args[0])
        elif name == "casing":
            casing.append((args[0], args[3]))
        elif name == "phrase_support":
            bigrams.append(args[0])
        elif name == "lines_in_at_least":
            lines.append(args[0])
        else:
            other = True
    g = LogSummary(
        frozenset(names),
        frozenset(lower),
        tuple(casing),
        np.frombuffer(b"".join(bigrams), np.uint64) if bigrams else _NO_HASHES,
        np.frombuffer(b"".join(lines), np.uint64) if lines else _NO_HASHES,
        other,
    )
    _SUMMARIES[id(log)] = (log, len(log), g)
    while len(_SUMMARIES) > SUMMARY_KEEP_MAX:
        _SUMMARIES.pop(next(iter(_SUMMARIES)))
    return g


_NO_HASHES = np.zeros(0, dtype=np.uint64)


def _any_of(h: np.ndarray, held: np.ndarray) -> bool:
    """Whether any hash of ``h`` is in sorted ``held``."""
    if not len(held) or not len(h):
        return False
    at = np.minimum(np.searchsorted(held, h), len(held) - 1)
    return bool((held[at] == h).any())


def _sorted_union(arrays: Sequence[np.ndarray]) -> np.ndarray:
    if not arrays:
        return np.zeros(0, dtype=np.uint64)
    return np.unique(np.concatenate([np.asarray(a, dtype=np.uint64) for a in arrays]))


def _any_in(raw: bytes, held: np.ndarray) -> bool:
    """Whether any uint64 hash in ``raw`` (as a log holds them) is in sorted ``held``."""
    return bool(raw) and _any_of(np.frombuffer(raw, np.uint64), held)


def corpus_change(last: Any, ak: Sequence[str], ctx: PairContext, memo: Any) -> CorpusChange | None:
    """The :class:`CorpusChange` from the pile of the last run's pair state ``last`` to
    this one (``ak``: its articles by :func:`article_key`); None when it cannot be told
    exactly or cheaply (no state, more than ``SETTLE_MAX`` articles changed, a removed
    article's share not stored, statistics not of this pile)."""
    if last is None or last.docs is None or ctx.load is None:
        return None
    now = set(ak)
    if len(now) != len(ak) or getattr(ctx.stats, "n", None) != len(ak):
        return None
    then = set(last.docs)
    added = [i for i, a in enumerate(ak) if a not in then]
    gone = [a for a in last.docs if a not in now]
    if len(added) + len(gone) > SETTLE_MAX or len(then) != len(last.docs):
        return None
    prefix = f"{code_version()}:"
    lost = memo.memo_get("local", [prefix + a for a in gone]) if gone else {}
    if len(lost) != len(gone):
        return None
    changed = [*ctx.load(added), *lost.values()]
    return CorpusChange(changed, len(last.docs), len(ak))


# ---------------------------------------------------------------- per pair


def pair_result(
    a: Doc, b: Doc, support: Any, config: Config, forms: Forms | None = None
) -> Relation | None:
    """The reuse relation of two docs (aligned and classified in id order), or None.

    ``forms``: the two docs' form lines (:func:`pair_forms`, in the order given), when
    the caller has them; else asked of ``support``."""
    if forms is None:
        forms = pair_forms(a, b, support, config)
    if second_pair(a, b):  # outside the main encoder: the e5 space and its thresholds
        a, b, config = view(a), view(b), pair_config(config, outside_pair(a, b))
    if a.id > b.id:
        a, b = b, a
        forms = (forms[1], forms[0]) if forms is not None else None
    corpus = getattr(support, "casing", None)
    casing = (lambda w: corpus(w, a.id, b.id)) if corpus is not None and forms else None
    # lines repeated across the pile are boilerplate for the pair's evidence
    a, b = stock_lines(a, b, support, config.align)
    al = align(a, b, config.align, forms, casing)
    return classify(a, b, al, config.classify, support, config.align)


def pair_forms(a: Doc, b: Doc, support: Any, config: Config) -> Forms | None:
    """The two docs' form lines in the pile (``support.form_lines``; None without one)."""
    fl = getattr(support, "form_lines", None)
    if fl is None:
        return None
    p = config.align
    return fl(a.id, p.form_min_fills, p.form_share), fl(b.id, p.form_min_fills, p.form_share)


def pair_features(
    a: Doc, b: Doc, shared_quotes: int, sp: StoryParams, forms: Forms | None = None
) -> dict[str, float]:
    """Story features of a pair (``a`` first in corpus order); ``forms``: their form
    lines (:func:`pair_forms`)."""
    fa, fb = forms or (None, None)
    return story_features(
        a,
        b,
        lambda x, y: _story_pair_features(
            x, y, shared_quotes, sp.time_scale_days, story_keys(x, fa), story_keys(y, fb)
        ),
    )


@dataclass
class PairContext:
    """What per-pair work reads: the docs, each one's share of the corpus statistics and
    quotation keys, the global statistics and the settings."""

    docs: Sequence[Doc]
    locals: Sequence[SupportLocal]
    stats: CorpusStats
    qkeys: Sequence[set[str]]
    config: Config
    #: per doc, its form lines in the pile (corpus.form_sentences; {} for most articles)
    forms: Sequence[dict[int, int]] = ()
    #: ``load(indexes)``: reads those docs' shares into ``locals`` (None where they are
    #: not read yet; see :func:`corpus_context`), when only some were read
    load: Callable[[Iterable[int]], list[SupportLocal]] | None = None
    #: whether :func:`pair_work` gives the story features back packed
    #: (:func:`pack_features`, for a :class:`FeatureTable`) rather than as a dict
    pack: bool = False


def pair_work(ctx: PairContext, pair: tuple[int, int]) -> tuple[Relation | None, dict, list[tuple]]:
    """Reuse relation and story features of candidate pair ``(i, j)``, ``i < j``, and
    the corpus questions the rules asked (see :class:`RecordingSupport`). The two docs'
    form lines are the context's (the pile's verdicts, which the pair's memo key holds:
    :func:`pair_key`), not questions to log."""
    i, j = pair
    support = RecordingSupport(SupportView(ctx.stats, (ctx.locals[i], ctx.locals[j])))
    if ctx.forms:
        forms: Forms | None = (ctx.forms[i], ctx.forms[j])
    else:
        forms = pair_forms(ctx.docs[i], ctx.docs[j], support, ctx.config)
    rel = pair_result(ctx.docs[i], ctx.docs[j], support, ctx.config, forms)
    shared = len(ctx.qkeys[i] & ctx.qkeys[j])
    feats = pair_features(ctx.docs[i], ctx.docs[j], shared, ctx.config.stories, forms)
    return rel, pack_features(feats) if ctx.pack else feats, support.log


@dataclass
class PairStage:
    """What the per-pair work produced: reuse relations and story features by pair."""

    pairs: list[tuple[int, int]]
    reuse: dict[tuple[int, int], Relation]
    #: story features by pair: every candidate pair's, or with a memo only those read
    #: so far (the rest, ``stored``, are read from the memo when a story component
    #: needs them: :meth:`fetch`)
    features: dict[tuple[int, int], dict[str, float]]
    feature_fn: Callable[[int, int], dict[str, float]]
    #: with a memo: each article's :func:`article_key`, and the key each pair's result is
    #: stored under (everything the pair's features are computed from)
    article_keys: list[str] = field(default_factory=list)
    pair_keys: Mapping[tuple[int, int], str] = field(default_factory=dict)
    #: per doc, its exact-duplicate group's representative (see
    #: :func:`unspin.candidates.representatives`); None: every doc its own
    rep: list[int] | None = None
    #: what the second encoder did (:class:`unspin.second.Plan`; None: not run)
    second: Any = None
    #: every candidate pair's link strength in the story graph (:func:`link_strength`);
    #: None: worked out from ``features``
    links: dict[tuple[int, int], float] | None = None
    #: pairs whose features are in ``memo`` only (not yet in ``features``; may hold
    #: pairs left out of ``pairs`` by :meth:`without_members`, never asked for)
    stored: set[tuple[int, int]] | QuietPairs = field(default_factory=set)
    memo: Any = None
    #: ``pairs`` as two index arrays and their link strengths, in the same order (None:
    #: worked out from ``links``): the story stage's pile-wide passes read these
    pair_arrays: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    #: with a memo: the JSON line of each reuse relation in ``reuse`` stored with its
    #: result (:func:`_with_line`; results stored by older code have none)
    lines: dict[tuple[int, int], str] = field(default_factory=dict)
    #: with the last run's pair state: per doc, whether any of its candidate pairs is new,
    #: gone, computed again or changed its link or reuse flag since that run, or its form
    #: lines moved (:func:`touched_docs`); None without that state
    touched: np.ndarray | None = None
    #: the run names (:attr:`PairState.run`) of the last pair state ``touched`` is
    #: against and of the state this run kept ("" where none)
    runs: tuple[str, str] = ("", "")

    def link_strengths(self) -> dict[tuple[int, int], float]:
        """Every candidate pair's link strength (:func:`link_strength`)."""
        if self.links is None:
            if self.pair_arrays is not None:
                self.links = dict(zip(self.pairs, self.pair_arrays[2].tolist()))
            else:
                feats = self.features
                rows = feats.packed() if isinstance(feats, PackedFeatures) else feats.items()
                self.links = {pair: link_strength(pair in self.reuse, f) for pair, f in rows}
        return self.links

    def link_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every candidate pair as two index arrays and its link strength."""
        if self.pair_arrays is None:
            links = self.link_strengths()
            n = len(links)
            self.pair_arrays = (
                np.fromiter((p[0] for p in links), dtype=np.int64, count=n),
                np.fromiter((p[1] for p in links), dtype=np.int64, count=n),
                np.fromiter(links.values(), dtype=np.float64, count=n),
            )
        return self.pair_arrays

    def fetch(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Read the stored features of these pairs (those among ``stored``) into
        ``features``."""
        want = [p for p in pairs if p in self.stored]
        if not want:
            return
        got = self.memo.memo_get("pair", [self.pair_keys[p] for p in want])
        for p in want:
            self.features[p] = got[self.pair_keys[p]][1]
            self.stored.discard(p)

    def without_members(self) -> PairStage:
        """The stage as the stories see it: the pairs of the docs that are not
        representatives of their duplicate group left out (those docs join their
        representative's story afterwards: :func:`add_members`)."""
        rep = self.rep
        if rep is None or all(r == i for i, r in enumerate(rep)):
            return self
        own = [r == i for i, r in enumerate(rep)]
        ei, ej, strength = self.link_arrays()
        mine = np.array(own, dtype=bool)
        keep = mine[ei] & mine[ej]
        ei, ej = ei[keep], ej[keep]
        feats = self.features
        return dataclasses.replace(
            self,
            pairs=list(zip(ei.tolist(), ej.tolist())),
            reuse={p: r for p, r in self.reuse.items() if own[p[0]] and own[p[1]]},
            # the table's pairs are in the order of the link arrays (pair_stage)
            features=feats.take(keep)
            if isinstance(feats, FeatureTable)
            else feats.keeping(lambda p: own[p[0]] and own[p[1]])
            if isinstance(feats, PackedFeatures)
            else {p: f for p, f in feats.items() if own[p[0]] and own[p[1]]},
            links=None,
            pair_arrays=(ei, ej, strength[keep]),
        )


class QuietPairs:
    """The pairs whose stored results an add neither read nor replayed (their features
    are read when a story component needs them: :meth:`PairStage.fetch`), as sorted pair
    codes ``i * n + j`` instead of a set of every such pair of the pile: ``in`` and
    ``discard`` for the few pairs asked about."""

    def __init__(self, ei: np.ndarray, ej: np.ndarray, n: int) -> None:
        self.n = max(int(n), 1)
        self.codes = np.sort(ei.astype(np.int64) * self.n + ej.astype(np.int64))
        self.gone: set[int] = set()

    def _code(self, pair: tuple[int, int]) -> int | None:
        i, j = pair
        if not (0 <= i < self.n and 0 <= j < self.n):
            return None
        return i * self.n + j

    def __contains__(self, pair: object) -> bool:
        code = self._code(pair)  # type: ignore[arg-type]
        if code is None or code in self.gone:
            return False
        at = int(np.searchsorted(self.codes, code))
        return at < len(self.codes) and int(self.codes[at]) == code

    def discard(self, pair: tuple[int, int]) -> None:
        if pair in self:
            self.gone.add(self._code(pair))  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self.codes) - len(self.gone)

    def __bool__(self) -> bool:
        return len(self) > 0


def link_strength(reuse: bool, features: bytes | dict[str, float]) -> float:
    """A candidate pair's link in the story graph: infinite for reuse and shared
    quotations (always one component), else the document similarity. ``features`` as a
    dict or packed (:func:`pack_features`: the two values read without a dict)."""
    if reuse:
        return np.inf
    if isinstance(features, bytes):
        values = _PACK.unpack(features)
        quotes, doc_sim = values[_QUOTES_AT], values[_DOC_SIM_AT]
    else:
        quotes, doc_sim = features["quotes"], features["doc_sim"]
    return np.inf if quotes > 0 else doc_sim


def pack_features(features: dict[str, float]) -> bytes | dict[str, float]:
    """A pair's story features as they travel from a worker to a scan's
    :class:`FeatureTable`: the floats of :data:`~unspin.stories.PAIR_FEATURE_NAMES`
    packed as doubles (120 bytes, against ~1 KB for the dict), or the dict as it is when
    its keys or the types of its values are others (kept as they are)."""
    if tuple(features) != PAIR_FEATURE_NAMES:
        return features
    values = tuple(features.values())
    if not all(type(v) is float for v in values):
        return features
    return _PACK.pack(*values)


_PACK = struct.Struct(f"={len(PAIR_FEATURE_NAMES)}d")
_QUOTES_AT = PAIR_FEATURE_NAMES.index("quotes")
_DOC_SIM_AT = PAIR_FEATURE_NAMES.index("doc_sim")


def unpack_features(features: bytes | dict[str, float]) -> dict[str, float]:
    """A pair's story features as a dict: :func:`pack_features`' bytes read back (the
    same keys in the same order, the same Python floats), or the dict as it is."""
    if isinstance(features, bytes):
        return dict(zip(PAIR_FEATURE_NAMES, _PACK.unpack(features)))
    return features


class PackedFeatures(MutableMapping):
    """Story features by pair (``pair -> dict``) for a scan or add with a memo, each held
    packed (:func:`pack_features`: 120 bytes against ~1 KB for the dict; a scan of all of
    Reuters has hundreds of thousands of candidate pairs, issue 14). Unlike
    :class:`FeatureTable` it grows: the features of stored pairs are put in as story
    components ask for them (:meth:`PairStage.fetch`). Each read gives a new dict equal
    to the one put in; features with other keys or value types are kept as their dicts.
    Pairs iterate in the order put in."""

    def __init__(self, items: Iterable[tuple[tuple[int, int], bytes | dict[str, float]]] = ()):
        self._packed: dict[tuple[int, int], bytes | dict[str, float]] = {}
        for pair, f in items:
            self[pair] = f

    def __getitem__(self, pair: tuple[int, int]) -> dict[str, float]:
        return unpack_features(self._packed[pair])

    def __setitem__(self, pair: tuple[int, int], features: bytes | dict[str, float]) -> None:
        self._packed[pair] = features if isinstance(features, bytes) else pack_features(features)

    def __delitem__(self, pair: tuple[int, int]) -> None:
        del self._packed[pair]

    def __contains__(self, pair: object) -> bool:
        return pair in self._packed

    def __iter__(self):
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def packed(self) -> Iterator[tuple[tuple[int, int], bytes | dict[str, float]]]:
        """``(pair, features)`` as held (packed bytes, or a dict kept as it is), without
        a dict made per pair: for readers of a value or two (:func:`link_strength`)."""
        return iter(self._packed.items())

    def keeping(self, keep: Callable[[tuple[int, int]], bool]) -> PackedFeatures:
        """The mapping of the pairs ``keep`` is true for (their packed rows shared)."""
        out = PackedFeatures()
        out._packed = {p: f for p, f in self._packed.items() if keep(p)}
        return out


class FeatureTable(Mapping):
    """Every candidate pair's story features (``pair -> dict``, read-only), held as one
    float64 row per pair instead of a dict per pair: a scan of all of Reuters has
    hundreds of thousands of candidate pairs, whose dicts held ~1 KB each in the main
    process and in every worker forked after (issue 14). Each read gives a new dict,
    equal to the one computed (every value the same Python float, the keys in the same
    order); features with other keys or other types are kept as their dicts. Pairs
    iterate in the order given."""

    def __init__(
        self,
        pairs: Sequence[tuple[int, int]],
        n: int,
        packed: Sequence[bytes | dict[str, float]],
    ) -> None:
        self.n = max(int(n), 1)
        m = len(pairs)
        ei, ej = pair_index_arrays(pairs)
        self.ei, self.ej = ei.copy(), ej.copy()
        codes = self.ei * self.n + self.ej
        self.order: np.ndarray | None = None
        if m > 1 and not bool(np.all(codes[1:] > codes[:-1])):
            self.order = np.argsort(codes, kind="stable")
            codes = codes[self.order]
            if bool(np.any(codes[1:] == codes[:-1])):
                raise ValueError("FeatureTable: a pair is given twice")
        self.codes = codes
        #: per pair, its row in ``values`` (-1: its dict is in ``extra``)
        self.rows = np.full(m, -1, dtype=np.int64)
        self.extra: dict[tuple[int, int], dict[str, float]] = {}
        blobs = []
        for k, f in enumerate(packed):
            if isinstance(f, bytes):
                self.rows[k] = len(blobs)
                blobs.append(f)
            else:
                self.extra[(int(self.ei[k]), int(self.ej[k]))] = f
        width = len(PAIR_FEATURE_NAMES)
        self.values = np.frombuffer(b"".join(blobs), dtype=np.float64).reshape(-1, width)

    @classmethod
    def _of(cls, ei, ej, n, order, codes, rows, extra, values) -> FeatureTable:
        t = cls.__new__(cls)
        t.ei, t.ej, t.n, t.order, t.codes = ei, ej, n, order, codes
        t.rows, t.extra, t.values = rows, extra, values
        return t

    def _at(self, pair: object) -> int:
        """The pair's position in the order given, or -1."""
        return pair_position(pair, self.n, self.codes, self.order)

    def __getitem__(self, pair: tuple[int, int]) -> dict[str, float]:
        k = self._at(pair)
        if k < 0:
            raise KeyError(pair)
        r = int(self.rows[k])
        if r < 0:
            return self.extra[pair]
        return dict(zip(PAIR_FEATURE_NAMES, self.values[r].tolist()))

    def __contains__(self, pair: object) -> bool:
        return self._at(pair) >= 0

    def __len__(self) -> int:
        return len(self.ei)

    def __iter__(self):
        return iter(zip(self.ei.tolist(), self.ej.tolist()))

    def links(self, reuse: Mapping[tuple[int, int], Any]) -> np.ndarray:
        """Every pair's :func:`link_strength`, in the order given (``reuse``: the pairs
        with a reuse relation)."""
        out = np.empty(len(self.ei), dtype=np.float64)
        packed = self.rows >= 0
        if packed.any():
            cols = {name: c for c, name in enumerate(PAIR_FEATURE_NAMES)}
            v = self.values[self.rows[packed]]
            out[packed] = np.where(v[:, cols["quotes"]] > 0, np.inf, v[:, cols["doc_sim"]])
        for k in np.flatnonzero(~packed).tolist():
            pair = (int(self.ei[k]), int(self.ej[k]))
            out[k] = link_strength(False, self.extra[pair])
        for pair in reuse:
            k = self._at(pair)
            if k >= 0:
                out[k] = np.inf
        return out

    def take(self, keep: np.ndarray) -> FeatureTable:
        """The table of the pairs where ``keep`` (a mask in the order given) is true."""
        ei, ej, rows = self.ei[keep], self.ej[keep], self.rows[keep]
        codes = ei * self.n + ej
        order = None
        if self.order is not None and len(codes) > 1:
            order = np.argsort(codes, kind="stable")
            codes = codes[order]
        extra = {p: f for p, f in self.extra.items() if keep[self._at(p)]}
        return FeatureTable._of(ei, ej, self.n, order, codes, rows, extra, self.values)


@dataclass
class PairState:
    """The last run's candidate pairs by the key each one's result is stored under, with
    per pair its link strength, whether it is reuse, and whether its rules asked the
    corpus anything (then its result is replayed, :func:`same_answers`): an ``add``
    reads the stored results of the pairs that need them only."""

    #: as a fixed-width bytes array (:func:`key_array`; earlier code kept a list)
    keys: np.ndarray | list[str]
    links: np.ndarray
    reuse: np.ndarray
    asked: np.ndarray
    #: the run's docs by :func:`article_key`, their form lines (by place, the docs with
    #: any) and each pair as the code ``i * len(docs) + j``: where a pair of this run
    #: was then (:func:`last_places`), so its key is not hashed again
    docs: list[str] | None = None
    forms: dict[int, dict[int, int]] | None = None
    codes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: a name of the run that kept this state (random): what is kept from a run's later
    #: stages is taken up only against the pair state of that same run
    run: str = ""


def add_members(groups: list[list[int]], members: dict[int, int]) -> list[list[int]]:
    """Story groups with every duplicate-group member (``members``: member -> its
    representative) put in its representative's group; members are left out of the
    story stage."""
    if not members:
        return groups
    extra: dict[int, list[int]] = {}
    for m, r in members.items():
        extra.setdefault(r, []).append(m)
    out = []
    for g in groups:
        g = [i for i in g if i not in members]
        if g:
            out.append(sorted(g + [m for i in g for m in extra.get(i, [])]))
    return out


def duplicate_members(rep: list[int] | None) -> dict[int, int]:
    """Member -> representative, for the docs that are not their group's representative."""
    return {i: r for i, r in enumerate(rep or []) if r != i}


@dataclass
class _FeatureFn:
    """Story features of any pair of docs by index (picklable, no closure)."""

    docs: Sequence[Doc]
    qkeys: Sequence[set[str]]
    sp: StoryParams
    #: per doc, its form lines in the pile ({} or missing: none)
    forms: Sequence[dict[int, int]] | dict[int, dict[int, int]] = ()
    #: takes the two articles' StoryKeys when the caller has them (component_features)
    with_keys = True

    def form(self, i: int) -> dict[int, int] | None:
        """Doc ``i``'s form lines (``forms`` a list by index, or a dict by index)."""
        try:
            return self.forms[i]
        except (IndexError, KeyError):
            return None

    def __call__(
        self, i: int, j: int, ki: StoryKeys | None = None, kj: StoryKeys | None = None
    ) -> dict[str, float]:
        shared = len(self.qkeys[i] & self.qkeys[j])
        di, dj = self.docs[i], self.docs[j]
        if di.second_lead is not None and dj.second_lead is not None:
            # a pile the second encoder runs on: a pair outside the main encoder is read
            # in its space (unspin.second.story_features); the keys given are of the docs
            fi, fj = self.form(i), self.form(j)

            def feats(x: Doc, y: Doc) -> dict[str, float]:
                own = x is di and y is dj
                kx = (ki if own else None) or story_keys(x, fi)
                ky = (kj if own else None) or story_keys(y, fj)
                return _story_pair_features(x, y, shared, self.sp.time_scale_days, kx, ky)

            return story_features(di, dj, feats)
        ki = ki or story_keys(self.docs[i], self.form(i))
        kj = kj or story_keys(self.docs[j], self.form(j))
        return _story_pair_features(
            self.docs[i], self.docs[j], shared, self.sp.time_scale_days, ki, kj
        )


#: the quotation keys of a doc that quotes nothing (shared: nothing changes a key set)
_NO_QUOTES: frozenset[str] = frozenset()


def pile_quote_keys(
    docs: Sequence[Doc], ak: Sequence[str], min_words: int, memo: Any
) -> list[frozenset[str]]:
    """Each doc's :func:`~unspin.candidates.quote_keys` (a function of the article and
    the code), kept in ``memo`` (a Store) by :func:`article_key` for the docs that quote
    anything: a run normalises the quotations of the articles it has not seen only, not
    every quotation of the pile (a fifth of an add's pair-stage bookkeeping). The kept
    state is written when a doc was new to it or it holds docs no longer in the pile."""
    slot = f"qkeys:{code_version()}:{min_words}"
    kept: dict[str, frozenset[str]] = memo.memo_get("qkeys", [slot]).get(slot) or {}
    out: list[frozenset[str]] = []
    used = 0
    new = False
    for d, a in zip(docs, ak):
        if not d.quotes:
            out.append(_NO_QUOTES)
            continue
        q = kept.get(a)
        if q is None:
            q = kept[a] = frozenset(quote_keys(d, min_words))
            new = True
        used += 1
        out.append(q)
    if new or used < len(kept):
        mine = {a for d, a in zip(docs, ak) if d.quotes}
        memo.memo_put("qkeys", {slot: {a: q for a, q in kept.items() if a in mine}})
    return out


def corpus_context(
    docs: Sequence[Doc],
    config: Config,
    engine: Any,
    memo: Any = None,
    article_keys: Sequence[str] | None = None,
    need: Iterable[int] | None = None,
    qkeys: list[set[str]] | None = None,
) -> PairContext:
    """Per-article support shares and quotation keys, and the global statistics.

    ``article_keys``: each doc's :func:`article_key`, when the caller has them.
    ``need``: with ``memo``, the only docs whose shares the caller reads (the others are
    None in ``locals``): the shares of the rest are read from the memo only where the
    statistics must be rebuilt, not updated (see :func:`corpus_stats`). ``qkeys``: each
    doc's :func:`quote_keys`, when the caller has them."""
    ak = article_keys or [article_key(d.article, config.embedder) for d in docs]
    # by code version too: a stored share is what this code's SupportLocal computes
    keys = [f"{code_version()}:{a}" for a in ak]
    locs: list[SupportLocal | None] = [None] * len(docs)

    def load(idx: Iterable[int]) -> list[SupportLocal]:
        want = [i for i in dict.fromkeys(idx) if locs[i] is None]
        got = memo.memo_get("local", [keys[i] for i in want]) if memo is not None else {}
        todo = [i for i in want if keys[i] not in got]
        fresh = engine.map_articles(support_work, todo, docs, stage="corpus")
        if memo is not None and fresh:
            memo.memo_put("local", {keys[i]: loc for i, loc in zip(todo, fresh)})
        got.update({keys[i]: loc for i, loc in zip(todo, fresh)})
        for i in want:
            locs[i] = got[keys[i]]
        return [locs[i] for i in idx]  # type: ignore[misc]

    load(range(len(docs)) if need is None or memo is None else need)
    stats = corpus_stats(keys, locs, memo, load)
    if qkeys is None:
        qkeys = [quote_keys(d, config.candidates.quote_min_words) for d in docs]
    # every article's form lines: a pile verdict that story features of any pair of a
    # component read (kept from the last run and redone only where the pile's counts
    # of an article's lines or frames moved: :func:`pile_forms`)
    p = config.align
    if memo is None or need is None:
        forms = [
            form_lines_of(loc, stats, p.form_min_fills, p.form_share)
            for loc in load(range(len(docs)))
        ]
    else:
        forms = pile_forms(keys, stats, memo, load, p.form_min_fills, p.form_share)
    return PairContext(docs, locs, stats, qkeys, config, forms, load)  # type: ignore[arg-type]


class FormState:
    """The last run's form lines of every article (by its share's key, in order) and what
    they were decided from: per article its content characters, frame hashes and line
    hashes (:class:`~unspin.corpus.SupportLocal`'s ``chars``, ``frame_seq``, ``line_seq``),
    concatenated, with the offsets of each article's sentences."""

    def __init__(
        self,
        keys: list[str],
        forms: list[dict[int, int]],
        chars: np.ndarray,
        frames: np.ndarray,
        lines: np.ndarray,
        offsets: np.ndarray,
    ) -> None:
        self.keys, self.forms = keys, forms
        self.chars, self.frames, self.lines, self.offsets = chars, frames, lines, offsets

    @classmethod
    def of(cls, keys: list[str], forms: list[dict[int, int]], parts: Sequence[tuple]) -> FormState:
        """From per-article ``(chars, frames, lines)`` arrays."""
        sizes = np.array([len(c) for c, _, _ in parts], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

        def cat(x: int, dtype) -> np.ndarray:
            arrs = [part[x] for part in parts]
            return np.concatenate(arrs).astype(dtype) if arrs else np.zeros(0, dtype)

        return cls(
            list(keys), forms, cat(0, np.int64), cat(1, np.uint64), cat(2, np.uint64), offsets
        )

    def part(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.chars[lo:hi], self.frames[lo:hi], self.lines[lo:hi]

    #: per sentence, whether the pile filled its frame or line in at least ``min_fills``
    #: ways when its article's verdict was made (None: a state kept before this field)
    on: np.ndarray | None = None

    def fills(self, stats: CorpusStats) -> np.ndarray:
        """Per sentence, the fills :func:`~unspin.corpus.form_sentences` reads, now."""
        return np.maximum(stats.frame_fills(self.frames), stats.line_docs(self.lines))


#: above this share of the pile added or removed since the last run, every article's form
#: lines are worked out again rather than updated (the update is then no cheaper)
FORMS_UPDATE_MAX_SHARE = 0.5


def pile_forms(
    keys: list[str],
    stats: CorpusStats,
    memo: Any,
    load: Callable[[Iterable[int]], list[SupportLocal]],
    min_fills: int,
    share: float,
) -> list[dict[int, int]]:
    """Every article's form lines in the pile (:func:`~unspin.corpus.form_lines_of`),
    the same as working each out, without reading every article's share.

    An article's verdict reads only its own sentences and the pile's counts of its
    frames (distinct fills) and of its lines (articles holding it); adding or removing
    an article moves only the counts of that article's frames and lines. So the last
    run's verdicts (a :class:`FormState` in ``memo``) are kept for every article none of
    whose frames and lines is one of an added or removed article's, and worked out again
    for the others, from the state's arrays: the shares read are the added articles'
    (which the caller has) and the removed ones' (stored)."""
    slot = f"last:{code_version()}:{min_fills}:{share}"
    old = memo.memo_get("forms", [slot]).get(slot)
    n = len(keys)
    state = None
    if old is not None and old.keys == keys:
        return old.forms
    if old is not None and len(set(keys)) == n:
        at = {k: x for x, k in enumerate(old.keys)}
        now = set(keys)
        new = [i for i, k in enumerate(keys) if k not in at]
        gone = [k for k in old.keys if k not in now]
        if len(new) + len(gone) <= FORMS_UPDATE_MAX_SHARE * max(n, 1):
            lost = memo.memo_get("local", gone) if gone else {}
            if len(lost) == len(gone):
                state, redo = _forms_updated(keys, old, at, new, load, list(lost.values()))
                state.forms = [old.forms[at[k]] if k in at else {} for k in keys]
                fills = state.fills(stats)
                state.on = fills >= min_fills
                was = getattr(old, "on", None)
                for i in redo:
                    lo, hi = int(state.offsets[i]), int(state.offsets[i + 1])
                    k = keys[i]
                    if was is not None and k in at:
                        # a verdict reads its fills only against min_fills: the same
                        # sentences over it, the same verdict
                        olo, ohi = int(old.offsets[at[k]]), int(old.offsets[at[k] + 1])
                        if np.array_equal(was[olo:ohi], state.on[lo:hi]):
                            continue
                    chars, frames, _ = state.part(i)
                    state.forms[i] = form_sentences(chars, frames, fills[lo:hi], min_fills, share)
    if state is None:
        locs = load(range(n))
        forms = [form_lines_of(loc, stats, min_fills, share) for loc in locs]
        state = FormState.of(keys, forms, [(x.chars, x.frame_seq, x.line_seq) for x in locs])
        state.on = state.fills(stats) >= min_fills
    memo.memo_put("forms", {slot: state})
    return state.forms


def _forms_updated(
    keys: list[str],
    old: FormState,
    at: dict[str, int],
    new: list[int],
    load: Callable[[Iterable[int]], list[SupportLocal]],
    lost: list[SupportLocal],
) -> tuple[FormState, list[int]]:
    """The state's arrays for ``keys`` (old articles' rows kept, new ones' from their
    shares), and the indexes whose verdicts must be worked out again: the
    new articles and those holding a frame or line of an added or removed article."""
    fresh = dict(zip(new, load(new)))
    parts = [
        (fresh[i].chars, fresh[i].frame_seq, fresh[i].line_seq) if i in fresh else old.part(at[k])
        for i, k in enumerate(keys)
    ]
    state = FormState.of(keys, [{} for _ in keys], parts)
    moved = [*fresh.values(), *lost]
    frames = np.unique(np.concatenate([x.frame_seq for x in moved] or [np.zeros(0, np.uint64)]))
    lines = np.unique(np.concatenate([x.line_seq for x in moved] or [np.zeros(0, np.uint64)]))
    hit = np.isin(state.frames, frames) | np.isin(state.lines, lines)
    owner = np.searchsorted(state.offsets, np.flatnonzero(hit), side="right") - 1
    return state, sorted(set(owner.tolist()) | set(new))


#: at most this many articles added or removed since the last run: its corpus statistics
#: are updated (each one a merge over all word-pair counts) rather than rebuilt
STATS_UPDATE_MAX = 64

#: at most this many articles added or removed since the stored statistics: a run
#: updates them in memory and leaves the stored ones as they are (the next run updates
#: them again from there), rather than pickling the whole statistics into the store on
#: every add; past it, the updated statistics are stored (so a run replays at most this
#: many merges, and stores the statistics once every so many adds)
STATS_STORE_EVERY = 32


def corpus_stats(
    keys: list[str],
    locs: Sequence[SupportLocal | None],
    memo: Any = None,
    load: Callable[[Iterable[int]], list[SupportLocal]] | None = None,
) -> CorpusStats:
    """:class:`CorpusStats` of the articles with these keys and shares.

    With ``memo`` (a Store) the statistics of an earlier run are kept, and when at most
    ``STATS_UPDATE_MAX`` articles were added or removed since, updated with their shares
    (the counts are additive: the same numbers as a rebuild) instead of recounting every
    article. They are stored again only when this run is more than
    ``STATS_STORE_EVERY`` articles from the stored ones: an add stores no statistics
    most times (the articles it adds are found again by key next time, their shares are
    in the memo as ``local``). ``load(indexes)``: the shares of those articles, for
    ``locs`` that holds only some (None for the others)."""

    def shares(idx: Iterable[int]) -> list[SupportLocal]:
        idx = list(idx)
        if load is not None:
            return load(idx)
        return [locs[i] for i in idx]  # type: ignore[misc]

    if memo is None or len(set(keys)) != len(keys):
        return CorpusStats(shares(range(len(keys))))
    # the stored statistics of this code only: another version's counts (and its
    # stored shares, which an update would subtract) may be of other things
    last = f"last:{code_version()}"
    old = memo.memo_get("stats", [last]).get(last)
    stats = None
    if old is not None:
        okeys, ostats = old
        if okeys == keys:
            return ostats
        before, now = set(okeys), set(keys)
        gone = [k for k in okeys if k not in now]
        new = [i for i, k in enumerate(keys) if k not in before]
        if len(gone) + len(new) <= STATS_UPDATE_MAX:
            lost = memo.memo_get("local", gone) if gone else {}
            if len(lost) == len(gone):
                for k in gone:
                    ostats.remove(lost[k])
                for loc in shares(new):
                    ostats.add(loc)
                stats = ostats
                if len(gone) + len(new) <= STATS_STORE_EVERY:
                    return stats
    if stats is None:
        stats = CorpusStats(shares(range(len(keys))))
    memo.memo_put("stats", {last: (list(keys), stats)})
    return stats


def pair_stage(
    docs: Sequence[Doc],
    config: Config,
    engine: Any = None,
    progress: Progress = _noop,
    context: PairContext | None = None,
    memo: Any = None,
    cache: Any = None,
) -> PairStage:
    """Candidates, then per candidate pair: alignment, reuse typing, story features.

    ``memo`` (a Store): pair results stored by an earlier run are reused when the pair's
    two articles, the settings and the code are the same and the corpus answers the
    rules' questions as it did then; only the rest are computed. Articles outside the
    main encoder bring in the second one (:func:`unspin.second.plan`); its vectors are
    cached in ``cache`` (a Store; default ``memo``)."""
    from unspin.second import brief_vectors, plan

    engine = _engine(engine, config, progress)
    timed = getattr(engine, "timed", lambda stage, fn: fn())
    akeys = None
    ak: list[str] = []
    if memo is not None:
        ck = config_key(config)
        # kept with the archived articles (load_articles with this run's tag): hashed
        # only for the articles new to the archive
        ak = [
            _archived_key(memo, d.article) or article_key(d.article, config.embedder) for d in docs
        ]
        akeys = [f"{ck}:{a}" for a in ak]
    mapper = None
    if isinstance(engine, LocalEngine):

        def mapper(fn, items, ctx):  # the k-NN query blocks, one BLAS thread per worker
            return engine.map_pairs(fn, items, ctx, stage="k-NN blocks", min_parallel=2)

    rep = representatives(docs)
    # each doc's quotation keys once, for the quotation candidates and the context
    if context is not None:
        qkeys = context.qkeys
    elif memo is not None:
        qkeys = pile_quote_keys(docs, ak, config.candidates.quote_min_words, memo)
    else:
        qkeys = [quote_keys(d, config.candidates.quote_min_words) for d in docs]
    pairs = timed(
        "candidates",
        lambda: grouped_candidate_list(docs, config.candidates, akeys, memo, mapper, rep, qkeys),
    )
    second = timed("second encoder", lambda: plan(docs, pairs, config, rep, cache or memo))
    pairs = second.pairs
    timed("second encoder", lambda: brief_vectors(docs, pairs, config, cache or memo))
    results: list[Any] = [None] * len(pairs)
    todo = list(range(len(pairs)))
    keys: list[str] = []
    got: dict[str, Any] = {}
    need: set[int] = set()
    # stored results neither read nor replayed (their features wait), and their places
    # in the last run's state: index arrays (most of the pile's pairs at an add)
    quiet = np.zeros(0, dtype=np.int64)
    quiet_at = np.zeros(0, dtype=np.int64)
    ask = todo  # the pairs whose results are read or computed (all without a memo)
    slot = ""
    last = None
    # with a memo, the statistics and form lines first (the pair keys hold the form
    # lines); the shares of the docs that pairs to compute or replay read, after
    ctx = context or corpus_context(
        docs, config, engine, memo, ak or None, need if memo is not None else None, qkeys
    )
    # every pair's features travel and are kept packed: as FeatureTable rows without a
    # memo, in a PackedFeatures mapping (and stored packed) with one (below)
    ctx = dataclasses.replace(ctx, pack=True)
    if memo is not None:
        slot = f"last:{ck}"
        last = memo.memo_get("pairs", [slot]).get(slot)
        ei, ej = (a.copy() for a in pair_index_arrays(pairs))
        # each doc's place in the last run's state, and each pair's (-1: none): its key
        # is there
        mapped = last_docs(last, ak, ctx.forms) if last is not None and last.docs else None
        places = last_places(last, ak, ctx.forms, ei, ej, mapped)
        keys = pair_keys(ck, ak, ctx.forms, pairs, last, places)
        if last is not None:
            found = places >= 0
            # a stored result that asked the corpus nothing and is no reuse: it holds
            # whatever the corpus, and only its features are ever read
            calm = found.copy()
            calm[found] = ~(last.asked[places[found]] | last.reuse[places[found]])
            quiet = np.flatnonzero(calm)
            quiet_at = places[calm]
            ask = np.flatnonzero(~calm).tolist()
        got = memo.memo_get("pair", [keys[k] for k in ask])
        # a stored result of the last run's state whose questions the articles added or
        # removed since do not touch holds as it is (CorpusChange): no shares, no replay
        change = corpus_change(last, ak, ctx, memo)
        settled: set[int] = set()
        # and of the others, the questions to replay: those the change may have moved
        replay: dict[int, list[tuple]] = {}
        if change is not None:
            for k in ask:
                hit = got.get(keys[k])
                if hit is not None and hit[2] and places[k] >= 0:
                    moves = change.moves(hit[2], ctx.stats)
                    moved = change.moved(hit[2], ctx.stats) if moves else []
                    if moved:
                        replay[k] = moved
                    else:
                        settled.add(k)
        # shares are read for pairs to compute and stored results to replay, only
        for k in ask:
            hit = got.get(keys[k])
            if (hit is None or hit[2]) and k not in settled:
                need.update(pairs[k])
        if ctx.load is not None:
            ctx.load(sorted(need))
        todo = []
        for k in ask:
            i, j = pairs[k]
            hit = got.get(keys[k])
            # a result whose rules asked the corpus nothing holds whatever the corpus
            if hit is not None and (
                not hit[2]
                or k in settled
                or same_answers(
                    replay.get(k, hit[2]), SupportView(ctx.stats, (ctx.locals[i], ctx.locals[j]))
                )
            ):
                results[k] = hit
            else:
                todo.append(k)
    # an add's few new pairs are aligned here: forking workers from a process holding a
    # large pile costs more than they save (ALIGN_MIN_PARALLEL)
    fork = {"min_parallel": ALIGN_MIN_PARALLEL} if isinstance(engine, LocalEngine) else {}
    fresh = engine.map_pairs(pair_work, [pairs[k] for k in todo], ctx, stage="align", **fork)
    for k, r in zip(todo, fresh):
        results[k] = _with_line(r) if memo is not None else r
    if memo is not None and todo:
        memo.memo_put("pair", {keys[k]: results[k] for k in todo})
    pair_arrays = None
    touched = None
    runs = ("", "")
    stored: set[tuple[int, int]] = set()
    if memo is not None:
        assert last is not None or not len(quiet)
        link = np.empty(len(pairs), dtype=np.float64)
        reuse = np.zeros(len(pairs), dtype=bool)
        asks = np.zeros(len(pairs), dtype=bool)
        if len(quiet):  # neither reuse nor asking: their links as the last run kept them
            link[quiet] = last.links[quiet_at]  # type: ignore[union-attr]
        for k in ask:
            r = results[k]
            link[k] = link_strength(r[0] is not None, r[1])
            reuse[k] = r[0] is not None
            asks[k] = bool(r[2])
        pair_arrays = (ei, ej, link)
        stored = QuietPairs(ei[quiet], ej[quiet], len(ak))
        state = PairState(
            keys=key_array(keys),
            links=link,
            reuse=reuse,
            asked=asks,
            docs=list(ak),
            forms={i: f for i, f in enumerate(ctx.forms) if f},
            codes=ei * len(ak) + ej,
            run=os.urandom(8).hex(),
        )
        memo.memo_put("pairs", {slot: state})
        touched = touched_docs(last, ak, ctx.forms, ei, ej, places, todo, link, reuse, mapped)
        runs = (getattr(last, "run", "") if last is not None else "", state.run)
    reuse = {pairs[k]: results[k][0] for k in ask if results[k][0] is not None}
    lines = {
        pairs[k]: results[k][3]
        for k in ask
        if results[k][0] is not None and len(results[k]) > 3 and results[k][3]
    }
    by_pair: Mapping[tuple[int, int], str] = (
        PairKeys(pair_arrays[0], pair_arrays[1], len(ak), keys)
        if pair_arrays is not None
        else dict(zip(pairs, keys))
    )
    features: Mapping[tuple[int, int], dict[str, float]]
    if memo is None:  # every pair computed here, in the order of ``pairs`` (ask: all)
        features = FeatureTable(pairs, len(docs), [r[1] for r in results])
        results = []  # the packed rows are in the table: let them go before the stories
        pair_arrays = (features.ei, features.ej, features.links(reuse))
    else:
        features = PackedFeatures((pairs[k], results[k][1]) for k in ask)
    return PairStage(
        pairs=pairs,
        reuse=reuse,
        features=features,  # type: ignore[arg-type]
        lines=lines,
        feature_fn=_FeatureFn(docs, ctx.qkeys, config.stories, ctx.forms),
        article_keys=ak,
        pair_keys=by_pair,
        rep=rep,
        second=second,
        stored=stored,
        memo=memo,
        pair_arrays=pair_arrays,
        touched=touched,
        runs=runs,
    )


def _with_line(r: tuple) -> tuple:
    """A pair result as it is stored: (relation, features, corpus questions, the
    relation's JSON line in the relations table or None), so an add that reads it back
    writes its row without building it again (``Result.lines``). The line is made from
    the same object that is stored, so it is the line of whatever the value holds."""
    from unspin.output import row_line

    rel = r[0]
    return (rel, r[1], r[2], row_line(rel.to_record()) if rel is not None else None)


# ---------------------------------------------------------------- per component


def story_components(docs: Sequence[Doc], ps: PairStage, config: Config) -> list[list[int]]:
    """Components of the graph of reuse pairs, shared quotations and similar candidates.

    A component larger than ``max_component`` is split again with a stricter similarity
    link (reuse and shared-quotation links always hold), so clustering stays dense and small.
    Each candidate pair is read once: its link strength (infinite for reuse and shared
    quotations, else the document similarity) kept in arrays that every split filters.
    """
    ei, ej, strength = ps.link_arrays()
    sp = config.stories
    return split_component(np.arange(len(docs), dtype=np.int64), sp.link_sim, ei, ej, strength, sp)


def _local(nodes: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Positions in ``nodes`` (sorted doc indices) of the doc indices ``at`` (all among
    them): as they are when ``nodes`` is ``0..n-1``, else by one gather."""
    n = len(nodes)
    if n == 0 or (int(nodes[0]) == 0 and int(nodes[-1]) == n - 1):
        return at
    pos = np.empty(int(nodes[-1]) + 1, dtype=np.int64)
    pos[nodes] = np.arange(n, dtype=np.int64)
    return pos[at]


def _within(members: np.ndarray, ei: np.ndarray, ej: np.ndarray) -> np.ndarray:
    """Which pairs ``(ei, ej)`` have both docs among ``members`` (a mask, by gathers)."""
    top = max(int(members.max(initial=-1)), int(ei.max(initial=-1)), int(ej.max(initial=-1)))
    mark = np.zeros(top + 1, dtype=bool)
    mark[members] = True
    return mark[ei] & mark[ej]


def split_component(
    nodes: np.ndarray, link: float, ei: np.ndarray, ej: np.ndarray, es: np.ndarray, sp: StoryParams
) -> list[list[int]]:
    """The components of ``nodes`` (sorted doc indices) over the pairs ``(ei, ej)`` whose
    link strength ``es`` is at least ``link``, each larger than ``sp.max_component``
    split again at a link 0.05 stricter (:func:`story_components`). Given one connected
    component's own pairs at ``sp.link_sim``, what the whole pile's split makes of it."""
    parts, _ = _split_parts(nodes, link, ei, ej, es, sp, None, {}, None)
    return [p.members for p in parts]


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
    cf = component_features(
        docs,
        members,
        base,
        feat_fn,
        sp.time_scale_days,
        sp.link_sim,
        sp.notice_max_chars,
        sp.notice_head_words,
    )
    probs: dict[tuple[int, int], float] = {}
    apart = set()  # published too far apart to be one event, and no reuse between them
    for pair, f in cf.items():
        probs[pair] = 1.0 if pair in reuse else story_probability(f, sp)
        if pair not in reuse and too_far(f, sp):
            apart.add(pair)
    groups = cluster_component(members, probs, sp, apart)
    return groups, {p: (probs[p], cf[p]) for p in cf if p in base}


@dataclass
class ComponentContext:
    docs: Sequence[Doc]
    ps: PairStage
    sp: StoryParams
    #: story features of pairs inside the components that are no candidate pairs, as
    #: stored by an earlier run (:func:`inner_key`); the rest are computed
    known: dict[tuple[int, int], dict[str, float]] = field(default_factory=dict)
    #: whether to give back the features computed for such pairs (to be stored)
    record: bool = False


class _KnownFeatures:
    """A feature function (:class:`_FeatureFn`) that answers the pairs in ``known``
    from there and records the ones it computes in ``new`` (to be stored)."""

    with_keys = True

    def __init__(
        self, fn: Any, known: dict[tuple[int, int], dict[str, float]], record: bool = True
    ) -> None:
        self.fn = fn
        self.known = known
        self.record = record
        self.new: dict[tuple[int, int], dict[str, float]] = {}
        self.form = getattr(fn, "form", lambda i: None)

    def __call__(
        self, i: int, j: int, ki: StoryKeys | None = None, kj: StoryKeys | None = None
    ) -> dict[str, float]:
        got = self.known.get((i, j))
        if got is None:
            got = self.fn(i, j, ki, kj) if getattr(self.fn, "with_keys", False) else self.fn(i, j)
            if self.record:
                self.new[(i, j)] = got
        return got


def component_work(ctx: ComponentContext, members: list[int]):
    """:func:`component_result` for one component of the scan, and the story features
    it computed for pairs inside the component that are no candidate pairs (by pair)."""
    fn = _KnownFeatures(ctx.ps.feature_fn, ctx.known, ctx.record)
    groups, scored = component_result(ctx.docs, members, ctx.ps.features, ctx.ps.reuse, fn, ctx.sp)
    return groups, scored, fn.new


def inner_key(ck: str, part_i: str, part_j: str, shared: int) -> str:
    """The key the story features of a pair inside a component (no candidate pair: its
    features are computed by :class:`_FeatureFn`) are stored under: everything they are
    computed from. The settings and code (``ck``), the two articles in order with their
    form lines and second-space vectors (``part_i``, ``part_j``: :func:`inner_part`),
    and the number of quotations they share."""
    return _key("inner", ck, part_i, part_j, str(shared))


def inner_part(ak: Sequence[str], docs: Sequence[Doc], feature_fn: Any, i: int) -> str:
    """One article's share of :func:`inner_key`: its :func:`article_key` (``ak``), its
    form lines in the pile (``feature_fn.form``), and whether it carries second-space
    vectors this scan (:func:`unspin.second.plan`: a pair outside the main encoder is
    read from them)."""
    form = getattr(feature_fn, "form", lambda i: None)
    d = docs[i]
    return (
        ak[i]
        + repr(sorted((form(i) or {}).items()))
        + ("L" if d.second_lead is not None else "")
        + ("S" if d.second_vectors is not None else "")
        + ("B" if d.brief_vector is not None else "")
    )


def story_relations(
    docs: Sequence[Doc],
    pairs: Iterable[tuple[int, int]],
    reuse: dict[tuple[int, int], Relation],
    scored: dict[tuple[int, int], tuple[float, dict[str, float]]],
    story_of: dict[int, int],
    sp: StoryParams,
    lines: dict[tuple[int, int], str] | None = None,
    lines_out: dict[int, str] | None = None,
) -> list[Relation]:
    """``same_story`` / ``related`` relations of candidate pairs without reuse
    (:func:`unspin.stories.pair_claim`). ``lines``: stored JSON lines of some of them by
    pair (:func:`component_lines`), given in ``lines_out`` by the relation's ``id()``."""
    out = []
    for pair in pairs:
        if pair in reuse or pair not in scored or scored[pair][0] < sp.related:
            continue
        i, j = pair
        rel = _story_relation(docs, i, j, scored[pair], story_of[i] == story_of[j], sp)
        if lines is not None:
            line = lines.get(pair)
            if line is not None and lines_out is not None:
                lines_out[id(rel)] = line
        out.append(rel)
    return out


def _story_relation(
    docs: Sequence[Doc],
    i: int,
    j: int,
    scored: tuple[float, dict[str, float]],
    same: bool,
    sp: StoryParams,
) -> Relation:
    """The ``same_story`` / ``related`` relation of candidate pair ``(i, j)`` scored
    ``scored`` (probability, features); ``same``: whether the two are in one story."""
    pr, f = scored
    # same_story is a claim about the pair: one story and no rule against the pair
    kind, why = pair_claim(pr, f, same, sp)
    a, b = sorted((docs[i].id, docs[j].id))
    return Relation(
        a=a,
        b=b,
        relation=kind,
        confidence=round(pr if kind == "same_story" else 1 - pr, 4),
        reasons=[
            f"event similarity {pr:.2f} (documents {f['doc_sim']:.2f}, best sentences "
            f"{f['top_sent']:.2f}, names/numbers/dates {f['keys']:.2f}, within topic "
            f"{f['keys_local']:.2f}, shared quotations {int(f['quotes'] * 2)}"
            + (f", published {f['days']:.1f} days apart)" if f["days"] >= 0 else ")"),
            why,
        ],
        features=f,
    )


def component_lines(
    docs: Sequence[Doc],
    groups: list[list[int]],
    scored: dict[tuple[int, int], tuple[float, dict[str, float]]],
    reuse: dict | set,
    sp: StoryParams,
) -> dict[tuple[int, int], str]:
    """The JSON lines (``unspin.output.row_line``) of the story relations of one
    component's candidate pairs, by pair: what :func:`story_relations` makes of them,
    two articles being in one story when they are in one of the component's ``groups``
    (duplicate members join their representative's group afterwards, which does not
    change that). Stored with the component's result, so an add that reads it back
    writes those rows without building them again."""
    from unspin.output import row_line

    group = {i: g for g, members in enumerate(groups) for i in members}
    out = {}
    for (i, j), v in scored.items():
        if (i, j) in reuse or v[0] < sp.related:
            continue
        rel = _story_relation(docs, i, j, v, group[i] == group[j], sp)
        out[(i, j)] = row_line(rel.to_record())
    return out


def _component_keys(
    docs: Sequence[Doc], comps: list[list[int]], ps: PairStage, config: Config
) -> list[str]:
    """Per component, a hash of all it is computed from: its articles in order, and its
    candidate pairs with their features and reuse flags.

    A pair's features are a function of its two articles, the settings, the code and
    the two articles' form lines in the pile (which the key holds per member), so the
    key its result is stored under (``ps.pair_keys``) stands for them with those."""
    ck = config_key(config)
    ak = ps.article_keys or [article_key(d.article, config.embedder) for d in docs]
    inside: list[list[str]] = [[] for _ in comps]
    for c, pair in _pairs_inside(len(docs), comps, range(len(comps)), ps):
        pk = ps.pair_keys.get(pair)
        # else repr of the sorted items: every value exactly (shortest round-trip
        # floats), several times faster than JSON
        inside[c].append(f"{pair}{pair in ps.reuse}{pk or sorted(ps.features[pair].items())!r}")
    out = []
    form = getattr(ps.feature_fn, "form", lambda i: None)
    for c, members in enumerate(comps):
        # an article's form lines are the pile's verdict, not the article's own: a
        # component is recomputed when one of its members becomes (or stops being) a form
        # item (its pairs' stored results may keep their keys while their features follow)
        # and which second-space vectors it carries this scan (unspin.second.plan): the
        # features of its pairs outside the main encoder are read from them
        arts = ",".join(
            ak[i]
            + repr(sorted((form(i) or {}).items()))
            + ("L" if docs[i].second_lead is not None else "")
            + ("S" if docs[i].second_vectors is not None else "")
            + ("B" if docs[i].brief_vector is not None else "")
            for i in members
        )
        out.append(_key(ck, arts, *sorted(inside[c])))
    return out


def _pairs_inside(
    n: int, comps: list[list[int]], which: Iterable[int], ps: PairStage
) -> list[tuple[int, tuple[int, int]]]:
    """The candidate pairs inside components ``which`` (indexes into ``comps``), each
    with its component, in the pairs' order (one pass over the pile's pair arrays)."""
    comp = np.full(n, -1, dtype=np.int64)
    for c in which:
        comp[comps[c]] = c
    ei, ej, _ = ps.link_arrays()
    ci, cj = comp[ei], comp[ej]
    at = np.flatnonzero((ci == cj) & (ci >= 0))
    return list(zip(ci[at].tolist(), zip(ei[at].tolist(), ej[at].tolist())))


def _map_components(docs, comps, ps, config, engine, memo) -> list[tuple]:
    """:func:`component_work` for every component (stored results reused by key)."""
    sp = config.stories
    done: list[Any] = [None] * len(comps)
    # a component of one article (most of a pile's) is one group of it, with no pair
    # to score (component_result): made here, neither keyed, stored nor read back
    many = []
    for c, members in enumerate(comps):
        if len(members) == 1:
            done[c] = ([list(members)], {}, {})
        else:
            many.append(c)
    todo = many
    keys: dict[int, str] = {}
    if memo is not None:
        keys = dict(zip(many, _component_keys(docs, [comps[c] for c in many], ps, config)))
        got = memo.memo_get("component", list(keys.values()))
        todo = []
        for c in many:
            members = comps[c]
            hit = got.get(keys[c])
            if hit is None:
                todo.append(c)
                continue
            # stored by position in the component: indexes move when articles do
            gs, sc = hit[0], hit[1]
            done[c] = (
                [[members[x] for x in g] for g in gs],
                {(members[x], members[y]): v for (x, y), v in sc.items()},
                {(members[x], members[y]): v for (x, y), v in hit[2].items()}
                if len(hit) > 2
                else {},
            )
    # largest first, so one big component does not finish last on its own
    todo.sort(key=lambda c: -len(comps[c]))
    inside = {p for _, p in _pairs_inside(len(docs), comps, todo, ps)} if todo else set()
    if ps.stored:  # the stored features of the candidate pairs inside them, read now
        ps.fetch(sorted(inside))
    # the stored features of the pairs inside them that are no candidate pairs (a
    # function of the two articles, their form lines and shared quotations: kept per
    # pair, so a component that grows by one article computes only that one's pairs)
    known: dict[tuple[int, int], dict[str, float]] = {}
    inner: dict[tuple[int, int], str] = {}
    if memo is not None and todo:
        ck = config_key(config)
        ak = ps.article_keys or [article_key(d.article, config.embedder) for d in docs]
        qk = getattr(ps.feature_fn, "qkeys", None)
        for c in todo:
            members = comps[c]
            part = {i: inner_part(ak, docs, ps.feature_fn, i) for i in members}
            for x, i in enumerate(members):
                for j in members[x + 1 :]:
                    if (i, j) not in inside:  # no candidate pair
                        shared = len(qk[i] & qk[j]) if qk is not None else -1
                        inner[(i, j)] = inner_key(ck, part[i], part[j], shared)
        got = memo.memo_get("inner", list(inner.values()))
        known = {p: got[k] for p, k in inner.items() if k in got}
    fresh = engine.map_components(
        component_work,
        [comps[c] for c in todo],
        ComponentContext(docs, ps, sp, known, memo is not None),
    )
    store = {}
    new_inner: dict[str, dict[str, float]] = {}
    for c, (groups, scored, new) in zip(todo, fresh):
        lines = component_lines(docs, groups, scored, ps.reuse, sp) if memo is not None else {}
        r = (groups, scored, lines)
        done[c] = r
        if memo is not None:
            new_inner.update((inner[p], f) for p, f in new.items() if p in inner)
            pos = {m: x for x, m in enumerate(comps[c])}
            store[keys[c]] = (
                [[pos[m] for m in g] for g in r[0]],
                {(pos[i], pos[j]): v for (i, j), v in r[1].items()},
                {(pos[i], pos[j]): v for (i, j), v in lines.items()},
            )
    if store:
        memo.memo_put("component", store)
    if new_inner:
        memo.memo_put("inner", new_inner)
    return done


@dataclass
class Part:
    """One part of the story graph's split (:func:`split_component`): its members, its
    :func:`component_work` result and its story relations with their stored JSON
    lines (None until worked out)."""

    members: list[int]
    done: tuple | None = None
    relations: list[tuple[Relation, str | None]] = field(default_factory=list)


@dataclass
class StoryState:
    """The last run's story stage, kept in a process that keeps its memo values (the
    service, :func:`unspin.store.keep_memo_values`): the docs by :func:`article_key`,
    each doc's :func:`_story_flags`, and every component the split met (by its link
    and its members' indices) with the parts it was split into. A component none of
    whose docs is touched (:attr:`PairStage.touched`) or changed its flags, met at the
    same link, has the same members, pairs, features and form lines as then, so the
    split makes the same parts of it and :func:`_component_keys` gives each part the key
    it had (the memo the result it had): its parts are taken as they were, and neither
    split, keyed nor looked up again."""

    ak: list[str]
    flags: np.ndarray
    #: per component met (:data:`NodeKey`): its parts, and the components met inside it
    nodes: dict[tuple[float, bytes], tuple[list[Part], list[tuple[float, bytes]]]]
    #: the run whose pair state this one goes with (:attr:`PairState.run`): the next
    #: run's touched docs are against that state, so only then does this one hold (a
    #: run that failed after its pair stage kept a pair state and no story state)
    run: str = ""


#: per store folder and settings: the last run's :class:`StoryState` (only while
#: memo values are kept), the most recently written last
_STORY_KEPT: dict[str, StoryState] = {}
#: at most this many piles' story states kept per process (a service writes one)
STORY_KEEP_MAX = 4


#: per store folder: the quotation groups' last run (``unspin.quotes.QuoteState``, in a
#: dict under ``"last"``), kept as :data:`_STORY_KEPT` is
_QUOTE_KEPT: dict[str, dict[str, Any]] = {}


def _story_slot(memo: Any, config: Config | None) -> str | None:
    """Where this run's :class:`StoryState` (with ``config``) or quotation groups'
    state (without) is kept; None: not kept (no memo, or a process that does not keep
    memo values, whose kept states are dropped here)."""
    from unspin.store import memo_values_kept

    if not memo_values_kept():
        _STORY_KEPT.clear()
        _QUOTE_KEPT.clear()
        return None
    if memo is None:
        return None
    where = str(Path(memo.path).resolve())
    if config is None:
        while len(_QUOTE_KEPT) >= STORY_KEEP_MAX and where not in _QUOTE_KEPT:
            _QUOTE_KEPT.pop(next(iter(_QUOTE_KEPT)))
        return where
    return f"{where}:{config_key(config)}"


def _story_flags(docs: Sequence[Doc], rep: list[int] | None) -> np.ndarray:
    """Per doc, what the story stage reads of it besides its article, its pairs and its
    form lines: whether it carries the second encoder's lead, sentence vectors and brief
    vector this run, and whether it represents its duplicate group (bits 1, 2, 4, 8)."""
    out = np.zeros(len(docs), dtype=np.uint8)
    for i, d in enumerate(docs):
        out[i] = (
            (d.second_lead is not None)
            | (d.second_vectors is not None) << 1
            | (d.brief_vector is not None) << 2
            | (rep is None or rep[i] == i) << 3
        )
    return out


#: a component the split met, by its link and its members' indices (bytes)
NodeKey = tuple[float, bytes]


def _split_parts(
    nodes: np.ndarray,
    link: float,
    ei: np.ndarray,
    ej: np.ndarray,
    es: np.ndarray,
    sp: StoryParams,
    dirty: np.ndarray | None,
    last: dict[NodeKey, tuple[list[Part], list[NodeKey]]],
    met: dict[NodeKey, tuple[list[Part], list[NodeKey]]] | None,
) -> tuple[list[Part], list[NodeKey]]:
    """:func:`split_component` as :class:`Part` s, each component met at ``link`` that
    ``last`` holds and no ``dirty`` doc is in taken from there with its parts. ``met``
    (None: not kept) gets every component met this run or taken with one (its parts and
    the components met inside it), for the next run. Returns the parts and the
    components met here."""
    keep = es >= link
    ei, ej, es = ei[keep], ej[keep], es[keep]
    li, lj = _local(nodes, ei), _local(nodes, ej)
    out: list[Part] = []
    here: list[NodeKey] = []
    for c in components(len(nodes), np.stack([li, lj], axis=1)):
        members = nodes[c]
        if len(members) == 1:  # a part of its own, nothing to work out
            out.append(Part(members.tolist(), ([members.tolist()], {}, {})))
            continue
        key = (link, members.tobytes()) if met is not None else (link, b"")
        here.append(key)
        got = last.get(key) if dirty is not None and not dirty[members].any() else None
        if got is not None and met is not None:
            stack = [key]  # it and every component met inside it hold as they were
            while stack:
                k = stack.pop()
                met[k] = last[k]
                stack.extend(last[k][1])
            out.extend(got[0])
            continue
        inner: list[NodeKey] = []
        if len(members) > sp.max_component and link < 1.0:
            inside = _within(members, ei, ej)
            parts, inner = _split_parts(
                members,
                min(1.0, link + 0.05),
                ei[inside],
                ej[inside],
                es[inside],
                sp,
                dirty,
                last,
                met,
            )
        else:
            parts = [Part(members.tolist())]
        if met is not None:
            met[key] = (parts, inner)
        out.extend(parts)
    return out, here


def _stories_by_part(
    docs: Sequence[Doc],
    full: PairStage,
    ps: PairStage,
    config: Config,
    engine: Any,
    memo: Any,
    slot: str,
    timed: Callable[..., Any],
) -> tuple[list[tuple], list[tuple[Relation, str | None]]]:
    """The story stage part by part of the story graph's split, each untouched one
    taken from the last run (:class:`StoryState`): the same ``done`` (in the order the
    whole pile's split gives) and story relations as the whole pile's pass."""
    sp = config.stories
    n = len(docs)
    ak = full.article_keys
    ei, ej, es = ps.link_arrays()
    flags = _story_flags(docs, full.rep)
    last = _STORY_KEPT.pop(slot, None)
    dirty = None
    if (
        last is not None
        and ps.touched is not None
        and last.run
        and last.run == ps.runs[0]
        and len(ps.touched) == n
        and len(last.ak) <= n
        and list(ak[: len(last.ak)]) == last.ak
    ):
        m = len(last.ak)
        dirty = ps.touched.copy()
        dirty[m:] = True
        dirty[:m] |= flags[:m] != last.flags
    met: dict[NodeKey, tuple[list[Part], list[NodeKey]]] = {}
    parts, _ = timed(
        "components",
        lambda: _split_parts(
            np.arange(n, dtype=np.int64),
            sp.link_sim,
            ei,
            ej,
            es,
            sp,
            dirty,
            last.nodes if last is not None else {},
            met,
        ),
    )
    todo = [p for p in parts if p.done is None]
    worked = _map_components(docs, [p.members for p in todo], ps, config, engine, memo)
    for p, got in zip(todo, worked):
        p.done = got
        gs, sc, ln = got
        story_of = {i: g for g, members in enumerate(gs) for i in members}
        lines_out: dict[int, str] = {}
        rels = story_relations(docs, sc, ps.reuse, sc, story_of, sp, ln, lines_out)
        p.relations = [(r, lines_out.get(id(r))) for r in rels]
    own = flags & 8
    done = [p.done for p in parts if len(p.members) > 1 or own[p.members[0]]]
    story_rels = [r for p in parts for r in p.relations]
    _STORY_KEPT[slot] = StoryState(list(ak), flags, met, ps.runs[1])
    while len(_STORY_KEPT) > STORY_KEEP_MAX:
        _STORY_KEPT.pop(next(iter(_STORY_KEPT)))
    return done, story_rels  # type: ignore[return-value]


@_blas_limited
def analyse(
    docs: Sequence[Doc],
    config: Config,
    errors: Sequence[InputError] = (),
    engine: Any = None,
    progress: Progress = _noop,
    memo: Any = None,
    cache: Any = None,
) -> Result:
    """Pairs, relations and stories for fingerprinted docs.

    ``memo`` (a Store): per-pair and per-component results of earlier runs are reused
    where everything they were computed from is unchanged (same output as without).
    ``cache`` (a Store): where the second encoder's vectors are kept (default ``memo``)."""
    from unspin.embed import BACKENDS

    langs = getattr(BACKENDS[config.embedder], "languages", None)
    engine = _engine(engine, config, progress)
    timed = getattr(engine, "timed", lambda stage, fn: fn())
    mark_cuts(docs, config.fingerprint)  # a cut doc's facts come from its kept part
    full = pair_stage(docs, config, engine, progress, memo=memo, cache=cache)
    errors = [*errors, *language_warnings(docs, langs, second_reach(docs, config))]
    errors += cut_warnings(docs, config.fingerprint)
    # an exact-duplicate group is one article to the stories: its representative
    ps = full.without_members()
    sp = config.stories
    # the rows whose JSON lines were stored with the results they were read from
    known = {id(r): full.lines[p] for p, r in full.reuse.items() if p in full.lines}
    relations: list[Relation] = list(full.reuse.values())
    groups: list[list[int]] = []
    scored: dict[tuple[int, int], tuple[float, dict[str, float]]] = {}
    slot = _story_slot(memo, config)
    if slot is not None:  # a process that keeps its memo values (the service)
        done, story_rels = _stories_by_part(docs, full, ps, config, engine, memo, slot, timed)
        for gs, sc, _ in done:
            groups.extend(gs)
            scored.update(sc)
        for rel, line in story_rels:
            relations.append(rel)
            if line is not None:
                known[id(rel)] = line
    else:
        comps = timed("components", lambda: story_components(docs, ps, config))
        if ps is not full:
            comps = [c for c in comps if full.rep is None or full.rep[c[0]] == c[0]]
        done = _map_components(docs, comps, ps, config, engine, memo)
        lines: dict[tuple[int, int], str] = {}
        for gs, sc, ln in done:
            groups.extend(gs)
            scored.update(sc)
            lines.update(ln)
        story_of = {i: g for g, members in enumerate(groups) for i in members}
        # the scored pairs are the candidate pairs inside components (with features): the
        # rest of the pile's candidate pairs make no story relation, and the relations are
        # sorted by their two ids below, so their order here does not matter
        relations += story_relations(docs, scored, ps.reuse, scored, story_of, sp, lines, known)
    groups = add_members(groups, duplicate_members(full.rep))
    groups.sort(key=lambda g: g[0])
    relations.sort(key=lambda r: (r.a, r.b))
    stories = make_stories(docs, groups, relations, scored)
    return Result(
        docs=list(docs),
        relations=relations,
        stories=stories,
        errors=list(errors),
        config=config_record(config),
        lines={"relations": known} if known else {},
        article_keys=_keys_by_id(docs, full.article_keys, config.embedder),
    )


def _keys_by_id(docs: Sequence[Doc], ak: Sequence[str], embedder: str) -> tuple:
    """``Result.article_keys``: ``(embedder, {id: key})`` when every doc has its key and
    a distinct id, else ``()`` (readers then hash the articles themselves)."""
    keys = {d.id: k for d, k in zip(docs, ak)}
    return (embedder, keys) if len(ak) == len(docs) == len(keys) else ()


# ---------------------------------------------------------------- per relation (provenance)


def changes_work(docs: dict[str, Doc], rel: Relation) -> list:
    """What changed from a reuse relation's source to its derivative (pure); a pair
    compared in the second space is read there too."""
    from unspin.changes import relation_changes

    a, b = docs.get(rel.a), docs.get(rel.b)
    if a is not None and b is not None and second_pair(a, b):
        docs = {**docs, rel.a: view(a), rel.b: view(b)}
    return relation_changes(rel, docs)


def second_reach(docs: Sequence[Doc], config: Config) -> frozenset[str] | None:
    """The languages the second encoder matched across languages in this scan (those of
    the docs it gave lead vectors to); None when it did not run."""
    got = frozenset(d.lang for d in docs if d.second_lead is not None)
    return got or None


#: the fields of a reuse relation that :func:`unspin.changes.relation_changes` reads
#: (its confidence, reasons, features and direction reason do not decide the changes)
CHANGES_READS = ("a", "b", "relation", "source", "derivative", "alignment")


def changes_input(rel: Relation) -> dict[str, Any]:
    """What a relation's changes are computed from, as JSON-ready data: a relation whose
    wording of the reasons moved with the corpus (another article added) keeps its
    stored changes."""
    rec = {f: getattr(rel, f) for f in CHANGES_READS}
    rec["alignment"] = [p.to_record() for p in rel.alignment]
    return rec


def result_changes(result: Result, config: Config, engine: Any = None, memo: Any = None) -> list:
    """:func:`unspin.changes.changes_for_result`, mapped per relation on the engine and
    reused from ``memo`` when the relation and its two articles are unchanged."""
    from unspin.model import REUSE_RELATIONS

    engine = _engine(engine, config, _noop)
    docs = {d.id: d for d in result.docs}
    rels = [r for r in result.relations if r.relation in REUSE_RELATIONS]
    out: list[Any] = [None] * len(rels)
    todo = list(range(len(rels)))
    keys: list[str] = []
    if memo is not None:
        ck = config_key(config)
        key_of = keys_of(result, config)
        keys = [
            _key(
                ck,
                json.dumps(changes_input(r), sort_keys=True),
                key_of(docs[r.a]),
                key_of(docs[r.b]),
            )
            for r in rels
        ]
        got = memo.memo_get("changes", keys)
        todo = [k for k in todo if keys[k] not in got]
        for k in range(len(rels)):
            if keys[k] in got:
                out[k] = got[keys[k]]
    if isinstance(engine, LocalEngine) and engine.forks(len(todo)):
        from unspin.changes import warm

        # before the fork: one load for every worker (a map in this process loads it
        # only if a relation needs NER: long near-copies often do not)
        engine.timed("changes", warm)
    fresh = engine.map_pairs(changes_work, [rels[k] for k in todo], docs, stage="changes")
    for k, ch in zip(todo, fresh):
        out[k] = ch
    if memo is not None and todo:
        memo.memo_put("changes", {keys[k]: out[k] for k in todo})
    return [c for ch in out for c in ch]


# ---------------------------------------------------------------- provenance


#: the lineage table's lines of one-article stories as this process last made them, by
#: (story id, article id, title, outlet): all such a graph holds (a pure cache)
_ONE_NODE_LINES: dict[str, dict[tuple, str]] = {}


def story_lineage(result: Result, groups: list, lines: dict[int, str] | None = None) -> list:
    """:func:`unspin.lineage.build_lineage` story by story: each story's call gets only
    its own articles, the reuse relations inside it (in the result's order) and the
    quotation groups two or more of its articles carry (in the groups' order), which is
    all a story's lineage reads; the same graphs, without scanning every relation and
    every group once per story. ``lines``: filled with the table line of each
    one-article story's graph (by ``id()``, as ``Result.lines`` holds them), taken from
    this process's last call where the story, article, title and outlet are the same."""
    from unspin.lineage import Lineage, LineageNode, build_lineage
    from unspin.model import REUSE_RELATIONS
    from unspin.output import row_line

    last = _ONE_NODE_LINES.get("lines", {}) if lines is not None else {}
    made: dict[tuple, str] = {}

    story_of = {a: k for k, s in enumerate(result.stories) for a in s.articles}
    inside: list[list[Relation]] = [[] for _ in result.stories]
    for r in result.relations:
        if r.relation in REUSE_RELATIONS:
            k = story_of.get(r.a)
            if k is not None and story_of.get(r.b) == k:
                inside[k].append(r)
    carried: list[list[Any]] = [[] for _ in result.stories]
    for g in groups:
        count: dict[int, int] = {}
        for a in g.articles:
            k = story_of.get(a)
            if k is not None:
                count[k] = count.get(k, 0) + 1
        for k, c in count.items():
            if c > 1:
                carried[k].append(g)
    docs = {d.id: d for d in result.docs}
    out = []
    for k, s in enumerate(result.stories):
        if len(s.articles) == 1:
            # a story of one article (most of a pile's): no reuse inside it, no group it
            # carries twice, so its graph is its one node (what build_lineage gives)
            a = docs[s.articles[0]].article
            node = LineageNode(a.id, "article", a.title, a.outlet, [], [])
            graph = Lineage(s.id, [node], [])
            out.append(graph)
            if lines is not None:
                key = (s.id, a.id, a.title, a.outlet)
                line = last.get(key)
                if line is None:
                    line = row_line(graph.to_record())
                made[key] = lines[id(graph)] = line
            continue
        mine = [docs[a] for a in s.articles]
        part = Result(docs=mine, relations=inside[k], stories=[s], errors=[])
        out.extend(build_lineage(part, carried[k]))
    if lines is not None:
        _ONE_NODE_LINES["lines"] = made
    return out


def keys_of(result: Result | None, config: Config) -> Callable[[Doc], str]:
    """A doc's :func:`article_key`: as the run that made ``result`` hashed it when it did
    so with ``config``'s embedder (``Result.article_keys``), else hashed now."""
    got = result.article_keys if result is not None else ()
    known = got[1] if got and got[0] == config.embedder else {}

    def key_of(d: Doc) -> str:
        k = known.get(d.id)
        return k if k is not None else article_key(d.article, config.embedder)

    return key_of


def quote_speakers(
    docs: Sequence[Doc], config: Config, memo: Any, result: Result | None = None
) -> Callable[[Doc], list[str | None]]:
    """Each quoting doc's speakers (:func:`unspin.quotes.doc_speakers`, a function of the
    article alone), kept in ``memo`` (a Store) by article and code: a run works out only
    the articles it has not seen, not every quotation of the pile again. ``result``: the
    run's Result, whose docs' article keys are read from it (:func:`keys_of`)."""
    from unspin.quotes import doc_speakers

    prefix = f"{code_version()}:"
    key_of = keys_of(result, config)
    keys = {d.id: prefix + key_of(d) for d in docs if d.quotes}
    got = memo.memo_get("speakers", list(keys.values()))
    new = {}
    for d in docs:
        k = keys.get(d.id)
        if k is not None and k not in got:
            new[k] = got[k] = doc_speakers(d)
    if new:
        memo.memo_put("speakers", new)
    return lambda d: got[keys[d.id]]


def kept_quotes(memo: Any) -> Any:
    """The quotation words and pair verdicts the last run kept in ``memo`` (a Store), as
    a :class:`~unspin.quotes.KnownQuotes` (empty when none was kept by this code)."""
    from unspin.quotes import KnownQuotes

    slot = f"known:{code_version()}"
    return memo.memo_get("quotes", [slot]).get(slot) or KnownQuotes()


def keep_quotes(memo: Any, known: Any, before: int) -> None:
    """Store what this run's quotation groups read (``known.kept()``), when it worked
    out anything new or read under half of the ``before`` entries it was given (the
    quotations of removed articles dropped out); otherwise the kept state stands."""
    used = len(known.used_words) + len(known.used_variants)
    if known.added or used < before / 2:
        memo.memo_put("quotes", {f"known:{code_version()}": known.kept()})


def provenance(
    result: Result,
    changes_fn: Callable[[Result], list] | None = None,
    speakers: Callable[[Doc], list[str | None]] | None = None,
    memo: Any = None,
) -> Result:
    """:func:`unspin.provenance.add_provenance` (quotation groups, lineage, changes),
    with the lineage built story by story (:func:`story_lineage`): the same tables.
    ``speakers``: each doc's quotation speakers when kept (:func:`quote_speakers`).
    ``memo`` (a Store): the quotation groups read the words and pair verdicts of the
    last run from it (:func:`kept_quotes`) and work out only the new quotations'."""
    from unspin.changes import changes_for_result
    from unspin.quotes import doc_speakers, quote_groups

    derived = frozenset(r.derivative for r in result.relations if r.derivative)
    qdocs = [d for d in result.docs if d.quotes]
    # in a process that keeps memo values, the last run's groups taken up where the
    # quoting docs are the same with more appended (unspin.quotes.QuoteState)
    state = keys = None
    slot = _story_slot(memo, None)
    if slot is not None and result.article_keys:
        got = result.article_keys[1]
        keys = [got.get(d.id) for d in qdocs]
        if all(keys):
            state = _QUOTE_KEPT.setdefault(slot, {})
        else:
            keys = None
    last = state.get("last") if state else None
    known = last.known if last is not None else kept_quotes(memo) if memo is not None else None
    before = len(known.words) + len(known.variants) if known is not None else 0
    result.quotes = quote_groups(
        qdocs,
        derived=derived,
        speakers=speakers or doc_speakers,
        known=known,
        state=state,
        keys=keys,
    )
    if memo is not None:
        keep_quotes(memo, known, before)
    if state is not None:  # a kept group is the same object: its line as last written
        from unspin.output import row_line

        made = state.get("lines", {})
        lines = {}
        for g in result.quotes:
            got = made.get(id(g))  # (the group itself held: its id names no other)
            if got is None or got[0] is not g or got[1] != g.id:
                got = (g, g.id, row_line(g.to_record()))
            lines[id(g)] = got
        state["lines"] = lines
        result.lines["quotes"] = {k: v[2] for k, v in lines.items()}
    lineage_lines: dict[int, str] = {}  # new each time: ids of this call's graphs only
    result.lineage = story_lineage(result, result.quotes, lineage_lines)
    result.lines["lineage"] = lineage_lines
    result.changes = (changes_fn or changes_for_result)(result)
    return result
