"""Story clustering: average linkage and the fragment-attachment pass."""

from __future__ import annotations

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


def test_large_groups_do_not_move() -> None:
    prob = np.full((6, 6), 0.9)
    got = attach_fragments([[0, 1, 2], [3, 4, 5]], prob, StoryParams(attach_max=2))
    assert sorted(map(sorted, got)) == [[0, 1, 2], [3, 4, 5]]


@pytest.mark.parametrize(
    "kw", [{"attach_max": -1}, {"attach_bar": 0.0}, {"attach_link": 1.5}, {"same_story": 0.1}]
)
def test_story_params_validated(kw: dict) -> None:
    with pytest.raises(ValueError):
        StoryParams(**kw)


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
    docs = fingerprint(
        [Article(id=f"d{k}", text=t) for k, t in enumerate(texts)], Config(embedder="hashing")
    )
    members = list(range(len(docs)))
    feats = component_features(docs, members, {}, lambda i, j: pair_features(docs[i], docs[j], 0))
    local = local_idf(docs, members)
    assert local is not None
    for (i, j), f in feats.items():
        assert f["keys"] == key_overlap(docs[i], docs[j])
        assert f["details"] == key_overlap(docs[i], docs[j], kinds="nmd")
        assert f["top_sent"] == top_sentence_sim(docs[i], docs[j])
        assert f["keys_local"] == key_overlap(docs[i], docs[j], local)
