"""Story clustering: average linkage and the fragment-attachment pass."""

from __future__ import annotations

import math

import numpy as np
import pytest

from unspin.stories import StoryParams, attach_fragments, cluster_component


def _probs(members: list[int], prob: np.ndarray) -> dict[tuple[int, int], float]:
    return {
        (members[x], members[y]): float(prob[x, y])
        for x in range(len(members))
        for y in range(x + 1, len(members))
    }


def _story_with_straggler(link: float) -> np.ndarray:
    """Four articles of one event (0.9 each) and a short one: ``link`` to article 0,
    0.3 to the rest (mean 0.3 + (link - 0.3) / 4, below the cut)."""
    prob = np.full((5, 5), 0.9)
    prob[4, :] = prob[:, 4] = 0.3
    prob[0, 4] = prob[4, 0] = link
    np.fill_diagonal(prob, 1.0)
    return prob


def test_straggler_joins_its_story_when_one_link_is_confident() -> None:
    members = [10, 11, 12, 13, 14]
    groups = cluster_component(members, _probs(members, _story_with_straggler(0.9)), StoryParams())
    assert sorted(map(sorted, groups)) == [[10, 11, 12, 13, 14]]
    # without the second pass the cut leaves it alone
    p = StoryParams(attach_max=0)
    groups = cluster_component(members, _probs(members, _story_with_straggler(0.9)), p)
    assert sorted(map(sorted, groups)) == [[10, 11, 12, 13], [14]]


def test_look_alike_without_a_confident_link_stays_apart() -> None:
    members = [0, 1, 2, 3, 4]
    groups = cluster_component(members, _probs(members, _story_with_straggler(0.6)), StoryParams())
    assert sorted(map(sorted, groups)) == [[0, 1, 2, 3], [4]]


def test_fragment_goes_to_the_story_with_the_best_mean() -> None:
    # stories {0,1} and {2,3}; article 4 has one confident link to each, a better mean to {2,3}
    prob = np.eye(5)
    prob[0, 1] = prob[2, 3] = 0.95
    prob[4, 0], prob[4, 1] = 0.8, 0.1
    prob[4, 2], prob[4, 3] = 0.8, 0.5
    prob = np.maximum(prob, prob.T)
    got = attach_fragments([[0, 1], [2, 3], [4]], prob, StoryParams(attach_max=1))
    assert sorted(map(sorted, got)) == [[0, 1], [2, 3, 4]]


def _attach_every_mean_again(groups, prob, p, block):
    """attach_fragments as written before its means were kept: every pass sums the
    fragment's block with every group anew (the reference the kept means must equal)."""
    groups = [list(g) for g in groups]
    settled: set[int] = set()
    while len(groups) > 1:
        todo = sorted(
            (g for g in groups if len(g) <= p.attach_max and min(g) not in settled),
            key=lambda g: (len(g), min(g)),
        )
        if not todo:
            break
        frag = todo[0]
        others = [h for h in groups if h is not frag]
        blocks = [np.ascontiguousarray(prob[frag][:, h]) for h in others]
        means = [
            -1.0 if block is not None and block[frag][:, h].any() else b.mean()
            for b, h in zip(blocks, others)
        ]
        best = int(np.argmax(means))
        if means[best] >= p.attach_bar and blocks[best].max() >= p.attach_link:
            others[best].extend(frag)
            groups = others
            settled.clear()
        else:
            settled.add(min(frag))
    return groups


