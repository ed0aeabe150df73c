"""Unit tests of the normalise stage: sentences, quotations, boilerplate, language."""

from __future__ import annotations

import re

import pytest

from unspin.normalise import (
    detect_language,
    find_quotes,
    is_boilerplate,
    normalise_text,
    sentences_for,
    split_sentences,
)

TEXT = (
    "Mayor Lena Okafor met Dr. Kessling on Tuesday. “We will talk again,” she said.\n"
    "The U.S. envoy left at 3 p.m. on Friday. Talks resume next week!\n"
)


def test_sentences_keep_offsets_and_skip_abbreviations() -> None:
    spans = split_sentences(TEXT)
    got = [TEXT[s:e] for s, e in spans]
    assert got == [
        "Mayor Lena Okafor met Dr. Kessling on Tuesday.",
        "“We will talk again,” she said.",
        "The U.S. envoy left at 3 p.m. on Friday.",
        "Talks resume next week!",
    ]


def test_quotes_of_every_style_with_offsets() -> None:
    text = 'He said “we are not done yet” and then "this is final" and « nous restons ici ».'
    quotes = find_quotes(text)
    assert [q.text for q in quotes] == ["we are not done yet", "this is final", "nous restons ici"]
    for q in quotes:
        assert q.text in text[q.start : q.end]


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        (
            "Minister powiedział: „To jest bardzo ważna decyzja”. Potem wyszedł.",
            "To jest bardzo ważna decyzja",
        ),
        (
            "Er sagte: „Das ist eine sehr wichtige Entscheidung“. Dann ging er.",
            "Das ist eine sehr wichtige Entscheidung",
        ),
        ("首相は「これは重要な決定だ」と述べた。", "これは重要な決定だ"),
        ("他表示：『這是一個非常重要的決定』。", "這是一個非常重要的決定"),
    ],
)
def test_quotes_in_polish_german_and_corner_brackets(text: str, quoted: str) -> None:
    """Polish (and Hungarian, Romanian) close „ with ”, German with “; Japanese and
    traditional Chinese quote in corner brackets."""
    assert [q.text for q in find_quotes(text)] == [quoted]


def test_a_sentence_opening_with_a_low_quotation_mark_is_its_own() -> None:
    text = "Er ging nach Hause. „Wir bleiben hier“, sagte er. Dann war Ruhe."
    got = [text[s:e] for s, e in split_sentences(text)]
    assert got == ["Er ging nach Hause.", "„Wir bleiben hier“, sagte er.", "Dann war Ruhe."]


def test_quote_spanning_two_sentences_marks_both() -> None:
    text = "“First part of it. Second part of it,” the source said."
    sents = sentences_for(text, find_quotes(text))
    assert len(sents) == 2
    assert sents[0].quoted_share == 1.0
    assert 0.3 < sents[1].quoted_share < 1.0


def test_a_quotation_runs_on_over_paragraphs() -> None:
    from unspin.normalise import quotes_run_on

    # the news convention: each paragraph of a long quotation opens with a mark, only the
    # last one closes
    news = (
        "The mayor spoke on Monday.\n"
        "“We will rebuild the bridge by June and open it to traffic.\n"
        "“The money is already set aside for the work,” she said.\n"
        "The council agreed."
    )
    assert [q.text for q in find_quotes(news)] == [
        "We will rebuild the bridge by June and open it to traffic.",
        "The money is already set aside for the work,",
    ]
    # a quotation of several sentences stored one sentence per line (ECB+): closed lines
    # later, with no mark of its style in between
    lines = (
        "“I am so excited to host the show a second time.\n"
        "You know what they say about the second time.\n"
        "It is always better,” she said.\nShe laughed."
    )
    got = find_quotes(lines)
    assert [q.text for q in got] == [
        "I am so excited to host the show a second time.",
        "You know what they say about the second time.",
        "It is always better,",
    ]
    assert all(lines[q.start : q.end] == q.text for q in got)
    # straight marks run on only by the news convention
    straight = (
        'He said:\n"We will not stop until the job is done and the river is clean.\n'
        '"Nobody should doubt that," he added.'
    )
    assert len(find_quotes(straight)) == 2
    # ... or, in text tokenised for corpora (ECB+), opened with " and closed with ''
    ptb = (
        'Police said: " The fire spread through the store.\n'
        "It is being treated as arson. ''\nNo one was hurt."
    )
    assert [q.text for q in find_quotes(ptb)] == [
        "The fire spread through the store.",
        "It is being treated as arson.",
    ]
    # a straight mark used as an apostrophe (Reuters-21578) opens nothing
    apostrophe = 'It was hit by last year"s fall in oil prices.\n"We will recover," he said.'
    assert [q.text for q in find_quotes(apostrophe)] == ["We will recover,"]
    assert not quotes_run_on(apostrophe)
    # a stray mark, a later paragraph opening its own quotation, and a closing mark too
    # far on: no run
    stray = (
        "A stray “ mark here and nothing more in it.\nA new paragraph “with its own quote” here."
    )
    far = "“One.\nTwo lines.\nThree lines.\nFour lines.\nFive lines here,” he said."
    assert [q.text for q in find_quotes(stray)] == ["with its own quote"]
    assert find_quotes(far) == []
    # the store's cache key marks exactly the texts read otherwise than before
    assert quotes_run_on(news) and quotes_run_on(lines) and quotes_run_on(straight)
    assert quotes_run_on(ptb)
    assert not quotes_run_on(stray) and not quotes_run_on(far)
    assert not quotes_run_on("She said “the plan works” and left.\nHe said “no” later.")


