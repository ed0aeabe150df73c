"""Table records written by hand (not ``dataclasses.asdict``, which is slow on tables
rebuilt on every add) hold every field in order, as ``asdict`` gives them."""

from __future__ import annotations

from dataclasses import asdict

from unspin.lineage import Lineage, LineageEdge, LineageNode


def test_lineage_records_equal_asdict() -> None:
    node = LineageNode("a1", "article", "Title", None, ["p"], ["a1", "a2"])
    unseen = LineageNode("src:x", "unseen_source", None, "The Post", [], [])
    edge = LineageEdge("a1", "a2", "copy", 0.123456, True, ["same text", "earlier"])
    assert node.to_record() == asdict(node)
    assert list(node.to_record()) == list(asdict(node))
    assert unseen.to_record() == asdict(unseen)
    want = {**asdict(edge), "confidence": 0.1235}
    assert edge.to_record() == want and list(edge.to_record()) == list(want)
    rec = Lineage("s1", [node, unseen], [edge]).to_record()
    assert rec == {"story": "s1", "nodes": [asdict(node), asdict(unseen)], "edges": [want]}
    # copies: a change to the record leaves the node alone
    node.to_record()["articles"].append("x")
    assert node.articles == ["a1", "a2"]


def test_story_records_equal_asdict(monkeypatch) -> None:
    """Stories of plain fields get their record built directly; others (a value of
    another type, another class, a field the direct record would not hold) through
    ``to_record``: always ``asdict``'s dict, in its order, and a copy."""
    import dataclasses

    import unspin.output as om
    from unspin.model import Story

    plain = Story("s0001", "Acme rises", ["a1", "a2"], ["a1"])
    rec = om._story_record(plain)
    assert rec == asdict(plain) and list(rec) == list(asdict(plain))
    rec["articles"].append("x")
    assert plain.articles == ["a1", "a2"]
    odd = Story("s0002", "x", ("a1",), ["a1"])  # type: ignore[arg-type]
    assert om._story_record(odd) == asdict(odd) and type(om._story_record(odd)["articles"]) is tuple

    @dataclasses.dataclass
    class Wider(Story):
        extra: int = 3

    wide = Wider("s0003", "y", ["a"], [])
    assert om._story_record(wide) == asdict(wide)
    # a field added to Story: the direct record would miss it, so it is not used
    monkeypatch.setattr(om, "_story_fields", lambda: (*om._STORY_FIELDS, "extra"))
    called = []
    monkeypatch.setattr(Story, "to_record", lambda self: called.append(1) or asdict(self))
    om._story_record(plain)
    assert called == [1]


def test_json_lines_equal_json_dumps() -> None:
    import json

    from unspin.output import _flat, _json_line

    rows = [
        {"a": "Zürich", "b": [1, 2.5, None], "c": {"x": True, "y": "naïve \u201cq\u201d"}},
        {"a": "lone \ud800 surrogate", "b": []},
        {"f": float("nan"), "g": 1e-7},
    ]
    for row in rows:
        try:
            want = json.dumps(row, ensure_ascii=False)
            want.encode("utf-8")
        except UnicodeEncodeError:
            want = json.dumps(row)
        assert _json_line(row) == want + "\n"
    assert _flat({"y": "naïve"}) == json.dumps({"y": "naïve"}, ensure_ascii=False)
    # a whole table: encoded at once, or line by line when a row is not valid Unicode
    from unspin.output import _table_bytes

    for table in (rows[:1], rows, [rows[0], rows[2]], []):
        assert _table_bytes(table) == "".join(map(_json_line, table)).encode("utf-8")


def test_parquet_cells_keep_text_and_replace_lone_surrogates() -> None:
    from unspin.output import _flat

    assert _flat("plain ascii") == "plain ascii"
    assert _flat("Zürich") == "Zürich"
    assert _flat("lone \ud800 x") == "lone ? x"
    assert _flat(3) == 3 and _flat(None) is None


def _whole_and_patched(tmp_path, old_rows, new_rows):
    """The Parquet copy of ``new_rows`` written whole, and patched from a previous
    generation holding ``old_rows`` (its JSON lines and Parquet copy written whole)."""
    import pyarrow.parquet as pq

    from unspin.output import _json_line, _write_parquet

    prev, whole, patched = (tmp_path / x for x in ("prev", "whole", "patched"))
    for d in (prev, whole, patched):
        d.mkdir(parents=True)
    (prev / "t.jsonl").write_bytes("".join(_json_line(r) for r in old_rows).encode())
    _write_parquet({"t": old_rows}, prev)
    data = "".join(_json_line(r) for r in new_rows).encode()
    _write_parquet({"t": new_rows}, whole)
    _write_parquet({"t": new_rows}, patched, prev, {"t": data})
    return pq.read_table(whole / "t.parquet"), pq.read_table(patched / "t.parquet")


