"""Many languages: text primitives for every script, language codes, cross-language rules,
languages outside the encoder, and lookups that never abort a scan."""

from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import embed

from unspin import normalise
from unspin.align import AlignParams, align, figure_slots, is_template
from unspin.classify import ClassifyParams, reuse_type
from unspin.corpus import mid_capitals
from unspin.embed import USE_LANGUAGES, HashingEmbedder, windows
from unspin.fingerprint import embed_docs, prepare, salient_keys
from unspin.model import REUSE_RELATIONS, Article, Doc
from unspin.normalise import (
    canonical_lang,
    cross_language,
    figure_signatures,
    names,
    split_sentences,
    word_spans,
    words,
)
from unspin.pipeline import Config, analyse, fingerprint
from unspin.second import SecondParams

# ---------------------------------------------------------------- tokens and sentences


def test_words_keep_combining_marks() -> None:
    # re's \w leaves vowel signs and viramas out: "मैसेडोनिया" came out as म, स, ड...
    assert words("मैसेडोनिया के लोग") == ["मैसेडोनिया", "के", "लोग"]
    assert words("ที่มี") == ["ที่มี"]  # two Thai letters, each with its vowel and tone marks


def test_spaceless_scripts_are_cut_into_bigrams() -> None:
    assert words("北马其顿共和国") == ["北马", "马其", "其顿", "顿共", "共和", "和国"]
    assert words("EU和NATO") == ["eu", "和", "nato"]  # a one-character run stays whole
    ja = "国名を変更する"
    assert words(ja)[:2] == ["国名", "名を"]
    text = "马其顿总统 Gjorge Ivanov 反对"
    assert [text[s:e].lower() for s, e in word_spans(text)] == words(text)


def test_words_of_latin_text_are_unchanged() -> None:
    assert words("It's the union’s call, Dr. O'Neil: 1,200 people.") == [
        "it's",
        "the",
        "union's",
        "call",
        "dr",
        "o'neil",
        "1",
        "200",
        "people",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "选民将进行投票。全民投票旨在解决争端！是的？",
            ["选民将进行投票。", "全民投票旨在解决争端！", "是的？"],
        ),
        ("国名を変更する。「投票」が行われる。", ["国名を変更する。", "「投票」が行われる。"]),
        (
            "يصوت الناخبون يوم الأحد. هل تم التصويت؟ نعم.",
            ["يصوت الناخبون يوم الأحد.", "هل تم التصويت؟", "نعم."],
        ),
        ("मतदान करेंगे। यह सही है।", ["मतदान करेंगे।", "यह सही है।"]),
        (
            "투표를 하게 된다. 이 국민 투표는 실시되었다.",
            ["투표를 하게 된다.", "이 국민 투표는 실시되었다."],
        ),
        ("He met Dr. Smith. then he left.", ["He met Dr. Smith. then he left."]),
        (
            "Die Wahl ist am 3. Oktober. Zum 5. Mal seit 1990. Bis 1. Januar gilt es.",
            ["Die Wahl ist am 3. Oktober.", "Zum 5. Mal seit 1990.", "Bis 1. Januar gilt es."],
        ),
        ("The toll rose to 12. Police said so.", ["The toll rose to 12.", "Police said so."]),
    ],
)
def test_sentences_end_at_every_scripts_stops(text: str, expected: list[str]) -> None:
    assert [text[s:e] for s, e in split_sentences(text)] == expected


# ---------------------------------------------------------------- names in any cased script


def test_names_in_cyrillic_greek_and_turkish() -> None:
    assert {"путиным", "москве"} <= names("Вчера в Москве встретился с Путиным.")
    assert "αθήνα" in names("Η κυβέρνηση στην Αθήνα αρνήθηκε.")
    assert "erdoğan" in names("Dün akşam Erdoğan konuştu.")
    assert mid_capitals("Вчера в Москве встретился с Путиным") == {"москве", "путиным"}
    keys = salient_keys("Вчера министр Сергей Лавров встретился в Москве с коллегой.")
    assert "e:сергей лавров" in keys and "w:москве" in keys


