"""Wrap-around steps: through a sequence of names, and through the rows of a list."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from chunkscope.tui.state.rows import QuestionRow


def cycle(values: Sequence[str], current: str, step: int) -> str:
    """The value ``step`` places after ``current`` in ``values``, wrapping around (first when absent)."""
    if current not in values:
        return values[0]
    return values[(values.index(current) + step) % len(values)]


def step_through(
    rows: Sequence[QuestionRow], current: int | None, step: int, wanted: Callable[[QuestionRow], bool]
) -> QuestionRow | None:
    """The next row after (``step`` 1) or before (-1) position ``current`` that ``wanted`` accepts, wrapping
    around; from the start (or the end, stepping back) when ``current`` is None."""
    if not rows:
        return None
    start = current if current is not None else (-1 if step > 0 else 0)
    for offset in range(1, len(rows) + 1):
        row = rows[(start + step * offset) % len(rows)]
        if wanted(row):
            return row
    return None


def steps_ahead(
    rows: Sequence[QuestionRow], current: int | None, step: int, wanted: Callable[[QuestionRow], bool], count: int
) -> tuple[QuestionRow, ...]:
    """The rows ``count`` presses of the same step select in turn from position ``current`` (as repeated
    :func:`step_through` would), each once: fewer when ``wanted`` accepts fewer, never the row at ``current``."""
    ahead: list[QuestionRow] = []
    if not rows or count <= 0:
        return ()
    start = current if current is not None else (-1 if step > 0 else 0)
    for offset in range(1, len(rows) + 1):
        index = (start + step * offset) % len(rows)
        if index == current:
            break
        if wanted(rows[index]):
            ahead.append(rows[index])
            if len(ahead) == count:
                break
    return tuple(ahead)
