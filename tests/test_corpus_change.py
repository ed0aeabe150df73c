"""An add settles stored pair answers by what its articles change in the corpus
(issues 12 and 14): a stored result whose questions the added or removed articles do
not touch is neither replayed nor are its pair's shares read, and everything still
equals a full rescan."""

from __future__ import annotations

import itertools

import numpy as np
from helpers import record_calls
from test_incremental import FOUR_STORIES, SAID, _same_as_fresh, arts_folder

import unspin
from unspin.corpus import CorpusStats, SupportLocal, SupportView, doc_bigrams, line_hashes
from unspin.fingerprint import prepare
from unspin.model import Article
from unspin.pipeline import Config, CorpusChange, RecordingSupport, same_answers

PILE = [
    "Mayor Ken Vordanek met the Council on Monday to discuss the harbour bridge.",
    "Mayor Ken Vordanek met the council on Monday to discuss the harbour bridge.",
    "Grenfield Mining said output at its Tarrow pit rose by a third.",
    "Pay March 31. The Lisk Valley railway said its line would close for repairs.",
    "Oberline Foods bought the Pellmar dairy for 40 million dollars on Friday.",
    "The council said the bridge would open in June, Mayor Ken Vordanek added.",
]
#: articles an add brings: one sharing nothing asked, and ones sharing each kind of count
NEWCOMERS = [
    "Zebrafish swim quickly through warm tropical reefs near Quopp.",
    "Ken Vordanek opened a school on Friday.",
    "The COUNCIL and the Council met; the council voted.",
    "Pay March 31. Shares of Grenfield Mining rose by a third.",
    "Output at its Tarrow pit rose by a third, the Mayor said on Monday.",
]


def _log(view: SupportView, docs) -> list[tuple]:
    """Every kind of question a pair rule asks, about every pair of ``docs`` (their
    names, words, word pairs and lines), recorded with the answers ``view`` gives."""
    rec = RecordingSupport(view)
    for a, b in itertools.combinations(docs, 2):
        for w in sorted({k[2:] for k in a.keys if k.startswith("w:")})[:4]:
            rec(w, a.id, b.id)
        for w in ("council", "bridge", "mayor", "the", "pit", "quopp", "reefs"):
            rec.casing(w, a.id, b.id)
            rec.lower_only(w, a.id, b.id, 1)
        rec.phrase_support(doc_bigrams(a), a.id, b.id)
        rec.lines_in_at_least(np.unique(line_hashes(a)), 2)
    return rec.log


def test_a_log_the_change_does_not_move_is_answered_the_same() -> None:
    """Soundness, question by question: whenever :meth:`CorpusChange.moves` says a
    question is untouched by the added article, the grown corpus answers it as before
    (and the newcomers do move some questions of each kind they share)."""
    docs = [prepare(Article(id=f"p{k}", text=t)) for k, t in enumerate(PILE)]
    locs = [SupportLocal(d) for d in docs]
    before = SupportView(CorpusStats(locs), locs)
    log = _log(before, docs)
    moved_kinds: set[str] = set()
    for k, text in enumerate(NEWCOMERS):
        extra = SupportLocal(prepare(Article(id=f"new{k}", text=text)))
        grown = CorpusStats([*locs, extra])
        after = SupportView(grown, locs)
        change = CorpusChange([extra], len(locs), len(locs) + 1)
        # a replay of the moved questions alone decides as a replay of the whole log
        moved = change.moved(log, grown)
        assert 0 < len(moved) < len(log), (text, len(moved), len(log))
        assert same_answers(moved, after) == same_answers(log, after)
        for entry in log:
            if not change.moves([entry], grown):
                assert same_answers([entry], after), (text, entry[0], entry[1][:1])
            else:
                moved_kinds.add(entry[0])
        # removing it again is a change of the same counts
        back = CorpusChange([extra], len(locs) + 1, len(locs))
        relog = _log(after, docs)
        for entry in relog:
            if not back.moves([entry], CorpusStats(locs)):
                assert same_answers([entry], before), (text, entry[0])
    assert {"__call__", "casing", "lower_only", "phrase_support"} <= moved_kinds, moved_kinds
    assert CorpusChange([], 6, 6).moves([("form_lines", ("p0", 2, 0.5), {})], CorpusStats(locs))


def test_the_share_of_the_pile_a_casing_question_reads_moves_with_the_count() -> None:
    """``casing`` reads a word's count against a share of the pile's article count: an
    article sharing none of the word's counts moves it when the count crosses that share."""
    docs = [prepare(Article(id=f"c{k}", text=f"The council met on day {k}.")) for k in range(9)]
    locs = [SupportLocal(d) for d in docs]
    stats = CorpusStats(locs)
    held = stats.words["met"]
    share = (held - 0.5) / len(locs)  # just under the count now: one more article flips it
    assert held > share * len(locs) and not held > share * (len(locs) + 1)
    log = [("casing", ("met", "c0", "c1", share), None)]
    assert CorpusChange([], len(locs), len(locs) + 1).moves(log, stats)
    assert not CorpusChange([], len(locs), len(locs)).moves(log, stats)


