"""atheris fuzz target for the readers (issue 13): any bytes, under any supported
extension, gzip-wrapped or not, must give articles or reasons, never an exception, a
hang or unbounded memory. Run by tests/test_fuzz.py for a bounded time; by hand:

    .venv/bin/python tests/fuzz_readers.py -max_total_time=600 -rss_limit_mb=2048
"""

from __future__ import annotations

import gzip
import os
import sys
import tempfile

import atheris

with atheris.instrument_imports():
    from unspin.ingest import IngestOptions, read_file

EXTS = (".txt", ".md", ".html", ".json", ".jsonl", ".csv", ".parquet", ".story")
OPTIONS = IngestOptions(max_file_bytes=1 << 20, max_record_bytes=1 << 18, max_chars=100_000)
DIR = tempfile.mkdtemp(prefix="unspin-fuzz-")


def one_input(data: bytes) -> None:
    if not data:
        return
    ext = EXTS[data[0] % len(EXTS)]
    body = data[1:]
    if data[0] & 0x80:
        body = gzip.compress(body)
    path = os.path.join(DIR, "input" + ext)
    with open(path, "wb") as fh:
        fh.write(body)
    arts, errs = read_file(path, OPTIONS)
    crashed = [e for e in errs if "could not be read" in e.reason]
    if crashed:
        raise RuntimeError(crashed[0].reason)
    for a in arts:
        a.text.encode("utf-8")
        a.id.encode("utf-8")


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
