"""Hostile input, crash leftovers, permissions and terminal safety (issue 13).

Each test names the row of the issue's "what happens now" table it answers; each fails
on the behaviour that row describes. Kill loops, concurrent writers, property-based
and fuzz tests are in test_kill.py, test_concurrency.py, test_properties.py and
test_fuzz.py.
"""

from __future__ import annotations

import gzip
import json
import os
import stat
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import unspin
from unspin.cli import main
from unspin.ingest import READ_CHUNK, IngestOptions, read_file, read_paths
from unspin.model import Article
from unspin.output import FILES, read_tables, results_folder
from unspin.pipeline import Config

HASHING = Config(embedder="hashing")
STORY = (
    "Ferry crews walk out over pay\n\n"
    "Ferry crews at the harbour walked out on Monday after talks on pay broke down, the "
    "union said. Services to the islands were cancelled for the day.\n"
)
OTHER = (
    "School roof repairs delayed\n\n"
    "Repairs to the roof of the village school will not finish before the spring term, "
    "the council said on Tuesday.\n"
)


def jsonl(*records: object) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def errors_of(errs, severity="error"):
    return [e for e in errs if e.severity == severity]


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# --- row: 20,000 sentences on one line --------------------------------------------------


def test_sentence_splitting_is_linear_in_the_line() -> None:
    """Was: the abbreviation check read the whole paragraph before every full stop
    (325 KB: 162 s). 20,000 sentences on one line now split in well under the old time:
    the bound is a hang detector, not a speed target (bench/robustness.py measures)."""
    from unspin.normalise import split_sentences

    line = " ".join(f"Word{i % 97} said so. Mr. Smith agreed." for i in range(10_000))
    start = time.perf_counter()
    spans = split_sentences("Title\n" + line)
    took = time.perf_counter() - start
    assert len(spans) == 1 + 20_000  # "Mr." is not a sentence end
    assert took < 20, f"split took {took:.1f} s"


def test_abbreviation_look_behind_is_bounded(monkeypatch) -> None:
    """The check reads at most ABBREV_LOOKBEHIND characters before a full stop."""
    from unspin import normalise

    seen: list[int] = []
    real = normalise.re.search

    def spy(pattern, string, *a, **k):
        if pattern == r"([\w.]+)$":
            seen.append(len(string))
        return real(pattern, string, *a, **k)

    monkeypatch.setattr(normalise.re, "search", spy)
    normalise.split_sentences("A sentence here. " * 2000)
    assert seen and max(seen) <= normalise.ABBREV_LOOKBEHIND


# --- row: two near-copies of 2,000 lines --------------------------------------------------


def _doc(lines: list[str]):
    """A doc of these lines, all of them kept (no sentence cap: the tests of the long-pair
    scorer need more sentences than ``FingerprintParams.max_sentences``)."""
    from unspin.embed import get_embedder
    from unspin.fingerprint import FingerprintParams, embed_docs, prepare

    d = prepare(
        Article(id=str(len(lines)) + lines[0][:5], text="\n".join(lines)),
        FingerprintParams(max_sentences=1_000_000),
    )
    embed_docs([d], get_embedder("hashing"))
    return d


def test_long_pairs_align_blocked_without_n_times_m_matrices(monkeypatch) -> None:
    """Was: quadratic time and memory in sentences (2,000 lines: 77 s, 706 MB). Above
    AlignParams.max_cells no n x m matrix is built, and the alignment still finds the
    copied lines."""
    from unspin import align as align_mod

    lines = [f"Item {i} of the council report was approved today." for i in range(1500)]
    changed = [x.replace("today", "on Monday") if i % 7 == 0 else x for i, x in enumerate(lines)]
    a, b = _doc(lines), _doc(changed)

    def no_dense(*args, **kw):
        raise AssertionError("dense n x m scoring used for two long texts")

    monkeypatch.setattr(align_mod, "_Dense", no_dense)
    start = time.perf_counter()
    al = align_mod.align(a, b)
    assert time.perf_counter() - start < 60
    assert al.features["cov_a"] > 0.9 and al.features["cov_b"] > 0.9


def test_blocked_alignment_equals_dense_on_articles() -> None:
    """The blocked path (forced with max_cells=1) gives the dense path's passages on
    article-length texts: the cap changes nothing for normal articles."""
    from unspin.align import AlignParams, align
    from unspin.ingest import read_paths
    from unspin.pipeline import fingerprint

    ex = Path(__file__).resolve().parent.parent / "examples" / "articles"
    arts, _ = read_paths([ex])
    docs = {d.id: d for d in fingerprint(arts, HASHING)}
    pairs = [
        ("gazette-ferry-strike", "spin-ferry-strike"),
        ("gazette-ferry-strike", "gazette-ferry-strike-partial"),
        ("coastline-bridge-vote", "coastline-bridge-vote-dup"),
        ("gazette-ferry-strike", "northgate-ferry-strike"),
    ]
    found = 0
    for x, y in pairs:
        dense = align(docs[x], docs[y])
        blocked = align(docs[x], docs[y], AlignParams(max_cells=1))
        found += len(dense.passages)
        key = lambda al: [  # noqa: E731
            (p.a_sentences, p.b_sentences, p.quote_only, p.template) for p in al.passages
        ]
        assert key(dense) == key(blocked)
        scores = lambda al: [(p.score, p.semantic, p.lexical) for p in al.passages]  # noqa: E731
        assert np.allclose(scores(dense), scores(blocked), atol=1e-5)
        assert dense.features == pytest.approx(blocked.features, abs=1e-5)
    assert found >= 3


def test_changes_of_long_templated_copies_are_bounded() -> None:
    """Repeated near-identical lines matched everywhere no longer make one unit of the
    whole text (the word diff of it took > 15 minutes for 2,000 lines)."""
    from unspin.changes import MAX_UNIT_SPAN, _groups

    edges = [(i, j) for i in range(300) for j in range(max(0, i - 2), min(300, i + 3))]
    groups = _groups(edges)
    assert all(len(si) == 1 and len(dj) == 1 for si, dj in groups)
    assert len(groups) == 300
    small = [(0, 0), (1, 1), (1, 2), (5, 7)]
    assert _groups(small) == [([0], [0]), ([1], [1, 2]), ([5], [7])]
    assert MAX_UNIT_SPAN > 2


# --- row: gzip bomb ---------------------------------------------------------------------


def test_gzip_bomb_is_refused_while_inflating(tmp_path: Path) -> None:
    """Was: decompressed whole before the size check (6.7 MB -> 1.2 GB: 8.45 GB RAM).
    Now memory stays a few read chunks whatever the inflated size."""
    bomb = tmp_path / "bomb.txt.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as fh:
        block = b"a" * (1 << 20)
        for _ in range(64):
            fh.write(block)
    opts = IngestOptions(max_file_bytes=8 << 20, max_record_bytes=4 << 20)
    tracemalloc.start()
    arts, errs = read_file(bomb, opts)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert arts == []
    assert "too large" in errs[0].reason
    assert peak < 4 * READ_CHUNK + (4 << 20) * 2, peak


def test_gzip_bomb_in_jsonl_keeps_the_records_before_the_limit(tmp_path: Path) -> None:
    f = tmp_path / "feed.jsonl.gz"
    with gzip.open(f, "wb") as fh:
        fh.write(jsonl({"id": "a", "text": STORY}, {"id": "b", "text": OTHER}))
        fh.write(b"x" * (20 << 20))
    arts, errs = read_file(f, IngestOptions(max_file_bytes=4 << 20, max_record_bytes=1 << 20))
    assert [a.id for a in arts] == ["a", "b"]
    (e,) = errs
    assert e.location == "line 3" and "file too large" in e.reason


def test_record_count_is_bounded(tmp_path: Path) -> None:
    f = tmp_path / "many.jsonl.gz"
    f.write_bytes(gzip.compress(b'{"text": "x"}\n' * 5000))
    arts, errs = read_file(f, IngestOptions(max_records=1000))
    assert len(arts) == 1000
    (e,) = errs
    assert e.location == "line 1001" and "more than 1,000 records" in e.reason


