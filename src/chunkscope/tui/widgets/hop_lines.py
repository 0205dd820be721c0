"""Multi-hop questions in the inspector: the detail's hops line and the question list's hop count.

The counts are the core's (``QuestionResult.hops_delivered``, ``hop_count``, ``missing_hops``); the names of the
missing hops come from :func:`chunkscope.analysis.hops.missing_hop_details`. Hops and items are shown 1-based, as
the ranked chunks number items (``item 2``); a question with fewer than two hops shows nothing.
"""

from __future__ import annotations

from chunkscope.analysis.hops import HopDetail, missing_hop_details, some_hop_missing
from chunkscope.model import Question
from chunkscope.results import QuestionResult

HOPS_LEGEND = "1/2: hops delivered, some missing"
"""The status line's reading of the question list's hop count."""


def is_multi_hop(result: QuestionResult) -> bool:
    """The question has two hops or more (a one-hop question of a multi-hop set counts as neither)."""
    return result.hop_count >= 2


def hop_mark(result: QuestionResult) -> str:
    """The question list's hop count, ``1/2``, for a multi-hop question with some hop missing; empty otherwise."""
    if not some_hop_missing(result):
        return ""
    return f"{result.hops_delivered}/{result.hop_count}"


def _numbers(indices: tuple[int, ...]) -> str:
    return ", ".join(str(i + 1) for i in indices)


def _items(indices: tuple[int, ...]) -> str:
    return f"item{'s' if len(indices) > 1 else ''} {_numbers(indices)}"


def hop_name(detail: HopDetail) -> str:
    """``hop 2 (Harrowgate: item 3)``; when some of its items were delivered, the others are named:
    ``hop 1 (Lanner Observatory: items 1, 2; item 2 not delivered)``."""
    text = f"hop {detail.hop + 1} ({' / '.join(detail.documents)}: {_items(detail.items)}"
    if detail.not_delivered != detail.items:
        text += f"; {_items(detail.not_delivered)} not delivered"
    return text + ")"


def hops_line(question: Question, result: QuestionResult) -> str:
    """``hops 1 of 2 delivered · missing: hop 2 (Harrowgate: item 3)`` for a multi-hop question; empty otherwise."""
    if not is_multi_hop(result):
        return ""
    line = f"hops {result.hops_delivered} of {result.hop_count} delivered"
    missing = missing_hop_details(question, result)
    if missing:
        line += " · missing: " + ", ".join(hop_name(detail) for detail in missing)
    return line
