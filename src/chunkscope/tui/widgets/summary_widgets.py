"""Summary widgets: metrics side by side, rank buckets, the A x B transition matrix, chunk lengths.

Each takes immutable core values through ``show()`` and renders text whose glyphs
carry the meaning (``▲``/``▼`` direction, ``*`` significance, bucket names, bar
lengths with counts); component-class colours repeat it.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.message import Message
from textual.widget import Widget

from chunkscope.analysis.comparison import STATES, Comparison, MetricTest, State
from chunkscope.metrics.registry import REGISTRY, Metric
from chunkscope.reports.format import format_p, summary_cell
from chunkscope.results import BUCKETS, ConfigResult
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.cells import pad, pad_left, truncate

_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

DETAIL_ROWS = ("lost", "pieces", "doc_hits", "index_chunks", "indexed_chars", "sent_chars", "duplicate_chars")
"""Untested metrics listed first below the tested ones; every other registered metric follows them."""
UNLISTED = ("questions", "evidence_exists")
"""Registered metrics the table leaves out: the question count is in the note, evidence exists is questions - lost."""


def detail_metrics() -> list[Metric]:
    """The untested metrics of the table, in row order: :data:`DETAIL_ROWS`, then the rest in registry order."""
    first = [REGISTRY[name] for name in DETAIL_ROWS]
    rest = [m for m in REGISTRY if not m.tested and m.name not in DETAIL_ROWS and m.name not in UNLISTED]
    return first + rest


EIGHTHS = "▏▎▍▌▋▊▉"


def bar(value: float, scale: float, width: int) -> str:
    """A horizontal bar of ``value / scale`` of ``width`` cells, in eighths of a cell."""
    if scale <= 0 or value <= 0:
        return ""
    cells = min(1.0, value / scale) * width
    whole = int(cells)
    eighths = round((cells - whole) * 8)
    if eighths == 8:
        whole, eighths = whole + 1, 0
    text = "█" * whole + (EIGHTHS[eighths - 1] if eighths else "")
    return text or "▏"


def config_names(results: Sequence[ConfigResult]) -> list[str]:
    """Names: ``A``/``B`` for two configurations, ``1``, ``2``, ... for more; one configuration needs no
    name (``""``): the legend gives its label and the metrics column is headed ``value``."""
    if len(results) == 1:
        return [""]
    if len(results) == 2:
        return ["A", "B"]
    return [str(i) for i in range(1, len(results) + 1)]


GAP = 2
"""Cells between a table's columns where the width allows."""


class SummaryWidget(Widget):
    """Base: text rendering with component styles resolved through the theme."""

    DEFAULT_CSS = _CSS
    # one stylesheet for the four widgets: every rule already starts with its widget's type
    SCOPED_CSS = False

    def _style(self, name: str) -> Style:
        """The component's style (colours blended over the widget's background)."""
        return self.get_component_rich_style(name)

    LEAST_WIDTH = 44
    """Cells a chart needs, padding excluded: its bars shrink to the width, legends and notes are cut to it."""

    def natural_width(self) -> int:
        """Cells the widget needs, padding included, to show every row on one line."""
        return self.LEAST_WIDTH + self.styles.gutter.width

    def _legend(self, text: Text, results: Sequence[ConfigResult], width: int) -> None:
        names = config_names(results)
        for name, result in zip(names, results, strict=True):
            config = result.config
            units = "" if config.budget_tokenizer is None else f" {config.budget_units}"
            budget = f" · budget {config.budget}{units} ({config.overflow})" if config.budget else ""
            line = f"{name + ' = ' if name else ''}{config.label} · top-{config.top_k}{budget}"
            text.append(truncate(line, width) + "\n", style=self._style(f"{self._prefix}--legend"))

    _prefix = "summary"


