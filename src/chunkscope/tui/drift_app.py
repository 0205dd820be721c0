"""The inspector of ``chunkscope drift --inspect``: the drift screen of a query log without gold.

A query log has no gold, so there is no question view to go back to: this app holds the drift screen alone, with
the inspector's global keys (help, theme, quit).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import App
from textual.binding import BindingType

from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.screens.drift import DriftInput, DriftScreen
from chunkscope.tui.screens.help import HelpScreen


class DriftApp(App[None]):
    """Step through a query log's drift between two configurations."""

    CSS_PATH = "app.tcss"
    """The inspector's own app-wide rules (the compact key bar), as ChunkscopeApp has them."""
    TITLE = "chunkscope drift"
    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.APP)

    def __init__(self, drift: DriftInput) -> None:
        super().__init__()
        self.drift = drift

    def on_mount(self) -> None:
        self.push_screen(DriftScreen(self.drift))

    def action_help(self) -> None:
        """Every key of every screen."""
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())
