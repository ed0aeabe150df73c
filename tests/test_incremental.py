"""Incremental add and remove: results equal a full rescan of the same articles, and only
what changed is recomputed (stored per-pair, per-component and per-relation results are
reused when everything they were computed from is the same)."""

from __future__ import annotations

import dataclasses
import gzip
import json

import pytest
from helpers import count_calls, record_calls

import unspin
from unspin.model import Article
from unspin.output import read_tables
from unspin.pipeline import Config, same_answers
from unspin.store import Store

TABLES = ("relations", "stories", "changes", "quotes", "lineage")


@pytest.fixture(params=[False, True], ids=["read-each-time", "values-kept"])
def kept_memo(request):
    """Run the test as one process that reads stored values again at each run, and as
    one that keeps them (:func:`unspin.store.keep_memo_values`, the service's)."""
    from unspin.store import keep_memo_values

    keep_memo_values(request.param)
    yield request.param
    keep_memo_values(False)


def _same_as_fresh(out, arts: list[Article], cfg: Config) -> None:
    fresh = unspin.scan(
        arts_folder(out.parent, arts), out=out.parent / "fresh", config=cfg, store=False
    )
    a, b = read_tables(out), read_tables(out.parent / "fresh")
    for t in TABLES:
        assert a[t] == b[t], t
    assert [r["id"] for r in a["articles"]] == [d.id for d in fresh.docs]


def arts_folder(tmp, arts: list[Article]):
    path = tmp / "all.jsonl"
    path.write_text(
        "".join(json.dumps({"id": a.id, "text": a.text}) + "\n" for a in arts), encoding="utf-8"
    )
    return [path]


@pytest.mark.shared
def test_incremental_add_and_remove_equal_full_rescans(
    shared, tmp_path, monkeypatch, kept_memo
) -> None:
    path = shared / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(next(fh)) for _ in range(60)]
    base = [Article(id=r["id"], text=r["title"] + "\n\n" + r["text"]) for r in rows]
    src = base[3].text
    # a copy whose name change the corpus decides, and articles that use the new name
    # (each one added changes the support the copy pair's direction was decided with)
    renamed = src.replace("the", "the", 1)
    words = [w for w in src.split() if w[:1].isupper() and len(w) > 4]
    name = words[1] if len(words) > 1 else words[0]
    copy = Article(id="zz-copy", text=renamed.replace(name, "Vordanek"))
    users = [
        Article(id=f"zz-user{k}", text=f"Vordanek said on Monday that talks went well. {t}")
        for k, t in enumerate(("Shares rose.", "Fans cheered loudly.", "Rain fell all day."))
    ]
    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, base), out=out, config=cfg)

    import unspin.pipeline as pl

    calls = count_calls(monkeypatch, pl, "pair_work")
    now = list(base)
    for extra in [copy, *users]:
        calls["n"] = 0
        unspin.add([extra], out=out, config=cfg)
        now.append(extra)
        _same_as_fresh(out, now, cfg)
        # only pairs with the new article (and pairs whose corpus answers moved) rerun
        assert calls["n"] < 60, calls["n"]
    rel = {(r["a"], r["b"]): r for r in read_tables(out)["relations"]}
    assert any("zz-copy" in k and r["relation"] in ("copy", "duplicate") for k, r in rel.items())
    calls["n"] = 0
    unspin.remove(["zz-user1", base[10].id], out=out, config=cfg)
    now = [a for a in now if a.id not in ("zz-user1", base[10].id)]
    _same_as_fresh(out, now, cfg)


def test_same_answers_detects_a_changed_corpus() -> None:
    from unspin.corpus import CorpusStats, SupportLocal, SupportView
    from unspin.fingerprint import prepare
    from unspin.pipeline import RecordingSupport

    docs = [
        prepare(Article(id="a", text="Mayor Ken Vordanek met the Council on Monday.")),
        prepare(Article(id="b", text="Mayor Ken Vordanek met the council on Monday.")),
        prepare(Article(id="c", text="Ken Vordanek opened a school on Friday.")),
    ]
    locs = [SupportLocal(d) for d in docs]
    rec = RecordingSupport(SupportView(CorpusStats(locs[:2]), locs[:2]))
    rec("vordanek", "a", "b")
    rec.casing("council", "a", "b")
    rec.phrase_support(__import__("numpy").array([1, 2], dtype="uint64"), "a", "b")
    assert same_answers(rec.log, SupportView(CorpusStats(locs[:2]), locs[:2]))
    # a third article names Vordanek: the stored answer no longer holds
    assert not same_answers(rec.log, SupportView(CorpusStats(locs), locs[:2]))


def test_neighbour_search_updated_for_appended_rows_equals_a_full_search(tmp_path) -> None:
    import numpy as np

    from unspin.candidates import _neighbours

    rng = np.random.default_rng(3)
    v = rng.standard_normal((260, 16)).astype(np.float32)
    v[200:230] = v[:30] + 0.05 * rng.standard_normal((30, 16)).astype(np.float32)
    v[240] = v[5]  # an exact tie with an old row
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    keys = [f"r{i}" for i in range(len(v))]
    with Store(tmp_path / "st") as st:
        for n in (3, 150, 151, 200, 260):  # grown by appending rows, searched each time
            got = _neighbours(v[:n], 5, 0.2, keys[:n], st, "t")
            want = _neighbours(v[:n], 5, 0.2)
            order = np.lexsort((got[1], got[0]))
            order_w = np.lexsort((want[1], want[0]))
            assert got[0][order].tolist() == want[0][order_w].tolist()
            assert got[1][order].tolist() == want[1][order_w].tolist()
        # rows removed (row 5 has an exact tie, rows 200-229 are near copies of 0-29, so
        # many kept rows lose a listed neighbour), then rows added back in the middle and
        # at the end, then one row's key changed: each updated answer equals a full search
        gone = {3, 5, 17, 205, 240, 259}
        steps = [
            [x for x in range(260) if x not in gone],
            [x for x in range(260) if x not in {3, 205}],
            [x for x in range(260) if x not in {3, 205}] + [3],
            list(range(250)),
        ]
        for rows in steps:
            ks = [keys[x] for x in rows]
            if rows is steps[-1]:
                ks[1] = "changed"
            got = _neighbours(v[rows], 5, 0.2, ks, st, "t")
            want = _neighbours(v[rows], 5, 0.2)
            order = np.lexsort((got[1], got[0]))
            order_w = np.lexsort((want[1], want[0]))
            assert got[0][order].tolist() == want[0][order_w].tolist()
            assert got[1][order].tolist() == want[1][order_w].tolist()
            assert np.allclose(got[2][order], want[2][order_w])


class _OnlyRows(list):
    """Rows of a neighbour search where reading any row outside ``allowed`` fails: the
    kept rows' vectors must come from the store's vector file."""

    def __init__(self, rows, allowed) -> None:
        super().__init__(rows)
        self.allowed = set(allowed)

    def __getitem__(self, i):
        assert i in self.allowed, f"row {i} read from the caller, not the vector file"
        return super().__getitem__(i)


def _same_lists(got, want) -> None:
    import numpy as np

    order = np.lexsort((got[1], got[0]))
    order_w = np.lexsort((want[1], want[0]))
    assert got[0][order].tolist() == want[0][order_w].tolist()
    assert got[1][order].tolist() == want[1][order_w].tolist()
    assert np.allclose(got[2][order], want[2][order_w])


def test_neighbour_update_reads_kept_vectors_from_the_store_file(tmp_path) -> None:
    """An add stacks only its new rows: the kept rows' vectors come from the store's
    vector file (reading them from the caller fails here), and the lists equal a full
    search, including old rows whose top-k list a new row enters (a near copy of row 7
    and an exact tie with row 5), after a removal, and with the file lost or cut short
    (then it searches from the rows given and writes the file again)."""
    import numpy as np

    from unspin.candidates import VectorFile, _neighbours

    rng = np.random.default_rng(11)
    v = rng.standard_normal((120, 16)).astype(np.float32)
    v[100] = v[7] + 0.01 * rng.standard_normal(16).astype(np.float32)
    v[101] = v[5]
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    keys = [f"r{i}" for i in range(len(v))]
    rows = [v[i] for i in range(len(v))]
    with Store(tmp_path / "st") as st:
        _neighbours(rows[:100], 5, 0.1, keys[:100], st, "t", dim=16)
        for n in (101, 102, 120):  # appended: only the rows new since the last run read
            last = 100 if n == 101 else (101 if n == 102 else 102)
            got = _neighbours(
                _OnlyRows(rows[:n], range(last, n)), 5, 0.1, keys[:n], st, "t", dim=16
            )
            want = _neighbours(v[:n], 5, 0.1)
            _same_lists(got, want)
        assert 100 in got[1][got[0] == 7].tolist() and 101 in got[1][got[0] == 5].tolist()
        # a removal then an add after it: the kept rows still read from the file
        kept = [x for x in range(120) if x not in {7, 100, 33}]
        got = _neighbours(
            _OnlyRows([rows[x] for x in kept], []), 5, 0.1, [keys[x] for x in kept], st, "t", dim=16
        )
        _same_lists(got, _neighbours(v[kept], 5, 0.1))
        kept.append(33)
        got = _neighbours(
            _OnlyRows([rows[x] for x in kept], [len(kept) - 1]),
            5,
            0.1,
            [keys[x] for x in kept],
            st,
            "t",
            dim=16,
        )
        _same_lists(got, _neighbours(v[kept], 5, 0.1))
        # the file lost, then cut short: searched from the rows given, exact
        files = sorted((tmp_path / "st").glob("knn-*.f32"))
        assert len(files) == 1
        files[0].unlink()
        kept.append(7)
        got = _neighbours([rows[x] for x in kept], 5, 0.1, [keys[x] for x in kept], st, "t", dim=16)
        _same_lists(got, _neighbours(v[kept], 5, 0.1))
        f = sorted((tmp_path / "st").glob("knn-*.f32"))[0]
        with open(f, "r+b") as fh:
            fh.truncate(f.stat().st_size - 4)
        kept.append(100)
        got = _neighbours([rows[x] for x in kept], 5, 0.1, [keys[x] for x in kept], st, "t", dim=16)
        _same_lists(got, _neighbours(v[kept], 5, 0.1))
        # another slot (other k) never reads or writes this slot's file
        a = VectorFile(tmp_path / "st", "t:5:0.1", 16)
        b = VectorFile(tmp_path / "st", "t:3:0.1", 16)
        assert a.new_name(None) != b.new_name(None)