def test_caseless_scripts_have_no_all_caps_stretch() -> None:
    assert not any(normalise.caps_words("马其顿 总统 反对 公决"))
    assert normalise.caps_words("ACME CORP SETS DIVIDEND") == [True] * 4


# ---------------------------------------------------------------- languages


def test_language_codes_are_canonical() -> None:
    got = [canonical_lang(t) for t in ("zho-CN", "zho-TW", "zh-Hant", "eng-GB", "arb", "jpn")]
    assert got == ["zh", "zh-Hant", "zh-Hant", "en", "ar", "ja"]
    assert canonical_lang("") == "und"
    assert (
        normalise.detect_language(
            "選民將在禮拜天進行投票，決定是否將他們的國家名稱改為北馬其頓共和國。"
        )[0]
        == "zh-Hant"
    )


def _doc(doc_id: str, text: str, lang: str | None = None, conf: float | None = None) -> Doc:
    d = prepare(Article(id=doc_id, text=text, lang=lang))
    if conf is not None:
        d.lang_confidence = conf
    return d


def test_scripts_tell_languages_apart_when_detection_is_unsure() -> None:
    en = _doc("en", "Voters go to the polls on Sunday.", "en")
    ru = _doc("ru", "В воскресенье жители проголосуют.", "ru", conf=0.45)
    fr = _doc("fr", "Les électeurs votent dimanche.", "fr", conf=0.45)
    assert cross_language(en, ru)  # Cyrillic vs Latin: certain whatever the detector says
    assert not cross_language(en, fr)  # same script, unsure detection: not trusted


def test_wordfreq_lookups_never_abort(monkeypatch: pytest.MonkeyPatch) -> None:
    import wordfreq

    def broken(word: str, lang: str) -> float:
        raise ModuleNotFoundError("No module named 'jieba'")

    monkeypatch.setattr(wordfreq, "zipf_frequency", broken)
    normalise.zipf.cache_clear()
    normalise._WARNED.clear()
    try:
        with pytest.warns(RuntimeWarning, match="word frequencies for language 'zh'"):
            assert normalise.zipf("选民", "zh") is None
        assert normalise.rare_word("选民", "zh")
        arts = [
            Article(id="zh", text="马其顿总统 Gjorge Ivanov 反对进行国名变更全民公决。"),
            Article(
                id="ko", text="마케도니아 대통령 조르게 이바노프는 투표를 무시할 것이라고 말했다."
            ),
            Article(id="en", text="Macedonian President Gjorge Ivanov opposes the referendum."),
        ]
        cfg = Config(embedder="hashing")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = analyse(fingerprint(arts, cfg), cfg)
        assert len(result.docs) == 3
    finally:
        normalise.zipf.cache_clear()
        normalise.rare_word.cache_clear()


# ---------------------------------------------------------------- encoder coverage


class _TwoLanguageEncoder(HashingEmbedder):
    """A stand-in encoder that declares it covers English and Spanish only."""

    name = "two-languages"
    languages = frozenset({"en", "es"})


def test_languages_outside_the_encoder_get_lexical_vectors_and_no_cross_matches() -> None:
    en = _doc("en", "Voters go to the polls on Sunday. The vote decides the name.", "en")
    el = _doc("el", "Οι ψηφοφόροι ψηφίζουν την Κυριακή. Η ψήφος αποφασίζει το όνομα.", "el")
    embed_docs([en, el], _TwoLanguageEncoder())
    assert en.cross_lingual is True and el.cross_lingual is False
    lexical = HashingEmbedder(512).encode([s.text for s in el.sentences])
    assert np.allclose(el.sentence_vectors, lexical)
    embed(en, el, {(0, 0): 0.99, (1, 1): 0.99})  # whatever the vectors say...
    assert align(en, el).passages == []  # ... no matching across an uncovered language


