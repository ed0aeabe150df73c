"""Crash safety (issue 13): writers killed with SIGKILL at random moments, and exactly at
every rename, switch, write, sync and commit, never leave results mixed from two runs,
half-written, or a store that needs repair. Bounded: 50 kills with the hashing embedder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from crashloop import kill_trials

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

#: kills per run of the test (the issue asks for at least 50 across scan and add)
KILLS = 50


@pytest.mark.slow
def test_killed_writers_leave_whole_results_and_a_store_that_opens(tmp_path: Path) -> None:
    stats = kill_trials(tmp_path, n=KILLS, seed=13)
    assert stats["killed"] >= KILLS
    assert stats["at_points"] >= KILLS // 3  # a good share exactly at a rename or write
    assert stats["failures"] == 0
