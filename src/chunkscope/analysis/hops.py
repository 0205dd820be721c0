"""Each hop of a multi-hop question, named: its supporting document(s), its required items, and which of them the
delivered context lacks.

The core counts hops (``QuestionResult.hop_count``, ``hops_delivered``, ``missing_hops``; see
docs/metrics.md#multi-hop-questions-hops); this module only groups a question's required items by the hop the
input gave each (``QuestionResult.hops``) so that a view can say *which* hop is missing and where it lives. A hop
is delivered exactly when the core does not list it in ``missing_hops``.
"""

from __future__ import annotations

from dataclasses import dataclass

from chunkscope.model import Question
from chunkscope.results import QuestionResult


@dataclass(frozen=True, slots=True)
class HopDetail:
    """One hop of one question under one configuration."""

    hop: int
    """The hop's index (0-based, in the order the input first lists it; shown 1-based)."""
    documents: tuple[str, ...]
    """The ids of the documents its items' gold spans lie in, in first-seen order (one for HotpotQA and
    MultiHop-RAG: the supporting paragraph or article)."""
    items: tuple[int, ...]
    """Its required items: 0-based positions in ``Question.evidence``, ascending."""
    not_delivered: tuple[int, ...]
    """Those of ``items`` the delivered context does not cover (``QuestionResult.covered`` false)."""
    delivered: bool
    """The core's verdict: the hop is not among ``QuestionResult.missing_hops``."""


def hop_details(question: Question, result: QuestionResult) -> tuple[HopDetail, ...]:
    """Every hop of ``question`` under ``result``, by hop index; empty when the input gave no hops."""
    if not result.hops:
        return ()
    missing = set(result.missing_hops)
    details = []
    for hop in sorted(set(result.hops)):
        items = tuple(i for i, item_hop in enumerate(result.hops) if item_hop == hop)
        documents = tuple(dict.fromkeys(span.doc for i in items for span in question.evidence[i].alternatives))
        not_delivered = tuple(i for i in items if not result.covered[i])
        details.append(HopDetail(hop, documents, items, not_delivered, hop not in missing))
    return tuple(details)


def missing_hop_details(question: Question, result: QuestionResult) -> tuple[HopDetail, ...]:
    """The hops of ``question`` the core counts as missing under ``result`` (``missing_hops``), in order."""
    return tuple(detail for detail in hop_details(question, result) if not detail.delivered)


def some_hop_missing(result: QuestionResult) -> bool:
    """A multi-hop question (two hops or more) with some hop the delivered context lacks: the multi-hop
    questions ``all_hops_delivered`` does not count."""
    return result.hop_count >= 2 and bool(result.missing_hops)
