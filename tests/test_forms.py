"""Wire forms: lines a pile fills in with other figures and names from item to item.

A dividend notice, an earnings table or a fund's payout is one form filled in for each
company: two companies' notices align line by line, yet neither is a copy of the other
and they are not one event. The pile tells a form from a copy: a form's frame (the line
with its figures and names blanked) is filled in many different ways across the pile.
The notices below are written for these tests (invented companies and figures).
"""

from __future__ import annotations

import numpy as np
from helpers import doc_of, embed, embed_line_by_line

import unspin
from unspin.align import AlignParams, align, form_split
from unspin.classify import ClassifyParams
from unspin.corpus import (
    CorpusStats,
    SupportLocal,
    SupportView,
    form_sentences,
    frame_key,
)
from unspin.fingerprint import prepare
from unspin.model import Article
from unspin.pipeline import Config
from unspin.stories import StoryKeys, pair_features

#: funds of one family: their notices differ in one word of the name and one figure,
#: too few for the aligner's own template rule (two figures or names a side)
COMPANIES = [
    ("Ohio", "4.1"),
    ("Texas", "5.2"),
    ("Oregon", "6.3"),
    ("Vermont", "7.4"),
    ("Maine", "3.5"),
    ("Iowa", "6.6"),
    ("Utah", "5.7"),
    ("Idaho", "4.8"),
]


def notice(k: int, state: str, div: str) -> str:
    """A fund's monthly payout notice of the wire's kind, filled in for one fund."""
    return (
        f"PILGRIM {state.upper()} TAX-FREE SETS PAYOUT\n\n"
        f"Mthly div {div} cts vs {div} cts prior.\n"
        "Pay March 31.\n"
        "Record March 16.\n"
        f"NOTE: Pilgrim {state} Tax-Free Income Fund.\n"
        " Reuter"
    )


def test_a_frame_blanks_runs_of_figures_and_names() -> None:
    assert frame_key("Qtly div 7.1 cts vs 7.1 cts prior") == "qtly div # cts vs # cts prior"
    assert frame_key("Fed funds opened at 5-15/16 pct") == "fed funds opened at # pct"
    # a date is a slot, whichever way it is written
    assert frame_key("Pay June 12") == frame_key("Pay 20 May") == "pay #"
    # a name of any length is one slot
    a = frame_key("NOTE: Franklin Insured Tax-Free Income Fund.")
    b = frame_key("NOTE: Franklin Minnesota Insured Tax-Free Income Fund.")
    assert a == b
    # a sentence reworded is another frame
    assert frame_key("Quarterly dividend 7.1 cts, unchanged") != frame_key(
        "Qtly div 7.1 cts vs 7.1 cts prior"
    )


def _locals(texts: list[str]) -> list[SupportLocal]:
    return [SupportLocal(prepare(Article(id=f"n{k}", text=t))) for k, t in enumerate(texts)]


def test_frame_fills_are_exact_under_add_and_remove() -> None:
    texts = [notice(k, n, t) for k, (n, t) in enumerate(COMPANIES)]
    texts.append(texts[0])  # one notice twice: one more article, not one more fill
    locs = _locals(texts)
    full = CorpusStats(locs)
    frame = locs[0].frame_seq[1]  # "qtly div # cts vs # cts prior"
    assert full.frame_fills(np.array([frame]))[0] == len(COMPANIES)
    grown = CorpusStats(locs[:3])
    for loc in locs[3:]:
        grown.add(loc)
    assert (
        grown.frame_fills(locs[0].frame_seq).tolist()
        == full.frame_fills(locs[0].frame_seq).tolist()
    )
    grown.remove(locs[-1])  # the second copy: the fill stays
    assert grown.frame_fills(np.array([frame]))[0] == len(COMPANIES)
    grown.remove(locs[0])  # the last holder of that fill: one fill fewer
    assert grown.frame_fills(np.array([frame]))[0] == len(COMPANIES) - 1
    rebuilt = CorpusStats(locs[1:-1])
    for name in ("fill_keys", "fill_df", "fill_frames", "frame_keys", "frame_nfill"):
        assert np.array_equal(getattr(grown, name), getattr(rebuilt, name)), name
    for name in ("keys", "df", "line_keys", "line_df"):
        assert np.array_equal(getattr(grown, name), getattr(rebuilt, name)), name


