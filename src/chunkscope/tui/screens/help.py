"""``?``: every key of every screen and widget, read from their bindings so it never goes stale."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from chunkscope.tui.commands import class_bindings

GLYPHS = (
    ("✂", "lost: a chunk boundary cut a required gold span before retrieval (no chunk holds it whole)"),
    ("✗", "not delivered: the evidence exists but no required item reached the context"),
    ("◐", "partial: some, not all, required items were delivered"),
    ("✓", "complete: every required item was delivered"),
    ("R / L", "split view: recovered (lost under A, whole under B) / newly lost under B"),
    ("▲ / ▼ / =", "split view: first correct rank better / worse / same under B"),
)


def where_bindings() -> list[tuple[str, list[Binding]]]:
    """(where, bindings) for the app, each screen and each interactive widget."""
    from chunkscope.tui.app import ChunkscopeApp
    from chunkscope.tui.screens.compare import CompareScreen
    from chunkscope.tui.screens.inspect import InspectScreen
    from chunkscope.tui.screens.summary import SummaryScreen
    from chunkscope.tui.widgets.document_view import DocumentView
    from chunkscope.tui.widgets.question_list import QuestionList
    from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
    from chunkscope.tui.widgets.summary_widgets import TransitionMatrix

    places: list[tuple[str, type]] = [
        ("Everywhere", ChunkscopeApp),
        ("Single view (inspect)", InspectScreen),
        ("Split view (compare)", CompareScreen),
        ("Summary", SummaryScreen),
        ("Transition matrix", TransitionMatrix),
        ("Question list", QuestionList),
        ("Ranked chunks", RankedChunksView),
        ("Document", DocumentView),
    ]
    table = []
    for where, cls in places:
        own = [b for b in class_bindings(cls) if b.id is not None or b.description]
        table.append((where, own))
    return table


class HelpScreen(ModalScreen[None]):
    """Every key, with what it does and its id (for CHUNKSCOPE_KEYMAP)."""

    CSS_PATH = "help.tcss"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "app.pop_screen", "close", id="help.close", tooltip="Close the help"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-body"):
            yield Static(self.glyph_table(), id="help-glyphs")
            yield Static(self.key_table(), id="help-keys")

    def glyph_table(self) -> Table:
        """What each status glyph and mark means."""
        table = Table(title="What the marks mean", title_justify="left", show_header=False, expand=True)
        table.add_column(no_wrap=True)
        table.add_column(ratio=1)
        for glyph, meaning in GLYPHS:
            table.add_row(Text(glyph, style="bold"), meaning)
        table.add_row(Text("⟦ ⟧ │ « » ●#n ○#n", style="bold"), "document view: gold, boundary, overlap, ranks")
        return table

    def key_table(self) -> Table:
        """Every binding of every place, with its id."""
        table = Table(title="Keys (ctrl+p lists every action too)", title_justify="left", expand=True)
        table.add_column("where", no_wrap=True)
        table.add_column("key", no_wrap=True, style="bold")
        table.add_column("does", ratio=1)
        table.add_column("id", no_wrap=True, style="dim")
        for where, bindings in where_bindings():
            for index, binding in enumerate(bindings):
                keys = ", ".join(self.app.get_key_display(Binding(k.strip(), "")) for k in binding.key.split(","))
                if binding.key_display:
                    keys = binding.key_display
                table.add_row(
                    where if index == 0 else "", keys, binding.tooltip or binding.description, binding.id or ""
                )
            table.add_section()
        table.add_row("Everywhere", "ctrl+p", "command palette: every action, filters, go to a question", "")
        table.add_row("", "tab / shift+tab", "move between panes", "")
        table.add_row("", "mouse", "click a question, a chunk or a footer key; wheel scrolls", "")
        return table
