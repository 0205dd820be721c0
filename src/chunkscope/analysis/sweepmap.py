"""The sweep map: a sweep's configurations on a size x overlap grid, and the Pareto frontier of index cost
against one metric.

Grid. A configuration sits on the grid when its chunker has a size parameter
(``size``, else ``max_chars``). Its row is (family, size): the family is the
chunker's name plus each other parameter that is not at its default
(``fixed``, ``fixed:unit=tokens``), so two configurations never share a cell.
Its column is the chunker's ``overlap`` parameter (0 when it has none), in the
unit of the size; when the overlaps as whole per cent of the size
(``round(100 * overlap / size)``) give fewer distinct columns, the columns are
those per cents instead (a sweep run with ``--overlap 0,0.2`` lines up at 0%
and 20%). A configuration without a size (``paragraph``) is listed off the grid.

Marks are the sweep's own (:class:`~chunkscope.analysis.comparison.ComparisonSet`):
``best`` is the highest mean of the metric (the first on ties), ``worse`` a
configuration significantly below it after Holm's correction over every
(pair, metric) test; nothing is recomputed here.

Pareto frontier. The cost of a configuration is the size of its index: its
chunks (``index_chunks``) or the characters they hold (``indexed_chars``); the
metric is its mean. A configuration is on the frontier when no other one is at
least as good in both (cost no higher, mean no lower) and better in one; two
configurations with equal cost and mean are both on it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from chunkscope.analysis.comparison import ComparisonSet
from chunkscope.chunkers import parse_chunker
from chunkscope.errors import ChunkscopeError
from chunkscope.results import ConfigResult

__all__ = [
    "COSTS",
    "SIZE_FIELDS",
    "Cost",
    "GridPlace",
    "Mark",
    "SweepGrid",
    "SweepMap",
    "SweepPoint",
    "grid_place",
    "pareto_frontier",
    "sweep_grid",
    "sweep_map",
    "sweep_marks",
]

Cost = Literal["index_chunks", "indexed_chars"]
"""What an index costs: its chunks, or the characters they hold."""
COSTS: tuple[Cost, ...] = ("index_chunks", "indexed_chars")
SIZE_FIELDS: tuple[str, ...] = ("size", "max_chars")
"""Chunker parameters that set a chunk's size, in the order they are looked for."""
Mark = Literal["best", "worse", ""]
"""``best``: highest mean; ``worse``: significantly below the best after correction; ``""``: neither."""
ColumnUnit = Literal["size", "percent"]
"""Overlap columns in the unit of the size (characters or tokens), or in per cent of the size."""


@dataclass(frozen=True, slots=True)
class GridPlace:
    """Where a chunker sits on the grid."""

    family: str
    """Chunker name plus its other non-default parameters, e.g. ``fixed`` or ``fixed:unit=tokens``."""
    size: int
    overlap: int
    """The ``overlap`` parameter, in the unit of ``size`` (0 for a chunker without one)."""

    @property
    def percent(self) -> int:
        """The overlap in whole per cent of the size."""
        return round(100 * self.overlap / self.size)


@dataclass(frozen=True, slots=True)
class SweepPoint:
    """One configuration of the sweep, measured for the map."""

    index: int
    """Position in the sweep (``ComparisonSet.configs``)."""
    label: str
    place: GridPlace | None
    """None: off the grid (the chunker has no size)."""
    chunks: int
    """Chunks in the index (``index_chunks``)."""
    indexed_chars: int
    """Characters the index holds (``indexed_chars``)."""
    value: float
    """Mean of the map's metric."""
    mark: Mark
    p_vs_best: float | None
    """Corrected p-value of the test against the best (None for the best itself)."""
    pareto: bool
    """On the Pareto frontier of the map's cost against its metric."""

    def cost(self, name: Cost) -> int:
        """The index cost named ``name``."""
        return self.chunks if name == "index_chunks" else self.indexed_chars


@dataclass(frozen=True, slots=True)
class SweepGrid:
    """The size x overlap layout of a sweep's configurations."""

    rows: tuple[tuple[str, int], ...]
    """(family, size), families in order of first appearance, sizes ascending."""
    columns: tuple[int, ...]
    """Overlap columns, ascending, in ``column_unit``."""
    column_unit: ColumnUnit
    cells: tuple[tuple[int | None, ...], ...]
    """``cells[row][column]``: the configuration's index, None when the sweep has none there."""
    off_grid: tuple[int, ...]
    """Configurations without a size, in sweep order."""

    def where(self, index: int) -> tuple[int, int] | None:
        """(row, column) of configuration ``index``; None when it is off the grid."""
        for r, row in enumerate(self.cells):
            for c, cell in enumerate(row):
                if cell == index:
                    return r, c
        return None

    def column_text(self, column: int) -> str:
        """A column's heading: ``40`` or ``20%``."""
        value = self.columns[column]
        return f"{value}%" if self.column_unit == "percent" else str(value)


@dataclass(frozen=True, slots=True)
class SweepMap:
    """A sweep's configurations for one metric and one cost: grid, marks and frontier."""

    metric: str
    cost: Cost
    points: tuple[SweepPoint, ...]
    grid: SweepGrid
    best: int
    """Index of the best configuration for ``metric``."""

    @property
    def frontier(self) -> tuple[SweepPoint, ...]:
        """The points on the frontier, cheapest first."""
        return tuple(sorted((p for p in self.points if p.pareto), key=lambda p: (p.cost(self.cost), -p.value)))


