"""The items rule: one form filled in for two items makes no ``same_story`` claim
(``StoryParams.items_frame``, :func:`unspin.stories.items_apart`)."""

from __future__ import annotations

import dataclasses

import pytest

from unspin.model import Article
from unspin.pipeline import Config, analyse, fingerprint
from unspin.stories import (
    StoryParams,
    component_features,
    items_apart,
    other_items,
    pair_claim,
    pair_features,
    story_keys,
    story_probability,
)

# a monthly estimate of one agency for two countries: one frame, other names and figures
ESTIMATES = [
    (
        "USDA ESTIMATES TARNLAND WHEAT CROP",
        "The U.S. Agriculture Department estimated Tarnland's 1986/87 wheat crop at 16.7"
        " mln tonnes, vs 16.5 mln tonnes last month. It put the 1985/86 crop at 16.1 mln"
        " tonnes, vs 16.0 mln last month.\nTarnland's 1986/87 coarse grain crop was"
        " estimated at 6.2 mln tonnes, vs 6.1 mln last month. Exports were put at 14.5"
        " mln tonnes, vs 14.0 mln last month.",
    ),
    (
        "USDA ESTIMATES VESTRIA WHEAT CROP",
        "The U.S. Agriculture Department estimated Vestria's 1986/87 wheat crop at 31.4"
        " mln tonnes, vs 31.2 mln tonnes last month. It put the 1985/86 crop at 24.3 mln"
        " tonnes, vs 24.2 mln last month.\nVestria's 1986/87 coarse grain crop was"
        " estimated at 25.3 mln tonnes, vs 25.1 mln last month. Exports were put at 18.2"
        " mln tonnes, vs 18.0 mln last month.",
    ),
]

# one weekly count published a week apart: one frame, one name, other figures
SERIES = [
    (
        "KESTREL TOOL WEEKLY RIG COUNT FALLS",
        "Kestrel Tool Co said the number of rotary rigs drilling in the United States fell"
        " by 35 to 766 in the week ended Monday, against 1,021 a year ago. Of the rigs"
        " running, 512 were drilling for oil and 254 for gas, Kestrel Tool said.",
    ),
    (
        "KESTREL TOOL WEEKLY RIG COUNT RISES",
        "Kestrel Tool Co said the number of rotary rigs drilling in the United States rose"
        " by 12 to 778 in the week ended Monday, against 1,004 a year ago. Of the rigs"
        " running, 520 were drilling for oil and 258 for gas, Kestrel Tool said.",
    ),
]

# two independent reports of one event: names each lacks, frames worded apart
REPORTS = [
    (
        "FERRY SINKS OFF TARNLAND COAST",
        "A passenger ferry carrying 400 people sank off the Tarnland coast on Friday, the"
        " coastguard said. Captain Ole Brandt told reporters that rescue boats had picked"
        " up most of the passengers within an hour.",
    ),
    (
        "RESCUERS SEARCH FOR FERRY SURVIVORS",
        "Rescue teams searched cold waters for survivors after a ferry went down near"
        " Tarnland with some 400 aboard. Harbour master Ines Varga said divers would resume"
        " work at first light on Saturday.",
    ),
]


def _docs(pairs, days=("1987-03-10T09:00:00", "1987-03-10T09:00:00"), titles=True):
    arts = [
        Article(
            id=f"i{k}",
            title=h if titles else None,
            text=t if titles else f"{h}\n\n{t}",
            published_at=days[k],
        )
        for k, (h, t) in enumerate(pairs)
    ]
    return fingerprint(arts, Config(embedder="hashing"))


def _component(docs):
    fn = lambda i, j: pair_features(docs[i], docs[j], 0)  # noqa: E731
    return component_features(docs, [0, 1], {}, fn)[(0, 1)]


def test_kgram_sets_give_the_frame_agreement() -> None:
    """The per-article k-gram sets give :func:`frame_agreement` to the last bit."""
    from unspin.align import frame_agreement, frame_kgrams, kgram_set_share

    texts = [t for _, t in ESTIMATES + SERIES + REPORTS]
    for a in texts:
        for b in texts:
            got = kgram_set_share(frame_kgrams(a), frame_kgrams(b))
            assert got == frame_agreement(a, b)
    assert kgram_set_share(frame_kgrams("two words"), frame_kgrams(texts[0])) == 0.0


def test_items_apart_tells_names_each_lacks_and_other_days_figures() -> None:
    est = _docs(ESTIMATES)
    ka, kb = story_keys(est[0]), story_keys(est[1])
    assert items_apart(ka, kb, "en", "en", False) == 1  # Tarnland / Vestria
    assert items_apart(ka, kb, "en", "en", True) == 3  # and other figures on other days
    assert items_apart(ka, kb, "en", "es", False) == 0  # names written another way
    ser = _docs(SERIES)
    ka, kb = story_keys(ser[0]), story_keys(ser[1])
    assert items_apart(ka, kb, "en", "en", True) == 2  # one name, other figures
    assert items_apart(ka, kb, "en", "en", False) == 0  # one day: one item may update
    same = _docs([SERIES[0], SERIES[0]])
    assert items_apart(story_keys(same[0]), story_keys(same[1]), "en", "en", True) == 0


