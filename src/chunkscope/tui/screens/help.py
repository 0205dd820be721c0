"""``?``: every key of every screen and widget, read from the action table (:mod:`chunkscope.tui.actions`)
and from the Textual classes they derive from, so it never goes stale."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import Static

from chunkscope.tui.actions import Place, actions_of, bindings_for

GLYPHS = (
    ("⧉", "in pieces: no delivered chunk holds the evidence whole, yet every character of it was delivered"),
    ("✂", "lost: a chunk boundary cut a required gold span before retrieval (no chunk holds it whole)"),
    ("✗", "not delivered: the evidence exists but no required item reached the context"),
    ("◐", "partial: some, not all, required items were delivered"),
    ("✓", "complete: every required item was delivered"),
    ("R / L", "split view: recovered (lost under A, whole under B) / newly lost under B"),
    ("▲ / ▼ / =", "split view: first correct rank better / worse / same under B"),
    (
        "~ / +",
        "after u: fragile OK (OK here, not under some size/overlap neighbour) / OK nearby (OK under a neighbour)",
    ),
)


@dataclass(frozen=True, slots=True)
class HelpSection:
    """One block of the key table: a place the user is in and the keys it has."""

    where: str
    places: tuple[Place, ...]
    """The action-table places whose keys work there, in the order their classes inherit them."""
    textual_base: type
    """The Textual class the place's class derives from: its own keys (focus, scrolling) are listed first."""


HELP_SECTIONS: tuple[HelpSection, ...] = (
    HelpSection("Everywhere", (Place.APP,), App),
    HelpSection("Single view (inspect)", (Place.SESSION, Place.INSPECT), Screen),
    HelpSection("Split view (compare)", (Place.SESSION, Place.COMPARE), Screen),
    HelpSection("Summary", (Place.SUMMARY,), Screen),
    HelpSection("Transition matrix", (Place.MATRIX,), Widget),
    HelpSection("Question list", (Place.LIST,), ScrollView),
    HelpSection("Ranked chunks", (Place.RANKED,), ScrollView),
    HelpSection("Document", (Place.DOCUMENT,), ScrollView),
    HelpSection("Sweep map", (Place.SWEEP_MAP,), Screen),
    HelpSection("Drift (chunkscope drift --inspect)", (Place.DRIFT,), Screen),
)


def textual_bindings(cls: type) -> list[Binding]:
    """Bindings a Textual class declares with a description, its bases' first (as Textual merges them)."""
    found: list[Binding] = []
    for base in reversed(cls.__mro__):
        for binding in base.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding) and (binding.id is not None or binding.description):
                found.append(binding)
    return found


def section_bindings(section: HelpSection) -> list[Binding]:
    """Every key of one section: Textual's own, then the action table's."""
    ours = [action.binding() for place in section.places for action in actions_of(place)]
    return [*textual_bindings(section.textual_base), *ours]


class HelpScreen(ModalScreen[None]):
    """Every key, with what it does and its id (for CHUNKSCOPE_KEYMAP)."""

    CSS_PATH = "help.tcss"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.HELP)

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
        # At 80 columns the fixed columns would leave "does" no width: the places and ids wrap instead.
        table.add_column("where", ratio=2)
        table.add_column("key", ratio=2, style="bold")
        table.add_column("does", ratio=5)
        table.add_column("id", ratio=3, style="dim", overflow="fold")
        for section in HELP_SECTIONS:
            for index, binding in enumerate(section_bindings(section)):
                remapped = self.app._keymap.get(binding.id) if binding.id is not None else None
                key = remapped or binding.key  # CHUNKSCOPE_KEYMAP's keys replace the defaults
                keys = ", ".join(self.app.get_key_display(Binding(k.strip(), "")) for k in key.split(","))
                if binding.key_display and remapped is None:
                    keys = binding.key_display
                table.add_row(
                    section.where if index == 0 else "", keys, binding.tooltip or binding.description, binding.id or ""
                )
            table.add_section()
        table.add_row("Everywhere", "ctrl+p", "command palette: every action, filters, go to a question", "")
        table.add_row("", "tab / shift+tab", "move between panes", "")
        table.add_row("", "mouse", "click a question, a chunk or a footer key; wheel scrolls", "")
        return table