def test_a_scan_warns_for_each_article_outside_the_encoder(tmp_path: Path) -> None:
    from unspin import embed as embed_mod

    embed_mod.BACKENDS["two-languages"] = _TwoLanguageEncoder
    try:
        arts = [
            Article(id="en", text="Voters go to the polls on Sunday to decide the name."),
            Article(id="el", text="Οι ψηφοφόροι ψηφίζουν την Κυριακή για το όνομα της χώρας."),
        ]
        # the second encoder off: with it, Greek is matched across languages and not
        # warned about (tests/test_second.py)
        cfg = Config(embedder="two-languages", second=SecondParams(embedder=""))
        result = analyse(fingerprint(arts, cfg), cfg)
    finally:
        embed_mod.BACKENDS.pop("two-languages")
        embed_mod._CACHE.pop("two-languages", None)
    warned = [e for e in result.errors if e.severity == "warning"]
    assert len(warned) == 1 and "'el'" in warned[0].reason and "(el)" in warned[0].reason
    assert "not available" in warned[0].reason
    records = {r["id"]: r for r in result.article_records()}
    assert records["el"]["cross_language"] is False and records["en"]["cross_language"] is True


def test_the_default_encoder_declares_its_sixteen_languages() -> None:
    assert len(USE_LANGUAGES) == 16 and {"zh", "zh-Hant", "ja", "ko", "th"} <= USE_LANGUAGES


def test_long_inputs_are_embedded_in_windows_not_cut() -> None:
    text = " ".join(f"word{k}" for k in range(1500))
    parts = windows(text, 2000)
    assert all(len(p) <= 2000 for p in parts) and len(parts) > 1
    assert "".join(parts) == text


# ---------------------------------------------------------------- cross-language reuse rules


def test_figures_agree_across_number_formats() -> None:
    assert figure_signatures("$40 billion, 3.5%") == figure_signatures("400亿美元，3,5%")
    assert figure_signatures("March 01, 2008") == {"1", "2008"}
    p = AlignParams()
    same = figure_slots(
        "It cost $40 billion in 2008 for 179 jets.", "40.000 millones en 2008, 179 aviones"
    )
    assert not is_template(same, p)
    swapped = figure_slots(
        "It cost $40 billion in 2008 for 179 jets.", "13.000 millones en 2007, 14 aviones"
    )
    assert is_template(swapped, p)


EN = [
    "The city council approved the new harbour bridge on Tuesday evening.",
    "Work on the bridge is expected to start in the spring of next year.",
    "The mayor said the bridge would cut travel times for thousands of commuters.",
    "Opponents argued that the cost of the project had been underestimated.",
    "A final vote on the budget is planned for the end of the month.",
    "Ferry operators fear the bridge will take away most of their passengers.",
    "The regional government has promised to contribute a third of the money.",
    "Engineers will survey the seabed before the foundations are designed.",
    "Local shops hope that more visitors will come to the old town centre.",
    "The council will publish the full plans on its website next week.",
]
ES = [
    "El ayuntamiento aprobó el martes por la tarde el nuevo puente del puerto.",
    "Se espera que las obras del puente comiencen en la primavera del año próximo.",
    "El alcalde dijo que el puente reduciría el tiempo de viaje de miles de personas.",
    "Los opositores sostuvieron que el coste del proyecto se había subestimado.",
    "Una votación final sobre el presupuesto está prevista para finales de mes.",
    "Los operadores de ferris temen que el puente les quite la mayoría de los pasajeros.",
    "El gobierno regional ha prometido aportar un tercio del dinero necesario.",
    "Los ingenieros estudiarán el lecho marino antes de diseñar los cimientos.",
    "Los comercios locales esperan que más visitantes lleguen al casco antiguo.",
    "El ayuntamiento publicará los planos completos en su web la semana que viene.",
]


