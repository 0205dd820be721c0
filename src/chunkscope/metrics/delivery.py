"""Delivery metrics of one question: what the context assembly sent.

Each function is the question's value in characters; the configuration's value
is the sum over its questions.
"""

from __future__ import annotations

import numpy as np

from chunkscope.results import QuestionResult, ResultColumns


def sent_chars(result: QuestionResult) -> int:
    """Characters sent: ``sum(len(prefix) + end - start)`` over the delivered chunks (truncated bodies as cut)."""
    return result.sent_chars


def duplicate_chars(result: QuestionResult) -> int:
    """Body characters sent more than once: delivered body characters minus distinct (document, offset) pairs."""
    return result.duplicate_chars


def sent_chars_column(columns: ResultColumns) -> np.ndarray:
    """:func:`sent_chars` of every question (int64)."""
    return columns.sent_chars


def duplicate_chars_column(columns: ResultColumns) -> np.ndarray:
    """:func:`duplicate_chars` of every question (int64)."""
    return columns.duplicate_chars
