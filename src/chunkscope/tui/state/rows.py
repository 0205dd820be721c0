"""A question with its results as one line of the question list, and the glyph saying what happened."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from chunkscope.analysis.answers import AnswerRow, Attribution
from chunkscope.analysis.compare import Comparison, QuestionMove, State, state_of
from chunkscope.analysis.diagnose import FailureCause, failure_cause
from chunkscope.analysis.fragility import FragilityResult, FragilityRow
from chunkscope.model import Question
from chunkscope.results import ConfigResult, QuestionResult

APPROXIMATE_MARK = "≈"
"""Before a question's query in the list and in the ranked chunks' header: its gold was located by an
approximate match (normalised or fuzzy), not found as given."""


def approximate_matches(result: QuestionResult) -> tuple[str, ...]:
    """How the question's gold was located when not exactly (``normalized``, ``fuzzy``), sorted; empty when
    every span was found as given."""
    return tuple(sorted({label for labels in result.gold_match for label in labels if label != "exact"}))


class Status(Enum):
    """What happened to a question's evidence, as a glyph that carries the meaning without colour."""

    PIECES = ("⧉", "delivered in pieces")
    """No delivered chunk holds the evidence whole, yet every character of it was delivered, split across
    chunks (lost questions included: the boundary that cut the gold fell between two delivered chunks)."""
    LOST = ("✂", "lost")
    """A boundary cut the gold before retrieval: no chunk contains a required item."""
    MISSED = ("✗", "not delivered")
    """The evidence exists but none of the required items was delivered."""
    PARTIAL = ("◐", "partial")
    """Some, not all, required items were delivered."""
    COMPLETE = ("✓", "complete")
    """Every required item was delivered."""

    @property
    def glyph(self) -> str:
        """One terminal cell shown in the question list."""
        return self.value[0]

    @property
    def word(self) -> str:
        """The meaning in words."""
        return self.value[1]


def status_of(result: QuestionResult) -> Status:
    """Classify one question's result by what reached the context."""
    if result.in_pieces:
        return Status.PIECES
    if result.lost:
        return Status.LOST
    if result.complete:
        return Status.COMPLETE
    if any(result.covered):
        return Status.PARTIAL
    return Status.MISSED


@dataclass(frozen=True, slots=True)
class QuestionRow:
    """One line of the question list: a question with its result under the shown configuration."""

    index: int
    """Position in the question set."""
    question: Question
    result: QuestionResult
    status: Status
    state: State
    """``pieces``, ``lost`` or the rank bucket (the transition-matrix state)."""
    cause: FailureCause
    result_b: QuestionResult | None = None
    """The result under B, in the split view."""
    status_b: Status | None = None
    """The status under B, in the split view."""
    move: QuestionMove | None = None
    """How the question moved from A to B, in the split view (once the comparison is computed)."""
    cause_b: FailureCause | None = None
    """The failure cause under B, in the split view."""
    fragility: FragilityRow | None = None
    """The question's fragility under A (once computed for A's configuration: ``u`` in the single view)."""
    answer: AnswerRow | None = None
    """The question's answer attributed under A, in the single view when A is the answers' own configuration
    (None there for a question the answers file does not answer)."""

    @property
    def results(self) -> tuple[QuestionResult, ...]:
        """The result under A, and under B in the split view."""
        return (self.result,) if self.result_b is None else (self.result, self.result_b)

    @property
    def failing(self) -> bool:
        """Not every required item was delivered (under A or, in the split view, under B)."""
        return not all(result.complete for result in self.results)


def build_rows(
    questions: Sequence[Question],
    result: ConfigResult,
    result_b: ConfigResult | None = None,
    comparison: Comparison | None = None,
    fragility: FragilityResult | None = None,
    attribution: Attribution | None = None,
) -> tuple[QuestionRow, ...]:
    """Every question as a row under ``result`` (with ``result_b`` and the move to it in the split view,
    each question's fragility when ``fragility``, of ``result``'s configuration, is given, and its answer
    when ``attribution``, the core's attribution under ``result``'s configuration, is given)."""
    answers = attribution.by_question if attribution is not None else {}
    count = len(result.questions)
    results_b: Sequence[QuestionResult | None] = result_b.questions if result_b is not None else [None] * count
    moves: Sequence[QuestionMove | None] = comparison.moves if comparison is not None else [None] * count
    return tuple(
        QuestionRow(
            index,
            question,
            question_result,
            status_of(question_result),
            state_of(question_result),
            failure_cause(question_result, result.config),
            b,
            status_of(b) if b is not None else None,
            move,
            failure_cause(b, result_b.config) if b is not None and result_b is not None else None,
            fragility.row(question.id) if fragility is not None else None,
            answers.get(question.id),
        )
        for index, (question, question_result, b, move) in enumerate(
            zip(questions, result.questions, results_b, moves, strict=True)
        )
    )
