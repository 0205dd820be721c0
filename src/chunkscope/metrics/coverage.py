"""Coverage metrics of one question: does the evidence survive chunking, and is it delivered?

Each function is the question's value (0 or 1); the configuration's value is
the sum over its questions, a count of questions.
"""

from __future__ import annotations

from chunkscope.results import QuestionResult


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
