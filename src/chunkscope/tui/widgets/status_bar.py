"""The status line above the footer: the selected question's place in the list and evaluation progress."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import ProgressBar, Static


class StatusBar(Horizontal):
    """Left: where the selection is; right: a progress indicator while a configuration is computed."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def compose(self) -> ComposeResult:
        yield Static(id="status-where")
        yield Static(id="status-progress")
        yield ProgressBar(total=None, show_eta=False, show_percentage=False, id="status-bar")

    def show_where(self, text: str) -> None:
        """The left-hand text."""
        self.query_one("#status-where", Static).update(Text(text), layout=False)  # plain: ids may hold [

    def show_progress(self, text: str | None, done: int = 0, total: int = 0) -> None:
        """A progress text and bar (indeterminate when ``total`` is 0); None hides both."""
        label = self.query_one("#status-progress", Static)
        bar = self.query_one("#status-bar", ProgressBar)
        visible = text is not None
        if label.display != visible:
            label.display = bar.display = visible
        if text is None:
            return
        label.update(Text(f"⟳ {text}"))
        bar.update(total=total or None, progress=done)
