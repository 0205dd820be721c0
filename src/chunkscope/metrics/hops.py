"""Hop metrics of one question: multi-hop questions (HotpotQA, MultiHop-RAG) need every hop delivered.

A question's hops come from its input (``Question.hops``: per required item, the supporting document it
belongs to). A hop is delivered when every one of its items is covered by the delivered context (top-k
within the budget, ``QuestionResult.covered``). A multi-hop question has two hops or more. Both metrics
exist only for configurations whose questions include a multi-hop one, so other reports are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from chunkscope.results import QuestionResult, ResultColumns


def multi_hop(result: QuestionResult) -> int:
    """``1`` when the question has two hops or more, else ``0``."""
    return int(result.hop_count >= 2)


def all_hops_delivered(result: QuestionResult) -> int:
    """``1`` when the question has two hops or more and every item of every hop lies wholly inside a
    delivered body (top-k within the budget), else ``0``."""
    return int(result.hop_count >= 2 and result.hops_delivered == result.hop_count)


def has_multi_hop(results: Sequence[QuestionResult]) -> bool:
    """True when some question has two hops or more."""
    return any(result.hop_count >= 2 for result in results)


def multi_hop_column(columns: ResultColumns) -> np.ndarray:
    """:func:`multi_hop` of every question (int64)."""
    return columns.multi_hop.astype(np.int64)


def all_hops_delivered_column(columns: ResultColumns) -> np.ndarray:
    """:func:`all_hops_delivered` of every question (int64)."""
    return columns.all_hops.astype(np.int64)


def has_multi_hop_column(columns: ResultColumns) -> bool:
    """:func:`has_multi_hop` from the columns."""
    return bool(columns.multi_hop.any())
