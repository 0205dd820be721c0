"""The sweep map screen: its text views checked against the sweep's own numbers, its keys, and opening a cell."""

from __future__ import annotations

import pytest
from pilot_helpers import async_test, make_app, settle
from sweep_helpers import CONFIGS, MAP_SIZE, sweep_app

from chunkscope.analysis.compare import compare_all
from chunkscope.analysis.sweepmap import SweepMap, sweep_map
from chunkscope.cli import main
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.screens.summary import SummaryScreen
from chunkscope.tui.screens.sweep_map import ScatterView, SweepMapScreen, move_in_grid, move_in_order
from chunkscope.tui.widgets.sweep_views import CELL, PlotArea, grid_text, scatter_places, scatter_text


@pytest.fixture(scope="module")
def view(sample: Dataset) -> SweepMap:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    results = [evaluator.evaluate(config) for config in CONFIGS]
    return sweep_map(compare_all(results, seed=0), results)


def by_hand(value: float) -> str:
    """Three decimals, leading zero dropped, written differently from the implementation."""
    whole, fraction = divmod(round(value * 1000), 1000)
    return f"{whole}.{fraction:03d}" if whole else f".{fraction:03d}"


def test_grid_cells_hold_each_configurations_value_and_marks(view: SweepMap) -> None:
    lines = grid_text(view, None, 100).plain.splitlines()
    rows = lines[2 : 2 + len(view.grid.rows)]
    label_width = len(lines[1]) - len(view.grid.columns) * CELL
    for line, cells in zip(rows, view.grid.cells, strict=True):
        for column, index in enumerate(cells):
            cell = line[label_width + column * CELL : label_width + (column + 1) * CELL]
            if index is None:
                assert cell.strip() == "·"
                continue
            point = view.points[index]
            assert cell.split()[0] == by_hand(point.value)
            assert ("★" in cell) == (point.index == view.best)
            assert ("↓" in cell) == (point.mark == "worse")
            assert ("◆" in cell) == point.pareto
    assert lines[-1].startswith("no size") and "paragraph/bm25" in lines[-1]


def test_grid_layout_of_the_published_eight(view: SweepMap) -> None:
    assert view.grid.rows == (("fixed", 100), ("fixed", 200), ("fixed", 400), ("fixed", 800))
    assert [view.grid.column_text(c) for c in range(2)] == ["0%", "20%"]
    assert view.grid.cells == ((0, 1), (2, 3), (4, 5), (None, 6))
    assert view.grid.off_grid == (7,)


def test_selected_cell_is_bracketed(view: SweepMap) -> None:
    text = grid_text(view, 3, 100).plain
    assert f"[ {by_hand(view.points[3].value)}" in text
    assert text.count("[") == 1 and text.count("]") == 1


def test_scatter_places_points_by_cost_and_value(view: SweepMap) -> None:
    area = PlotArea(60, 12)
    places = scatter_places(view, area)
    where = {p.index: key for key, points in places.items() for p in points}
    cheapest = min(view.points, key=lambda p: p.chunks)
    costliest = max(view.points, key=lambda p: p.chunks)
    assert where[cheapest.index][1] == 0 and where[costliest.index][1] == area.width - 1
    assert where[max(view.points, key=lambda p: p.value).index][0] == 0
    assert where[min(view.points, key=lambda p: p.value).index][0] == area.height - 1
    for a in view.points:
        for b in view.points:
            if a.chunks < b.chunks:
                assert where[a.index][1] <= where[b.index][1]
            if a.value > b.value:
                assert where[a.index][0] <= where[b.index][0]


def test_scatter_glyphs_mark_the_frontier(view: SweepMap) -> None:
    lines = scatter_text(view, None, 90, 16).plain.splitlines()
    plot = "\n".join(lines[1:-2])  # between the legend and the cost axis
    assert plot.count("●") == sum(p.pareto for p in view.points)
    assert plot.count("○") == sum(not p.pareto for p in view.points)  # no two points share a cell here
    numbers = {word.strip("●○") for line in plot.splitlines() for word in line.split("│")[1].split()}
    assert numbers == {str(point.index + 1) for point in view.points}
    last = lines[-1]
    assert last.split()[0] == f"{min(p.chunks for p in view.points):,}" and last.endswith("chunks")