def test_kept_vectors_are_a_view_of_the_file_when_the_rows_are_one_run() -> None:
    """Rows keyed anew (the first add after a code change) go to a new file, and rows
    that are one run of a file's rows in order are read as a view of it, not copied;
    rows with a hole between them are copied (the values are the same either way)."""
    import numpy as np

    from unspin.candidates import NeighbourState, VectorFile, _kept_vectors

    class Files(VectorFile):
        def __init__(self) -> None:
            self.dim, self.tag, self.data, self.n = 4, "t", {}, 0

        def new_name(self, file):
            self.n += 1
            return f"knn-t-{self.n}.f32"

        def read(self, file, used):
            got = self.data.get(file)
            return None if got is None or len(got) < used else got[:used]

        def append(self, file, used, rows):
            kept = self.data.get(file, np.zeros((0, 4), np.float32))[:used]
            self.data[file] = np.vstack([kept, rows])

    rng = np.random.default_rng(3)
    v = rng.standard_normal((10, 4)).astype(np.float32)
    vf = Files()
    vf.append("knn-t-0.f32", 0, v[:6])
    none = np.zeros(0, np.int64)

    def state(keys, file, used, at):
        return NeighbourState(keys, none, none, none.astype(np.float32), file, at, used)

    old = state([f"a{i}" for i in range(6)], "knn-t-0.f32", 6, np.arange(6))
    # every row keyed anew: written to a new file from its start, read as the whole file
    keys = [f"b{i}" for i in range(6)]
    vec, file, at, used = _kept_vectors([v[i] for i in range(6)], keys, old, vf)
    assert file != "knn-t-0.f32" and used == 6 and at.tolist() == list(range(6))
    assert np.array_equal(vec, v[:6])
    # one run behind dead rows, then an append: a view of the file
    vf.append("knn-t-9.f32", 0, np.vstack([v[6:10], v[:6]]))
    old = state(keys, "knn-t-9.f32", 10, np.arange(4, 10))
    vec, file, at, used = _kept_vectors([v[0]] * 7, [*keys, "b6"], old, vf)
    assert at.tolist() == list(range(4, 11)) and np.shares_memory(vec, vf.data["knn-t-9.f32"])
    assert np.array_equal(vec[:6], v[:6]) and np.array_equal(vec[6], v[0])
    # a hole between kept rows: a copy with the same values
    old = state(keys, "knn-t-9.f32", 11, np.array([4, 5, 7, 8, 9, 10]))
    vec, _, _, _ = _kept_vectors([v[0]] * 6, keys, old, vf)
    assert not np.shares_memory(vec, vf.data["knn-t-9.f32"])
    assert np.array_equal(vec, vf.data["knn-t-9.f32"][[4, 5, 7, 8, 9, 10]])


def test_pair_keys_from_the_last_state_equal_hashing_every_pair() -> None:
    """Pair keys taken from the last run's state (:func:`last_places`) equal
    :func:`pair_key` of every pair after a removal, an add, an article gaining form
    lines and two articles in the other order; only those pairs are hashed anew."""
    import numpy as np

    from unspin.pipeline import PairState, last_places, pair_key, pair_keys

    def state(ak, forms, pairs):
        keys = pair_keys("ck", ak, forms, pairs)
        n = len(pairs)
        ei = np.array([p[0] for p in pairs], dtype=np.int64)
        ej = np.array([p[1] for p in pairs], dtype=np.int64)
        flags = np.zeros(n, dtype=bool)
        return keys, PairState(
            keys, np.zeros(n), flags, flags, list(ak),
            {i: f for i, f in enumerate(forms) if f}, ei * len(ak) + ej,
        )  # fmt: skip

    def places(last, ak, forms, pairs):
        ei = np.array([p[0] for p in pairs], dtype=np.int64)
        ej = np.array([p[1] for p in pairs], dtype=np.int64)
        return last_places(last, ak, forms, ei, ej)

    ak = ["a", "b", "c", "d"]
    pairs = [(0, 1), (0, 2), (1, 3), (2, 3)]
    forms: list[dict[int, int]] = [{}, {}, {}, {2: 1}]
    keys, last = state(ak, forms, pairs)
    assert keys == [pair_key("ck", ak, forms, i, j) for i, j in pairs]
    # b removed, e added; c gained form lines, d kept its own
    ak2 = ["a", "c", "d", "e"]
    forms2: list[dict[int, int]] = [{}, {0: 3}, {2: 1}, {}]
    pairs2 = [(0, 1), (0, 2), (1, 2), (0, 3), (2, 3)]
    at = places(last, ak2, forms2, pairs2)
    assert at.tolist() == [-1, -1, -1, -1, -1]  # (a, c): c's lines moved; (a, d): no pair then
    pairs2 = [(0, 2), (1, 2), (2, 3)]
    forms2 = [{}, {}, {2: 1}, {}]  # c as it was
    at = places(last, ak2, forms2, pairs2)
    assert at.tolist() == [-1, 3, -1]  # only (c, d) was a pair then
    got = pair_keys("ck", ak2, forms2, pairs2, last, at)
    assert got == [pair_key("ck", ak2, forms2, i, j) for i, j in pairs2]
    # the other order is another key, not taken from the state
    at = places(last, ["c", "a"], [{}, {}], [(0, 1)])
    assert at.tolist() == [-1]
    # a wrong stored key would be returned as it is: the state is what makes it exact
    last.keys[3] = "stale"
    assert pair_keys("ck", ak2, forms2, [(1, 2)], last, np.array([3])) == ["stale"]


def test_corpus_stats_updated_from_the_last_run_equal_a_rebuild(tmp_path) -> None:
    import numpy as np

    from unspin.corpus import CorpusStats, SupportLocal
    from unspin.fingerprint import prepare
    from unspin.pipeline import corpus_stats

    texts = [
        "Mayor Ken Vordanek met the Council on Monday.",
        "Mayor Ken Vordanek met the council on Monday.",
        "Ken Vordanek opened a school on Friday.",
        "Shares in Acme rose on Friday, Acme said.",
        "The council said Acme would build the school.",
    ]
    locs = [SupportLocal(prepare(Article(id=f"a{k}", text=t))) for k, t in enumerate(texts)]
    keys = [f"k{k}" for k in range(len(locs))]

    def same(x: CorpusStats, y: CorpusStats) -> bool:
        return (
            x.n == y.n
            and x.names == y.names
            and x.capitals == y.capitals
            and x.lower == y.lower
            and x.words == y.words
            and all(
                np.array_equal(getattr(x, a), getattr(y, a))
                for a in (
                    "keys",
                    "df",
                    "line_keys",
                    "line_df",
                    "fill_keys",
                    "fill_df",
                    "fill_frames",
                    "frame_keys",
                    "frame_nfill",
                )
            )
        )

    with Store(tmp_path / "st") as st:
        for pick in ([0, 1, 2], [0, 1, 2, 3], [0, 2, 3], [0, 2, 3, 4, 1], [4]):
            got = corpus_stats([keys[i] for i in pick], [locs[i] for i in pick], st)
            st.memo_put("local", {keys[i]: locs[i] for i in pick})
            assert same(got, CorpusStats([locs[i] for i in pick])), pick


def test_corpus_stats_kept_unstored_within_the_bound_equal_a_rebuild(tmp_path, monkeypatch) -> None:
    """Within ``STATS_STORE_EVERY`` articles of the stored statistics a run stores none
    (the next run updates the stored ones again, by key); past it they are stored. Adds,
    a removal, an add after the removal, and an article added back: every run's
    statistics equal a rebuild, and the store is written only when the bound is crossed
    (it fails with the bound ignored, or with the stored ones taken as current)."""
    import numpy as np

    import unspin.pipeline as pl
    from unspin.corpus import CorpusStats, SupportLocal
    from unspin.fingerprint import prepare

    texts = [
        "Mayor Ken Vordanek met the Council on Monday.",
        "Mayor Ken Vordanek met the council on Monday.",
        "Ken Vordanek opened a school on Friday.",
        "Shares in Acme rose on Friday, Acme said.",
        "The council said Acme would build the school.",
        "Acme said Vordanek would open the Acme school.",
    ]
    locs = [SupportLocal(prepare(Article(id=f"a{k}", text=t))) for k, t in enumerate(texts)]
    keys = [f"k{k}" for k in range(len(locs))]
    monkeypatch.setattr(pl, "STATS_STORE_EVERY", 2)
    puts: list[int] = []
    with Store(tmp_path / "st") as st:
        real_put = st.memo_put

        def put(kind, items):
            if kind == "stats":
                puts.append(len(next(iter(items.values()))[0]))
            return real_put(kind, items)

        st.memo_put = put  # type: ignore[method-assign]
        st.memo_put("local", dict(zip(keys, locs)))
        # (articles now, stored now?): 1 and 2 away from the stored [0, 1, 2] are not
        # stored, 3 away is; then removals and an add back stay within 2 of the stored
        # [0, ..., 5], and the last is 3 away
        steps = [
            ([0, 1, 2], True),
            ([0, 1, 2, 3], False),
            ([0, 1, 2, 3, 4], False),
            ([0, 1, 2, 3, 4, 5], True),
            ([0, 1, 2, 3, 5], False),
            ([0, 2, 3, 5], False),
            ([0, 2, 3, 5, 1], False),
            ([2, 3, 5, 1], False),
            ([3, 5, 1], True),
        ]
        for pick, stored in steps:
            before = len(puts)
            got = pl.corpus_stats([keys[i] for i in pick], [locs[i] for i in pick], st)
            want = CorpusStats([locs[i] for i in pick])
            assert got.n == want.n and got.words == want.words, pick
            assert got.names == want.names and got.lower == want.lower, pick
            for a in ("keys", "df", "line_keys", "line_df", "fill_keys", "fill_df"):
                assert np.array_equal(getattr(got, a), getattr(want, a)), (pick, a)
            assert (len(puts) > before) == stored, pick


