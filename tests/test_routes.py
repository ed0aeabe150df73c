"""Derivative routes: the generator (independent of the detector) and its evaluation."""

from __future__ import annotations

import ast
import json
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from test_derivatives import CORPUS

from unspin.cli import main
from unspin.evaluate import route_eval, routes, runner
from unspin.evaluate.mt import ApertiumTranslator, apertium_has
from unspin.evaluate.route_eval import RouteScore, claim_precision, eval_routes, score_routes
from unspin.evaluate.routes import (
    ROUTES,
    RouteSpec,
    Thesaurus,
    ThesaurusError,
    dedupe,
    make_routes,
    paragraph_spans,
    spin_synonyms,
    split_of,
)
from unspin.model import Article, Relation, Result
from unspin.pipeline import Config

SRC = Path(routes.__file__).resolve().parents[1]  # src/unspin
#: the detector's modules, which the generator must not draw on
DETECTOR = {
    "normalise",
    "fingerprint",
    "align",
    "classify",
    "corpus",
    "changes",
    "quotes",
    "stories",
    "candidates",
    "pipeline",
    "embed",
}


# ---------------------------------------------------------------- independence


def _unspin_imports(source: str) -> set[str]:
    """Dotted unspin modules a module's source imports (``from unspin.x import y`` gives
    ``unspin.x`` and, where y is a module, ``unspin.x.y``)."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.startswith("unspin")}
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("unspin"):
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def detector_imports(source: str, root: Path = SRC) -> set[str]:
    """The detector modules (names) a module draws on, following its unspin imports through
    other unspin modules. Package ``__init__`` files are not followed: ``unspin/__init__``
    loads the whole API, so *any* unspin import runs the detector's module code without
    using it; what is checked is the code the module itself draws on."""
    seen: set[str] = set()
    todo = list(_unspin_imports(source))
    bad = set()
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        parts = mod.split(".")[1:]
        if parts and parts[0] in DETECTOR:
            bad.add(parts[0])
        path = root.joinpath(*parts).with_suffix(".py") if parts else None
        if path is not None and path.is_file():
            todo += _unspin_imports(path.read_text(encoding="utf-8"))
    return bad


def test_the_generator_draws_on_no_detector_module() -> None:
    source = Path(routes.__file__).read_text(encoding="utf-8")
    assert detector_imports(source) == set()
    # nor names one in code (e.g. importlib): only in its doc, which lists them
    code = ast.unparse(ast.parse(source))
    body = code.split('"""', 2)[2]
    for mod in DETECTOR:
        assert not re.search(rf"\bunspin\.{mod}\b", body), mod


def test_the_independence_check_catches_a_detector_import(tmp_path: Path) -> None:
    assert detector_imports("from unspin.normalise import words\n") == {"normalise"}
    assert "classify" in detector_imports("import unspin.classify as c\n")
    assert "stories" in detector_imports("from unspin import stories\n")
    # and through another unspin module: derivatives.py draws on normalise
    assert "normalise" in detector_imports("from unspin.evaluate import derivatives\n")


# ---------------------------------------------------------------- text handling


def test_paragraph_spans_blank_lines_or_lines() -> None:
    t = "Title\n\nOne. Two.\nstill one\n\n  Three.  \n"
    assert [t[a:b] for a, b in paragraph_spans(t)] == ["Title", "One. Two.\nstill one", "Three."]
    t = "a\nb\n"
    assert [t[a:b] for a, b in paragraph_spans(t)] == ["a", "b"]


def test_dedupe_drops_copies_and_keeps_the_listed_first() -> None:
    body = " ".join(f"word{i}" for i in range(60))
    arts = [
        Article(id="x1", text=f"T\n\n{body}", title="T"),
        Article(id="x2", text=f"T\n\n{body}", title="T"),  # exact copy
        Article(id="x3", text=f"Other\n\n{body} extra end", title="Other"),  # >= 70% shared
        Article(id="x4", text="U\n\n" + " ".join(f"w{i}" for i in range(60)), title="U"),
        Article(id="x4", text="repeated id", title=None),
    ]
    kept, dropped = dedupe(arts, 0.5, 0.7)
    assert [a.id for a in kept] == ["x1", "x4"] and dropped == 3
    kept, _ = dedupe(arts, 0.5, 0.7, first=["x3"])
    assert [a.id for a in kept] == ["x3", "x4"]  # x3 kept, its look-alikes dropped


