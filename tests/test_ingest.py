"""Tests for the ingest stage: formats, field mapping, folders and every bad-input case."""

from __future__ import annotations

import gzip
import json
import re
import sys
from datetime import datetime
from pathlib import Path

import pytest
from helpers import WRAPPED

from unspin.ingest import IngestOptions, iter_files, read_file, read_paths
from unspin.model import InputError

STORY = "Bridge reopens in June\n\nThe old river bridge will reopen in June, the council said.\n"
HTML = """<!doctype html><html><head><title>Bridge to reopen | Daily Example</title>
<meta property="og:site_name" content="Daily Example">
<meta property="og:title" content="Bridge to reopen in June">
<link rel="canonical" href="https://example.org/news/bridge">
<meta property="article:published_time" content="2024-03-05T10:00:00Z">
</head><body><nav><a href="/">Home</a> <a href="/news">News</a></nav>
<article><h1>Bridge to reopen in June</h1>
<p>The old river bridge will reopen in June, a month later than planned, the council said.</p>
<p>Repairs to the steel frame took longer than expected because of the cold winter.</p>
<p>Commuters have used a small ferry since the bridge closed last autumn.</p>
</article><footer>Contact us</footer></body></html>"""


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def only(errors: list[InputError], severity: str = "error") -> list[InputError]:
    return [e for e in errors if e.severity == severity]


# --- formats ---------------------------------------------------------------------------


def test_txt_whole_file_is_text_first_line_is_title(tmp_path: Path) -> None:
    f = write(tmp_path / "bridge.txt", "\n  " + STORY)
    arts, errs = read_paths([f])
    assert errs == []
    (a,) = arts
    assert (a.id, a.title, a.text) == ("bridge", "Bridge reopens in June", "\n  " + STORY)
    assert (a.input, a.location) == (str(f), "")


def test_md_title_drops_heading_marks(tmp_path: Path) -> None:
    (a,), _ = read_paths([write(tmp_path / "m.md", "## Ferry service ends\n\nNo more boats.")])
    assert a.title == "Ferry service ends"
    assert a.text.startswith("## Ferry service ends")


def test_html_main_text_and_metadata(tmp_path: Path) -> None:
    (a,), errs = read_paths([write(tmp_path / "page.html", HTML)])
    assert errs == []
    assert a.id == "page"
    assert a.title == "Bridge to reopen in June"
    assert a.outlet == "Daily Example"
    assert a.url == "https://example.org/news/bridge"
    assert a.published_at == "2024-03-05"
    assert "steel frame" in a.text
    assert "Home" not in a.text


def test_html_without_main_text_is_an_error(tmp_path: Path) -> None:
    page = "<html><head><title>Gallery</title></head><body><img src=a.png></body></html>"
    f = write(tmp_path / "empty.htm", page)
    arts, errs = read_paths([f])
    assert arts == []
    assert [(e.input, e.location, e.severity) for e in errs] == [(str(f), "", "error")]
    assert "no main text found" in errs[0].reason


def test_json_list_records_meta_and_generated_ids(tmp_path: Path) -> None:
    records = [
        {"id": 7, "text": "Council approves budget.", "title": "Budget", "section": "city"},
        {"text": "Storm closes schools.", "url": "https://example.org/s", "lang": "en"},
    ]
    arts, errs = read_paths([write(tmp_path / "feed.json", json.dumps(records))])
    assert errs == []
    assert [(a.id, a.location) for a in arts] == [("7", "record 1"), ("feed:2", "record 2")]
    assert arts[0].meta == {"section": "city"}
    assert (arts[1].url, arts[1].lang, arts[1].title) == ("https://example.org/s", "en", None)


@pytest.mark.parametrize("key", ["articles", "records", "data"])
def test_json_object_wrapping_a_list(tmp_path: Path, key: str) -> None:
    data = {"source": "x", key: [{"id": "a", "text": "One."}, {"id": "b", "text": "Two."}]}
    arts, _ = read_paths([write(tmp_path / "w.json", json.dumps(data))])
    assert [a.id for a in arts] == ["a", "b"]


def test_json_single_record(tmp_path: Path) -> None:
    (a,), _ = read_paths([write(tmp_path / "one.json", '{"doc_id": "d1", "text": "Hi."}')])
    assert (a.id, a.location) == ("d1", "record 1")


def test_jsonl_line_numbers_count_blank_lines(tmp_path: Path) -> None:
    text = jsonl({"id": "a", "text": "First."}) + "\n" + jsonl({"text": "Third line."})
    arts, errs = read_paths([write(tmp_path / "feed.ndjson", text)])
    assert errs == []
    assert [(a.id, a.location) for a in arts] == [("a", "line 1"), ("feed:3", "line 3")]