def test_truncated_gzip_keeps_what_was_read_and_says_so(tmp_path: Path) -> None:
    data = gzip.compress(jsonl(*({"id": f"r{i}", "text": f"Story {i}."} for i in range(2000))))
    f = tmp_path / "cut.jsonl.gz"
    f.write_bytes(data[: len(data) // 2])
    arts, errs = read_file(f)
    assert 0 < len(arts) < 2000
    assert any("truncated gzip" in e.reason for e in errs_only(errs))


def errs_only(errs):
    return errors_of(errs)


# --- row: a FIFO in an input folder; /dev/zero as input -----------------------------------


def _within(seconds: float, fn):
    box: dict = {}
    t = threading.Thread(target=lambda: box.setdefault("v", fn()), daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "reading hung"
    return box["v"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_in_folder_is_refused_not_read(tmp_path: Path) -> None:
    """Was: hangs (a FIFO blocks until someone writes)."""
    (tmp_path / "ok.txt").write_text(STORY)
    os.mkfifo(tmp_path / "pipe.txt")
    arts, errs = _within(10, lambda: read_paths([tmp_path]))
    assert [a.id for a in arts] == ["ok"]
    (e,) = errs
    assert e.input.endswith("pipe.txt") and "not a regular file" in e.reason
    assert "FIFO" in e.reason


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_device_as_input_is_refused() -> None:
    """Was: reads /dev/zero until memory runs out."""
    arts, errs = _within(10, lambda: read_paths(["/dev/zero"]))
    assert arts == []
    assert "not a regular file but a character device" in errs[0].reason


# --- row: JSON nested 1,000 levels ----------------------------------------------------------

DEEP = "[" * 1000 + "]" * 1000


def test_deeply_nested_json_file_is_one_error_and_the_rest_is_read(tmp_path: Path) -> None:
    """Was: RecursionError, the whole run failed and nothing was written."""
    (tmp_path / "deep.json").write_text(DEEP)
    (tmp_path / "deep2.json").write_text('{"id": "x", "text": ' + DEEP + "}")
    (tmp_path / "ok.txt").write_text(STORY)
    arts, errs = read_paths([tmp_path])
    assert [a.id for a in arts] == ["ok"]
    assert len(errors_of(errs)) == 2
    assert all("could not be read" not in e.reason for e in errs)


def test_deeply_nested_jsonl_line_and_field(tmp_path: Path) -> None:
    f = tmp_path / "feed.jsonl"
    deep_field = "{" + '"a":' * 0 + '"id": "b", "text": "Two.", "extra": ' + DEEP + "}"
    nested_100 = {"id": "c", "text": "Three.", "extra": json.loads("[" * 100 + "]" * 100)}
    f.write_bytes(
        jsonl({"id": "a", "text": "One."})
        + deep_field.encode()
        + b"\n"
        + DEEP.encode()
        + b"\n"
        + jsonl(nested_100)
    )
    arts, errs = read_file(f)
    assert [a.id for a in arts] == ["a", "c"]  # c's deep field dropped, c kept
    assert "extra" not in arts[1].meta
    locs = {e.location: e for e in errs}
    assert set(locs) == {"line 2", "line 3", "line 4"}
    assert locs["line 4"].severity == "warning"


def test_deep_json_through_the_whole_scan_and_compare(tmp_path: Path, capsys) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "deep.jsonl").write_text(
        json.dumps({"id": "d", "text": STORY, "meta": json.loads("[" * 70 + "]" * 70)})
        + "\n"
        + DEEP
        + "\n"
    )
    (tmp_path / "in" / "ok.txt").write_text(OTHER)
    code, _, err = run_cli(
        ["scan", str(tmp_path / "in"), "--out", str(tmp_path / "o"), "-q", "--embedder", "hashing"],
        capsys,
    )
    assert code == 3, err
    ids = {r["id"] for r in read_tables(tmp_path / "o")["articles"]}
    assert ids == {"d", "ok"}
    (tmp_path / "deep.json").write_text(DEEP)
    code, _, err = run_cli(
        ["compare", str(tmp_path / "deep.json"), str(tmp_path / "in" / "ok.txt")], capsys
    )
    assert code == 3 and "nested too deeply" in err


# --- row: a lone surrogate --------------------------------------------------------------------


def test_lone_surrogate_in_text_and_title(tmp_path: Path, capsys) -> None:
    """Was: UnicodeEncodeError, the whole run failed, with a message to delete the store;
    --no-store left articles.jsonl.tmp behind."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "s.jsonl").write_text(
        '{"id": "s1", "title": "Bad \\ud800 title", "text": "Ferry \\udfff crews walk out '
        'over pay. The union said talks broke down."}\n'
        + json.dumps({"id": "s2", "text": OTHER})
        + "\n"
    )
    for extra in ([], ["--no-store"]):
        out = tmp_path / f"o{len(extra)}"
        code, _, err = run_cli(
            ["scan", str(tmp_path / "in"), "--out", str(out), "-q", "--embedder", "hashing"]
            + extra,
            capsys,
        )
        assert code == 0, err
        arts = {r["id"]: r for r in read_tables(out)["articles"]}
        assert set(arts) == {"s1", "s2"}
        assert "\ufffd" in arts["s1"]["title"]
        leftovers = [p for p in out.rglob("*") if p.name.endswith(".tmp")]
        assert leftovers == []
        assert "delete" not in err


def test_api_article_with_lone_surrogate_is_written(tmp_path: Path) -> None:
    """Articles handed to the API skip ingest; the writers still cope."""
    a = Article(id="x\udcff", text="Ferry crews \ud800 walk out over pay today.", title="T")
    b = Article(id="y", text=STORY)
    out = tmp_path / "o"
    (tmp_path / "z.txt").write_text(OTHER)
    unspin.scan([tmp_path / "z.txt"], out=out, config=HASHING)
    unspin.add([a, b], out=out, config=HASHING)
    ids = {r["id"] for r in read_tables(out)["articles"]}
    assert ids == {"x\ufffd", "y", "z"}


# --- row: symlinked or unreadable sub-folder ----------------------------------------------------


def test_symlinked_subfolder_is_reported(tmp_path: Path, capsys) -> None:
    """Was: skipped with no record (11 articles gone, exit 0)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.txt").write_text(STORY)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "b.txt").write_text(OTHER)
    (tmp_path / "in" / "linked").symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / "in" / "file-link.txt").symlink_to(elsewhere / "a.txt")
    arts, errs = read_paths([tmp_path / "in"])
    assert [a.id for a in arts] == ["b"]
    reasons = sorted(e.reason.split(":")[0] for e in errs)
    assert reasons == [
        "symbolic link to a file inside a folder",
        "symbolic link to a folder inside a folder",
    ]
    code, _, _ = run_cli(
        ["scan", str(tmp_path / "in"), "--out", str(tmp_path / "o"), "-q", "--embedder", "hashing"],
        capsys,
    )
    assert code == 3


def test_unreadable_subfolder_is_reported(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "in" / "locked").mkdir(parents=True)
    (tmp_path / "in" / "locked" / "x.txt").write_text(STORY)
    (tmp_path / "in" / "b.txt").write_text(OTHER)
    if os.geteuid() != 0:
        os.chmod(tmp_path / "in" / "locked", 0)
    else:  # root reads anything: make the folder fail as an unreadable one does
        real = os.scandir

        def scandir(path=".", *a):
            if str(path).endswith("locked"):
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *a)

        monkeypatch.setattr(os, "scandir", scandir)
    try:
        arts, errs = read_paths([tmp_path / "in"])
    finally:
        os.chmod(tmp_path / "in" / "locked", 0o700)
    assert [a.id for a in arts] == ["b"]
    (e,) = errs
    assert e.input.endswith("locked") and e.reason == "cannot read folder: Permission denied"
    assert e.severity == "error"


# --- row: one stray non-UTF-8 byte; one NUL byte ----------------------------------------------


def test_stray_byte_is_replaced_in_its_line_only(tmp_path: Path) -> None:
    """Was: the whole file decoded in a guessed code page (every £ -> ┬ú)."""
    lines = [
        json.dumps({"id": f"r{i}", "text": f"Tickets cost £{i} more."}, ensure_ascii=False)
        for i in range(20)
    ]
    raw = "\n".join(lines).encode("utf-8").replace(b"Tickets cost \xc2\xa35 ", b"Ti\xffckets cost ")
    f = tmp_path / "feed.jsonl"
    f.write_bytes(raw + b"\n")
    arts, errs = read_file(f)
    assert len(arts) == 20
    assert [a.text for a in arts if a.id != "r5"] == [
        f"Tickets cost £{i} more." for i in range(20) if i != 5
    ]
    assert arts[5].text.startswith("Ti\ufffdckets")
    (w,) = errs
    assert (w.location, w.severity) == ("line 6", "warning")
    assert "replaced with U+FFFD" in w.reason


def test_one_nul_byte_costs_its_line_only(tmp_path: Path) -> None:
    """Was: all the file's good records dropped under one file-level error."""
    good = [json.dumps({"id": f"r{i}", "text": f"Story number {i}."}) for i in range(10)]
    good[4] = good[4].replace("Story", "St\x00ory")
    f = tmp_path / "feed.jsonl"
    f.write_text("\n".join(good) + "\n")
    arts, errs = read_file(f)
    assert [a.id for a in arts] == [f"r{i}" for i in range(10) if i != 4]
    (e,) = errs
    assert e.location == "line 5" and e.severity == "error"


def test_nul_in_text_file_is_replaced_with_a_warning(tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_bytes(STORY.encode().replace(b"walked", b"wal\x00ked"))
    (a,), errs = read_file(f)
    assert "wal\ufffdked" in a.text and len(a.text) == len(STORY) + 1
    assert errs[0].severity == "warning" and "U+0000" in errs[0].reason


# --- row: ids, titles and file names with ESC sequences -----------------------------------------

ESC = "\x1b]52;c;cHduZWQ=\x07\x1b[2J"  # clipboard write, then clear screen


def test_control_characters_are_escaped_when_printed(tmp_path: Path, capsys) -> None:
    """Was: raw terminal control codes printed (clear screen, clipboard write)."""
    src = tmp_path / "in"
    src.mkdir()
    (src / f"evil{ESC}name.txt").write_text(f"Title {ESC}\u202e here\n\n" + STORY[30:])
    (src / "feed.jsonl").write_text(
        json.dumps({"id": f"id{ESC}", "title": f"T{ESC}", "text": STORY})
        + "\n"
        + json.dumps({"id": "bad\x1b[31m", "text": ""})
        + "\n"
    )
    code, out, err = run_cli(
        ["scan", str(src), "--out", str(tmp_path / "o"), "--embedder", "hashing"], capsys
    )
    assert code == 3
    for stream in (out, err):
        assert "\x1b" not in stream and "\x07" not in stream and "\u202e" not in stream
    assert "\\x1b" in out + err
    code, out, err = run_cli(
        ["scan", str(src), "--out", str(tmp_path / "o"), "--embedder", "hashing", "--json"],
        capsys,
    )
    assert "\x1b" not in out and "\u202e" not in out
    for line in out.splitlines():
        json.loads(line)
    files = sorted(src.iterdir())
    code, out, err = run_cli(
        ["compare", str(files[0]), str(files[1]), "--embedder", "hashing"], capsys
    )
    assert code == 0
    assert "\x1b" not in out + err and "\u202e" not in out + err


def test_safe_escapes_every_control_character() -> None:
    from unspin.summary import safe

    for c in [chr(x) for x in range(32)] + ["\x7f", "\x9b", "\u202e", "\u2066", "\ud800"]:
        assert c not in safe(f"a{c}b")
    assert safe("line\nbreak", newlines=True) == "line\nbreak"
    assert safe("plain ascii, émoji 😀, עברית") == "plain ascii, émoji 😀, עברית"


# --- row: HTML page metadata with markup ------------------------------------------------------


def test_html_metadata_is_text_not_markup(tmp_path: Path) -> None:
    """Was: ``outlet`` held raw ``<Script>…</Script>``."""
    page = (
        "<html><head><title>Bridge &amp; <b>tunnel</b> news</title>"
        '<meta property="og:site_name" content="Daily &lt;Script&gt;alert(1)&lt;/Script&gt;'
        ' Example"></head><body><article><p>'
        + "The old river bridge will reopen in June, a month later than planned. " * 5
        + "</p></article></body></html>"
    )
    (tmp_path / "p.html").write_text(page)
    (a,), _ = read_paths([tmp_path / "p.html"])
    for value in (a.title, a.outlet):
        assert value is not None and "<" not in value and ">" not in value
    assert "alert(1)" not in (a.outlet or "")
    assert a.title == "Bridge & tunnel news"


# --- row: unspin quotes on a results file with an extra field -----------------------------------


def test_quotes_command_ignores_unknown_fields(tmp_path: Path, capsys) -> None:
    """Was: a crash (QuoteGroup(**record) with a field it does not know)."""
    out = tmp_path / "o"
    code, _, _ = run_cli(
        [
            "scan",
            str(Path(__file__).resolve().parent.parent / "examples" / "articles"),
            "--out",
            str(out),
            "-q",
            "--embedder",
            "hashing",
        ],
        capsys,
    )
    assert code == 0
    base = results_folder(out)
    rows = [json.loads(x) for x in (base / "quotes.jsonl").read_text().splitlines()]
    assert rows, "the examples carry shared quotations"
    extra = [
        {**r, "new_field": 1, "variants": [{**v, "x\x1b": 2} for v in r["variants"]]} for r in rows
    ]
    rows[0]["text"] = "\x1b[2J" + rows[0]["text"]
    path = base / "quotes.jsonl"
    os.chmod(path, 0o600)
    path.write_text("".join(json.dumps(r) + "\n" for r in extra))
    code, printed, err = run_cli(["quotes", str(out)], capsys)
    assert code == 0, err
    assert "\x1b" not in printed


# --- row: store permissions ---------------------------------------------------------------------


def test_store_and_results_are_owner_only(tmp_path: Path) -> None:
    """Was: .unspin/ and store.sqlite followed the umask (0755/0644): world-readable."""
    old = os.umask(0o022)
    try:
        out = tmp_path / "o"
        src = tmp_path / "in"
        src.mkdir()
        (src / "a.txt").write_text(STORY)
        (src / "b.txt").write_text(OTHER)
        unspin.scan([src], out=out, config=HASHING)
    finally:
        os.umask(old)
    for p in [out, *out.rglob("*")]:
        if p.is_symlink():
            continue
        mode = stat.S_IMODE(p.stat().st_mode)
        want = 0o700 if p.is_dir() else 0o600
        assert mode == want, f"{p}: {oct(mode)}"
    assert (out / ".unspin" / "store.sqlite").exists()


# --- row: kill -9 at a rename; leftovers of a killed writer ------------------------------------


def _scanned(tmp_path: Path) -> tuple[Path, Path]:
    """An input folder holding one story, scanned into a results folder (``hashing``)."""
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text(STORY)
    out = tmp_path / "o"
    unspin.scan([src], out=out, config=HASHING)
    return src, out


def test_results_are_one_generation_behind_one_pointer(tmp_path: Path) -> None:
    src, out = _scanned(tmp_path)
    first = results_folder(out)
    (src / "b.txt").write_text(OTHER)
    unspin.scan([src], out=out, config=HASHING)
    second = results_folder(out)
    assert first != second and (out / "current").is_symlink()
    for name in FILES:
        link = out / f"{name}.jsonl"
        assert link.is_symlink() and link.resolve().parent == second.resolve()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["generation"] == second.name
    assert {r["id"] for r in read_tables(out)["articles"]} == {"a", "b"}


def test_unchanged_tables_are_linked_from_the_last_generation(tmp_path: Path) -> None:
    """A table whose lines are the previous generation's is the same file (a hard link,
    with its Parquet copy); a changed one is written anew; either way each generation
    reads whole, and pruning the older one leaves the linked files readable."""
    from unspin.output import KEEP_GENERATIONS

    src, out = _scanned(tmp_path)
    first = results_folder(out)
    before = read_tables(out)
    (src / "b.txt").write_text(OTHER)  # an unrelated article: articles and stories change
    unspin.scan([src], out=out, config=HASHING)
    second = results_folder(out)
    after = read_tables(out)
    for name in FILES:
        same = before[name] == after[name]
        for ext in ("jsonl", "parquet"):
            a, b = first / f"{name}.{ext}", second / f"{name}.{ext}"
            assert (a.stat().st_ino == b.stat().st_ino) == same, (name, ext, same)
    assert before["articles"] != after["articles"]
    assert before["errors"] == after["errors"]
    # the older generations pruned: the linked files still read
    for _ in range(KEEP_GENERATIONS + 1):
        unspin.scan([src], out=out, config=HASHING)
    assert not first.exists()
    assert read_tables(out) == after


def test_killed_writer_leftovers_are_pruned_and_never_read(tmp_path: Path) -> None:
    from unspin.output import GENERATIONS, KEEP_GENERATIONS

    src, out = _scanned(tmp_path)
    orphan = out / GENERATIONS / f"{2 * 10**19:020d}-99999"  # newest, never completed
    orphan.mkdir()
    (orphan / "articles.jsonl").write_text('{"id": "half"}\n')
    assert {r["id"] for r in read_tables(out)["articles"]} == {"a"}
    for _ in range(KEEP_GENERATIONS + 2):
        unspin.scan([src], out=out, config=HASHING)
    gens = sorted((out / GENERATIONS).iterdir())
    assert orphan not in gens and len(gens) == KEEP_GENERATIONS


def test_old_flat_results_folder_is_migrated(tmp_path: Path) -> None:
    out = tmp_path / "o"
    out.mkdir()
    (out / "articles.jsonl").write_text('{"id": "old"}\n')
    (out / "manifest.json").write_text('{"counts": {"articles": 1}}')
    assert [r["id"] for r in read_tables(out)["articles"]] == ["old"]
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text(STORY)
    unspin.scan([src], out=out, config=HASHING, store=False)
    assert [r["id"] for r in read_tables(out)["articles"]] == ["a"]
    assert (out / "articles.jsonl").is_symlink()


def test_a_copy_that_followed_the_links_is_migrated(tmp_path: Path) -> None:
    """`cp -r` or shutil.copytree without symlinks=True turns `current` into a folder."""
    import shutil

    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text(STORY)
    out = tmp_path / "o"
    unspin.scan([src], out=out, config=HASHING, store=False)
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    assert not (copy / "current").is_symlink()
    (src / "b.txt").write_text(OTHER)
    unspin.scan([src], out=copy, config=HASHING, store=False)
    assert sorted(r["id"] for r in read_tables(copy)["articles"]) == ["a", "b"]
    assert (copy / "current").is_symlink()


def test_store_opens_after_index_and_ids_disagree(tmp_path: Path) -> None:
    """Index ids that are not the vector file's rows 0..n-1 (a hole in them): stale,
    not an error; the next add writes the index whole."""
    from unspin.store import Store

    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text(STORY)
    (src / "b.txt").write_text(OTHER)
    out = tmp_path / "o"
    unspin.scan([src], out=out, config=HASHING)
    with Store(out / ".unspin") as st:
        st.con.execute("DELETE FROM index_ids WHERE faiss_id = 0")
        st.con.commit()
        assert st.load_index() is None  # stale, not an error
    (src / "c.txt").write_text(STORY.replace("Monday", "Friday"))
    unspin.add([src / "c.txt"], out=out, config=HASHING)
    with Store(out / ".unspin") as st:
        assert st.load_index()[1] == ["a", "b", "c"]


# --- the lock and its messages --------------------------------------------------------------


class _Holder:
    """Another process holding the writer lock of a folder until killed."""

    def __init__(self, folder: Path) -> None:
        import subprocess

        code = (
            "import sys, time\nfrom unspin.store import writer_lock\n"
            "with writer_lock(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(60)"
        )
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, str(folder)], stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout.readline().strip() == "held"
        self.pid = self.proc.pid

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


def test_lock_names_its_holder_and_changes_nothing(tmp_path: Path) -> None:
    """Was: a lock error that told the user to delete the store."""
    from unspin.store import LockError

    src, out = _scanned(tmp_path)
    before = read_tables(out)
    holder = _Holder(out)
    try:
        told: list[str] = []
        (src / "b.txt").write_text(OTHER)
        with pytest.raises(LockError) as e:
            unspin.add([src / "b.txt"], out=out, config=HASHING, lock_wait=0.5, on_wait=told.append)
        msg = str(e.value)
        assert f"pid {holder.pid}" in msg and "since" in msg and "delete" not in msg
        assert told and f"pid {holder.pid}" in told[0]
        assert read_tables(out) == before
    finally:
        holder.stop()
    unspin.add([src / "b.txt"], out=out, config=HASHING, lock_wait=5)  # flock died with it
    assert {r["id"] for r in read_tables(out)["articles"]} == {"a", "b"}


def test_cli_lock_timeout_exits_1_with_the_holder(tmp_path: Path, capsys) -> None:
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.txt").write_text(STORY)
    out = tmp_path / "o"
    assert main(["scan", str(src), "--out", str(out), "-q", "--embedder", "hashing"]) == 0
    capsys.readouterr()
    holder = _Holder(out)
    try:
        code, _, err = run_cli(
            ["add", str(src), "--out", str(out), "-q", "--embedder", "hashing", "--wait", "0.3"],
            capsys,
        )
    finally:
        holder.stop()
    assert code == 1
    assert f"pid {holder.pid}" in err and "waiting for" in err and "delete" not in err


def test_store_errors_say_retry_not_delete_for_busy_or_disk(tmp_path: Path) -> None:
    import sqlite3

    from unspin.store import Store

    st = Store(tmp_path)
    busy = st._error(sqlite3.OperationalError("database is locked"))
    disk = st._error(sqlite3.OperationalError("disk I/O error"))
    perm = st._error(PermissionError(13, "Permission denied"))
    bad = st._error(sqlite3.DatabaseError("file is not a database"))
    st.close()
    for e in (busy, disk, perm):
        assert "delete" not in str(e) and "try again" in str(e)
    assert "delete the folder" in str(bad)


# --- row: a pile of identical texts ------------------------------------------------------

PILE_TEXT = (
    "Council approves harbour bridge\n\n"
    "The county council approved the new harbour bridge on Tuesday after a vote of 31 to 12, "
    "the chair said. Work starts in the spring and will cost 40 million pounds.\n"
)


def _pile(k: int, day0: int = 10) -> list[dict]:
    """``k`` records of one text; ids in reverse of their dates, so the rule (earliest
    published, then smallest id) and plain id order disagree."""
    out = []
    for n in range(k):
        rec = {"id": f"pile-{n:03d}", "text": PILE_TEXT}
        if n % 5:  # every fifth undated: after every dated member
            rec["published_at"] = f"2024-03-{day0 + (k - n) % 15:02d}T09:00:00Z"
        out.append(rec)
    return out


def _others() -> list[dict]:
    edited = PILE_TEXT.replace("Tuesday", "Wednesday").replace("31 to 12", "thirty-one to 12")
    return [
        {"id": "x-edited", "text": edited, "published_at": "2024-03-30T09:00:00Z"},
        {"id": "x-ferry", "text": STORY, "published_at": "2024-03-12T09:00:00Z"},
        {"id": "x-school", "text": OTHER, "published_at": "2024-03-13T09:00:00Z"},
    ]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_bytes(jsonl(*records))
    return path


def _expected_rep(records: list[dict]) -> str:
    from unspin.normalise import parse_time

    def key(r):
        t = parse_time(r.get("published_at"))
        return (t is None, t.isoformat() if t else "", r["id"])

    return min((r for r in records if r["text"] == PILE_TEXT), key=key)["id"]


def test_identical_pile_costs_pairs_per_member_not_per_pair(tmp_path: Path, monkeypatch) -> None:
    """Each member of a group of k identical texts is aligned with the group's
    representative only (k - 1 pairs, not k(k - 1)/2), and the group's relations to
    other articles are the representative's."""
    from helpers import count_calls

    import unspin.pipeline as pl

    calls = count_calls(monkeypatch, pl, "pair_work")
    k = 40
    recs = _pile(k) + _others()
    res = unspin.scan(
        [_write(tmp_path / "in.jsonl", recs)],
        out=tmp_path / "out",
        config=Config(embedder="hashing", workers=1),
        store=False,
    )
    assert len(res.docs) == k + 3
    rep = _expected_rep(recs)
    # old behaviour: 780 pairs inside the pile alone, and 40 x 3 with the others
    assert calls["n"] <= (k - 1) + 6, calls["n"]
    dup = [r for r in res.relations if r.relation == "duplicate"]
    assert len(dup) == k - 1
    assert all(rep in (r.a, r.b) for r in dup)
    members = {r["id"] for r in _pile(k)} - {rep}
    touching = [r for r in res.relations if {r.a, r.b} & members]
    assert sorted(touching, key=lambda r: (r.a, r.b)) == sorted(dup, key=lambda r: (r.a, r.b))
    # the edited copy is related to the group through its representative
    edited = [r for r in res.relations if {r.a, r.b} == {rep, "x-edited"}]
    assert edited and edited[0].relation in ("copy", "spun")
    story = [s for s in res.stories if rep in s.articles]
    assert len(story) == 1 and members <= set(story[0].articles)
    assert "x-edited" in story[0].articles


def test_duplicate_group_add_and_remove_equal_full_rescans(tmp_path: Path) -> None:
    """An added copy (later, then earlier than the representative) and the removal of
    the representative give what a full rescan of the same articles gives; the removal
    re-picks the representative."""
    from unspin.pipeline import Config as Cfg

    cfg = Cfg(embedder="hashing")
    out = tmp_path / "res"
    recs = _pile(5) + _others()
    unspin.scan([_write(tmp_path / "base.jsonl", recs)], out=out, config=cfg)

    def same_as_fresh(now: list[dict], tag: str) -> dict:
        fresh = tmp_path / f"fresh-{tag}"
        unspin.scan([_write(tmp_path / f"{tag}.jsonl", now)], out=fresh, config=cfg, store=False)
        a, b = read_tables(out), read_tables(fresh)
        for t in ("relations", "stories", "changes", "quotes", "lineage"):
            assert a[t] == b[t], (tag, t)
        return a

    later = {"id": "pile-late", "text": PILE_TEXT, "published_at": "2024-04-20T09:00:00Z"}
    unspin.add([_write(tmp_path / "late.jsonl", [later])], out=out, config=cfg)
    recs.append(later)
    same_as_fresh(recs, "late")
    first = {"id": "zz-first", "text": PILE_TEXT, "published_at": "2024-01-02T09:00:00Z"}
    unspin.add([_write(tmp_path / "first.jsonl", [first])], out=out, config=cfg)
    recs.append(first)
    t = same_as_fresh(recs, "first")
    assert _expected_rep(recs) == "zz-first"
    dup = [r for r in t["relations"] if r["relation"] == "duplicate"]
    assert len(dup) == 6 and all("zz-first" in (r["a"], r["b"]) for r in dup)
    unspin.remove(["zz-first"], out=out, config=cfg)
    recs = [r for r in recs if r["id"] != "zz-first"]
    t = same_as_fresh(recs, "removed")
    rep = _expected_rep(recs)
    dup = [r for r in t["relations"] if r["relation"] == "duplicate"]
    assert len(dup) == 5 and all(rep in (r["a"], r["b"]) for r in dup)


# --- row: two near-copies of 2,000 lines (typing) ---------------------------------------


def test_banded_edit_distance_decides_as_the_full_one() -> None:
    """``edit_distance_within`` (banded, stops early) answers exactly as the full
    distance compared with k, and the allowed edits match the share rule."""
    import random

    from unspin.evidence import _edits_allowed
    from unspin.normalise import edit_distance, edit_distance_within

    rng = random.Random(5)
    for _ in range(3000):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcd") for _ in range(rng.randint(0, 12))]
        d = edit_distance(a, b)
        for k in range(-1, 8):
            assert edit_distance_within(a, b, k) == (d <= k), (a, b, k)
    for n in range(1, 200):
        for bar in (0.0, 0.05, 0.1, 0.1 + 1e-12, 0.25, 1 / 3, 0.5, 1.0):
            k = _edits_allowed(n, bar)
            assert all((d <= k) == (d / n <= bar) for d in range(0, n + 2))


def test_kept_share_of_long_passages_is_not_n_times_m_distances(monkeypatch) -> None:
    """Typing two near-copies of 600 lines (one passage of 600 sentences a side) does
    not compute a full edit distance per sentence pair (360,000 before): exact
    matches by hash, the rest banded among sentences of a near length."""
    import random

    import unspin.evidence as ev
    from unspin.align import align
    from unspin.classify import ClassifyParams
    from unspin.embed import get_embedder
    from unspin.evidence import PairCtx, kept_share
    from unspin.fingerprint import prepare, set_vectors

    calls = {"full": 0, "banded": 0}
    real = ev.edit_distance_within

    def counting(a, b, k):
        calls["banded"] += 1
        return real(a, b, k)

    def full(a, b):  # the old way: one full distance per pair
        calls["full"] += 1
        return 0

    monkeypatch.setattr(ev, "edit_distance_within", counting)
    monkeypatch.setattr(ev, "edit_distance", full, raising=False)
    rng = random.Random(7)
    vocab = [f"w{n}" for n in range(400)]
    lines = [
        " ".join(rng.choice(vocab) for _ in range(rng.randint(10, 14))).capitalize() + "."
        for _ in range(600)
    ]
    b = [x.replace(" ", " new old odd ", 1) if i % 9 == 0 else x for i, x in enumerate(lines)]
    emb = get_embedder("hashing")
    docs = []
    for n, t in (("a", lines), ("b", b)):
        d = prepare(Article(id=n, text="\n".join(t)))
        set_vectors(d, emb.encode([s.text for s in d.sentences]), emb.dim)
        docs.append(d)
    al = align(docs[0], docs[1])
    share = kept_share(PairCtx(docs[0], docs[1], al, ClassifyParams()))
    assert 0.8 < share < 0.95  # the unedited 8 of 9 lines are kept
    assert calls["full"] == 0
    assert calls["banded"] < 600 * 600 // 10, calls["banded"]


def test_top_neighbours_cut_at_the_kth_value_equals_a_full_sort() -> None:
    """The exact k-NN keeps only values at or above each row's k-th largest before
    sorting (rows of templated text are similar to every other row); the answer equals
    a sort of every similarity above the cut-off, ties by the larger id."""
    from unspin.candidates import top_neighbours

    rng = np.random.default_rng(3)
    for t in range(30):
        n = int(rng.integers(2, 120))
        v = rng.normal(size=(n, 6)).astype(np.float32)
        if t % 2:
            v[rng.integers(0, n, n // 2)] = v[0]  # exact ties
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        ids = np.arange(n, dtype=np.int64)
        for k in (1, 4, 12):
            for cut in (0.0, 0.6):
                q, b, s = top_neighbours(v, ids, v, ids, k, cut)
                sim = v @ v.T
                want = []
                for i in range(n):
                    row = [(-float(sim[i, j]), -j) for j in range(n) if sim[i, j] >= cut]
                    want += [(i, -j) for _, j in sorted(row)[:k]]
                assert list(zip(q.tolist(), b.tolist())) == want


# --- row: two near-copies of 2,000 lines (changes, scores reused) -----------------------


def _long_pair(lines: list[str], changed: list[str]):
    """Docs, alignment and relation of two long texts (``a`` the source)."""
    from unspin.align import align
    from unspin.classify import classify

    a, b = _doc(lines), _doc(changed)
    al = align(a, b)
    rel = classify(a, b, al)
    assert rel is not None
    return a, b, rel


def _ner_reads(monkeypatch) -> list[str]:
    """Every text change extraction sends to NER (the real reader still runs)."""
    import unspin.changes as ch

    sent: list[str] = []
    real = ch._ner_batch

    def counting(texts):
        sent.extend(texts)
        return real(texts)

    monkeypatch.setattr(ch, "_ner_batch", counting)
    ch._NER_SEEN.clear()
    return sent


def test_ner_of_long_near_copies_reads_at_most_the_cap(monkeypatch) -> None:
    """Two near-copies of 1,500 lines (over NER_WHOLE_MAX) with a name changed on every
    fourth line: NER reads runs of the changed lines and their neighbours, each
    sentence once, at most NER_MAX_SENTENCES a side (it read the whole text, or each
    changed line with its neighbours again, before); the changed names it read are
    reported."""
    from unspin.changes import NER_CONTEXT, NER_MAX_SENTENCES, NER_WHOLE_MAX, extract_changes

    people = ["Alice Brown", "Peter Smith", "Maria Lopez", "John Carter"]
    lines = [
        f"{people[i % 4]} said the council approved item {i} of the harbour plan today."
        for i in range(1500)
    ]
    changed = [
        x.replace("Alice Brown", "Alicia Brown") if i % 4 == 0 else x for i, x in enumerate(lines)
    ]
    a, b, rel = _long_pair(lines, changed)
    assert len(a.article.text) > NER_WHOLE_MAX
    sent = _ner_reads(monkeypatch)
    out = extract_changes(a, b, rel)
    read = sum(t.count("\n") + 1 for t in sent)
    assert 0 < read <= 2 * NER_MAX_SENTENCES, read
    # each run holds changed lines with their context: never a sentence twice
    assert len(set(sent)) == len(sent)
    names = [c for c in out if c.kind == "entity_changed"]
    assert names and all("Alice Brown" in c.source_text for c in names)
    # the first changed lines are read by NER (the cap is reached further on)
    assert len(names) >= NER_MAX_SENTENCES // (4 * (1 + 2 * NER_CONTEXT))


def test_ner_skips_long_units_without_a_new_capitalised_word(monkeypatch) -> None:
    """Lines of a long near-copy that differ only in lower-case words ("new") cannot
    show a changed name: nothing is sent to NER (before: every such line with its
    neighbours)."""
    import random

    from unspin.changes import extract_changes

    rng = random.Random(3)
    vocab = [f"{c}{v}{d}" for c in "bdfgklmprst" for v in "aeiou" for d in "lnrst"]
    lines = [
        " ".join(rng.choice(vocab) for _ in range(rng.randint(6, 9))).capitalize() + "."
        for _ in range(1200)
    ]
    changed = [x.replace(" ", " new ", 1) if i % 5 == 0 else x for i, x in enumerate(lines)]
    a, b, rel = _long_pair(lines, changed)
    sent = _ner_reads(monkeypatch)
    extract_changes(a, b, rel)
    assert sent == []


def test_ner_of_long_copies_reads_only_units_whose_source_names_can_change(monkeypatch) -> None:
    """The templated probe's edit (issue 13's budget row): a weekday put for "today" on
    every seventh line of a long near-copy brings a capitalised word, but every name its
    source line holds stays in the copy, so no such line can show a changed name and NER
    reads none of them (before: the first NER_MAX_SENTENCES a side with their
    neighbours, most of the pair's CPU). Lines where a name did change are still read,
    each with its neighbours, and reported."""
    import random

    from unspin.changes import NER_CONTEXT, NER_MAX_SENTENCES, NER_WHOLE_MAX, extract_changes

    rng = random.Random(5)
    vocab = [f"{c}{v}{d}" for c in "bdfgklmprst" for v in "aeiou" for d in "lnrst"]
    lines = [
        " ".join(rng.choice(vocab) for _ in range(6)).capitalize()
        + f" {i} was approved today"
        + (" by Alice Brown." if i % 50 == 3 else ".")
        for i in range(1200)
    ]
    changed = [x.replace("today", "on Monday") if i % 7 == 0 else x for i, x in enumerate(lines)]
    changed = [x.replace("Alice Brown", "Alicia Brown") for x in changed]
    a, b, rel = _long_pair(lines, changed)
    assert len(a.article.text) > NER_WHOLE_MAX
    sent = _ner_reads(monkeypatch)
    out = extract_changes(a, b, rel)
    read = sum(t.count("\n") + 1 for t in sent)
    assert all("Alic" in t for t in sent), [t for t in sent if "Alic" not in t][:2]
    assert read <= 2 * 24 * (1 + 2 * NER_CONTEXT) < 2 * NER_MAX_SENTENCES, read
    names = [c for c in out if c.kind == "entity_changed"]
    assert len(names) == 24 and all(c.source_text == "Alice Brown" for c in names)


def test_source_names_kept_holds_only_when_no_name_can_be_reported() -> None:
    """:func:`unspin.changes._source_names_kept` is True only when every span that can be
    a source name (capital or figure to capital or figure) is in the derivative at least
    as often; and where it holds, change extraction with NER over the whole text reports
    no changed name for the sentence either."""
    from unspin.changes import _source_names_kept, extract_changes

    kept = _source_names_kept
    assert kept(
        "Item 7 of the report was approved today.", "Item 7 of the report was approved on Monday."
    )
    assert kept("The mayor spoke.", "The mayor spoke on Friday.")
    assert kept("Jo Bloggs of Acme said so.", "Jo Bloggs of Acme said so, and Acme agreed.")
    assert not kept("The Bank of England held rates.", "The Bank in England held rates.")
    assert not kept("Apple said apple pie sold well.", "Apple said pie sold well.")
    assert not kept("Alice Brown and Alice Brown met.", "Alice Brown met.")
    assert not kept("Peter Smith said so.", "Pieter Smith said so.")
    assert not kept("Sales rose 7 percent.", "Sales rose seven percent.")
    caps = " ".join(f"Name{i}" for i in range(60))
    assert not kept(caps + ".", caps + " too.")  # over NER_SKIP_MAX_WORDS: read by NER
    # short texts are read whole by NER: where the test holds, no name change is reported
    import unspin.changes as ch

    base = [
        "Harbour council approves new ferry terminal",
        "",
        "Mayor Linda Okafor said the Westport terminal would open in 2026.",
        "The Greenfield Residents Association argued that the vote was rushed.",
        "Construction by Acme Holdings is expected to begin in March.",
    ]
    edits = [  # (edit, whether every possible source name stays)
        ("would open", "will open", False),  # between two capitals: a name could span it
        ("was rushed", "was rushed on Tuesday", True),
        ("in March", "in March in Westport", True),
        ("Linda Okafor", "Linda Okafur", False),
        ("Acme Holdings", "Acme Group", False),
    ]
    for old, new, want in edits:
        der = [x.replace(old, new) for x in base]
        a, b, rel = _long_pair(base, der)
        s_line = next(x for x in base if old in x)
        d_line = next(x for x in der if new in x)
        out = extract_changes(a, b, rel)
        named = [c for c in out if c.kind == "entity_changed"]
        kept = ch._source_names_kept(s_line, d_line)
        assert kept == want, (old, new)
        if kept:
            assert named == [], (old, new)
        elif old == "Linda Okafor":
            assert named, (old, new)


def test_ner_limits_are_checked(monkeypatch) -> None:
    """Every NER limit of the change extraction is checked before use: a bad value is an
    error naming it, not a silent skip of every name."""
    import unspin.changes as ch

    lines = [f"{n} visited the harbour today." for n in ("Alice Brown", "Peter Smith")] * 3
    a, b, rel = _long_pair(lines, [x.replace("Peter", "Pieter") for x in lines])
    for name, bad in (
        ("NER_MAX_SENTENCES", 0),
        ("NER_SKIP_MAX_WORDS", -1),
        ("NER_CONTEXT", -1),
        ("NER_WHOLE_MAX", 2.5),
    ):
        monkeypatch.setattr(ch, name, bad)
        with pytest.raises(ValueError, match=name):
            ch.extract_changes(a, b, rel)
        monkeypatch.undo()
    ch.check_ner_limits()


def test_identical_units_skip_the_word_level_checks(monkeypatch) -> None:
    """A long copy's units whose two sides are the same text (most of a near-copy) are
    not read for figures, hedges and negations (nothing there can differ); the changed
    ones still are, and their changes are reported."""
    import random

    import unspin.changes as ch

    rng = random.Random(9)
    vocab = [f"{c}{v}{d}" for c in "bdfgklmprst" for v in "aeiou" for d in "lnrst"]
    lines = [
        " ".join(rng.choice(vocab) for _ in range(6)).capitalize() + f" {i} was approved today."
        for i in range(300)
    ]
    changed = [
        x.replace("approved", "not approved") if i % 30 == 0 else x for i, x in enumerate(lines)
    ]
    a, b, rel = _long_pair(lines, changed)
    seen = []
    real = ch._Extractor.numbers
    monkeypatch.setattr(ch._Extractor, "numbers", lambda self, u: seen.append(u) or real(self, u))
    out = ch.extract_changes(a, b, rel)
    assert 0 < len(seen) <= 10 * 3, len(seen)
    assert all(a.article.text[slice(*u.s)] != b.article.text[slice(*u.d)] for u in seen)
    assert sum(c.kind == "negation_flipped" for c in out) == 10


def test_find_quotes_equals_the_character_by_character_reader() -> None:
    """find_quotes jumps to the next character that can open a quotation: the same
    quotations as the reader that stepped one character at a time, on every text where no
    quotation runs on past a paragraph's end (session 40); where one does, each
    quotation found lies inside one paragraph, in text order, none overlapping."""
    import random

    from unspin.normalise import (
        _OPEN_CLOSE,
        _STRAIGHT,
        Quote,
        find_quotes,
        paragraphs,
        quotes_run_on,
        words,
    )

    def reference(text: str, min_words: int = 3) -> list:
        quotes = []
        for base, end in paragraphs(text):  # its lines, or a wrapped text's paragraphs
            chunk = text[base:end]
            i = 0
            while i < len(chunk):
                ch = chunk[i]
                close = _OPEN_CLOSE.get(ch)
                if ch == "‘" and i > 0 and chunk[i - 1].isalnum():
                    close = None
                j = -1
                if close:  # the nearest of its closing marks („ closes with “ or ”)
                    found = [k for k in (chunk.find(m, i + 1) for m in close) if k != -1]
                    j = min(found) if found else -1
                    if close == "’":
                        while j != -1 and j + 1 < len(chunk) and chunk[j + 1].isalpha():
                            j = chunk.find(close, j + 1)
                    width = 1
                elif _STRAIGHT.match(chunk, i):
                    width = len(_STRAIGHT.match(chunk, i).group(0))
                    m = _STRAIGHT.search(chunk, i + width)
                    j = m.start() if m else -1
                    close_w = len(m.group(0)) if m else 0
                if j > i:
                    inner_s, inner_e = i + width, j
                    inner = chunk[inner_s:inner_e].strip()
                    if len(words(inner)) >= min_words:
                        quotes.append(Quote(base + inner_s, base + inner_e, inner))
                    i = j + (1 if close else close_w)
                else:
                    i += 1
        return quotes

    rng = random.Random(17)
    alphabet = list("ab cd Ef g\n\"'`“”«»„‘’「」『』.,?1") + ["''", "``", " word ", "O'Neil "]
    same = 0
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 160)))
        got = find_quotes(text)
        if not quotes_run_on(text):
            assert got == reference(text), text
            same += 1
            continue
        spans = paragraphs(text)
        for q in got:
            assert text[q.start : q.end].strip() == q.text, text
            assert any(s <= q.start and q.end <= e for s, e in spans), text
        assert all(x.end <= y.start for x, y in zip(got, got[1:])), text
    assert same > 1000  # most random texts run on nowhere: the comparison stays broad