def test_changes_depend_only_on_the_fields_their_memo_key_holds() -> None:
    """The changes memo is keyed by ``pipeline.CHANGES_READS``: a relation differing in
    every other field (its confidence, reasons, features, direction reason, coverage,
    evidence, as a corpus change moves them) has the same changes."""
    import dataclasses

    from test_changes import SOURCE, _edit

    from unspin.align import align
    from unspin.changes import relation_changes
    from unspin.classify import classify
    from unspin.model import Relation
    from unspin.pipeline import CHANGES_READS, changes_input, fingerprint

    der = _edit("Tomas Reyes", "Tomas Reyez", _edit("$45 million", "$54 million"))
    docs = fingerprint(
        [Article(id="src", text=SOURCE), Article(id="der", text=der)], Config(embedder="hashing")
    )
    rel = classify(docs[0], docs[1], align(docs[0], docs[1]))
    assert rel is not None
    by_id = {d.id: d for d in docs}
    want = [c.to_record() for c in relation_changes(rel, by_id)]
    assert want
    moved = dataclasses.replace(
        rel,
        confidence=rel.confidence / 2,
        direction_reason="something else",
        coverage={"src": 0.1, "der": 0.2},
        reasons=["other"],
        features={"x": 1.0},
        evidence=[],
    )
    assert changes_input(moved) == changes_input(rel)
    assert [c.to_record() for c in relation_changes(moved, by_id)] == want
    others = {f.name for f in dataclasses.fields(Relation)} - set(CHANGES_READS)
    assert others == {
        "confidence",
        "direction_reason",
        "coverage",
        "reasons",
        "features",
        "changes",
        "evidence",
    }


def test_add_and_remove_that_make_and_unmake_form_items_equal_full_rescans(
    tmp_path, kept_memo
) -> None:
    """Form lines are the pile's verdict that a pair's memo key holds: adding the notice
    that fills a frame in often enough turns the other notices into form items (their
    pairs are recomputed), and removing it turns them back; each equal to a full rescan."""
    from test_forms import COMPANIES, notice

    cfg = Config(embedder="hashing")
    arts = [Article(id=f"n{k}", text=notice(k, n, t)) for k, (n, t) in enumerate(COMPANIES)]
    other = Article(id="x", text="Mayor Ken Vordanek met the council on Monday. Pay March 31.")
    out = tmp_path / "res"
    _notices_added_then_removed(tmp_path, arts, other, out, cfg)


def _notices_added_then_removed(tmp_path, arts, other, out, cfg) -> None:
    """Scan the first four notices and ``other``; add notices 4 and 5 one at a time, then
    remove both: after each step every table equals a full rescan."""
    unspin.scan(arts_folder(tmp_path, [*arts[:4], other]), out=out, config=cfg)
    now = [*arts[:4], other]
    for a in arts[4:6]:
        unspin.add([a], out=out, config=cfg)
        now.append(a)
        _same_as_fresh(out, now, cfg)
    unspin.remove(["n4", "n5"], out=out, config=cfg)
    now = [a for a in now if a.id not in ("n4", "n5")]
    _same_as_fresh(out, now, cfg)


def test_support_cap_covers_every_count_a_rule_reads() -> None:
    """Pair rules read pile counts only against 0 and ``wording_votes``' ``min_support``:
    counts capped at ``SUPPORT_CAP`` give the same decisions only while the cap is at
    least that threshold."""
    import inspect

    from unspin.classify import wording_votes
    from unspin.pipeline import SUPPORT_CAP

    assert SUPPORT_CAP >= inspect.signature(wording_votes).parameters["min_support"].default


def test_counts_moving_above_the_cap_replay_and_below_it_do_not() -> None:
    import numpy as np

    from unspin.corpus import CorpusStats, SupportLocal, SupportView, bigram_hashes
    from unspin.fingerprint import prepare
    from unspin.pipeline import SUPPORT_CAP, RecordingSupport

    line = "Ken Vordanek said the bridge would open in June."
    docs = [prepare(Article(id=f"d{k}", text=f"{line} Item {k}.")) for k in range(6)]
    locs = [SupportLocal(d) for d in docs]
    grams = bigram_hashes(["ken", "vordanek"])

    def asked(n: int) -> RecordingSupport:
        rec = RecordingSupport(SupportView(CorpusStats(locs[:n]), locs[:2]))
        rec("vordanek", "d0", "d1")
        rec.phrase_support(grams, "d0", "d1")
        return rec

    rec = asked(2 + SUPPORT_CAP)  # SUPPORT_CAP other articles: read as the cap
    assert rec.log[0][2] == SUPPORT_CAP and set(rec.log[1][2]) == {SUPPORT_CAP}
    more = SupportView(CorpusStats(locs[: 3 + SUPPORT_CAP]), locs[:2])
    assert more("vordanek", "d0", "d1") == SUPPORT_CAP + 1  # the pile's own count moves
    assert same_answers(rec.log, more)  # but not what the rules read
    fewer = SupportView(CorpusStats(locs[: 1 + SUPPORT_CAP]), locs[:2])
    assert not same_answers(rec.log, fewer)
    assert np.all(asked(2).log[1][2] == np.zeros(len(grams)))


#: four stories of other actors whose texts share one phrase (``SAID``): piles for the
#: tests of which stored pair answers an add replays (also tests/test_corpus_change.py)
SAID = "said in a statement on Monday that"
FOUR_STORIES = [
    ("Mayor Ken Vordanek", "the Harbour Bridge in Eastport would open in June"),
    ("Grenfield Mining", "output at its Tarrow pit rose by a third"),
    ("The Lisk Valley railway", "its line would close for repairs until March"),
    ("Oberline Foods", "it bought the Pellmar dairy for 40 million dollars"),
]


def test_an_add_computes_only_the_new_articles_pairs(tmp_path, monkeypatch) -> None:
    """Stored pairs that read pile counts of phrases the new article also uses are
    replayed, not computed again (their counts move only above what the rules read),
    and the result equals a full rescan."""
    import unspin.pipeline as pl

    # word pairs every article uses, in sentences of their own (no line shared by two
    # stories, so no stock line or form item moves)
    said, stories = SAID, FOUR_STORIES
    views = ("a fine day", "good news", "a relief", "overdue")
    arts = []
    for k, (who, what) in enumerate(stories):
        text = (
            f"{who} {said} {what}. Officials welcomed the news, {who} added. "
            f"Mayor Ken Vordanek called it {views[k]}."
        )
        arts.append(Article(id=f"s{k}", text=text))
        # one copy puts another name for the mayor (the pile decides which is known:
        # a count of articles naming him), the others change words
        edited = (
            text.replace("Vordanek", "Vordanik")
            if k == 0
            else text.replace("welcomed", "cheered").replace("news", "decision")
        )
        arts.append(Article(id=f"s{k}-copy", text=edited))
    new = Article(
        id="zz-new",
        text=f"Vantor Shipping {said} its fleet grew to 30 vessels. "
        "Mayor Ken Vordanek praised the crews.",
    )
    cfg = Config(embedder="hashing", workers=1)
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
    seen: list[tuple[str, str]] = []
    real = pl.pair_work

    def recording(ctx, pair):
        seen.append((ctx.docs[pair[0]].id, ctx.docs[pair[1]].id))
        return real(ctx, pair)

    monkeypatch.setattr(pl, "pair_work", recording)
    unspin.add([new], out=out, config=cfg)
    assert seen and all("zz-new" in p for p in seen), seen
    _same_as_fresh(out, [*arts, new], cfg)


def test_quote_speakers_kept_in_the_store_equal_working_them_out(tmp_path, monkeypatch) -> None:
    import unspin.quotes as uq
    from unspin.fingerprint import prepare
    from unspin.pipeline import quote_speakers

    docs = [
        prepare(Article(id="a", text='"We will rebuild the bridge," Mayor Ken Vordanek said.')),
        prepare(Article(id="b", text='Ken Vordanek said: "We will rebuild it." He left.')),
        prepare(Article(id="c", text="No quotation here at all.")),
    ]
    cfg = Config(embedder="hashing")
    calls = count_calls(monkeypatch, uq, "doc_speakers")
    with Store(tmp_path / "s") as st:
        first = quote_speakers(docs, cfg, st)
        assert calls["n"] == 2  # the two quoting docs
        calls["n"] = 0
        again = quote_speakers(docs, cfg, st)
        assert calls["n"] == 0
    want = {d.id: uq.doc_speakers(d) for d in docs[:2]}
    assert {d.id: first(d) for d in docs[:2]} == want == {d.id: again(d) for d in docs[:2]}
    assert want["a"] == ["Mayor Ken Vordanek"]


def test_add_and_remove_pause_the_collector_and_a_scan_does_not(tmp_path, monkeypatch) -> None:
    import gc

    import unspin.api as api

    seen: list[bool] = []
    real = api.analyse

    def recording(*args, **kwargs):
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "analyse", recording)
    cfg = Config(embedder="hashing")
    arts = [
        Article(id=f"a{k}", text=f"Mayor Ken Vordanek opened school {k} on Monday.")
        for k in range(3)
    ]
    out = tmp_path / "res"
    assert gc.isenabled()
    unspin.scan(arts_folder(tmp_path, arts[:2]), out=out, config=cfg)
    unspin.add([arts[2]], out=out, config=cfg)
    assert gc.isenabled()
    unspin.remove(["a0"], out=out, config=cfg)
    assert seen == [True, False, False] and gc.isenabled()
    _same_as_fresh(out, arts[1:], cfg)


