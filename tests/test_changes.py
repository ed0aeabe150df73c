"""What a derivative changed: one made-up edit per kind, found with tight spans."""

from __future__ import annotations

import json
from pathlib import Path

import unspin
from unspin.align import align
from unspin.changes import change_counts, changes_for_result, extract_changes
from unspin.classify import classify
from unspin.model import CHANGE_KINDS, Article, Change
from unspin.pipeline import Config, fingerprint

SOURCE = """Harbour council approves new ferry terminal

The Westport harbour council narrowly approved a $45 million ferry terminal on Tuesday, \
officials said.
Mayor Linda Okafor said the project would create about 300 jobs over four years.
"This terminal will carry our town into the next century, and we will not waste a single \
dollar," Okafor told reporters.
Opponents led by the Greenfield Residents Association argued that the vote was rushed.
The association's chair, Tomas Reyes, said the group may appeal the decision in court.
Construction is expected to begin in March 2026 and to finish by the end of 2029.
The terminal will replace a pier built in 1958 that handles 1,200 passengers a day.
Council members debated the proposal for six hours before the final vote.

Reporting by Anna Berg; Editing by Mark Cole"""


def _pair(derivative: str, source: str = SOURCE, kind: str = "copy") -> list[Change]:
    """The changes from ``source`` to ``derivative``, whose relation must be ``kind``."""
    docs = fingerprint(
        [Article(id="src", text=source), Article(id="der", text=derivative)], Config()
    )
    rel = classify(docs[0], docs[1], align(docs[0], docs[1]))
    assert rel is not None and rel.relation == kind
    return extract_changes(docs[0], docs[1], rel)


def _edit(old: str, new: str, text: str = SOURCE) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _one(changes: list[Change], kind: str) -> Change:
    hits = [c for c in changes if c.kind == kind]
    assert len(hits) == 1, [c.description for c in changes]
    return hits[0]


def _spans(c: Change, source: str, derivative: str) -> tuple[str, str]:
    s = source[slice(*c.source_span)] if c.source_span else ""
    d = derivative[slice(*c.derivative_span)] if c.derivative_span else ""
    assert (s, d) == (c.source_text, c.derivative_text)
    return s, d


def test_identical_copy_reports_no_quote_name_or_number_change() -> None:
    der = SOURCE.replace('"', "“", 1).replace('," Okafor', ",” Okafor")
    der = der.replace("Reporting by Anna Berg; Editing by Mark Cole", "")
    der = _edit(
        "Council members debated the proposal for six hours before the final vote.", "", der
    )
    kinds = {c.kind for c in _pair(der)}
    assert not kinds & {"quote_altered", "quote_added", "entity_changed", "number_changed"}


def test_quote_altered() -> None:
    der = _edit("a single dollar", "a single cent")
    c = _one(_pair(der), "quote_altered")
    s, d = _spans(c, SOURCE, der)
    assert s.startswith("This terminal") and s.endswith("dollar") and d.endswith("cent")
    assert c.severity == "high"
    assert c.description == (
        'quote_altered: "This terminal will carry our town into the next century, and we will '
        'not waste a single dollar" → "This terminal will carry our town into the next '
        'century, and we will not waste a single cent"'
    )


def test_quote_altered_survives_a_moved_quote_mark_and_ignores_typography() -> None:
    der = _edit(
        '"This terminal will carry our town into the next century, and we will not waste a '
        'single dollar," Okafor told reporters.',
        "“This terminal will carry our town into the next century, And we will not waste any "
        "single dollar, “Okafor told reporters.”",
    )
    c = _one(_pair(der), "quote_altered")
    s, d = _spans(c, SOURCE, der)
    assert "a single dollar" in s and "any single dollar" in d and "Okafor" not in d


def test_quote_added() -> None:
    der = _edit(
        "argued that the vote was rushed.",
        'argued that the vote was rushed. "It is the worst deal this harbour has ever '
        'signed," one resident shouted.',
    )
    c = _one(_pair(der), "quote_added")
    assert c.source_span is None and "worst deal" in _spans(c, SOURCE, der)[1]