def test_an_add_replays_only_stored_answers_its_article_touches(tmp_path, monkeypatch) -> None:
    """Stored results that asked the corpus (here: whether the pile holds the copies'
    lines elsewhere) are not replayed when the added article shares none of what they
    asked, nor are their pairs' shares read; an article repeating one story's lines
    replays that story's only; the adds and a removal equal full rescans."""
    import unspin.pipeline as pl
    from unspin.store import Store

    said, stories = SAID, FOUR_STORIES
    arts = []
    for k, (who, what) in enumerate(stories):
        text = f"{who} {said} {what}. Officials welcomed the news, {who} added."
        arts.append(Article(id=f"s{k}", text=text))
        arts.append(
            Article(
                id=f"s{k}-copy", text=text.replace("welcomed", "cheered").replace("news", "move")
            )
        )
    cfg = Config(embedder="hashing", workers=1)
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)

    replays = record_calls(monkeypatch, pl, "same_answers", lambda log, view: len(log))
    shares: list[int] = []
    real_get = Store.memo_get

    def reading(self, kind, keys):
        if kind == "local":
            shares.append(len(keys))
        return real_get(self, kind, keys)

    monkeypatch.setattr(Store, "memo_get", reading)

    # without the change set (as before), an add replays every stored result that asked
    first = Article(id="zz-0", text="Zebrafish swim quickly near Quopp reefs.")
    with monkeypatch.context() as m:
        m.setattr(pl, "corpus_change", lambda *a: None)
        unspin.add([first], out=out, config=cfg)
    now = [*arts, first]
    asked = len(replays)
    assert asked >= 4, asked  # the copies' pairs asked the pile about names and phrases
    replays.clear()
    shares.clear()
    unrelated = Article(id="zz-1", text="Quiet herons nest along the Voss estuary in spring.")
    unspin.add([unrelated], out=out, config=cfg)
    now.append(unrelated)
    assert replays == [], replays  # nothing it changed was asked
    assert sum(shares) <= 2, shares  # its own share only (no pair's read for a replay)
    _same_as_fresh(out, now, cfg)
    replays.clear()
    # a copy of one story repeats the lines its stored pairs asked the pile about
    again = Article(id="zz-2", text=arts[0].text)
    unspin.add([again], out=out, config=cfg)
    now.append(again)
    assert 0 < len(replays) < asked, (len(replays), asked)  # that story's pairs only
    _same_as_fresh(out, now, cfg)
    replays.clear()
    unspin.remove(["zz-2", "s1-copy"], out=out, config=cfg)
    now = [a for a in now if a.id not in ("zz-2", "s1-copy")]
    _same_as_fresh(out, now, cfg)


def test_an_adds_few_pairs_are_aligned_without_forking(tmp_path, monkeypatch) -> None:
    """The align map asks for at least ``ALIGN_MIN_PARALLEL`` pairs before it forks
    workers (an add's few dozen pairs cost more to fork for from a large pile than they
    take here); with two workers and the engine's own bar of 2, an add still aligns its
    pairs in this process, and the result equals a rescan."""
    import unspin.pipeline as pl

    seen: list[tuple[str, int, bool]] = []
    real = pl.LocalEngine._map

    def spy(self, stage, fn, items, context, min_parallel=None, *rest):
        n = len(items)
        seen.append((stage, n, self.forks(n, min_parallel)))
        return real(self, stage, fn, items, context, min_parallel, *rest)

    monkeypatch.setattr(pl.LocalEngine, "_map", spy)
    monkeypatch.setattr(pl, "MIN_PARALLEL", 2)
    arts = [
        Article(id=f"n{k}", text=f"Team {k} won its home game {k} to nil on Saturday night.")
        for k in range(12)
    ]
    cfg = Config(embedder="hashing", workers=2)
    out = tmp_path / "res"
    with monkeypatch.context() as m:
        m.setattr(pl.LocalEngine.__init__, "__defaults__", (0, 2, None))
        unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
        seen.clear()
        extra = Article(id="n-new", text="Team 40 won its home game 3 to nil on Sunday night.")
        unspin.add([extra], out=out, config=cfg)
    aligned = [(n, forked) for stage, n, forked in seen if stage == "align"]
    assert aligned and all(2 <= n < pl.ALIGN_MIN_PARALLEL for n, _ in aligned), aligned
    assert not any(forked for _, forked in aligned), aligned
    _same_as_fresh(out, [*arts, extra], cfg)


