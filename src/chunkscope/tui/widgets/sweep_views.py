"""The sweep map's two views as text: the size x overlap grid and the cost x metric scatter.

Both are pure functions of a :class:`~chunkscope.analysis.sweepmap.SweepMap` and a width in terminal
cells, and read without colour: ``★`` best, ``↓`` significantly below the best (the sweep's
Holm-corrected tests), ``◆`` on the Pareto frontier, ``·`` a combination the sweep did not run,
``[ ]`` around the selected cell; in the scatter ``●`` a frontier point and ``○`` any other, each
followed by its number. Colour (a five-step scale of the metric's value) only repeats the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from chunkscope.analysis.sweepmap import SweepMap, SweepPoint
from chunkscope.reports.format import metric_label
from chunkscope.reports.sweep import grid_value_text
from chunkscope.tui.cells import pad, pad_left, truncate

MARK_GLYPHS = {"best": "★", "worse": "↓", "": " "}
"""The sweep's mark of a configuration, as one cell."""
FRONTIER_GLYPH = "◆"
ON_FRONTIER = "●"
OFF_FRONTIER = "○"
SHARED = "◎"
"""Two or more points in one character cell of the scatter."""
SCALE = ("#d7301f", "#fc8d59", "#fdcc8a", "#91cf60", "#1a9850")
"""Colours of the lowest to the highest fifth of the metric's range (a secondary cue)."""
CELL = 10
"""Cells of one grid column: ``[.742 ↓◆]``."""
COST_LABELS = {"index_chunks": "chunks", "indexed_chars": "indexed chars"}


def point_number(point: SweepPoint) -> str:
    """A configuration's number on the map: its 1-based position in the sweep."""
    return str(point.index + 1)


def value_style(view: SweepMap, value: float) -> Style:
    """The colour of ``value`` on the scale of the map's values."""
    values = [p.value for p in view.points]
    low, high = min(values), max(values)
    step = 0 if high == low else min(len(SCALE) - 1, int((value - low) / (high - low) * len(SCALE)))
    return Style(color=SCALE[step if high != low else -1])


def cell_text(point: SweepPoint) -> str:
    """``.742 ↓◆``: value, mark, frontier (8 cells)."""
    frontier = FRONTIER_GLYPH if point.pareto else " "
    return f"{pad_left(grid_value_text(point.value), 5)} {MARK_GLYPHS[point.mark]}{frontier}"


def legend_text(view: SweepMap) -> str:
    """What the glyphs mean, for the map's metric and cost."""
    return (
        f"{metric_label(view.metric)} · ★ best · ↓ below the best (Holm-corrected) · "
        f"◆ Pareto frontier vs {COST_LABELS[view.cost]} · · not swept"
    )


def grid_text(view: SweepMap, cursor: int | None, width: int) -> Text:
    """The grid: one row per (chunker, size), one column per overlap, the selected configuration in brackets."""
    grid = view.grid
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(truncate(legend_text(view), width) + "\n", style=Style(dim=True))
    labels = [f"{family} {size}" for family, size in grid.rows]
    label_width = max([len(label) for label in labels] + [len("chunker size")]) + 1
    text.append(pad("chunker size", label_width), style=Style(bold=True))
    for column in range(len(grid.columns)):
        text.append(pad_left(f"ovl {grid.column_text(column)}", CELL - 2) + "  ", style=Style(bold=True))
    text.append("\n")
    for label, row in zip(labels, grid.cells, strict=True):
        text.append(pad(label, label_width))
        for index in row:
            _append_cell(text, view, index, cursor)
        text.append("\n")
    if grid.off_grid:
        text.append(pad("no size", label_width))
        for index in grid.off_grid:
            _append_cell(text, view, index, cursor)
            text.append(f" {view.points[index].label}  ", style=Style(dim=True))
        text.append("\n")
    return text


def _append_cell(text: Text, view: SweepMap, index: int | None, cursor: int | None) -> None:
    if index is None:
        text.append(pad_left("·", 6) + " " * (CELL - 6), style=Style(dim=True))  # under the values' last digit
        return
    point = view.points[index]
    selected = index == cursor
    style = value_style(view, point.value) + Style(bold=point.mark == "best", reverse=selected)
    text.append("[" if selected else " ")
    text.append(cell_text(point), style=style)
    text.append("]" if selected else " ")


@dataclass(frozen=True, slots=True)
class PlotArea:
    """Where the scatter's points go: columns and rows of the plot, without the axes."""

    width: int
    height: int

    def column(self, value: float, low: float, high: float) -> int:
        """Column of ``value`` on ``[low, high]``, 0 at ``low``; the middle when the range is empty."""
        if high == low:
            return (self.width - 1) // 2
        return round((value - low) / (high - low) * (self.width - 1))

    def row(self, value: float, low: float, high: float) -> int:
        """Row of ``value`` on ``[low, high]``, 0 (the top) at ``high``."""
        if high == low:
            return (self.height - 1) // 2
        return round((high - value) / (high - low) * (self.height - 1))