def test_apostrophes_are_not_quotes() -> None:
    assert find_quotes("The mayor’s office said it’s the union’s call to make now.") == []


def test_boilerplate() -> None:
    assert is_boilerplate("CLICK TO GET THE FOX NEWS APP")
    assert is_boilerplate("READ MORE: HARBOUR TOLLS TO RISE IN SPRING")
    assert is_boilerplate("Adam Shaw contributed to this report.")
    assert is_boilerplate("© 2025 Some Outlet. All rights reserved.")
    assert is_boilerplate("BLUE CITY POLICE SAY THEY ARE PAID LESS THAN SUBORDINATES")
    assert not is_boilerplate("The mayor said the city would work with federal authorities.")
    assert not is_boilerplate("NATO said on Monday that the talks had failed.")
    assert is_boilerplate("Sign up for our daily briefing")
    assert is_boilerplate("Subscribe now for full access to every story.")
    # calls to action only: ordinary sentences with the same verbs are content
    assert not is_boilerplate("The US refused to sign up to the Kyoto treaty in 2001.")
    assert not is_boilerplate("Few economists subscribe to the view that rates will fall.")


def test_an_all_caps_first_line_is_the_title_not_boilerplate() -> None:
    title = "ACME HOLDINGS SETS QUARTERLY DIVIDEND"
    assert is_boilerplate(title)  # inside a text: a related-link headline
    assert not is_boilerplate(title, headline=True)
    assert is_boilerplate("CLICK TO GET THE FOX NEWS APP", headline=True)  # patterns still apply
    text = f"{title}\n\nAcme Holdings said it would pay 12 cts a share.\n\nREAD MORE: ACME NEWS"
    flags = [s.boilerplate for s in sentences_for(text, [])]
    assert flags == [False, False, True]


def test_normalise_text_folds_case_space_quotes() -> None:
    assert normalise_text("“Hello”  World\n") == normalise_text('"hello" world')


def test_normalise_text_folds_tokeniser_spacing() -> None:
    # one text stored as a tokeniser's output and as written: one normal form
    plain = "Officials don't agree, it's said. \"It's weeks,\" the master said (at 9%)."
    spaced = (
        "Officials do n't agree , it 's said . \" It 's weeks , \" the master said ( at 9 % ) ."
    )
    assert normalise_text(spaced) == normalise_text(plain)
    assert normalise_text("a long - term plan") == normalise_text("a long-term plan")
    # words stay apart: only spacing around punctuation and clitics is folded
    assert normalise_text("do not agree") != normalise_text("donot agree")
    assert normalise_text("Mr Smith's plan") != normalise_text("Mr Smith plan")


def test_language() -> None:
    en = detect_language("The council voted on Thursday to approve the new bridge over the river.")
    es = detect_language(
        "El consejo votó el jueves a favor de aprobar el nuevo puente sobre el río."
    )
    assert en[0] == "en" and es[0] == "es"
    assert detect_language("12345 ...")[0] == "und"


def test_artefact_counter_sees_mt_casing_and_spacing() -> None:
    from unspin.classify import artefact_count

    clean = artefact_count("The mayor will meet the border czar on Thursday in New York.")
    spun = artefact_count("The mayor will meet the border tsar On thursday in New York, $ 60 paid.")
    assert clean[0] == 0
    assert spun[0] >= 3


def test_translationese_features() -> None:
    from unspin.classify import function_word_share, odd_words
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint

    src, der = fingerprint(
        [
            Article("s", "President Bush will send his toughest budget to Congress on Monday."),
            Article(
                "d", "The President of the USA will send the estimate of querompen to the Congress."
            ),
        ],
        Config(embedder="hashing"),
    )
    assert function_word_share(der, {0}) > function_word_share(src, {0})
    assert odd_words(der, {0}, src, {0}) == 1  # "querompen": unknown to English
    assert odd_words(src, {0}, der, {0}) == 0


def test_numbers_read_indian_digit_grouping() -> None:
    from unspin.normalise import numbers

    assert numbers("3,60,000 people and 12,34,567 votes") == {"360000", "1234567"}
    assert numbers("360,000 people and 1,234,567 votes") == {"360000", "1234567"}


WRAPPED_QUOTE = (
    "Texas Commerce Bancshares Inc said its\n"
    "Houston bank filed an application with the\n"
    "Comptroller of the Currency to create the largest\n"
    "banking network in the county, the chairman said.\n"
    "    The bank said the network would link 31 banks\n"
    'having 13.5 billion dlrs in assets. "We expect\n'
    'approval within the year," a spokesman told\n'
    "reporters on Monday.\n"
)