def _pair() -> tuple[Doc, Doc]:
    return _doc("a-en", " ".join(EN), "en"), _doc("b-es", " ".join(ES), "es")


def test_a_translation_is_found_on_mutual_best_matches_below_the_old_bar() -> None:
    a, b = _pair()
    embed(a, b, {(k, k): 0.55 for k in range(len(EN))})  # Japanese-English cosines run this low
    rel, _, _, _ = reuse_type(a, b, align(a, b), ClassifyParams())
    assert rel == "translation"


def test_a_long_cross_language_passage_of_middling_cosines_is_not_reuse() -> None:
    # two articles on one topic: three neighbouring sentences face each other at 0.7,
    # what a paraphrase in another language scores; the old rule called any passage of
    # four sentences "strong" and the pair partial reuse
    a, b = _pair()
    embed(a, b, {(0, 0): 0.7, (1, 1): 0.7, (2, 2): 0.7})
    al = align(a, b)
    assert al.features["strong_sents"] == 0
    assert reuse_type(a, b, al, ClassifyParams())[0] is None


def test_the_same_facts_retold_in_another_order_are_no_translation() -> None:
    # two reports of one event in two languages: every sentence finds a counterpart at a
    # cosine a Japanese translation has, but each writer orders and groups the facts
    # their own way; a translation follows its source sentence by sentence
    a, b = _pair()
    order = [5, 0, 8, 3, 9, 1, 6, 2, 7, 4]
    embed(a, b, {(k, order[k]): 0.6 for k in range(len(EN))})
    al = align(a, b)
    assert min(al.features["cov_a"], al.features["cov_b"]) >= ClassifyParams().copy_cov_other
    assert al.features["chain"] == 0.4  # 0, 3, 6, 7: one in-order chain of four
    assert reuse_type(a, b, al, ClassifyParams())[0] != "translation"
    off = dataclasses.replace(ClassifyParams(), translation_chain=0.0)
    assert reuse_type(a, b, al, off)[0] == "translation"  # what the coverage alone says
    # the same cosines sentence by sentence, one of them split in two: a translation
    embed(a, b, {(k, k): 0.6 for k in range(len(EN))} | {(4, 5): 0.5})
    al = align(a, b)
    assert al.features["chain"] == 1.0
    assert reuse_type(a, b, al, ClassifyParams())[0] == "translation"


def test_a_translation_of_one_sentence_needs_a_close_match() -> None:
    # two one-sentence reports of an event in two languages face each other at what a
    # retelling of the fact reaches; a one-sentence translation matches more closely
    a = _doc("a-en", EN[0], "en")
    b = _doc("b-es", ES[0], "es")
    embed(a, b, {(0, 0): 0.6})
    al = align(a, b)
    assert al.features["chain_sents"] == 1 and al.features["chain_strong"] == 0
    assert reuse_type(a, b, al, ClassifyParams())[0] != "translation"
    off = dataclasses.replace(ClassifyParams(), translation_chain=0.0)
    assert reuse_type(a, b, al, off)[0] == "translation"
    embed(a, b, {(0, 0): 0.8})
    assert reuse_type(a, b, align(a, b), ClassifyParams())[0] == "translation"