class _ResultsWidget(SummaryWidget):
    """Base of the widgets that chart a sequence of configuration results."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._results: tuple[ConfigResult, ...] = ()

    def show(self, results: Sequence[ConfigResult]) -> None:
        """Display ``results`` (metrics, rank buckets, chunk lengths: whatever the widget charts)."""
        self._results = tuple(results)
        self.refresh(layout=True)


class MetricsTable(_ResultsWidget):
    """Metrics of one or more configurations side by side; with a comparison, delta, CI and p-value."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "metrics-table--legend",
        "metrics-table--header",
        "metrics-table--label",
        "metrics-table--value",
        "metrics-table--better",
        "metrics-table--worse",
        "metrics-table--muted",
    }
    _prefix = "metrics-table"

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._comparison: Comparison | None = None

    def show(self, results: Sequence[ConfigResult], comparison: Comparison | None = None) -> None:
        """Display ``results`` (and ``comparison``'s tests of the first two, when given)."""
        self._comparison = comparison
        super().show(results)

    def rows(self) -> list[list[str]]:
        """The table as plain cells: header row, then one row per metric (for tests and export)."""
        results = self._results
        header = ["metric", *(name or "value" for name in config_names(results))]
        comparison = self._comparison
        if comparison is not None:
            header += ["Δ B−A", "95% CI", "p", ""]
        rows = [header]
        for metric in REGISTRY.tested():
            row = [metric.heading, *(f"{metric.question_mean(r.summary):.3f}" for r in results)]
            if comparison is not None:
                row += _test_cells(comparison.test(metric.name), comparison.alpha)
            rows.append(row)
        for metric in detail_metrics():
            if not any(metric.name in r.summary for r in results):
                continue  # a metric that applies to none of them (e.g. a model's token window)
            row = [metric.heading, *(_detail_cell(metric, r) for r in results)]
            if comparison is not None:
                row += ["", "", "", ""]
            rows.append(row)
        return rows

    def natural_width(self) -> int:
        """The table's rows: each column as wide as its widest cell, two cells apart."""
        if not self._results:
            return super().natural_width()
        return self._rows_width(self.rows(), GAP) + self.styles.gutter.width

    @staticmethod
    def _rows_width(rows: list[list[str]], gap: int) -> int:
        widths = [max(cell_len(row[c]) for row in rows) for c in range(len(rows[0]))]
        return sum(width + gap for width in widths)

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if not self._results:
            return Text("no results", style=self._style("metrics-table--muted"))
        width = max(20, self.size.width)
        self._legend(text, self._results, width)
        rows = self.rows()
        widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
        # One cell between columns where two would wrap every row (80 columns, with the tests).
        gap = GAP if self._rows_width(rows, GAP) <= width else 1
        space = " " * gap
        comparison = self._comparison
        tested = REGISTRY.tested()
        for index, row in enumerate(rows):
            for column, cell in enumerate(row):
                if column == 0:
                    text.append(pad(cell, widths[0] + gap), style=self._style("metrics-table--label"))
                    continue
                style = self._style("metrics-table--header" if index == 0 else "metrics-table--value")
                if comparison is not None and index and column > len(self._results) and cell:
                    test = comparison.test(tested[index - 1].name) if index <= len(tested) else None
                    if test is not None and test.significant:
                        style = self._style("metrics-table--better" if test.delta > 0 else "metrics-table--worse")
                    else:
                        style = self._style("metrics-table--muted")
                last = comparison is not None and column == len(row) - 1
                aligned = pad(cell, widths[column]) if last else pad_left(cell, widths[column])
                text.append(aligned + space, style=style)
            text.append("\n")
        if comparison is not None:
            correction = "uncorrected" if comparison.correction == "none" else f"{comparison.correction}-corrected"
            note = (
                f"* p < {comparison.alpha:g} ({correction}, {comparison.questions} questions, "
                f"{comparison.permutations:,} permutations) · ▲ B higher · ▼ B lower · n.s. not significant"
            )
            text.append(truncate(note, width), style=self._style("metrics-table--muted"))
        return text


def _detail_cell(metric: Metric, result: ConfigResult) -> str:
    """Characters with thousands separators; other values as in the reports; ``–`` when it does not apply."""
    if metric.name not in result.summary:
        return "–"
    if metric.unit == "characters":
        return f"{result.summary.count(metric.name):,}"
    return summary_cell(metric, result.summary, 3)


def _test_cells(test: MetricTest, alpha: float) -> list[str]:
    arrow = "▲" if test.delta > 0 else ("▼" if test.delta < 0 else "=")
    mark = f"{arrow} *" if test.significant else f"{arrow} n.s."
    return [f"{test.delta:+.3f}", f"[{test.ci_low:+.3f}, {test.ci_high:+.3f}]", format_p(test.p_value), mark]