def test_moves_skip_holes_and_reach_the_off_grid_row(view: SweepMap) -> None:
    assert move_in_grid(view, 6, 0, -1) == 6  # nothing left of fixed 800/20%
    assert move_in_grid(view, 6, -1, 0) == 5
    assert move_in_grid(view, 6, 1, 0) == 7  # paragraph, below the grid
    assert move_in_grid(view, 7, -1, 0) == 6  # nearest filled cell of the row above
    assert move_in_grid(view, 0, -1, 0) == 0
    assert move_in_grid(view, 0, 0, 1) == 1
    assert move_in_grid(view, 1, 0, 1) == 1
    assert move_in_order([3, 1, 2], 1, 1) == 2 and move_in_order([3, 1, 2], 3, -1) == 3


@async_test
async def test_sweep_inspect_opens_on_the_map_and_enter_opens_a_against_the_best(sample: Dataset) -> None:
    app = sweep_app(sample)
    async with app.run_test(size=MAP_SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SweepMapScreen)
        best = screen.view.best
        assert screen.cursor == best
        for key in ("up", "up", "left"):  # fixed 400/20% -> 200/20% -> 100/20% -> 100/0%
            await pilot.press(key)
        assert screen.cursor == 0
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        assert app.session.a.requested == CONFIGS[0]
        assert app.session.b is not None and app.session.b.requested == CONFIGS[best]
        rows = app.session.visible_rows("compare")
        assert rows and all(any(not r.complete for r in row.results) for row in rows)


@async_test
async def test_metric_cost_and_plot_keys(sample: Dataset) -> None:
    app = sweep_app(sample)
    async with app.run_test(size=MAP_SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, SweepMapScreen)
        metrics = screen.sweep.comparisons.metrics
        await pilot.press("m")
        assert screen.metric == metrics[1] and screen.view.metric == metrics[1]
        await pilot.press("M", "M")
        assert screen.metric == metrics[-1]
        await pilot.press("c")
        assert screen.view.cost == "indexed_chars"
        await pilot.press("p")
        assert screen.query_one(ScatterView).display
        start = screen.cursor
        await pilot.press("right")
        by_cost = sorted(screen.view.points, key=lambda p: (p.indexed_chars, p.value))
        order = [p.index for p in by_cost]
        assert screen.cursor == order[min(len(order) - 1, order.index(start) + 1)]
        await pilot.press("escape")
        assert isinstance(app.screen, InspectScreen)


@async_test
async def test_summary_opens_the_map_only_with_a_sweep(sample: Dataset) -> None:
    app = sweep_app(sample)
    async with app.run_test(size=MAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("escape", "s")
        await settle(pilot)
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("m")
        assert isinstance(app.screen, SweepMapScreen)
    plain: ChunkscopeApp = make_app(sample)
    async with plain.run_test(size=MAP_SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s", "m")
        assert isinstance(plain.screen, SummaryScreen)
        assert any("No sweep loaded" in str(n.message) for n in plain._notifications)


def test_inspect_refuses_reports_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sweep", "--size", "200,400", "--inspect", "--json", "-"]) == 2
    assert "--inspect takes the terminal" in capsys.readouterr().err


def test_inspect_hands_the_sweep_to_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[ChunkscopeApp] = []
    monkeypatch.setattr(ChunkscopeApp, "run", lambda self: opened.append(self))
    argv = ["sweep", "--size", "200,400", "--overlap", "0,0.2", "--permutations", "200", "--pareto-metric", "mrr_at_10"]
    assert main([*argv, "--inspect"]) == 0
    (app,) = opened
    assert app.sweep is not None and app.sweep.metric == "mrr_at_10"
    comparisons = app.sweep.comparisons
    assert len(comparisons.configs) == 4
    assert app.session.a.requested == comparisons.configs[comparisons.best("mrr_at_10")]
    assert all(app.session.evaluator.cached(config) is not None for config in comparisons.configs)