@pytest.mark.parametrize("seed", range(6))
def test_kept_means_give_the_groups_of_means_summed_every_pass(seed: int) -> None:
    # random components of 40-120 articles in small look-alike clusters, some pairs blocked
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 120))
    topic = rng.integers(0, n // 6, size=n)
    prob = np.where(topic[:, None] == topic[None, :], rng.uniform(0.3, 1.0, (n, n)), 0.0)
    prob = np.maximum(prob, rng.uniform(0.0, 0.5, (n, n)))
    prob = np.triu(prob, 1)
    prob = prob + prob.T
    block = np.triu(rng.random((n, n)) < 0.02, 1)
    block = block | block.T
    start = [[x] for x in range(n)]
    p = StoryParams(attach_max=4)
    want = _attach_every_mean_again(start, prob, p, block)
    assert attach_fragments(start, prob, p, block) == want
    assert len(want) < n  # fragments did move


def test_large_groups_do_not_move() -> None:
    prob = np.full((6, 6), 0.9)
    got = attach_fragments([[0, 1, 2], [3, 4, 5]], prob, StoryParams(attach_max=2))
    assert sorted(map(sorted, got)) == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize(
    "kw",
    [
        {"attach_max": -1},
        {"attach_bar": 0.0},
        {"attach_link": 1.5},
        {"same_story": 0.1},
        {"recur_days": -0.5},
        {"notice_max_chars": -1},
        {"notice_head_words": 0},
    ],
)
def test_story_params_validated(kw: dict) -> None:
    with pytest.raises(ValueError):
        StoryParams(**kw)


# ---------------------------------------------------------------- labels

DATELINED = [
    # (id, published, text): one event; "b" is the most central (most likely one event
    # with each of the others), "a" the earliest
    (
        "a",
        "2026-03-10T08:00:00",
        "WASHINGTON —\n\nThe Senate passed the harbour bill 61-39 on Tuesday, sending it on.",
    ),
    (
        "b",
        "2026-03-10T09:00:00",
        "LONDON (Reuters) - Senate passes harbour bill 61-39 in a late vote. More to follow.",
    ),
    (
        "c",
        "2026-03-10T10:00:00",
        "NEW YORK, March 10 (AP) – The harbour bill cleared the Senate. It goes to the House.",
    ),
]


def _dated_docs():
    from unspin.fingerprint import prepare
    from unspin.model import Article

    return [prepare(Article(id=i, text=t, published_at=p)) for i, p, t in DATELINED]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("WASHINGTON —", ""),
        ("WASHINGTON — The Senate voted.", "The Senate voted."),
        ("LONDON (Reuters) - Shares fell.", "Shares fell."),
        ("NEW YORK, Jan 5 (AP) – Stocks rose", "Stocks rose"),
        ("WINSTON-SALEM, N.C. (AP) — Police said", "Police said"),
        ("МОСКВА, 3 марта (Рейтер) — Цены", "Цены"),
        # not datelines: a headline in capitals, a short acronym before a dash, a colon
        ("ACME CORP SETS QUARTERLY DIVIDEND", "ACME CORP SETS QUARTERLY DIVIDEND"),
        ("UK - France talks resume", "UK - France talks resume"),
        ("NCAA: Improper gifts given", "NCAA: Improper gifts given"),
        ("Shares fell - sharply", "Shares fell - sharply"),
    ],
)
def test_strip_dateline(text: str, expected: str) -> None:
    from unspin.stories import strip_dateline

    assert strip_dateline(text) == expected


def test_story_label_is_the_most_central_headline_without_its_dateline() -> None:
    from unspin.stories import make_stories

    docs = _dated_docs()
    scored = {(0, 1): (0.8, {}), (1, 2): (0.9, {}), (0, 2): (0.3, {})}
    (story,) = make_stories(docs, [[0, 1, 2]], [], scored)
    assert story.label == "Senate passes harbour bill 61-39 in a late vote."
    # a pair outside the group does not count towards centrality
    (s1, s2) = make_stories(docs, [[0, 2], [1]], [], scored)
    assert s1.label == "The Senate passed the harbour bill 61-39 on Tuesday, sending it on."
    assert s2.label == "Senate passes harbour bill 61-39 in a late vote."
    # a title given is the headline, its dateline left out too
    docs[2].article.title = "NEW YORK (AP) — Harbour bill clears the Senate"
    (story,) = make_stories(docs, [[0, 1, 2]], [], {(0, 2): (0.9, {}), (1, 2): (0.9, {})})
    assert story.label == "Harbour bill clears the Senate"


def test_story_label_without_scores_is_the_earliest_source_without_its_dateline() -> None:
    from unspin.stories import make_stories

    (story,) = make_stories(_dated_docs(), [[0, 1, 2]], [])
    # "a" opens with a dateline on a line of its own: its headline is the next sentence
    assert story.label == "The Senate passed the harbour bill 61-39 on Tuesday, sending it on."
    assert not story.label.startswith(("WASHINGTON", "LONDON", "NEW YORK"))