def _narrow(cfg_k: int = 2) -> Config:
    """Settings whose candidates are each article's ``cfg_k`` nearest documents only (no
    MinHash or sentence pairs): a story component of similar notices then holds pairs
    that are no candidate pairs, whose story features the component computes itself."""
    from unspin.candidates import CandidateParams

    return Config(
        embedder="hashing",
        workers=1,
        candidates=CandidateParams(doc_k=cfg_k, lsh_threshold=1.0, sent_k=1, sent_min_sim=1.0),
    )


def test_inner_pair_features_follow_form_lines_an_add_changes(tmp_path, monkeypatch) -> None:
    """The story features of pairs inside a component that are no candidate pairs are
    kept per pair: an add that turns notices into form items (their features are then
    read outside their form lines) must not read those pairs' stored features (every
    feature a component reads equals one computed now), and the result equals a full
    rescan."""
    from test_forms import COMPANIES, notice

    import unspin.pipeline as pl

    cfg = _narrow()
    arts = [Article(id=f"n{k}", text=notice(k, n, t)) for k, (n, t) in enumerate(COMPANIES)]
    other = Article(id="x", text="Mayor Ken Vordanek met the council on Monday. Pay March 31.")
    out = tmp_path / "res"
    read: list[tuple[str, str, bool]] = []  # stored features read: pair, both form items
    stale: list[tuple[str, str]] = []
    real = pl._KnownFeatures.__call__

    def checking(self, i, j, ki=None, kj=None):
        got = real(self, i, j, ki, kj)
        if (i, j) in self.known:
            d = self.fn.docs
            read.append((d[i].id, d[j].id, bool(self.form(i)) and bool(self.form(j))))
            if got != self.fn(i, j, ki, kj):
                stale.append((d[i].id, d[j].id))
        return got

    monkeypatch.setattr(pl._KnownFeatures, "__call__", checking)
    _notices_added_then_removed(tmp_path, arts, other, out, cfg)
    assert any(both for *_, both in read), read  # stored features of form items were read
    assert not stale, stale


def test_an_add_computes_only_the_new_articles_inner_pairs(tmp_path, monkeypatch) -> None:
    """A component that grows by one article reads its other pairs' story features from
    the store: only pairs with the new article are computed, and the result equals a
    full rescan."""
    import unspin.pipeline as pl

    cfg = _narrow()
    lines = [
        "Mayor Ken Vordanek said on Monday the Harbour Bridge in Eastport would open in June.",
        "The bridge cost 40 million dollars and took three years to build.",
        "Engineers from Grenfield Mining tested the steel in January.",
        "Traffic on the old ferry route fell by a third last year.",
        "Residents of Tarrow welcomed the news at a meeting on Sunday.",
        "The council will vote on tolls for the bridge in March.",
        "Oberline Foods said its trucks would use the bridge from July.",
    ]
    # copies of one report, each without one of its lines: one story component, in
    # which the narrow candidates leave some pairs out
    arts = [
        Article(id=f"r{k}", text=" ".join(x for n, x in enumerate(lines) if n != k))
        for k in range(6)
    ]
    new = Article(id="zz-new", text=" ".join(lines[1:6]))
    out = tmp_path / "res"
    seen: list[tuple[str, str]] = []
    real = pl._FeatureFn.__call__

    def recording(self, i, j, ki=None, kj=None):
        seen.append((self.docs[i].id, self.docs[j].id))
        return real(self, i, j, ki, kj)

    monkeypatch.setattr(pl._FeatureFn, "__call__", recording)
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
    inner = set(seen)  # the scan's pairs inside the component that are no candidates
    assert inner
    seen.clear()
    unspin.add([new], out=out, config=cfg)
    # computed: pairs with the new article, and pairs that were candidates before the add
    # (their features were stored with the pair's result, not as an inner pair); none of
    # the stored inner pairs
    assert any("zz-new" in p for p in seen), seen
    assert not inner & set(seen), (inner, seen)
    _same_as_fresh(out, [*arts, new], cfg)


def test_one_article_components_are_neither_computed_nor_stored(tmp_path, monkeypatch) -> None:
    """A story component of one article is one group of it with no pair to score: the
    scan and an add make it directly (no ``component_work``, no memo key read or
    written for it), the stored components are those of two or more articles, and
    every result equals a full rescan."""
    import unspin.pipeline as pl

    arts = []
    for k, (who, what) in enumerate(FOUR_STORIES):
        text = f"{who} {SAID} {what}. Officials welcomed the news, {who} added."
        arts.append(Article(id=f"s{k}", text=text))
        arts.append(Article(id=f"s{k}-copy", text=text.replace("welcomed", "cheered")))
    lone = [
        Article(id="lone-a", text="Heavy snow closed every school in Brannock on Tuesday."),
        Article(id="lone-b", text="The Quillan orchestra plays Mahler at the Old Hall tonight."),
    ]
    new = Article(id="zz-lone", text="A rare white heron was seen near Pellmar lighthouse.")
    cfg = Config(embedder="hashing", workers=1)
    out = tmp_path / "res"
    worked = record_calls(monkeypatch, pl, "component_work", lambda ctx, members: list(members))
    read = record_calls(monkeypatch, Store, "memo_get", lambda self, kind, keys: (kind, len(keys)))
    unspin.scan(arts_folder(tmp_path, [*arts, *lone]), out=out, config=cfg)
    assert worked and all(len(m) > 1 for m in worked), worked
    with Store(out / ".unspin") as st:
        stored = [v for k, v in st.con.execute("SELECT kind, value FROM memo") if k == "component"]
    assert stored
    import pickle

    assert all(sum(len(g) for g in pickle.loads(v)[0]) > 1 for v in stored)
    worked.clear()
    read.clear()
    res = unspin.add([new], out=out, config=cfg)
    assert all(len(m) > 1 for m in worked), worked
    story = next(s for s in res.stories if "zz-lone" in s.articles)
    assert story.articles == ["zz-lone"]
    n_many = sum(len(s.articles) > 1 for s in res.stories)
    assert sum(n for kind, n in read if kind == "component") <= n_many, read
    _same_as_fresh(out, [*arts, *lone, new], cfg)
    unspin.remove(["s0-copy"], out=out, config=cfg)
    _same_as_fresh(out, [a for a in [*arts, *lone, new] if a.id != "s0-copy"], cfg)


