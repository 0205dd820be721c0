"""The sweep map: a sweep's configurations on a size x overlap grid coloured by one metric, with the
sweep's significance marks, or as a scatter of index cost against the metric with the Pareto frontier.

The screen holds immutable values only (:class:`SweepInput`: the sweep's results and its corrected
tests) and recomputes nothing statistical: the marks are the sweep's. Choosing a configuration posts
:class:`SweepMapScreen.ConfigChosen`; the app opens it as A beside the best configuration as B.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from chunkscope.analysis.comparison import ComparisonSet
from chunkscope.analysis.sweepmap import COSTS, Cost, SweepMap, sweep_map
from chunkscope.reports.format import format_p, metric_label
from chunkscope.reports.sweep import grid_value_text
from chunkscope.results import Config, ConfigResult
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.widgets.sweep_views import COST_LABELS, grid_text, points_table, scatter_text

__all__ = ["SweepInput", "SweepMapScreen", "move_in_grid", "move_in_order"]


@dataclass(frozen=True, slots=True)
class SweepInput:
    """What the sweep map shows: every configuration's result and the sweep's corrected tests."""

    comparisons: ComparisonSet
    results: tuple[ConfigResult, ...]
    """``results[i]`` is ``comparisons.configs[i]``'s result."""
    metric: str | None = None
    """The metric shown first (None: the first tested one)."""
    cost: Cost = "index_chunks"

    def map(self, metric: str, cost: Cost) -> SweepMap:
        """The map of one metric against one cost."""
        return sweep_map(self.comparisons, self.results, metric, cost)


def move_in_grid(view: SweepMap, cursor: int, rows: int, columns: int) -> int:
    """The configuration ``rows`` down or ``columns`` across from ``cursor``, skipping empty cells.

    Moving up or down lands on the nearest filled cell of the next row that has one. The off-grid
    configurations form one more row below the grid. The cursor stays when nothing is there.
    """
    layout: list[list[int | None]] = [list(row) for row in view.grid.cells]
    if view.grid.off_grid:
        layout.append(list(view.grid.off_grid))
    row, column = next((r, c) for r, line in enumerate(layout) for c, cell in enumerate(line) if cell == cursor)
    if columns:
        line = layout[row]
        cells = (line[c] for c in range(column + columns, len(line) if columns > 0 else -1, columns))
        return next((cell for cell in cells if cell is not None), cursor)
    for r in range(row + rows, len(layout) if rows > 0 else -1, rows):
        filled = [(abs(c - column), c, cell) for c, cell in enumerate(layout[r]) if cell is not None]
        if filled:
            return min(filled)[2]
    return cursor


def move_in_order(order: Sequence[int], cursor: int, step: int) -> int:
    """The configuration ``step`` places from ``cursor`` in ``order`` (clamped to its ends)."""
    position = order.index(cursor)
    return order[max(0, min(len(order) - 1, position + step))]