def test_scan_labels_a_dateline_led_story_by_a_headline(tmp_path) -> None:
    import unspin
    from unspin.model import Article

    arts = [Article(id=i, text=t, published_at=p) for i, p, t in DATELINED]
    result = unspin.scan(arts, config=unspin.Config(embedder="hashing"))
    heads = {
        "The Senate passed the harbour bill 61-39 on Tuesday, sending it on.",
        "Senate passes harbour bill 61-39 in a late vote.",
        "The harbour bill cleared the Senate.",
    }
    assert result.stories and all(s.label in heads for s in result.stories)


def test_components_equal_networkx_on_random_graphs() -> None:
    import random

    import networkx as nx

    from unspin.stories import components

    rng = random.Random(5)
    for _ in range(300):
        n = rng.randint(1, 40)
        edges = [(rng.randrange(n), rng.randrange(n)) for _ in range(rng.randint(0, 50))]
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from(edges)
        want = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: c[0])
        assert components(n, edges) == want
    assert components(0, []) == []


def test_component_features_equal_per_pair_features() -> None:
    """The once-per-article StoryKeys give every pair the features computed pair by pair
    (key overlaps, best sentences, component-local overlap)."""
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint
    from unspin.stories import (
        component_features,
        key_overlap,
        local_idf,
        pair_features,
        top_sentence_sim,
    )

    texts = [
        "Mayor Ken Vordanek met the council in Leeds on Monday. He said 40 jobs would go.",
        "Ken Vordanek, the mayor, told the Leeds council on Monday that 40 jobs would go.",
        "The council of Leeds met on Tuesday. Vordanek was not there. Rain fell in March.",
        "Shares in Acme rose 5% on Friday after the company said profits doubled in 2004.",
        "Acme said on Friday that profits doubled in 2004; its shares rose 5 percent.",
    ]
    # names a tagger reads in Japanese (u: keys): compared between the two Japanese
    # texts, left out (totals too) against the English ones
    cjk = [
        ("ja", "リーズ市議会は月曜日、ヴォルダネク市長が40人の削減を発表したと伝えた。"),
        ("ja", "ヴォルダネク市長はリーズで月曜日に40人の雇用が失われると述べた。"),
    ]
    arts = [Article(id=f"d{k}", text=t) for k, t in enumerate(texts)]
    arts += [Article(id=f"j{k}", text=t, lang=lang) for k, (lang, t) in enumerate(cjk)]
    docs = fingerprint(arts, Config(embedder="hashing"))
    assert any(k.startswith("u:") for k in docs[-1].keys)
    members = list(range(len(docs)))
    feats = component_features(docs, members, {}, lambda i, j: pair_features(docs[i], docs[j], 0))
    local = local_idf(docs, members)
    assert local is not None
    for (i, j), f in feats.items():
        assert f["keys"] == key_overlap(docs[i], docs[j])
        assert f["details"] == key_overlap(docs[i], docs[j], kinds="nmd")
        assert f["top_sent"] == top_sentence_sim(docs[i], docs[j])
        assert f["keys_local"] == key_overlap(docs[i], docs[j], local)


def test_story_keys_are_computed_once_per_article_and_again_for_other_form_lines(
    monkeypatch,
) -> None:
    """A pair and a component read the article's one StoryKeys (kept on the doc), equal
    to a fresh one; other form lines (an add may change the pile's verdict) or new
    vectors give keys computed again."""
    import unspin.stories as st
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint

    texts = [
        "Mayor Ken Vordanek met the council in Leeds on Monday. He said 40 jobs would go.",
        "Qtly div 3 cts. Pay April 10. Ken Vordanek told the Leeds council on Monday.",
        "Shares in Acme rose 5% on Friday after the company said profits doubled in 2004.",
    ]
    docs = fingerprint(
        [Article(id=f"d{k}", text=t) for k, t in enumerate(texts)], Config(embedder="hashing")
    )
    built = []
    real = st.StoryKeys

    class Counted(real):  # type: ignore[misc, valid-type]
        def __init__(self, doc, form=None, keys=None, whole=None) -> None:
            built.append((doc.id, whole is not None))
            super().__init__(doc, form, keys, whole)

    monkeypatch.setattr(st, "StoryKeys", Counted)
    k0 = st.story_keys(docs[0])
    for _ in range(3):
        st.pair_features(docs[0], docs[1], 0)
        st.pair_features(docs[0], docs[2], 0)
    st.component_features(docs, [0, 1, 2], {}, lambda i, j: st.pair_features(docs[i], docs[j], 0))
    assert sorted(built) == [("d0", False), ("d1", False), ("d2", False)]
    assert st.story_keys(docs[0]) is k0
    fresh = real(docs[0])
    assert (k0.all, k0.weight, k0.total, k0.subject, k0.words) == (
        fresh.all,
        fresh.weight,
        fresh.total,
        fresh.subject,
        fresh.words,
    )
    assert np.array_equal(k0.vecs, fresh.vecs)
    # form lines: keys of its own (and its content's, sharing the article's subject)
    formed = st.story_keys(docs[1], {0: 1, 1: 2})
    assert formed.form_item and formed.content is not None
    assert formed.content.subject is formed.subject
    assert st.story_keys(docs[1], {0: 7, 1: 9}) is formed  # same lines, same keys
    assert st.story_keys(docs[1]) is not formed and not st.story_keys(docs[1]).form_item
    # new vectors: computed again
    docs[2].sentence_vectors = docs[2].sentence_vectors.copy()
    n = len(built)
    st.story_keys(docs[2])
    assert len(built) == n + 1