def test_ner_of_an_article_reads_it_whole_once(monkeypatch) -> None:
    """Under NER_WHOLE_MAX a text is read whole, once per relation (as before)."""
    from unspin.changes import extract_changes

    lines = [
        f"{n} visited the harbour on day {i} of the festival."
        for i, n in enumerate(["Alice Brown", "Peter Smith", "Maria Lopez", "John Carter"] * 5)
    ]
    changed = [x.replace("Peter Smith", "Pieter Smith") for x in lines]
    a, b, rel = _long_pair(lines, changed)
    sent = _ner_reads(monkeypatch)
    out = extract_changes(a, b, rel)
    assert sorted(sent) == sorted([a.article.text, b.article.text])
    assert any(c.kind == "entity_changed" for c in out)


def test_long_pair_scores_are_built_once_for_align_and_changes(monkeypatch) -> None:
    """The blocked sentence-pair scores of a long pair (align.LONG_MEMO) serve the
    change extraction too, either way round, with the same matches as a fresh scorer;
    and the pairs scored grow with n + m (long_top_k candidates a side), not n * m."""
    from unspin import align as A

    built = []
    real = A._Blocked

    def counting(a, b, p):
        built.append((a.id, b.id))
        return real(a, b, p)

    lines = [f"Item {i} of the council report was approved today." for i in range(1200)]
    changed = [x.replace("today", "on Monday") if i % 7 == 0 else x for i, x in enumerate(lines)]
    a, b = _doc(lines), _doc(changed)
    monkeypatch.setattr(A, "_Blocked", counting)
    A._LONG.clear()
    p = A.AlignParams()
    A.align(a, b, p)
    swapped = A.sentence_matches(b, a, p)  # the change extraction reads source first
    assert len(built) == 1
    m = built and A._LONG[0]
    assert len(m.cache) <= (2 * p.long_top_k + 9) * (len(a.sentences) + len(b.sentences))
    A._LONG.clear()
    fresh = A.sentence_matches(b, a, p)
    assert len(built) == 2
    assert swapped == fresh


