"""Which questions a view lists, and in which order: the state, movement, fragility, answer, hop, cause, tag,
transition-cell and text filters, and the split view's sort by rank change."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from chunkscope.analysis.compare import QuestionMove, State
from chunkscope.analysis.diagnose import FailureCause
from chunkscope.analysis.fragility import Verdict
from chunkscope.analysis.hops import some_hop_missing
from chunkscope.results import QuestionResult
from chunkscope.tui.state.answers import ANSWER_FILTERS, filter_class
from chunkscope.tui.state.rows import QuestionRow

ViewName = Literal["inspect", "compare"]
"""The single view and the split view, which filter independently."""

STATE_FILTERS: tuple[str, ...] = ("all", "failing", "lost", "cut", "incomplete")
"""``failing``: not complete; ``lost``: evidence cut before retrieval; ``cut``: some gold span (even one
alternative) is split by a boundary; ``incomplete``: the evidence exists but was not all delivered."""

MOVE_FILTERS: tuple[str, ...] = ("moved", "better", "worse", "recovered", "newly lost")
"""Split-view filters on ``QuestionMove``: anything changed, rank better/worse, lost in A only, lost in B only."""

FRAGILITY_FILTERS: tuple[str, ...] = (Verdict.FRAGILE_OK.value, Verdict.ROBUST_OK.value)
"""Single-view filters on the core's fragility verdict, once fragility is computed for A."""

HOP_FILTERS: tuple[str, ...] = ("some hop missing",)
"""Multi-hop sets only: multi-hop questions with some hop not delivered (under A, or under B in the split view)."""

ListOrder = Literal["default", "improved", "regressed"]
"""The split view's order: question-set order, biggest rank improvement first, biggest regression first."""

LIST_ORDERS: tuple[ListOrder, ...] = ("default", "improved", "regressed")
"""The orders ``S`` steps through."""

ORDER_NAMES: dict[ListOrder, str] = {
    "default": "question order",
    "improved": "biggest improvement first",
    "regressed": "biggest regression first",
}
"""How each order reads in the list title."""


def _state_accepts(name: str, row: QuestionRow) -> bool:
    """In the split view a question matches when it matches under A or under B."""
    return any(_result_accepts(name, result) for result in row.results)


def _result_accepts(name: str, result: QuestionResult) -> bool:
    if name == "failing":
        return not result.complete
    if name == "lost":
        return result.lost
    if name == "cut":
        return bool(result.cuts)
    if name == "incomplete":
        return not result.lost and not result.complete
    if name in HOP_FILTERS:
        return some_hop_missing(result)
    return True


def _move_accepts(name: str, move: QuestionMove) -> bool:
    if name == "moved":
        return move.moved
    if name == "recovered":
        return move.recovered
    if name == "newly lost":
        return move.newly_lost
    return move.movement == name


@dataclass(frozen=True, slots=True)
class RowFilter:
    """Which questions the list shows; every part must accept a row."""

    state: str = "all"
    """One of STATE_FILTERS, or one of MOVE_FILTERS in the split view."""
    cause: FailureCause | None = None
    """Only questions with this failure cause (under A, or under B in the split view)."""
    cell: tuple[State, State] | None = None
    """Only questions in this (state under A, state under B) transition cell."""
    text: str = ""
    """Case-insensitive substring of the question id or query."""
    tag: str | None = None
    """Only questions carrying this tag (their own, or a computed group under ``--groups auto``)."""

    def accepts(self, row: QuestionRow) -> bool:
        """True when the row passes every part of the filter."""
        if self.state in MOVE_FILTERS:
            if row.move is None or not _move_accepts(self.state, row.move):
                return False
        elif self.state in FRAGILITY_FILTERS:
            if row.fragility is None or row.fragility.verdict.value != self.state:
                return False
        elif self.state in ANSWER_FILTERS:
            if row.answer is None or row.answer.attribution != filter_class(self.state):
                return False
        elif not _state_accepts(self.state, row):
            return False
        if self.cause is not None and self.cause not in (row.cause, row.cause_b):
            return False
        if self.tag is not None and self.tag not in row.question.tags:
            return False
        if self.cell is not None and (row.move is None or (row.move.state_a, row.move.state_b) != self.cell):
            return False
        if self.text:
            needle = self.text.casefold()
            return needle in row.question.id.casefold() or needle in row.question.query.casefold()
        return True

    def describe(self) -> str:
        """A short description for the list title, e.g. ``failing · CUT · "q1"``."""
        parts = [self.state]
        if self.cause is not None:
            parts.append(self.cause.value)
        if self.tag is not None:
            parts.append(f"#{self.tag}")
        if self.cell is not None:
            parts.append(f"A {self.cell[0]} → B {self.cell[1]}")
        if self.text:
            parts.append(f'"{self.text}"')
        return " · ".join(parts)


class FilterChanges(TypedDict, total=False):
    """Parts of a RowFilter to replace (the others stay)."""

    state: str
    cause: FailureCause | None
    cell: tuple[State, State] | None
    text: str
    tag: str | None


def filter_cycle(compare: bool, fragility: bool = False, answers: bool = False, hops: bool = False) -> tuple[str, ...]:
    """The filters ``f`` steps through: the state filters, then ``some hop missing`` for a question set with
    multi-hop questions (``hops``), plus the movement filters in the split view, and in the single view the
    fragility verdicts once fragility is computed (``fragility``) and the attribution classes while the answers'
    own configuration is shown (``answers``)."""
    states = STATE_FILTERS + (HOP_FILTERS if hops else ())
    if compare:
        return states + MOVE_FILTERS
    return states + (FRAGILITY_FILTERS if fragility else ()) + (ANSWER_FILTERS if answers else ())


def ordered(rows: Sequence[QuestionRow], order: ListOrder) -> tuple[QuestionRow, ...]:
    """``rows`` in ``order``, by the core's rank change of each question from A to B
    (``QuestionMove.rank_change``, ``rank_b - rank_a``, negative is better); ties and rows without a
    move (the comparison still computing) keep question-set order, the latter after the others."""
    if order == "default":
        return tuple(rows)
    sign = 1 if order == "improved" else -1
    moved = [row for row in rows if row.move is not None]
    waiting = [row for row in rows if row.move is None]
    return (*sorted(moved, key=lambda row: sign * row.move.rank_change if row.move else 0.0), *waiting)


@dataclass
class ViewState:
    """Filter, order and list of one view (the single view and the split view filter independently)."""

    filter: RowFilter = field(default_factory=RowFilter)
    order: ListOrder = "default"
    """The list's order (the split view sorts by rank change)."""
    kept: str | None = None
    """A question listed even though the filter rejects it: the one selected when new results arrived,
    so a configuration change never takes the question under study off the screen."""

    def lists(self, row: QuestionRow) -> bool:
        """True when the view lists ``row``: the filter accepts it or it is the kept question."""
        return self.filter.accepts(row) or row.question.id == self.kept
