"""Rewrite a store's kept candidate states in this checkout's form, as its first add would.

Usage::

    PYTHONPATH=src:bench .venv/bin/python bench/kept_states.py STORE [EMBEDDER [CODE_VERSION]]

A store written before :class:`unspin.candidates.RowKeys` and
:func:`unspin.pipeline.key_array` keeps its sentence neighbour state with one key string
per sentence row, and its pair state with one key string per candidate pair; this
checkout reads those and writes the compact forms after its first add. To time an add
of this checkout in its steady state on a base built by earlier code
(``bench/add_latency.py --base``, on a copy: the base is never written), the states are
converted once here: each neighbour state's row strings are grouped into doc keys and
row counts and each pair state's keys put in one bytes array, each checked to give back
exactly the same strings, and stored again. With EMBEDDER (the runs' ``--embedder``),
each archived article's keys are kept with it too (:func:`unspin.pipeline.archive_keys`),
as the first add of this checkout keeps them; CODE_VERSION: the code version the timed
runs are pinned to (``bench/add_latency.py --pin-code-version``), which the keys' tag
holds. Nothing else in the store changes.
"""

from __future__ import annotations

import sys

import numpy as np

from unspin.candidates import RowKeys
from unspin.pipeline import (
    Config,
    KeyArray,
    archive_keys,
    archive_tag,
    doc_cache_name,
    key_array,
)
from unspin.store import Store


def row_keys_of(strings: list[str]) -> RowKeys | None:
    """The RowKeys standing for ``strings`` (``f"{doc}:{n}"``, each doc's rows together
    and numbered from 0), or None when they are not of that form."""
    docs: list[str] = []
    counts: list[int] = []
    for s in strings:
        doc, _, n = s.rpartition(":")
        if docs and docs[-1] == doc and n == str(counts[-1]):
            counts[-1] += 1
        elif n == "0":
            docs.append(doc)
            counts.append(1)
        else:
            return None
    got = RowKeys(docs, np.array(counts, dtype=np.int64))
    return got if got.strings() == strings else None


def main() -> int:
    folder = sys.argv[1]
    if len(sys.argv) > 3:
        import unspin.pipeline as pipeline

        pipeline.code_version = lambda: sys.argv[3]  # as add_latency.py --pin-code-version
    with Store(folder) as st:
        slots = [
            k
            for (k,) in st.con.execute("SELECT key FROM memo WHERE kind='neighbours'")
            if k.startswith("sentence:")
        ]
        states = st.memo_get("neighbours", slots)
        changed = {}
        for slot, state in states.items():
            if isinstance(state.keys, list):
                rk = row_keys_of(state.keys)
                if rk is None:
                    print(f"{slot}: not rows of docs; left as it is")
                    continue
                state.keys = rk
                changed[slot] = state
                print(f"{slot}: {len(rk)} row keys -> {len(rk.docs)} doc keys and counts")
        if changed:
            st.memo_put("neighbours", changed)
        slots = [k for (k,) in st.con.execute("SELECT key FROM memo WHERE kind='pairs'")]
        changed = {}
        for slot, state in st.memo_get("pairs", slots).items():
            if isinstance(state.keys, list):
                arr = key_array(state.keys)
                if list(KeyArray(arr)) != state.keys:
                    print(f"{slot}: keys not kept exactly as bytes; left as they are")
                    continue
                print(f"{slot}: {len(arr)} pair keys -> one {arr.dtype} array")
                state.keys = arr
                changed[slot] = state
        if changed:
            st.memo_put("pairs", changed)
        if len(sys.argv) > 2:
            cfg = Config(embedder=sys.argv[2])
            arts = st.load_articles(archive_tag(cfg), doc_cache_name(cfg))
            todo = [a for a in arts if st.archived_keys(a) is None]
            st.save_articles(todo, keys=[archive_keys(a, cfg) for a in todo])
            print(f"archive: keys kept with {len(todo)} of {len(arts)} articles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