def test_lexical_of_token_sets_equals_lexical() -> None:
    """The blocked scorer's ``_lexical_sets`` is ``_lexical`` (the same float)."""
    import random

    from unspin import align as A

    rng = random.Random(11)
    for _ in range(2000):
        ta = [rng.choice("abcdefgh") for _ in range(rng.randint(0, 8))]
        tb = [rng.choice("abcdefgh") for _ in range(rng.randint(0, 8))]

        class D:
            tokens = [ta, tb]

        assert A._lexical(D, D, 0, 1) == A._lexical_sets(set(ta), set(tb))


def test_soft_cover_in_blocks_equals_the_full_matrix(monkeypatch) -> None:
    """Above SOFT_CELLS the soft cover of two texts is computed a block of rows at a time:
    the same values as the whole matrix, up to float rounding (news articles stay under
    the cap and keep the whole matrix's exact values)."""
    import unspin.evidence as ev

    lines = [f"Line {i} of a report on the harbour and its ferries." for i in range(60)]
    other = [x.replace("ferries", "boats") if i % 3 else x for i, x in enumerate(lines)]
    a, b = _doc(lines), _doc(other)
    fa, fb = ev.doc_facts(a), ev.doc_facts(b)
    whole = ev._soft_cover(a, fa, b, fb, 0.8, 0.3, 3)
    monkeypatch.setattr(ev, "SOFT_CELLS", 7)
    assert ev._soft_cover(a, fa, b, fb, 0.8, 0.3, 3) == pytest.approx(whole, abs=1e-6)


