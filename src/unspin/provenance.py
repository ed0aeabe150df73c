"""Provenance stage: what each derivative changed, quotations across the pile, lineage.

Runs after the stories stage on the plain Result and fills ``Result.changes``,
``Result.quotes`` and ``Result.lineage`` (written as changes.jsonl, quotes.jsonl and
lineage.jsonl).
"""

from __future__ import annotations

from collections.abc import Callable

from unspin.model import Change, Result


def add_provenance(
    result: Result, changes_fn: Callable[[Result], list[Change]] | None = None
) -> Result:
    """Fill the provenance fields of ``result`` in place and return it.

    ``changes_fn``: computes ``result.changes`` instead of
    :func:`unspin.changes.changes_for_result` (the pipeline's parallel, memoised map of
    the same per-relation function)."""
    from unspin.changes import changes_for_result
    from unspin.lineage import build_lineage
    from unspin.quotes import quote_groups

    derived = frozenset(r.derivative for r in result.relations if r.derivative)
    result.quotes = quote_groups(result.docs, derived=derived)
    result.lineage = build_lineage(result, result.quotes)
    result.changes = (changes_fn or changes_for_result)(result)
    return result