def test_a_hard_wrapped_text_is_read_in_whole_sentences_and_quotations() -> None:
    from unspin.normalise import find_quotes, hard_wrapped, paragraphs

    assert hard_wrapped(WRAPPED_QUOTE)
    # the indented line opens a paragraph; every other line break is a soft wrap
    assert [WRAPPED_QUOTE[s:e].split()[:2] for s, e in paragraphs(WRAPPED_QUOTE)] == [
        ["Texas", "Commerce"],
        ["The", "bank"],
    ]
    sents = [" ".join(WRAPPED_QUOTE[s:e].split()) for s, e in split_sentences(WRAPPED_QUOTE)]
    assert sents == [
        "Texas Commerce Bancshares Inc said its Houston bank filed an application with the "
        "Comptroller of the Currency to create the largest banking network in the county, "
        "the chairman said.",
        "The bank said the network would link 31 banks having 13.5 billion dlrs in assets.",
        '"We expect approval within the year," a spokesman told reporters on Monday.',
    ]
    assert [" ".join(q.text.split()) for q in find_quotes(WRAPPED_QUOTE)] == [
        "We expect approval within the year,"
    ]


def test_hard_wrapped_tells_a_fixed_width_wrap_from_lines_that_are_paragraphs() -> None:
    from helpers import WRAPPED as wrapped

    from unspin.normalise import hard_wrapped, paragraphs

    assert hard_wrapped(wrapped)
    one_per_line = (
        "The minister resigned on Tuesday after a week of pressure from his own party.\n"
        "His deputy will take over until a successor is chosen by the cabinet next month.\n"
        "Opposition leaders called for an early election, saying the government had failed.\n"
        "Markets barely moved on the news, and the currency held steady against the dollar.\n"
        "A spokesman said the prime minister would make a statement to parliament tomorrow.\n"
    )
    header = (
        "http://www.example.com/news/2010/09/story\nShooting at plant\n"
        "on September 10th, 2010\nAccording to reports, a woman shot two co-workers.\n"
    )
    short_list = "Wheat 2.55\nCorn 1.40\nOats 1.10\nSorghum 2.20\nBarley 1.90\n"
    blank_lines = wrapped.replace("\n", "\n\n")
    for text in (one_per_line, header, short_list, blank_lines, STORY_LINES):
        assert not hard_wrapped(text), text
        lines = [m.span() for m in re.finditer(r"[^\n]+", text)]
        assert paragraphs(text) == lines


STORY_LINES = "Bridge reopens\n\nThe old bridge will reopen in June.\nIt closed last year.\n"


def test_a_title_case_headline_puts_no_names_on_common_words() -> None:
    from unspin.normalise import decase_headlines, names

    text = (
        "Tennis Australia Defends Spending On Melbourne Courts As Zbyszewski Watches\n\n"
        "Tennis Australia chief Geoff Pollard said the money was well spent."
    )
    out = decase_headlines(text)
    assert len(out) == len(text)
    # the line's first word, names the prose capitalises and rare spellings keep capitals
    assert out.startswith("Tennis Australia defends spending on melbourne courts as Zbyszewski")
    assert out.split("\n\n")[1] == text.split("\n\n")[1]  # prose untouched
    assert {"defends", "spending", "courts"} <= names(text)
    assert not {"defends", "spending", "courts"} & names(out)
    # acronyms, a question headline, sentence-case titles, all caps and prose lines
    assert decase_headlines("UN Warns Of Nuclear Terror?\n\nIt did.") == (
        "UN warns of nuclear terror?\n\nIt did."
    )
    for same in (
        "Johnson accuses British sprinters\n\nBody text here.",
        "ST LOUIS HOGS UP 1.00 DLR - USDA\n\nprices rose.",
        "Tony Blair\nText here.",
        "Mayor Lena Okafor Met Dr Kessling And Bob Smith.\nMore.",
        # a line of a hard-wrapped paragraph, however capitalised, is no headline
        "TITLE\n\nDexter Corp's Hysol Aerospace\nand Industrial Products Division said.",
    ):
        assert decase_headlines(same) == same


def test_full_names_are_the_last_two_words_of_a_run_of_capitalised_words() -> None:
    from unspin.normalise import full_names

    text = (
        "Home Secretary Charles Clarke said so, working with Foreign Secretary Jack Straw.\n"
        "But Conservative co-chairman Liam Fox said Mr Howard's plans were wrong. "
        "The Lib Dems' Mark Oaten disagreed in March Ms Kennedy said.\n"
        "Ruth\nCalder left. Paris"
    )
    assert full_names(text) == {
        "charles clarke",  # the run's last two words: a title before the name drops
        "jack straw",
        "liam fox",  # "co-chairman" is lower case: the run starts after it
        "mr howard",  # a possessive ends the word, not the name
        "lib dems",  # an apostrophe after the word breaks the run
        "mark oaten",
        "ms kennedy",  # a month breaks the run ("March Ms Kennedy")
    }  # a line end breaks a run ("Ruth" / "Calder"); one word is no pair ("Paris")
    assert full_names("no names here at all, only words") == set()