# --- budget: a sentence cap per article, and the dense scorer on the matrices ------------


class _CountingEmbedder:
    """The hashing backend, counting the texts it is asked to encode."""

    def __init__(self) -> None:
        from unspin.embed import HashingEmbedder

        self.real = HashingEmbedder()
        self.name, self.dim, self.languages = "hashing", self.real.dim, None
        self.texts: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.real.encode(texts)

    def set_threads(self, threads: int) -> None:
        pass

    def warm(self) -> None:
        pass


def test_text_over_the_sentence_cap_scans_with_a_warning_and_bounded_encoding(
    tmp_path: Path, monkeypatch
) -> None:
    """Was: every sentence of a text encoded, searched and aligned (a page of 20,000 short
    sentences: 26 CPU s per MB with the default encoder). Now at most
    ``FingerprintParams.max_sentences`` sentences of one article are encoded and compared,
    and the article is in the results with a warning that says what was left out; an
    article under the cap is encoded whole."""
    from unspin import embed
    from unspin.fingerprint import FingerprintParams

    fake = _CountingEmbedder()
    monkeypatch.setitem(embed._CACHE, "hashing", fake)
    cap = 40
    long = "Long page\n\n" + "\n".join(f"Line {i} of the long page ends here." for i in range(300))
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "long.txt").write_text(long)
    (inp / "story.txt").write_text(STORY)
    cfg = Config(embedder="hashing", workers=1, fingerprint=FingerprintParams(max_sentences=cap))
    res = unspin.scan([inp], out=tmp_path / "out", config=cfg, store=False)
    assert {d.id for d in res.docs} == {"long", "story"}
    assert len(fake.texts) <= cap + 3  # the long page's first 40 and the story's 3
    assert "Line 100 of" not in " ".join(fake.texts)
    assert any("Ferry crews at the harbour" in t for t in fake.texts)
    (w,) = [e for e in res.errors if "max_sentences" in e.reason]
    assert w.severity == "warning" and "'long'" in w.reason
    assert "301 sentences" in w.reason and "first 40" in w.reason and "other 261" in w.reason
    written = read_tables(tmp_path / "out")["errors"]
    assert any("max_sentences" in r["reason"] for r in written)


