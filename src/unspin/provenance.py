"""Provenance stage: what each derivative changed, quotations across the pile, lineage.

Runs after the stories stage on the plain Result and fills ``Result.changes``,
``Result.quotes`` and ``Result.lineage`` (written as changes.jsonl, quotes.jsonl and
lineage.jsonl).
"""

from __future__ import annotations

from unspin.model import Result


def add_provenance(result: Result) -> Result:
    """Fill the provenance fields of ``result`` in place and return it."""
    from unspin.changes import changes_for_result
    from unspin.lineage import build_lineage
    from unspin.quotes import quote_groups

    derived = frozenset(r.derivative for r in result.relations if r.derivative)
    result.quotes = quote_groups(result.docs, derived=derived)
    result.lineage = build_lineage(result, result.quotes)
    result.changes = changes_for_result(result)
    return result
