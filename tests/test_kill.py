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


@pytest.mark.slow
def test_killed_writers_leave_whole_results_and_a_store_that_opens(tmp_path: Path) -> None:
    code = (
        "import json, sys; from pathlib import Path; from crashloop import kill_trials; "
        "print(json.dumps(kill_trials(Path(sys.argv[1]), n=int(sys.argv[2]), seed=13)))"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path), str(KILLS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    stats = json.loads(proc.stdout.strip().splitlines()[-1])
    assert stats["killed"] >= KILLS
    assert stats["at_points"] >= KILLS // 3  # a good share exactly at a rename or write
    assert stats["failures"] == 0