def test_sentence_cap_leaves_articles_whole_and_keys_the_store(tmp_path: Path) -> None:
    """An article under the cap is prepared exactly as without one; a store keeps docs cut
    at another cap apart (a rescan with a lower cap cuts, with its warning)."""
    from unspin.fingerprint import FingerprintParams, prepare

    art = Article(id="s", text=STORY * 3)
    whole = prepare(art, FingerprintParams(max_sentences=1_000_000))
    capped = prepare(art)
    assert [s.text for s in capped.sentences] == [s.text for s in whole.sentences]
    assert capped.tokens == whole.tokens and capped.keys == whole.keys
    with pytest.raises(ValueError, match="max_sentences"):
        FingerprintParams(max_sentences=0)
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "long.txt").write_text("\n".join(f"Line {i} of the page ends here." for i in range(60)))
    out = tmp_path / "out"
    first = unspin.scan([inp], out=out, config=HASHING)
    assert not [e for e in first.errors if "max_sentences" in e.reason]
    low = Config(embedder="hashing", fingerprint=FingerprintParams(max_sentences=20))
    again = unspin.scan([inp], out=out, config=low)
    assert [e for e in again.errors if "max_sentences" in e.reason]
    warned = unspin.scan([inp], out=out, config=low)  # from the store: still warned
    assert [e for e in warned.errors if "first 20" in e.reason]