def test_top_sentence_similarity_in_python_is_numpys_to_the_last_bit() -> None:
    """The best-sentence similarity from Python floats rounded to float32 equals the
    numpy sort-and-mean it replaces, bit for bit."""
    from unspin.stories import _top_sent

    def numpy_top(va: np.ndarray, vb: np.ndarray, k: int = 3) -> float:
        sim = va @ vb.T
        ra = np.sort(sim.max(axis=1))[::-1][:k].mean()
        rb = np.sort(sim.max(axis=0))[::-1][:k].mean()
        return float((ra + rb) / 2)

    rng = np.random.default_rng(5)
    for n in range(1, 15):
        for m in range(1, 15):
            va = rng.standard_normal((n, 32)).astype(np.float32)
            vb = rng.standard_normal((m, 32)).astype(np.float32)
            va /= np.linalg.norm(va, axis=1, keepdims=True)
            vb /= np.linalg.norm(vb, axis=1, keepdims=True)
            assert _top_sent(va, vb) == numpy_top(va, vb)
            assert _top_sent(va, vb, k=1) == numpy_top(va, vb, k=1)


def _feats(**kw: float) -> dict[str, float]:
    f = dict.fromkeys(("doc_sim", "top_sent", "keys", "keys_local", "details", "quotes"), 0.5)
    return (
        f
        | {
            "dated": 0.0,
            "time_near": 0.0,
            "days": -1.0,
            "subjects": 0.0,
            "subject_cross": 1.0,
            "other_day": 0.0,
        }
        | kw
    )


def test_a_capped_pair_in_one_story_through_a_third_article_is_no_same_story_claim() -> None:
    """Articles 1 and 2 are each one event with 0 (0.95) but about other actors (the
    subject rule caps them at ``related``, 0.15): average linkage puts all three in one
    story (mean 0.68 >= the cut 0.65); the relation of 1 and 2 is ``related`` (in one
    story through 0), the other two ``same_story``; a weak pair that no rule caps keeps
    its claim (on ECB+ and PAC such pairs are mostly one event)."""
    from types import SimpleNamespace

    from unspin.pipeline import story_relations

    sp = StoryParams()
    members = [0, 1, 2]
    other_actors = _feats(subjects=1.0, subject_cross=0.0)
    feats = {(0, 1): _feats(), (0, 2): _feats(), (1, 2): other_actors}
    probs = {(0, 1): 0.95, (0, 2): 0.95, (1, 2): sp.related}
    groups = cluster_component(members, probs, sp)
    assert groups == [[0, 1, 2]]
    docs = [SimpleNamespace(id=f"d{i}") for i in members]
    scored = {pair: (pr, feats[pair]) for pair, pr in probs.items()}
    rels = story_relations(docs, list(probs), {}, scored, dict.fromkeys(members, 0), sp)
    kinds = {(r.a, r.b): r.relation for r in rels}
    assert kinds == {
        ("d0", "d1"): "same_story",
        ("d0", "d2"): "same_story",
        ("d1", "d2"): "related",
    }
    capped_rel = next(r for r in rels if r.relation == "related")
    assert capped_rel.confidence == 0.85
    assert "in one story only through other articles: about other actors" in capped_rel.reasons[-1]
    scored[(1, 2)] = (0.3, _feats())  # weak but not capped: still a claim
    rels = story_relations(docs, list(probs), {}, scored, dict.fromkeys(members, 0), sp)
    assert {r.relation for r in rels} == {"same_story"}


