"""Synthetic derivatives: opaque ids, labels that point at real articles and exact spans."""

from __future__ import annotations

import gzip
import json
import random
import re
import shutil
from pathlib import Path

import pytest

from unspin.evaluate import derivatives as dv
from unspin.evaluate.derivatives import (
    ApertiumTranslator,
    DerivativeSpec,
    TranslatorError,
    make_derivatives,
    read_corpus,
)
from unspin.model import Article
from unspin.normalise import find_quotes

_FIRST = ["Anna", "Peter", "Laura", "Simon", "Clara", "Victor", "Nora", "Felix"]
_LAST = ["Weber", "Hughes", "Moreau", "Castillo", "Brandt", "Okoro", "Lindgren", "Shaw"]
_ORG = ["Northwind Bank", "Harbour Group", "Kestrel Motors", "Elm Foundation"]
_TOPIC = ["rail fares", "wheat prices", "broadband", "school meals", "steel output", "tourism"]


def fake_rt(text: str) -> str:
    """What the fake translator does: a deterministic 'spin' of a few words."""
    t = " ".join(text.split())
    for a, b in ((" the ", " this "), ("said", "declared"), (" rose ", " went up ")):
        t = t.replace(a, b)
    return t + " indeed"


class FakeTranslator:
    name = "fake"

    def __init__(self) -> None:
        self.calls = 0

    def roundtrip(self, texts: list[str]) -> list[str]:
        self.calls += len(texts)
        return [fake_rt(t) for t in texts]


def _article(i: int) -> Article:
    r = random.Random(i)
    person = f"{r.choice(_FIRST)} {r.choice(_LAST)}"
    org, topic = r.choice(_ORG), _TOPIC[i % len(_TOPIC)]
    title = f"Story {i}: {topic} under review"
    paras = [
        f"The review of {topic} began in {r.randint(3, 9)} regions on Monday, officials said. "
        f"The company expected {r.randint(12, 95)} new contracts this year.",
        f"“We will always support a fair deal for {topic},” said {person}, who leads the "
        f"work at {org}. Profits rose {r.randint(2, 40)}% to ${r.randint(100, 900)}m in the "
        f"quarter.",
        f"Analysts at {org} said the plan was important for {r.randint(2, 30)} towns. "
        f"They believe the firm helped customers quickly in story {i}.",
        f"Local councils said they had bought {r.randint(1000, 9000):,} tonnes of supplies. "
        f"“It is a very good start but there is more to do,” {person} added.",
        f"The review of {topic} is due to end in {r.choice(['May', 'June', 'July'])}, and "
        f"the board said results would be published by the firm in full for story {i}.",
        f"Critics of {org} said the timetable for {topic} was too short. A spokesman for "
        f"{person} said the team would respond to every letter within {r.randint(5, 20)} days.",
    ]
    return Article(id=f"art-{i}", title=title, text=title + "\n\n" + "\n\n".join(paras))


CORPUS = [_article(i) for i in range(30)]


def _read(out: Path) -> tuple[dict[str, dict], list[dict]]:
    arts = [json.loads(x) for x in (out / "articles.jsonl").read_text().splitlines()]
    labels = [json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()]
    return {a["id"]: a for a in arts}, labels


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict], list[dict]]:
    out = tmp_path_factory.mktemp("deriv")
    make_derivatives(CORPUS, DerivativeSpec(n=20, seed=3), out, translator=FakeTranslator())
    return _read(out)


def test_ids_are_opaque_and_labels_point_at_articles(made) -> None:
    arts, labels = made
    assert all(re.fullmatch(r"a-[0-9a-f]{12}", i) for i in arts)
    assert {lab["kind"] for lab in labels} == set(dv.KINDS)
    assert len(labels) == 20
    for lab in labels:
        assert lab["source"] in arts and lab["derivative"] in arts
        assert lab["relation"] == dv.RELATION_OF[lab["kind"]]
        assert (lab["a"], lab["b"]) == (lab["source"], lab["derivative"])
    # hosts of partial reuse are not in the collection; the 30 originals less hosts are
    hosts = {lab["host"] for lab in labels if lab["relation"] == "partial"}
    texts = {a["text"] for a in arts.values()}
    assert hosts and not any(a.text in texts for a in CORPUS if a.id in hosts)
    assert len(arts) == 30 - len(hosts) + 20