# ---------------------------------------------------------------- synonym spinner

THES = {
    "review": [("noun", ["reappraisal", "revaluation", "inspection (generic term)"])],
    "began": [("verb", ["commenced"])],
    "begin": [("verb", ["start", "commence"])],
    "regions": [],
    "region": [("noun", ["area", "Part of Town"]), ("verb", ["regionalise"])],
    "officials": [("noun", ["functionaries"])],
    "plan": [("noun", ["program", "design"]), ("verb", ["be after"])],
    "important": [("adj", ["significant (similar term)", "unimportant (antonym)"])],
    "towns": [("noun", ["townships"])],
    "monday": [("noun", ["Mon"])],
}


def write_thesaurus(base: Path, entries: dict = THES) -> Path:
    """A small MyThes pair (.idx/.dat) in the OpenOffice format."""
    dat, idx = bytearray(b"UTF-8\n"), []
    for word, senses in sorted(entries.items()):
        idx.append(f"{word}|{len(dat)}")
        dat += f"{word}|{len(senses)}\n".encode()
        for pos, terms in senses:
            dat += ("|".join([f"({pos})", *terms]) + "\n").encode()
    Path(f"{base}.dat").write_bytes(bytes(dat))
    Path(f"{base}.idx").write_text("UTF-8\n" + f"{len(idx)}\n" + "\n".join(idx) + "\n")
    return base


@pytest.fixture()
def thes(tmp_path: Path) -> Thesaurus:
    return Thesaurus(write_thesaurus(tmp_path / "th"))


def test_thesaurus_synonyms_plain_terms_over_all_senses(thes: Thesaurus) -> None:
    assert thes.synonyms("review", 2) == ["reappraisal", "revaluation"]  # no generic term
    assert thes.synonyms("region", 2) == ["area", "regionalise"]  # both senses, no name
    assert thes.synonyms("region", 2, "noun") == ["area"]
    assert thes.synonyms("important", 2) == ["significant"]  # similar terms when no plain
    assert thes.synonyms("plan", 1) == ["program", "design"]  # "be after" is 2 words
    assert thes.synonyms("absent", 2) == [] and thes.synonyms("monday", 2) == []


def test_missing_thesaurus_names_the_package(tmp_path: Path) -> None:
    with pytest.raises(ThesaurusError, match="apt-get install mythes-en-us"):
        Thesaurus(tmp_path / "nothing")


def test_spinner_replaces_content_words_not_names(thes: Thesaurus) -> None:
    text = (
        "The review began in 5 regions on Monday, officials said. "
        "Review Officials at Harbour Plan said the plan was important for towns."
    )
    out, counts = spin_synonyms(text, thes, random.Random(1), share=1.0)
    # every content word with a synonym is replaced when the share asks for all of them
    assert "reappraisal" in out or "revaluation" in out
    assert "commenced" in out and "areas" in out and "functionaries" in out
    assert "Harbour Plan" in out and "Monday" in out  # names inside a sentence stay
    assert out.startswith("The ")  # stop words stay
    assert re.search(r"\. (Reappraisal|Revaluation) ", out)  # capitalised at a start
    assert counts["replaced"] == counts["with_synonyms"] > 0
    none, c0 = spin_synonyms(text, thes, random.Random(1), share=0.0)
    assert none == text and c0["replaced"] == 0


def test_spinner_replaces_about_the_share_asked(tmp_path: Path) -> None:
    abc = "abcdefghijklmnopqrstuvwxyz"
    words = [f"zq{abc[i // 26]}{abc[i % 26]}" for i in range(400)]  # zqaa, zqab, ...
    entries = {w: [("noun", [f"{w}x"])] for w in words}
    text = " ".join(words)
    t = Thesaurus(write_thesaurus(tmp_path / "th", entries))
    _, counts = spin_synonyms(text, t, random.Random(3), share=0.5)
    t.close()
    assert counts["content_words"] == 400
    assert 160 <= counts["replaced"] <= 240