def test_parquet_patched_from_the_last_generation_equals_a_whole_build(tmp_path, monkeypatch):
    """A table's Parquet copy taken from the previous generation's for its unchanged
    rows equals the one built whole (same schema, same rows in the same order), and it
    does patch: only the new rows are flattened. A change of a column's type (an int
    column given a float, an all-empty column given text, the last float row removed)
    builds it whole."""
    import unspin.output as out

    def row(k, **kw):
        base = {"id": f"r{k}", "n": k, "x": 0.5 * k, "s": None, "nested": {"k": [k, "é"]}}
        return {**base, **kw}

    old = [row(k) for k in range(40)] + [row(99, s="lone \ud800")]
    flattened: list = []
    real = out._flat
    monkeypatch.setattr(out, "_flat", lambda v: flattened.append(v) or real(v))
    cases = [
        [row(k) for k in range(40) if k not in (3, 17)] + [row(40), row(41), old[-1]],
        [old[5], old[2], *old[10:], row(200, x=None)],  # reordered, one new
        [*old, *old[:3]],  # duplicate lines
        [row(k, n=k + 0.5) if k == 0 else row(k) for k in range(40)],  # int -> float
        [row(k, s="text") if k == 1 else row(k) for k in range(40)],  # null -> str
    ]
    for k, new in enumerate(cases):
        flattened.clear()
        a, b = _whole_and_patched(tmp_path / f"c{k}", old, new)
        assert a.schema.equals(b.schema) and a.equals(b), k
        assert b.to_pylist() == a.to_pylist()
        if k == 0:  # the previous and the whole copy flatten every row (5 columns each),
            # the patched one only its 2 new rows
            assert len(flattened) == (len(old) + len(new) + 2) * 5, len(flattened)
    # the float column's only non-integral rows removed: the ints alone are int64 now
    ints = [row(k, x=k) for k in range(40)]
    floats = [*ints, row(50, x=0.25)]
    a, b = _whole_and_patched(tmp_path / "d", floats, ints[:39])
    assert a.schema.equals(b.schema) and a.equals(b)


def test_change_record_equals_asdict() -> None:
    """``Change.to_record`` (built directly) is ``dataclasses.asdict``'s dict: the same
    keys in order, spans copied as tuples or lists; other span types go through asdict."""
    from collections import namedtuple
    from dataclasses import asdict

    from unspin.model import Change

    Span = namedtuple("Span", "start end")
    for src, der in [((1, 2), None), (None, [3, 4]), ((0, 5), (6, 9)), (Span(1, 2), None)]:
        c = Change("a", "b", "quote_altered", "high", src, der, "x", "y", "d", False)
        got = c.to_record()
        assert got == asdict(c) and list(got) == list(asdict(c))
        assert [type(got[k]) for k in got] == [type(v) for v in asdict(c).values()]