def test_pair_claim_needs_no_rule_against_the_pair_and_names_the_rule() -> None:
    from unspin.stories import pair_claim, story_probability

    sp = StoryParams()
    assert pair_claim(0.2, _feats(), True, sp)[0] == "same_story"
    assert pair_claim(0.99, _feats(), False, sp) == ("related", "grouped into different stories")
    # two companies' notices the model finds alike: capped at related by the subject rule,
    # so never a same_story claim even when their group holds both
    tables = _feats(doc_sim=0.9, top_sent=0.95, keys_local=0.5, subjects=1.0, subject_cross=0.0)
    pr = story_probability(tables, sp)
    assert pr == sp.related
    kind, why = pair_claim(pr, tables, True, sp)
    assert kind == "related" and "about other actors" in why
    day = _feats(doc_sim=0.9, top_sent=0.95, keys_local=0.5, other_day=1.0)
    kind, why = pair_claim(story_probability(day, sp), day, True, sp)
    assert kind == "related" and "their own day" in why
    figs = _feats(doc_sim=0.9, top_sent=0.95, keys_local=0.5, lead_figures=0.0, lead_figures_n=3.0)
    kind, why = pair_claim(story_probability(figs, sp), figs, True, sp)
    assert kind == "related" and "other figures" in why


# ---------------------------------------------------------------- crowding


def _dated(*stamps: str | None):
    from types import SimpleNamespace

    return [SimpleNamespace(article=SimpleNamespace(published_at=s)) for s in stamps]


def test_near_counts_count_the_other_members_within_the_window() -> None:
    from unspin.stories import near_counts

    docs = _dated("1987-03-02T09:00", "1987-03-02T17:00", "1987-03-05", None, "1987-04-01")
    assert near_counts(docs, 4.0) == [2, 2, 2, 0, 0]
    assert near_counts(docs, 0.5) == [1, 1, 0, 0, 0]


def test_time_evidence_is_discounted_in_a_crowded_component_only() -> None:
    """A same-day pair among many same-day members of its component: the time term of
    the logit loses ln(crowd / crowd_ref), never more than the time weight; an undated
    pair, or one in a component as sparse as the fitting piles, keeps its probability."""
    from unspin.stories import TIME_FEATURE, crowding, story_probability

    sp = StoryParams()
    same_day = _feats(dated=1.0, time_near=1.0, days=0.0)
    alone = story_probability(same_day | {"crowd": 0.0}, sp)
    assert story_probability(same_day | {"crowd": sp.crowd_ref}, sp) == alone
    crowded = story_probability(same_day | {"crowd": 20 * sp.crowd_ref}, sp)
    assert crowded < alone
    z = math.log(alone / (1 - alone)) - math.log(20) * 1.0
    assert crowded == pytest.approx(1 / (1 + math.exp(-z)))
    # a coincidence is never evidence against: at most the time term is taken back
    huge = same_day | {"crowd": 1e9}
    assert crowding(huge, sp) == sp.weights[TIME_FEATURE]
    no_time = story_probability(_feats(dated=1.0, time_near=0.0, days=100.0), sp)
    assert story_probability(huge, sp) == pytest.approx(no_time)
    # undated: no time evidence to discount; crowd_ref 0 turns the correction off
    undated = _feats()
    assert story_probability(undated | {"crowd": 1e9}, sp) == story_probability(undated, sp)
    off = StoryParams(crowd_ref=0.0)
    assert story_probability(huge, off) == story_probability(same_day, off)
    with pytest.raises(ValueError):
        StoryParams(crowd_ref=-1.0)


def test_component_features_give_each_dated_pair_its_crowd() -> None:
    """``crowd``: the other members of the component near the pair in time (each of the
    two counts the other, which is not crowd); undated articles have none."""
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint
    from unspin.stories import component_features, pair_features

    texts = [
        f"The Bank of Japan bought {k} billion yen of bills on Monday, dealers said."
        for k in range(8)
    ]
    days = ["1987-03-02"] * 6 + ["1987-03-20", None]
    arts = [
        Article(id=f"d{k}", text=t, published_at=d) for k, (t, d) in enumerate(zip(texts, days))
    ]
    docs = fingerprint(arts, Config(embedder="hashing"))
    members = list(range(len(docs)))
    feats = component_features(docs, members, {}, lambda i, j: pair_features(docs[i], docs[j], 0))
    assert feats[(0, 1)]["crowd"] == 4.0  # four more members that day
    assert feats[(0, 6)]["crowd"] == 1.5  # (5 + 0) / 2 - 1 (the other is 18 days away)
    assert feats[(0, 7)]["crowd"] == 0.0  # undated