@pytest.mark.skipif(
    not Path(f"{routes.THESAURUS}.idx").is_file(),
    reason=f"the OpenOffice thesaurus is missing: apt-get install {routes.THESAURUS_PACKAGE}",
)
def test_real_thesaurus_spins_about_half() -> None:
    text = (
        "The government has put tax cuts and increased social spending at the centre of its "
        "latest budget, aiming to stir economic growth and aid the country's poor."
    )
    t = Thesaurus()
    out, counts = spin_synonyms(text, t, random.Random(0), share=0.5)
    t.close()
    assert out != text and 0.25 <= counts["replaced"] / counts["content_words"] <= 0.75


# ---------------------------------------------------------------- the generator


class FakeMT:
    """A translator stand-in: the round trip swaps a few words, one way tags the text."""

    def __init__(self, name: str) -> None:
        self.name = name

    def roundtrip(self, texts: list[str]) -> list[str]:
        return [" ".join(t.replace(" the ", " this ").split()) + " indeed" for t in texts]

    def translate(self, texts: list[str]) -> list[str]:
        return ["ES " + " ".join(t.split()) for t in texts]


def _fake(route: routes.Route) -> FakeMT:
    return FakeMT(f"fake:{route.pair}")


def write_rewrites(root: Path, corpus: list[Article]) -> Path:
    """Rewrites of two corpus articles: one per split; 'condensed' only for the first,
    'framed' not written yet."""
    a, b = corpus[0], corpus[1]
    manifest = [
        {"file": "one.txt", "corpus_id": a.id, "split": "tune"},
        {"file": "two.txt", "corpus_id": b.id, "split": "held"},
        {"file": "ghost.txt", "corpus_id": "not-in-corpus", "split": "tune"},
    ]
    root.mkdir(parents=True, exist_ok=True)
    (root / "manifest.json").write_text(json.dumps(manifest))
    for style in ("same", "condensed"):
        (root / style).mkdir()
    (root / "same" / "one.txt").write_text("A new headline\n\nRewritten body one.\n\nMore.")
    (root / "same" / "two.txt").write_text("Second headline\nRewritten body two.")
    (root / "same" / "ghost.txt").write_text("Ghost\n\nNo source.")
    (root / "condensed" / "one.txt").write_text("Short headline\n\nShort.")
    return root


def _read(out: Path) -> tuple[dict[str, dict], list[dict], dict]:
    arts = [json.loads(x) for x in (out / "articles.jsonl").read_text().splitlines()]
    labels = [json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()]
    return {a["id"]: a for a in arts}, labels, json.loads((out / "manifest.json").read_text())


@pytest.fixture(scope="module")
def thes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_thesaurus(tmp_path_factory.mktemp("thes") / "th")


def _make(out: Path, rw: Path | None, thes_base: Path, **kw) -> Path:
    spec = RouteSpec(**({"seed": 4, "n_per_route": 2, "min_words": 100} | kw))
    return make_routes(
        list(CORPUS), spec, out, rewrites=rw, translators=_fake, thesaurus=Thesaurus(thes_base)
    )


def test_make_routes_labels_every_route(tmp_path: Path, thes_dir: Path) -> None:
    rw = write_rewrites(tmp_path / "rw", CORPUS)
    out = _make(tmp_path / "o", rw, thes_dir, credit_share=0.5)
    arts, labels, man = _read(out)
    counts = Counter(lab["kind"] for lab in labels)
    assert counts == {k: 2 for k in ROUTES if ROUTES[k].method != "rewrite"} | {
        "rewrite_same": 2,  # one.txt and two.txt; ghost's source is not in the corpus
        "rewrite_condensed": 1,
    }
    assert man["counts"]["rewrite_framed"] == 0
    assert man["rewrite_files"]["rewrite_framed"] == {
        "listed": 3,
        "found": 0,
        "missing": 3,
        "empty": 0,
    }
    assert man["rewrite_sources_not_in_corpus"] == ["not-in-corpus"]
    by_corpus = {a.id: a for a in CORPUS}
    assert all(re.fullmatch(r"a-[0-9a-f]{12}", i) for i in arts)
    for lab in labels:
        assert lab["relation"] == ROUTES[lab["kind"]].relation
        assert lab["source"] in arts and lab["derivative"] in arts
        assert arts[lab["source"]]["text"] == by_corpus[lab["source_corpus_id"]].text
        der = arts[lab["derivative"]]["text"]
        src = arts[lab["source"]]["text"]
        for s in lab["spans"]:  # each source paragraph maps to its derivative paragraph
            a, b = (
                src[s["source_start"] : s["source_end"]],
                der[s["derivative_start"] : s["derivative_end"]],
            )
            if lab["kind"].startswith("mt_"):
                assert b == " ".join(a.replace(" the ", " this ").split()) + " indeed"
            elif lab["kind"].startswith("oneway_"):
                assert b == "ES " + " ".join(a.split())
        if lab["kind"].startswith("rewrite"):
            assert lab["spans"] == [] and der.split("\n")[0] == arts[lab["derivative"]]["title"]
    # sampled sources: one derivative each, never a rewrite's source
    sampled = [lab["source_corpus_id"] for lab in labels if not lab["kind"].startswith("rew")]
    assert len(set(sampled)) == len(sampled)
    assert not set(sampled) & {CORPUS[0].id, CORPUS[1].id}
    # credit lines: half of the 8 English machine-made derivatives
    credited = [lab for lab in labels if "credit" in lab["notes"]]
    assert len(credited) == 4 == man["credit_lines"]
    assert {lab["relation"] for lab in credited} == {"spun"}
    assert not any(lab["kind"].startswith("rewrite") for lab in credited)
    for lab in credited:
        assert lab["notes"]["credit"]["text"] in arts[lab["derivative"]]["text"]
    syn = [lab for lab in labels if lab["kind"] == "synonym"]
    assert all(lab["notes"]["replaced"] > 0 for lab in syn)
    assert man["n_originals"] + man["n_derivatives"] == man["n_articles"] == len(arts)