class BucketChart(_ResultsWidget):
    """Rank-bucket distribution per configuration as horizontal bars with counts."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "bucket-chart--legend",
        "bucket-chart--label",
        "bucket-chart--count",
        "bucket-chart--bucket-1",
        "bucket-chart--bucket-2-5",
        "bucket-chart--bucket-6-20",
        "bucket-chart--bucket-miss",
    }
    _prefix = "bucket-chart"

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if not self._results:
            return text
        width = max(30, self.size.width)
        self._legend(text, self._results, width)
        names = config_names(self._results)
        name_width = max(len(n) for n in names)
        scale = max(max(r.summary.rank_buckets.values(), default=0) for r in self._results)
        bar_width = max(5, min(50, width - 30 - name_width))
        for bucket in BUCKETS:
            for position, (name, result) in enumerate(zip(names, self._results, strict=True)):
                label = f"{bucket:>4}" if position == 0 else "    "
                text.append(f"{label}  ", style=self._style("bucket-chart--label"))
                text.append(f"{name:<{name_width}} ", style=self._style("bucket-chart--label"))
                count = result.summary.rank_buckets.get(bucket, 0)
                total = result.summary.questions
                text.append(bar(count, scale, bar_width), style=self._style(f"bucket-chart--bucket-{bucket}"))
                share = f" {count} ({100 * count / total:.1f}%)" if total else f" {count}"
                if bucket == "miss" and result.summary["lost"]:
                    share += f" · {result.summary['lost']} lost"
                text.append(share + "\n", style=self._style("bucket-chart--count"))
        return text


class TransitionMatrix(SummaryWidget, can_focus=True):
    """Questions by (A's state, B's state); arrows move the cell cursor, enter or a click selects."""

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.MATRIX)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "transition-matrix--legend",
        "transition-matrix--header",
        "transition-matrix--same",
        "transition-matrix--better",
        "transition-matrix--worse",
        "transition-matrix--zero",
        "transition-matrix--cursor",
    }
    _prefix = "transition-matrix"

    ROW_LABEL = 10
    """Cells of the row-label column."""
    CELL = 9
    """Cells of each count column."""
    HEADER_ROWS = 2
    """Rows above the first matrix row (title, column header)."""

    class CellSelected(Message):
        """The user chose a cell: filter to questions in ``state_a`` under A and ``state_b`` under B."""

        def __init__(self, matrix: TransitionMatrix, state_a: State, state_b: State) -> None:
            super().__init__()
            self.matrix = matrix
            self.state_a: State = state_a
            """State under A (one of ``chunkscope.analysis.comparison.STATES``)."""
            self.state_b: State = state_b
            """State under B."""

        @property
        def control(self) -> TransitionMatrix:
            """The matrix the cell belongs to."""
            return self.matrix

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._comparison: Comparison | None = None
        self.cursor: tuple[int, int] = (0, 0)
        """(row, column) of the cell cursor: indices into ``STATES``."""

    def show(self, comparison: Comparison) -> None:
        """Display ``comparison.transitions``."""
        self._comparison = comparison
        self.refresh(layout=True)

    def action_move(self, rows: int, columns: int) -> None:
        row, column = self.cursor
        self.cursor = (max(0, min(len(STATES) - 1, row + rows)), max(0, min(len(STATES) - 1, column + columns)))
        self.refresh()

    def action_select(self) -> None:
        row, column = self.cursor
        self.post_message(self.CellSelected(self, STATES[row], STATES[column]))

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = offset.y - self.HEADER_ROWS
        column = (offset.x - self.ROW_LABEL) // self.CELL
        if 0 <= row < len(STATES) and 0 <= column < len(STATES) and offset.x >= self.ROW_LABEL:
            self.cursor = (row, column)
            self.refresh()
            self.action_select()

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        comparison = self._comparison
        if comparison is None:
            return text
        title = "A's state ↓ · B's state → · ▲ better under B · ▼ worse · = same · enter/click filters"
        text.append(truncate(title, max(20, self.size.width)) + "\n", style=self._style("transition-matrix--legend"))
        text.append(pad("A \\ B", self.ROW_LABEL), style=self._style("transition-matrix--header"))
        for state in STATES:
            text.append(pad_left(state, self.CELL - 1) + " ", style=self._style("transition-matrix--header"))
        text.append("\n")
        for i, state_a in enumerate(STATES):
            text.append(pad(state_a, self.ROW_LABEL), style=self._style("transition-matrix--header"))
            for j in range(len(STATES)):
                count = comparison.transitions[i][j]
                glyph = "=" if i == j else ("▲" if j < i else "▼")
                kind = "same" if i == j else ("better" if j < i else "worse")
                style = self._style(f"transition-matrix--{kind}" if count else "transition-matrix--zero")
                if (i, j) == self.cursor and self.has_focus:
                    style += self._style("transition-matrix--cursor")
                elif (i, j) == self.cursor:
                    style += Style(underline=True)
                text.append(pad_left(f"{count} {glyph}", self.CELL - 1) + " ", style=style)
            text.append("\n")
        return text

    def natural_width(self) -> int:
        """The row labels and one cell per state."""
        return self.ROW_LABEL + self.CELL * len(STATES) + self.styles.gutter.width

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


class ChunkLengthChart(_ResultsWidget):
    """Chunk-length distribution per configuration: counts in doubling length bins."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "chunk-length-chart--legend",
        "chunk-length-chart--label",
        "chunk-length-chart--bar",
        "chunk-length-chart--count",
    }
    _prefix = "chunk-length-chart"

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if not self._results:
            return text
        width = max(30, self.size.width)
        names = config_names(self._results)
        name_width = max(len(n) for n in names)
        lengths = [[c.length for c in r.chunks] for r in self._results]
        for name, result, values in zip(names, self._results, lengths, strict=True):
            stats = length_stats(values)
            line = f"{name + ' = ' if name else ''}{result.config.label} · {stats}"
            text.append(truncate(line, width) + "\n", style=self._style("chunk-length-chart--legend"))
        bins = length_bins([v for values in lengths for v in values])
        histograms = [bin_counts(values, bins) for values in lengths]
        scale = max((max(h, default=0) for h in histograms), default=0)
        bar_width = max(5, min(40, width - 26 - name_width))
        for index, (low, high) in enumerate(bins):
            label = f"{low}–{int(high) - 1}"
            for position, (name, counts) in enumerate(zip(names, histograms, strict=True)):
                text.append(
                    pad_left(label if position == 0 else "", 11) + "  ", style=self._style("chunk-length-chart--label")
                )
                text.append(f"{name:<{name_width}} ", style=self._style("chunk-length-chart--label"))
                text.append(bar(counts[index], scale, bar_width), style=self._style("chunk-length-chart--bar"))
                text.append(f" {counts[index]}\n", style=self._style("chunk-length-chart--count"))
        return text