def test_a_hard_wrapped_text_is_kept_as_it_is_and_read_in_whole_sentences(tmp_path: Path) -> None:
    """Fixed-width lines are read in paragraphs (:func:`unspin.normalise.paragraphs`), so
    nothing is lost and nothing warns: the text is kept as given."""
    from unspin.fingerprint import prepare

    text = jsonl({"id": "w", "text": WRAPPED}, {"id": "p", "text": STORY})
    arts, errs = read_paths([write(tmp_path / "wire.jsonl", text)])
    assert [a.id for a in arts] == ["w", "p"] and arts[0].text == WRAPPED
    assert errs == []
    first = prepare(arts[0]).sentences[0].text
    assert " ".join(first.split()).startswith("Texas Commerce Bancshares Inc said its Houston")


def test_csv_rows_count_physical_lines(tmp_path: Path) -> None:
    text = 'id,text,outlet\n,"Para one.\nPara two.",Gazette\nb2,Short one.,Herald\n'
    arts, errs = read_paths([write(tmp_path / "t.csv", text)])
    assert errs == []
    assert [(a.id, a.location) for a in arts] == [("t:2", "row 2"), ("b2", "row 4")]
    assert (arts[0].text, arts[0].outlet) == ("Para one.\nPara two.", "Gazette")


def test_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {
            "id": ["p1", None],
            "text": ["Port reopens.", "Port closes."],
            "published_at": [datetime(2024, 5, 1, 12, 30), None],
            "desk": ["business", "news"],
        }
    )
    pq.write_table(table, tmp_path / "t.parquet")
    arts, errs = read_paths([tmp_path / "t.parquet"])
    assert errs == []
    assert [(a.id, a.location) for a in arts] == [("p1", "record 1"), ("t:2", "record 2")]
    assert arts[0].published_at == "2024-05-01T12:30:00"
    assert arts[1].meta == {"desk": "news"}


def test_parquet_without_pyarrow_says_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    arts, errs = read_paths([write(tmp_path / "t.parquet", b"PAR1")])
    assert arts == []
    assert "pip install pyarrow" in errs[0].reason


def test_gzip_by_extension_and_by_magic_bytes(tmp_path: Path) -> None:
    write(tmp_path / "a.txt.gz", gzip.compress(STORY.encode()))
    write(tmp_path / "b.jsonl.gz", gzip.compress(jsonl({"id": "b", "text": "Zipped."}).encode()))
    write(tmp_path / "c.txt", gzip.compress(b"Secretly gzipped."))
    arts, errs = read_paths([tmp_path])
    assert errs == []
    assert [(a.id, a.text) for a in arts] == [
        ("a", STORY),
        ("b", "Zipped."),
        ("c", "Secretly gzipped."),
    ]


def test_unknown_extension_read_as_text_if_it_decodes(tmp_path: Path) -> None:
    (a,), errs = read_paths([write(tmp_path / "notes.story", "Tram line extended.\n")])
    assert errs == []
    assert (a.id, a.title) == ("notes", "Tram line extended.")


def test_unknown_binary_extension_is_unsupported(tmp_path: Path) -> None:
    f = write(tmp_path / "photo.jpg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01")
    arts, errs = read_paths([f])
    assert arts == []
    assert "unsupported file type '.jpg'" in errs[0].reason


def test_bom_and_crlf_are_normalised(tmp_path: Path) -> None:
    (a,), errs = read_paths([write(tmp_path / "w.txt", b"\xef\xbb\xbfTitle\r\nBody\rEnd\r\n")])
    assert errs == []
    assert a.text == "Title\nBody\nEnd\n"


def test_utf16_with_bom(tmp_path: Path) -> None:
    (a,), errs = read_paths([write(tmp_path / "u.txt", "Grüße aus Köln\n".encode("utf-16"))])
    assert errs == []
    assert a.text == "Grüße aus Köln\n"


# --- field mapping, folders, options -----------------------------------------------------


def test_field_mapping(tmp_path: Path) -> None:
    text = jsonl({"newid": "n1", "body": "Mapped body.", "text": "teaser", "headline": "H"})
    opts = IngestOptions(fields={"text": "body", "id": "newid", "title": "headline"})
    (a,), errs = read_paths([write(tmp_path / "m.jsonl", text)], opts)
    assert errs == []
    assert (a.id, a.text, a.title) == ("n1", "Mapped body.", "H")
    assert a.meta == {"text": "teaser"}