def grid_place(chunker_spec: str) -> GridPlace | None:
    """The grid place of a chunker spec; None when the chunker has no size parameter."""
    chunker = parse_chunker(chunker_spec)
    if not dataclasses.is_dataclass(chunker) or isinstance(chunker, type):
        return None
    fields = [f for f in dataclasses.fields(chunker) if f.init and not f.metadata.get("hidden")]
    names = {f.name for f in fields}
    size_field = next((name for name in SIZE_FIELDS if name in names), None)
    if size_field is None:
        return None
    size = getattr(chunker, size_field)
    overlap = getattr(chunker, "overlap", 0) if "overlap" in names else 0
    if not isinstance(size, int) or not isinstance(overlap, int) or size < 1:
        return None
    others = [
        f"{f.name}={getattr(chunker, f.name)}"
        for f in fields
        if f.name not in (size_field, "overlap") and getattr(chunker, f.name) != f.default
    ]
    name = getattr(chunker, "spec_name", chunker_spec.split(":", 1)[0])
    return GridPlace(f"{name}:{','.join(others)}" if others else name, size, overlap)


def sweep_grid(places: Sequence[GridPlace | None]) -> SweepGrid:
    """The grid of configurations at ``places`` (``places[i]`` is configuration ``i``'s).

    A configuration whose cell is already taken (two configurations with one chunker) goes off the grid.
    """
    on = [(index, place) for index, place in enumerate(places) if place is not None]
    families = list(dict.fromkeys(place.family for _, place in on))
    rows = tuple(sorted({(p.family, p.size) for _, p in on}, key=lambda row: (families.index(row[0]), row[1])))
    by_size = sorted({p.overlap for _, p in on})
    by_percent = sorted({p.percent for _, p in on})
    distinct_percent = len({(p.family, p.size, p.percent) for _, p in on}) == len({p for _, p in on})
    unit: ColumnUnit = "percent" if distinct_percent and len(by_percent) < len(by_size) else "size"
    columns = tuple(by_percent if unit == "percent" else by_size)
    cells: list[list[int | None]] = [[None] * len(columns) for _ in rows]
    off = [index for index, place in enumerate(places) if place is None]
    for index, place in on:
        row = rows.index((place.family, place.size))
        column = columns.index(place.percent if unit == "percent" else place.overlap)
        if cells[row][column] is None:
            cells[row][column] = index
        else:
            off.append(index)
    return SweepGrid(rows, columns, unit, tuple(tuple(row) for row in cells), tuple(sorted(off)))


def pareto_frontier(points: Sequence[tuple[float, float]]) -> tuple[bool, ...]:
    """For each (cost, value): True when no other point has cost <= and value >= with one strict.

    Lower cost and higher value are better. Sorted by cost, a point is dominated exactly when a
    cheaper point reaches its value, or an equally cheap point exceeds it.
    """
    on = [False] * len(points)
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    best_cheaper = float("-inf")
    position = 0
    while position < len(order):
        cost = points[order[position]][0]
        group = []
        while position < len(order) and points[order[position]][0] == cost:
            group.append(order[position])
            position += 1
        top = points[group[0]][1]
        if top > best_cheaper:
            for i in group:
                on[i] = points[i][1] == top
        best_cheaper = max(best_cheaper, top)
    return tuple(on)


def sweep_marks(comparisons: ComparisonSet, metric: str) -> list[Mark]:
    """Per configuration: ``best``, ``worse`` (significantly below the best after correction) or ``""``."""
    best = comparisons.best(metric)
    return [
        "best" if index == best else ("worse" if comparisons.differs_from_best(metric, index) else "")
        for index in range(len(comparisons.configs))
    ]


def sweep_map(
    comparisons: ComparisonSet,
    results: Sequence[ConfigResult],
    metric: str | None = None,
    cost: Cost = "index_chunks",
) -> SweepMap:
    """The map of a sweep for ``metric`` (default: the first tested metric) against ``cost``.

    ``results[i]`` is ``comparisons.configs[i]``'s result. Raises ChunkscopeError when the metric was not tested.
    """
    name = comparisons.metrics[0] if metric is None else metric
    if name not in comparisons.metrics:
        raise ChunkscopeError(f"{name} was not tested in this sweep; choose from {', '.join(comparisons.metrics)}")
    if tuple(r.config for r in results) != comparisons.configs:
        raise ChunkscopeError("sweep map: the results are not the sweep's configurations in order")
    column = comparisons.metrics.index(name)
    values = [row[column] for row in comparisons.means]
    marks = sweep_marks(comparisons, name)
    best = comparisons.best(name)
    places = [grid_place(result.config.chunker) for result in results]
    costs = [result.summary.count(cost) for result in results]
    on_frontier = pareto_frontier(list(zip(costs, values, strict=True)))
    points = tuple(
        SweepPoint(
            index,
            result.config.label,
            places[index],
            result.summary.count("index_chunks"),
            result.summary.count("indexed_chars"),
            values[index],
            marks[index],
            None if index == best else comparisons.pair(min(index, best), max(index, best)).test(name).p_value,
            on_frontier[index],
        )
        for index, result in enumerate(results)
    )
    return SweepMap(name, cost, points, sweep_grid(places), best)
