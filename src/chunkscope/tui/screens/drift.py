"""Drift of a query log without gold (``chunkscope drift A B --queries LOG --inspect``): step through the queries,
the ones that moved most first, each one's two rankings side by side, its RBO and top-1 change, and the documents
that gained and lost exposure over the whole log.

The screen holds one immutable :class:`~chunkscope.analysis.drift.Drift` and recomputes nothing: RBO, top-1
changes, the order of the queries (:meth:`Drift.moved_most`) and the exposure are the analysis's values. The
ordering of a long log runs in a thread worker, which posts :class:`DriftScreen.OrderReady`; the query list posts
its highlights upward and the screen fills the panes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Resize
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from chunkscope.analysis.drift import Drift
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.widgets.drift_views import (
    A_MARKS,
    B_MARKS,
    CHANGED_GLYPH,
    SAME_GLYPH,
    exposure_text,
    gains_and_losses,
    query_row,
    ranking_text,
    rbo_text,
    selected_text,
)

__all__ = ["DriftInput", "DriftScreen"]

NARROW_BELOW = 100
"""Columns under which the query list goes above the rankings instead of beside them."""
ROW_WIDTH = 400
"""Cells a query row is laid out for; the list cuts it to its own width with an ellipsis."""
EXPOSURE_ROWS = 8
"""Documents listed each way (gained, lost) in the exposure pane."""
NARROW_EXPOSURE_ROWS = 2
"""The same under :data:`NARROW_BELOW` columns, where the rankings need the rows."""


@dataclass(frozen=True, slots=True)
class DriftInput:
    """What the drift screen shows: the analysis's drift and the names of what was compared."""

    drift: Drift
    a: str
    """Configuration A's label."""
    b: str
    """Configuration B's label."""
    log: str
    """The query log's path."""