def test_a_brief_is_a_translation_when_the_second_encoder_reads_the_texts_close() -> None:
    # a one-sentence brief and a sentence in another language at 0.6: as close as another
    # outlet's sentence on the same fact comes; the two whole texts in the second
    # encoder's space decide (a translation from ``brief_second_sim``)
    p = ClassifyParams()
    a = _doc("a-en", EN[0], "en")
    b = _doc("b-es", ES[0], "es")
    embed(a, b, {(0, 0): 0.6})
    u = np.zeros(8, np.float32)
    u[0] = 1.0
    for second, want in ((p.brief_second_sim + 0.02, True), (p.brief_second_sim - 0.05, False)):
        v = np.zeros(8, np.float32)
        v[0], v[1] = second, np.sqrt(1 - second**2)
        a.brief_vector, b.brief_vector = u, v
        al = align(a, b)
        assert al.features["brief_sim"] == pytest.approx(second, abs=1e-6)
        rel, _, reasons, _ = reuse_type(a, b, al, p)
        assert (rel == "translation") is want
        assert any("a brief's translation" in r for r in reasons) is want
    # the sentence itself must still match moderately, and 0 turns the second opinion off
    a.brief_vector, b.brief_vector = u, u
    embed(a, b, {(0, 0): p.brief_min_score - 0.05})
    assert reuse_type(a, b, align(a, b), p)[0] != "translation"
    embed(a, b, {(0, 0): 0.6})
    off = dataclasses.replace(p, brief_second_sim=0.0)
    assert reuse_type(a, b, align(a, b), off)[0] != "translation"
    assert reuse_type(a, b, align(a, b), p)[0] == "translation"


def test_brief_parameters_are_checked() -> None:
    with pytest.raises(ValueError, match="brief_second_sim"):
        ClassifyParams(brief_second_sim=1.5)
    with pytest.raises(ValueError, match="brief_sentences"):
        SecondParams(brief_sentences=-1)


def _one_event(a: Doc, b: Doc, pairs: dict[int, int], match: float, background: float) -> None:
    """Unit vectors for two texts on one event: every sentence of one faces every sentence
    of the other at ``background`` (what any two sentences about one event share), and
    ``pairs`` (i -> j) at ``match``."""
    n_a, n_b = len(a.sentences), len(b.sentences)
    dim = 1 + n_a + n_b
    shared = np.zeros(dim, np.float32)
    shared[0] = 1.0
    own = np.eye(dim, dtype=np.float32)
    alpha, beta = np.sqrt(background), np.sqrt(1.0 - background)
    va = np.stack([alpha * shared + beta * own[1 + i] for i in range(n_a)])
    gamma = (match - background) / (1.0 - background)
    vb = []
    for j in range(n_b):
        i = next((i for i, jj in pairs.items() if jj == j), None)
        rest = own[1 + n_a + j]
        part = rest if i is None else gamma * own[1 + i] + np.sqrt(1 - gamma**2) * rest
        vb.append(alpha * shared + beta * part)
    a.sentence_vectors, b.sentence_vectors = va, np.stack(vb).astype(np.float32)
    a.doc_vector = va.mean(axis=0) / np.linalg.norm(va.mean(axis=0))
    b.doc_vector = b.sentence_vectors.mean(axis=0) / np.linalg.norm(b.sentence_vectors.mean(0))


def test_a_retelling_whose_sentences_do_not_stand_out_is_no_translation() -> None:
    # two reports of one event in two languages: each sentence has its counterpart, six
    # of ten in order (the chain rule lets it pass), but each faces the counterpart only a
    # little closer than the rest of the other text (the event they share); a translation
    # of the same shape points at its own counterpart
    a, b = _pair()
    order = [0, 1, 2, 3, 4, 9, 8, 7, 6, 5]
    _one_event(a, b, {k: order[k] for k in range(len(EN))}, match=0.62, background=0.45)
    al = align(a, b)
    assert min(al.features["cov_a"], al.features["cov_b"]) >= ClassifyParams().copy_cov_other
    assert al.features["chain"] >= ClassifyParams().translation_chain
    rel, _, reasons, _ = reuse_type(a, b, al, ClassifyParams())
    assert rel != "translation" and any("point at one counterpart" in r for r in reasons)
    off = dataclasses.replace(ClassifyParams(), translation_cut=0.0)
    assert reuse_type(a, b, al, off)[0] == "translation"  # what the chain alone says
    _one_event(a, b, {k: order[k] for k in range(len(EN))}, match=0.8, background=0.45)
    assert reuse_type(a, b, align(a, b), ClassifyParams())[0] == "translation"


