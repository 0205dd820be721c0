"""Coverage metrics of one question: does the evidence survive chunking, and is it delivered?

Each function is the question's value (0 or 1); the configuration's value is
the sum over its questions, a count of questions.
"""

from __future__ import annotations

import numpy as np

from chunkscope.results import QuestionResult, ResultColumns


def evidence_exists(result: QuestionResult) -> int:
    """``1`` when every required item has an alternative span wholly inside some chunk of the index, else ``0``."""
    return int(result.evidence_exists)


def lost(result: QuestionResult) -> int:
    """``1 - evidence_exists``: ``1`` when some required item lies in no single chunk (no retriever can rank
    a chunk holding it whole; its characters may still be delivered in pieces)."""
    return int(result.lost)


def pieces(result: QuestionResult) -> int:
    """``1`` when the question is not complete yet every character of every required item was delivered:
    each item has an alternative wholly inside one delivered chunk or, for at least one item, spread over
    several delivered chunks (every character inside their union), else ``0``."""
    return int(result.in_pieces)


def doc_hit(result: QuestionResult) -> int:
    """``1`` when some delivered chunk belongs to a document holding an evidence span, else ``0``."""
    return int(result.doc_hit)


def complete(result: QuestionResult) -> int:
    """``1`` when every required item has an alternative wholly inside the body of a delivered chunk, else ``0``."""
    return int(result.complete)


def evidence_exists_column(columns: ResultColumns) -> np.ndarray:
    """:func:`evidence_exists` of every question (int64)."""
    return columns.evidence_exists.astype(np.int64)


def lost_column(columns: ResultColumns) -> np.ndarray:
    """:func:`lost` of every question (int64)."""
    return (~columns.evidence_exists).astype(np.int64)


def pieces_column(columns: ResultColumns) -> np.ndarray:
    """:func:`pieces` of every question (int64)."""
    return columns.in_pieces.astype(np.int64)


def doc_hit_column(columns: ResultColumns) -> np.ndarray:
    """:func:`doc_hit` of every question (int64)."""
    return columns.doc_hit.astype(np.int64)


def complete_column(columns: ResultColumns) -> np.ndarray:
    """:func:`complete` of every question (int64)."""
    return columns.complete.astype(np.int64)
