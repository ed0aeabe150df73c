"""Crash safety (issue 13): writers killed with SIGKILL at random moments, and exactly at
every rename, switch, write, sync and commit, never leave results mixed from two runs,
half-written, or a store that needs repair. Bounded: 50 kills with the hashing embedder.

The trials run in a fresh Python process: writers are forked from it, and forking this
test process (whose earlier tests started BLAS and OpenMP thread pools) could hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

#: kills per run of the test (the issue asks for at least 50 across scan and add)
KILLS = 50
HERE = Path(__file__).resolve().parent


def _crashloop(code: str, args: list[str], timeout: int) -> dict:
    """Run ``code`` (which imports tests/crashloop.py) in a fresh interpreter with
    ``args``; it must exit 0 and print its JSON result last."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_killed_writers_leave_whole_results_and_a_store_that_opens(tmp_path: Path) -> None:
    code = (
        "import json, sys; from pathlib import Path; from crashloop import kill_trials; "
        "print(json.dumps(kill_trials(Path(sys.argv[1]), n=int(sys.argv[2]), seed=13)))"
    )
    stats = _crashloop(code, [str(tmp_path), str(KILLS)], timeout=1800)
    assert stats["killed"] >= KILLS
    assert stats["at_points"] >= KILLS // 3  # a good share exactly at a rename or write
    assert stats["failures"] == 0


@pytest.mark.parametrize("when", ["before", "after"])
def test_an_add_killed_inside_the_index_append_leaves_the_last_index(
    tmp_path: Path, when: str
) -> None:
    """An add killed as it writes its doc vectors' rows (before the write, or after the
    rows are synced but before their ids are committed): the index read afterwards is the
    scan's (the rows past its ids are not read), and the next add appends over them: the
    index then holds every archived article, in the archive's order."""
    code = (
        "import json, sys; from pathlib import Path; from crashloop import kill_at; "
        "print(json.dumps(kill_at(Path(sys.argv[1]), sys.argv[2])))"
    )
    got = _crashloop(code, [str(tmp_path), f"unspin.store._write_rows:{when}"], timeout=900)
    assert got["killed"]
    assert got["after_kill"] == got["archive"][:4]  # the scan's index, nothing of the add
    assert sorted(got["after_kill"]) == ["a0000", "a0001", "a0002", "a0003"]
    assert got["after_add"] == got["archive"] and len(got["archive"]) == 6