def test_stand_out_is_the_lower_texts_mean_lead_of_best_over_median() -> None:
    from unspin.evidence import PairCtx, stand_out, stand_out_ready

    a, b = _pair()
    _one_event(a, b, {k: k for k in range(len(EN))}, match=0.62, background=0.45)
    c = PairCtx(a, b, align(a, b), ClassifyParams())
    assert stand_out_ready(c, 3) and not stand_out_ready(c, len(EN) + 1)
    assert stand_out(c) == pytest.approx(0.62 - 0.45, abs=1e-5)
    # one side's sentences all point at one sentence of the other: that side's best
    # matches stand out, the other's (nine of ten at the background) do not
    _one_event(a, b, {k: 0 for k in range(1)}, match=0.9, background=0.45)
    c = PairCtx(a, b, align(a, b), ClassifyParams())
    assert stand_out(c) == pytest.approx((0.9 - 0.45) / len(EN), abs=1e-5)


def test_translation_model_is_validated() -> None:
    with pytest.raises(ValueError, match="translation_cut"):
        ClassifyParams(translation_cut=1.5)
    with pytest.raises(ValueError, match="translation_weights"):
        ClassifyParams(translation_weights=(1.0,))


def test_translation_chain_is_validated() -> None:
    with pytest.raises(ValueError, match="translation_chain"):
        ClassifyParams(translation_chain=1.5)


def test_one_translated_sentence_alone_is_not_partial_reuse() -> None:
    a, b = _pair()
    embed(a, b, {(2, 2): 0.9})
    al = align(a, b)
    assert al.features["strong_sents"] == 1
    assert reuse_type(a, b, al, ClassifyParams())[0] is None
    embed(a, b, {(2, 2): 0.9, (3, 3): 0.9, (4, 4): 0.9})  # a few faithful ones are
    assert reuse_type(a, b, align(a, b), ClassifyParams())[0] == "partial"


# ---------------------------------------------------------------- real data


@pytest.mark.shared
def test_ntrex_versions_in_every_encoder_language(shared: Path) -> None:
    """Two NTREX documents in all 22 versions (the real encoders): every version in a
    main-encoder language is a translation of its English original, nothing links the
    two documents, and the three languages outside the main encoder are matched by the
    second one (a translation of a version of their own document; no warning)."""
    path = shared / "data" / "ntrex_dev" / "articles.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    keep = list(dict.fromkeys(r["doc_id"] for r in rows))[:2]
    rows = [r for r in rows if r["doc_id"] in keep]
    arts = [Article(id=r["id"], text=r["text"], title=r["title"]) for r in rows]
    cfg = Config()
    result = analyse(fingerprint(arts, cfg), cfg)
    rel = {(r.a, r.b): r.relation for r in result.relations}
    outside = {"ell", "hin", "swa"}
    for r in rows:
        lang = r["id"].split("/", 1)[1]
        if lang.startswith("eng") or lang in outside:
            continue
        pair = tuple(sorted((f"{r['doc_id']}/eng", r["id"])))
        assert rel.get(pair) == "translation", (pair, rel.get(pair))
    doc = {r["id"]: r["doc_id"] for r in rows}
    across = [r for r in result.relations if doc[r.a] != doc[r.b]]
    assert not [r for r in across if r.relation in REUSE_RELATIONS]
    for r in rows:
        if r["id"].split("/", 1)[1] in outside:
            mine = [x for x in result.relations if r["id"] in (x.a, x.b)]
            assert any(x.relation == "translation" for x in mine), (r["id"], mine)
    assert not [e for e in result.errors if e.severity == "warning"]