def test_make_routes_splits_never_share_a_source(tmp_path: Path, thes_dir: Path) -> None:
    rw = write_rewrites(tmp_path / "rw", CORPUS)
    seen = {}
    for split in ("tune", "held"):
        out = _make(tmp_path / split, rw, thes_dir, split=split, n_per_route=1)
        _, labels, _ = _read(out)
        seen[split] = {lab["source_corpus_id"] for lab in labels}
        assert {lab["split"] for lab in labels} == {split}
        for lab in labels:
            if not lab["kind"].startswith("rewrite"):
                assert split_of(lab["source_corpus_id"]) == split
    assert not seen["tune"] & seen["held"]
    assert CORPUS[0].id in seen["tune"] and CORPUS[1].id in seen["held"]


def test_make_routes_is_deterministic_per_seed(tmp_path: Path, thes_dir: Path) -> None:
    a = _make(tmp_path / "a", None, thes_dir, routes=("mt_spa", "synonym"), n_distractors=5)
    b = _make(tmp_path / "b", None, thes_dir, routes=("mt_spa", "synonym"), n_distractors=5)
    c = _make(tmp_path / "c", None, thes_dir, routes=("mt_spa", "synonym"), seed=5)
    assert (a / "articles.jsonl").read_text() == (b / "articles.jsonl").read_text()
    assert (a / "labels.jsonl").read_text() == (b / "labels.jsonl").read_text()
    assert (a / "labels.jsonl").read_text() != (c / "labels.jsonl").read_text()
    arts, labels, _ = _read(a)
    assert len(arts) == 4 + 4 + 5  # sources, derivatives, distractors


def test_route_spec_errors_name_the_problem(tmp_path: Path, thes_dir: Path) -> None:
    with pytest.raises(ValueError, match="unknown routes"):
        RouteSpec(routes=("mt_klingon",)).check()
    with pytest.raises(ValueError, match="split"):
        RouteSpec(split="test").check()
    with pytest.raises(ValueError, match="eligible articles"):
        _make(tmp_path / "x", None, thes_dir, routes=("mt_spa",), n_per_route=500)


def _has(*modes: str) -> str:
    return f"apertium with modes {', '.join(modes)} not installed (see Makefile: apertium)"


@pytest.mark.parametrize(
    ("kind", "modes"),
    [("mt_cat", ("eng-cat", "cat-eng")), ("mt_epo", ("en-eo", "eo-en"))],
)
def test_apertium_round_trips_through_other_languages(kind: str, modes: tuple) -> None:
    if not apertium_has(*modes):
        pytest.skip(_has(*modes))
    r = ROUTES[kind]
    texts = [
        "The company said on Monday that its profits rose by 27% last year.",
        "",
        "“We are very happy with the result,” the chief executive told reporters.",
    ]
    out = ApertiumTranslator(str(r.pair), back=r.back, package=r.package).roundtrip(texts)
    assert len(out) == 3 and out[1] == ""
    assert "27" in out[0] and out[0] != texts[0] and out[2] != texts[2]


