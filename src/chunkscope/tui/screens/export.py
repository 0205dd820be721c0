"""``x``: export the selected question's case file (Markdown) or the whole report (JSON, as ``eval --json``).

Writes are atomic (``chunkscope.io.atomic.write_atomic``) and refused when the target is an input
file or lies inside an input directory.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from chunkscope.tui import messages
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.state.session import Session

REPORT_NAME = "chunkscope-report.json"


def case_file_name(question_id: str) -> str:
    """A file name for a question's case file: ``case-<id>.md`` with unsafe characters replaced."""
    return f"case-{re.sub(r'[^A-Za-z0-9._-]+', '_', question_id)}.md"


def export_problem(session: Session, path: str) -> str | None:
    """Why ``path`` must not be written (an input, a directory, a missing folder), or None when it may."""
    if not path:
        return "give a file name"
    target = Path(path).expanduser()
    if session.is_input_path(target):
        return f"refusing to write {path}: it is an input file or inside an input directory"
    if target.is_dir():
        return f"{path} is a directory"
    if not target.resolve().parent.is_dir():
        return f"the folder of {path} does not exist"
    return None


class ExportDialog(ModalScreen[None]):
    """Two exports, each with its own path: the case file of the selected question, and the report."""

    CSS_PATH = "export.tcss"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.EXPORT)

    def __init__(self, session: Session, compare: bool) -> None:
        super().__init__()
        self.session = session
        self.compare = compare

    def compose(self) -> ComposeResult:
        question_id = self.session.selected_id or ""
        sides = "A and B" if self.compare else "the shown configuration"
        with Vertical(id="export-box") as box:
            box.border_title = "Export"
            yield Label(f"Case file of {question_id} (Markdown: query, gold in context, top-k of {sides})")
            with Horizontal(classes="export-row"):
                yield Input(case_file_name(question_id), id="export-case-path")
                yield Button("Write case file", variant="primary", id="export-case")
            yield Label(f"Report (JSON, as chunkscope eval --json writes it, {sides})")
            with Horizontal(classes="export-row"):
                yield Input(REPORT_NAME, id="export-report-path")
                yield Button("Write report", id="export-report")
            yield Static("", id="export-message")

    def on_mount(self) -> None:
        self.query_one("#export-case-path", Input).focus()

    def _write(self, what: messages.ExportKind) -> None:
        path = self.query_one(f"#export-{what}-path", Input).value.strip()
        problem = export_problem(self.session, path)
        if problem is not None:
            self.query_one("#export-message", Static).update(Text(problem))
            self.notify(problem, title="Export refused", severity="error", markup=False)
            return
        self.app.post_message(messages.ExportRequested(what, path, self.compare))
        self.dismiss(None)

    def on_button_pressed(self, message: Button.Pressed) -> None:
        self._write("case" if message.button.id == "export-case" else "report")

    def on_input_submitted(self, message: Input.Submitted) -> None:
        self._write("case" if message.input.id == "export-case-path" else "report")
