"""The sweep map: grid places from chunker specs, the grid layout and the Pareto frontier (brute-force oracle)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkscope.analysis.compare import compare_all
from chunkscope.analysis.comparison import ComparisonSet
from chunkscope.analysis.sweepmap import GridPlace, grid_place, pareto_frontier, sweep_grid, sweep_map
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import ConfigResult


def dominated_by_another(points: Sequence[tuple[float, float]], i: int) -> bool:
    """Some other point costs no more and scores no less, and differs in one of the two."""
    cost, value = points[i]
    return any(c <= cost and v >= value and (c < cost or v > value) for j, (c, v) in enumerate(points) if j != i)


def oracle(points: Sequence[tuple[float, float]]) -> tuple[bool, ...]:
    return tuple(not dominated_by_another(points, i) for i in range(len(points)))


def test_frontier_by_hand() -> None:
    # (chunks, recall): 100 chunks .5, 150 .7, 150 .6 (beaten by the other 150), 200 .7 (not better), 400 .9
    points = [(100, 0.5), (150, 0.7), (150, 0.6), (200, 0.7), (400, 0.9)]
    assert pareto_frontier(points) == (True, True, False, False, True)


def test_equal_points_are_both_on_the_frontier() -> None:
    assert pareto_frontier([(10, 0.5), (10, 0.5), (20, 0.4)]) == (True, True, False)


def test_a_cheaper_point_with_the_same_value_dominates() -> None:
    assert pareto_frontier([(20, 0.5), (10, 0.5)]) == (False, True)


def test_single_and_empty() -> None:
    assert pareto_frontier([(5, 0.0)]) == (True,)
    assert pareto_frontier([]) == ()


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=12))
def test_frontier_matches_brute_force(raw: list[tuple[int, int]]) -> None:
    # small integer ranges make ties in cost, in value and in both common
    points = [(float(c), v / 6) for c, v in raw]
    assert pareto_frontier(points) == oracle(points)


@pytest.mark.parametrize(
    ("spec", "place"),
    [
        ("fixed:size=200,overlap=40", GridPlace("fixed", 200, 40)),
        ("fixed:size=100", GridPlace("fixed", 100, 0)),
        ("recursive:size=300,overlap=30", GridPlace("recursive", 300, 30)),
        ("fixed:size=100,unit=tokens", GridPlace("fixed:unit=tokens,tokenizer=cl100k", 100, 0)),
        ("paragraph", None),
    ],
)
def test_grid_place(spec: str, place: GridPlace | None) -> None:
    assert grid_place(make_config(spec).chunker) == place


def test_grid_rows_columns_and_holes() -> None:
    places = [
        GridPlace("fixed", 400, 0),
        GridPlace("fixed", 200, 0),
        None,
        GridPlace("fixed", 200, 50),
        GridPlace("recursive", 100, 0),
    ]
    grid = sweep_grid(places)
    assert grid.rows == (("fixed", 200), ("fixed", 400), ("recursive", 100))
    assert grid.columns == (0, 50)
    assert grid.column_unit == "size"
    assert grid.cells == ((1, 3), (0, None), (4, None))
    assert grid.off_grid == (2,)
    assert grid.where(3) == (0, 1)
    assert grid.where(2) is None


def test_overlaps_line_up_as_shares_when_that_makes_fewer_columns() -> None:
    # --size 200,400 --overlap 0,0.2: 40 and 80 characters are both 20%
    places = [
        GridPlace("fixed", 200, 0),
        GridPlace("fixed", 200, 40),
        GridPlace("fixed", 400, 0),
        GridPlace("fixed", 400, 80),
    ]
    grid = sweep_grid(places)
    assert (grid.column_unit, grid.columns) == ("percent", (0, 20))
    assert grid.cells == ((0, 1), (2, 3))
    assert [grid.column_text(c) for c in range(2)] == ["0%", "20%"]


def test_shares_are_not_used_when_two_overlaps_round_to_one() -> None:
    # overlaps 0 and 1 of 400 are both 0%: the columns stay in characters
    places = [GridPlace("fixed", 400, 0), GridPlace("fixed", 400, 1), GridPlace("fixed", 200, 0)]
    grid = sweep_grid(places)
    assert (grid.column_unit, grid.columns) == ("size", (0, 1))
    assert grid.cells == ((2, None), (0, 1))


def test_a_taken_cell_sends_the_second_configuration_off_the_grid() -> None:
    grid = sweep_grid([GridPlace("fixed", 100, 0), GridPlace("fixed", 100, 0)])
    assert grid.cells == ((0,),)
    assert grid.off_grid == (1,)


SPECS = ("fixed:size=200", "fixed:size=200,overlap=40", "fixed:size=400", "fixed:size=400,overlap=80", "paragraph")


@pytest.fixture(scope="module")
def sweep(sample: Dataset) -> tuple[ComparisonSet, list[ConfigResult]]:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    results = [evaluator.evaluate(make_config(spec)) for spec in SPECS]
    return compare_all(results, permutations=500, seed=0), results


def test_sweep_map_reads_the_sweep(sweep: tuple[ComparisonSet, list[ConfigResult]]) -> None:
    comparisons, results = sweep
    view = sweep_map(comparisons, results, "recall_at_5")
    column = comparisons.metrics.index("recall_at_5")
    assert [p.value for p in view.points] == [row[column] for row in comparisons.means]
    assert view.best == comparisons.best("recall_at_5")
    assert view.points[view.best].mark == "best" and view.points[view.best].p_vs_best is None
    for point in view.points:
        significant = comparisons.differs_from_best("recall_at_5", point.index) is not None
        assert (point.mark == "worse") == significant
        assert point.chunks == results[point.index].summary["index_chunks"]
    costs = [(float(p.chunks), p.value) for p in view.points]
    assert tuple(p.pareto for p in view.points) == oracle(costs)
    assert [p.cost("index_chunks") for p in view.frontier] == sorted(p.chunks for p in view.frontier)
    assert view.grid.off_grid == (4,)
    assert view.grid.cells == ((0, 1), (2, 3))


def test_sweep_map_by_indexed_characters(sweep: tuple[ComparisonSet, list[ConfigResult]]) -> None:
    comparisons, results = sweep
    view = sweep_map(comparisons, results, "mrr_at_10", cost="indexed_chars")
    points = [(float(p.indexed_chars), p.value) for p in view.points]
    assert tuple(p.pareto for p in view.points) == oracle(points)


def test_sweep_map_defaults_to_the_first_tested_metric(sweep: tuple[ComparisonSet, list[ConfigResult]]) -> None:
    comparisons, results = sweep
    assert sweep_map(comparisons, results).metric == comparisons.metrics[0]


def test_sweep_map_refuses_an_untested_metric(sweep: tuple[ComparisonSet, list[ConfigResult]]) -> None:
    comparisons, results = sweep
    with pytest.raises(ChunkscopeError, match="lost was not tested"):
        sweep_map(comparisons, results, "lost")