def test_apertium_one_way_translates_into_the_other_language() -> None:
    if not apertium_has("eng-spa", "eng-cat"):
        pytest.skip(_has("eng-spa", "eng-cat"))
    text = ["The government said the new school would open next year."]
    (es,) = ApertiumTranslator("eng-spa").translate(text)
    (ca,) = ApertiumTranslator("eng-cat", package="apertium-eng-cat").translate(text)
    assert "gobierno" in es.lower() and "escuela" in es.lower()
    assert "govern" in ca.lower() and "escola" in ca.lower()


def test_missing_pair_names_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(RuntimeError, match="apt-get install apertium apertium-eo-en"):
        ApertiumTranslator("en-eo", back="eo-en", package="apertium-eo-en").roundtrip(["Hi."])


# ---------------------------------------------------------------- the evaluation's arithmetic


def test_score_routes_counts_found_typed_and_direction() -> None:
    labels = [
        {"source": "s1", "derivative": "d1", "relation": "spun", "kind": "k"},
        {"source": "s2", "derivative": "d2", "relation": "spun", "kind": "k"},
        {"source": "s3", "derivative": "d3", "relation": "spun", "kind": "k"},
        {"source": "s4", "derivative": "d4", "relation": "spun", "kind": "k"},
        {"source": "s5", "derivative": "d5", "relation": "translation", "kind": "t"},
    ]
    rels = {
        ("d1", "s1"): ("spun", "s1"),  # found, typed, right (pair given either way round)
        ("d2", "s2"): ("copy", "d2"),  # found, mistyped, wrong
        ("d3", "s3"): ("same_story", "s3"),  # not found: no direction read from it
        ("d4", "s4"): ("partial", None),  # found, mistyped, undecided
        ("x", "y"): ("copy", "x"),  # unlabelled: ignored
    }
    base = {"minhash": {("d1", "s1")}, "tfidf": {("d2", "s2"), ("d5", "s5"), ("x", "y")}}
    got = score_routes(labels, rels, base)
    k, t = got["k"], got["t"]
    assert (k.n, k.found, k.typed, k.right, k.undecided, k.wrong) == (4, 3, 1, 1, 2, 1)
    assert k.baseline_found == {"minhash": 1, "tfidf": 1}
    assert k.predicted == Counter({"spun": 1, "copy": 1, "same_story": 1, "partial": 1})
    assert (t.n, t.found, t.right, t.undecided) == (1, 0, 0, 1)
    assert t.baseline_found == {"minhash": 0, "tfidf": 1}
    agg = RouteScore(baseline_found={"minhash": 0, "tfidf": 0})
    agg.add(k)
    agg.add(t)
    assert (agg.n, agg.found, agg.undecided, agg.baseline_found["tfidf"]) == (5, 3, 3, 2)


def test_claim_precision_counts_pairs_with_a_derivative_only() -> None:
    gold = {("d1", "s1")}
    pred = [("s1", "d1"), ("d1", "x"), ("x", "y"), ("d4", "d5")]
    assert claim_precision(pred, gold, {"d1", "d4", "d5"}, {("d4", "d5")}) == (1, 2)
    assert claim_precision([], gold, {"d1"}, set()) == (0, 0)


