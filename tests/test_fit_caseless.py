"""bench/fit_caseless.py: which labelled pairs are fitted as whole derivatives."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from fit_caseless import POSITIVE, row_kind  # noqa: E402


def test_rewrites_and_machine_translation_round_trips_are_positives() -> None:
    assert row_kind({"kind": "rewrite_condensed_es", "relation": "spun"}) == "rewrite_condensed"
    assert row_kind({"kind": "rewrite_framed_ja", "relation": "spun"}) == "rewrite_framed"
    mt = row_kind({"kind": "lang_spa_eng", "relation": "spun"})
    assert mt == "mt_round_trip" and mt in POSITIVE
    # a one-way translation of a routes pile is no whole derivative in one language
    assert row_kind({"kind": "lang_oneway_spa", "relation": "translation"}) not in POSITIVE
    assert {"rewrite_same", "rewrite_condensed", "rewrite_framed"} <= set(POSITIVE)