def test_cut_article_facts_come_from_its_kept_part_only(tmp_path: Path) -> None:
    """Was: a cut article's facts (figures, names, words, style) were read from its whole
    text, past the cut too (0.45 CPU s of the templated pair's 3.6). Now they are read
    from the text up to its last kept sentence, also for a doc read back from a store;
    an article under the cap reads its whole text as before."""
    from unspin.changes import _Side
    from unspin.evidence import doc_facts
    from unspin.fingerprint import FingerprintParams, prepare
    from unspin.model import compared_text
    from unspin.stories import StoryKeys

    lines = [f"Line {i} of the council page ends here." for i in range(60)]
    lines[45] = "Councillor Marguerite Okonkwo signed 7,431 permits in Ravensworth."
    art = Article(id="page", text="\n".join(lines))
    cut = prepare(art, FingerprintParams(max_sentences=20))
    whole = prepare(art, FingerprintParams(max_sentences=1_000_000))
    fw, fc = doc_facts(whole), doc_facts(cut)
    assert "okonkwo" in fw.words and any("7,431" in f or "7431" in f for f in fw.figures)
    assert any("Okonkwo" in n or "okonkwo" in n for n in fw.names)
    assert "okonkwo" not in fc.words and "ravensworth" not in fc.joined
    assert not any("7,431" in f or "7431" in f for f in fc.figures)
    assert not any("Okonkwo" in n or "okonkwo" in n for n in fc.names)
    assert compared_text(cut) == art.text[: cut.sentences[-1].end] != art.text
    assert all(t[2] <= cut.sentences[-1].end for t in _Side(cut).toks)
    sk_cut, sk_whole = StoryKeys(cut), StoryKeys(whole)
    assert "7431" in sk_whole.figs and "7431" not in sk_cut.figs
    assert "okonkwo" in sk_whole.words and "okonkwo" not in sk_cut.words
    assert compared_text(whole) is art.text  # uncut: the whole text, the same object
    # a doc read back from a store is marked as cut too (its facts from the kept part)
    inp = tmp_path / "in"
    inp.mkdir()
    (inp / "page.txt").write_text(art.text)
    low = Config(embedder="hashing", fingerprint=FingerprintParams(max_sentences=20))
    unspin.scan([inp], out=tmp_path / "out", config=low)
    again = unspin.scan([inp], out=tmp_path / "out", config=low)
    (d,) = again.docs
    assert "okonkwo" not in doc_facts(d).words and "Okonkwo" not in compared_text(d)
    (w,) = [e for e in again.errors if "max_sentences" in e.reason]
    assert "read for names, figures, words and style" in w.reason