def test_myriad_units_read_as_the_figure_they_write() -> None:
    """East Asian myriad units with digits after them are one figure: "2万6750" is
    26,750 (not 2 and 6750), "1億2000万" 120 million; a unit with nothing after it keeps
    its digits, which already agree ("400亿" and "$40 billion": 4)."""
    from unspin.normalise import figure_signatures, myriad_numbers

    assert myriad_numbers("現金2万6750ドル") == "現金26750ドル"
    assert myriad_numbers("1億2000万人") == "120000000人"
    assert myriad_numbers("2만 6750달러") == "26750달러"  # Korean, a space after the unit
    assert myriad_numbers("37万5,000ドル") == "375000ドル"  # thousands grouped after it
    assert myriad_numbers("1億4,200万") == "142000000"
    for kept in ("400亿美元", "3万人", "10년 만에", "2.5万円", "No units here: 26,750"):
        assert myriad_numbers(kept) == kept
    assert figure_signatures("2万6750ドル") == figure_signatures("$26,750")
    assert figure_signatures("1億2000万人") == figure_signatures("120 million people")
    assert figure_signatures("400亿美元") == figure_signatures("$40 billion")
    # thousands counted inside a myriad group ("4千万": 4 thousand ten-thousands), in
    # Japanese and Chinese 千, Korean 천, spaced or not: one figure, as "1億4000万"
    assert myriad_numbers("1億4千万ドル") == "140000000ドル"
    assert myriad_numbers("1 億 4 千万ドル") == "140000000ドル"
    assert myriad_numbers("1억 4천만 달러") == "140000000달러"
    assert myriad_numbers("2万5千人") == "25000人"
    assert myriad_numbers("3千万人") == "3千万人"  # nothing after the unit: digits agree
    assert figure_signatures("1 億 4 千万ドル") == figure_signatures("1億4000万ドル")
    assert figure_signatures("1億4千万ドル") == figure_signatures("$140 million")


def test_a_latin_name_with_a_korean_particle_is_the_name() -> None:
    """Korean writes its particles on a Latin name ("FBI에게", to the FBI): the name is
    "fbi", as another text's "FBI" (and the other text uses it)."""
    from unspin.normalise import latin_head, names

    assert (
        names("그는 의회나 FBI에게 진실을 말했다.") == {"fbi"} == names("그는 FBI 조사를 받았다.")
    )
    assert latin_head("ap통신에") == "ap" and latin_head("café") == "café"
    assert latin_head("서울") == "서울"


def test_a_figure_written_with_its_units_letter_is_no_name() -> None:
    """ "M7.1" (a quake's magnitude) is one figure, 7.1: its tokens "M7" and "1" made "m7"
    a name too, so a text writing the magnitude so had a detail the other, writing
    "magnitude 7.1", lacked (and a condensed rewrite's direction was left undecided). A
    name of letters and digits without a decimal part stays a name."""
    from unspin.normalise import figures, names

    assert names("A quake of M7.1 hit the coast. The G20 met.") == {"g20"}
    assert "7.1" in figures("A quake of M7.1 hit the coast.")
    assert names("2017年9月のM7.1地震以降、活発化している。") == set()
    assert names("They drove on the M7 motorway and flew an A380 to B2.") == {"m7", "a380", "b2"}


def test_figures_in_myriad_units_are_read_by_their_value() -> None:
    """A Japanese rewrite writes its source's "30,000人" as "3万人": one figure (30000),
    not two details each text has alone. Units with digits after them ("3万5000"), a
    decimal before the unit ("3.5万"), hundred millions ("1億2000万", "400亿"), Korean
    ("3만 명"), thousands ("3천", "1千万"); 만 after a word ("하나만", "only one") is no
    unit."""
    from unspin.normalise import figures

    assert figures("北から来た人は3万人超。") == figures("30,000人以上") == {"30000"}
    assert figures("3万5000人") == {"35000"} and figures("3.5万人") == {"35000"}
    assert figures("1億2000万円") == {"120000000"} and figures("400亿美元") == {"40000000000"}
    assert figures("1.25億") == {"125000000"} and figures("1.23456万") == {"12345.6"}
    assert figures("3만 명") == {"30000"} and figures("하나만 3개만") == {"3"}
    # thousands (千 천) alone and before a myriad unit: "3천 명", "1千万円", "1천억 원"
    assert figures("3천 명") == figures("3,000명") == {"3000"} and figures("4千人") == {"4000"}
    assert figures("1千万円") == {"10000000"} and figures("1천억 원") == {"100000000000"}
    assert figures("1億4千万") == {"140000000"} and figures("千葉 3人") == {"3"}
    assert figures("3백만 명") == figures("300만 명") == {"3000000"}
    # Japanese tenths: the percentage another text writes with "%"
    assert figures("生徒の2割は") == figures("生徒の20%は") == {"20"}
    assert figures("3.5割") == {"35"} and figures("割引") == frozenset()
    # Thai units below the million ("3 หมื่น" 30,000; "2 แสนล้าน" = "200 พันล้าน"); not a breed
    assert figures("มูลค่า 2 แสนล้าน") == figures("มูลค่า 200 พันล้าน") == {"200000"}
    assert figures("ราว 3 หมื่นคน") == {"30000"} and figures("3 พันธุ์") == {"3"}
    assert figures("In 2018, 4.5% of 1,200 voters") == {"2018", "4.5", "1200"}


