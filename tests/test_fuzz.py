"""Runs the atheris fuzz target of the readers for a bounded time (issue 13); skipped,
saying why, where atheris does not install."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: seconds of fuzzing per `make test` (UNSPIN_FUZZ_SECONDS overrides)
FUZZ_SECONDS = int(os.environ.get("UNSPIN_FUZZ_SECONDS", "60"))
TARGET = Path(__file__).resolve().parent / "fuzz_readers.py"


@pytest.mark.slow
def test_fuzz_readers_for_a_bounded_time(tmp_path: Path) -> None:
    pytest.importorskip("atheris", reason="atheris does not install here (no wheel)")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds = {
        "txt": b"\x00Ferry crews walk out.\n\nThe union said so.",
        "jsonl": b'\x04{"id": "a", "text": "One."}\n{"text": "Two \\ud800"}\n',
        "csv": b"\x05id,text\na,One.\n",
        "html": b"\x02<html><title>T</title><body><p>Body text here.</p></body></html>",
        "json": b'\x03[{"id": "x", "text": "Hi."}]',
    }
    for name, data in seeds.items():
        (corpus / name).write_bytes(data)
    proc = subprocess.run(
        [
            sys.executable,
            str(TARGET),
            str(corpus),
            f"-max_total_time={FUZZ_SECONDS}",
            "-rss_limit_mb=2048",
            "-timeout=20",
            f"-artifact_prefix={tmp_path}/",
        ],
        capture_output=True,
        text=True,
        timeout=FUZZ_SECONDS + 240,
    )
    tail = proc.stderr[-3000:]
    assert proc.returncode == 0, tail
    assert "Done" in proc.stderr and "#" in proc.stderr, tail