def test_parquet_patched_by_census_equals_a_whole_build(tmp_path) -> None:
    """A table's Parquet copy patched with the previous generation's type census (no
    record built for a row already in the previous table) equals the copy built whole,
    through reordering, duplicated lines, a column's type widened (int -> float, null ->
    text) and narrowed (the last float row dropped: an int column again); a census that
    cannot vouch (a tuple cell) gives no patch, and the whole build is used."""
    import pyarrow.parquet as pq

    import unspin.output as out

    def row(k, **kw):
        base = {"id": f"r{k}", "n": k, "x": 0.5 * k, "s": None, "nested": {"k": [k, "é"]}}
        return {**base, **kw}

    old = [row(k) for k in range(40)] + [row(99, s="lone \ud800")]
    ints = [row(k, x=k) for k in range(40)]
    cases = [
        (old, [row(k) for k in range(40) if k not in (3, 17)] + [row(40), row(41), old[-1]]),
        (old, [old[5], old[2], *old[10:], row(200, x=None)]),
        (old, [*old, *old[:3]]),
        (old, [row(k, n=k + 0.5) if k == 0 else row(k) for k in range(40)]),
        (old, [row(k, s="text") if k == 1 else row(k) for k in range(40)]),
        ([*ints, row(50, x=0.25)], ints[:39]),
        (old, [row(k, n=(k, 1)) for k in range(40)]),
    ]
    patched_cases: list[int] = []
    for k, (before, after) in enumerate(cases):
        prev, whole, patched = (tmp_path / f"c{k}" / x for x in ("prev", "whole", "patched"))
        for d in (prev, whole, patched):
            d.mkdir(parents=True)
        rows = out._Rows.of(before)
        (prev / "t.jsonl").write_bytes(rows.data())
        census = out._write_parquet_rows({"t": (rows, None)}, prev, None, {})
        new = out._Rows.of(after)
        out._write_parquet_rows({"t": (out._Rows.of(after), None)}, whole, None, {})
        built: list[int] = []
        new.built = {}
        new.fn = lambda r, built=built: built.append(1) or r
        got = out._patched(new, new.data(), prev, "t", census["t"])
        want = pq.read_table(whole / "t.parquet")
        if k == 6:  # a tuple cell: the census cannot give the schema
            assert got is None
            continue
        if got is None:  # the schema moved (widened, or narrowed): built whole by the writer
            assert k in (3, 4, 5), k
            continue
        patched_cases.append(k)
        table, c = got
        assert table.schema.equals(want.schema) and table.equals(want), k
        assert c == out._census(after), k
        # only the rows new to the table were built
        assert len(built) == sum(line not in set(rows.lines) for line in new.lines), k
    assert {0, 1, 2, 4} <= set(patched_cases), patched_cases


def test_article_and_story_lines_kept_from_the_last_write_equal_fresh_ones(monkeypatch):
    """The articles table reuses a doc's line kept from the last write only while what
    the row reads is the same (its story, its article, its language fields), and the
    stories table a story's line only for a story of the same id, label and members:
    every table equals the one built from fresh records, and the second write builds
    only the rows that changed."""
    import dataclasses

    import unspin.model as model
    import unspin.output as out
    from unspin.model import Article, Doc, Result, Story

    def doc(k: int) -> Doc:
        a = Article(f"a{k}", f"text {k} é", title=f"T{k}", outlet="O", published_at="2024-01-02")
        return Doc(article=a, sentences=[], lang="en", lang_confidence=0.91, norm_hash=str(k))

    def tables(result: Result) -> dict[str, list[str]]:
        return {name: list(out._Rows(result, name).lines) for name in ("articles", "stories")}

    def fresh(result: Result) -> dict[str, list[str]]:
        recs = out.records(result)
        return {name: [out._json_line(r) for r in recs[name]] for name in ("articles", "stories")}

    built: list[str] = []
    real = model.article_record
    monkeypatch.setattr(out, "article_record", lambda d, s: built.append(d.id) or real(d, s))
    made: list[str] = []
    real_story = out._story_record
    monkeypatch.setattr(out, "_story_record", lambda s: made.append(s.id) or real_story(s))
    monkeypatch.setattr(out, "_STORY_LINES", {})
    docs = [doc(k) for k in range(6)]
    stories = [Story("s1", "One", ["a0", "a1"], ["a0"]), Story("s2", "Two", ["a2"], [])]
    first = Result(docs=docs, relations=[], stories=stories, errors=[])
    got = tables(first)
    assert sorted(built) == [f"a{k}" for k in range(6)] and made == ["s1", "s2"]
    assert got == fresh(first)
    # the next write: new Story objects; a2 moves story, a3's article is replaced (the
    # same doc object), a4's language is read again, a6 is new
    built.clear()
    docs[3].article = dataclasses.replace(docs[3].article, title="New")
    docs[4].lang = "de"
    docs.append(doc(6))
    stories = [
        Story("s1", "One", ["a0", "a1"], ["a0"]),
        Story("s3", "Three", ["a2", "a6"], ["a2"]),
    ]
    second = Result(docs=docs, relations=[], stories=stories, errors=[])
    made.clear()
    got = tables(second)
    assert sorted(built) == ["a2", "a3", "a4", "a6"] and made == ["s3"]
    assert got == fresh(second)
    assert '"title": "New"' in got["articles"][3] and '"lang": "de"' in got["articles"][4]
    # a story of the same id with another label or members is built again
    made.clear()
    third = Result(
        docs=docs, relations=[], stories=[Story("s1", "One!", ["a0", "a1"], ["a0"])], errors=[]
    )
    assert tables(third)["stories"] == fresh(third)["stories"] and made[0] == "s1"