def test_a_form_item_is_an_article_made_mostly_of_form_lines() -> None:
    chars = np.array([40, 30, 0, 30, 40])  # sentence 2 is boilerplate, 0 the headline
    frames = np.array([11, 12, 13, 14, 15], dtype=np.uint64)
    fills = np.array([1, 9, 9, 9, 1])
    # form lines 1 and 3: 60 of the body's 100 content characters
    assert form_sentences(chars, frames, fills, 5, 0.6) == {1: 12, 3: 14}
    assert form_sentences(chars, frames, fills, 5, 0.7) == {}  # not enough of it
    assert form_sentences(chars, frames, fills, 10, 0.5) == {}  # frames not filled often enough


def _view(texts: list[str]) -> tuple[list, SupportView]:
    docs = [prepare(Article(id=f"n{k}", text=t)) for k, t in enumerate(texts)]
    locs = [SupportLocal(d) for d in docs]
    return docs, SupportView(CorpusStats(locs), locs)


def test_two_companies_notices_are_a_form_filled_in_twice_not_reuse() -> None:
    texts = [notice(k, n, t) for k, (n, t) in enumerate(COMPANIES)]
    docs, view = _view(texts)
    p = AlignParams()
    fa = view.form_lines("n0", p.form_min_fills, p.form_share)
    fb = view.form_lines("n1", p.form_min_fills, p.form_share)
    assert fa and fb  # both are form items
    a, b = docs[0], docs[1]
    embed_line_by_line(a, b, 0.95)
    plain = align(a, b, p)
    assert plain.features["cov_a"] > 0.5  # without the pile: the lines align as reuse
    formed = align(a, b, p, (fa, fb))
    assert formed.features["n_template"] >= 1
    assert formed.features["cov_a"] < 0.5 and formed.features["cov_b"] < 0.5
    # the flagged passages are kept for the record
    assert any(x.template for x in formed.passages)


def test_a_corrected_reissue_of_one_notice_stays_reuse() -> None:
    texts = [notice(k, n, t) for k, (n, t) in enumerate(COMPANIES)]
    fixed = texts[0].replace("Pay March 31.", "Pay March 30.")  # one line corrected
    docs, view = _view([*texts, fixed])
    p = AlignParams()
    a, b = docs[0], docs[-1]
    forms = (
        view.form_lines(a.id, p.form_min_fills, p.form_share),
        view.form_lines(b.id, p.form_min_fills, p.form_share),
    )
    embed_line_by_line(a, b, 0.97)
    al = align(a, b, p, forms)
    assert al.features["n_template"] == 0
    assert al.features["cov_a"] > 0.9


def test_form_split_leaves_groups_alone_without_forms() -> None:
    a, b = doc_of("a", ["One line here."]), doc_of("b", ["One line here."])
    item = (0, 0, 0.9, 0.9, 0.9, False, True)
    assert form_split(a, b, [[item]], None, AlignParams()) == ([[item]], [False], 0)
    assert form_split(a, b, [[item]], ({}, {0: 1}), AlignParams()) == ([[item]], [False], 0)


def test_story_features_of_two_form_items_read_what_is_outside_their_forms() -> None:
    a = doc_of("a", ["Qtly div 3 cts.", "Pay April 10.", "The company makes trucks in Ohio."])
    b = doc_of("b", ["Qtly div 4 cts.", "Pay April 11.", "A fire closed the mill in Maine."])
    embed(a, b, {(0, 0): 0.95, (1, 1): 0.95})  # the form lines alike, the rest not
    plain = pair_features(a, b, 0)
    formed = pair_features(a, b, 0, ka=StoryKeys(a, {0: 1, 1: 2}), kb=StoryKeys(b, {0: 1, 1: 2}))
    assert formed["doc_sim"] < plain["doc_sim"]
    assert formed["top_sent"] < plain["top_sent"]
    # one side no form item: compared whole, as before
    half = pair_features(a, b, 0, ka=StoryKeys(a, {0: 1, 1: 2}), kb=StoryKeys(b))
    assert half == plain


