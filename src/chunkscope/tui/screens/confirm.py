"""A question before long work: the estimate of a computation, ``enter`` starts it, ``esc`` does not."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from chunkscope.tui.actions import Place, bindings_for


class ConfirmLongWork(ModalScreen[bool]):
    """Says what a computation will cost and asks once: True to start it, False to leave it."""

    DEFAULT_CSS = """
    ConfirmLongWork { align: center middle; }
    ConfirmLongWork #confirm-box { width: 70; max-width: 92%; height: auto; max-height: 90%;
        border: round $warning; background: $surface; padding: 0 1; }
    ConfirmLongWork #confirm-text { height: auto; margin-bottom: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.CONFIRM)

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = self.title_text
            yield Static(self.text, id="confirm-text", markup=False)
            yield Static("enter: start · esc: leave it (the configuration stays as it is)", id="confirm-keys")
        yield Footer(compact=True)

    def action_start(self) -> None:
        """Start the computation."""
        self.dismiss(True)

    def action_leave(self) -> None:
        """Do not start it."""
        self.dismiss(False)