def test_spans_reslice_to_the_reused_passages(made) -> None:
    arts, labels = made
    for lab in labels:
        src, der = arts[lab["source"]]["text"], arts[lab["derivative"]]["text"]
        assert lab["spans"]
        for sp in lab["spans"]:
            a = src[sp["source_start"] : sp["source_end"]]
            b = der[sp["derivative_start"] : sp["derivative_end"]]
            assert a and a == a.strip() and b and b == b.strip()
            if sp["how"] == "verbatim":
                assert a == b
            elif sp["how"] == "roundtrip":
                assert b == fake_rt(a)
            else:  # edited: same sentence with a few words changed
                assert len(set(a.split()) & set(b.split())) >= 0.5 * len(a.split())
        if lab["kind"] == "partial":
            assert all(sp["how"] == "verbatim" for sp in lab["spans"])
        if lab["kind"] in ("roundtrip", "partial_roundtrip"):
            assert all(sp["how"] == "roundtrip" for sp in lab["spans"])
        if lab["kind"] == "edited_copy":
            assert arts[lab["derivative"]]["text"].count("\n\n") >= 3
            assert lab["notes"]["dropped_sentences"] >= 1


def test_injected_edits_point_at_the_edited_words(made) -> None:
    arts, labels = made
    injected = [lab for lab in labels if lab["kind"] == "injected_edits"]
    assert any(lab["edits"] == [] for lab in injected)  # plain copies for false positives
    assert any(lab["edits"] for lab in injected)
    for lab in injected:
        src, der = arts[lab["source"]]["text"], arts[lab["derivative"]]["text"]
        if not lab["edits"]:
            assert src == der
        for ed in lab["edits"]:
            assert ed["kind"] in dv.EDIT_KINDS
            assert src[slice(*ed["source_span"])] == ed["source_text"]
            assert der[slice(*ed["derivative_span"])] == ed["derivative_text"]
            assert ed["source_text"] != ed["derivative_text"]
            if ed["kind"] == "quote_altered":
                s, e = ed["source_span"]
                assert any(q.start <= s and e <= q.end for q in find_quotes(src))
            if ed["kind"] == "number_changed":
                assert ed["derivative_text"][0].isdigit()


def test_deterministic_per_seed_and_cached(tmp_path: Path) -> None:
    tr = FakeTranslator()
    spec = DerivativeSpec(n=10, seed=5, n_distractors=4)
    a = make_derivatives(CORPUS, spec, tmp_path / "a", translator=tr)
    calls = tr.calls
    make_derivatives(CORPUS, spec, tmp_path / "a", translator=tr)
    assert calls > 0 and tr.calls == calls  # second run served from .mt-cache.jsonl
    b = make_derivatives(CORPUS, spec, tmp_path / "b", translator=FakeTranslator())
    c = make_derivatives(CORPUS, DerivativeSpec(n=10, seed=6), tmp_path / "c", FakeTranslator())
    for name in ("articles.jsonl", "labels.jsonl"):
        assert (a / name).read_bytes() == (b / name).read_bytes()
        assert (a / name).read_bytes() != (c / name).read_bytes()
    arts, _ = _read(a)
    assert len(arts) == 10 + 10 + 4  # sources + derivatives + distractors


def test_translation_pairs_from_parallel(tmp_path: Path) -> None:
    en = Article(id="7", text="Storm hits coast\nThe storm hit the coast on Monday.")
    es = Article(id="7", text="Tormenta azota la costa\nLa tormenta azotó la costa el lunes.")
    spec = DerivativeSpec(n=0)
    make_derivatives(CORPUS, spec, tmp_path, FakeTranslator(), parallel=[(en, es)])
    arts, labels = _read(tmp_path)
    (lab,) = labels
    assert lab["relation"] == "translation"
    assert arts[lab["source"]]["text"] == en.text and arts[lab["derivative"]]["text"] == es.text
    sp = lab["spans"][1]
    assert arts[lab["derivative"]]["text"][sp["derivative_start"] : sp["derivative_end"]] == (
        "La tormenta azotó la costa el lunes."
    )