def test_in_a_scan_notices_of_one_form_are_neither_reuse_nor_one_story() -> None:
    arts = [Article(id=f"n{k}", text=notice(k, n, t)) for k, (n, t) in enumerate(COMPANIES)]
    # the same company's notice re-issued with one figure corrected
    arts.append(Article(id="n0-fix", text=arts[0].text.replace("Pay March 31.", "Pay March 30.")))
    res = unspin.scan(arts, config=Config(embedder="hashing"))
    kinds = {(r.a, r.b): r.relation for r in res.relations}
    reuse = {"duplicate", "copy", "spun", "partial", "translation"}
    others = [k for k in kinds if "n0-fix" not in k]
    assert not [k for k in others if kinds[k] in reuse | {"same_story"}]
    assert kinds.get(("n0", "n0-fix")) in reuse
    story = {a: s.id for s in res.stories for a in s.articles}
    assert len({story[a.id] for a in arts[:-1]}) == len(COMPANIES)


def test_an_add_that_makes_a_frame_a_form_equals_a_full_rescan(tmp_path) -> None:
    """Four notices: their frames are filled in four ways, under ``form_min_fills`` (5),
    so they are not form items yet; the fifth makes them form items, and the pairs
    already stored must be decided again (the stored pair results replay the pile's
    answers about form lines)."""
    from test_incremental import TABLES, arts_folder

    from unspin.output import read_tables

    # two of these short notices open their headlines with other states and differ in
    # figures: ClassifyParams.notice_subjects already calls them two items by default
    # (checked below); off here, so the pile's form statistics decide, as this test shows
    cfg = Config(embedder="hashing", classify=ClassifyParams(notice_subjects=False))
    arts = [Article(id=f"n{k}", text=notice(k, n, t)) for k, (n, t) in enumerate(COMPANIES[:5])]
    by_default = unspin.scan(arts[:4], config=Config(embedder="hashing"))
    assert not any(
        r.relation in {"duplicate", "copy", "spun", "partial"} for r in by_default.relations
    )
    out = tmp_path / "res"
    before = unspin.scan(arts_folder(tmp_path, arts[:4]), out=out, config=cfg)
    after = unspin.add([arts[4]], out=out, config=cfg)
    (tmp_path / "f").mkdir()
    fresh = unspin.scan(
        arts_folder(tmp_path / "f", arts), out=tmp_path / "fresh", config=cfg, store=False
    )
    a, b = read_tables(out), read_tables(tmp_path / "fresh")
    for t in TABLES:
        assert a[t] == b[t], t
    reuse = {"duplicate", "copy", "spun", "partial"}
    # the pile decided: reuse among four notices, none among five
    assert any(r.relation in reuse for r in before.relations)
    assert not any(r.relation in reuse for r in after.relations)
    assert not any(r.relation in reuse for r in fresh.relations)


def test_corpus_statistics_stored_by_other_code_are_not_updated(tmp_path, monkeypatch) -> None:
    """A store keeps the last run's corpus statistics; another code version's (whose
    article shares may hold other things) is rebuilt, never updated in place."""
    import unspin.pipeline as pl

    cfg = Config(embedder="hashing")
    arts = [Article(id=f"n{k}", text=notice(k, n, t)) for k, (n, t) in enumerate(COMPANIES)]
    unspin.scan(arts[:6], out=tmp_path / "res", config=cfg)
    # the stored statistics become unusable (as a pickle of an older class would be)
    monkeypatch.setattr(pl.CorpusStats, "add", lambda *a: (_ for _ in ()).throw(AssertionError))
    monkeypatch.setattr(pl.CorpusStats, "remove", lambda *a: (_ for _ in ()).throw(AssertionError))
    real = pl.code_version()
    monkeypatch.setattr(pl, "code_version", lambda: "another" + real[7:])
    res = unspin.add(arts[6:], out=tmp_path / "res", config=cfg)
    assert len(res.docs) == len(arts)