def test_a_condensed_rewrite_keeping_its_sources_figures_is_not_two_items() -> None:
    """A rewrite names someone its source does not (a byline, an analyst) and drops names
    of the source, but keeps the source's figures: no figure of its own, no second item,
    however alike the frames."""
    src = ESTIMATES[0]
    rewrite = (
        "TARNLAND HARVEST SEEN LARGER",
        "The U.S. Agriculture Department estimated Tarnland's 1986/87 wheat crop at 16.7 mln"
        " tonnes, vs 16.5 mln tonnes last month, analyst Dana Quill noted. Exports were put"
        " at 14.5 mln tonnes.",
    )
    docs = _docs([src, rewrite])
    ka, kb = story_keys(docs[0]), story_keys(docs[1])
    assert kb.figs <= ka.figs  # the rewrite's figures are its source's
    assert items_apart(ka, kb, "en", "en", False) == 0
    assert items_apart(ka, kb, "en", "en", True) == 0


def test_a_correction_is_never_two_items() -> None:
    fixed = [SERIES[0], ("CORRECTED - " + SERIES[1][0], SERIES[1][1])]
    docs = _docs(fixed, days=("1987-03-10T09:00:00", "1987-03-17T09:00:00"))
    assert items_apart(story_keys(docs[0]), story_keys(docs[1]), "en", "en", True) == 0


def test_all_caps_headline_words_are_not_read_as_names() -> None:
    """Names are read where casing tells them: a headline in capitals names nothing,
    so two reports whose headlines differ but whose bodies name the same are no items."""
    pairs = [
        ("FERRY SINKS OFF COAST", REPORTS[0][1]),
        ("PASSENGER FERRY LOST", REPORTS[0][1].replace("Friday", "Friday morning")),
    ]
    docs = _docs(pairs, titles=False)
    assert items_apart(story_keys(docs[0]), story_keys(docs[1]), "en", "en", False) == 0


def test_component_features_give_the_frame_agreement_of_two_items() -> None:
    est = _component(_docs(ESTIMATES))
    assert est["items_kind"] == 1.0 and est["items_frame"] >= 0.6
    rep = _component(_docs(REPORTS))
    assert rep["items_kind"] == 0.0 and rep["items_frame"] == 0.0  # one toll, no other figure
    ser = _component(_docs(SERIES, days=("1987-03-10T09:00:00", "1987-03-17T09:00:00")))
    assert ser["items_kind"] == 2.0 and ser["items_frame"] >= 0.6
    one_day = _component(_docs(SERIES))
    assert one_day["items_kind"] == 0.0 and one_day["items_frame"] == 0.0


def _feats(**kw: float) -> dict[str, float]:
    f = dict.fromkeys(("doc_sim", "top_sent", "keys", "keys_local", "details", "quotes"), 0.9)
    base = {"dated": 1.0, "time_near": 1.0, "days": 0.0, "subjects": 0.0, "subject_cross": 1.0}
    return f | base | {"other_day": 0.0} | kw


def test_two_items_of_one_form_make_no_same_story_claim() -> None:
    """At or above ``items_frame`` the pair is ``related`` with the reason in words; below
    it, or with the rule off (0), the claim stays; the groups never read the rule."""
    sp = StoryParams()
    alike = _feats()
    items = alike | {"items_kind": 1.0, "items_frame": sp.items_frame}
    assert other_items(items, sp) and not other_items(alike, sp)
    assert story_probability(items, sp) == story_probability(alike, sp)
    pr = story_probability(items, sp)
    kind, why = pair_claim(pr, items, True, sp)
    assert kind == "related" and "one form filled in for two items" in why
    assert "each names what the other lacks" in why
    series = alike | {"items_kind": 2.0, "items_frame": 0.9}
    assert "on other days with other figures" in pair_claim(pr, series, True, sp)[1]
    below = items | {"items_frame": sp.items_frame - 0.01}
    assert pair_claim(pr, below, True, sp)[0] == "same_story"
    off = StoryParams(items_frame=0.0)
    assert pair_claim(pr, items | {"items_frame": 1.0}, True, off)[0] == "same_story"


def test_items_frame_is_validated() -> None:
    with pytest.raises(ValueError, match="items_frame"):
        StoryParams(items_frame=1.5)
    with pytest.raises(ValueError, match="items_frame"):
        StoryParams(items_frame=-0.1)


def test_a_scan_of_two_countries_estimates_makes_no_same_story_claim() -> None:
    """End to end (hashing embedder): one agency's estimates for two countries, issued two
    hours apart, are ``related`` saying why with the rule on; off, the same scan claims
    ``same_story`` (no other rule holds them: the headlines open with the agency, each
    names the other's subject somewhere, a quarter of the opening figures are shared)."""
    hours = ("1987-03-10T09:00:00", "1987-03-10T11:00:00")
    cfg = Config(embedder="hashing")
    off = dataclasses.replace(cfg, stories=dataclasses.replace(cfg.stories, items_frame=0.0))
    docs = _docs(ESTIMATES, days=hours)
    on_rel = {(r.a, r.b): r for r in analyse(docs, cfg).relations}
    off_rel = {(r.a, r.b): r for r in analyse(docs, off).relations}
    assert off_rel[("i0", "i1")].relation == "same_story"
    assert on_rel[("i0", "i1")].relation == "related"
    assert "one form filled in for two items" in " ".join(on_rel[("i0", "i1")].reasons)
    # the groups do not move: one story either way
    assert len(analyse(docs, cfg).stories) == len(analyse(docs, off).stories)
