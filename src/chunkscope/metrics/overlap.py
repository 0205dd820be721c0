"""Character-overlap metrics of one question: how much of the evidence was delivered, and how much of
what was sent is evidence.

These are the measures of Chroma's chunking evaluation (``chunking_evaluation``,
``evaluation_framework/base_evaluation.py``: recall, precision, IoU and precision Ω),
with the same unions and sums, on chunkscope's delivered context instead of the top-k
retrieved chunks, so top-k, budget, truncation and parent-child delivery count.

Notation for one question: each required item is scored by one of its alternative
spans, its *reference* ``r`` (see :class:`chunkscope.results.CharacterOverlap`; the item's
only span when it has one); ``∪R`` is the union of the references, ``D`` the union of
the delivered bodies (truncated bodies as cut), both per document; ``|X|`` counts
characters; ``sent`` is the question's ``sent_chars`` (prefixes included). Each value
is 0 when its denominator is 0; the configuration's value is the mean over the
questions.
"""

from __future__ import annotations

import numpy as np

from chunkscope.results import QuestionResult, ResultColumns


def _ratio(numerator: int, denominator: int) -> float:
    return numerator / denominator if denominator else 0.0


def evidence_recall(result: QuestionResult) -> float:
    """Evidence recall: ``|∪R ∩ D| / Σ_r |r|``, the evidence characters delivered over the evidence
    characters (references summed, so characters two references share count twice below)."""
    overlap = result.overlap
    return _ratio(overlap.delivered_evidence_chars, overlap.evidence_chars)


def precision(result: QuestionResult) -> float:
    """Precision: ``|∪R ∩ D| / sent``, the evidence characters delivered over the characters sent
    (delivered chunks summed, so characters sent twice count twice)."""
    return _ratio(result.overlap.delivered_evidence_chars, result.sent_chars)


def iou(result: QuestionResult) -> float:
    """IoU: ``|∪R ∩ D| / (sent + Σ_r |r − D|)``, the evidence characters delivered over the characters
    sent plus each reference's characters not delivered."""
    overlap = result.overlap
    return _ratio(overlap.delivered_evidence_chars, result.sent_chars + overlap.undelivered_evidence_chars)


def precision_omega(result: QuestionResult) -> float:
    """Precision Ω: ``|∪R ∩ H| / (|H ∪ ∪R| + Σ_u len(prefix_u))`` over the Ω references, where ``H`` is
    the union of the bodies of the index's delivered units ``u`` holding or touching a reference
    (``u.start <= r.end`` and ``r.start <= u.end``): the precision of sending exactly the units that
    hold evidence, each character once; it does not depend on the retriever or the delivery."""
    overlap = result.overlap
    return _ratio(overlap.omega_evidence_chars, overlap.omega_chars)


def _ratios(numerators: np.ndarray, denominators: np.ndarray) -> np.ndarray:
    """:func:`_ratio` of every pair (float64): both below 2**53, so one rounding of the exact quotient, as in Python."""
    ratios = np.zeros(len(numerators), dtype=np.float64)
    np.divide(numerators, denominators, out=ratios, where=denominators != 0)
    return ratios


def evidence_recall_column(columns: ResultColumns) -> np.ndarray:
    """:func:`evidence_recall` of every question."""
    return _ratios(columns.delivered_evidence_chars, columns.evidence_chars)


def precision_column(columns: ResultColumns) -> np.ndarray:
    """:func:`precision` of every question."""
    return _ratios(columns.delivered_evidence_chars, columns.sent_chars)


def iou_column(columns: ResultColumns) -> np.ndarray:
    """:func:`iou` of every question."""
    return _ratios(columns.delivered_evidence_chars, columns.sent_chars + columns.undelivered_evidence_chars)


def precision_omega_column(columns: ResultColumns) -> np.ndarray:
    """:func:`precision_omega` of every question."""
    return _ratios(columns.omega_evidence_chars, columns.omega_chars)