def test_pile_forms_kept_from_the_last_run_equal_a_full_pass(tmp_path) -> None:
    """``pipeline.pile_forms`` keeps the last run's verdicts and redoes only articles
    sharing a frame or a line with an added or removed one: after each add and remove
    (notices crossing the fills threshold both ways, an ordinary article beside them),
    every article's form lines equal :func:`form_lines_of` over the whole pile."""
    from unspin.corpus import form_lines_of
    from unspin.pipeline import corpus_stats, pile_forms
    from unspin.store import Store

    texts = [notice(k, n, t) for k, (n, t) in enumerate(COMPANIES)]
    texts.append("Mayor Ken Vordanek met the council on Monday. Pay March 31.")
    locs = _locals(texts)
    keys = [f"k{k}" for k in range(len(locs))]
    p = AlignParams()
    with Store(tmp_path / "st") as st:
        st.memo_put("local", dict(zip(keys, locs)))
        # 4 notices: below 5 fills; then the 5th and more; then back below; reordered ids
        for pick in (
            [0, 1, 2, 3, 8],
            [0, 1, 2, 3, 8, 4],
            [0, 1, 2, 3, 8, 4, 5, 6],
            [0, 2, 8, 4],
            [0, 2, 8, 4, 7, 1, 3],
            [0, 2, 8, 4, 7, 1, 3],
        ):
            ks, ls = [keys[i] for i in pick], [locs[i] for i in pick]
            stats = corpus_stats(ks, ls, st)

            def load(idx, ls=ls):
                return [ls[i] for i in idx]

            got = pile_forms(ks, stats, st, load, p.form_min_fills, p.form_share)
            want = [form_lines_of(x, stats, p.form_min_fills, p.form_share) for x in ls]
            assert got == want, pick
        assert any(got)  # the pile's notices are form items at the end


def test_pile_forms_redo_only_articles_whose_fills_cross_the_threshold(
    tmp_path, monkeypatch
) -> None:
    """An add that moves the pile's counts of an article's lines without taking any of
    its sentences over or under ``form_min_fills`` leaves its verdict as it was (not
    worked out again); one that crosses it redoes it. Equal to a full pass each time."""
    import unspin.pipeline as pl
    from unspin.corpus import form_lines_of
    from unspin.pipeline import corpus_stats, pile_forms
    from unspin.store import Store

    texts = [notice(k, n, t) for k, (n, t) in enumerate(COMPANIES)]
    texts.append("Mayor Ken Vordanek met the council on Monday. Pay March 31.")
    texts.append("The port reopened on Tuesday after the storm. Pay March 31.")
    locs = _locals(texts)
    keys = [f"k{k}" for k in range(len(locs))]
    p = AlignParams()
    calls: list[int] = []
    real = pl.form_sentences

    def counting(chars, *a, **k):
        calls.append(len(chars))
        return real(chars, *a, **k)

    monkeypatch.setattr(pl, "form_sentences", counting)
    n_mayor, n_port = len(COMPANIES), len(COMPANIES) + 1
    with Store(tmp_path / "st") as st:
        st.memo_put("local", dict(zip(keys, locs)))
        redone = []
        for pick in (
            [0, 1, 2, 3, n_mayor],
            [0, 1, 2, 3, n_mayor, n_port],
            [0, 1, 2, 3, n_mayor, n_port, 4],
        ):
            ks, ls = [keys[i] for i in pick], [locs[i] for i in pick]
            stats = corpus_stats(ks, ls, st)
            calls.clear()
            got = pile_forms(
                ks,
                stats,
                st,
                lambda idx, ls=ls: [ls[i] for i in idx],
                p.form_min_fills,
                p.form_share,
            )
            assert got == [form_lines_of(x, stats, p.form_min_fills, p.form_share) for x in ls]
            redone.append(len(calls))
        # the port article shares a line with the mayor's (its count 1 -> 2, far below
        # the threshold): only the new article is worked out; the 5th notice takes the
        # notices' frames over it: they are redone
        assert redone[1] == 1, redone
        assert redone[2] >= 5 and any(got), redone
