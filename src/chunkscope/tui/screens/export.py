"""``x``: export the selected question's case file (Markdown) or the whole report (JSON, as ``eval --json``).

An export goes where a report of ``chunkscope eval`` goes, by the same rules
(:mod:`chunkscope.io.targets`): a regular file is written atomically (a symlink is
followed and stays), a character device, FIFO or socket is written directly and never
replaced by a file. Refused, with the reason in the dialog, before anything is
rendered: an input file or a corpus document (:func:`chunkscope.io.outputs.input_conflict`),
a directory, a block device, a missing or unwritable directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from chunkscope.io.targets import target_problem, write_report
from chunkscope.tui import messages
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.state.session import Session

REPORT_NAME = "chunkscope-report.json"


def case_file_name(question_id: str) -> str:
    """A file name for a question's case file: ``case-<id>.md`` with unsafe characters replaced."""
    return f"case-{re.sub(r'[^A-Za-z0-9._-]+', '_', question_id)}.md"


class ExportRefused(Exception):
    """The export target cannot take the export (the message says why)."""


def export_problem(session: Session, path: str) -> str | None:
    """Why ``path`` must not be written (an input, or what :func:`target_problem` refuses), or None when it may."""
    if not path:
        return "give a file name"
    target = os.path.expanduser(path)
    if session.is_input_path(target):
        return f"refusing to write {path}: it is an input file or inside an input directory"
    problem = target_problem(target)
    if problem is not None:
        return f"cannot write {path}: {problem}"
    return None


def write_export_target(session: Session, path: str, render: Callable[[], str]) -> None:
    """Check ``path`` again (it may have changed since the dialog), then render and write the export.

    Raises :class:`ExportRefused` before rendering when the target cannot take it; a
    failed write raises OSError and leaves a regular file as it was.
    """
    problem = export_problem(session, path)
    if problem is not None:
        raise ExportRefused(problem)
    write_report(os.path.expanduser(path), render())


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