def test_entity_changed() -> None:
    der = _edit("Tomas Reyes", "Tomas Reyez")
    c = _one(_pair(der), "entity_changed")
    assert _spans(c, SOURCE, der) == ("Tomas Reyes", "Tomas Reyez")
    assert c.severity == "high" and c.description.startswith('entity_changed: "Tomas Reyes" →')


def test_entity_replaced_by_an_unrelated_name() -> None:
    der = _edit("Tomas Reyes", "Viktor Halbarden")
    c = _one(_pair(der), "entity_changed")
    assert _spans(c, SOURCE, der) == ("Tomas Reyes", "Viktor Halbarden")
    assert "replaced" in c.description


def test_credit_line_on_one_side_only() -> None:
    plain = SOURCE.rsplit("\n\n", 1)[0]
    der = plain + "\n\nMetro Wire staff contributed to this report."
    c = _one(_pair(der, plain, kind="duplicate"), "attribution_changed")
    assert c.source_span is None and _spans(c, plain, der)[1].startswith("Metro Wire staff")
    c = _one(_pair(plain + "\n\nOne more line.", kind="copy"), "attribution_changed")
    assert c.derivative_span is None and "Reporting by Anna Berg" in c.source_text


def test_case_change_is_not_an_entity_change() -> None:
    der = _edit("Greenfield Residents Association", "GREENFIELD RESIDENTS ASSOCIATION")
    der = _edit("six hours", "seven hours", der)  # else the texts are duplicates
    assert [c.kind for c in _pair(der)] == ["number_changed"]


def test_number_changed() -> None:
    der = _edit("$45 million", "$ 54 million")
    c = _one(_pair(der), "number_changed")
    assert _spans(c, SOURCE, der) == ("$45 million", "$ 54 million")
    assert c.severity == "high"


def test_date_changed() -> None:
    der = _edit("on Tuesday", "on Thursday")
    c = _one(_pair(der), "date_changed")
    assert _spans(c, SOURCE, der) == ("Tuesday", "Thursday")
    assert c.severity == "medium"


def test_qualifier_dropped_and_added() -> None:
    der = _edit("narrowly approved", "approved", _edit("argued", "reportedly argued"))
    changes = _pair(der)
    s, d = _spans(_one(changes, "qualifier_dropped"), SOURCE, der)
    assert (s, d) == ("narrowly approved", "approved")
    s, d = _spans(_one(changes, "qualifier_added"), SOURCE, der)
    assert (s, d) == ("argued", "reportedly argued")


def test_negation_flipped() -> None:
    der = _edit("the vote was rushed", "the vote was not rushed")
    c = _one(_pair(der), "negation_flipped")
    s, d = _spans(c, SOURCE, der)
    assert "not" in d and "not" not in s and "rushed" in s
    assert c.severity == "high"


def test_a_negation_reworded_keeps_its_sense() -> None:
    # "no" -> "lacked", "unable" -> "not able": a paraphrase, not a flipped negation
    der = _edit("argued that the vote was rushed", "argued that the vote lacked any debate")
    src = _edit("argued that the vote was rushed", "argued that the vote had no debate")
    assert not [c for c in _pair(der, src) if c.kind == "negation_flipped"]
    src2 = _edit("may appeal", "was unable to appeal")
    der2 = _edit("may appeal", "was not able to appeal")
    assert not [c for c in _pair(der2, src2) if c.kind == "negation_flipped"]
    # a real flip next to a reworded one is still found
    der3 = _edit("was unable to appeal", "was able to appeal", src2)
    c = _one(_pair(der3, src2), "negation_flipped")
    assert "unable" in c.source_text


def test_attribution_changed() -> None:
    der = _edit("Anna Berg", "John Dunne", _edit("six hours", "seven hours"))
    c = _one(_pair(der), "attribution_changed")
    s, d = _spans(c, SOURCE, der)
    assert "Anna Berg" in s and "John Dunne" in d


