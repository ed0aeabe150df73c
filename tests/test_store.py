"""Tests for the embedded store: fingerprint cache, article archive, vector index, errors."""

from __future__ import annotations

import dataclasses
import sqlite3

import numpy as np
import pytest

from unspin.embed import get_embedder
from unspin.fingerprint import embed_docs, prepare
from unspin.model import Article, Doc
from unspin.pipeline import Config, fingerprint
from unspin.store import STORE_SCHEMA_VERSION, Store, StoreError

TEXTS = [
    'The old river bridge will reopen in June, the council said. "We are delighted with '
    'the repairs," said mayor Ana Ruiz on Monday.\n\nSubscribe to our newsletter.',
    "Heavy rain flooded 40 homes in Riverton overnight. Firefighters pumped water from "
    "cellars until 5 a.m. on Tuesday.",
    "The city library will extend its opening hours from March. Readers asked for later "
    "evenings, the head librarian Tom Berg said.",
]


def articles() -> list[Article]:
    return [
        Article(id=f"a{i}", text=t, title=f"Title {i}", lang="en", outlet="Daily Example")
        for i, t in enumerate(TEXTS)
    ]


def embedded(arts: list[Article]) -> list[Doc]:
    docs = [prepare(a) for a in arts]
    embed_docs(docs, get_embedder("hashing"))
    return docs


def assert_docs_equal(a: Doc, b: Doc) -> None:
    for f in dataclasses.fields(Doc):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert isinstance(y, np.ndarray) and x.dtype == y.dtype, f.name
            np.testing.assert_array_equal(x, y, err_msg=f.name)
        else:
            assert x == y, f.name


def test_doc_round_trip(tmp_path):
    doc = embedded(articles()[:1])[0]
    assert doc.quotes and doc.minhash and any(s.boilerplate for s in doc.sentences)
    doc.minhash = [*doc.minhash[:-1], 2**64 - 1]  # beyond int64
    with Store(tmp_path / ".unspin") as st:
        st.put_doc(doc, "hashing")
    with Store(tmp_path / ".unspin") as st:
        got = st.get_doc(doc.article, "hashing")
        assert got is not None and got.article is doc.article
        assert_docs_equal(got, doc)
        assert st.get_doc(doc.article, "use-m3") is None  # other embedder: other key
        changed = dataclasses.replace(doc.article, title="Another title")
        assert st.get_doc(changed, "hashing") is None
        assert st.stats()["hits"] == 1 and st.stats()["misses"] == 2


def test_fingerprint_uses_cache(tmp_path):
    cfg = Config(embedder="hashing")
    with Store(tmp_path) as st:
        first = fingerprint(articles(), cfg, cache=st)
        assert st.stats()["misses"] == 3 and st.stats()["hits"] == 0
    with Store(tmp_path) as st:
        second = fingerprint(articles(), cfg, cache=st)
        stats = st.stats()
        assert (stats["docs"], stats["articles"], stats["hits"], stats["misses"]) == (3, 0, 3, 0)
    assert [d.id for d in second] == ["a0", "a1", "a2"]
    for a, b in zip(first, second, strict=True):
        assert_docs_equal(a, b)


def test_same_text_two_ids(tmp_path):
    a, b = Article(id="x", text=TEXTS[1]), Article(id="y", text=TEXTS[1], outlet="Other")
    with Store(tmp_path) as st:
        st.put_doc(embedded([a])[0], "hashing")
        da, db = st.get_doc(a, "hashing"), st.get_doc(b, "hashing")
        assert st.stats()["docs"] == 1
    assert da is not None and db is not None
    assert (da.id, db.id) == ("x", "y") and db.article is b
    np.testing.assert_array_equal(da.doc_vector, db.doc_vector)


def test_articles_order_fields_and_upsert(tmp_path):
    arts = articles()
    arts[1].meta = {"section": "local", "tags": ["flood", "rain"], "n": 3}
    arts[1].published_at = "2024-03-05T10:00:00Z"
    arts[2].url, arts[2].input, arts[2].location = "https://example.org/x", "in.jsonl", "line 3"
    with Store(tmp_path) as st:
        st.save_articles([arts[2], arts[0]])
        st.save_articles([arts[1], dataclasses.replace(arts[0], text="Updated text.")])
    with Store(tmp_path) as st:
        got = st.load_articles()
        assert [a.id for a in got] == ["a2", "a0", "a1"]  # first-seen order
        assert got[0] == arts[2] and got[2] == arts[1]
        assert got[1].text == "Updated text."
        assert st.stats()["articles"] == 3
        st.save_articles([arts[1]], replace=True)
        assert [a.id for a in st.load_articles()] == ["a1"]