@pytest.mark.shared
def test_two_reports_of_one_event_in_a_caseless_script_are_no_rewrite(shared: Path) -> None:
    """CNBC's brief (AP wording) and Reuters' report of one UN speech, in Japanese and in
    Traditional Chinese, among the other NTREX articles of those languages: two reports of
    one event, which the rewrite model called a rewrite on 2 carried pieces (its name
    features read nothing by capitals there); as in English, they are no reuse."""
    path = shared / "data" / "ntrex_dev" / "articles.jsonl"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["id"].split("/", 1)[1] in ("jpn", "zho-TW")]
    arts = [Article(id=r["id"], text=r["text"], title=r["title"]) for r in rows]
    cfg = Config()
    result = analyse(fingerprint(arts, cfg), cfg)
    pair = {"cnbc.com.6769", "reuters.218861"}
    claims = [
        (r.a, r.b, r.relation)
        for r in result.relations
        if {r.a.split("/")[0], r.b.split("/")[0]} == pair and r.relation in REUSE_RELATIONS
    ]
    assert not claims


DE = [
    "Der Stadtrat hat am Dienstag die neue Hafenbrücke genehmigt.",
    "Fährbetreiber fürchten, dass die Brücke ihnen Fahrgäste nimmt.",
    "Der Bürgermeister sagte, die Fahrzeiten würden kürzer.",
    "Die Pläne werden nächste Woche im Internet veröffentlicht.",
]


def test_eval_ntrex_reports_every_language_per_half(tmp_path: Path) -> None:
    """The NTREX task on four made-up documents (two per half): English editions found,
    nothing claimed between documents, both halves and the tuned baseline reported."""
    from unspin.evaluate.runner import eval_ntrex

    texts = [EN[:5], EN[5:], ES[:5], ES[5:]]  # four "documents" (no text in common)
    rows = []
    for k, sents in enumerate(texts):
        body = " ".join(sents)
        rows.append({"id": f"d{k}/eng", "doc_id": f"d{k}", "lang": "eng", "text": body})
        edited = body.replace("the ", "The ", 1) + " Updated."
        rows.append({"id": f"d{k}/eng-GB", "doc_id": f"d{k}", "lang": "eng-GB", "text": edited})
        rows.append({"id": f"d{k}/deu", "doc_id": f"d{k}", "lang": "deu", "text": DE[k]})
    path = tmp_path / "versions.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    table = eval_ntrex(path, Config(embedder="hashing"))
    got = dict(table.rows)
    assert got["eng-GB: typed duplicate/copy"]["unspin A"] == 1.0
    assert got["eng-GB: typed duplicate/copy"]["unspin B"] == 1.0
    assert "deu: typed translation" in got and "story ARI, all versions" in got
    claims = got["reuse claims between different documents (within the half)"]
    assert claims["unspin A"] == 0 and claims["unspin B"] == 0
    assert set(claims) == set(table.systems)


def test_language_is_read_without_web_addresses() -> None:
    from unspin.normalise import detect_language

    german = (
        "Der Filialleiter des durch ein Feuer beschädigten Supermarkts sagt, es werde einige "
        "Tage dauern, um abzuschätzen, wie viel Arbeit nötig sei. Die Feuerwehr war mit "
        "mehreren Fahrzeugen im Einsatz, verletzt wurde niemand."
    )
    url = (
        "http: / / www. itv. com / news / westcountry / story / 2013 - 07 - 21 / "
        "wellington - supermarket - fire /"
    )
    short = (
        "Neues zum Brand im Supermarkt\nDer Filialleiter des beschädigten Supermarkts sagt, "
        "es werde einige Tage dauern."
    )
    lang, conf = detect_language(f"{url}\n{short}")
    assert lang == "de" and conf >= 0.9  # the address line read as well: English, 0.56
    lang, conf = detect_language(
        f"Mehr unter https://www.example.com/news/westcountry/wellington-supermarket-fire {german}"
    )
    assert lang == "de" and conf >= 0.9
    assert detect_language("https://www.example.com/a/b") == ("und", 0.0)


