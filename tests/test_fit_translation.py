"""``bench/fit_translation.py``'s language floors: what ``ClassifyParams.translation_lang_floors``
is fitted from."""

from __future__ import annotations

import pytest
from helpers import bench_module

from unspin.classify import ClassifyParams


def test_a_languages_floor_is_its_lowest_translation_with_english() -> None:
    fit = bench_module("fit_translation")
    p = ClassifyParams(
        translation_features=("chain", "semantic"),
        translation_weights=(10.0, 20.0),
        translation_bias=-5.0,
    )

    def row(la: str, lb: str, own: int, chain: float, semantic: float) -> dict:
        return {"la": la, "lb": lb, "own": own, "chain": chain, "semantic": semantic}

    rows = [
        row("en", "it", 1, 1.0, 0.8),  # 10 + 16 - 5 = 21
        row("it", "en", 1, 0.5, 0.5),  # 5 + 10 - 5 = 10: Italian's lowest
        row("en", "it", 0, 0.1, 0.1),  # two documents: not a translation, not read
        row("it", "de", 1, 0.0, 0.0),  # no English side: not read
        row("en", "de", 1, 1.0, 1.0),  # 25
        row("en", "en", 1, 0.0, 0.0),  # English with English: no language to floor
    ]
    assert fit.language_floors(rows, p) == pytest.approx({"it": 10.0, "de": 25.0})