class DriftScreen(Screen[None]):
    """The queries of a log, moved most first (``o``: log order); ``j``/``k`` step, ``n``/``N`` go to the next
    query whose first hit changed; the selected query's rankings under A and B side by side."""

    CSS_PATH = "drift.tcss"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.DRIFT)

    class OrderReady(Message):
        """The queries' order (positions in the drift's queries) for the list, moved most first or log order."""

        def __init__(self, order: tuple[int, ...], moved_first: bool) -> None:
            super().__init__()
            self.order = order
            self.moved_first = moved_first

    def __init__(self, drift: DriftInput) -> None:
        super().__init__(id="drift")
        self.input = drift
        self.moved_first = True
        """The list order: moved most first (lowest RBO), else the log's."""
        self.order: tuple[int, ...] = ()
        """Positions in ``drift.queries`` in list order (empty until the worker has ordered them)."""
        self.row_of: dict[int, int] = {}
        """The list row of each position in ``drift.queries``."""
        self.position: int | None = None
        """The selected query's position in ``drift.queries``."""

    def compose(self) -> ComposeResult:
        yield Static(id="drift-title")
        with Horizontal(id="drift-body"):
            yield OptionList(id="drift-queries")
            with Vertical(id="drift-detail"):
                yield Static(id="drift-selected")
                with Horizontal(id="drift-rankings"):
                    with VerticalScroll(id="drift-a"):
                        yield Static(id="drift-a-items")
                    with VerticalScroll(id="drift-b"):
                        yield Static(id="drift-b-items")
                with Horizontal(id="drift-exposure"):
                    yield Static(id="drift-gained")
                    yield Static(id="drift-lost")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        drift = self.input.drift
        queries = self.query_one("#drift-queries", OptionList)
        queries.border_title = f"Queries ({len(drift.queries)}) · ordering…"
        queries.border_subtitle = f"{CHANGED_GLYPH} top-1 changed · {SAME_GLYPH} same · RBO · log line"
        self.query_one("#drift-a").border_title = f"A {self.input.a}"
        self.query_one("#drift-b").border_title = f"B {self.input.b}"
        self.query_one("#drift-a").border_subtitle = A_MARKS
        self.query_one("#drift-b").border_subtitle = B_MARKS
        self.query_one("#drift-exposure").border_title = "Exposure over the whole log: A → B (change)"
        self.set_class(self.size.width < NARROW_BELOW, "-narrow")
        self.show_title()
        self.show_exposure()
        self.show_selected()
        queries.focus()
        self.order_queries(self.moved_first)

    def on_resize(self, event: Resize) -> None:
        self.set_class(event.size.width < NARROW_BELOW, "-narrow")
        self.show_title()
        self.show_exposure()
        self.show_selected()

    # -- the worker and the list

    @work(thread=True, exclusive=True, exit_on_error=False, group="drift-order", description="order queries")
    def order_queries(self, moved_first: bool) -> None:
        """The list order, off the UI thread (a log of many thousand queries sorts in a noticeable time)."""
        drift = self.input.drift
        if moved_first:
            position = {id(query): number for number, query in enumerate(drift.queries)}
            order = tuple(position[id(query)] for query in drift.moved_most(len(drift.queries)))
        else:
            order = tuple(range(len(drift.queries)))
        self.post_message(self.OrderReady(order, moved_first))

    def on_drift_screen_order_ready(self, message: OrderReady) -> None:
        """Fill the list in the new order; the selected query stays selected."""
        if message.moved_first != self.moved_first:
            return  # an order asked for before the last o
        drift = self.input.drift
        self.order = message.order
        self.row_of = {position: row for row, position in enumerate(self.order)}
        queries = self.query_one("#drift-queries", OptionList)
        queries.clear_options()
        queries.add_options(Option(query_row(drift.queries[i], ROW_WIDTH), id=str(i)) for i in self.order)
        how = "moved most first (lowest RBO)" if self.moved_first else "log order"
        queries.border_title = f"Queries ({len(drift.queries)}) · {how}"
        if self.order:
            keep = self.position if self.position is not None else self.order[0]
            queries.highlighted = self.row_of[keep]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """An ordering that failed says so (the list stays as it was)."""
        if event.state == WorkerState.ERROR and event.worker.group == "drift-order":
            self.notify(str(event.worker.error), title="Could not order the queries", severity="error", markup=False)

    def on_option_list_option_highlighted(self, message: OptionList.OptionHighlighted) -> None:
        """The list moved: show that query."""
        if message.option.id is not None:
            self.position = int(message.option.id)
            self.show_selected()

    # -- the panes

    def show_title(self) -> None:
        """The log's two summaries first, then how the rankings were compared; the configurations when they fit
        (the rankings' panes name them too)."""
        drift = self.input.drift
        changed = sum(query.top1_changed for query in drift.queries)
        count = len(drift.queries)
        summary = (
            f"{count} queries · mean RBO {rbo_text(drift.mean_rbo) if count else '–'} · "
            f"top-1 changed {changed}/{count}"
            + (f" ({drift.top1_change_rate:.1%})" if count else "")
            + f" · {drift.level}s, top {drift.depth}, p {drift.p:g}"
        )
        names = f"Drift  A {self.input.a} → B {self.input.b} · "
        width = max(20, self.size.width - 2)
        title = Text(no_wrap=True, overflow="ellipsis")
        if len(names) + len(summary) <= width:
            title.append(names, style="bold")
        title.append(summary)
        self.query_one("#drift-title", Static).update(title)

    def show_selected(self) -> None:
        """The selected query's text, RBO, top-1 change and both rankings."""
        drift = self.input.drift
        selected = self.query_one("#drift-selected", Static)
        if self.position is None:
            selected.update(Text("no query selected" if self.order or not drift.queries else "ordering the queries…"))
            return
        query = drift.queries[self.position]
        width = max(20, self.query_one("#drift-detail").size.width or self.size.width)
        selected.update(selected_text(query, drift, self._row(), width))
        column = max(16, self.query_one("#drift-a").size.width - 4)  # its border and a scroll bar
        self.query_one("#drift-a-items", Static).update(ranking_text(query.first, query.second, "a", column))
        self.query_one("#drift-b-items", Static).update(ranking_text(query.second, query.first, "b", column))

    def show_exposure(self) -> None:
        """The documents that gained exposure beside those that lost it (largest change first)."""
        gains, losses = gains_and_losses(self.input.drift)
        column = max(20, self.query_one("#drift-gained").size.width or (self.size.width // 2 - 2))
        rows = NARROW_EXPOSURE_ROWS if self.has_class("-narrow") else EXPOSURE_ROWS
        self.query_one("#drift-gained", Static).update(exposure_text(gains, f"▲ gained ({len(gains)})", column, rows))
        self.query_one("#drift-lost", Static).update(exposure_text(losses, f"▼ lost ({len(losses)})", column, rows))

    # -- keys

    def action_move(self, step: int) -> None:
        """Next or previous query in the list."""
        self._select_row(self._row() + step)

    def action_page(self, direction: int) -> None:
        """A page of queries down or up."""
        queries = self.query_one("#drift-queries", OptionList)
        self._select_row(self._row() + direction * max(1, queries.scrollable_content_region.height - 1))

    def action_jump(self, row: int) -> None:
        """First (0) or last (-1) query in the list."""
        self._select_row(row if row >= 0 else len(self.order) + row)

    def action_next_changed(self, step: int) -> None:
        """The next (or previous) query in the list whose first hit changed; says so when there is none."""
        drift = self.input.drift
        row = self._row()
        rows = range(row + step, len(self.order) if step > 0 else -1, step)
        found = next((r for r in rows if drift.queries[self.order[r]].top1_changed), None)
        if found is None:
            where = "below" if step > 0 else "above"
            self.notify(f"No query {where} this one has a changed first hit ({CHANGED_GLYPH}).", markup=False)
            return
        self._select_row(found)

    def action_toggle_order(self) -> None:
        """Moved most first <-> log order (ordered in the worker)."""
        self.moved_first = not self.moved_first
        self.order_queries(self.moved_first)

    def _row(self) -> int:
        """The selected query's row in the list (0 when nothing is selected yet)."""
        return self.row_of.get(self.position, 0) if self.position is not None else 0

    def _select_row(self, row: int) -> None:
        if not self.order:
            return
        queries = self.query_one("#drift-queries", OptionList)
        queries.highlighted = max(0, min(len(self.order) - 1, row))