# two reports of one (made-up) event in Japanese, written for this test
JA_A = [
    "北浜市の港で金曜日、貨物船が岸壁に衝突し、作業員3人が軽いけがをした。",
    "市の消防局によると、船は午前9時ごろ入港する際に操舵装置が故障したという。",
    "港湾局は事故の原因を調べるため、岸壁の一部を来週まで閉鎖すると発表した。",
    "地元の漁業組合は、燃料の流出は確認されていないと説明した。",
]
JA_B = [
    "金曜日の朝、北浜港で貨物船が岸壁にぶつかる事故があり、作業員3人が負傷した。",
    "消防によれば、入港中の船の操舵装置に故障があったとみられる。",
    "港湾局は来週まで岸壁の一部を閉鎖し、原因を調査する方針だ。",
    "漁業組合によると、油の流出は見つかっていない。",
]


def test_two_texts_without_capitals_are_typed_by_the_model_fitted_on_such_scripts() -> None:
    # a Japanese pair whose whole-text probability (bias only) is 0.6: whole under the
    # English fit's cut (0.5), not under the cut of the model for scripts without capitals
    a = prepare(Article(id="a", text="\n".join(JA_A), lang="ja"))
    b = prepare(Article(id="b", text="\n".join(JA_B), lang="ja"))
    assert a.lang == b.lang == "ja"
    _one_event(a, b, {k: k for k in range(4)}, match=0.9, background=0.45)
    al = align(a, b)
    n = len(ClassifyParams().whole_features)
    logit = float(np.log(0.6 / 0.4))
    p = dataclasses.replace(
        ClassifyParams(), rewrite_model=False, caseless_whole_weights=(0.0,) * n,
        caseless_whole_bias=logit, whole_weights=(0.0,) * n, whole_bias=-10.0,
    )  # fmt: skip
    rel, _, reasons, _ = reuse_type(a, b, al, p)
    assert rel not in ("copy", "spun")
    assert any("scripts without capitals" in r for r in reasons)
    lower = dataclasses.replace(p, caseless_whole_cut=0.5)
    assert reuse_type(a, b, al, lower)[0] in ("copy", "spun")
    # the English fit (here: never whole) is what a pair in English, or with the model
    # turned off, is read with
    off = dataclasses.replace(p, caseless_whole_langs=(), whole_cut=0.5)
    assert reuse_type(a, b, al, off)[0] not in ("copy", "spun")


def test_a_language_aligned_closely_with_english_needs_its_own_floor() -> None:
    # the same retelling passes the global cut; in a language whose translations to and
    # from English score far higher than it does (its floor), it is no translation
    from unspin.classify import translation_floor
    from unspin.evidence import PairCtx, translation_score

    a, b = _pair()
    _one_event(a, b, {k: k for k in range(len(EN))}, match=0.7, background=0.45)
    al = align(a, b)
    base = dataclasses.replace(ClassifyParams(), translation_lang_floors=())
    assert reuse_type(a, b, al, base)[0] == "translation"
    z, _ = translation_score(PairCtx(a, b, al, base))
    margin = base.translation_floor_margin
    high = dataclasses.replace(base, translation_lang_floors=(("es", z + margin + 1.0),))
    rel, _, reasons, _ = reuse_type(a, b, al, high)
    assert rel != "translation" and any("what translations between" in r for r in reasons)
    low = dataclasses.replace(base, translation_lang_floors=(("es", z + margin - 1.0),))
    assert reuse_type(a, b, al, low)[0] == "translation"
    # English has no floor of its own; a language without one keeps the global cut; two
    # languages other than English take the lower floor less the drop
    assert translation_floor("en", "es", high) == pytest.approx(z + 1.0)
    assert translation_floor("en", "xx", high) is None
    both = dataclasses.replace(high, translation_lang_floors=(("es", 10.0), ("fr", 8.0)))
    want = 8.0 - both.translation_floor_margin - both.translation_pair_drop
    assert translation_floor("fr", "es", both) == pytest.approx(want)
    with pytest.raises(ValueError, match="translation_floor_margin"):
        ClassifyParams(translation_floor_margin=-1.0)
