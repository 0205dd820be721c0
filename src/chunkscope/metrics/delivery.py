"""Delivery metrics of one question: what the context assembly sent.

Each function is the question's value in characters; the configuration's value
is the sum over its questions.
"""

from __future__ import annotations

from chunkscope.results import QuestionResult


def sent_chars(result: QuestionResult) -> int:
    """Characters sent: ``sum(len(prefix) + end - start)`` over the delivered chunks (truncated bodies as cut)."""
    return result.sent_chars


def duplicate_chars(result: QuestionResult) -> int:
    """Body characters sent more than once: delivered body characters minus distinct (document, offset) pairs."""
    return result.duplicate_chars