def test_local_figures_read_thousands_as_the_language_groups_them() -> None:
    """A Spanish translator writes "10 000 personas", a Spanish rewriter "10.000 personas":
    one figure (10000) in the text's language, not the figures 10 and 000 beside a
    "10.000" the other text has alone. Spaces group thousands in any language but English;
    points only in a decimal-comma language; English reads as ``figures`` does ("1.250"
    is a decimal there). A year before a count stays two numbers."""
    from unspin.normalise import figures, local_figures

    es = local_figures("unas 10 000 personas", "es")
    assert es == local_figures("unas 10.000 personas", "es") == {"10000"}
    assert local_figures("unas 10\u202f000 personas", "fr") == {"10000"}
    assert local_figures("1.500.000 euros y un 3,5 %", "es") == {"1500000", "3,5"}
    assert local_figures("en 2018 500 personas", "es") == {"2018", "500"}
    assert local_figures("10.000,5 euros", "es") == figures("10.000,5 euros")
    for text in ("10 000 dlrs at 1.250", "1.250 pct"):
        assert local_figures(text, "en") == figures(text)
        assert local_figures(text, None) == figures(text)
    assert local_figures("1.250 yuan", "zh") == {"1.250"}  # a decimal-point language


def test_doc_facts_read_figures_in_the_language_of_the_text() -> None:
    """Two Spanish texts writing one figure in the two ways share it as a fact."""
    from unspin.evidence import doc_facts
    from unspin.fingerprint import prepare
    from unspin.model import Article

    a = prepare(Article(id="a", text="Acudieron 10 000 personas al acto.", lang="es"))
    b = prepare(Article(id="b", text="Al acto acudieron 10.000 personas.", lang="es"))
    assert doc_facts(a).figures == doc_facts(b).figures == {"10000"}
    e = prepare(Article(id="e", text="Some 10 000 people came.", lang="en"))
    assert doc_facts(e).figures == {"10", "000"}  # English: as before


def test_figures_are_one_figure_whatever_the_digits() -> None:
    """A Japanese outlet writes "２０１８年" in full width where a rewrite writes "2018年";
    an Arabic one "٢٠١٨" where its English original has "2018": one figure each, in
    figures, figure signatures and the candidate keys; separators of those scripts between
    digits read as such ("１，２００", "٣٫٥"), a full-width comma of Chinese prose not."""
    from unspin.fingerprint import salient_keys
    from unspin.normalise import ascii_digits, figure_signatures, figures, names

    assert figures("２０１８年に３万人") == figures("2018年に3万人") == {"2018", "30000"}
    assert figures("٢٠١٨ و ٣٫٥ و ١٬٢٠٠") == {"2018", "3.5", "1200"}
    assert figures("२०१८ में") == {"2018"} and figures("１，２００人") == {"1200"}
    assert figure_signatures("Ｍ７．１") == figure_signatures("M7.1") == {"71"}
    assert names("A quake of Ｍ７．１ hit the coast.") == set()
    assert figures("我们，他们 2018，3月") == {"2018", "3"}
    assert "n:2018" in salient_keys("２０１８年") and "n:1200" in salient_keys("١٬٢٠٠")
    text = "In 2018, 1,200 voters"
    assert ascii_digits(text) is text  # nothing to fold: the text itself


def test_arabic_thousands_are_read_by_their_value() -> None:
    """The Arabic press writes "380 ألف" (380 thousand) where another text writes
    "380,000": one figure. Millions keep their word in both languages ("1.5 مليون",
    "1.5 million") and stay as written; the word alone is no figure."""
    from unspin.normalise import figures

    assert figures("يسكنها أكثر من 380 ألف نسمة.") == figures("أكثر من 380,000 شخص")
    assert figures("قتل 30 ألفاً") == {"30000"} and figures("15 آلاف جندي") == {"15000"}
    assert figures("٣٨٠ ألف") == {"380000"} and figures("2,5 ألف") == {"2500"}
    assert figures("1,200 ألف") == {"1200000"} and figures("1.5 مليون") == {"1.5"}
    assert figures("ألف شخص") == frozenset()


