"""Every key action of the inspector, listed once: its binding id, default keys, what it does and where.

The app's, screens' and widgets' ``BINDINGS`` are built from this table (:func:`bindings_for`), and the
``?`` help screen and the command palette read their texts from it, so a key never has two
descriptions. The binding id is what ``CHUNKSCOPE_KEYMAP`` remaps (``question.next-failing=j``).
This module imports no screen or widget: they import it.
"""

from __future__ import annotations

from textual.binding import Binding, BindingType

from chunkscope.tui.action_model import CHANGED, FILTER, MOVE, NAMESPACES, SIZE, Action, Place

__all__ = [
    "ACTIONS",
    "ACTIONS_BY_ID",
    "NAMESPACES",
    "Action",
    "Place",
    "action_for",
    "actions_of",
    "bindings_for",
]


def hidden(place: Place, namespace: str, *rows: tuple[str, str, str, str, str]) -> tuple[Action, ...]:
    """Actions of ``place`` the footer does not show (moving, scrolling), one row each: the name after
    ``namespace.`` in the binding id, the keys, the action, the description and the tooltip."""
    return tuple(
        Action(f"{namespace}.{name}", keys, action, description, tooltip, place, show=False)
        for name, keys, action, description, tooltip in rows
    )


def grid_moves(place: Place, namespace: str, up: str, down: str, left: str, right: str) -> tuple[Action, ...]:
    """The arrow keys of a grid (the sweep map, the transition matrix): ``move(rows, columns)`` by one cell, each
    with its tooltip."""
    return hidden(
        place,
        namespace,
        ("up", "up", "move(-1, 0)", "Up", up),
        ("down", "down", "move(1, 0)", "Down", down),
        ("left", "left", "move(0, -1)", "Left", left),
        ("right", "right", "move(0, 1)", "Right", right),
    )


HELP_TOOLTIP = "Every key of every screen, with its id for remapping"