def test_quote_groups_from_kept_words_and_verdicts_equal_full_rescans(
    tmp_path, monkeypatch
) -> None:
    """The quotation groups of an add read the words and pair verdicts the last run kept
    (:class:`unspin.quotes.KnownQuotes` in the store) and work out only the new
    quotations' pairs: an article whose quotation joins an existing group (a variant of
    it), an add after a removal, and an article whose quotation makes a group of two
    with one nobody else carried; every table equals a full rescan each time (it fails
    with a stale verdict kept for a pair, or with nothing kept: every pair compared)."""
    import unspin.quotes as qm

    long_q = (
        "We will rebuild the harbour bridge before the winter storms arrive and every "
        "family in Eastport will cross it safely"
    )
    lone_q = "Nobody in this town has ever seen a railway line close for so long"
    arts = [
        Article(
            id=f"q{k}",
            text=f"{who} spoke on Monday. \u201c{q}\u201d, {who} said. {tail}",
        )
        for k, (who, q, tail) in enumerate(
            (
                ("Mayor Ken Vordanek", long_q, "The council agreed."),
                ("Ken Vordanek", long_q.replace("every family", "each family"), "Rain fell."),
                ("Ines Moravec", lone_q, "Trains stopped at noon."),
                ("Grenfield Mining", "Output at the Tarrow pit rose by a third", "Shares rose."),
            )
        )
    ]
    joiner = Article(
        id="q9",
        text=f"Vordanek said: \u201c{long_q.replace('harbour bridge', 'old bridge')}\u201d. "
        "He left at noon.",
    )
    pairer = Article(
        id="q8", text=f"A resident agreed. \u201c{lone_q}\u201d, said Ada Kell. It rained."
    )
    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
    compared: list[tuple] = []
    real = qm.are_variants

    def counting(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(qm, "are_variants", counting)
    now = list(arts)
    for step in ("add joiner", "remove q1", "add q1", "add pairer"):
        compared.clear()
        if step == "add joiner":
            unspin.add([joiner], out=out, config=cfg)
            now.append(joiner)
        elif step == "remove q1":
            unspin.remove(["q1"], out=out, config=cfg)
            now = [a for a in now if a.id != "q1"]
        elif step == "add q1":
            unspin.add([arts[1]], out=out, config=cfg)
            now.append(arts[1])
        else:
            unspin.add([pairer], out=out, config=cfg)
            now.append(pairer)
        new_words = {
            qm.quote_words(q.text)
            for a in ({"add joiner": [joiner], "add pairer": [pairer]}.get(step, []))
            for q in unspin.pipeline.prepare_work(None, a).quotes
        }
        # only pairs with a new quotation are compared (none for the removal, nor for
        # the article added back: its pairs' verdicts were kept, whatever their order)
        assert all(a in new_words or b in new_words for a, b in compared), (step, compared)
        monkeypatch.setattr(qm, "are_variants", real)
        _same_as_fresh(out, now, cfg)
        monkeypatch.setattr(qm, "are_variants", counting)
    groups = read_tables(out)["quotes"]
    assert any({"q0", "q9"} <= set(g["articles"]) for g in groups)
    assert any({"q2", "q8"} <= set(g["articles"]) for g in groups)


def test_are_variants_is_symmetric() -> None:
    """The kept verdicts are stored once per unordered pair (``KnownQuotes.variant``),
    which holds only while :func:`unspin.quotes.are_variants` is symmetric."""
    from itertools import permutations

    from unspin.quotes import are_variants, quote_words

    texts = [
        "we will rebuild the harbour bridge before the winter",
        "we will rebuild the old bridge before the winter",
        "rebuild the harbour bridge before the winter",
        "the harbour bridge",
        "we shall rebuild a harbour bridge before winter",
        "nobody has seen the line close for so long",
        "we will build the harbour bridge before the winter storms",
    ]
    ws = [quote_words(t) for t in texts]
    for a, b in permutations(ws, 2):
        assert are_variants(a, b) == are_variants(b, a), (a, b)


def test_an_add_reads_only_its_neighbourhoods_sentence_vectors(tmp_path, monkeypatch) -> None:
    """The stored docs of an add are read without their sentence vectors, which are read
    on first use: only the docs the add's work touches (its candidate pairs, the
    components it joins), not the pile's; the tables still equal a full rescan (an add
    of a near copy, then of an article after a removal). Fails with every doc's vectors
    read (the k-NN rows taken from the docs, or the docs read eagerly)."""
    import unspin.store as sm
    from unspin.candidates import CandidateParams

    topics = [
        ("Grenfield Mining", "output at its Tarrow pit rose by a third in May"),
        ("The Lisk Valley railway", "its line would close for repairs until March"),
        ("Oberline Foods", "it bought the Pellmar dairy for 40 million dollars"),
        ("Mayor Ken Vordanek", "the Harbour Bridge in Eastport would open in June"),
        ("Castellan Air", "it would fly twice a day from Oslo to Riga next year"),
        ("The Dunmore orchestra", "its new hall seats two thousand and opens in autumn"),
        ("Keswin Motors", "it recalled nine hundred vans over a faulty brake part"),
        ("The Harwell museum", "a stolen painting by Ilse Varga was found in a barn"),
    ]
    others = (
        "Miners at the pit welcomed the figures.",
        "Commuters will have to take buses instead.",
        "The dairy employs three hundred people.",
        "Engineers finished the last span in April.",
        "Tickets go on sale in the spring.",
        "The first concert is already sold out.",
        "Owners can have the part replaced for free.",
        "Police have not said who took it.",
    )
    arts = [
        Article(id=f"t{k}", text=f"{who} said on Monday that {what}. {other}")
        for k, ((who, what), other) in enumerate(zip(topics, others))
    ]
    # each article's 2 nearest documents (the default 20 would make every pair of a
    # pile this small a candidate)
    cfg = Config(embedder="hashing", candidates=CandidateParams(doc_k=2))
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
    read: set[str] = set()
    real = sm._read_vectors
    monkeypatch.setattr(sm, "_read_vectors", lambda *a: read.add(a[1]) or real(*a))
    copy = Article(id="t0-copy", text=arts[0].text.replace("by a third", "by a quarter"))
    unspin.add([copy], out=out, config=cfg)
    assert 0 < len(read) < len(arts) // 2, len(read)
    _same_as_fresh(out, [*arts, copy], cfg)
    unspin.remove(["t3"], out=out, config=cfg)
    read.clear()
    unspin.add([arts[3]], out=out, config=cfg)
    assert 0 < len(read) < len(arts) // 2, len(read)
    _same_as_fresh(out, [a for a in arts if a.id != "t3"] + [copy, arts[3]], cfg)


def test_paused_collector_leaves_the_blocks_objects_old_and_still_collectable() -> None:
    """What a paused block leaves alive is in the oldest generation on the way out (no
    pass of the collector over it as young objects), and its cyclic garbage is still
    collected by a full collection; a process with frozen objects keeps them frozen."""
    import gc
    import weakref

    from unspin.api import collector_paused

    class Node:
        pass

    assert gc.isenabled() and gc.get_freeze_count() == 0
    with collector_paused():
        assert not gc.isenabled()
        kept = [Node() for _ in range(5000)]
        loop = Node()
        loop.me = loop  # type: ignore[attr-defined]
        dead = weakref.ref(loop)
        del loop
    assert gc.isenabled() and gc.get_freeze_count() == 0
    old = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(o) in old for o in kept)
    gc.collect()
    assert dead() is None
    # objects a process froze itself stay frozen (the splice would unfreeze them)
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collector_paused():
            more = [Node() for _ in range(100)]
        assert gc.get_freeze_count() == frozen and gc.isenabled() and more
    finally:
        gc.unfreeze()


def _story_of(out, aid: str) -> str:
    return next(s["id"] for s in read_tables(out)["stories"] if aid in s["articles"])


def test_adds_and_removes_with_states_in_memo_files_equal_full_rescans(
    tmp_path, monkeypatch, kept_memo
) -> None:
    """With every kept state in a memo file of its own (the bound lowered): an add that
    joins two stories (a text made of both stories' paragraphs), its removal, an add
    after it and a text replaced under its id: every run equal to a full rescan, and
    one file per state left (the replaced ones pruned)."""
    import unspin.store as us

    monkeypatch.setattr(us, "MEMO_FILE_MIN", 200)
    bridge_a = (
        "The city council of Marlowe voted on Tuesday to close the old harbour bridge "
        "for eighteen months of repairs, after inspectors found cracks in two of its "
        "steel supports. Mayor Ken Vordanek said the closure would cost local shops."
    )
    bridge_b = (
        "Farmers in the Telmar valley began the grape harvest three weeks early this "
        "year after a record dry summer, the regional growers association said on "
        "Wednesday. Yields are expected to fall by a quarter, its chairwoman said."
    )
    a_story = [
        Article(id="a1", text=bridge_a + " Traffic will be sent over the north road."),
        Article(id="a2", text=bridge_a + " Ferries will run every hour instead."),
    ]
    b_story = [
        Article(id="b1", text=bridge_b + " Prices for the new wine may rise."),
        Article(id="b2", text=bridge_b + " Pickers were hired from abroad."),
    ]
    other = [
        Article(id=f"o{k}", text=f"Team {k} won its home game {k} to nil on Saturday night.")
        for k in range(4)
    ]
    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    base = a_story + b_story + other
    unspin.scan(arts_folder(tmp_path, base), out=out, config=cfg)
    assert _story_of(out, "a1") != _story_of(out, "b1")
    both = Article(id="z-both", text=bridge_a + "\n\n" + bridge_b)
    unspin.add([both], out=out, config=cfg)
    now = base + [both]
    _same_as_fresh(out, now, cfg)
    assert _story_of(out, "a1") == _story_of(out, "b1") == _story_of(out, "z-both")
    memo = out / ".unspin" / us.MEMO_DIRNAME
    files = sorted(p.name for p in memo.iterdir())
    assert files
    with Store(out / ".unspin") as st:
        named = {
            v[len(us._MEMO_FILE_MARK) :].decode().rsplit(":", 1)[0]
            for (v,) in st.con.execute("SELECT value FROM memo")
            if v.startswith(us._MEMO_FILE_MARK)
        }
    assert set(files) == named  # one file per kept state, each named by its row
    unspin.remove(["z-both"], out=out, config=cfg)
    now = base
    _same_as_fresh(out, now, cfg)
    assert _story_of(out, "a1") != _story_of(out, "b1")
    late = Article(id="a3", text=bridge_a + " Cyclists may still use the bridge.")
    unspin.add([late], out=out, config=cfg)
    now = base + [late]
    _same_as_fresh(out, now, cfg)
    assert _story_of(out, "a3") == _story_of(out, "a1")
    moved = Article(id="o1", text=bridge_b + " Some vineyards sold out in a day.")
    unspin.add([moved], out=out, config=cfg)
    now = [moved if a.id == "o1" else a for a in now]
    _same_as_fresh(out, now, cfg)
    assert _story_of(out, "o1") == _story_of(out, "b1")
    with Store(out / ".unspin") as st:
        named = {
            v[len(us._MEMO_FILE_MARK) :].decode().rsplit(":", 1)[0]
            for (v,) in st.con.execute("SELECT value FROM memo")
            if v.startswith(us._MEMO_FILE_MARK)
        }
    assert {p.name for p in memo.iterdir()} == named


def test_an_added_row_pushes_pairs_out_of_kept_lists_as_a_full_search_does(
    tmp_path, monkeypatch
) -> None:
    """An appended row that enters other rows' top-k lists pushes their last neighbour
    out; rows out of its reach keep their lists untouched (only rows within reach are
    searched: :func:`entering_rows`); a row just under the similarity bar is no
    neighbour either way. Each answer equals a full search, and a removal after it too."""
    import numpy as np

    import unspin.candidates as cand

    rng = np.random.default_rng(5)
    centre = rng.standard_normal(16).astype(np.float32)
    v = rng.standard_normal((90, 16)).astype(np.float32)
    v[:12] = centre + 0.3 * rng.standard_normal((12, 16)).astype(np.float32)  # a cluster
    v[80] = centre  # the cluster's centre: enters every member's list
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    keys = [f"r{i}" for i in range(len(v))]
    searched: list[int] = []
    real = cand.search

    def counting(queries, *args, **kwargs):
        searched.append(len(queries))
        return real(queries, *args, **kwargs)

    monkeypatch.setattr(cand, "search", counting)
    with Store(tmp_path / "st") as st:
        before = cand._neighbours(v[:80], 3, 0.5, keys[:80], st, "t", dim=16)
        searched.clear()
        got = cand._neighbours(v[:81], 3, 0.5, keys[:81], st, "t", dim=16)
        _same_lists(got, cand._neighbours(v[:81], 3, 0.5))
        old = set(zip(before[0].tolist(), before[1].tolist()))
        new = set(zip(got[0].tolist(), got[1].tolist()))
        pushed = {(a, b) for a, b in old - new if a < 12}
        assert pushed, "the centre pushes no pair out of a member's list"
        assert all((a, 80) in new for a, _ in pushed)
        # the kept rows searched against the new one: those within its reach only
        reach = cand.entering_rows(v[:81], np.arange(80), v[80:81], 0.5)
        assert 0 < len(reach) < 80 and searched[0] == len(reach)
        # a removal after the add (a member and the centre's best), then an add again
        kept = [x for x in range(81) if x not in {0, 3}]
        got = cand._neighbours(v[kept], 3, 0.5, [keys[x] for x in kept], st, "t", dim=16)
        _same_lists(got, cand._neighbours(v[kept], 3, 0.5))
        kept.append(85)
        got = cand._neighbours(v[kept], 3, 0.5, [keys[x] for x in kept], st, "t", dim=16)
        _same_lists(got, cand._neighbours(v[kept], 3, 0.5))


