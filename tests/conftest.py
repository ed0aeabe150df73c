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