ACTIONS: tuple[Action, ...] = (
    # -- the app
    Action("app.quit", "q", "quit", "quit", "Leave the inspector", Place.APP, show=False),
    Action("app.help", "question_mark", "help", "help", HELP_TOOLTIP, Place.APP, key_display="?"),
    Action("app.theme", "T", "change_theme", "theme", "Choose a colour theme", Place.APP, show=False),
    # -- both question views
    Action("view.help", "question_mark", "app.help", "help", HELP_TOOLTIP, Place.SESSION, key_display="?"),
    Action(
        "view.pane",
        "d",
        "toggle_pane",
        "list/detail",
        "In a terminal under 100 columns: switch between the question list and the selected question's detail",
        Place.SESSION,
    ),
    Action(
        "question.next-failing",
        "n",
        "next_failing(1)",
        "next failing",
        "Select the next failing question in the list, staying in the current pane",
        Place.SESSION,
        group=MOVE,
    ),
    Action(
        "question.previous-failing",
        "N",
        "next_failing(-1)",
        "previous failing",
        "Select the previous failing question in the list, staying in the current pane",
        Place.SESSION,
        group=MOVE,
    ),
    Action(
        "filter.next",
        "f",
        "filter_next(1)",
        "next filter",
        "Cycle the list filter: all, failing, lost, cut, incomplete (+ movement in the split view; "
        "+ fragile OK, robust OK once u computed fragility; + answers ok, generation, retrieval, unsupported "
        "with --answers, under the answers' configuration)",
        Place.SESSION,
        group=FILTER,
    ),
    Action(
        "filter.cause",
        "F",
        "cause_next",
        "next cause filter",
        "Cycle the failure-cause filter through the causes present",
        Place.SESSION,
        show=False,
        group=FILTER,
    ),
    Action(
        "filter.group",
        "number_sign",
        "group_picker",
        "group",
        "Pick a tag or computed group to list only its questions; the summary then shows that group's metrics",
        Place.SESSION,
        show=False,
        key_display="#",
    ),
    Action(
        "filter.search",
        "slash",
        "search",
        "search",
        "Search questions by id or query text",
        Place.SESSION,
        show=False,
        key_display="/",
    ),
    Action(
        "config.cancel",
        "escape",
        "cancel_evaluation",
        "cancel",
        "Stop the computation that is running (the side goes back to the result it shows; p asks again)",
        Place.SESSION,
    ),
    Action(
        "filter.clear",
        "escape",
        "clear_filter",
        "clear filter",
        "Show every question again (clears filter, cause, cell and search; while a computation runs, esc cancels it)",
        Place.SESSION,
        show=False,
    ),
    Action(
        "config.chunker-next",
        "c",
        "config('chunker', 1)",
        "chunker",
        "Next chunker (a chunker used before keeps its parameters)",
        Place.SESSION,
    ),
    Action(
        "config.chunker-previous",
        "C",
        "config('chunker', -1)",
        "previous chunker",
        "Previous chunker",
        Place.SESSION,
        show=False,
    ),
    Action("config.retriever-next", "r", "config('retriever', 1)", "retriever", "Next retriever", Place.SESSION),
    Action(
        "config.retriever-previous",
        "R",
        "config('retriever', -1)",
        "previous retriever",
        "Previous retriever",
        Place.SESSION,
        show=False,
    ),
    Action(
        "config.size-up",
        "plus,equals_sign",
        "config('size', 1)",
        "bigger chunks",
        "Next larger chunk size (overlap kept in proportion)",
        Place.SESSION,
        key_display="+",
        group=SIZE,
    ),
    Action(
        "config.size-down",
        "minus",
        "config('size', -1)",
        "smaller chunks",
        "Next smaller chunk size (overlap kept in proportion)",
        Place.SESSION,
        key_display="-",
        group=SIZE,
    ),
    Action(
        "config.overlap",
        "o",
        "config('overlap', 1)",
        "overlap",
        "Cycle overlap: none, 20% of the size, 50%",
        Place.SESSION,
    ),
    Action(
        "config.overflow",
        "O",
        "config('overflow', 1)",
        "overflow",
        "Cycle what the first chunk over the budget does: stop, skip, truncate",
        Place.SESSION,
        show=False,
    ),
    Action(
        "config.top-k-up",
        "k",
        "config('top_k', 1)",
        "top-k",
        "Next larger top-k (1, 2, 3, 5, 10, 20, wrapping)",
        Place.SESSION,
    ),
    Action(
        "config.top-k-down",
        "K",
        "config('top_k', -1)",
        "smaller top-k",
        "Next smaller top-k",
        Place.SESSION,
        show=False,
    ),
    Action(
        "config.budget-up",
        "b",
        "config('budget', 1)",
        "budget",
        "Next larger context budget, in characters or in the tokens U chose (none after the largest, wrapping)",
        Place.SESSION,
    ),
    Action(
        "config.budget-down",
        "B",
        "config('budget', -1)",
        "smaller budget",
        "Next smaller context budget",
        Place.SESSION,
        show=False,
    ),
    Action(
        "config.budget-unit",
        "U",
        "config('budget_unit', 1)",
        "budget unit",
        "Cycle what the budget counts: characters, then cl100k, o200k, e5, e5-enpt tokens (b then steps in that unit)",
        Place.SESSION,
        show=False,
    ),
    Action(
        "config.previous",
        "p",
        "previous_config",
        "previous config",
        "Switch back to the configuration before the last change (instant: results are cached)",
        Place.SESSION,
        show=False,
    ),
    Action(
        "config.edit",
        "e",
        "edit_config",
        "edit",
        "Edit the whole configuration in a form (free-text chunker and retriever specs)",
        Place.SESSION,
    ),
    Action(
        "view.summary",
        "s",
        "summary",
        "summary",
        "Metrics table and rank-bucket chart (with the transition matrix in the split view; "
        "with a # group, its metrics; after u, the fragility counts)",
        Place.SESSION,
    ),
    Action(
        "export.copy-chunk",
        "y",
        "copy_chunk",
        "copy chunk",
        "Copy the highlighted ranked chunk's text to the clipboard",
        Place.SESSION,
        show=False,
    ),
    Action(
        "export.copy-case",
        "Y",
        "copy_case",
        "copy case file",
        "Copy the selected question's case file (the Markdown the export writes) to the clipboard",
        Place.SESSION,
        show=False,
    ),
    Action(
        "export.dialog",
        "x",
        "export",
        "export",
        "Write the current question's case file (Markdown) or the whole report (JSON)",
        Place.SESSION,
    ),
    # -- the single view
    Action(
        "view.compare",
        "v",
        "toggle_compare",
        "compare",
        "Split view: configuration A left, B right, for the same question",
        Place.INSPECT,
    ),
    Action(
        "view.anatomy",
        "a",
        "anatomy",
        "anatomy",
        "Score anatomy of the selected question: its evidence chunk's score taken apart beside the chunk above it",
        Place.INSPECT,
        show=False,
    ),
    Action(
        "view.whatif",
        "w",
        "whatif",
        "what-if",
        "Boundary what-if of the selected question: the smallest chunker change that keeps each cut gold span whole, "
        "previewed in the document; enter applies it as B",
        Place.INSPECT,
        show=False,
    ),
    Action(
        "view.gold",
        "g",
        "gold",
        "gold",
        "Gold integrity: quotes not found, ambiguous or approximate, spans cut mid-word, duplicates; enter jumps",
        Place.SESSION,
        show=False,
    ),
    Action(
        "question.fragility",
        "u",
        "fragility",
        "fragility",
        "Evaluate the 8 size/overlap neighbours (esc cancels): the list marks ~ fragile OK and + OK nearby, "
        "f gains fragile OK and robust OK, the summary counts them",
        Place.INSPECT,
        show=False,
    ),
    # -- the split view
    Action(
        "view.single",
        "v",
        "toggle_compare",
        "single",
        "Back to the single view, on the configuration the keys were changing (B unless t switched to A)",
        Place.COMPARE,
    ),
    Action(
        "compare.side",
        "t",
        "toggle_side",
        "edit A/B",
        "Switch which side (A or B) the configuration keys change",
        Place.COMPARE,
        show=False,
    ),
    Action("compare.swap", "w", "swap", "swap A/B", "Exchange configurations A and B", Place.COMPARE, show=False),
    Action(
        "compare.sort",
        "S",
        "sort_next",
        "sort",
        "Order the list by the evidence rank change from A to B: question order, biggest improvement first, "
        "biggest regression first",
        Place.COMPARE,
        show=False,
    ),
    # -- dialogs
    Action("summary.close", "escape,s", "app.pop_screen", "back", "Back to the question view", Place.SUMMARY),
    Action(
        "summary.sweep-map",
        "m",
        "app.sweep_map",
        "sweep map",
        "The sweep's size x overlap grid and cost x metric scatter (when opened with chunkscope sweep --inspect)",
        Place.SUMMARY,
        show=False,
    ),
    # -- the sweep map
    Action("sweep.close", "escape", "app.pop_screen", "back", "Back to the question view", Place.SWEEP_MAP),
    Action("sweep.metric-next", "m", "metric(1)", "metric", "Next tested metric", Place.SWEEP_MAP),
    Action(
        "sweep.metric-previous", "M", "metric(-1)", "previous metric", "Previous metric", Place.SWEEP_MAP, show=False
    ),
    Action(
        "sweep.cost", "c", "cost", "cost", "Index cost of the frontier: chunks or indexed characters", Place.SWEEP_MAP
    ),
    Action(
        "sweep.plot",
        "p",
        "toggle_plot",
        "grid/scatter",
        "Grid of sizes and overlaps, or scatter of cost against the metric",
        Place.SWEEP_MAP,
    ),
    *grid_moves(
        Place.SWEEP_MAP,
        "sweep",
        "Cell above (scatter: next higher value)",
        "Cell below (scatter: next lower value)",
        "Cell to the left (scatter: next cheaper)",
        "Cell to the right (scatter: next costlier)",
    ),
    Action(
        "sweep.open",
        "enter",
        "open",
        "open A vs best",
        "Open the selected configuration as A beside the best one as B, failing questions listed",
        Place.SWEEP_MAP,
    ),
    # -- the drift of a query log (chunkscope drift --inspect)
    Action("drift.help", "question_mark", "app.help", "help", HELP_TOOLTIP, Place.DRIFT, key_display="?"),
    *hidden(
        Place.DRIFT,
        "drift",
        ("down", "j,down", "move(1)", "next query", "Next query in the list (the one that moved next most)"),
        ("up", "k,up", "move(-1)", "previous query", "Previous query in the list"),
        ("page-down", "pagedown", "page(1)", "Page down", "One page of queries down"),
        ("page-up", "pageup", "page(-1)", "Page up", "One page of queries up"),
        ("first", "home", "jump(0)", "first query", "First query in the list"),
        ("last", "end", "jump(-1)", "last query", "Last query in the list"),
    ),
    Action(
        "drift.next-changed",
        "n",
        "next_changed(1)",
        "next top-1 change",
        "Select the next query whose first hit differs between A and B",
        Place.DRIFT,
        group=CHANGED,
    ),
    Action(
        "drift.previous-changed",
        "N",
        "next_changed(-1)",
        "previous top-1 change",
        "Select the previous query whose first hit differs between A and B",
        Place.DRIFT,
        group=CHANGED,
    ),
    Action(
        "drift.order",
        "o",
        "toggle_order",
        "order",
        "List the queries moved most first (lowest RBO) or in the log's order",
        Place.DRIFT,
    ),
    Action("help.close", "escape,question_mark,q", "app.pop_screen", "close", "Close the help", Place.HELP),
    Action("export.close", "escape", "app.pop_screen", "close", "Close without writing", Place.EXPORT),
    Action("anatomy.close", "escape,a", "app.pop_screen", "close", "Back to the question view", Place.ANATOMY),
    Action("gold.close", "escape,g", "close", "close", "Back to the question view", Place.GOLD),
    Action("whatif.close", "escape,w", "app.pop_screen", "close", "Back to the question view", Place.WHATIF),
    *hidden(
        Place.WHATIF,
        "whatif",
        ("up", "up", "move(-1)", "previous", "Previous option (the document previews it)"),
        ("down", "down", "move(1)", "next", "Next option (the document previews it)"),
    ),
    Action(
        "whatif.apply",
        "enter",
        "apply",
        "apply as B",
        "Evaluate the selected option's chunker as configuration B beside A in the split view",
        Place.WHATIF,
    ),
    *hidden(
        Place.WHATIF,
        "whatif",
        ("page-down", "pagedown", "scroll_preview(1)", "Page down", "Scroll the preview down a page"),
        ("page-up", "pageup", "scroll_preview(-1)", "Page up", "Scroll the preview up a page"),
    ),
    Action("groups.close", "escape", "app.pop_screen", "close", "Close without changing the filter", Place.GROUPS),
    Action("form.cancel", "escape", "cancel", "cancel", "Close the form without changing anything", Place.FORM),
    Action("confirm.start", "enter", "start", "start", "Start the computation the estimate is about", Place.CONFIRM),
    Action(
        "confirm.leave",
        "escape",
        "leave",
        "leave it",
        "Do not start it: the configuration stays as it is",
        Place.CONFIRM,
    ),
    # -- the transition matrix
    *grid_moves(
        Place.MATRIX,
        "matrix",
        "Cell above (a better state under A)",
        "Cell below (a worse state under A)",
        "Cell to the left (better under B)",
        "Cell to the right (worse under B)",
    ),
    Action(
        "matrix.select",
        "enter,space",
        "select",
        "Filter questions",
        "Filter the question list to the questions in this cell",
        Place.MATRIX,
    ),
    # -- the question list
    *hidden(
        Place.LIST,
        "list",
        ("up", "up", "move(-1)", "Up", "Previous question in the list"),
        ("down", "down", "move(1)", "Down", "Next question in the list"),
        ("page-up", "pageup", "page(-1)", "Page up", "One page up"),
        ("page-down", "pagedown", "page(1)", "Page down", "One page down"),
        ("first", "home", "jump(0)", "First", "First question in the list"),
        ("last", "end", "jump(-1)", "Last", "Last question in the list"),
    ),
    # -- the ranked chunks
    *hidden(
        Place.RANKED,
        "ranked",
        ("next-hit", "down", "next_hit", "Next hit", "Move to the next ranked chunk; the document view follows"),
        (
            "previous-hit",
            "up",
            "previous_hit",
            "Previous hit",
            "Move to the previous ranked chunk; the document view follows",
        ),
        ("first-hit", "home", "first_hit", "First hit", "Move to rank 1"),
        ("last-hit", "end", "last_hit", "Last hit", "Move to the last ranked chunk shown"),
        ("page-down", "pagedown", "page_down", "Page down", "Scroll the ranked chunks down a page"),
        ("page-up", "pageup", "page_up", "Page up", "Scroll the ranked chunks up a page"),
    ),
    # -- the document
    *hidden(
        Place.DOCUMENT,
        "document",
        ("scroll-up", "up", "scroll_up", "Scroll up", "Scroll up a line"),
        ("scroll-down", "down", "scroll_down", "Scroll down", "Scroll down a line"),
        ("page-up", "pageup", "page_up", "Page up", "Scroll up a page"),
        ("page-down", "pagedown", "page_down", "Page down", "Scroll down a page"),
        ("top", "home", "scroll_home", "Top", "Go to the start"),
        ("bottom", "end", "scroll_end", "Bottom", "Go to the end"),
        ("next-mark", "]", "next_mark", "Next gold/cut", "Scroll to the next gold span or cut marker"),
        ("previous-mark", "[", "previous_mark", "Previous gold/cut", "Scroll to the previous gold span or cut marker"),
    ),
)

ACTIONS_BY_ID: dict[str, Action] = {action.id: action for action in ACTIONS}
"""Each action by its binding id."""


def actions_of(place: Place) -> tuple[Action, ...]:
    """The actions ``place`` binds, in table order (the order of its footer and help entries)."""
    return tuple(action for action in ACTIONS if action.place is place)


def bindings_for(place: Place) -> list[BindingType]:
    """The ``BINDINGS`` of ``place``'s class."""
    return [action.binding() for action in actions_of(place)]


def action_for(binding: Binding) -> Action | None:
    """The table entry a (possibly remapped) binding came from; None for Textual's own bindings."""
    return ACTIONS_BY_ID.get(binding.id) if binding.id is not None else None
