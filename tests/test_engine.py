"""The engine: the split corpus statistics answer as CorpusSupport does, and a scan mapped
onto worker processes gives what one process gives."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from unspin.corpus import (
    CorpusStats,
    CorpusSupport,
    SupportLocal,
    SupportView,
    bigram_hashes,
    line_hashes,
)
from unspin.fingerprint import prepare
from unspin.model import Article
from unspin.output import records
from unspin.pipeline import Config, LocalEngine, analyse, fingerprint

TEXTS = [
    "Rail operator fined\n\nThe rail operator serving the East Midlands was fined on Monday. "
    "Commuters in the East Midlands faced delays, the Regulator said.",
    "Flooding closed roads across the East Midlands on Sunday. The council knows the cost.",
    "House prices in the East Midlands rose. The Premier said prices would fall, and the "
    "premier of Ohio agreed.",
    "A new hospital wing opened in the East Midlands and staff said it would cut waits.",
    "Gentleman Callaghan Knows the answer, the Mayor of London said on Monday.",
]


def _words_of(docs) -> set[str]:
    out: set[str] = set()
    for d in docs:
        out |= {w.lower() for w in d.article.text.replace(",", " ").replace(".", " ").split()}
    return out


def test_support_view_answers_as_corpus_support() -> None:
    docs = [prepare(Article(id=f"d{i}", text=t)) for i, t in enumerate(TEXTS)]
    full = CorpusSupport(docs)
    locs = [SupportLocal(d) for d in docs]
    stats = CorpusStats(locs)
    grams = np.concatenate([bigram_hashes(["the", "east"]), bigram_hashes(["on", "monday"])])
    checked = 0
    for x in range(len(docs)):
        for y in range(len(docs)):
            a, b = docs[x].id, docs[y].id
            view = SupportView(stats, [locs[x], locs[y]])
            for w in sorted(_words_of(docs)) + ["varkor"]:
                assert view(w, a, b) == full(w, a, b)
                assert view.lower_only(w, a, b, 1) == full.lower_only(w, a, b, 1)
                assert view.casing(w, a, b) == full.casing(w, a, b)
                assert view.casing(w, a, b, 0.5) == full.casing(w, a, b, 0.5)
                checked += 1
            assert view.phrase_support(grams, a, b).tolist() == (
                full.phrase_support(grams, a, b).tolist()
            )
            lines = np.concatenate([line_hashes(docs[x]), line_hashes(docs[y])])
            assert view.line_docs(lines).tolist() == full.line_docs(lines).tolist()
    assert checked > 500


def test_corpus_stats_add_and_remove_match_a_fresh_count() -> None:
    docs = [prepare(Article(id=f"d{i}", text=t)) for i, t in enumerate(TEXTS)]
    locs = [SupportLocal(d) for d in docs]
    grown = CorpusStats(locs[:3])
    grown.add(locs[3])
    grown.add(locs[4])
    grown.remove(locs[1])
    fresh = CorpusStats([locs[0], locs[2], locs[3], locs[4]])
    assert grown.n == fresh.n == 4
    for name in ("names", "capitals", "lower", "words"):
        assert dict(getattr(grown, name)) == dict(getattr(fresh, name)), name
    assert grown.keys.tolist() == fresh.keys.tolist()
    assert grown.df.tolist() == fresh.df.tolist()
    assert grown.line_keys.tolist() == fresh.line_keys.tolist()
    assert grown.line_df.tolist() == fresh.line_df.tolist()


@pytest.mark.shared
def test_two_worker_processes_give_what_one_process_gives(shared) -> None:
    path = shared / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(next(fh)) for _ in range(120)]
    arts = [Article(id=r["id"], text=r["title"] + "\n\n" + r["text"]) for r in rows]
    # a verbatim copy and a partial copy, so reuse relations are among the outputs
    arts.append(Article(id="copy-0", text=arts[0].text.replace("said", "stated")))
    arts.append(Article(id="part-1", text=arts[1].text[: len(arts[1].text) // 2]))
    cfg = Config(embedder="hashing")
    out = []
    for workers in (1, 2):
        engine = LocalEngine(workers, min_parallel=4)
        docs = fingerprint(arts, cfg, engine=engine)
        res = analyse(docs, cfg, engine=engine)
        out.append({k: records(res)[k] for k in ("relations", "stories")})
    assert out[0] == out[1]
    assert any(r["relation"] != "same_story" for r in out[0]["relations"])


def test_cli_spark_engine_takes_one_input(tmp_path, capsys) -> None:
    from unspin.cli import main

    assert main(["scan", "--engine", "spark", "a.jsonl", "b.jsonl", "--out", str(tmp_path)]) == 2
    assert "one input path" in capsys.readouterr().err


def test_engine_maps_in_order_and_times_stages() -> None:
    engine = LocalEngine(2, min_parallel=2)
    out = engine.map_pairs(_square_plus, list(range(50)), 3)
    assert out == [x * x + 3 for x in range(50)]
    assert engine.map_articles(_square_plus, [], 0) == []
    assert set(engine.timings) == {"pairs", "articles"} and engine.cpu["pairs"] >= 0
    with pytest.raises(ValueError, match="workers"):
        LocalEngine(-1)


def _square_plus(ctx: int, x: int) -> int:
    return x * x + ctx


def test_work_marked_for_threads_runs_in_threads_where_the_engine_does_not_fork() -> None:
    """Called from a thread other than the main one (a service's writer) the engine does
    not fork; work its caller marks thread-safe runs in ``workers`` threads at once (the
    first two items wait for each other: one thread alone would time out), in order.
    Unmarked work runs in the calling thread."""
    import threading

    meet = threading.Barrier(2, timeout=30)
    seen: set[str] = set()

    def work(ctx: int, x: int) -> int:
        seen.add(threading.current_thread().name)
        if x < 2:
            meet.wait()
        return x * x + ctx

    def plain(ctx: int, x: int) -> int:
        seen.add(threading.current_thread().name)
        return x + ctx

    box: dict[str, list[int]] = {}

    def writer() -> None:
        engine = LocalEngine(2, min_parallel=2)
        box["threads"] = engine.map_articles(work, list(range(9)), 5, stage="embed", threads=True)
        seen.clear()
        box["plain"] = engine.map_articles(plain, list(range(9)), 1)
        box["plain_threads"] = sorted(seen)

    t = threading.Thread(target=writer, name="writer")
    t.start()
    t.join(timeout=120)
    assert box["threads"] == [x * x + 5 for x in range(9)]
    assert box["plain"] == [x + 1 for x in range(9)] and box["plain_threads"] == ["writer"]


def test_cli_remove_drops_an_article_and_its_relations(tmp_path, capsys) -> None:
    from unspin.cli import main
    from unspin.output import read_tables

    folder = tmp_path / "in"
    folder.mkdir()
    for i, t in enumerate(TEXTS):
        (folder / f"d{i}.txt").write_text(t, encoding="utf-8")
    (folder / "copy.txt").write_text(TEXTS[0], encoding="utf-8")
    out = tmp_path / "res"
    assert main(["scan", str(folder), "--out", str(out), "--embedder", "hashing", "-q"]) == 0
    assert any("copy" in (r["a"], r["b"]) for r in read_tables(out)["relations"])
    assert main(["remove", "copy", "--out", str(out), "--embedder", "hashing"]) == 0
    tables = read_tables(out)
    assert "copy" not in {r["id"] for r in tables["articles"]}
    assert not any("copy" in (r["a"], r["b"]) for r in tables["relations"])
    assert main(["remove", "nope", "--out", str(out)]) == 2
    assert "nope" in capsys.readouterr().err
    assert main(["remove", "x", "--out", str(tmp_path / "none")]) == 2


def _blas_threads_now(ctx: int, x: int) -> int:
    from threadpoolctl import threadpool_info

    return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")


def test_blas_threads_limited_in_the_pipeline_and_its_workers_then_restored(
    monkeypatch,
) -> None:
    """Config.blas_threads holds inside a scan (and its forked workers) and inside
    fingerprint/analyse called directly, and the caller's setting comes back after."""
    from threadpoolctl import threadpool_info, threadpool_limits

    import unspin
    from unspin import pipeline

    def blas() -> int:
        return max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")

    with pytest.raises(ValueError, match="blas_threads"):
        Config(blas_threads=-1)
    seen: list[int] = []
    real = pipeline.analyse.__wrapped__

    def spy(docs, config, *a, **k):  # api's own limit, not analyse's
        seen.append(blas())
        engine = LocalEngine(2, min_parallel=2)
        seen.extend(engine.map_pairs(_blas_threads_now, list(range(4)), 0))
        return real(docs, config, *a, **k)

    monkeypatch.setattr("unspin.api.analyse", spy)
    arts = [Article(id="a", text="One two three.\n\nFour five six."), Article(id="b", text="x y")]
    with threadpool_limits(limits=2, user_api="blas"):
        unspin.scan(arts, config=Config(embedder="hashing", workers=1))
        assert seen and set(seen) == {1}
        seen.clear()
        unspin.scan(arts, config=Config(embedder="hashing", workers=1, blas_threads=2))
        assert set(seen) == {2}
        probe = pipeline._blas_limited(lambda first, config: blas())
        assert probe(None, Config(embedder="hashing")) == 1
        assert probe(None, Config(embedder="hashing", blas_threads=0)) == 2
        assert blas() == 2


def _no_changes(docs, rel):
    return []


def test_ner_warmed_before_the_changes_map_only_when_it_forks(monkeypatch) -> None:
    """The NER pipeline is loaded ahead of the changes map only for forked workers to
    share; a map in this process loads it only if a relation needs it."""
    from unspin import changes, pipeline
    from unspin.model import Relation, Result

    calls: list[int] = []
    monkeypatch.setattr(changes, "warm", lambda: calls.append(1))
    monkeypatch.setattr(pipeline, "changes_work", _no_changes)
    docs = [prepare(Article(id="a", text="One two.")), prepare(Article(id="b", text="One three."))]
    rels = [Relation(a="a", b="b", relation="copy", confidence=1.0) for _ in range(4)]
    result = Result(docs=docs, relations=rels, stories=[], errors=[])
    cfg = Config(embedder="hashing")
    one = LocalEngine(1)
    two = LocalEngine(2, min_parallel=2)
    assert not one.forks(4) and two.forks(4) and not two.forks(1)
    for engine, want in ((one, 0), (two, 1)):
        calls.clear()
        assert pipeline.result_changes(result, cfg, engine) == []
        assert len(calls) == want