def test_provenance_reads_the_article_keys_the_pair_stage_hashed(tmp_path, monkeypatch) -> None:
    """An add hashes each article's key at most once (the pair stage's; the archived
    articles' are read from the archive), not again for every reuse relation's changes
    and every quoting article's speakers; the result equals a rescan."""
    from test_deltas import _pile

    import unspin.pipeline as pl

    arts = _pile()
    cfg = Config(embedder="hashing", workers=1)
    out = tmp_path / "res"
    unspin.scan(arts_folder(tmp_path, arts), out=out, config=cfg)
    real = pl.article_key
    hashed = record_calls(monkeypatch, pl, "article_key", lambda a, embedder: a.id)
    extra = Article(id="zz-copy", text=arts[0].text + " Shops reopened on Friday.")
    result = unspin.add([extra], out=out, config=cfg)
    assert sum(r.relation in ("copy", "near_copy", "spun", "duplicate") for r in result.relations)
    assert any(d.quotes for d in result.docs)
    # the archived articles' keys are read from the archive (kept there by the scan):
    # only the new article is hashed, once
    assert hashed == ["zz-copy"], hashed
    monkeypatch.setattr(pl, "article_key", real)
    _same_as_fresh(out, [*arts, extra], cfg)


def test_story_lineage_equals_building_the_whole_piles_lineage(tmp_path, monkeypatch) -> None:
    """The lineage built story by story equals :func:`unspin.lineage.build_lineage` over
    the whole Result (stories of one article with and without a title and outlet, of
    copies, and of quotations), and only stories of two or more articles go through
    it: a one-article story's graph is made directly."""
    from test_deltas import _pile

    import unspin.lineage as lineage_mod
    from unspin.lineage import build_lineage
    from unspin.pipeline import story_lineage

    arts = [
        *_pile(),
        Article(id="t-1", text="Rain fell on the plains all week.", title="Rain", outlet="Wire"),
    ]
    result = unspin.scan(arts, config=Config(embedder="hashing", workers=1))
    sizes = {len(s.articles) for s in result.stories}
    assert 1 in sizes and max(sizes) > 1, sizes

    def size(part, groups=None):
        return len(part.stories[0].articles)

    calls = record_calls(monkeypatch, lineage_mod, "build_lineage", size)
    assert story_lineage(result, result.quotes) == build_lineage(result, result.quotes)
    assert calls and min(calls) > 1, calls
    assert len(calls) == sum(len(s.articles) > 1 for s in result.stories)
    assert result.lineage == build_lineage(result, result.quotes)
    # the lines given for one-article graphs are their records' lines, made once per
    # process: a second call takes them (the same strings) for the same stories
    from unspin.output import _json_line

    first: dict[int, str] = {}
    graphs = story_lineage(result, result.quotes, first)
    ones = [g for g in graphs if len(g.nodes) == 1 and not g.edges]
    assert ones and set(first) == {id(g) for g in ones}
    assert all(first[id(g)] == _json_line(g.to_record()) for g in ones)
    again: dict[int, str] = {}
    graphs2 = story_lineage(result, result.quotes, again)
    ones2 = [g for g in graphs2 if len(g.nodes) == 1 and not g.edges]
    assert [again[id(g)] for g in ones2] == [first[id(g)] for g in ones]
    assert all(again[id(b)] is first[id(a)] for a, b in zip(ones, ones2))


def test_a_logs_summary_moves_exactly_when_one_of_its_questions_does() -> None:
    """:meth:`CorpusChange.moves` reads a log's :class:`LogSummary` (sets and hash
    arrays) instead of asking question by question: the same answer for whole logs and
    for random parts of them, for each newcomer added and removed."""
    import random

    docs = [prepare(Article(id=f"p{k}", text=t)) for k, t in enumerate(PILE)]
    locs = [SupportLocal(d) for d in docs]
    log = _log(SupportView(CorpusStats(locs), locs), docs)
    rng = random.Random(4)
    seen = set()
    for k, text in enumerate(NEWCOMERS):
        extra = SupportLocal(prepare(Article(id=f"new{k}", text=text)))
        for change, stats in (
            (CorpusChange([extra], len(locs), len(locs) + 1), CorpusStats([*locs, extra])),
            (CorpusChange([extra], len(locs) + 1, len(locs)), CorpusStats(locs)),
        ):
            for part in [log, *(rng.sample(log, rng.randint(1, 6)) for _ in range(300))]:
                want = any(change._moves(e, stats) for e in part)
                assert change.moves(part, stats) == want
                seen.add(want)
    assert seen == {True, False}
    # a log that grows after it was read is read again
    grow = [("__call__", ("zebrafish", "a", "b"), 0)]
    extra = SupportLocal(prepare(Article(id="z", text=NEWCOMERS[0])))
    change = CorpusChange([extra], 6, 7)
    stats = CorpusStats([*locs, extra])
    assert change.moves(grow, stats) == change._moves(grow[0], stats)
    grow.append(("form_lines", ("p0", 2, 0.5), {}))
    assert change.moves(grow, stats)