def length_stats(values: Sequence[int]) -> str:
    """``N chunks · median M · min A · max B`` (characters)."""
    if not values:
        return "no chunks"
    ordered = sorted(values)
    middle = len(ordered) // 2
    median = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return f"{len(values)} chunks · median {median:g} · min {ordered[0]} · max {ordered[-1]} chars"


def length_bins(values: Sequence[int]) -> list[tuple[int, float]]:
    """Doubling bins ``[0, 25), [25, 50), [50, 100), ...`` from the one holding the shortest value
    to the one holding the longest (``[0, 25)`` when there are no values)."""
    if not values:
        return [(0, 25)]
    edges = [0, 25]
    while edges[-1] <= max(values):
        edges.append(edges[-1] * 2)
    bins: list[tuple[int, float]] = list(itertools.pairwise(edges))
    first = next(i for i, (low, high) in enumerate(bins) if low <= min(values) < high)
    return bins[first:]


def bin_counts(values: Sequence[int], bins: Sequence[tuple[int, float]]) -> list[int]:
    """How many ``values`` fall in each half-open bin (bins contiguous and ascending)."""
    lows = [low for low, _ in bins]
    counts = [0] * len(bins)
    for value in values:
        index = bisect.bisect_right(lows, value) - 1
        if index >= 0 and value < bins[index][1]:
            counts[index] += 1
    return counts
