"""Shared fixtures: the third-party data in ../shared (tests that need it skip, saying why)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("UNSPIN_SHARED", REPO.parent / "shared"))
EXAMPLES = REPO / "examples" / "articles"


@pytest.fixture(scope="session")
def shared() -> Path:
    if not (SHARED / "seeds").is_dir():
        pytest.skip(f"third-party data not found at {SHARED} (set UNSPIN_SHARED to its folder)")
    return SHARED


@pytest.fixture
def ivf_calls(monkeypatch) -> list[int]:
    """The row counts of each IVF neighbour search run while the test runs
    (``unspin.candidates.ivf_neighbours`` wrapped, its answers unchanged)."""
    import unspin.candidates as cand

    calls: list[int] = []
    real = cand.ivf_neighbours

    def spy(vectors, *args, **kwargs):
        calls.append(len(vectors))
        return real(vectors, *args, **kwargs)

    monkeypatch.setattr(cand, "ivf_neighbours", spy)
    return calls


@pytest.fixture(autouse=True)
def _memo_values_not_kept_across_tests():
    """A Service keeps the memo values it reads for its process
    (:func:`unspin.store.keep_memo_values`); each test starts and ends without."""
    from unspin.store import keep_memo_values

    keep_memo_values(False)
    yield
    keep_memo_values(False)