def test_tagged_names_read_the_names_of_scripts_without_capitals() -> None:
    """Japanese, Korean and Chinese names come from the part-of-speech tagger
    (``wordfreq[cjk]``'s MeCab dictionaries, jieba): proper nouns, and rare nouns the
    dictionary lacks (transliterated names); a dotted name is its parts; grammar,
    one-letter fragments and common nouns are not names. Other languages: none."""
    from unspin.fingerprint import salient_keys
    from unspin.normalise import tagged_names

    ja = "マケドニアのゾラン・ザエフ首相は、ギリシャとの国名をめぐる論争について述べた。"
    got = tagged_names(ja, "ja")
    assert {"マケドニア", "ザエフ", "ゾラン", "ギリシャ"} <= got
    assert not got & {"ゾラン・ザエフ", "首相", "国名", "論争", "について", "の"}
    ko = "인도네시아 적십자 대변인 아울리아 아리아니는 팔루에서 구조 작업이 계속된다고 말했다."
    got = tagged_names(ko, "ko")
    assert {"인도네시아", "팔루"} <= got
    assert not got & {"대변인", "작업", "말했다", "는"}
    assert all(len(w) >= 2 for w in got)
    zh = "来自布里斯托尔的嘻哈三人组希望用积极的信息挑战人们对这一音乐类型的负面看法。"
    assert "布里斯托尔" in tagged_names(zh, "zh")
    assert "信息" not in tagged_names(zh, "zh")
    # another language, or a text without these scripts: no tagger runs
    assert tagged_names(ja, "en") == set() and tagged_names("Zoran Zaev spoke.", "ja") == set()
    # the keys: u: for the tagged names, in the text's language only
    keys = salient_keys(ja, "ja")
    assert "u:ザエフ" in keys and "u:マケドニア" in keys
    assert not [k for k in salient_keys(ja) if k.startswith("u:")]
    assert salient_keys("Zoran Zaev met Greek leaders.", "en") == salient_keys(
        "Zoran Zaev met Greek leaders."
    )


def test_rare_script_words_are_the_keys_of_arabic_texts() -> None:
    """An Arabic text's rare words (vowel marks and tatweel left out, four letters or
    more, rarer than ``RARE_ZIPF``) are its ``u:`` keys; common words, particles and
    other languages give none."""
    from unspin.fingerprint import salient_keys
    from unspin.normalise import arabic_key, rare_script_words

    text = "افتتح الرئيس مسجد كولونيا، وندد المحتجون بالحاكم المستبدّ وقالوا مستبدًا."
    got = rare_script_words(text, "ar")
    assert arabic_key("مستبدًا") in got and arabic_key("مستبدا") == "مستبد"  # tanween out
    assert not got & {"الرئيس", "مسجد", "افتتح"}  # common words
    assert all(len(w) >= 3 for w in got)
    assert rare_script_words(text, "sd") == set() and rare_script_words("Cologne", "ar") == set()
    assert "u:مستبد" in salient_keys(text, "ar")
    assert not [k for k in salient_keys(text) if k.startswith("u:")]


def test_an_arabic_word_is_keyed_without_its_clitics() -> None:
    """A common word with a preposition or the article written onto it is rare as
    spelt but is no key ("بالحاكم": "الحاكم"); a name the word list does not hold with
    a conjunction on it is keyed by the form the list holds ("وتشيكس" -> "تشيكس"), so
    two texts writing it with and without share the key; one letter's spellings are
    one key (hamza seats); the key is the Snowball stem, so clitics on a name neither
    form of which the list holds ("وإيغودالا") and a verb's endings do not make two
    keys."""
    from unspin.normalise import arabic_key, arabic_stems, rare_script_words

    assert arabic_key("بالحاكم") is None and arabic_key("والفرار") is None
    assert arabic_key("للاشتباه") is None  # "لل": the preposition and the article
    assert "الاشتباه" in arabic_stems("للاشتباه")
    assert arabic_key("وتشيكس") == arabic_key("تشيكس") == "تشيكس"
    assert arabic_key("إيغودالا") == arabic_key("ايغودالا")
    # the stemmer's key: clitics on names the list does not hold, a verb's endings
    assert arabic_key("وإيغودالا") == arabic_key("إيغودالا")
    assert arabic_key("بواسيلا") == arabic_key("واسيلا")
    assert arabic_key("صدمتها") == arabic_key("صدمها")
    a = rare_script_words("قال مدرب فريق تشيكس إن اللاعب غاب.", "ar")
    b = rare_script_words("وفاز فريق سيكسرز وتشيكس في المباراة.", "ar")
    assert arabic_key("تشيكس") in a & b


def test_a_hindi_texts_rare_words_are_keys_by_their_stems() -> None:
    """Hindi has no capitals: its rare words (wordfreq's Hindi list, under ``RARE_ZIPF``)
    are its ``u:`` keys by their Snowball stems (one key for a word's direct and oblique
    forms); its common words give none, and other Devanagari languages none."""
    from unspin.fingerprint import salient_keys
    from unspin.normalise import rare_script_words

    text = "कैलिफ़ोर्निया में भूकंप आया, इंडोनेशियाई अधिकारियों ने कहा कि सरकार मदद करेगी।"
    got = rare_script_words(text, "hi")
    assert got and not got & {"सरकार", "भूकंप", "अधिकारियों"}
    assert got & rare_script_words("वह कैलिफ़ोर्निया गया।", "hi")
    assert rare_script_words(text, "mr") == set()
    assert any(k.startswith("u:") for k in salient_keys(text, "hi"))