def test_entering_rows_keeps_a_row_just_over_the_bar_and_drops_one_under_it() -> None:
    """The pre-check is no looser than the search: a row at the bar is in reach, one
    clearly under it (more than the margin) is not."""
    import numpy as np

    from unspin.candidates import REACH_MARGIN, entering_rows

    e0, e1 = np.eye(2, dtype=np.float32)
    new = e0[None, :]
    at = np.float32(0.6)
    rows = np.stack(
        [
            at * e0 + np.sqrt(1 - at * at) * e1,  # exactly at the bar
            (at - 3 * REACH_MARGIN) * e0 + np.sqrt(1 - (at - 3 * REACH_MARGIN) ** 2) * e1,
            e1,
        ]
    ).astype(np.float32)
    assert entering_rows(rows, np.arange(3), new, 0.6).tolist() == [0]
    assert entering_rows(rows, np.array([0, 2]), new, 0.6).tolist() == [0]


def _docs_for_candidates():
    from unspin.pipeline import fingerprint

    base = (
        "The harbour board voted on Tuesday to raise mooring fees by 6 percent from April, "
        "citing repairs to the north breakwater that cost 2.3 million pounds last winter. "
        "Boat owners objected at the meeting and said they would appeal to the council. "
    )
    quote = "“We will not let the harbour fall apart while we argue about who pays,” she said."
    texts = {
        "orig": base + quote,
        "copy": base + "The fees were last raised in 2019.",
        "dup": base + quote,  # an exact duplicate of orig
        "quoter": "A council member spoke on Friday about flood defences. " + quote,
        "other": "The library will open on Sundays from May, the council said on Monday.",
        "other2": "The library will open on Sundays from May, the council said on Friday.",
        "far": "Wheat futures fell in Chicago as rain eased worries over the crop in Kansas.",
        "new": base + "The vote was seven to two. " + quote,  # shares bands with orig, copy
    }
    arts = [Article(k, t) for k, t in texts.items()]
    return fingerprint(arts, Config(embedder="hashing"))


def test_candidate_list_kept_across_adds_and_removes_equals_a_rescan(tmp_path) -> None:
    """The pipeline's candidate pairs (:func:`grouped_candidate_list`, with the kept
    neighbour states of a store) after an add sharing MinHash bands and a quotation with
    stored docs, a remove after it, and an add of an exact duplicate equal those of a
    fresh computation and ``sorted(grouped_candidate_pairs(...))``."""
    from unspin.candidates import grouped_candidate_list, grouped_candidate_pairs

    docs = _docs_for_candidates()
    by_id = {d.id: d for d in docs}
    steps = [
        ["orig", "copy", "quoter", "other", "other2", "far"],
        ["orig", "copy", "quoter", "other", "other2", "far", "new"],  # an add
        ["orig", "quoter", "other", "other2", "far", "new"],  # a remove after it
        ["orig", "quoter", "other", "other2", "far", "new", "dup"],  # a duplicate added
    ]
    with Store(tmp_path / "st") as st:
        for ids in steps:
            ds = [by_id[i] for i in ids]
            keys = [f"k:{i}" for i in ids]
            got = grouped_candidate_list(ds, keys=keys, cache=st)
            want = grouped_candidate_list(ds)
            assert got == want == sorted(grouped_candidate_pairs(ds))
            named = {(ids[a], ids[b]) for a, b in got}
            if "new" in ids and "copy" in ids:
                assert ("copy", "new") in named and ("orig", "new") in named
            if "dup" in ids:
                assert ("orig", "dup") in named


def test_minhash_pairs_kept_across_adds_and_removes_equal_a_full_banding(
    tmp_path, monkeypatch
) -> None:
    """The MinHash pairs worked out from the kept state and digest file for an add
    sharing bands with stored docs, a remove after it and an add of several equal the
    full banding's, without banding everything again; a bucket an add or remove moves
    across ``MAX_BUCKET`` (lowered to 3 here) changes old pairs, and is banded again."""
    from types import SimpleNamespace

    import numpy as np

    import unspin.candidates as cand

    rng = np.random.default_rng(8)
    digests = []
    for _group in range(10):  # ten groups of four variants, each a quarter of the values redrawn
        base = rng.integers(0, 2**63, 128, dtype=np.uint64)
        for _ in range(4):
            d = base.copy()
            swap = rng.random(128) < 0.25
            d[swap] = rng.integers(0, 2**63, int(swap.sum()), dtype=np.uint64)
            digests.append(d)
    docs = [SimpleNamespace(minhash=d.tolist()) for d in digests]
    keys = [f"d{x}" for x in range(len(docs))]
    real = cand.minhash_candidates
    banded = record_calls(monkeypatch, cand, "minhash_candidates", lambda mat, threshold: len(mat))

    def check(rows, st, update: bool) -> None:
        banded.clear()
        got = cand.minhash_arrays([docs[x] for x in rows], 0.3, [keys[x] for x in rows], st)
        mat = np.array([docs[x].minhash for x in rows], dtype=np.uint64)
        want = real(mat, 0.3)
        n = len(rows)
        assert cand.pair_codes(*got, n).tolist() == cand.pair_codes(*want, n).tolist()
        assert len(want[0]) > 10
        assert (banded == []) is update, banded

    with Store(tmp_path / "st") as st:
        check(list(range(30)), st, update=False)  # first run: banded
        check(list(range(31)), st, update=True)  # an add joining group 7
        check([x for x in range(31) if x not in {2, 30}], st, update=True)  # removes
        check([x for x in range(31) if x not in {2, 30}] + [33, 34, 35], st, update=True)
    monkeypatch.setattr(cand, "MAX_BUCKET", 3)
    with Store(tmp_path / "st2") as st:
        check(list(range(31)), st, update=False)
        # row 31 joins group 7 (rows 28-31): some band of the group grows from 3 to 4
        check(list(range(32)), st, update=False)
        check(list(range(31)), st, update=False)  # and back under the bound
        check(list(range(31)) + [39], st, update=True)  # group 9's fourth: no crossing


def test_kept_quotation_keys_equal_a_fresh_reading_and_follow_the_pile(
    tmp_path, monkeypatch
) -> None:
    """:func:`unspin.pipeline.pile_quote_keys` gives each doc's quote_keys from the kept
    state, works out only docs new to it, and drops the docs no longer in the pile."""
    import unspin.pipeline as pl
    from unspin.candidates import quote_keys
    from unspin.fingerprint import prepare
    from unspin.pipeline import article_key, pile_quote_keys

    texts = [
        '"We will rebuild the old bridge by June," Mayor Ken Vordanek said.',
        'Ken Vordanek said: "We will rebuild the old bridge by June." He left.',
        "No quotation here at all.",
        '"Nobody asked us about the new road at all," a resident told reporters.',
    ]
    docs = [prepare(Article(id=f"q{k}", text=t)) for k, t in enumerate(texts)]
    ak = [article_key(d.article, "hashing") for d in docs]
    with Store(tmp_path / "st") as st:
        first = pile_quote_keys(docs[:3], ak[:3], 3, st)
        assert first == [quote_keys(d, 3) for d in docs[:3]]
        assert first[0] and not first[2]
        calls = count_calls(monkeypatch, pl, "quote_keys")
        again = pile_quote_keys(docs, ak, 3, st)
        assert calls["n"] == 1  # only the new quoting doc
        assert again == [quote_keys(d, 3) for d in docs]
        (slot,) = [k for (k,) in st.con.execute("SELECT key FROM memo WHERE kind='qkeys'")]
        assert set(st.memo_get("qkeys", [slot])[slot]) == {ak[0], ak[1], ak[3]}
        # a doc removed: its entry goes; an edited doc (another article key) is read anew
        edited = prepare(Article(id="q1", text=texts[1].replace("June", "July")))
        pile = [docs[0], edited]
        keys = [ak[0], article_key(edited.article, "hashing")]
        assert pile_quote_keys(pile, keys, 3, st) == [quote_keys(d, 3) for d in pile]
        assert set(st.memo_get("qkeys", [slot])[slot]) == set(keys)


def test_sentence_row_keys_are_kept_as_doc_keys_and_counts_equal_to_their_strings() -> None:
    """:class:`unspin.candidates.RowKeys` stands for the row strings ``f"{doc}:{n}"``:
    equal to their list (and to another RowKeys of the same rows, docs without rows
    left out), ``appended`` as the strings would be, and pickled without the strings."""
    import pickle

    import numpy as np

    from unspin.candidates import RowKeys, appended

    rk = RowKeys(["a", "b", "c"], np.array([2, 0, 1]))
    strings = ["a:0", "a:1", "c:0"]
    assert rk == strings and strings == rk and list(rk) == strings and len(rk) == 3
    assert rk[1] == "a:1" and rk[:2] == strings[:2]
    assert rk == RowKeys(["a", "c"], np.array([2, 1]))
    assert rk != RowKeys(["a", "c"], np.array([1, 2])) and rk != ["a:0", "a:1"]
    grown = RowKeys(["a", "b", "c", "d"], np.array([2, 0, 1, 3]))
    assert appended(rk, grown) and appended(strings, grown) and appended(rk, strings + ["x"])
    assert appended(RowKeys(["a"], np.array([1])), RowKeys(["a", "b"], np.array([2, 1])))
    assert not appended(RowKeys(["a"], np.array([3])), RowKeys(["a", "b"], np.array([2, 1])))
    assert not appended(rk, RowKeys(["c", "a"], np.array([1, 2])))
    assert not appended(grown, rk)
    back = pickle.loads(pickle.dumps(grown))
    assert back == grown and back._list is None
    assert grown._list is not None and b"a:1" not in pickle.dumps(grown)  # made, not kept
    big = RowKeys([f"{k:040x}" for k in range(1000)], np.full(1000, 8))
    assert len(pickle.dumps(big)) * 4 < len(pickle.dumps(big.strings()))