def test_sentence_dropped_and_added() -> None:
    der = _edit(
        "Council members debated the proposal for six hours before the final vote.",
        "A regional sailing festival drew large crowds to the seafront last summer.",
    )
    changes = _pair(der)
    s, _ = _spans(_one(changes, "sentence_dropped"), SOURCE, der)
    assert s.startswith("Council members debated")
    _, d = _spans(_one(changes, "sentence_added"), SOURCE, der)
    assert d.startswith("A regional sailing festival")


SPANISH = """El consejo del puerto aprueba una nueva terminal de ferris

El consejo del puerto de Westport aprobó por poco una terminal de ferris de 45 millones de \
dólares el martes, dijeron las autoridades.
La alcaldesa Linda Okafor dijo que el proyecto crearía unos 300 empleos en cuatro años.
"Esta terminal llevará a nuestra ciudad al próximo siglo, y no desperdiciaremos ni un solo \
dólar", dijo Okafor a los periodistas.
Los opositores, encabezados por la Asociación de Residentes de Greenfield, argumentaron que la \
votación fue apresurada.
El presidente de la asociación, Tomas Reyes, dijo que el grupo podría recurrir la decisión ante \
los tribunales.
Se espera que la construcción comience en marzo de 2026 y termine a finales de 2029.
La terminal sustituirá a un muelle construido en 1958 que atiende a 1.200 pasajeros al día.
Los concejales debatieron la propuesta durante seis horas antes de la votación final."""


def test_translation_reports_number_changes_only() -> None:
    assert _pair(SPANISH, kind="translation") == []
    der = _edit("45 millones", "54 millones", SPANISH)
    c = _one(_pair(der, kind="translation"), "number_changed")
    assert _spans(c, SOURCE, der) == ("$45 million", "54 millones de dólares")


def test_partial_reuse_reports_changes_inside_the_reused_passage_only() -> None:
    der = """Regional roundup: schools, roads and the harbour

The county school board will publish its new timetable for secondary pupils next week.
Road works on the coastal highway are set to close two lanes until the end of the month.
Drivers were advised to use the inland route through Millbrook and Ashford instead.
In Westport, the harbour council narrowly approved a $45 million ferry terminal on Tuesday, \
officials said.
Mayor Linda Okafor said the project would create about 700 jobs over four years.
Opponents led by the Greenfield Residents Association argued that the vote was rushed.
Meanwhile the county library has extended its opening hours on Saturdays.
Volunteers at the animal shelter are appealing for donations of blankets and food."""
    (c,) = _pair(der, kind="partial")
    assert c.kind == "number_changed" and _spans(c, SOURCE, der) == ("300", "700")


def test_changes_are_sorted_by_derivative_offset_and_counted() -> None:
    der = _edit("on Tuesday", "on Thursday", _edit("Tomas Reyes", "Tomas Reyez"))
    changes = _pair(der)
    offsets = [c.derivative_span[0] for c in changes if c.derivative_span]
    assert offsets == sorted(offsets)
    counts = change_counts(changes)
    assert list(counts) == list(CHANGE_KINDS)
    assert counts["date_changed"] == counts["entity_changed"] == 1


