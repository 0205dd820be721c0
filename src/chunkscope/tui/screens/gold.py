"""``g``: the gold integrity list (the same findings as ``chunkscope gold check``), with a jump to each question."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from chunkscope.analysis.gold import Finding, GoldCheck
from chunkscope.tui.actions import Place, bindings_for


def finding_line(finding: Finding) -> str:
    """``ambiguous · q12 · item 1 · the quote occurs 3 times …``: one row of the list."""
    item = "" if finding.item is None else f" · item {finding.item + 1}"
    return f"{finding.kind} · {finding.question}{item} · {finding.detail}"


def check_summary(check: GoldCheck) -> str:
    """The line above the list: what was checked and how many findings."""
    found = len(check.findings)
    what = "no problem found" if not found else f"{found} finding{'s' if found != 1 else ''}"
    return f"{check.questions} questions · {check.spans} gold spans checked · {what}"


class GoldScreen(ModalScreen[str | None]):
    """Every gold finding of the loaded question set; ``enter`` jumps to the finding's question."""

    DEFAULT_CSS = """
    GoldScreen { align: center middle; }
    GoldScreen #gold-box { width: 92%; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    GoldScreen #gold-summary { height: auto; margin-bottom: 1; }
    GoldScreen #gold-findings { height: 1fr; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.GOLD)

    def __init__(self, check: GoldCheck) -> None:
        super().__init__()
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(id="gold-box") as box:
            box.border_title = "Gold integrity"
            yield Static(check_summary(self.check), id="gold-summary", markup=False)
            options = [Option(finding_line(f), id=str(i)) for i, f in enumerate(self.check.findings)]
            yield OptionList(*options, id="gold-findings")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        """Close and go to the finding's question."""
        message.stop()
        self.dismiss(self.check.findings[message.option_index].question)

    def action_close(self) -> None:
        """Close without moving."""
        self.dismiss(None)
