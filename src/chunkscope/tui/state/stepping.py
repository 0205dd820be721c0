"""Wrap-around steps: through a sequence of names, and through the rows of a list."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence

from chunkscope.tui.state.rows import QuestionRow


def cycle(values: Sequence[str], current: str, step: int) -> str:
    """The value ``step`` places after ``current`` in ``values``, wrapping around (first when absent)."""
    if current not in values:
        return values[0]
    return values[(values.index(current) + step) % len(values)]


def _walk(rows: Sequence[QuestionRow], current: int | None, step: int) -> Iterator[int]:
    """Positions one ``step`` after another from ``current`` (from the start, or the end stepping back, when
    None), wrapping around: every position once, ``current`` itself last."""
    start = current if current is not None else (-1 if step > 0 else 0)
    for offset in range(1, len(rows) + 1):
        yield (start + step * offset) % len(rows)


def step_through(
    rows: Sequence[QuestionRow], current: int | None, step: int, wanted: Callable[[QuestionRow], bool]
) -> QuestionRow | None:
    """The next row after (``step`` 1) or before (-1) position ``current`` that ``wanted`` accepts, wrapping
    around; from the start (or the end, stepping back) when ``current`` is None."""
    return next((rows[index] for index in _walk(rows, current, step) if wanted(rows[index])), None)


def steps_ahead(
    rows: Sequence[QuestionRow], current: int | None, step: int, wanted: Callable[[QuestionRow], bool], count: int
) -> tuple[QuestionRow, ...]:
    """The rows ``count`` presses of the same step select in turn from position ``current`` (as repeated
    :func:`step_through` would), each once: fewer when ``wanted`` accepts fewer, never the row at ``current``."""
    accepted = (rows[index] for index in _walk(rows, current, step) if index != current and wanted(rows[index]))
    return tuple(itertools.islice(accepted, max(count, 0)))