def test_changes_for_result_follows_the_directed_relations(tmp_path: Path) -> None:
    records = [
        {"id": "first", "text": SOURCE, "published_at": "2025-03-01T08:00:00Z"},
        {
            "id": "later",
            "text": _edit("$45 million", "$54 million"),
            "published_at": "2025-03-01T12:00:00Z",
        },
    ]
    (tmp_path / "articles.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    result = unspin.scan([tmp_path])
    rel = result.relation("first", "later")
    assert (rel.source, rel.derivative) == ("first", "later")
    changes = changes_for_result(result)
    assert [c.kind for c in changes] == ["number_changed"]
    assert (changes[0].source, changes[0].derivative) == ("first", "later")


def test_a_pair_of_unknown_direction_lists_its_differences(tmp_path: Path) -> None:
    from unspin.summary import summarise

    records = [
        {"id": "first", "text": SOURCE},
        {"id": "second", "text": _edit("$45 million", "$54 million")},
    ]
    (tmp_path / "articles.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    result = unspin.scan([tmp_path])
    rel = result.relation("first", "second")
    assert rel.relation == "copy" and rel.source is None  # nothing tells which came first
    changes = changes_for_result(result)
    assert [(c.kind, c.directed) for c in changes] == [("number_changed", False)]
    c = changes[0]
    assert (c.source, c.derivative) == ("first", "second")  # the pair's order, not a claim
    assert (c.source_text, c.derivative_text) == ("$45 million", "$54 million")
    assert c.description.startswith("direction unknown, first vs second: number_changed")
    assert result.changes == changes
    # the summary does not charge either article with the change
    nodes, todo = [], [n for s in summarise(result).stories for n in s.roots]
    while todo:
        nodes.append(todo.pop())
        todo += nodes[-1].children
    assert {n.id for n in nodes} == {"first", "second"}
    assert not any(n.changes for n in nodes)
    # compare() lists the same difference
    cmp = unspin.compare(
        Article(id="first", text=SOURCE), Article(id="second", text=records[1]["text"])
    )
    assert [(c.kind, c.directed) for c in cmp.changes] == [("number_changed", False)]


# the harbour story in Chinese, written for the test
SOURCE_ZH = """港口委员会批准新建渡轮码头

西港港口委员会周二以微弱多数批准了一座耗资4500万美元的渡轮码头。
市长琳达·奥卡福说，该项目将在四年内创造约300个就业岗位。
反对者认为投票过于仓促，并表示可能向法院提出上诉。
工程预计于2026年3月开工，2029年底完工。
新码头将取代一座建于1958年、每天接待1200名乘客的旧码头。"""


def test_a_credit_line_in_chinese_on_one_side_only_and_changed() -> None:
    der = SOURCE_ZH + "\n\n来源：星河日报"
    c = _one(_pair(der, SOURCE_ZH), "attribution_changed")
    assert c.source_span is None and _spans(c, SOURCE_ZH, der)[1] == "来源：星河日报"
    # both credit a line in one form, to two outlets: the credit was changed
    src = SOURCE_ZH + "\n\n来源：海湾晚报"
    c = _one(_pair(der, src, kind="copy"), "attribution_changed")
    assert _spans(c, src, der) == ("来源：海湾晚报", "来源：星河日报")
    # the same outlet on both sides: nothing changed
    assert not [
        x
        for x in _pair(der, der.replace("西港", "西港 "), kind="copy")
        if x.kind == "attribution_changed"
    ]


def test_numbers_in_east_asian_and_arabic_units_are_read_by_their_value() -> None:
    """A Korean or Japanese text writes 45 million as "4500万", 30,000 as "3만"; an Arabic
    one 380,000 as "380 ألف": the mentions the number changes compare carry the value,
    so a translation that writes them so changes no number."""
    from unspin.changes import _mentions

    def values(text: str) -> list[float]:
        return [m.key for m in _mentions(text, (0, len(text)), True) if m.cat == "number"]

    assert values("인구는 3만 명이다") == [30000.0] and values("약 3천 명") == [3000.0]
    assert values("3백만 명") == [3e6]
    assert values("380 ألف نسمة") == [380000.0] and values("30 ألفاً") == [30000.0]
    assert values("terminal de 4500万ドル") == values("It cost $45 million") == [45e6]
    assert values("１千万円") == [1e7]


# a Spanish report (no NER model reads it): a one-word name swapped inside a sentence
SOURCE_ES = """El consejo del puerto aprueba la nueva terminal de ferris

El consejo del puerto de Westport aprobó el martes una terminal de ferris de 45 millones \
de dólares, según informaron fuentes oficiales.
La alcaldesa dijo que el proyecto crearía unos 300 puestos de trabajo en cuatro años.
Los opositores, encabezados por la asociación vecinal, afirmaron que la votación fue precipitada.
El presidente de la asociación, el señor Reyes, dijo que el grupo podría recurrir la decisión.
Las obras empezarán en marzo y terminarán a finales de 2029, según el consejo de Okafor.
La terminal sustituirá a un muelle construido en 1958 que atiende a 1.200 pasajeros al día.
Los concejales debatieron la propuesta durante seis horas antes de la votación final."""

# the same in German, where every noun is capitalised: a noun for a noun is no name
SOURCE_DE = """Hafenrat billigt neues Fährterminal

Der Hafenrat von Westport hat am Dienstag ein Fährterminal für 45 Millionen Dollar \
gebilligt, teilten Beamte mit.
Die Bürgermeisterin sagte, das Projekt werde in vier Jahren etwa 300 Arbeitsplätze schaffen.
Gegner aus dem Anwohnerverein erklärten, die Abstimmung sei überstürzt gewesen.
Der Vorsitzende des Vereins sagte, die Gruppe könne gegen die Entscheidung vorgehen.
Die Bauarbeiten sollen im März beginnen und Ende 2029 abgeschlossen sein.
Das Terminal ersetzt einen Pier aus dem Jahr 1958, der täglich 1.200 Fahrgäste abfertigt.
Die Ratsmitglieder berieten sechs Stunden lang über den Vorschlag vor der Abstimmung."""


def _pair_lang(source: str, derivative: str, lang: str) -> list[Change]:
    docs = fingerprint(
        [
            Article(id="src", text=source, lang=lang),
            Article(id="der", text=derivative, lang=lang),
        ],
        Config(),
    )
    rel = classify(docs[0], docs[1], align(docs[0], docs[1]))
    assert rel is not None and rel.relation in ("copy", "duplicate"), rel
    return extract_changes(docs[0], docs[1], rel)


def _es_names(old: str, new: str) -> list[tuple[str, str]]:
    """The name changes reported when ``old`` is edited to ``new`` in SOURCE_ES."""
    der = _edit(old, new, SOURCE_ES)
    changes = _pair_lang(SOURCE_ES, der, "es")
    return [_spans(c, SOURCE_ES, der) for c in changes if c.kind == "entity_changed"]


def test_a_one_word_name_swapped_inside_a_sentence_is_reported_without_ner() -> None:
    assert _es_names("el señor Reyes,", "el señor Halbarden,") == [("Reyes", "Halbarden")]
    # a capital at a sentence's start is no name: a changed first word is not reported
    assert _es_names("Las obras empezarán", "Los trabajos empezarán") == []


def test_a_hyphenated_name_is_one_word_of_a_swap() -> None:
    got = _es_names("el señor Reyes,", "el señor Martínez-Ruiz,")
    assert got == [("Reyes", "Martínez-Ruiz")]
    got = _es_names("el consejo de Okafor.", "el consejo de Saint-Étienne.")
    assert got == [("Okafor", "Saint-Étienne")]
    # a hyphen joining two lower-case words is no name
    assert _es_names("la votación fue precipitada", "la votación fue semi-precipitada") == []


def test_a_word_of_a_name_ner_read_swapped_for_another_in_english() -> None:
    # NER reads "Linda Okafor"; the surname alone is put for another
    der = _edit("Mayor Linda Okafor said", "Mayor Linda Halbarden said")
    c = _one(_pair(der), "entity_changed")
    assert _spans(c, SOURCE, der) == ("Okafor", "Halbarden")
    assert "PERSON" in c.description
    # in English a capital alone is no name ("Mr" -> "Gentleman" in a round trip): a
    # word NER reads as a name on neither side is not reported (the small model misses
    # "Westport" and "Eastbury")
    der = _edit("The Westport harbour", "The Eastbury harbour")
    assert not [c for c in _pair(der) if c.kind == "entity_changed"]
    # ... and is when NER reads the word put in its place as one
    der = _edit("The Westport harbour", "The Dunmore harbour")
    c = _one(_pair(der), "entity_changed")
    assert _spans(c, SOURCE, der) == ("Westport", "Dunmore")


def test_a_noun_for_a_noun_in_german_is_no_name_change() -> None:
    der = _edit("etwa 300 Arbeitsplätze", "etwa 300 Stellen", SOURCE_DE)
    assert not [c for c in _pair_lang(SOURCE_DE, der, "de") if c.kind == "entity_changed"]