def test_write_index(tmp_path):
    docs = embedded(articles())
    with Store(tmp_path) as st:
        st.write_index(docs)
        assert (tmp_path / "docs.f32").exists()
    with Store(tmp_path) as st:
        loaded = st.load_index()
        assert loaded is not None
        index, ids = loaded
        assert index.ntotal == 3 and ids == ["a0", "a1", "a2"]
        _, found = index.search(docs[1].doc_vector[None, :], 1)
        assert ids[found[0][0]] == "a1"
        st.write_index(docs[:2])
        assert st.load_index()[1] == ["a0", "a1"]
        assert st.stats()["indexed"] == 2


def test_corrupt_file_raises(tmp_path):
    (tmp_path / "store.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="file is not a database") as e:
        Store(tmp_path)
    msg = str(e.value)
    assert str(tmp_path / "store.sqlite") in msg and "delete the folder" in msg
    assert isinstance(e.value, RuntimeError)


def test_corrupt_index_raises(tmp_path):
    with Store(tmp_path) as st:
        st.write_index(embedded(articles()))
        (tmp_path / "docs.f32").write_bytes(b"garbage" * 10)
        with pytest.raises(StoreError, match="docs.f32.*delete the folder"):
            st.load_index()


def test_newer_schema_refused(tmp_path):
    Store(tmp_path).close()
    con = sqlite3.connect(tmp_path / "store.sqlite")
    con.execute(f"PRAGMA user_version={STORE_SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="newer|upgrade"):
        Store(tmp_path)


def test_reopen_after_close(tmp_path):
    st = Store(tmp_path / "nested" / ".unspin")
    st.save_articles(articles())
    st.put_doc(embedded(articles()[:1])[0], "hashing")  # left pending: close must commit
    st.close()
    st.close()
    with pytest.raises(StoreError, match="closed"):
        st.load_articles()
    with Store(tmp_path / "nested" / ".unspin") as st2:
        assert st2.stats()["docs"] == 1 and len(st2.load_articles()) == 3


def _rel_keys(result) -> set[tuple[str, str, str]]:
    return {(r.a, r.b, r.relation) for r in result.relations}


def test_add_articles_and_remove_equal_a_fresh_scan(tmp_path):
    import unspin
    from unspin.output import read_tables

    cfg = Config(embedder="hashing")
    arts = articles()
    copy = Article(id="a0-copy", text=TEXTS[0], title="Title 0")
    folder = tmp_path / "in"
    folder.mkdir()
    for a in arts:
        (folder / f"{a.id}.txt").write_text(f"{a.title}\n\n{a.text}", encoding="utf-8")
    out = tmp_path / "res"
    unspin.scan([folder], out=out, config=cfg)
    added = unspin.add([copy], out=out, config=cfg)  # an Article, not a path
    assert "a0-copy" in {d.id for d in added.docs}
    assert any("a0-copy" in (r.a, r.b) for r in added.relations)
    tables = read_tables(out)
    assert "a0-copy" in {r["id"] for r in tables["articles"]}
    removed = unspin.remove("a0-copy", out=out, config=cfg)
    assert "a0-copy" not in {d.id for d in removed.docs}
    assert not any("a0-copy" in (r.a, r.b) for r in removed.relations)
    assert not any("a0-copy" in s.articles for s in removed.stories)
    fresh = unspin.scan([folder], config=cfg, store=False)
    assert _rel_keys(removed) == _rel_keys(fresh)
    assert "a0-copy" not in {r["id"] for r in read_tables(out)["articles"]}
    with pytest.raises(KeyError, match="nope"):
        unspin.remove(["nope"], out=out, config=cfg)


def test_index_appended_for_added_docs_equals_a_whole_write(tmp_path, monkeypatch):
    """An index holding the first docs gets only the new docs' ids and vectors; one
    whose ids or vectors are not the first docs' (a doc replaced, removed, reordered,
    ids left stale) is written whole. Each time the index equals a whole write."""
    import dataclasses

    import faiss
    import numpy as np

    docs = embedded(articles())
    whole: list[int] = []
    real = Store._append_index

    def spy(self, ds):
        done = real(self, ds)
        if not done:
            whole.append(len(ds))
        return done

    monkeypatch.setattr(Store, "_append_index", spy)

    def check(st, want):
        index, ids = st.load_index()
        assert ids == [d.id for d in want]
        got = faiss.downcast_index(index.index).reconstruct_n(0, index.ntotal)
        assert np.array_equal(got, np.stack([d.doc_vector for d in want]))
        assert faiss.vector_to_array(index.id_map).tolist() == list(range(len(want)))

    other = dataclasses.replace(docs[1], doc_vector=docs[1].doc_vector[::-1].copy())
    with Store(tmp_path) as st:
        st.write_index(docs[:1])  # nothing stored yet: whole
        st.write_index(docs[:3])  # appended
        check(st, docs[:3])
        assert whole == [1]
        st.write_index([docs[0], other, docs[2]])  # a doc's vector changed: whole
        check(st, [docs[0], other, docs[2]])
        st.write_index([docs[0], docs[2]])  # a removal: whole
        check(st, [docs[0], docs[2]])
        assert whole == [1, 3, 2]
        st.con.execute("DELETE FROM index_ids WHERE faiss_id = 0")
        st.con.commit()
        assert st.load_index() is None  # ids not the rows 0..n-1: stale
        st.write_index([docs[0], docs[2], docs[1]])  # stale ids: whole
        check(st, [docs[0], docs[2], docs[1]])
        assert whole == [1, 3, 2, 3]


def test_index_append_writes_only_the_new_rows_and_survives_a_killed_writer(tmp_path, monkeypatch):
    """An add writes its docs' vector rows after the kept ones (the kept bytes are never
    written again) and commits their ids after; a writer killed between the two leaves
    rows past the committed ones, which are not read and are written over; a whole write
    killed before its commit leaves a file of another generation, read as stale (None,
    not an error) and written whole next. A store of an earlier version (``docs.faiss``,
    no vector file) is written whole and its faiss file removed."""
    import unspin.store as store_mod

    docs = embedded(articles() + [Article(id="a3", text=TEXTS[0] + " More.", title="T")])
    dim = len(docs[0].doc_vector)
    writes: list[tuple[int, int]] = []
    real_rows = store_mod._write_rows

    def spy(path, offset, rows):
        writes.append((offset, len(rows)))
        real_rows(path, offset, rows)

    monkeypatch.setattr(store_mod, "_write_rows", spy)
    (tmp_path / "docs.faiss").write_bytes(b"an index of an earlier version")
    with Store(tmp_path) as st:
        assert st.load_index() is None  # no vector file yet: nothing kept
        st.write_index(docs[:2])  # whole
        assert not (tmp_path / "docs.faiss").exists()
        before = (tmp_path / "docs.f32").read_bytes()
        st.write_index(docs[:3])  # the third doc's row only
        assert writes == [(store_mod.INDEX_HEADER + 2 * dim * 4, 1)]
        after = (tmp_path / "docs.f32").read_bytes()
        assert after[: len(before)] == before and len(after) == len(before) + dim * 4
        # killed after its rows were synced, before the ids were committed
        with open(tmp_path / "docs.f32", "ab") as fh:
            fh.write(np.ones(dim, np.float32).tobytes())
        index, ids = st.load_index()
        assert ids == ["a0", "a1", "a2"] and index.ntotal == 3
        st.write_index(docs)  # written over the dead row
        assert writes[-1] == (store_mod.INDEX_HEADER + 3 * dim * 4, 1)
        index, ids = st.load_index()
        assert ids == [d.id for d in docs]
        assert (tmp_path / "docs.f32").stat().st_size == store_mod.INDEX_HEADER + 4 * dim * 4
        got = index.index.reconstruct_n(0, 4)
        assert np.array_equal(got, np.stack([d.doc_vector for d in docs]))
        # a whole write killed after its file replaced the old one, before the commit
        monkeypatch.setattr(st, "_append_index", lambda ds: False)
        real_con = st._con

        class Dies:
            def __enter__(self):
                raise KeyboardInterrupt("killed")

            def __exit__(self, *a):
                return False

            def __getattr__(self, name):
                return getattr(real_con, name)

        st._con = Dies()
        with pytest.raises(KeyboardInterrupt):
            st.write_index(docs[:2])
        st._con = real_con
        assert st.load_index() is None  # stale: the file is not the ids' generation
        monkeypatch.undo()
        st.write_index(docs)  # whole again
        assert st.load_index()[1] == [d.id for d in docs]


def test_lazy_docs_read_their_vectors_on_first_use(tmp_path, monkeypatch):
    """``get_docs(lazy=True)``: docs equal to the eager ones, whose sentence vectors are
    read only when used: through the open store, through a connection of its own once
    the store is closed and in a forked process; pickled with them read."""
    import os
    import pickle

    import unspin.store as sm

    docs = embedded(articles())
    with Store(tmp_path) as st:
        for d in docs:
            st.put_doc(d, "hashing")
    reads: list[str] = []
    real = sm._read_vectors
    monkeypatch.setattr(sm, "_read_vectors", lambda *a: reads.append(a[1]) or real(*a))
    with Store(tmp_path) as st:
        eager = st.get_docs([d.article for d in docs], "hashing")
        lazy = st.get_docs([d.article for d in docs], "hashing", lazy=True)
        assert reads == []
        assert np.array_equal(lazy[0].sentence_vectors, docs[0].sentence_vectors)
        assert len(reads) == 1
        assert lazy[0].sentence_vectors is lazy[0].sentence_vectors  # read once
        assert len(reads) == 1
    # the store closed: its own connection
    assert np.array_equal(lazy[1].sentence_vectors, docs[1].sentence_vectors)
    assert len(reads) == 2
    for x, y in zip(lazy, eager):
        assert_docs_equal(x, y)
        assert x == y
    # a forked child reads through a connection of its own
    with Store(tmp_path) as st:
        more = st.get_docs([docs[2].article], "hashing", lazy=True)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            ok = np.array_equal(more[0].sentence_vectors, docs[2].sentence_vectors)
            os.write(w, b"1" if ok else b"0")
            os._exit(0)
        os.waitpid(pid, 0)
        assert os.read(r, 1) == b"1"
        back = pickle.loads(pickle.dumps(more[0]))
        assert np.array_equal(back.sentence_vectors, docs[2].sentence_vectors)
        assert back.__dict__["_source"] is None
    replaced = dataclasses.replace(lazy[2], lang="xx")
    assert np.array_equal(replaced.sentence_vectors, docs[2].sentence_vectors)


def test_large_memo_values_kept_in_files_of_their_own(tmp_path, monkeypatch):
    """A memo value over ``MEMO_FILE_MIN`` bytes is a file of its own (its row names
    it), read back equal; replacing it removes the old file; a small value stays in
    SQLite; a lost or cut file reads as not stored; a killed writer's orphan file is
    pruned by the next write of its key; another kind with the same key is apart."""
    import os
    import pickle

    import unspin.store as us

    monkeypatch.setattr(us, "MEMO_FILE_MIN", 1000)
    big = {"keys": [f"k{i}" for i in range(500)], "vec": np.arange(400, dtype=np.float64)}
    with Store(tmp_path / "s") as st:
        st.memo_put("pairs", {"last": big, "small": [1, 2]})
        st.memo_put("stats", {"last": [big, 1]})
        files = sorted(p.name for p in st.memo_dir.iterdir())
        assert len(files) == 2
        rows = dict(st.con.execute("SELECT kind || key, value FROM memo").fetchall())
        assert len(rows["pairslast"]) < 200 and pickle.loads(rows["pairssmall"]) == [1, 2]
        got = st.memo_get("pairs", ["last", "small", "none"])
        assert got["small"] == [1, 2] and got["last"]["keys"] == big["keys"]
        assert np.array_equal(got["last"]["vec"], big["vec"]) and "none" not in got
        assert st.memo_get("stats", ["last"])["last"][1] == 1
        # a killed writer's file (written, never named by a committed row)
        orphan = st.memo_dir / (st._memo_file_prefix("pairs", "last") + "-1-1.pkl")
        orphan.write_bytes(b"junk")
        big2 = {**big, "vec": big["vec"] + 1}
        st.memo_put("pairs", {"last": big2})
        now = sorted(p.name for p in st.memo_dir.iterdir())
        assert len(now) == 2 and not orphan.exists()
        assert np.array_equal(st.memo_get("pairs", ["last"])["last"]["vec"], big2["vec"])
        # the old pairs file replaced, the stats file untouched by the pairs write
        assert set(files) & set(now) == {
            n for n in files if n.startswith(st._memo_file_prefix("stats", "last"))
        }
        # a file cut short or lost: not stored (recomputed), not a damaged store
        (path,) = [
            p
            for p in st.memo_dir.iterdir()
            if p.name.startswith(st._memo_file_prefix("pairs", "last"))
        ]
        os.truncate(path, 10)
        assert st.memo_get("pairs", ["last", "small"]) == {"small": [1, 2]}
        path.unlink()
        assert st.memo_get("pairs", ["last"]) == {}
    with Store(tmp_path / "s") as st:  # reopened: still read through the file
        assert st.memo_get("stats", ["last"])["last"][1] == 1


def test_stored_doc_lists_its_minhash_and_counts_its_sentences_when_asked(tmp_path):
    """A lazily read doc keeps its MinHash digest as the stored bytes until it is read
    (then the same list as an eager read), counts its sentences from the stored rows
    once (the same counts as the built sentences), and pickles with the digest listed."""
    import pickle

    docs = embedded(articles())
    with Store(tmp_path) as st:
        for d in docs:
            st.put_doc(d, "hashing")
        eager = st.get_docs([d.article for d in docs], "hashing")
        lazy = st.get_docs([d.article for d in docs], "hashing", lazy=True)
        one = st.get_docs([docs[0].article], "hashing", lazy=True)[0]
    for x, y, d in zip(lazy, eager, docs):
        assert x.__dict__["_minhash_raw"] is not None  # not listed yet
        counts = x.sentence_counts()
        assert x.sentence_counts() is not None and x.__dict__["_counts"][1:] == counts
        assert x.minhash == y.minhash == d.minhash
        assert x.__dict__["_minhash_raw"] is None
        assert counts == y.sentence_counts() == d.sentence_counts()
        assert x.sentences == y.sentences  # built now: counted from them
        assert x.sentence_counts() == counts
    z = pickle.loads(pickle.dumps(one))
    assert z.minhash == docs[0].minhash and z == docs[0]


def test_cache_key_is_the_json_of_its_parts():
    """``key_json`` (the hashed text of the cache and article keys) is
    ``json.dumps(..., ensure_ascii=False)`` of the parts: quotes, escapes, non-ASCII, lone
    surrogates, None, and a value of another type (through ``json.dumps``)."""
    import hashlib
    import json

    from unspin.fingerprint import FINGERPRINT_VERSION
    from unspin.model import key_json
    from unspin.store import cache_key

    odd = ['a "quoted" \\ back\nslash\t', "é€\u2028\x00", "\ud800 lone", "", None]
    for k in range(len(odd) + 1):
        assert key_json(odd[:k]) == json.dumps(odd[:k], ensure_ascii=False)
    assert key_json(["x", 3, None]) == json.dumps(["x", 3, None], ensure_ascii=False)
    a = Article(id="x", text=odd[0] + odd[2], title=odd[1], lang=None)
    raw = json.dumps(
        [FINGERPRINT_VERSION, "hashing", a.text, a.title, a.lang], ensure_ascii=False
    ).encode("utf-8", "surrogatepass")
    assert cache_key(a, "hashing") == hashlib.sha1(raw).hexdigest()


def test_a_hard_wrapped_texts_cache_key_is_marked_and_no_other_key_moves() -> None:
    """Docs cached before hard-wrapped texts were read in paragraphs are not reused for
    such a text; every other text keeps the key (and cached doc) it had."""
    import hashlib

    from unspin.fingerprint import FINGERPRINT_VERSION
    from unspin.model import key_json
    from unspin.store import cache_key

    def old(a: Article) -> str:
        parts = [FINGERPRINT_VERSION, "use", a.text, a.title, a.lang]
        return hashlib.sha1(key_json(parts).encode("utf-8", "surrogatepass")).hexdigest()

    plain = Article(id="p", text="One line of a paragraph.\n\nAnother paragraph here.")
    wrapped = Article(
        id="w",
        text="The bank said it filed an\napplication with the comptroller\n"
        "to create the largest network in\nthe county, the chairman said on\nMonday.\n",
    )
    assert cache_key(plain, "use") == old(plain)
    assert cache_key(wrapped, "use") != old(wrapped)


def test_a_text_with_a_german_ordinal_has_its_cache_key_marked_and_no_other() -> None:
    """Docs cached when "am 3. Oktober" was cut into two sentences, or when quotations
    in „…” or corner brackets were not read, are not reused for such a text; a text
    whose every full stop after a figure ends a sentence keeps its key."""
    import hashlib

    from unspin.fingerprint import FINGERPRINT_VERSION
    from unspin.model import key_json
    from unspin.store import cache_key

    def old(a: Article) -> str:
        parts = [FINGERPRINT_VERSION, "use", a.text, a.title, a.lang]
        return hashlib.sha1(key_json(parts).encode("utf-8", "surrogatepass")).hexdigest()

    english = Article(id="e", text="The toll rose to 12. Police said so on Monday.")
    german = Article(id="g", text="Die Wahl findet am 3. Oktober statt. Sie ist offen.")
    lower = Article(id="l", text="Valget finder sted for 3. gang. Det er åbent.")
    assert cache_key(english, "use") == old(english)
    assert cache_key(lower, "use") == old(lower)  # a lower-case word was never cut
    assert cache_key(german, "use") != old(german)
    polish = Article(id="q", text="Minister powiedział: „To jest ważna decyzja”.")
    japanese = Article(id="j", text="首相は「これは重要な決定だ」と述べた。")
    assert cache_key(polish, "use") != old(polish)
    assert cache_key(japanese, "use") != old(japanese)


def test_a_text_in_cjk_arabic_or_devanagari_letters_has_its_cache_key_marked_and_no_other() -> None:
    """Docs cached before the tagged names of Japanese, Korean and Chinese texts and the
    rare words of Arabic and Hindi ones were keys (:func:`unspin.normalise.tagged_names`,
    :func:`unspin.normalise.rare_script_words`) are not reused for such a text; a text in
    other scripts keeps its key."""
    import hashlib

    from unspin.fingerprint import FINGERPRINT_VERSION
    from unspin.model import key_json
    from unspin.store import cache_key

    def old(a: Article) -> str:
        parts = [FINGERPRINT_VERSION, "use", a.text, a.title, a.lang]
        return hashlib.sha1(key_json(parts).encode("utf-8", "surrogatepass")).hexdigest()

    marked = ("ザエフ首相が述べた", "아리아니가 말했다", "布里斯托尔的乐队", "قال زاييف")
    marked += ("ज़ाएव ने कहा", "زائف گفت که", "زائیف نے کہا")
    for text in marked:
        assert cache_key(Article(id="c", text=text), "use") != old(Article(id="c", text=text))
    # (a Greek text is marked since session 52 for its names' stems: the test below)
    for text in ("Zaev spoke on Monday.", "Заев выступил."):
        assert cache_key(Article(id="o", text=text), "use") == old(Article(id="o", text=text))


def test_a_text_with_a_month_or_weekday_of_another_language_has_its_cache_key_marked() -> None:
    """Docs cached before month and weekday names of other languages were date keys
    (:func:`unspin.fingerprint.calendar_words`) are not reused for a text that has one;
    an English text (its keys as before) keeps its key."""
    import hashlib

    from unspin.fingerprint import FINGERPRINT_VERSION
    from unspin.model import key_json
    from unspin.store import cache_key

    def old(a: Article) -> str:
        parts = [FINGERPRINT_VERSION, "use", a.text, a.title, a.lang]
        return hashlib.sha1(key_json(parts).encode("utf-8", "surrogatepass")).hexdigest()

    for text in ("Il 15 dicembre la polizia.", "El lunes habló.", "15 декабря он сказал."):
        assert cache_key(Article(id="c", text=text), "use") != old(Article(id="c", text=text))
    for text in ("On December 15, Monday, police said.", "La polizia ha parlato."):
        assert cache_key(Article(id="o", text=text), "use") == old(Article(id="o", text=text))


def test_a_german_texts_cache_key_is_marked() -> None:
    """Docs cached when a German text's common nouns were name keys are not reused; an
    English or Dutch text keeps its key."""
    import hashlib

    from unspin.fingerprint import FINGERPRINT_VERSION
    from unspin.model import key_json
    from unspin.store import cache_key

    def old(a: Article) -> str:
        parts = [FINGERPRINT_VERSION, "use", a.text, a.title, a.lang]
        return hashlib.sha1(key_json(parts).encode("utf-8", "surrogatepass")).hexdigest()

    german = Article(id="g", text="Die Polizei ermittelt nach dem Brand in einem Supermarkt.")
    assert cache_key(german, "use") != old(german)
    declared = Article(id="d", text="Police were called.", lang="de")
    assert cache_key(declared, "use") != old(declared)
    for a in (
        Article(id="e", text="Police were called to the store."),
        Article(id="n", text="De politie onderzoekt de brand in een supermarkt."),
    ):
        assert cache_key(a, "use") == old(a)


def test_a_text_whose_names_inflect_has_its_cache_key_marked() -> None:
    """Docs cached before a Russian, Polish or Turkish text's name stems were story keys
    are not reused; an English or Dutch text keeps its key."""
    import hashlib

    from unspin.fingerprint import FINGERPRINT_VERSION
    from unspin.model import key_json
    from unspin.store import cache_key

    def old(a: Article) -> str:
        parts = [FINGERPRINT_VERSION, "use", a.text, a.title, a.lang]
        return hashlib.sha1(key_json(parts).encode("utf-8", "surrogatepass")).hexdigest()

    for a in (
        Article(
            id="r",
            text="Президент России выступил вчера в Москве с новым заявлением о бюджете "
            "страны на следующий год. Депутаты Государственной думы обсудили его предложения.",
        ),
        Article(
            id="p",
            text="Prezydent wystąpił wczoraj w Warszawie z nowym oświadczeniem o budżecie "
            "państwa na przyszły rok. Posłowie Sejmu omówili jego propozycje.",
        ),
        Article(id="t", text="Police were called.", lang="tr"),
        Article(id="g", text="Ο Ζάεφ μίλησε."),
    ):
        assert cache_key(a, "use") != old(a), a.id
    for a in (
        Article(id="e", text="Police were called to the store."),
        Article(id="n", text="De politie onderzoekt de brand in een supermarkt."),
    ):
        assert cache_key(a, "use") == old(a)


def test_index_rows_of_the_same_arrays_are_not_compared_again(tmp_path, monkeypatch):
    """An add appends to the doc-vector file: rows whose docs' vectors are the arrays
    this process wrote or checked there are not compared again; a row whose doc's
    vector is another array is (equal values: appended; other values: the file written
    whole), and so is every row in a process that has not seen the file."""
    import dataclasses

    import numpy as np

    import unspin.store as us

    docs = embedded(articles())
    compared: list[int] = []
    real = np.array_equal
    monkeypatch.setattr(np, "array_equal", lambda a, b: compared.append(len(a)) or real(a, b))
    with Store(tmp_path) as st:
        st.write_index(docs[:2])  # whole
        st.write_index(docs[:3])  # appended: rows 0-1 are the arrays it wrote
        assert compared == []
        same_values = dataclasses.replace(docs[0], doc_vector=docs[0].doc_vector.copy())
        st.write_index([same_values, *docs[1:3]])  # another array in row 0: that row
        assert compared == [1]
        st.write_index([same_values, *docs[1:3]])
        assert compared == [1]
        us._INDEX_SEEN.clear()  # another process: every row compared
        st.write_index([same_values, *docs[1:3]])
        assert compared == [1, 3]
        changed = dataclasses.replace(docs[1], doc_vector=docs[1].doc_vector[::-1].copy())
        st.write_index([same_values, changed, docs[2]])  # row 1 compared, other: whole
        assert compared == [1, 3, 1]
        index, ids = st.load_index()
        got = np.stack([index.index.reconstruct(i) for i in range(3)])
        want = [same_values.doc_vector, changed.doc_vector, docs[2].doc_vector]
        assert real(got, np.stack(want)) and ids == [d.id for d in docs[:3]]
