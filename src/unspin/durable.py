"""Durable writes shared by the store and the k-NN vector files (a leaf module: it
imports nothing of unspin, so the candidates stage can use it without the store)."""

from __future__ import annotations

import os


def write_synced(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the open file ``fd`` (``os.write`` may write less than
    asked) and fsync it, so that what names the file is committed only after its bytes
    are on disk."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)
