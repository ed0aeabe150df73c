"""`unspin eval ...` with fingerprints cached in a Store, so before/after runs of a change
to the pair stage (align, classify, stories) fingerprint each article once.

Usage: .venv/bin/python bench/cached_eval.py CACHE_DIR TASK DATA... [eval options]
The results equal a plain `unspin eval` run: a cached Doc is keyed by fingerprint version,
embedder and the article's text, title and language (unspin.store.cache_key); the second
encoder's vectors (unspin.second) are cached in the same store, by model.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from unspin import cli
from unspin.evaluate import runner
from unspin.model import Article, Result
from unspin.pipeline import Config, analyse, fingerprint
from unspin.store import Store


def main() -> int:
    import logging

    # the second encoder's cost (unspin.second: articles, texts encoded, seconds)
    logging.basicConfig(format="%(name)s: %(message)s")
    logging.getLogger("unspin.second").setLevel(logging.INFO)
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        # the first argument is a folder: never make a store named "--help"
        print(__doc__.strip(), file=sys.stderr)
        return 0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2
    cache_dir, rest = sys.argv[1], sys.argv[2:]
    store = Store(cache_dir)

    def run(articles: Sequence[Article], config: Config | None) -> Result:
        cfg = config or Config()
        docs = fingerprint(articles, cfg, cache=store)
        store.commit()
        return analyse(docs, cfg, cache=store)

    runner._run = run
    try:
        return cli.main(["eval", *rest])
    finally:
        store.close()


if __name__ == "__main__":
    sys.exit(main())
