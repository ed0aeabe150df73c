"""Benchmark loaders on small made-up files in each published format (tests/data/eval),
plus counts on the real data in ../shared (marked ``shared``)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from unspin.evaluate.loaders import (
    PanCase,
    exact_duplicate_groups,
    load_bbc,
    load_ecb,
    load_labels,
    load_mrpc,
    load_news_copy,
    load_pan_alignment,
    load_pan_cases,
    load_pan_pairs,
    load_parallel,
    load_reuters,
    load_sts,
)
from unspin.evaluate.metrics import pairs_from_clusters, plagdet

DATA = Path(__file__).resolve().parent / "data" / "eval"


def test_load_mrpc_keeps_literal_quotes() -> None:
    pairs = load_mrpc(DATA / "msr_paraphrase_sample.txt")
    assert [p.id for p in pairs] == ["1001-1002", "1003-1004", "1005-1006"]
    assert [p.label for p in pairs] == [1.0, 0.0, 1.0]
    assert pairs[0].a == 'The mayor said "no comment" on Tuesday.'
    assert pairs[2].b == 'The board was 6" wide, she found.'  # unbalanced quote


def test_load_sts_with_extra_columns() -> None:
    pairs = load_sts(DATA / "sts-sample.csv")
    assert [p.id for p in pairs] == [
        "MSRvid/2012test/0001",
        "headlines/2015/0007",
        "answers-forums/2015/0003",
    ]
    assert [p.label for p in pairs] == [5.0, 1.25, 3.4]
    assert pairs[1].a == 'Storm "batters" the coast'
    assert pairs[2].meta == {
        "genre": "main-forums",
        "file": "answers-forums",
        "year": "2015",
        "extra": ["CC-BY-SA"],
    }


def test_load_pan_pairs() -> None:
    pairs = load_pan_pairs(DATA / "pan-sample")
    assert [(p.id, p.label) for p in pairs] == [
        ("pan-sample:1", 1.0),
        ("pan-sample:2", 0.0),
        ("pan-sample:3", 1.0),
    ]
    assert pairs[1].a == 'He said "enough" and left.'


def test_load_pan_pairs_checks_lengths(tmp_path: Path) -> None:
    for suffix, text in (("_s1.txt", "a\nb\n"), ("_s2.txt", "c\n"), (".labels", "1\n0\n")):
        (tmp_path / f"x{suffix}").write_text(text)
    with pytest.raises(ValueError, match="2 first sentences, 1 second"):
        load_pan_pairs(tmp_path / "x")


def test_load_ecb() -> None:
    arts, subtopic, topic = load_ecb(DATA / "ecb_sample.jsonl")
    assert [a.id for a in arts] == ["1ecb_1", "1ecb_2", "1ecbplus_1", "2ecb_1"]
    assert subtopic == {
        "1ecb_1": "1ecb",
        "1ecb_2": "1ecb",
        "1ecbplus_1": "1ecbplus",
        "2ecb_1": "2ecb",
    }
    assert topic == {"1ecb_1": "1", "1ecb_2": "1", "1ecbplus_1": "1", "2ecb_1": "2"}
    assert arts[0].meta == {"seminal_event": "ecb"} and "\n" in arts[0].text


def test_load_parallel_folder_and_files() -> None:
    arts, gold = load_parallel(DATA / "parallel")
    assert [a.id for a in arts] == ["501/en", "502/en", "501/es", "502/es", "503/es"]
    assert gold == {("501/en", "501/es"): "translation", ("502/en", "502/es"): "translation"}
    assert arts[0].lang is None and arts[0].meta == {"topic": "corpus_trains", "lang": "en"}
    files = [DATA / "parallel" / "sample_es.jsonl", DATA / "parallel" / "sample_en.jsonl"]
    arts2, gold2 = load_parallel(files, declare_lang=True)
    assert gold2 == gold and arts2[0].id == "501/es" and arts2[0].lang == "es"


def test_load_news_copy_corpus_with_ground_truth_edges() -> None:
    arts, clusters = load_news_copy(DATA / "news_copy_corpus.json", DATA / "news_copy_gt.json")
    ids = [a.id for a in arts]  # the blank fifth article is skipped
    assert ids == [
        "1-gazette-p1-1930-05-02-a1",
        "2-herald-p3-1930-05-02-a4",
        "3-courier-p2-1930-05-02-a2",
        "4-courier-p5-1930-05-02-a7",
    ]
    # edges 1-2 and 3-2 join 1, 2, 3 (named by the first); 4 is a singleton
    assert clusters == {ids[0]: ids[0], ids[1]: ids[0], ids[2]: ids[0], ids[3]: ids[3]}
    assert (arts[0].title, arts[0].meta["byline"]) == ("FLOOD", "AP")
    assert arts[2].title is None and arts[0].text.startswith("FLOOD WATERS RISE.")
    with pytest.raises(ValueError, match="no cluster field"):
        load_news_copy(DATA / "news_copy_corpus.json")


def test_load_news_copy_records_with_cluster_field(tmp_path: Path) -> None:
    arts, clusters = load_news_copy(DATA / "news_copy_hf.jsonl")
    assert clusters == {"x1": "7", "x2": "7", "x3": "9"}
    assert pairs_from_clusters(clusters) == {("x1", "x2")}
    # the same records as a wrapped JSON list
    records = [json.loads(line) for line in (DATA / "news_copy_hf.jsonl").read_text().splitlines()]
    (tmp_path / "nc.json").write_text(json.dumps({"data": records}))
    assert load_news_copy(tmp_path / "nc.json")[1] == clusters
    (tmp_path / "gt.json").write_text(json.dumps([["x1", "nope"]]))
    with pytest.raises(ValueError, match="not in the corpus"):
        load_news_copy(tmp_path / "nc.json", tmp_path / "gt.json")


def test_load_pan_alignment_offsets_index_raw_text() -> None:
    arts, cases = load_pan_alignment(DATA / "pan_alignment")
    by_id = {a.id: a for a in arts}
    assert list(by_id) == [
        "source-document00001",
        "source-document00002",
        "suspicious-document00001",
        "suspicious-document00002",
    ]
    assert by_id["source-document00001"].meta == {"role": "source"}
    # source text has \r\n line ends: offsets count both characters
    assert cases == [
        PanCase(
            ("source-document00001", "suspicious-document00001"),
            (41, 87),
            (20, 66),
            "02-no-obfuscation",
        )
    ]
    (c,) = cases
    src = by_id["source-document00001"].text[slice(*c.src)]
    assert src == by_id["suspicious-document00001"].text[slice(*c.susp)]
    assert src == "The keeper lit the lamp at dusk every evening."
    assert plagdet(cases, cases).plagdet == 1.0


def test_load_pan_cases_reads_detections(tmp_path: Path) -> None:
    (tmp_path / "suspicious-document00001-source-document00001.xml").write_text(
        '<document reference="suspicious-document00001.txt">'
        '<feature name="detected-plagiarism" this_offset="20" this_length="10"'
        ' source_reference="source-document00001.txt" source_offset="41" source_length="12"'
        ' obfuscation="random"/></document>'
    )
    assert load_pan_cases(tmp_path) == []
    assert load_pan_cases(tmp_path, "detected-plagiarism") == [
        PanCase(("source-document00001", "suspicious-document00001"), (41, 53), (20, 30), "random")
    ]


def test_load_reuters_and_duplicates(tmp_path: Path) -> None:
    arts = load_reuters(DATA / "reuters_sample.jsonl")
    assert [a.id for a in arts] == ["reuters-1", "reuters-3", "reuters-4"]  # 2 has no body
    assert arts[0].published_at == "1987-02-26T15:01:01.790000"
    assert arts[1].published_at is None and arts[1].meta["date"] == "bad date"
    assert (arts[0].title, arts[2].title, arts[0].meta["newid"]) == (
        "GRAIN SHIPMENTS UP",
        None,
        "1",
    )
    assert exact_duplicate_groups(arts) == [["reuters-1", "reuters-3"]]  # whitespace differs
    gz = tmp_path / "r.jsonl.gz"
    gz.write_bytes(gzip.compress((DATA / "reuters_sample.jsonl").read_bytes()))
    assert [a.text for a in load_reuters(gz)] == [a.text for a in arts]


def test_load_bbc_and_duplicates() -> None:
    arts = load_bbc(DATA / "bbc_sample.jsonl")
    assert [(a.id, a.meta["category"]) for a in arts] == [
        ("business/001", "business"),
        ("sport/001", "sport"),
        ("sport/002", "sport"),
    ]
    assert arts[1].title == "Late winner"
    assert exact_duplicate_groups(arts) == [["sport/001", "sport/002"]]


def test_load_labels_pairs_and_clusters() -> None:
    pairs = load_labels(DATA / "labels_pairs.jsonl")
    assert pairs.pairs == {("a", "b"): "copy", ("a", "c"): "same_story", ("c", "d"): "none"}
    assert pairs.sources == {("a", "b"): "a"} and pairs.clusters == {}
    clusters = load_labels(DATA / "labels_clusters.jsonl")
    assert clusters.clusters == {"a": "s1", "b": "s1", "c": "2"} and clusters.pairs == {}


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([{"a": "x", "b": "y", "relation": "copied"}], "unknown relation"),
        ([{"a": "x", "b": "y", "relation": "copy", "source": "z"}], "neither"),
        (
            [{"a": "x", "b": "y", "relation": "copy"}, {"a": "y", "b": "x", "relation": "spun"}],
            "again",
        ),
        ([{"a": "x", "b": "x", "relation": "copy"}], "two different"),
        ([{"id": "x", "cluster": 1}, {"id": "x", "cluster": 2}], "two clusters"),
        ([{"text": "?"}], "expected a pair"),
    ],
)
def test_load_labels_rejects_bad_lines(tmp_path: Path, lines: list[dict], message: str) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(ValueError, match=message):
        load_labels(path)


def test_bad_json_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "cluster": 1}\n{oops\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: invalid JSON"):
        load_labels(path)


# ---------------------------------------------------------------- real data in ../shared


@pytest.mark.shared
def test_shared_mrpc_train(shared: Path) -> None:
    pairs = load_mrpc(shared / "data" / "mrpc" / "msr_paraphrase_train.txt")
    assert len(pairs) == 4076 and sum(p.label for p in pairs) == 2753
    assert len({p.id for p in pairs}) == 4076


@pytest.mark.shared
def test_shared_sts_dev(shared: Path) -> None:
    pairs = load_sts(shared / "data" / "stsbenchmark" / "sts-dev.csv")
    assert len(pairs) == 1500 and len({p.id for p in pairs}) == 1500
    assert all(0 <= p.label <= 5 for p in pairs)
    genres = {g: sum(p.meta["genre"] == g for p in pairs) for g in ("main-captions", "main-news")}
    assert genres == {"main-captions": 625, "main-news": 500}


@pytest.mark.shared
def test_shared_pan_train(shared: Path) -> None:
    pairs = load_pan_pairs(shared / "data" / "mt_metrics_pan" / "pan-train")
    assert len(pairs) == 10000 and sum(p.label for p in pairs) == 5000


@pytest.mark.shared
def test_shared_ecb_dev(shared: Path) -> None:
    arts, subtopic, topic = load_ecb(shared / "data" / "ecbplus_dev.jsonl")
    assert len(arts) == 434 and len(set(subtopic.values())) == 36 and len(set(topic.values())) == 18


@pytest.mark.shared
def test_shared_meantime(shared: Path) -> None:
    arts, gold = load_parallel(shared / "data" / "meantime")
    assert len(arts) == 240 and len(gold) == 120


@pytest.mark.shared
def test_shared_reuters(shared: Path) -> None:
    arts = load_reuters(shared / "data" / "reuters21578" / "reuters21578.jsonl.gz")
    assert len(arts) == 19043  # of 21578 records, 2535 have no body
    assert all(a.id == f"reuters-{a.meta['newid']}" for a in arts)


@pytest.mark.shared
def test_shared_bbc(shared: Path) -> None:
    arts = load_bbc(shared / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz")
    assert len(arts) == 2225 and len({a.meta["category"] for a in arts}) == 5
    groups = exact_duplicate_groups(arts)
    assert len(groups) >= 100 and all(len(g) >= 2 for g in groups)  # BBC's known repeats