def test_rare_script_words_read_the_start_of_a_text_only(monkeypatch) -> None:
    """The rare-word reader stops at ``TAGGED_NAME_MAX_CHARS`` as the taggers do: a text
    at the size limit costs what its start costs."""
    import unspin.normalise as nm

    head = "قال مدرب فريق تشيكس إن اللاعب غاب. "
    tail = "وقال مستبدا آخر."
    assert {nm.arabic_key("تشيكس"), nm.arabic_key("مستبدا")} <= nm.rare_script_words(
        head + tail, "ar"
    )
    monkeypatch.setattr(nm, "TAGGED_NAME_MAX_CHARS", len(head))
    got = nm.rare_script_words(head + tail, "ar")
    assert nm.arabic_key("تشيكس") in got and nm.arabic_key("مستبدا") not in got


def test_a_persian_texts_rare_words_are_keys_as_written() -> None:
    """Persian writes its plural and verb affixes apart: its rare words are keys as
    written, with the Arabic forms of kaf and yeh read as Persian's; common words none."""
    from unspin.normalise import rare_script_words

    got = rare_script_words("خانم پالین در کلیسای واسیلا گفت که تحریم‌ها باید لغو شوند.", "fa")
    assert {"پالین", "واسیلا"} <= got and not got & {"تحریم", "کلیسای", "باید"}
    assert rare_script_words("كليساي واسيلا", "fa") == rare_script_words("کلیسای واسیلا", "fa")


def test_an_urdu_texts_rare_words_are_keys_as_written() -> None:
    """Urdu, as Persian: rare words as written are keys, common words none."""
    from unspin.normalise import rare_script_words

    got = rare_script_words("پاکستان کی حکومت نے کہا کہ واسیلا کے چرچ میں آگ لگی۔", "ur")
    assert "واسیلا" in got and not got & {"پاکستان", "حکومت"}


def test_tagged_names_read_the_start_of_a_text_only(monkeypatch) -> None:
    """The tagger reads at most ``TAGGED_NAME_MAX_CHARS`` characters: a text at the size
    limit costs what its start costs (jieba reads ~28,000 Chinese characters a second)."""
    import unspin.normalise as nm

    head = "来自布里斯托尔的嘻哈三人组希望挑战负面看法。"
    tail = "马其顿总理佐兰·扎耶夫表示支持。"
    assert {"布里斯托尔", "马其顿"} <= nm.tagged_names(head + tail, "zh")
    monkeypatch.setattr(nm, "TAGGED_NAME_MAX_CHARS", len(head))
    got = nm.tagged_names(head + tail, "zh")
    assert "布里斯托尔" in got and "马其顿" not in got


def test_months_and_weekdays_are_date_keys_in_the_texts_language() -> None:
    # an Italian, Russian (in its running-text case) or Polish report is dated as an
    # English one is, by one key a month whatever the language; an English text reads
    # only English (and Spanish) names, as before
    from unspin.fingerprint import salient_keys

    def dates(text: str, lang: str | None) -> set[str]:
        return {k for k in salient_keys(text, lang) if k[:2] in ("m:", "d:")}

    want = {"m:dec", "d:monday"}
    assert dates("On Monday, December 15, police said.", "en") == want
    assert dates("Lunedì 15 dicembre la polizia ha detto.", "it") == want
    assert dates("В понедельник 15 декабря полиция сообщила.", "ru") == want
    assert dates("W poniedziałek 15 grudnia policja podała.", "pl") == want
    assert dates("El lunes 15 de diciembre la policía dijo.", "es") == want
    assert dates("Sept. 3, a Sunday", "en") == {"m:sep", "d:sunday"}
    # a language's names are read in its own texts only: "dicembre" in an English text
    # is no month of it
    assert dates("The Dicembre gallery opened.", "en") == set()


def test_a_german_texts_common_nouns_are_no_name_keys() -> None:
    # German capitalises every noun: "Polizei", "Feuer" are no names; "Banstead",
    # "Waitrose", "Obama" are; read as before (noun_names) they are all keys
    from unspin.fingerprint import salient_keys

    text = (
        "Laut Polizei hat das Feuer in Banstead den Supermarkt von Waitrose zerstört, sagte Obama."
    )
    names = {k for k in salient_keys(text, "de") if k[:2] in ("e:", "w:")}
    assert {"w:banstead", "w:waitrose", "w:obama"} <= names
    assert not {"w:polizei", "w:feuer", "e:polizei", "e:feuer"} & names
    before = {k for k in salient_keys(text, "de", noun_names=True) if k[:2] == "w:"}
    assert {"w:polizei", "w:feuer"} <= before
    # an English text's capitalised words are names as ever
    assert "w:police" in salient_keys("He said Police in Banstead were called.", "en")