def test_folder_recursion_order_and_hidden_files(tmp_path: Path) -> None:
    for name in ["b.txt", "a/z.txt", "a/b/y.txt", "c.txt", ".hidden.txt", ".git/x.txt"]:
        write(tmp_path / name, f"Text of {name}.")
    write(tmp_path / ".unspin" / "cache.jsonl", jsonl({"id": "cached", "text": "no"}))
    seen: list[str] = []
    arts, errs = read_paths([tmp_path], progress=seen.append)
    assert errs == []
    expected = [tmp_path / "a/b/y.txt", tmp_path / "a/z.txt", tmp_path / "b.txt"]
    expected.append(tmp_path / "c.txt")
    assert [a.input for a in arts] == [str(p) for p in expected] == seen
    assert list(iter_files([tmp_path])) == expected


def test_empty_folder_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    arts, errs = read_paths([tmp_path / "in"])
    assert arts == []
    assert [(e.severity, e.reason) for e in errs] == [
        ("warning", "no (non-hidden) files in folder")
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fields": {"body": "text"}}, "unknown field(s) 'body'"),
        ({"fields": {"text": ""}}, "non-empty name"),
        ({"max_chars": 0}, "max_chars must be > 0"),
        ({"encoding": "klingon-8"}, "unknown encoding 'klingon-8'"),
    ],
)
def test_bad_options_raise(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        IngestOptions(**kwargs)


# --- bad input ---------------------------------------------------------------------------


def test_nonexistent_path_is_an_error_and_the_rest_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    arts, errs = read_paths([missing, write(tmp_path / "ok.txt", STORY)])
    assert [a.id for a in arts] == ["ok"]
    assert [(e.input, e.location, e.reason) for e in errs] == [
        (str(missing), "", "no such file or directory")
    ]


def test_binary_file_is_skipped(tmp_path: Path) -> None:
    f = write(tmp_path / "data.txt", b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff")
    arts, errs = read_paths([f])
    assert arts == []
    assert [(e.input, e.location, e.severity) for e in errs] == [(str(f), "", "error")]
    assert "binary file" in errs[0].reason


def test_legacy_encoding_is_detected(tmp_path: Path) -> None:
    text = (
        "Die Bürgermeisterin äußerte sich gestern zur Schließung des Freibads. "
        "Über die Gründe wurde nichts bekannt.\n"
    )
    (a,), errs = read_paths([write(tmp_path / "de.txt", text.encode("latin-1"))])
    assert a.text == text
    assert errs == []


def test_unsure_encoding_is_kept_with_a_warning(tmp_path: Path) -> None:
    text = "Le café a fermé après trente ans. Les habitués regrettent déjà les croissants."
    f = write(tmp_path / "fr.txt", text.encode("cp1252"))
    (a,), errs = read_paths([f])
    assert a.id == "fr"
    (w,) = errs
    assert (w.input, w.location, w.severity) == (str(f), "", "warning")
    assert w.reason.startswith("encoding guessed as ")
    assert "unsure" in w.reason


def test_forced_encoding(tmp_path: Path) -> None:
    text = "Le café a fermé après trente ans."
    f = write(tmp_path / "fr.txt", text.encode("cp1252"))
    (a,), errs = read_paths([f], IngestOptions(encoding="cp1252"))
    assert (a.text, errs) == (text, [])
    arts, errs = read_paths([f], IngestOptions(encoding="utf-8"))
    assert arts == []
    assert "cannot decode as utf-8" in errs[0].reason


@pytest.mark.parametrize("content", ["", "  \n\t\n"])
def test_empty_or_blank_text_is_skipped(tmp_path: Path, content: str) -> None:
    arts, errs = read_paths([write(tmp_path / "e.txt", content)])
    assert arts == []
    assert [(e.location, e.reason) for e in errs] == [("", "empty text")]


def test_empty_record_text_names_the_line(tmp_path: Path) -> None:
    f = write(tmp_path / "e.jsonl", jsonl({"id": "a", "text": "ok"}, {"id": "b", "text": " "}))
    arts, errs = read_paths([f])
    assert [a.id for a in arts] == ["a"]
    assert [(e.location, e.reason) for e in errs] == [("line 2", "empty text")]


def test_text_over_size_limit_is_skipped(tmp_path: Path) -> None:
    f = write(tmp_path / "big.jsonl", jsonl({"text": "x" * 1500}, {"text": "small"}))
    arts, errs = read_paths([f], IngestOptions(max_chars=1000))
    assert [a.location for a in arts] == ["line 2"]
    (e,) = errs
    assert (e.location, e.severity) == ("line 1", "error")
    assert "1,500 characters" in e.reason
    assert "limit 1,000" in e.reason


def test_malformed_json_line_names_the_line(tmp_path: Path) -> None:
    text = jsonl({"id": "a", "text": "One."}) + '{"id": "b", "text": \n' + jsonl({"text": "3"})
    f = write(tmp_path / "bad.jsonl", text)
    arts, errs = read_paths([f])
    assert [a.location for a in arts] == ["line 1", "line 3"]
    (e,) = errs
    assert (e.input, e.location, e.severity) == (str(f), "line 2", "error")
    assert e.reason.startswith("invalid JSON: Expecting value")


def test_malformed_json_file_names_the_line(tmp_path: Path) -> None:
    f = write(tmp_path / "bad.json", '[\n  {"id": "a", "text": "One."},\n  {"id": }\n]')
    arts, errs = read_paths([f])
    assert arts == []
    assert [(e.location, e.reason.split(":")[0]) for e in errs] == [("line 3", "invalid JSON")]


def test_json_lines_in_a_json_file_are_accepted(tmp_path: Path) -> None:
    f = write(tmp_path / "feed.json", jsonl({"text": "One."}, {"text": "Two."}))
    arts, errs = read_paths([f])
    assert (errs, [a.location for a in arts]) == ([], ["line 1", "line 2"])


def test_malformed_csv_row_names_the_row(tmp_path: Path) -> None:
    text = "id,text\na,First.\nb,Second.,surplus\nc,Third.\n"
    arts, errs = read_paths([write(tmp_path / "bad.csv", text)])
    assert [a.id for a in arts] == ["a", "c"]
    (e,) = errs
    assert (e.location, e.reason) == ("row 3", "row has 3 fields but the header has 2")


def test_missing_text_field_names_field_and_available_ones(tmp_path: Path) -> None:
    f = write(tmp_path / "m.jsonl", jsonl({"id": "a", "body": "Text.", "headline": "H"}))
    arts, errs = read_paths([f])
    assert arts == []
    (e,) = errs
    assert e.location == "line 1"
    assert "text field 'text'" in e.reason
    assert "fields available: id, body, headline" in e.reason


def test_non_object_record(tmp_path: Path) -> None:
    arts, errs = read_paths([write(tmp_path / "l.json", '[{"text": "ok"}, ["no"]]')])
    assert len(arts) == 1
    assert [(e.location, e.reason) for e in errs] == [
        ("record 2", "record is not an object but list")
    ]


def test_empty_record_file_is_a_warning(tmp_path: Path) -> None:
    arts, errs = read_paths([write(tmp_path / "none.json", "[]")])
    assert arts == []
    assert [(e.severity, e.reason) for e in errs] == [("warning", "no records found")]


def test_duplicate_ids_are_kept_apart_and_renamed(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl", jsonl({"id": "x", "text": "One."}, {"id": "x", "text": "Two."}))
    write(tmp_path / "b" / "x.txt", "Three.")
    arts, errs = read_paths([tmp_path])
    assert [(a.id, a.text) for a in arts] == [("x", "One."), ("x~2", "Two."), ("x~3", "Three.")]
    first = f"{tmp_path / 'a.jsonl'} line 1"
    assert [(e.input, e.location, e.severity, e.reason) for e in errs] == [
        (
            str(tmp_path / "a.jsonl"),
            "line 2",
            "warning",
            f"duplicate id 'x' (first seen in {first}): renamed to 'x~2'",
        ),
        (
            str(tmp_path / "b" / "x.txt"),
            "",
            "warning",
            f"duplicate id 'x' (first seen in {first}): renamed to 'x~3'",
        ),
    ]


def test_published_at_is_validated(tmp_path: Path) -> None:
    text = jsonl(
        {"id": "a", "text": "One.", "published_at": "2024-05-01T09:00:00Z"},
        {"id": "b", "text": "Two.", "published_at": "2024-05-01"},
        {"id": "c", "text": "Three.", "published_at": "last Tuesday"},
    )
    arts, errs = read_paths([write(tmp_path / "d.jsonl", text)])
    assert [a.published_at for a in arts] == ["2024-05-01T09:00:00Z", "2024-05-01", None]
    (e,) = errs
    assert (e.location, e.severity) == ("line 3", "warning")
    assert "'last Tuesday' is not ISO 8601" in e.reason


def test_every_record_is_accounted_for(tmp_path: Path) -> None:
    lines = [jsonl({"text": f"Story {i}."}) for i in range(5)]
    lines[1], lines[3] = "{oops\n", jsonl({"text": ""})
    arts, errs = read_file(write(tmp_path / "mix.jsonl", "".join(lines)))
    assert len(arts) + len(only(errs)) == 5
    assert sorted([a.location for a in arts] + [e.location for e in errs]) == [
        f"line {n}" for n in range(1, 6)
    ]
