"""bench/lang_routes.py: machine-translation round trips of non-English originals."""

from __future__ import annotations

from helpers import bench_module


def test_marks_a_pair_leaves_are_stripped_but_the_sources_own_are_kept() -> None:
    strip = bench_module("lang_routes").strip_marks
    source = "Mail jo@samaritans.org of volg #MeToo en @nos na de aardbeving."
    back = "Mail jo@samaritans.org of volg #MeToo en @nos na die *aardbewing #gekregen @vir."
    assert strip(back, source) == (
        "Mail jo@samaritans.org of volg #MeToo en @nos na die aardbewing gekregen vir."
    )
    assert strip("**poëtische", "") == "poëtische"
    assert strip("a*b and 3*4", "") == "a*b and 3*4"  # inside a token: no mark