# ---------------------------------------------------------------- recurring topics


def test_other_day_counts_count_third_days_with_an_article_as_similar() -> None:
    """For a pair of other calendar days, each side counts the distinct days, other than
    the pair's two, holding an article at least as similar to it as its partner; the
    pair's ``recur`` is the mean of the two. A pair of one day, or with an unknown day,
    gets 0."""
    from unspin.stories import other_day_counts

    # 0 and 1: one event on days 1 and 2 (each the other's nearest); 2, 3, 4: the same
    # kind of item on days 3, 4, 5, as alike to 0 as 1 is (a weekly auction)
    days = [1, 2, 3, 4, 5, 1, None]
    sims = {(x, y): 0.3 for x in range(7) for y in range(x + 1, 7)}
    sims[(0, 1)] = 0.9
    sims[(0, 2)] = sims[(0, 3)] = 0.9  # as similar to 0 as 1 is (ties count)
    sims[(0, 4)] = 0.8  # less similar: does not count against the pair (0, 1)
    sims[(2, 3)] = 0.95
    got = other_day_counts(days, sims)
    # side 0: days 3 and 4 (articles 2, 3); side 1: none above 0.9 but 0 itself
    assert got[(0, 1)] == 1.0
    # (0, 4): side 0 has days 2, 3, 4 at >= 0.8 (day 5 is the partner's); side 4 none
    # above 0.8 but 0 itself: (3 + 0) / 2
    assert got[(0, 4)] == 1.5
    # (2, 3): each other's nearest, days 3 and 4; side 2 has 0 (day 1) at 0.9 < 0.95: none
    assert got[(2, 3)] == 0.0
    assert got[(0, 5)] == 0.0  # one calendar day: the crowding discount's business
    assert got[(0, 6)] == got[(5, 6)] == 0.0  # no day known
    # only articles of the topic count (at least ``floor`` alike): none at 0.95
    assert other_day_counts(days, sims, 0.95)[(0, 1)] == 0.0
    assert other_day_counts(days, sims, 0.85)[(0, 4)] == 1.5  # days 2, 3, 4 at 0.9


def test_component_features_give_each_pair_of_other_days_its_recurrence() -> None:
    """``recur`` from :func:`component_features`: the daily money market item of four
    days recurs (the same line, other figures, on other days), so a pair of two of its
    days gets ``recur`` >= 1; a pair of one day and an undated article get 0."""
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint
    from unspin.stories import component_features, pair_features

    texts = [
        f"The Bank of Japan bought {k} billion yen of bills on its market operation, dealers said."
        for k in range(6)
    ]
    days = ["1987-03-02", "1987-03-03", "1987-03-04", "1987-03-05", "1987-03-02", None]
    arts = [
        Article(id=f"d{k}", text=t, published_at=d) for k, (t, d) in enumerate(zip(texts, days))
    ]
    docs = fingerprint(arts, Config(embedder="hashing"))
    members = list(range(len(docs)))
    feats = component_features(docs, members, {}, lambda i, j: pair_features(docs[i], docs[j], 0))
    assert feats[(0, 1)]["recur"] >= 1.0
    assert feats[(0, 4)]["recur"] == 0.0  # one calendar day
    assert feats[(0, 5)]["recur"] == 0.0  # undated


def test_a_pair_of_other_days_in_a_recurring_topic_makes_no_same_story_claim() -> None:
    """Two articles of other days whose topic recurs on further days (``recur`` at least
    ``recur_days``) are ``related`` with the reason in words; the same pair standing out
    of its topic (``recur`` 0) keeps its claim; the rule never moves the pair's story
    probability (stories do not change) and is off at ``recur_days`` 0."""
    from unspin.stories import pair_claim, story_probability

    sp = StoryParams()
    alike = _feats(doc_sim=0.9, top_sent=0.95, keys_local=0.5, dated=1.0, time_near=0.6, days=2.0)
    recurring = alike | {"recur": 1.0}
    assert story_probability(recurring, sp) == story_probability(alike, sp)
    pr = story_probability(recurring, sp)
    kind, why = pair_claim(pr, recurring, True, sp)
    assert kind == "related"
    assert "published on other days" in why and "on 1 more days" in why
    assert pair_claim(pr, alike | {"recur": 0.0}, True, sp)[0] == "same_story"
    assert pair_claim(pr, alike, True, sp)[0] == "same_story"  # no recur: undated piles
    assert pair_claim(pr, recurring, True, StoryParams(recur_days=0.0))[0] == "same_story"
    assert pair_claim(pr, recurring, True, StoryParams(recur_days=2.0))[0] == "same_story"


