"""The inspector's view-model in one import: the Session and the values and steps the screens use.

The pieces live in :mod:`chunkscope.tui.state`, one module each; callers outside the inspector
(the ``inspect`` command, benchmarks, tests) import them from here.
"""

from chunkscope.tui.state.config_steps import (
    BUDGET_STEPS,
    OVERFLOWS,
    OVERLAP_SHARES,
    SIZE_STEPS,
    TOP_K_STEPS,
    StepError,
    cyclable_names,
    cycle_overflow,
    cycle_overlap,
    cycle_strategy,
    spec_name,
    step_budget,
    step_size,
    step_top_k,
)
from chunkscope.tui.state.filters import MOVE_FILTERS, STATE_FILTERS, RowFilter, ViewName, ViewState, filter_cycle
from chunkscope.tui.state.rows import QuestionRow, Status, status_of
from chunkscope.tui.state.session import Session
from chunkscope.tui.state.slots import Side, Slot
from chunkscope.tui.state.stepping import cycle, step_through, steps_ahead

__all__ = [
    "BUDGET_STEPS",
    "MOVE_FILTERS",
    "OVERFLOWS",
    "OVERLAP_SHARES",
    "SIZE_STEPS",
    "STATE_FILTERS",
    "TOP_K_STEPS",
    "QuestionRow",
    "RowFilter",
    "Session",
    "Side",
    "Slot",
    "Status",
    "StepError",
    "ViewName",
    "ViewState",
    "cyclable_names",
    "cycle",
    "cycle_overflow",
    "cycle_overlap",
    "cycle_strategy",
    "filter_cycle",
    "spec_name",
    "status_of",
    "step_budget",
    "step_size",
    "step_through",
    "step_top_k",
    "steps_ahead",
]
