"""unspin: trace news copies, spins and translations back to their source."""

from unspin.api import add, compare, remove, scan
from unspin.model import (
    AlignedPassage,
    Article,
    Doc,
    InputError,
    Relation,
    Result,
    Sentence,
    Story,
)
from unspin.pipeline import Config

__version__ = "0.1.0"
__all__ = [
    "AlignedPassage",
    "Article",
    "Config",
    "Doc",
    "InputError",
    "Relation",
    "Result",
    "Sentence",
    "Story",
    "add",
    "compare",
    "remove",
    "scan",
]
