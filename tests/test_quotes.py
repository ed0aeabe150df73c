"""Quotation index, speakers and cross-article variant groups (texts written for these tests)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.console import Console

import unspin
from unspin.quotes import (
    are_variants,
    block_keys,
    group_id,
    index_quotes,
    may_be_variants,
    quote_groups,
    quote_words,
    render_quotes,
)

SPEAKERS = """Quarry blast shakes Tollbridge

"The windows rattled for a full minute," Wenna Carrow said.

"It felt like the floor was moving," said Aldous Penhale, who lives nearby.

Site manager Piers Laity told reporters: "Every charge was within the permitted limit."

A council spokeswoman told the Tollbridge Echo that "inspectors will visit on Friday morning."

"We will publish the readings in full," a source told the Echo.

"Nobody was hurt," according to Inspector Hallam Rees.

Quarry owner Maud Ellery spoke outside the gates. "We regret the disturbance to our \
neighbours," she said. "We will pay for any damage."
"""

#: one quotation: whole (a, d), split in two (b), reworded (c); e shares only a phrase
FLOOD = {
    "a": 'Flood waters reach Merrowdale\n\n"The river has never risen this fast in my '
    'lifetime, and we were not ready for it," said Mayor Ilse Trow. "Sandbags are free '
    'at the depot," she added.',
    "b": 'Merrowdale mayor admits flood surprise\n\n"The river has never risen this fast in '
    'my lifetime," Trow said on Monday. "And we were not ready for it."',
    "c": 'Merrowdale floods\n\n"The river has never risen so fast in my lifetime, and we '
    'were not prepared for it," Mayor Trow said.',
    "d": 'Mayor: not ready\n\n"The river has never risen this fast in my lifetime, and we '
    'were not ready for it," Trow told reporters. "Sandbags are free at the depot."',
    "e": 'Rain forecast\n\n"The river has never looked so calm," a volunteer said.',
}


def _scan(tmp: Path, texts: dict[str, str]) -> unspin.Result:
    tmp.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        (tmp / f"{name}.txt").write_text(text, encoding="utf-8")
    return unspin.scan([tmp])


@pytest.fixture(scope="module")
def flood(tmp_path_factory: pytest.TempPathFactory) -> unspin.Result:
    return _scan(tmp_path_factory.mktemp("flood"), FLOOD)


def test_speakers_from_attributions(tmp_path: Path) -> None:
    result = _scan(tmp_path, {"quarry": SPEAKERS})
    got = [(v.text, v.speaker) for v in index_quotes(result.docs)]
    assert [s for _, s in got] == [
        "Wenna Carrow",
        "Aldous Penhale",
        "Piers Laity",
        "a council spokeswoman",
        "a source",
        "Inspector Hallam Rees",
        "Maud Ellery",  # "she said" -> the full name in the sentence before
        "Maud Ellery",  # a quotation standing alone continues the previous speaker's
    ]


def test_variants_rule() -> None:
    whole = quote_words("The river has never risen this fast in my lifetime, and we were not")
    assert are_variants(whole, quote_words("never risen this fast in my"))  # contained
    assert are_variants(whole, quote_words("this fast in my lifetime, and we were not ready"))
    assert are_variants(
        whole, quote_words("The river has never risen so fast in my life and we were not")
    )
    assert not are_variants(whole, quote_words("the river has never looked so calm"))
    assert not are_variants(quote_words("we were not ready"), quote_words("we were not sure"))


def _longest_run_reference(a: tuple, b: tuple) -> int:
    best = 0
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            best = max(best, k)
    return best


def _variants_reference(a: tuple, b: tuple) -> bool:
    """The rule as first written: every position pair, full edit distance."""
    from unspin.normalise import edit_distance
    from unspin.quotes import MAX_EDIT, MIN_CONTAINED, MIN_RUN

    short, long = sorted((a, b), key=len)
    n = len(short)
    if n >= MIN_CONTAINED and any(long[i : i + n] == short for i in range(len(long) - n + 1)):
        return True
    if _longest_run_reference(a, b) >= max(MIN_RUN, len(short) / 2):
        return True
    limit = MAX_EDIT * len(short)
    if len(short) < MIN_RUN or len(long) - len(short) > limit:
        return False
    return edit_distance(a, b) <= limit


def test_fast_variant_checks_equal_the_reference() -> None:
    """The run lookup (sampled 4-grams grown both ways), the containment by substring,
    the multiset bound and the banded edit distance give the verdicts of the plain rule
    on random word sequences over small vocabularies (repeats, runs at both ends)."""
    import random

    from unspin.quotes import _shares_run

    rng = random.Random(7)
    agree = true = ruled_out = 0
    for _ in range(4000):
        vocab = [f"w{i}" for i in range(rng.choice([2, 3, 5, 12]))]
        a = tuple(rng.choice(vocab) for _ in range(rng.randint(1, 30)))
        b = list(a) if rng.random() < 0.6 else [rng.choice(vocab) for _ in range(30)]
        for _ in range(rng.randint(0, 6)):  # edits, a cut, a prefix
            op = rng.random()
            if op < 0.4 and b:
                b[rng.randrange(len(b))] = rng.choice(vocab)
            elif op < 0.6 and b:
                del b[rng.randrange(len(b))]
            elif op < 0.8:
                b.insert(rng.randrange(len(b) + 1), rng.choice(vocab))
            else:
                lo = rng.randrange(len(b) + 1)
                b = b[lo : lo + rng.randint(1, 30)]
        b = tuple(b)
        run = _longest_run_reference(a, b)
        for n in range(1, 12):
            assert _shares_run(a, b, n) == (run >= n), (a, b, n)
        want = _variants_reference(a, b)
        assert are_variants(a, b) == want == are_variants(b, a), (a, b)
        # the per-quotation prefilter never says no to a pair the rule calls variants
        # (and does say no: counted below)
        ga, gb = block_keys(a), block_keys(b)  # quote_groups' blocking keys
        maybe = may_be_variants(a, b, ga, gb, set(a), set(b))
        assert maybe or not want, (a, b)
        assert may_be_variants(b, a, gb, ga, set(b), set(a)) or not want, (a, b)
        agree += 1
        true += want
        ruled_out += not maybe
    assert agree == 4000 and 300 < true < 3700  # both verdicts well exercised
    assert ruled_out > 300, ruled_out


def test_dense_blocks_group_alike_with_fewer_comparisons(monkeypatch) -> None:
    """A block of more than DENSE_BLOCK wordings of one passage compares a pair only
    when the two are not yet in one group: the same groups as comparing every pair, in
    far fewer comparisons (a pile that quotes one passage in many wordings)."""
    import unspin.quotes as qm
    from unspin.model import Article, Doc, Quote

    base = "the harbour bridge will be rebuilt before the winter storms come back".split()
    docs = []
    for i in range(80):
        w = list(base)
        w[i % len(w)] = f"x{i}"  # each a one-word variant of the others
        text = '"' + " ".join(w) + '" he said.'
        q = Quote(1, 1 + len(" ".join(w)), " ".join(w))
        docs.append(Doc(Article(id=f"d{i:02d}", text=text), [], "en", 1.0, "", quotes=[q]))
    other = "nobody in the town can remember a storm like this one".split()
    for i in range(3):
        text = '"' + " ".join(other) + f' {i}" she said.'
        q = Quote(1, 2 + len(" ".join(other)), " ".join(other) + f" {i}")
        docs.append(Doc(Article(id=f"e{i}", text=text), [], "en", 1.0, "", quotes=[q]))
    speakers = lambda d: [None] * len(d.quotes)  # noqa: E731
    calls: list[int] = []
    real = qm.are_variants

    def counting(a, b):
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr(qm, "are_variants", counting)
    dense = quote_groups(docs, speakers=speakers)
    n_dense = len(calls)
    monkeypatch.setattr(qm, "DENSE_BLOCK", 10_000)  # every pair of every block
    calls.clear()
    every = quote_groups(docs, speakers=speakers)
    assert [g.to_record() for g in dense] == [g.to_record() for g in every]
    assert len(dense) == 2 and len(dense[0].articles) == 80
    assert len(calls) > 2000 and n_dense < len(calls) / 5, (n_dense, len(calls))


def test_groups_whole_split_and_altered(flood: unspin.Result) -> None:
    groups = quote_groups(flood.docs)
    river = next(g for g in groups if "never risen" in g.text)
    assert river is groups[0] and river.articles == ["a", "b", "c", "d"]
    assert re.fullmatch(r"q[0-9a-f]{12}", river.id) and river.id == group_id(river.variants)
    assert quote_words(river.text) == quote_words(FLOOD["a"].split('"')[1])
    assert river.altered_in == ["c"]  # b quotes the same words in two pieces
    assert len([v for v in river.variants if v.article == "b"]) == 2
    assert river.speaker == "Trow"
    sandbags = next(g for g in groups if "Sandbags" in g.text)
    assert sandbags.articles == ["a", "d"] and sandbags.altered_in == []
    assert all("e" not in g.articles for g in groups)
    assert [len(g.articles) for g in groups] == sorted(
        (len(g.articles) for g in groups), reverse=True
    )


def test_group_ids_stay_when_an_article_moves_other_groups(tmp_path: Path) -> None:
    """A group's id is its first variant's (article id, offset) hashed: a new article that
    carries one quotation moves its group up the list, and the other groups keep their ids
    (numbered ids, most widely carried first, shifted with it)."""
    base = {k: FLOOD[k] for k in ("a", "d", "e")}
    sandbags = 'Depot opens\n\n"Sandbags are free at the depot," the council said.'
    before = quote_groups(_scan(tmp_path / "before", base).docs)
    after = quote_groups(_scan(tmp_path / "after", {**base, "g": sandbags}).docs)
    assert [g.text.split()[0] for g in before] == ["The", "Sandbags"]
    assert [g.text.split()[0] for g in after] == ["Sandbags", "The"]  # moved up
    assert {g.text: g.id for g in after} == {g.text: g.id for g in before}
    assert len({g.id for g in after}) == len(after)
    # the same pile in another order: the same ids
    again = quote_groups(list(reversed(_scan(tmp_path / "again", {**base, "g": sandbags}).docs)))
    assert sorted(g.id for g in again) == sorted(g.id for g in after)
    # two groups whose ids hash alike are told apart by all 40 hex digits
    full = group_id(after[0].variants, full=True)
    assert full.startswith(after[0].id) and len(full) == 41


def test_min_articles_and_records(flood: unspin.Result) -> None:
    assert all(len(g.articles) >= 2 for g in quote_groups(flood.docs))
    singles = quote_groups(flood.docs, min_articles=1)
    assert any(g.articles == ["e"] for g in singles)
    rec = json.loads(json.dumps(singles[0].to_record()))
    assert set(rec) == {"id", "text", "variants", "articles", "altered_in", "speaker"}
    v = rec["variants"][0]
    doc = next(d for d in flood.docs if d.id == v["article"])
    assert doc.article.text[v["start"] : v["end"]] == v["text"]


def test_render_quotes(flood: unspin.Result) -> None:
    out = io.StringIO()
    Console(file=out, width=120).print(render_quotes(quote_groups(flood.docs)))
    text = out.getvalue()
    river = quote_groups(flood.docs)[0]
    assert river.id in text and "The river has never risen" in text and "Trow" in text


@pytest.mark.shared
def test_seed_quotation_shared_by_independent_writeups(shared: Path) -> None:
    result = unspin.scan([shared / "seeds"])
    ids = {p: next(d.id for d in result.docs if d.id.startswith(p)) for p in ("001", "002", "003")}
    hits = [g for g in quote_groups(result.docs) if "The mayor has emergency order power" in g.text]
    assert len(hits) == 1
    assert set(ids.values()) <= set(hits[0].articles)


def test_speakers_and_credits_named_in_other_scripts(tmp_path: Path) -> None:
    """A name opening with a capital outside A-Z (Turkish, Greek, Cyrillic, Nordic) is a
    name too: for speakers, for outlets an article credits, for changed attributions."""
    from unspin.changes import _ATTRIBUTION
    from unspin.evidence import credited_outlets
    from unspin.lineage import outlet_mentions

    text = (
        "Harbour strike ends\n\n"
        '"The cranes will move again on Monday," said Ömer Çelik, the harbour master.\n\n'
        '"Nobody wants a second strike," said Ιωάννα Παππά.\n\n'
        '"Wages were the only question," Ирина Петрова told reporters.\n\n'
        "The deal was first reported by Ærø Avis, and Øresund News reported it later."
    )
    result = _scan(tmp_path, {"strike": text})
    speakers = [v.speaker for v in index_quotes(result.docs)]
    assert speakers == ["Ömer Çelik", "Ιωάννα Παππά", "Ирина Петрова"]
    assert credited_outlets(text) == {"ærø avis"}
    assert [n for _, n in outlet_mentions(result.docs[0])] == ["Øresund News"]
    told = _ATTRIBUTION.finditer("as the mayor told Österreich Heute on Monday")
    assert [m[1] for m in told] == ["Österreich Heute"]


def test_kept_verdicts_hold_the_prefilters_no_so_an_add_asks_nothing_again(monkeypatch) -> None:
    """Pairs that share a stock 4-gram are ruled out by :func:`may_be_variants` without the
    rule; their "no" is kept with the rule's verdicts, so a second run over the kept
    state (an add) asks neither the prefilter nor the rule about any of them."""
    import unspin.quotes as qm
    from unspin.model import Article, Doc, Quote

    texts = [
        "we will look at the end of the day and decide what the port needs",
        "nobody wanted a strike at the end of march",  # "at the end of" only
        "we will look at the end of the day and decide what the harbour needs",
        "the council said the budget at the end of march was too small",
    ]
    docs = []
    for i, t in enumerate(texts):
        docs.append(
            Doc(
                Article(id=f"k{i}", text=f'"{t}" he said.'),
                [],
                "en",
                1.0,
                "",
                quotes=[Quote(1, 1 + len(t), t)],
            )
        )
    speakers = lambda d: [None] * len(d.quotes)  # noqa: E731
    known = qm.KnownQuotes()
    first = quote_groups(docs, speakers=speakers, known=known)
    kept = known.kept()
    assert sum(1 for v in kept.variants.values() if not v) >= 3  # ruled-out pairs kept as no
    asked: list[str] = []
    real_rule, real_pre = qm.are_variants, qm.may_be_variants
    monkeypatch.setattr(qm, "are_variants", lambda a, b: asked.append("rule") or real_rule(a, b))
    monkeypatch.setattr(qm, "may_be_variants", lambda *a: asked.append("prefilter") or real_pre(*a))
    again = quote_groups(docs, speakers=speakers, known=kept)
    assert asked == []
    assert [g.to_record() for g in again] == [g.to_record() for g in first]
    assert any({"k0", "k2"} <= set(g.articles) for g in first)


def _view(groups) -> list:
    return [
        (
            g.id,
            g.text,
            g.articles,
            g.altered_in,
            g.speaker,
            [(v.article, v.start) for v in g.variants],
        )
        for g in groups
    ]


def test_groups_taken_up_from_the_last_run_equal_the_whole_pass(monkeypatch) -> None:
    """``quote_groups`` with a kept ``QuoteState``: docs appended one or a few at a time,
    the derived marks moving, quotations that join two groups, a doc that quotes an old
    one word for word, and a block grown past ``MAX_BLOCK`` (its pairs then no longer
    count: built anew) give the groups of the whole pass every time."""
    import random

    import unspin.quotes as uq
    from unspin.fingerprint import prepare
    from unspin.model import Article

    monkeypatch.setattr(uq, "MAX_BLOCK", 6)
    rng = random.Random(11)
    vocab = [f"w{k}" for k in range(60)]
    said = ["Ana Pell", "Bo Ruiz", "Cy Varga"]
    lines = [" ".join(rng.choice(vocab) for _ in range(9)) for _ in range(8)]
    stock = "the minister said on monday that talks"  # a 4-gram many quotations share
    docs = []
    for k in range(40):
        line = rng.choice(lines).split()
        if rng.random() < 0.3:  # an altered variant
            line[rng.randrange(len(line))] = rng.choice(vocab)
        if rng.random() < 0.2:  # two known lines run together: joins their groups
            line += rng.choice(lines).split()
        if k % 4 == 0:
            line = stock.split() + line[:3]
        text = f'"{" ".join(line)}," {rng.choice(said)} said. Other words follow here.'
        docs.append(prepare(Article(id=f"d{k:02d}", text=text)))
    docs = [d for d in docs if d.quotes]
    keys = [f"{d.id}:key" for d in docs]
    state: dict = {}
    known = uq.KnownQuotes()
    derived: frozenset[str] = frozenset()
    taken = anew = 0
    real = uq._groups_appended

    def counting(d, ids, st, *a):
        nonlocal taken, anew
        before = len(st.docs)
        out = real(d, ids, st, *a)
        taken += out is not None and before > 0
        anew += out is None
        return out

    monkeypatch.setattr(uq, "_groups_appended", counting)
    m = 10
    uq.quote_groups(docs[:m], derived=derived, known=known, state=state, keys=keys[:m])
    while m < len(docs):
        m = min(len(docs), m + rng.choice([1, 1, 3]))
        if rng.random() < 0.4:
            derived = derived ^ {docs[rng.randrange(m)].id}
        got = uq.quote_groups(docs[:m], derived=derived, known=known, state=state, keys=keys[:m])
        want = uq.quote_groups(docs[:m], derived=derived)
        assert _view(got) == _view(want), m
    assert taken >= 5 and anew == 1  # most steps took the last run up; the stock block
    # grew past MAX_BLOCK once
    # a doc given a new text (another key): built anew, the same groups
    keys[3] = "other"
    got = uq.quote_groups(docs, derived=derived, known=known, state=state, keys=keys)
    assert _view(got) == _view(uq.quote_groups(docs, derived=derived)) and anew == 2
    # docs removed: built anew, and the kept words are those of the docs left only
    left = docs[: len(docs) // 2]
    got = uq.quote_groups(
        left, derived=derived, known=state["last"].known, state=state, keys=keys[: len(left)]
    )
    assert _view(got) == _view(uq.quote_groups(left, derived=derived)) and anew == 3
    live = {v.text for v in uq.index_quotes(left)}
    assert set(state["last"].known.words) <= live