def test_read_corpus_bbc_and_reuters(tmp_path: Path) -> None:
    bbc, reu = tmp_path / "bbc.jsonl.gz", tmp_path / "reu.jsonl.gz"
    with gzip.open(bbc, "wt") as fh:
        fh.write(json.dumps({"id": "b/1", "title": "T", "text": "One.\n\nTwo."}) + "\n")
    with gzip.open(reu, "wt") as fh:
        fh.write(json.dumps({"title": "X", "body": "A b\nc.\n    D &lt;e&gt;.\n Reuter\n\x03"}))
        fh.write("\n" + json.dumps({"title": "EMPTY", "body": ""}) + "\n")
    (b,) = read_corpus(bbc)
    assert (b.id, b.text, b.title) == ("b/1", "T\n\nOne.\n\nTwo.", "T")
    (r,) = read_corpus(reu)
    assert (r.id, r.text) == ("reuters-1", "X\n\nA b c.\n\nD <e>.\n\nReuter")


def test_missing_apertium_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dv.shutil, "which", lambda _name: None)
    with pytest.raises(TranslatorError, match=r"apt-get install .*apertium-eng-spa"):
        ApertiumTranslator().roundtrip(["Hello."])


@pytest.mark.skipif(shutil.which("apertium") is None, reason="apertium is not on PATH")
def test_apertium_roundtrip_keeps_paragraphs() -> None:
    texts = [
        "The company said on Monday that its profits rose by 27% last year.",
        "",
        "“We are very happy with the result,” the chief executive told reporters ⁂.",
    ]
    out = ApertiumTranslator().roundtrip(texts)
    assert len(out) == 3 and out[1] == ""
    assert "27%" in out[0] and out[0] != texts[0]
    assert "⁂" not in out[2] and "happy" in out[2]


@pytest.mark.shared
def test_bbc_corpus_makes_derivatives(shared: Path, tmp_path: Path) -> None:
    corpus = read_corpus(shared / "data" / "bbc_news" / "bbc_news_2225.jsonl.gz")
    assert len(corpus) == 2225 and corpus[0].text.startswith(corpus[0].title + "\n\n")
    spec = DerivativeSpec(n=10, n_distractors=20)
    make_derivatives(corpus, spec, tmp_path, translator=FakeTranslator())
    arts, labels = _read(tmp_path)
    assert len(labels) == 10 and len(arts) == 40
    for lab in labels:
        src, der = arts[lab["source"]]["text"], arts[lab["derivative"]]["text"]
        for ed in lab.get("edits", []):
            assert der[slice(*ed["derivative_span"])] == ed["derivative_text"]
            assert src[slice(*ed["source_span"])] == ed["source_text"]


def test_the_same_story_under_two_titles_is_left_out_of_the_corpus() -> None:
    from unspin.evaluate.derivatives import _dedupe

    body = (
        "The harbour board voted on Monday to raise mooring fees by a fifth from April, "
        "saying repairs to the north pier could not wait another winter. Boat owners said "
        "they had not been consulted and would ask the council to review the decision."
    )
    other = (
        "Ferry crews walked out on Tuesday after talks on pay broke down late at night, "
        "and the operator said every crossing to the island had been cancelled for the day."
    )
    corpus = [
        Article(id="a", title="Mooring fees to rise", text="Mooring fees to rise\n\n" + body),
        Article(id="b", title="Boat owners angry", text="Boat owners angry\n\n" + body),
        Article(id="c", title="Ferry strike", text="Ferry strike\n\n" + other),
    ]
    kept, dropped = _dedupe(corpus)
    assert [a.id for a in kept] == ["a", "c"] and dropped == 1
