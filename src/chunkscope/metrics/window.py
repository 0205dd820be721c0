"""Window metrics of one question: evidence a dense model with a token window never read.

A dense retriever whose model reads only the first N positions of its input (``dense:window=N``)
marks, per required item, evidence lying past that window in every unit that contains it
(``QuestionResult.past_window``). The configuration's value is the sum over its questions, a count
of questions; it exists only for such retrievers.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chunkscope.results import QuestionResult, ResultColumns


def truncated_evidence(result: QuestionResult) -> int:
    """``1`` when some required item lies past the model's token window in every unit that contains it, else ``0``."""
    return int(any(result.past_window))


def has_window(results: Sequence[QuestionResult]) -> bool:
    """True when the retriever's model reads a token window (its results mark evidence past it)."""
    return any(result.past_window for result in results)


def truncated_evidence_column(columns: ResultColumns) -> np.ndarray:
    """:func:`truncated_evidence` of every question (int64)."""
    return columns.past_window.astype(np.int64)


def has_window_column(columns: ResultColumns) -> bool:
    """:func:`has_window` from the columns."""
    return bool(columns.windowed.any())
