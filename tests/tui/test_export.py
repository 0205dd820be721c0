"""The inspector's exports go through the report targets of the command line.

A regular file is replaced atomically (through a symlink, which stays), a FIFO is
written directly and stays a FIFO, and a target that cannot take an export (a
directory, a missing directory) is refused with its reason before anything is
rendered, in the dialog.
"""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from pilot_helpers import FIXED_200, SIZE, async_test, make_app, settle
from textual import events
from textual.widgets import Input, Static

from chunkscope.io.dataset import Dataset
from chunkscope.tui.screens.export import ExportDialog, ExportRefused, export_problem, write_export_target
from chunkscope.tui.session import Session

fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")


class FifoReader:
    """Reads everything written to a FIFO, in a thread (opening a FIFO blocks until both ends are open)."""

    def __init__(self, path: Path) -> None:
        self.data = b""
        self.thread = threading.Thread(target=self._read, args=(path,), daemon=True)
        self.thread.start()

    def _read(self, path: Path) -> None:
        with open(path, "rb") as handle:
            self.data = handle.read()

    def result(self) -> str:
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "nothing was written to the FIFO"
        return self.data.decode("utf-8")


def make_fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


class Rendered:
    """A render callback that records whether it ran."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        return self.text


def test_refused_targets_name_the_reason(sample: Dataset, tmp_path: Path) -> None:
    session = Session(sample, FIXED_200)
    questions = Path(sample.sources[1].path)
    assert export_problem(session, "") == "give a file name"
    assert export_problem(session, str(tmp_path)) == f"cannot write {tmp_path}: it is a directory"
    assert export_problem(session, f"{tmp_path}/") == (
        f"cannot write {tmp_path}/: a path ending in '/' names a directory; give a file name"
    )
    missing = tmp_path / "missing" / "case.md"
    assert export_problem(session, str(missing)) == f"cannot write {missing}: directory {missing.parent} does not exist"
    assert export_problem(session, str(questions)) == (
        f"refusing to write {questions}: it is an input file or inside an input directory"
    )
    assert export_problem(session, str(tmp_path / "case.md")) is None


def test_a_refused_target_is_never_rendered_nor_written(sample: Dataset, tmp_path: Path) -> None:
    session = Session(sample, FIXED_200)
    render = Rendered("# Case\n")
    with pytest.raises(ExportRefused, match="it is a directory"):
        write_export_target(session, str(tmp_path), render)
    assert render.calls == 0
    assert os.listdir(tmp_path) == []


@fifo_only
def test_a_fifo_is_written_directly_and_stays_a_fifo(sample: Dataset, tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path / "export.fifo")
    assert export_problem(Session(sample, FIXED_200), str(fifo)) is None
    reader = FifoReader(fifo)
    write_export_target(Session(sample, FIXED_200), str(fifo), Rendered("# Case q1\n"))
    assert reader.result() == "# Case q1\n"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["export.fifo"]  # no temporary left beside it


def test_an_existing_symlink_stays_and_its_file_is_replaced(sample: Dataset, tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_export_target(Session(sample, FIXED_200), str(link), Rendered("new ✂ 寒帯\n"))
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text(encoding="utf-8") == "new ✂ 寒帯\n"
    assert sorted(os.listdir(tmp_path)) == ["link.md", "real.md"]


@fifo_only
def test_a_symlink_to_a_fifo_writes_the_fifo(sample: Dataset, tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path / "export.fifo")
    link = tmp_path / "link.md"
    link.symlink_to(fifo)
    reader = FifoReader(fifo)
    write_export_target(Session(sample, FIXED_200), str(link), Rendered("report\n"))
    assert reader.result() == "report\n"
    assert link.is_symlink() and stat.S_ISFIFO(os.stat(fifo).st_mode)


@async_test
async def test_dialog_shows_why_a_directory_is_refused(sample: Dataset, tmp_path: Path) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        app.screen.query_one("#export-report-path", Input).value = str(tmp_path)
        await pilot.click("#export-report")
        await settle(pilot)
        assert isinstance(app.screen, ExportDialog)  # still open, nothing written
        shown = str(app.screen.query_one("#export-message", Static).render())
        assert shown == f"cannot write {tmp_path}: it is a directory"
    assert os.listdir(tmp_path) == []


@fifo_only
@async_test
async def test_dialog_writes_the_case_file_into_a_fifo(sample: Dataset, tmp_path: Path) -> None:
    fifo = make_fifo(tmp_path / "case.fifo")
    reader = FifoReader(fifo)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"q39", "enter", "x")
        await pilot.pause()
        app.screen.query_one("#export-case-path", Input).value = str(fifo)
        await pilot.click("#export-case")
        await settle(pilot)
        assert not isinstance(app.screen, ExportDialog)
    case = reader.result()
    assert case.startswith("# Case q39: ") and "低温時バッテ✂リー保護機能" in case
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@async_test
async def test_enter_typed_with_x_writes_the_case_file(
    sample: Dataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "x Enter" in one terminal write: both keys are queued before x's action runs. The dialog must be open
    # by the time Enter is dispatched (it was opened through the app's queue, behind Enter, which then went
    # to the question list and the dialog waited with nothing written).
    monkeypatch.chdir(tmp_path)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.post_message(events.Key("x", "x"))
        app.post_message(events.Key("enter", None))
        await settle(pilot)
        await settle(pilot)
        assert not isinstance(app.screen, ExportDialog)
    assert (tmp_path / "case-q01.md").read_text(encoding="utf-8").startswith("# Case q01: ")
