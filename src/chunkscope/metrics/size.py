"""Size of one evaluation: the questions asked and the index built.

These are properties of the configuration as a whole, not of one question:
each function takes every question's result and the index's retrieval units.
"""

from __future__ import annotations

from collections.abc import Sequence

from chunkscope.model import Chunk
from chunkscope.results import QuestionResult


def questions(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> int:
    """Questions evaluated: ``len(results)``."""
    return len(results)


def index_chunks(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> int:
    """Retrieval units in the index: ``len(units)``."""
    return len(units)


def indexed_chars(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> int:
    """Characters indexed: ``sum(len(context) + len(prefix) + end - start)`` over the retrieval units."""
    return sum(len(u.context) + len(u.prefix) + u.end - u.start for u in units)