def test_a_kept_sentence_state_of_row_strings_is_updated_as_row_keys(tmp_path) -> None:
    """A store whose sentence neighbour state holds the rows' key strings (as written
    before :class:`unspin.candidates.RowKeys`) is read and updated by an add and a
    removal: the candidates equal a fresh computation, and the state is kept as
    RowKeys afterwards."""
    from unspin.candidates import RowKeys, grouped_candidate_list

    docs = _docs_for_candidates()
    by_id = {d.id: d for d in docs}
    steps = [
        ["orig", "copy", "quoter", "other", "other2", "far"],
        ["orig", "copy", "quoter", "other", "other2", "far", "new"],
        ["orig", "quoter", "other", "other2", "far", "new"],
    ]
    with Store(tmp_path / "st") as st:
        for n, ids in enumerate(steps):
            ds = [by_id[i] for i in ids]
            got = grouped_candidate_list(ds, keys=[f"k:{i}" for i in ids], cache=st)
            assert got == grouped_candidate_list(ds)
            rows = st.con.execute("SELECT key FROM memo WHERE kind='neighbours'").fetchall()
            slots = [k for (k,) in rows if k.startswith("sentence:")]
            assert slots
            states = st.memo_get("neighbours", slots)
            assert all(isinstance(s.keys, RowKeys) for s in states.values())
            if n == 0:  # as an earlier version kept it: one string per row
                for s in states.values():
                    s.keys = s.keys.strings()
                st.memo_put("neighbours", states)


def test_pair_keys_kept_as_one_bytes_array_read_as_the_strings(tmp_path) -> None:
    """The pair state keeps its keys as one fixed-width bytes array (a list kept by
    earlier code is read too): the keys taken from it equal :func:`pair_key` of every
    pair, ``PairStage.pair_keys`` finds each pair's key by its codes (sorted or not) and
    no other, and an add on a store equals a full rescan with the state so kept."""
    import numpy as np

    import unspin.pipeline as pl
    from unspin.pipeline import KeyArray, PairKeys, PairState, key_array, pair_key, pair_keys

    ak = ["a", "b", "c", "d"]
    forms: list[dict[int, int]] = [{}, {}, {1: 2}, {}]
    pairs = [(0, 1), (0, 2), (1, 3), (2, 3)]
    strings = [pair_key("ck", ak, forms, i, j) for i, j in pairs]
    codes = np.array([i * 4 + j for i, j in pairs], dtype=np.int64)
    flags = np.zeros(4, dtype=bool)
    for kept in (strings, key_array(strings)):  # a list (earlier code) or the array
        last = PairState(kept, np.zeros(4), flags, flags, list(ak), {2: {1: 2}}, codes)
        got = pair_keys("ck", ak, forms, pairs + [(1, 2)], last, np.array([0, 1, 2, 3, -1]))
        assert isinstance(got, KeyArray)
        assert got == strings + [pair_key("ck", ak, forms, 1, 2)]
        assert got[4] == pair_key("ck", ak, forms, 1, 2) and got[1:3] == strings[1:3]
    ei = np.array([p[0] for p in pairs], dtype=np.int64)
    ej = np.array([p[1] for p in pairs], dtype=np.int64)
    for order in ([0, 1, 2, 3], [3, 1, 0, 2]):  # the pairs sorted, or not
        pk = PairKeys(ei[order], ej[order], 4, [strings[k] for k in order])
        assert dict(pk) == dict(zip(pairs, strings)) and len(pk) == 4
        assert pk.get((1, 3)) == strings[2] and pk[(0, 2)] == strings[1]
        assert pk.get((1, 2)) is None and (2, 1) not in pk and pk.get((9, 9)) is None
    # in a store: the kept state's keys are an array, and an add equals a rescan
    arts = [
        Article(id=f"s{k}", text=f"{who} {SAID} {what}. Officials welcomed it, {who} added.")
        for k, (who, what) in enumerate(FOUR_STORIES)
    ]
    arts.append(Article(id="s0-copy", text=arts[0].text.replace("welcomed", "cheered")))
    cfg = Config(embedder="hashing", workers=1)
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
    new = Article(id="zz", text=arts[1].text.replace("welcomed", "praised"))
    unspin.add([new], out=out, config=cfg)
    _same_as_fresh(out, [*arts, new], cfg)
    with Store(out / ".unspin") as st:
        slot = f"last:{pl.config_key(cfg)}"
        state = st.memo_get("pairs", [slot])[slot]
    assert isinstance(state.keys, np.ndarray) and state.keys.dtype.kind == "S"
    assert len(state.keys) == len(state.codes) > 0


def test_archived_keys_are_read_not_hashed_again_and_kept_once_for_an_old_archive(
    tmp_path, monkeypatch
) -> None:
    """The archive keeps each article's cache key and article key with it (under the
    tag of what they were made with): an add hashes only its new article, an archive
    written without them (earlier code) gets them on its first add, keys under another
    tag are not read, and every result equals a full rescan."""
    import unspin.pipeline as pl
    import unspin.store as us

    arts = [
        Article(id=f"s{k}", text=f"{who} {SAID} {what}. Officials welcomed it, {who} added.")
        for k, (who, what) in enumerate(FOUR_STORIES)
    ]
    cfg = Config(embedder="hashing", workers=1)
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)

    def kept() -> dict[str, object]:
        with Store(out / ".unspin") as st:
            rows = st.con.execute("SELECT id, data FROM articles").fetchall()
        return {i: json.loads(d).get("_keys") for i, d in rows}

    tag = pl.archive_tag(cfg)
    assert all(k is not None and k[0] == tag for k in kept().values())
    hashed = record_calls(monkeypatch, pl, "article_key", lambda a, e: a.id)
    cached = record_calls(monkeypatch, us, "cache_key", lambda a, e: a.id)
    new = Article(id="zz", text=arts[1].text.replace("welcomed", "praised"))
    unspin.add([new], out=out, config=cfg)
    assert set(hashed) == {"zz"} and set(cached) == {"zz"}, (hashed, cached)
    _same_as_fresh(out, [*arts, new], cfg)
    # as earlier code archived them: no keys; the first add hashes all and keeps them
    with Store(out / ".unspin") as st:
        for i, d in st.con.execute("SELECT id, data FROM articles").fetchall():
            row = json.loads(d)
            row.pop("_keys")
            if i == "s2":
                row["_keys"] = ["another tag", "x", "y"]  # another embedder's, say
            st.con.execute("UPDATE articles SET data=? WHERE id=?", (json.dumps(row), i))
        st.con.commit()
    hashed.clear()
    cached.clear()
    more = Article(id="zz2", text=arts[2].text.replace("welcomed", "hailed"))
    unspin.add([more], out=out, config=cfg)
    assert {"s0", "s2", "zz", "zz2"} <= set(hashed) and "s2" in cached
    assert all(k is not None and k[0] == tag for k in kept().values())
    _same_as_fresh(out, [*arts, new, more], cfg)
    hashed.clear()
    cached.clear()
    unspin.remove(["s0"], out=out, config=cfg)
    assert not hashed and not cached, (hashed, cached)
    _same_as_fresh(out, [a for a in [*arts, new, more] if a.id != "s0"], cfg)


