"""A screen that shows the session's state and re-reads it whenever it becomes current."""

from __future__ import annotations

from textual.screen import Screen

from chunkscope.tui.state.session import Session


class SyncedScreen(Screen[None]):
    """A screen showing the session's results; it re-reads the session whenever it becomes current."""

    def __init__(self, session: Session, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.session = session
        self.ready = False
        """True once composed and mounted: only then can it show anything."""

    def on_mount(self) -> None:
        # Runs after the subclass's on_mount (Textual dispatches down the MRO), so widgets exist.
        self.ready = True
        self.sync_session()

    def sync_session(self) -> None:
        """Show what the session holds now (results, filter, selection)."""
        raise NotImplementedError

    def sync_status(self) -> None:
        """Show the evaluation progress only (called often while a worker runs)."""

    def on_screen_resume(self) -> None:
        if self.ready:
            self.sync_session()
