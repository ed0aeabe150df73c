"""Concurrent writers (issue 13): several `unspin add` into one --out at once all exit 0
and every article ends up in the store and in the results (was: both exit 0 and 10 of
41 articles missing). Readers never see a half-written generation while they run."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from crashloop import concurrent_trials, write_articles

from unspin.output import read_tables


@pytest.mark.slow
def test_concurrent_adds_lose_nothing(tmp_path: Path) -> None:
    stats = concurrent_trials(tmp_path, trials=2, writers=4)
    assert stats["exit_0"] == stats["adds"] == 8
    assert stats["articles_lost"] == 0


@pytest.mark.slow
def test_readers_never_see_a_half_written_generation(tmp_path: Path) -> None:
    import unspin
    from unspin.pipeline import Config

    cfg = Config(embedder="hashing")
    out = tmp_path / "o"
    unspin.scan(
        [tmp_path / "b"] if write_articles(tmp_path / "b", [0, 1]) else [], out=out, config=cfg
    )
    stop = threading.Event()
    seen: list[int] = []
    problems: list[BaseException] = []

    def reader() -> None:
        while True:
            # one more read after the adds are done: the final state (on a loaded
            # machine the loop may otherwise end before it read the last generation)
            last = stop.is_set()
            try:
                tables = read_tables(out)  # checks every count against its manifest
                ids = {r["id"] for r in tables["articles"]}
                in_stories = {a for s in tables["stories"] for a in s["articles"]}
                assert in_stories == ids, "stories of another generation"
                seen.append(len(ids))
            except BaseException as e:  # noqa: BLE001
                problems.append(e)
            if last:
                return

    t = threading.Thread(target=reader)
    t.start()
    try:
        for k in range(2, 8):
            write_articles(tmp_path / f"n{k}", [k])
            unspin.add([tmp_path / f"n{k}"], out=out, config=cfg)
    finally:
        stop.set()
        t.join()
    assert not problems, problems[:3]
    assert seen and seen == sorted(seen) and seen[-1] == 8
