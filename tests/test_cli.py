"""Tests for the command line: files written, exit codes, --json, compare, add, --version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unspin import __version__
from unspin.cli import main
from unspin.model import SCHEMA_VERSION
from unspin.output import FILES, read_jsonl
from unspin.summary import render_summary, summarise

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "articles"
FAST = ["--embedder", "hashing"]

BRIDGE = (
    "Old river bridge to reopen in June\n\n"
    "The old river bridge in Eastwick will reopen in June, a month later than planned, "
    "the council said on Monday.\n\n"
    "Repairs to the steel frame took longer than expected because of the cold winter, "
    "according to the works manager, Petra Lind.\n\n"
    "Commuters have used a small ferry since the bridge closed last autumn.\n"
)
COPY = BRIDGE.replace("on Monday", "on Monday morning") + "\nReporting by a wire service.\n"
OTHER = (
    "Library extends weekend hours\n\n"
    "The central library in Eastwick will stay open until eight on Saturdays from next "
    "month, after a petition signed by more than two thousand residents.\n\n"
    "The extra hours are paid for by a grant from the regional arts fund.\n"
)


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def pairs(out: Path) -> set[tuple[str, str, str]]:
    return {(r["a"], r["b"], r["relation"]) for r in read_jsonl(out / "relations.jsonl")}


@pytest.fixture
def small(tmp_path: Path) -> Path:
    folder = tmp_path / "in"
    write(folder, "bridge.txt", BRIDGE)
    write(folder, "bridge-copy.txt", COPY)
    write(folder, "library.txt", OTHER)
    return folder


def test_scan_writes_all_files_and_exits_0(small, tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["scan", str(small), "--out", str(out), *FAST]) == 0
    for name in FILES:
        assert (out / f"{name}.jsonl").is_file()
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["counts"]["articles"] == 3
    # the full config (fitted weights included) and the versions behind the results
    from unspin.classify import ClassifyParams

    assert manifest["config"]["embedder"] == "hashing"
    weights = manifest["config"]["classify"]["whole_weights"]
    assert weights == list(ClassifyParams().whole_weights)
    assert manifest["config"]["stories"]["max_gap_days"] == 14
    assert manifest["versions"]["numpy"] and manifest["versions"]["python"]
    assert (out / ".unspin").is_dir()
    ids = {r["id"] for r in read_jsonl(out / "articles.jsonl")}
    assert ids == {"bridge", "bridge-copy", "library"}
    assert read_jsonl(out / "errors.jsonl") == []
    captured = capsys.readouterr()
    assert "bridge" in captured.out  # the summary
    assert str(out) in captured.err  # where results went
    assert "0 input errors" in captured.err


def test_no_store_and_quiet(small, tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["scan", str(small), "--out", str(out), "--no-store", "--quiet", *FAST]) == 0
    assert not (out / ".unspin").exists()
    assert (out / "relations.jsonl").is_file()
    assert capsys.readouterr().out == ""


def test_skipped_input_exits_3_and_is_named(small, tmp_path, capsys):
    empty = write(tmp_path / "bad", "empty.txt", "   \n")
    out = tmp_path / "res"
    code = main(["scan", str(small / "bridge.txt"), str(empty), "--out", str(out), *FAST])
    assert code == 3
    errors = read_jsonl(out / "errors.jsonl")
    assert [(e["input"], e["severity"]) for e in errors] == [(str(empty), "error")]
    assert [r["id"] for r in read_jsonl(out / "articles.jsonl")] == ["bridge"]
    err = capsys.readouterr().err
    assert "1 input error" in err and str(empty) in err and "empty text" in err


def test_missing_path_is_an_input_error(small, tmp_path, capsys):
    out = tmp_path / "res"
    missing = tmp_path / "nope.txt"
    assert main(["scan", str(small), str(missing), "--out", str(out), *FAST]) == 3
    errors = read_jsonl(out / "errors.jsonl")
    assert errors[0]["input"] == str(missing)
    assert "no such file" in errors[0]["reason"]


@pytest.mark.parametrize(
    "option",
    [
        ["--field", "foo"],  # no "="
        ["--field", "headline=title"],  # not one of our fields
        ["--max-chars", "0"],
        ["--encoding", "no-such-codec"],
        ["--embedder", "nope"],
    ],
)
def test_bad_option_exits_2(small, tmp_path, capsys, option):
    out = tmp_path / "res"
    assert main(["scan", str(small), "--out", str(out), *FAST, *option]) == 2
    assert not out.exists()
    assert "error" in capsys.readouterr().err


def test_field_mapping(tmp_path, capsys):
    records = [
        {"key": "r1", "body": BRIDGE, "paper": "Eastwick Post"},
        {"key": "r2", "body": OTHER, "paper": "Eastwick Post"},
    ]
    src = write(tmp_path, "feed.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "res"
    argv = ["scan", str(src), "--out", str(out), *FAST, "-q"]
    argv += ["--field", "id=key", "--field", "text=body", "--field", "outlet=paper"]
    assert main(argv) == 0
    arts = read_jsonl(out / "articles.jsonl")
    assert {a["id"] for a in arts} == {"r1", "r2"}
    assert {a["outlet"] for a in arts} == {"Eastwick Post"}


def test_json_prints_relations_as_json_lines(small, tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["scan", str(small), "--out", str(out), "--json", *FAST]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    printed = [json.loads(line) for line in lines]
    assert printed == read_jsonl(out / "relations.jsonl")
    assert ("bridge", "bridge-copy") in {(r["a"], r["b"]) for r in printed}


def test_compare_shows_both_passages(capsys):
    a = EXAMPLES / "gazette-ferry-strike.txt"
    b = EXAMPLES / "coastline-ferry-strike-wire.txt"
    assert main(["compare", str(a), str(b), *FAST]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "copy" in out or "duplicate" in out
    assert "direction:" in out and "coverage" in out
    assert "coastline-ferry-strike-wire" in out and "gazette-ferry-strike" in out
    # the passages shown are the aligned spans of both texts (checked on the JSON record,
    # since the side-by-side table wraps its columns)
    assert main(["compare", str(a), str(b), *FAST, "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    texts = {p.stem: p.read_text(encoding="utf-8") for p in (a, b)}
    left = " ".join(texts[rec["a"]][x["a_start"] : x["a_end"]] for x in rec["alignment"])
    right = " ".join(texts[rec["b"]][x["b_start"] : x["b_end"]] for x in rec["alignment"])
    for side in (left, right):
        assert "The strike follows four months of talks" in side
        assert "Mayor Lena Okafor urged both sides" in side
        assert "READ MORE" not in side  # boilerplate is kept out of the evidence


def test_compare_json_and_offsets(capsys):
    a = EXAMPLES / "gazette-ferry-strike.txt"
    b = EXAMPLES / "coastline-ferry-strike-wire.txt"
    assert main(["compare", str(a), str(b), "--json", *FAST]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert (rec["a"], rec["b"]) == ("coastline-ferry-strike-wire", "gazette-ferry-strike")
    text = {p.stem: p.read_text(encoding="utf-8") for p in (a, b)}
    first = rec["alignment"][0]
    span_a = text[rec["a"]][first["a_start"] : first["a_end"]]
    span_b = text[rec["b"]][first["b_start"] : first["b_end"]]
    assert span_a.split()[:3] == span_b.split()[:3]


def test_compare_missing_file_exits_3(tmp_path, capsys):
    assert main(["compare", str(EXAMPLES / "gazette-school-roof.txt"), str(tmp_path / "x")]) == 3
    assert "no such file" in capsys.readouterr().err


def test_add_after_scan_equals_one_scan(tmp_path, capsys):
    files = sorted(EXAMPLES.glob("*.txt"))
    first, rest = files[:6], files[6:]
    full, split = tmp_path / "full", tmp_path / "split"
    assert main(["scan", *map(str, files), "--out", str(full), "-q", *FAST]) == 0
    assert main(["scan", *map(str, first), "--out", str(split), "-q", *FAST]) == 0
    assert main(["add", *map(str, rest), "--out", str(split), "-q", *FAST]) == 0
    assert pairs(split) == pairs(full)
    ids = lambda d: sorted(r["id"] for r in read_jsonl(d / "articles.jsonl"))  # noqa: E731
    assert ids(split) == ids(full)


def test_add_without_scan_exits_2(small, tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["add", str(small), "--out", str(out), *FAST]) == 2
    assert "no earlier scan" in capsys.readouterr().err
    assert not out.exists()


def test_version_and_help(capsys):
    assert main(["--version"]) == 0
    assert __version__ in capsys.readouterr().out
    assert main(["--help"]) == 0
    helptext = capsys.readouterr().out
    assert "exit codes" in helptext and "3  some inputs were skipped" in helptext
    assert main([]) == 2


def test_summary_tree_on_examples(tmp_path, capsys):
    out = tmp_path / "res"
    assert main(["scan", str(EXAMPLES), "--out", str(out), *FAST]) == 0
    text = capsys.readouterr().out
    assert "duplicate" in text and "relations:" in text
    for line in text.splitlines():
        assert len(line) <= 100
    # every article appears exactly once as a tree node
    import unspin
    from unspin.pipeline import Config

    result = unspin.scan([EXAMPLES], config=Config(embedder="hashing"))
    summary = summarise(result)

    def walk(nodes):
        for n in nodes:
            yield n.id
            yield from walk(n.children)

    placed = [a for s in summary.stories for a in walk(s.roots)]
    assert sorted(placed) == sorted(d.id for d in result.docs)
    assert render_summary(summary) is not None


def test_unexpected_failure_exits_1(small, tmp_path, capsys, monkeypatch):
    import unspin

    def boom(*args, **kwargs):
        raise RuntimeError("simulated crash")

    monkeypatch.setattr(unspin, "scan", boom)
    assert main(["scan", str(small), "--out", str(tmp_path / "res"), *FAST]) == 1
    err = capsys.readouterr().err
    assert "unexpected failure" in err and "simulated crash" in err


def test_corrupt_store_exits_1_with_message(small, tmp_path, capsys):
    out = tmp_path / "res"
    (out / ".unspin").mkdir(parents=True)
    (out / ".unspin" / "store.sqlite").write_bytes(b"this is not a database" * 100)
    assert main(["scan", str(small), "--out", str(out), *FAST]) == 1
    assert "delete the folder" in capsys.readouterr().err


def test_summary_lineage_from_plain_data():
    from rich.console import Console

    from unspin.model import Relation, Result, Story

    rels = [
        Relation("orig", "wire", "copy", 0.9, source="orig", derivative="wire"),
        Relation("blog", "orig", "partial", 0.7, source="orig", derivative="blog"),
        Relation("blog", "wire", "partial", 0.6, source="wire", derivative="blog"),
        Relation("dup1", "dup2", "duplicate", 0.99, direction_reason="undecided"),
        Relation("indep", "orig", "same_story", 0.95),
    ]
    stories = [
        Story("s0001", "Ferry strike", ["orig", "wire", "blog", "indep"], ["orig", "indep"]),
        Story("s0002", "Bridge vote", ["dup1", "dup2"], ["dup1", "dup2"]),
    ]
    summary = summarise(Result(docs=[], relations=rels, stories=stories, errors=[]))
    first, second = summary.stories
    assert [n.id for n in first.roots] == ["orig", "indep"]
    orig, indep = first.roots
    assert indep.independent and not orig.independent
    assert [(c.id, c.link.relation) for c in orig.children] == [
        ("wire", "copy"),
        ("blog", "partial"),
    ]
    blog = orig.children[1]
    assert [(x.other, x.from_other) for x in blog.also] == [("wire", True)]
    (dup1,) = second.roots
    assert dup1.id == "dup1" and dup1.children[0].link.directed is False
    console = Console(width=100, record=True)
    console.print(render_summary(summary))
    text = console.export_text()
    assert "duplicate ? (0.99)" in text and "direction undecided" in text
    assert "independent" in text and "relations: 1 duplicate, 1 copy, 2 partial" in text


def test_summary_reads_each_relation_once_not_once_per_story(monkeypatch):
    # the summary of a large pile indexes the reuse relations by article: ranking them by
    # strength once, not once per story (19,043 Reuters articles in 15,623 stories took
    # ~10 min to summarise when every story sorted every relation)
    import unspin.summary as summary_mod
    from unspin.model import Relation, Result, Story

    calls = {"n": 0}
    real = summary_mod._strength_any

    def counting(r):
        calls["n"] += 1
        return real(r)

    monkeypatch.setattr(summary_mod, "_strength_any", counting)
    rels, stories = [], []
    for k in range(60):
        a, b, c = f"a{k}", f"b{k}", f"c{k}"
        rels.append(Relation(a, b, "copy", 0.9, source=a, derivative=b))
        rels.append(Relation(b, c, "spun", 0.8, source=b, derivative=c))
        rels.append(Relation(a, c, "same_story", 0.7))
        if k:  # a reuse link to the story before: an "also" line
            rels.append(Relation(c, f"a{k - 1}", "partial", 0.5))
        stories.append(Story(f"s{k:04d}", f"story {k}", [a, b, c], [a]))
    summary = summarise(Result(docs=[], relations=rels, stories=stories, errors=[]))
    reuse = sum(r.relation != "same_story" for r in rels)
    assert calls["n"] <= reuse
    # and each story still gets its own tree and its links to other stories
    first = next(s for s in summary.stories if s.id == "s0001")
    (root,) = [n for n in first.roots if n.id == "a1"]
    assert [c.id for c in root.children] == ["b1"]
    assert [c.id for c in root.children[0].children] == ["c1"]
    c1 = root.children[0].children[0]
    assert [(x.other, x.other_story) for x in c1.also] == [("a0", "s0000")]
    a1_also = [(x.other, x.other_story) for x in root.also]
    assert a1_also == [("c2", "s0002")]