def test_eval_routes_table_from_a_known_result(
    tmp_path: Path, thes_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fabricated detector result with known answers: every cell is predictable."""
    out = _make(
        tmp_path / "o", None, thes_dir, routes=("mt_spa", "oneway_spa"), n_per_route=2,
        credit_share=0.0, n_distractors=3,
    )  # fmt: skip
    _, labels, _ = _read(out)
    mt = [lab for lab in labels if lab["kind"] == "mt_spa"]
    ow = [lab for lab in labels if lab["kind"] == "oneway_spa"]

    def rel(lab: dict, relation: str, source: str | None) -> Relation:
        a, b = sorted((lab["source"], lab["derivative"]))
        return Relation(a, b, relation, 0.9, source=source)

    fabricated = [
        rel(mt[0], "spun", mt[0]["source"]),  # right
        rel(mt[1], "copy", mt[1]["derivative"]),  # mistyped, wrong
        rel(ow[0], "translation", None),  # typed right, undecided
        Relation(*sorted((mt[0]["derivative"], ow[1]["derivative"])), "partial", 0.5),
    ]
    monkeypatch.setattr(runner, "_run", lambda arts, cfg: Result([], fabricated, [], []))
    report = eval_routes(out, systems=(), pairs_out=tmp_path / "v" / "pairs.jsonl")
    table, prec = report.tables
    rows = dict(table.rows)
    m = rows["mt_spa (expected `spun`)"]
    assert m["n"] == 2 and m["found"] == "1.000 (2)" and m["typed as expected"] == "0.500 (1)"
    assert m["direction right (undecided counts wrong)"] == "0.500 (1)"
    assert m["direction right / undecided / wrong"] == "1 / 0 / 1"
    o = rows["oneway_spa (expected `translation`)"]
    assert o["found"] == "0.500 (1)" and o["typed as expected"] == "0.500 (1)"
    assert o["direction right / undecided / wrong"] == "0 / 2 / 0"
    assert o["direction right, of found"] == "0.000 (0)"
    p = dict(prec.rows)
    assert p["claims (pairs with a derivative, reuse of any type)"]["unspin"] == 4
    assert p["precision: the claim is a labelled pair"]["unspin"] == "0.750 (3 of 4)"
    verdicts = [json.loads(x) for x in (tmp_path / "v" / "pairs.jsonl").read_text().splitlines()]
    assert len(verdicts) == 4 + 1  # every labelled pair, and the unlabelled claim
    assert Counter(v["verdict"] for v in verdicts) == Counter(
        {"typed right": 2, "mistyped": 1, "missed": 1, "unlabelled": 1}
    )
    md = report.to_markdown("unspin eval routes X")
    assert md.startswith("## derivative routes") and "## reuse claims with a derivative" in md


def test_tuned_tfidf_cut_comes_from_the_tune_set(tmp_path: Path, thes_dir: Path) -> None:
    tune = _make(tmp_path / "t", None, thes_dir, routes=("mt_spa",), n_per_route=3)
    cut, n = route_eval.tuned_tfidf_cut(tune)
    assert n == 3 and 0.05 <= cut <= 1.0
    empty = tmp_path / "e"
    empty.mkdir()
    (empty / "articles.jsonl").write_text("")
    (empty / "labels.jsonl").write_text("")
    with pytest.raises(ValueError, match="no labelled pairs"):
        route_eval.tuned_tfidf_cut(empty)


def test_eval_routes_runs_the_pipeline_and_baselines(tmp_path: Path, thes_dir: Path) -> None:
    out = _make(tmp_path / "o", None, thes_dir, routes=("mt_spa", "synonym"), n_per_route=2)
    report = eval_routes(out, out, config=Config(embedder="hashing"))
    table = report.tables[0]
    assert "MinHash-LSH found" in table.systems and "TF-IDF (tuned) found" in table.systems
    assert any("tuned on" in n for n in table.notes)
    rows = dict(table.rows)
    assert rows["mt_spa (expected `spun`)"]["n"] == 2
    # the fake round trip keeps nearly every word: TF-IDF and unspin both find it
    assert rows["mt_spa (expected `spun`)"]["found"] == "1.000 (2)"


# ---------------------------------------------------------------- CLI


def test_cli_make_routes_and_errors(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": a.id, "title": a.title, "text": a.text}) + "\n" for a in CORPUS)
    )
    rw = write_rewrites(tmp_path / "rw", CORPUS)
    args = ["eval", "make-routes", str(corpus), "--out", str(tmp_path / "o"), "--rewrites"]
    assert main([*args, str(rw), "--routes", "rewrite_same,rewrite_condensed"]) == 0
    got = capsys.readouterr()
    printed = got.out
    assert "rewrite_same 2" in printed and "rewrite_condensed 1" in printed
    # listed rewrites that were not read are named with the folder looked in
    assert f"rewrite_condensed: 2 of 3 listed file(s) not found under {rw / 'condensed'}" in (
        " ".join(got.err.split())
    )
    assert main([*args, str(rw), "--routes", "nope"]) == 2
    assert main(["eval", "make-routes", str(corpus)]) == 2  # needs --out
    assert main(["eval", "routes", str(tmp_path / "o"), "--tune-set", str(tmp_path / "no")]) == 2
