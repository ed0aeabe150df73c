"""The library API that the CLI (and later the web service) is a thin layer over.

>>> import unspin
>>> result = unspin.scan(["examples/articles"], out="results/")   # doctest: +SKIP
>>> [(r.a, r.b, r.relation) for r in result.relations][:3]        # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import gc
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from unspin.ingest import IngestOptions, read_paths, valid_article
from unspin.model import REUSE_RELATIONS, Article, Doc, InputError, Relation, Result
from unspin.pipeline import (
    Config,
    LocalEngine,
    Progress,
    _noop,
    analyse,
    archive_keys,
    archive_tag,
    blas_threads,
    doc_cache_name,
    fingerprint,
    provenance,
    quote_speakers,
    result_changes,
)

PathLike = str | os.PathLike


def _store(out: PathLike | None, store: PathLike | None | bool):
    if store is False or (store is None and out is None):
        return None
    from unspin.store import Store

    return Store(Path(store) if store not in (None, True) else Path(out) / ".unspin")


@contextmanager
def _writing(
    out: PathLike | None,
    store: PathLike | None | bool,
    on_wait: Callable[[str], None] | None,
    lock_wait: float | None,
) -> Iterator[None]:
    """Hold the writer locks of the results folder and of a store kept elsewhere, so
    concurrent writers run one after the other (docs/security.md)."""
    from unspin.store import writer_lock

    folders = [Path(out)] if out is not None else []
    if store not in (None, True, False):
        folders.insert(0, Path(store))  # always store first, then results: no deadlock
    with ExitStack() as stack:
        for f in folders:
            stack.enter_context(writer_lock(f, lock_wait, on_wait))
        yield


def scan(
    paths: Sequence[Article | PathLike] | PathLike | Article,
    *,
    out: PathLike | None = None,
    config: Config | None = None,
    ingest: IngestOptions | None = None,
    store: PathLike | None | bool = None,
    progress: Progress = _noop,
    on_wait: Callable[[str], None] | None = None,
    lock_wait: float | None = None,
) -> Result:
    """Read articles from files/folders (or take ``Article`` objects), find reuse and
    stories; write results to ``out``.

    With ``out`` set, fingerprints are cached in ``out/.unspin`` (or ``store``), so a
    second scan reuses them; ``store=False`` disables the cache. Writers of one results
    folder or store run one at a time: another waits up to ``lock_wait`` seconds
    (``unspin.store.LOCK_WAIT``), telling ``on_wait`` who holds it, then raises
    ``unspin.store.LockError`` having changed nothing.
    """
    config = config or Config()
    articles, errors = _read_inputs(paths, ingest)
    with _writing(out, store, on_wait, lock_wait):
        return _run(articles, errors, config, out, _store(out, store), progress, replace=True)


def _read_inputs(
    items: Sequence[Article | PathLike] | PathLike | Article, ingest: IngestOptions | None
) -> tuple[list[Article], list[InputError]]:
    """Articles given as such, plus those read from the paths among ``items``."""
    if isinstance(items, (str, os.PathLike, Article)):
        items = [items]
    given = [valid_article(x) for x in items if isinstance(x, Article)]
    paths = [x for x in items if not isinstance(x, Article)]
    read, errors = read_paths(paths, ingest) if paths else ([], [])
    return given + read, errors


def add(
    paths: Sequence[Article | PathLike] | PathLike | Article,
    *,
    out: PathLike,
    config: Config | None = None,
    ingest: IngestOptions | None = None,
    store: PathLike | None = None,
    progress: Progress = _noop,
    on_wait: Callable[[str], None] | None = None,
    lock_wait: float | None = None,
) -> Result:
    """Add articles (files, folders or ``Article`` objects) to an earlier scan's store and
    recompute results for the whole pile.

    Fingerprints of the stored articles come from the cache, so only the new articles
    are embedded; the result equals a fresh scan of old and new inputs together.
    Concurrent writers wait for each other (``on_wait``, ``lock_wait`` as in :func:`scan`),
    so two adds into one store both end up in it and in its results.
    """
    config = config or Config()
    new, errors = _read_inputs(paths, ingest)
    with _writing(out, store, on_wait, lock_wait):
        return _add(new, errors, out, config, store, progress)


def _add(new, errors, out, config, store, progress) -> Result:
    st = _store(out, store)
    old = st.load_articles(archive_tag(config), doc_cache_name(config))
    if not old:
        st.close()
        raise ValueError(f"no earlier scan in {st.path}: run `unspin scan ... --out {out}` first")
    taken = {a.id for a in old}
    for a in new:
        if a.id in taken:
            errors.append(
                InputError(
                    a.input,
                    a.location,
                    f"id {a.id!r} is already in the store; the new text replaces the stored one",
                    severity="warning",
                )
            )
    by_id = {a.id: a for a in old}
    by_id.update({a.id: a for a in new})
    # only the new articles are written to the archive (the stored ones are unchanged)
    return _run(list(by_id.values()), errors, config, out, st, progress, save=new)


def preload(out: PathLike, config: Config | None = None, store: PathLike | None = None) -> int:
    """Read the archive and the stored docs of ``out``'s store into this process, as an
    add would (for ``config``'s embedder), with each doc's story headline
    (:func:`unspin.stories.headline`, kept on the doc), so a long-running process's first
    add does not pay for them (the service's start-up; see
    :data:`unspin.store._DOC_READS`). Reads only; returns how many docs it read (0 with no
    store or no archive)."""
    config = config or Config()
    from unspin.store import DB_NAME, STORE_DIRNAME

    where = Path(store) if store is not None else Path(out) / STORE_DIRNAME
    if not (where / DB_NAME).is_file():
        return 0  # nothing stored (and nothing created here)
    from unspin.stories import headline

    st = _store(out, store)
    try:
        arts = st.load_articles(archive_tag(config), doc_cache_name(config))
        docs = [d for d in st.get_docs(arts, doc_cache_name(config), lazy=True) if d is not None]
        for d in docs:
            headline(d)  # kept on the doc: every add labels every story with it
        return len(docs)
    finally:
        st.close()


def remove(
    ids: Sequence[str] | str,
    *,
    out: PathLike,
    config: Config | None = None,
    store: PathLike | None = None,
    progress: Progress = _noop,
    on_wait: Callable[[str], None] | None = None,
    lock_wait: float | None = None,
) -> Result:
    """Remove articles by id from an earlier scan's store and recompute the results, so
    nothing derived from them (relations, changes, story membership) remains.

    Raises ``KeyError`` naming the ids the store does not hold (nothing is removed then).
    """
    if isinstance(ids, str):
        ids = [ids]
    config = config or Config()
    with _writing(out, store, on_wait, lock_wait):
        return _remove(ids, out, config, store, progress)


def _remove(ids, out, config, store, progress) -> Result:
    st = _store(out, store)
    old = st.load_articles(archive_tag(config), doc_cache_name(config))
    missing = sorted(set(ids) - {a.id for a in old})
    if missing:
        st.close()
        raise KeyError(f"not in the store {st.path}: {', '.join(missing)}")
    gone = set(ids)
    kept = [a for a in old if a.id not in gone]
    return _run(kept, [], config, out, st, progress, save=[], drop=sorted(gone))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (on again after, if it was).

    An add or a removal reads the pile's fingerprints and stored results back as many
    small objects; each of the collector's full passes walks every live object, and the
    allocations set off hundreds of them: 5.6-6.2 s of a 25-31 s add to Reuters 2,000
    (measured with ``gc.callbacks``). What an add allocates is freed by reference
    counting when it returns (its objects hold no reference cycles to speak of), and
    the collector runs as usual after it.

    While it is paused every object the block allocates stays in the youngest
    generation, so the collector's first pass after it would walk all those still alive
    (the Result's docs: 2.1 s of a 35 s add to 20,000 articles). So, unless the process
    holds frozen objects of its own, they are moved to the oldest generation on the way
    out (``gc.freeze`` then ``gc.unfreeze``, list splices), where they wait, as any
    long-lived object does, for a full collection: cyclic garbage among them is still
    collected, at the full collection the process would run anyway."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _run(
    articles, errors, config, out, st, progress, replace: bool = False, save=None, drop=()
) -> Result:
    """Fingerprint, analyse and write. The archive gets ``save`` (default: every
    article; ``replace`` drops the others first) and loses the ids in ``drop``. An add
    or removal (not a scan, whose allocations are the whole pile's) runs with the
    cyclic collector paused (:func:`collector_paused`)."""
    if not replace:
        with collector_paused():
            return _run_all(articles, errors, config, out, st, progress, replace, save, drop)
    return _run_all(articles, errors, config, out, st, progress, replace, save, drop)


def _run_all(articles, errors, config, out, st, progress, replace, save, drop) -> Result:
    with blas_threads(config.blas_threads):
        return _run_limited(articles, errors, config, out, st, progress, replace, save, drop)


def _run_limited(articles, errors, config, out, st, progress, replace, save, drop) -> Result:
    engine = LocalEngine(config.workers, progress=None if progress is _noop else progress)
    try:
        docs = fingerprint(articles, config, cache=st, progress=progress, engine=engine)
        result = analyse(docs, config, errors, engine=engine, memo=st)
        speakers = quote_speakers(docs, config, st, result) if st is not None else None
        provenance(result, lambda r: result_changes(r, config, engine, st), speakers, st)
        if st is not None:
            if drop:
                st.delete_articles(drop)
            saved = list(articles if save is None else save)
            if not replace:  # archived by earlier code without their keys: kept now, once
                ids = {a.id for a in saved}
                saved += [a for a in articles if a.id not in ids and st.archived_keys(a) is None]
            known = result.article_keys[1] if result.article_keys else {}
            keys = [archive_keys(a, config, known.get(a.id)) for a in saved]
            st.save_articles(saved, replace=replace, keys=keys)
            st.write_index(docs)
    finally:
        if st is not None:
            st.close()
    if out is not None:
        from unspin.output import write_results

        write_results(result, out)
    return result


def _as_article(x: Article | PathLike, name: str) -> Article:
    if isinstance(x, Article):
        return valid_article(x)
    if isinstance(x, (str, os.PathLike)) and Path(x).is_file():
        arts, errs = read_paths([x])
        if not arts:
            raise ValueError(f"{name}: {errs[0].reason if errs else 'no article found'} ({x})")
        return arts[0]
    if isinstance(x, str) and x.strip():
        return valid_article(Article(id=name, text=x))
    raise ValueError(f"{name}: expected an Article, a file path or a non-empty text")


def compare(a: Article | PathLike, b: Article | PathLike, config: Config | None = None) -> Relation:
    """The relation between two articles (paths, texts or Articles), with evidence.

    One code path with :func:`scan`: the two articles are scanned as a pile of two, and
    the scan's relation of the pair is returned (type, direction, confidence, reasons,
    features; a reuse relation with its ``changes``). When the scan finds nothing, the
    relation is ``"unrelated"``, with confidence 1 - the event probability the story stage
    gives the pair as one component of two. Relations that are not reuse also carry the
    aligned passages (shared quotations, template lines), which a scan does not keep.
    The caller's Articles are not changed (a second article with the first one's id is
    scanned as a copy named ``<id>~2``).
    """
    config = config or Config()
    aa, bb = _as_article(a, "a"), _as_article(b, "b")
    aa = dataclasses.replace(aa)
    bb = dataclasses.replace(bb, id=bb.id + "~2" if bb.id == aa.id else bb.id)
    result = _run([aa, bb], [], config, None, None, _noop)
    rel = result.relation(aa.id, bb.id)
    if rel is not None and rel.relation in REUSE_RELATIONS:
        rel.changes = list(result.changes)  # a pile of two: all its changes are this pair's
        return rel
    from unspin.align import align
    from unspin.second import outside_pair, pair_config, second_pair, view

    da, db = sorted(result.docs, key=lambda d: d.id)
    cfg = config
    if second_pair(da, db):  # as the scan aligned the pair (pipeline.pair_result)
        da, db, cfg = view(da), view(db), pair_config(config, outside_pair(da, db))
    al = align(da, db, cfg.align)
    if rel is None:
        rel = _unrelated(result.docs, config)
    rel.coverage = {da.id: al.features["cov_a"], db.id: al.features["cov_b"]}
    rel.alignment = al.passages
    return rel


def _unrelated(docs: list[Doc], config: Config) -> Relation:
    """The ``unrelated`` relation of a pile of two that a scan left without one, scored as
    the story stage scores a component of the two (:func:`unspin.pipeline.component_result`)."""
    from unspin.candidates import quote_keys
    from unspin.pipeline import _FeatureFn, component_result

    qkeys = [quote_keys(d, config.candidates.quote_min_words) for d in docs]
    feat = _FeatureFn(docs, qkeys, config.stories)
    _, scored = component_result(docs, [0, 1], {(0, 1): feat(0, 1)}, set(), feat, config.stories)
    pr, feats = scored[(0, 1)]
    a, b = sorted(d.id for d in docs)
    return Relation(
        a=a,
        b=b,
        relation="unrelated",
        confidence=round(1 - pr, 4),
        reasons=[f"no passage reuse; not one story in a scan (event similarity {pr:.2f})"],
        features=feats,
    )