# ---------------------------------------------------------------- notices of one template

#: two issuers' bond notices of one day, written to one template (made-up issuers)
NOTICES = [
    (
        "HARTWELL FINANCE ISSUES 100 MLN DLR BOND",
        "Hartwell Finance is issuing a 100 mln dlr eurobond due 1992 paying 7-1/4 pct and"
        " priced at 101-1/4, lead manager Baring Brothers said.",
    ),
    (
        "KESTREL POWER ISSUES 60 MLN DLR BOND",
        "Kestrel Power is issuing a 60 mln dlr eurobond due 1994 paying 7-3/8 pct and"
        " priced at 101-1/2, lead manager Baring Brothers said.",
    ),
    # the first notice re-headlined, its figures kept: one item
    (
        "HARTWELL SETS EUROBOND",
        "Hartwell Finance is issuing a 100 mln dlr eurobond due 1992 paying 7-1/4 pct and"
        " priced at 101-1/4, lead manager Baring Brothers said.",
    ),
]


def _notice_docs(notices=NOTICES, day="1987-03-02T09:00:00"):
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint

    arts = [
        Article(id=f"n{k}", title=h, text=t, published_at=day) for k, (h, t) in enumerate(notices)
    ]
    return fingerprint(arts, Config(embedder="hashing"))


def test_headline_subjects_are_the_opening_words_the_other_text_lacks() -> None:
    from unspin.stories import headline_subjects

    there = {"kestrel", "power", "issues", "bond"}
    lacking = lambda w: w not in there  # noqa: E731
    assert headline_subjects("HARTWELL FINANCE ISSUES 100 MLN DLR BOND", 1, lacking) == ["hartwell"]
    assert headline_subjects("THE KESTREL POWER ISSUES BOND", 3, lacking) == []  # stopword
    assert headline_subjects("J.P. HARTWELL", 1, lacking) == []  # "j", "p": initials
    assert headline_subjects("J.P. HARTWELL", 3, lacking) == ["hartwell"]


def test_component_features_give_two_issuers_notices_their_notice_position() -> None:
    """``notice_pos`` from :func:`component_features`: two issuers' notices of one
    template and one day (each headline opens with a name the other text lacks, the
    figures differ) get 1; a re-headlined notice of one issuer, its figures kept, gets 0;
    above ``notice_max_chars`` nothing is read (0), and only the first
    ``notice_head_words`` words count."""
    from unspin.stories import component_features, pair_features

    docs = _notice_docs()
    fn = lambda i, j: pair_features(docs[i], docs[j], 0)  # noqa: E731
    feats = component_features(docs, [0, 1, 2], {}, fn)
    assert feats[(0, 1)]["notice_pos"] == 1.0
    assert feats[(0, 1)]["notice_chars"] == max(len(d.article.text) for d in docs[:2])
    assert feats[(0, 2)]["notice_pos"] == 0.0  # one issuer, one set of figures
    assert feats[(1, 2)]["notice_pos"] == 1.0
    assert (
        component_features(docs, [0, 1], {}, fn, notice_max_chars=50)[(0, 1)]["notice_pos"] == 0.0
    )
    # headlines that name the issuer second: found within two words, not within one
    late = [("NEW " + h, t) for h, t in NOTICES[:2]]
    docs = _notice_docs(late)
    fn = lambda i, j: pair_features(docs[i], docs[j], 0)  # noqa: E731
    assert (
        component_features(docs, [0, 1], {}, fn, notice_head_words=1)[(0, 1)]["notice_pos"] == 0.0
    )
    assert (
        component_features(docs, [0, 1], {}, fn, notice_head_words=2)[(0, 1)]["notice_pos"] == 2.0
    )