def test_an_ivf_answer_is_kept_and_updated_for_appended_rows(tmp_path, ivf_calls) -> None:
    """Above ``exact_max`` rows the full search is the IVF one, and its answer is kept in
    the store like the exact one's: rows appended later (an add) are searched exactly
    against all rows and merged, with no second IVF search; a change of more than
    ``NEIGHBOUR_UPDATE_MAX_SHARE`` of the rows searches afresh (IVF again). With as many
    probes as lists the IVF search is exact, so every answer equals a full exact search."""
    import numpy as np

    import unspin.candidates as cand

    rng = np.random.default_rng(5)
    v = rng.standard_normal((400, 16)).astype(np.float32)
    v[300:330] = v[:30] + 0.05 * rng.standard_normal((30, 16)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    keys = [f"r{i}" for i in range(len(v))]
    calls = ivf_calls
    ivf = (100, 2.0, 1000)  # above 100 rows; every list probed: exact
    with Store(tmp_path / "st") as st:
        got = cand._neighbours(v[:290], 5, 0.2, keys[:290], st, "t", ivf=ivf)
        assert calls == [290]
        _same_lists(got, cand._neighbours(v[:290], 5, 0.2))
        for n in (291, 300, 330):  # appended rows, near copies of kept rows among them
            got = cand._neighbours(v[:n], 5, 0.2, keys[:n], st, "t", ivf=ivf)
            assert calls == [290], "an add reran the IVF search"
            _same_lists(got, cand._neighbours(v[:n], 5, 0.2))
        # the same rows again: the kept answer as it is
        got = cand._neighbours(v[:330], 5, 0.2, keys[:330], st, "t", ivf=ivf)
        assert calls == [290]
        # most rows new: searched afresh, by the IVF search
        other = [f"s{i}" for i in range(400)]
        got = cand._neighbours(v, 5, 0.2, other, st, "t", ivf=ivf)
        assert calls == [290, 400]
        _same_lists(got, cand._neighbours(v, 5, 0.2))
    # without a store nothing is kept: the IVF search each time
    cand._neighbours(v[:290], 5, 0.2, keys[:290], None, "t", ivf=ivf)
    assert calls == [290, 400, 290]


def test_a_value_stored_again_replaces_the_kept_one(tmp_path) -> None:
    """A pair result whose corpus answers moved is computed again and stored under its
    key: a process that kept the value it read before must read the new one (a running
    service gave the stale result at the next add: 2 of 4 adds at 20,000 articles)."""
    import unspin.store as us

    us.keep_memo_values(True)
    try:
        with Store(tmp_path / "st") as st:
            st.memo_put("pair", {"k1": ("old", {})})
            assert st.memo_get("pair", ["k1"])["k1"][0] == "old"  # read, so kept
            st.memo_put("pair", {"k1": ("new", {})})
            assert st.memo_get("pair", ["k1"])["k1"][0] == "new"
    finally:
        us.keep_memo_values(False)


def test_a_value_another_process_stored_again_replaces_the_kept_one(tmp_path) -> None:
    """A service keeps the values it read; a CLI ``unspin add`` in another process may
    store a pair result again under the same key (its corpus answers moved). The
    service's next run must read the new value, not the one it kept."""
    import subprocess
    import sys

    import unspin.store as us

    where = tmp_path / "st"
    us.keep_memo_values(True)
    try:
        with Store(where) as st:
            st.memo_put("pair", {"k1": ("old", {}), "k2": ("same", {})})
            assert st.memo_get("pair", ["k1", "k2"])["k1"][0] == "old"  # read, so kept
        other = (
            "import sys; from unspin.store import Store\n"
            "with Store(sys.argv[1]) as st:\n"
            "    st.memo_put('pair', {'k1': ('new', {})})\n"
        )
        subprocess.run([sys.executable, "-c", other, str(where)], check=True, timeout=120)
        with Store(where) as st:
            got = st.memo_get("pair", ["k1", "k2"])
            assert got["k1"][0] == "new" and got["k2"][0] == "same"
            # values this process reads after the check are kept again
            assert st.memo_get("pair", ["k1"])["k1"] is got["k1"]
        with Store(where) as st:  # no other writer since: the kept value is served
            assert st.memo_get("pair", ["k1"])["k1"] is got["k1"]
    finally:
        us.keep_memo_values(False)


def test_kept_memo_values_are_read_once_per_process_and_only_content_kinds(tmp_path) -> None:
    """With values kept, a second read of content-keyed values neither queries nor
    unpickles them again (the same objects come back); a state slot (replaced at every
    run) is always read from the store; values not stored are still left out."""
    import pickle

    import unspin.store as us

    us.keep_memo_values(True)
    try:
        with Store(tmp_path / "st") as st:
            st.memo_put("pair", {"k1": ("rel", {"f": 1.0}), "k2": ("rel2", {})})
            st.memo_put("pairs", {"last": [1, 2]})
            loads = []
            real = pickle.loads
            pickle.loads = lambda b: loads.append(1) or real(b)  # type: ignore[assignment]
            try:
                first = st.memo_get("pair", ["k1", "k2", "gone"])
                n = len(loads)
                again = st.memo_get("pair", ["k2", "k1"])
                assert len(loads) == n and again["k1"] is first["k1"] and "gone" not in again
                st.memo_get("pairs", ["last"])
                st.memo_get("pairs", ["last"])
                assert len(loads) == n + 2
            finally:
                pickle.loads = real  # type: ignore[assignment]
        us.keep_memo_values(False)
        assert not us._MEMO_KEPT
    finally:
        us.keep_memo_values(False)


def _topic_pile() -> list[Article]:
    """Articles in six topics of their own words (each topic a few reports sharing
    sentences), so the story graph has several components."""
    import random

    rng = random.Random(7)
    cons, vowels = "bcdfghjklmnpqrstvwz", "aeiouy"
    arts = []
    for t in range(6):
        # letters of the topic's own: no word or character trigram in two topics
        syll = [c + vowels[t] for c in cons[3 * t : 3 * t + 3]]
        words = ["".join(rng.choice(syll) for _ in range(3)) for _ in range(40)]
        name = words[0].capitalize() + " " + words[1].capitalize()

        def sentence(k: int, words=words, name=name) -> str:
            body = " ".join(rng.choice(words) for _ in range(12))
            if k % 3 == 1:  # a quotation the topic's reports share
                return f'{name} said: "{body}."'
            return f"{name} {body} {k + 3}."

        lines = [sentence(k) for k in range(8)]
        for r in range(3):
            mine = lines[: 5 + r] + [sentence(20 + r)]
            arts.append(Article(id=f"t{t}-r{r}", text=" ".join(mine)))
    return arts


@pytest.mark.parametrize("max_component", [None, 2])
def test_kept_story_components_equal_a_fresh_scan(tmp_path, monkeypatch, max_component) -> None:
    """A process that keeps its memo values (the service) takes the story stage's result
    of each component of the story graph that no change touched from its last run
    (``pipeline.StoryState``): after each add and a removal the tables equal a fresh
    scan's, and the untouched components were not worked out again."""
    import unspin.pipeline as pl
    from unspin.store import keep_memo_values

    keep_memo_values(True)
    try:
        base = _topic_pile()
        cfg = Config(embedder="hashing")
        if max_component:  # components split again at stricter links (parts of parts)
            cfg = dataclasses.replace(
                cfg, stories=dataclasses.replace(cfg.stories, max_component=max_component)
            )
        out = tmp_path / "res"
        unspin.scan(arts_folder(tmp_path, base), out=out, config=cfg)
        seen = record_calls(monkeypatch, pl, "_map_components", lambda d, comps, *a: list(comps))
        now = list(base)
        src = base[4].text
        extra = [
            Article(id="zz-copy", text=src.replace(".", "!", 1)),  # one topic moves
            Article(id="zz-alone", text="A ferry left the harbour late on a windy night."),
            Article(id="zz-both", text=base[0].text + " " + base[9].text),  # joins two
        ]
        for a in extra:
            seen.clear()
            unspin.add([a], out=out, config=cfg)
            now.append(a)
            _same_as_fresh(out, now, cfg)
            # the fresh scan's own story stage is the last call; the add's is the first
            worked = [c for c in seen[0] if len(c) > 1]
            assert sum(map(len, worked)) <= 7, (a.id, worked)
        unspin.remove(["zz-both"], out=out, config=cfg)
        now = now[:-1]
        _same_as_fresh(out, now, cfg)
        # then what moves a kept doc's place or row: an exact duplicate of a stored
        # article, a stored id given a new text, a removal from the middle, an add after
        dup = Article(id="zz-dup", text=base[7].text)
        moved = Article(id=base[13].id, text=base[13].text.replace(".", "?", 1))
        steps: list = [("add", [dup]), ("add", [moved]), ("remove", [base[2].id])]
        steps.append(("add", [Article(id="zz-late", text=base[16].text + " " + src)]))
        for kind, what in steps:
            if kind == "add":
                unspin.add(what, out=out, config=cfg)
                # a stored id given a new text keeps its place in the pile
                new = {a.id: a for a in what}
                now = [new.pop(a.id, a) for a in now] + list(new.values())
            else:
                unspin.remove(what, out=out, config=cfg)
                now = [a for a in now if a.id not in what]
            _same_as_fresh(out, now, cfg)
    finally:
        keep_memo_values(False)


def _scanned_topic_pile(tmp_path) -> tuple[list[Article], Config, object]:
    """:func:`_topic_pile` scanned into ``tmp_path / "res"`` (hashing embedder): the
    articles, the config and the results folder."""
    base = _topic_pile()
    cfg = Config(embedder="hashing")
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, base), out=out, config=cfg)
    return base, cfg, out


def test_a_cli_add_beside_a_process_that_keeps_values_leaves_its_adds_equal_a_scan(
    tmp_path,
) -> None:
    """A running service keeps the memo values it reads; an ``unspin add`` from the CLI
    (another process) beside it stores pair results again under their keys. The
    service's adds after it still equal a fresh scan of the same articles."""
    import subprocess
    import sys

    from unspin.store import keep_memo_values

    keep_memo_values(True)
    try:
        base, cfg, out = _scanned_topic_pile(tmp_path)
        src = base[4].text
        now = list(base)
        steps = [
            ("here", Article(id="zz-copy", text=src.replace(".", "!", 1))),
            ("cli", Article(id="zz-alone", text="A ferry left the harbour late on a windy night.")),
            ("here", Article(id="zz-both", text=base[0].text + " " + base[9].text)),
            ("cli", Article(id="zz-late", text=base[16].text + " " + src)),
            ("here", Article(id="zz-dup", text=base[7].text)),
        ]
        for k, (where, a) in enumerate(steps):
            if where == "here":
                unspin.add([a], out=out, config=cfg)
            else:
                path = tmp_path / f"cli-{k}.jsonl"
                path.write_text(json.dumps({"id": a.id, "text": a.text}) + "\n", "utf-8")
                cmd = [sys.executable, "-m", "unspin", "add", str(path), "--out", str(out)]
                cmd += ["--embedder", "hashing", "--quiet"]
                subprocess.run(cmd, check=True, timeout=300)
            now.append(a)
            _same_as_fresh(out, now, cfg)
    finally:
        keep_memo_values(False)


def test_kept_story_state_is_not_taken_up_after_a_run_that_failed_past_its_pair_stage(
    tmp_path, monkeypatch
) -> None:
    """An add that fails after its pair stage has kept its pair state but no story state:
    the next add's touched docs are against the failed run's pairs, so the story state
    of the run before it is not taken up (``StoryState.run``); the tables then equal a
    fresh scan's."""
    import unspin.pipeline as pl
    from unspin.store import keep_memo_values

    keep_memo_values(True)
    try:
        base, cfg, out = _scanned_topic_pile(tmp_path)
        real = pl._stories_by_part

        def failing(*a, **k):
            raise RuntimeError("killed after the pair stage")

        monkeypatch.setattr(pl, "_stories_by_part", failing)
        with pytest.raises(RuntimeError):
            unspin.add([Article(id="zz-x", text=base[4].text + " More.")], out=out, config=cfg)
        monkeypatch.setattr(pl, "_stories_by_part", real)
        seen = record_calls(monkeypatch, pl, "_map_components", lambda d, comps, *a: list(comps))
        later = Article(id="zz-y", text=base[10].text.replace(".", "!", 1))
        unspin.add([later], out=out, config=cfg)
        _same_as_fresh(out, [*base, later], cfg)
        assert len([c for c in seen[0] if len(c) > 1]) == 6  # every part worked out
    finally:
        keep_memo_values(False)