class _MapView(Widget):
    """A view of one sweep map with one configuration selected."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: SweepMap | None = None
        self.cursor: int | None = None

    def show(self, view: SweepMap, cursor: int) -> None:
        """Display ``view`` with ``cursor`` selected."""
        self.view, self.cursor = view, cursor
        self.refresh(layout=True)


class SweepGridView(_MapView):
    """The grid of the shown metric; the selected configuration in brackets."""

    def render(self) -> Text:
        if self.view is None:
            return Text()
        return grid_text(self.view, self.cursor, max(20, self.size.width))

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        if self.view is None:
            return 1
        return 2 + len(self.view.grid.rows) + (1 if self.view.grid.off_grid else 0)


class ScatterView(_MapView):
    """Index cost across, the metric up, the frontier marked."""

    def render(self) -> Text:
        if self.view is None:
            return Text()
        return scatter_text(self.view, self.cursor, max(20, self.size.width), max(6, self.size.height))


class SweepMapScreen(Screen[None]):
    """The sweep as a grid (``p``: as a scatter); ``m`` changes the metric, ``c`` the cost, enter opens a cell."""

    CSS_PATH = "sweep_map.tcss"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.SWEEP_MAP)

    class ConfigChosen(Message):
        """Open ``config`` as A beside ``best`` (the best configuration of the shown metric) as B."""

        def __init__(self, config: Config, best: Config, metric: str) -> None:
            super().__init__()
            self.config = config
            self.best = best
            self.metric = metric

    def __init__(self, sweep: SweepInput) -> None:
        super().__init__(id="sweep-map")
        self.sweep = sweep
        metrics = sweep.comparisons.metrics
        self.metric = sweep.metric if sweep.metric is not None else metrics[0]
        self.cost: Cost = sweep.cost
        self.scatter = False
        self.view = sweep.map(self.metric, self.cost)
        self.cursor = self.view.best

    def compose(self) -> ComposeResult:
        yield Static(id="sweep-map-title")
        yield SweepGridView(id="sweep-map-grid")
        yield ScatterView(id="sweep-map-scatter")
        yield Static(id="sweep-map-points")
        yield Static(id="sweep-map-detail")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.refresh_views()

    def refresh_views(self) -> None:
        """Show the current metric, cost, view and selection."""
        self.view = self.sweep.map(self.metric, self.cost)
        grid, scatter = self.query_one(SweepGridView), self.query_one(ScatterView)
        grid.display, scatter.display = not self.scatter, self.scatter
        (scatter if self.scatter else grid).show(self.view, self.cursor)
        count = len(self.view.points)
        mode = "scatter" if self.scatter else "grid"
        self.query_one("#sweep-map-title", Static).update(
            Text(
                f"Sweep map ({mode}): {metric_label(self.metric)} of {count} configurations · "
                f"Pareto cost: {COST_LABELS[self.cost]}",
                no_wrap=True,
                overflow="ellipsis",
            )
        )
        width = max(20, self.size.width - 2)
        table = points_table(self.view, self.cursor, width, None if self.scatter else self.view.frontier)
        if not self.scatter:
            heading = f"Pareto frontier of {metric_label(self.metric)} against {COST_LABELS[self.cost]}, cheapest first"
            table = Text(heading + "\n", style="bold", no_wrap=True, overflow="ellipsis") + table
        self.query_one("#sweep-map-points", Static).update(table)
        self.query_one("#sweep-map-detail", Static).update(self.detail_text())

    def detail_text(self) -> Text:
        """The selected configuration: value, mark and its test against the best, index cost."""
        point = self.view.points[self.cursor]
        best = self.view.points[self.view.best]
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append(f"#{point.index + 1} {point.label}", style="bold")
        text.append(f"\n{metric_label(self.metric)} {grid_value_text(point.value)}")
        if point.p_vs_best is None:
            text.append(" · best")
        else:
            verdict = "below the best" if point.mark == "worse" else "no detectable difference from the best"
            text.append(
                f" · {verdict} ({best.label} {grid_value_text(best.value)}, Holm p {format_p(point.p_vs_best)})"
            )
        text.append(f"\n{point.chunks:,} chunks · {point.indexed_chars:,} indexed chars")
        text.append(" · on the Pareto frontier" if point.pareto else " · not on the frontier")
        summary = self.sweep.results[point.index].summary
        failing = summary.questions - summary.count("complete")
        text.append(f"\n{failing} of {summary.questions} questions failing · enter: these beside the best")
        return text

    # -- keys

    def action_metric(self, step: int) -> None:
        """Next (or previous) tested metric."""
        metrics = self.sweep.comparisons.metrics
        self.metric = metrics[(metrics.index(self.metric) + step) % len(metrics)]
        self.refresh_views()

    def action_cost(self) -> None:
        """Chunks <-> indexed characters."""
        self.cost = COSTS[(COSTS.index(self.cost) + 1) % len(COSTS)]
        self.refresh_views()

    def action_toggle_plot(self) -> None:
        """Grid <-> scatter."""
        self.scatter = not self.scatter
        self.refresh_views()

    def action_move(self, rows: int, columns: int) -> None:
        """Move the selection: in the grid by cell; in the scatter across by cost, up and down by value."""
        if not self.scatter:
            self.cursor = move_in_grid(self.view, self.cursor, rows, columns)
        elif columns:
            by_cost = sorted(self.view.points, key=lambda p: (p.cost(self.cost), p.value))
            self.cursor = move_in_order([p.index for p in by_cost], self.cursor, columns)
        else:
            by_value = sorted(self.view.points, key=lambda p: (-p.value, p.cost(self.cost)))
            self.cursor = move_in_order([p.index for p in by_value], self.cursor, rows)
        self.refresh_views()

    def action_open(self) -> None:
        """Open the selected configuration as A, the best as B."""
        configs = self.sweep.comparisons.configs
        self.post_message(self.ConfigChosen(configs[self.cursor], configs[self.view.best], self.metric))