def test_only_a_headline_is_read_for_a_notices_subject() -> None:
    """Without a title the first line is read as a headline only when written as one
    (all capitals or title case, as a wire notice's): a prose first line's first word
    ("Voters", "Another") is any word, and two such texts get ``notice_pos`` 0."""
    from unspin.model import Article
    from unspin.pipeline import Config, fingerprint
    from unspin.stories import component_features, given_headline, pair_features

    wire = [(None, f"{h}\n\n{t}") for h, t in NOTICES[:2]]
    prose = [
        (None, "Voters in Tarnland cast ballots on Sunday in an election 40 pct called fair."),
        (None, "Another election: Tarnland goes to the polls, turnout put at 60 pct."),
    ]
    for texts, want in ((wire, 1.0), (prose, 0.0)):
        arts = [Article(id=f"p{k}", text=t, title=h) for k, (h, t) in enumerate(texts)]
        docs = fingerprint(arts, Config(embedder="hashing"))
        fn = lambda i, j, docs=docs: pair_features(docs[i], docs[j], 0)  # noqa: E731
        assert component_features(docs, [0, 1], {}, fn)[(0, 1)]["notice_pos"] == want
    assert given_headline(docs[0]) == ""


def test_two_issuers_notices_of_one_day_make_no_same_story_claim() -> None:
    """Two short notices naming other subjects first, with other figures, are ``related``
    with the reason in words, however alike and near in time; longer texts, a subject
    found only past ``notice_head_words`` or the rule off (``notice_max_chars`` 0) keep
    the claim; the story probability (the groups) never reads the rule."""
    from unspin.stories import pair_claim, story_probability

    sp = StoryParams()
    alike = _feats(doc_sim=0.9, top_sent=0.95, keys_local=0.5, dated=1.0, time_near=1.0, days=0.0)
    notices = alike | {"notice_pos": 1.0, "notice_chars": 300.0}
    assert story_probability(notices, sp) == story_probability(alike, sp)
    pr = story_probability(notices, sp)
    kind, why = pair_claim(pr, notices, True, sp)
    assert kind == "related" and "headlines name other subjects" in why
    assert pair_claim(pr, alike, True, sp)[0] == "same_story"  # no notice features
    long = notices | {"notice_chars": sp.notice_max_chars + 1.0}
    assert pair_claim(pr, long, True, sp)[0] == "same_story"
    late = notices | {"notice_pos": sp.notice_head_words + 1.0}
    assert pair_claim(pr, late, True, sp)[0] == "same_story"
    assert pair_claim(pr, notices, True, StoryParams(notice_max_chars=0))[0] == "same_story"


def test_a_scan_of_two_issuers_notices_makes_no_same_story_claim() -> None:
    """End to end (hashing embedder): the two issuers' notices are no ``same_story``
    claim with the rule on; with it off the same scan claims what it claimed before."""
    import dataclasses

    from unspin.pipeline import Config, analyse

    docs = _notice_docs(NOTICES[:2])
    cfg = Config(embedder="hashing")
    # the items rule (``items_frame``) reads the two notices as one form filled in twice
    # too: off with the notice rule, so that the scan without them claims the pair
    off = dataclasses.replace(
        cfg, stories=dataclasses.replace(cfg.stories, notice_max_chars=0, items_frame=0.0)
    )
    rel_on = {(r.a, r.b): r for r in analyse(docs, cfg).relations}
    rel_off = {(r.a, r.b): r for r in analyse(docs, off).relations}
    assert rel_off[("n0", "n1")].relation == "same_story"
    assert rel_on[("n0", "n1")].relation == "related"
    assert "headlines name other subjects" in " ".join(rel_on[("n0", "n1")].reasons)


def test_a_headline_is_kept_on_its_doc_for_its_title() -> None:
    """``headline`` is worked out once per doc (every add reads every story's label) and
    again when the doc's title is not the one it was worked out for."""
    from unspin import stories
    from unspin.fingerprint import prepare
    from unspin.model import Article

    doc = prepare(Article(id="x", text="WASHINGTON — The Senate passed the bill. It was late."))
    assert stories.headline(doc) == "The Senate passed the bill."
    doc.__dict__["_headline"] = (doc.article.title, doc.id, "kept")
    assert stories.headline(doc) == "kept"  # read from the doc, not worked out again
    doc.article.title = "LONDON (Reuters) - Bill passes"
    assert stories.headline(doc) == "Bill passes"