def test_fingerprint_encodes_each_distinct_sentence_once_with_the_same_vectors(
    monkeypatch,
) -> None:
    """Repeated lines (templated pages, boilerplate) are encoded once per pile, and every
    copy gets the vector encoding it alone gives."""
    from unspin import embed
    from unspin.fingerprint import embed_docs, prepare
    from unspin.pipeline import fingerprint

    fake = _CountingEmbedder()
    monkeypatch.setitem(embed._CACHE, "hashing", fake)
    lines = [f"Item {i % 5} of the council report was approved today." for i in range(30)]
    arts = [Article(id="a", text="\n".join(lines)), Article(id="b", text="\n".join(lines[:12]))]
    docs = fingerprint(arts, Config(embedder="hashing", workers=1))
    assert sorted(fake.texts) == sorted(set(lines))
    for d, art in zip(docs, arts):
        alone = prepare(art)
        embed_docs([alone], fake.real)
        assert np.array_equal(d.sentence_vectors, alone.sentence_vectors)


def _dense_per_pair(a, b, p):
    """The dense scorer as it was: every pair above the prefilter read one at a time."""
    from unspin.align import _lexical

    cos = np.clip(a.sentence_vectors @ b.sentence_vectors.T, 0.0, 1.0)
    score, lex = cos.copy(), np.zeros_like(cos)
    for i, j in zip(*np.nonzero(cos >= p.prefilter)):
        lx = _lexical(a, b, i, j)
        lex[i, j] = lx
        score[i, j] = max(cos[i, j], 0.5 * cos[i, j] + 0.5 * lx)
    return score, cos, lex


def _accepted_per_pair(m, bar, cross):
    """``align._accepted`` as it was, pair by pair."""
    hits = [(int(i), int(j)) for i, j in zip(*np.nonzero(m.score >= bar))]
    mutual = {(i, j) for i, j in hits if m.best_j[i] == j and m.best_i[j] == i}
    out = []
    for i, j in hits:
        either = m.best_j[i] == j or m.best_i[j] == i
        if cross:
            near = any((i + di, j + dj) in mutual for di in (-1, 0, 1) for dj in (-1, 0, 1))
            either = either and near
        if either:
            out.append((i, j, *m.at(i, j)))
    return out


def test_dense_scores_on_the_matrices_equal_the_per_pair_ones() -> None:
    """Was: the lexical overlap of every sentence pair above the cosine prefilter computed
    one pair at a time (templated lines: all 250,000 pairs of two 500-line texts, 2.3 s,
    twice). Now one sparse product: the same scores, to the bit, and the same accepted
    pairs in the same order, within and across languages."""
    import random

    from unspin import align as A

    lines = [f"Item {i} of the council report was approved today." for i in range(120)]
    changed = [x.replace("today", "on Monday") if i % 7 == 0 else x for i, x in enumerate(lines)]
    rng = random.Random(3)
    words = "council report bridge vote harbour ferry strike union pay talks".split()
    mixed = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 9))) + "." for _ in range(80)]
    mixed2 = [x if rng.random() < 0.6 else " ".join(rng.sample(words, 4)) + "." for x in mixed]
    p = A.AlignParams()
    checked = 0
    for la, lb in ((lines, changed), (mixed, mixed2), (lines[:50], mixed)):
        a, b = _doc(la), _doc(lb)
        m = A._Dense(a, b, p)
        score, cos, lex = _dense_per_pair(a, b, p)
        assert np.array_equal(m.score, score) and np.array_equal(m.lex, lex)
        assert np.array_equal(m.cos, cos)
        for bar in (p.min_score, p.min_score_cross, 0.3):
            for cross in (False, True):
                got = m.accepted(bar, cross)
                assert got == _accepted_per_pair(m, bar, cross)
                checked += len(got)
    assert checked > 100