def test_a_name_in_its_cases_is_one_story_key_where_names_inflect() -> None:
    # Russian, Polish and Turkish names take case endings: "Путин" / "Путина",
    # "Warszawa" / "Warszawie", "Ankara" / "Ankara'da" are one name, one ``u:`` key each
    # (their ``w:`` keys stay as written, for the comparison across languages)
    from unspin.fingerprint import salient_keys
    from unspin.normalise import name_stem

    def stems(text: str, lang: str) -> set[str]:
        return {k for k in salient_keys(text, lang) if k.startswith("u:")}

    ru = stems("Вчера в Москве выступил Путин.", "ru")
    assert ru == {"u:москв", "u:путин"} == stems("Позже о Путине говорила Москва.", "ru")
    assert "w:путин" in salient_keys("Вчера выступил Путин.", "ru")
    assert name_stem("Warszawa", "pl") == name_stem("Warszawie", "pl")
    assert name_stem("Trump", "pl") == name_stem("Trumpa", "pl")
    assert name_stem("Ankara'da", "tr") == name_stem("Ankara", "tr")
    assert name_stem("Erdoğan’ın", "tr") == name_stem("Erdoğan", "tr")
    assert name_stem("Trump", "pl") != name_stem("Tusk", "pl")
    # a language without a Snowball algorithm of its own: the first letters
    assert name_stem("Харкова", "uk") == name_stem("Харкові", "uk") == "харко"
    # elsewhere a name keeps its one written form: no stem keys at all
    assert name_stem("Trumps", "de") is None and name_stem("Putin", "en") is None
    assert not stems("Gestern sprach Putin in Moskau.", "de")
    assert not stems("Yesterday Putin spoke in Moscow.", "en")


def test_a_name_stem_without_its_snowball_algorithm_is_its_first_letters(monkeypatch) -> None:
    # an installed snowballstemmer older than a language's algorithm: the prefix rule
    import unspin.normalise as N

    def missing(language: str):
        raise KeyError(f"Stemming algorithm {language!r} not found")

    N.name_stem.cache_clear()
    monkeypatch.setattr(N, "_stemmer", missing)
    try:
        assert N.name_stem("Warszawie", "pl") == "warsz"
    finally:
        N.name_stem.cache_clear()


def _caps_reference(text: str) -> list[bool]:
    """caps_words as first written: each token's all-caps run found again from it."""
    from unspin.normalise import CAPS_MIN_WORDS, token_spans

    toks = [text[s:e] for s, e in token_spans(text)]
    upper = [
        t == t.upper()
        if t.isascii()
        else not any(c.islower() or c.isalpha() and not c.isupper() for c in t)
        for t in toks
    ]
    out = [False] * len(toks)
    k = 0
    while k < len(toks):
        j = k
        while j < len(toks) and upper[j]:
            j += 1
        if sum(any(c.isupper() for c in t) for t in toks[k:j]) >= CAPS_MIN_WORDS:
            out[k:j] = [True] * (j - k)
        k = max(j, k + 1)
    return out


@pytest.mark.parametrize(
    "text",
    [
        "OMAHA HOGS OPEN UP 1.00 DLR - PRIVATE SOURCES. Hog prices were up.",
        "TWO CAPS then lower, and 1987 30 44 figures; THREE CAPS HERE 12 end",
        "ΑΘΗΝΑ ΚΑΙ ΠΕΙΡΑΙΑΣ σήμερα, ΜΟΣΚΒА ПРОТИВ КИЕВА вчера",
        "北马其顿 VOTE ON NAME 今天 A B C",
        "",
        "NOTE: Franklin Insured Tax-Free Income Fund. Mthly div 7.1 cts vs 7.1 cts prior",
    ],
)
def test_all_caps_stretches_are_read_as_first_written(text: str) -> None:
    """``caps_words`` reads each run of tokens without lower case once (session 58): the
    same marks as finding the run again from each of its tokens."""
    from unspin.normalise import caps_words

    assert caps_words(text) == _caps_reference(text)


def test_a_capital_after_a_sentence_line_or_quotation_opening_is_no_name() -> None:
    """``names`` reads the two characters before a capitalised word only (session 58):
    after ". ", a line break, ": " or an opening quotation the capital is the opening's."""
    from unspin.normalise import names

    text = 'He met Anna Berg. Then Paris said: "Never again," and\nLater Oslo, Rome, "Quiet" Bern'
    # Then, Never, Later, Quiet open a sentence, a quotation or a line; Bern follows a quote
    assert names(text) == {"anna", "berg", "paris", "oslo", "rome"}


def test_words_of_ascii_text_are_its_tokens_lowered_one_by_one() -> None:
    # the ASCII path lowers the whole text before finding words: the same tokens
    from unspin.normalise import _PLAIN_WORD, _words

    texts = [
        "BONN, March 3 - West German Chancellor Helmut Kohl's CDU won 44.3 PCT",
        "O'NEILL and McDONALD'S said ''it's DONE'' -- 3M <MMM> rose 1/2 to 98-3/4.",
        "under_score x_Y A1b2C3 don't 'quoted' ALL-CAPS word's",
        "",
    ]
    for text in texts:
        _words.cache_clear()
        want = tuple(m.group(0).lower() for m in _PLAIN_WORD.finditer(text))
        assert _words(text) == want