Y_LABEL = 6
"""Cells of the value labels left of the plot."""


def scatter_places(view: SweepMap, area: PlotArea) -> dict[tuple[int, int], list[SweepPoint]]:
    """(row, column) of the plot -> the points drawn there (cost across, the metric up)."""
    costs = [p.cost(view.cost) for p in view.points]
    values = [p.value for p in view.points]
    places: dict[tuple[int, int], list[SweepPoint]] = {}
    for point in view.points:
        key = (
            area.row(point.value, min(values), max(values)),
            area.column(point.cost(view.cost), min(costs), max(costs)),
        )
        places.setdefault(key, []).append(point)
    return places


def scatter_text(view: SweepMap, cursor: int | None, width: int, height: int) -> Text:
    """The scatter in ``width`` x ``height`` cells: value labels, the plot, the cost axis and its labels."""
    area = PlotArea(max(10, width - Y_LABEL - 1), max(3, height - 3))
    canvas = [[" "] * area.width for _ in range(area.height)]
    styles: dict[tuple[int, int], Style] = {}
    places = scatter_places(view, area)
    for (row, column), points in sorted(places.items()):
        glyph = SHARED if len(points) > 1 else (ON_FRONTIER if points[0].pareto else OFF_FRONTIER)
        canvas[row][column] = glyph
        selected = any(p.index == cursor for p in points)
        styles[(row, column)] = value_style(view, points[0].value) + Style(bold=True, reverse=selected)
        _write_label(canvas, row, column, "+".join(point_number(p) for p in points))
    values = [p.value for p in view.points]
    costs = [p.cost(view.cost) for p in view.points]
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(
        truncate(
            f"{metric_label(view.metric)} ↑ against {COST_LABELS[view.cost]} → · ● frontier · ○ other · ◎ shared cell",
            width,
        )
        + "\n",
        style=Style(dim=True),
    )
    for row in range(area.height):
        label = (
            grid_value_text(max(values)) if row == 0 else grid_value_text(min(values)) if row == area.height - 1 else ""
        )
        text.append(pad_left(label, Y_LABEL) + "│")
        for column, character in enumerate(canvas[row]):
            text.append(character, style=styles.get((row, column), Style()))
        text.append("\n")
    text.append(" " * Y_LABEL + "└" + "─" * area.width + "\n")
    low, high = f"{min(costs):,}", f"{max(costs):,} {COST_LABELS[view.cost]}"
    gap = max(1, area.width - len(low) - len(high))
    text.append(" " * (Y_LABEL + 1) + low + " " * gap + high)
    return text


def _write_label(canvas: list[list[str]], row: int, column: int, label: str) -> None:
    """Write ``label`` right of the glyph when it fits in blank cells, else left of it, else not at all."""
    width = len(canvas[row])
    right = range(column + 1, column + 1 + len(label))
    if right.stop <= width and all(canvas[row][c] == " " for c in right):
        for c, character in zip(right, label, strict=True):
            canvas[row][c] = character
        return
    left = range(column - len(label), column)
    if left.start >= 0 and all(canvas[row][c] == " " for c in left):
        for c, character in zip(left, label, strict=True):
            canvas[row][c] = character


def points_table(view: SweepMap, cursor: int | None, width: int, only: Sequence[SweepPoint] | None = None) -> Text:
    """One line per point (the frontier first; ``only`` those given): ``▶`` the selected one, number, marks,
    value, chunks, indexed characters, label."""
    text = Text(no_wrap=True, overflow="ellipsis")
    heading = f"  {'#':>3}    {metric_label(view.metric):>7} {'chunks':>7} {'indexed':>9}  configuration"
    text.append(truncate(heading, width) + "\n", style=Style(bold=True))
    frontier = view.frontier
    rest = [p for p in view.points if not p.pareto]
    for point in only if only is not None else (*frontier, *rest):
        glyph = ON_FRONTIER if point.pareto else OFF_FRONTIER
        selected = "▶ " if point.index == cursor else "  "
        line = (
            f"{selected}{point_number(point):>3} {glyph}{MARK_GLYPHS[point.mark]} {grid_value_text(point.value):>7} "
            f"{point.chunks:>7,} {point.indexed_chars:>9,}  {point.label}"
        )
        style = Style(reverse=point.index == cursor, bold=point.pareto)
        text.append(truncate(line, width) + "\n", style=style)
    return text
