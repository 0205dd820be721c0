"""Text of the drift screen: a query's row, the two rankings side by side, the documents' exposure shifts.

Every number shown is a value of :class:`~chunkscope.analysis.drift.Drift` (RBO, top-1 change, exposure); this
module only lays them out. The marks beside a ranked item say where the same item sits in the other ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from chunkscope.analysis.drift import Drift, ExposureShift, QueryDrift
from chunkscope.tui.cells import pad, truncate

CHANGED_GLYPH = "≠"
"""Before a query whose first hit differs between A and B."""
SAME_GLYPH = "="
"""Before a query whose first hit is the same."""
ONLY_HERE = {"a": "−", "b": "+"}
"""Beside an item the other ranking does not list: dropped by B (in A's list), new in B (in B's list)."""
A_MARKS = "▲ higher under B · − not in B"
"""Legend of the marks beside A's items."""
B_MARKS = "▲ higher under B · + not in A"
"""Legend of the marks beside B's items."""


def rbo_text(value: float) -> str:
    """RBO as the reports print it (four decimals)."""
    return f"{value:.4f}"


def query_row(query: QueryDrift, width: int) -> Text:
    """One row of the query list: top-1 glyph, RBO, log line and the query, fitted to ``width`` cells."""
    glyph = CHANGED_GLYPH if query.top1_changed else SAME_GLYPH
    head = f"{glyph} {rbo_text(query.rbo)} l{query.line:<4} "
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(glyph, style="bold" if query.top1_changed else "dim")
    text.append(head[1:])
    text.append(truncate(" ".join(query.query.split()), max(1, width - len(head))))
    return text


def item_mark(rank: int, other_rank: int | None, side: str) -> str:
    """Where the item at ``rank`` of ``side``'s list sits in the other list: ``B #3 ▼`` (A's list) / ``A #1 ▲``."""
    other = "b" if side == "a" else "a"
    if other_rank is None:
        return f"{ONLY_HERE[side]} not in {other.upper()}"
    rank_a, rank_b = (rank, other_rank) if side == "a" else (other_rank, rank)
    arrow = "=" if rank_a == rank_b else ("▲" if rank_b < rank_a else "▼")
    return f"{other.upper()} #{other_rank} {arrow}"


def ranking_text(items: Sequence[str], other: Sequence[str], side: str, width: int) -> Text:
    """``side``'s ranking (``a`` or ``b``), one item a line, each with its place in ``other``; no gold marks."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if not items:
        text.append("no hits", style="dim")
        return text
    where = {item: rank for rank, item in enumerate(other, start=1)}
    mark_width = max(len(item_mark(rank, where.get(item), side)) for rank, item in enumerate(items, 1))
    room = max(4, width - 5 - mark_width - 1)
    for rank, item in enumerate(items, start=1):
        if rank > 1:
            text.append("\n")
        mark = item_mark(rank, where.get(item), side)
        text.append(f"{rank:>3}  ", style="bold" if rank == 1 else "")
        text.append(pad(truncate(item, room), room))
        text.append(" " + mark, style="bold" if mark.startswith(ONLY_HERE[side]) else "dim")
    return text


def selected_text(query: QueryDrift, drift: Drift, row: int, width: int) -> Text:
    """The selected query: its text, then its RBO, whether its first hit changed (from which to which) and its
    ``row`` in the list."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"line {query.line}  ", style="bold")
    text.append(truncate(" ".join(query.query.split()), max(1, width - len(f"line {query.line}  "))))
    text.append(f"\nRBO {rbo_text(query.rbo)} · ")
    first_a = query.first[0] if query.first else "none"
    first_b = query.second[0] if query.second else "none"
    if query.top1_changed:
        text.append(f"{CHANGED_GLYPH} top-1 changed: {first_a} → {first_b}", style="bold")
    else:
        text.append(f"{SAME_GLYPH} top-1 same: {first_a}")
    text.append(f" · row {row + 1} of {len(drift.queries)}", style="dim")
    return text


DOC_ROOM = 24
"""Cells a document id keeps before the exposure under A and B give way to the change alone."""


def exposure_text(shifts: Sequence[ExposureShift], heading: str, width: int, rows: int) -> Text:
    """Up to ``rows`` documents' exposure under A and B and its change, under ``heading``; where that leaves a
    document id under :data:`DOC_ROOM` cells, the change alone."""
    text = Text(heading, style="bold", no_wrap=True, overflow="ellipsis")
    if not shifts:
        text.append("\n  none", style="dim")
        return text
    numbers = [f"{shift.first:.4f} → {shift.second:.4f} ({shift.delta:+.4f})" for shift in shifts[:rows]]
    if width - max(len(number) for number in numbers) - 3 < DOC_ROOM:
        numbers = [f"{shift.delta:+.4f}" for shift in shifts[:rows]]
    number_width = max(len(number) for number in numbers)
    room = max(4, width - number_width - 4)
    for shift, number in zip(shifts, numbers, strict=False):
        text.append("\n  " + pad(truncate(shift.doc, room), room) + " ")
        text.append(number, style="dim")
    if len(shifts) > rows:
        text.append(f"\n  … {len(shifts) - rows} more", style="dim")
    return text


def gains_and_losses(drift: Drift) -> tuple[list[ExposureShift], list[ExposureShift]]:
    """The documents that gained exposure (largest gain first) and lost it (largest loss first), as the drift
    lists them (its exposure is ordered by gain)."""
    gains = [shift for shift in drift.exposure if shift.delta > 0]
    losses = [shift for shift in reversed(drift.exposure) if shift.delta < 0]
    return gains, losses
