"""``#``: the tags and computed groups the loaded questions carry; choosing one restricts the question list."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from chunkscope.tui.actions import Place, bindings_for

ALL_QUESTIONS = ""
"""What the picker returns for its first line: no group filter."""


def group_line(tag: str, count: int, questions: int) -> str:
    """``#en · 25 of 40 questions``: one line of the picker."""
    return f"#{tag} · {count} of {questions} question{'s' if questions != 1 else ''}"


class GroupPicker(ModalScreen[str | None]):
    """Every tag present with its question count; ``enter`` returns the tag (ALL_QUESTIONS for the first
    line), ``esc`` None (the filter stays)."""

    DEFAULT_CSS = """
    GroupPicker { align: center middle; }
    GroupPicker #groups-box { width: 60; max-width: 92%; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1; }
    GroupPicker #groups-note { height: auto; margin-bottom: 1; }
    GroupPicker #groups-list { height: auto; max-height: 20; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.GROUPS)

    def __init__(self, tags: Mapping[str, int], questions: int, current: str | None) -> None:
        super().__init__()
        self.tags = dict(tags)
        self.questions = questions
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="groups-box") as box:
            box.border_title = "Question groups"
            note = (
                "A question counts in each of its tags. Enter lists one group; s then shows its metrics."
                if self.tags
                else "The questions carry no tags (chunkscope inspect --groups auto adds computed groups)."
            )
            yield Static(note, id="groups-note", markup=False)
            options = [Option(f"all questions · {self.questions}")]
            options += [Option(group_line(tag, count, self.questions)) for tag, count in self.tags.items()]
            yield OptionList(*options, id="groups-list")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        names = [ALL_QUESTIONS, *self.tags]
        options.highlighted = names.index(self.current) if self.current in names else 0
        options.focus()

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        """Close, returning the chosen group."""
        message.stop()
        index = message.option_index
        self.dismiss(ALL_QUESTIONS if index == 0 else list(self.tags)[index - 1])
