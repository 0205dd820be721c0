"""``e``: a small form to edit a whole configuration, validated as you type (messages from SpecError)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from chunkscope.chunkers import parse_chunker
from chunkscope.errors import ChunkscopeError
from chunkscope.pipeline.config import make_config
from chunkscope.results import Config
from chunkscope.retrievers import parse_retriever
from chunkscope.spec.registry import registry
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.state.config_steps import OVERFLOWS, overflow_named


def parse_form(
    chunker: str, retriever: str, top_k: str, budget: str, overflow: str, budget_tokenizer: str | None = None
) -> Config:
    """A canonical Config from the form's texts; ChunkscopeError / ValueError name what is wrong.

    ``budget_tokenizer`` keeps a budget in tokens (the form edits the number, not the unit).
    """
    try:
        k = int(top_k)
    except ValueError:
        raise ValueError(f"top-k must be a whole number, got {top_k!r}") from None
    if budget.strip().lower() in ("", "none"):
        limit = None
    else:
        try:
            limit = int(budget)
        except ValueError:
            raise ValueError(f"budget must be a whole number of characters or empty, got {budget!r}") from None
    unit = "chars" if budget_tokenizer is None else "tokens"
    return make_config(
        chunker, retriever, k, limit, overflow_named(overflow), budget_unit=unit, budget_tokenizer=budget_tokenizer
    )


class ConfigForm(ModalScreen[Config | None]):
    """Edit chunker and retriever specs, top-k, budget and overflow; Enter applies, Escape cancels."""

    CSS_PATH = "config_form.tcss"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.FORM)

    def __init__(self, config: Config, title: str = "Configuration") -> None:
        super().__init__()
        self.config = config
        self.title_text = title

    def compose(self) -> ComposeResult:
        c = self.config
        with Vertical(id="config-form-box") as box:
            box.border_title = self.title_text
            with Grid(id="config-form-grid"):
                yield Label("chunker")
                yield Input(c.chunker, id="config-form-chunker")
                yield Label("retriever")
                yield Input(c.retriever, id="config-form-retriever")
                yield Label("top-k")
                yield Input(str(c.top_k), id="config-form-top-k", type="integer")
                yield Label("budget")
                yield Input(
                    "" if c.budget is None else str(c.budget),
                    placeholder="none",
                    id="config-form-budget",
                    type="integer",
                )
                yield Label("overflow")
                yield Select(
                    [(name, name) for name in OVERFLOWS], value=c.overflow, allow_blank=False, id="config-form-overflow"
                )
            chunkers, retrievers = ", ".join(registry("chunker").names), ", ".join(registry("retriever").names)
            yield Static(
                f"chunkers: {chunkers} · retrievers: {retrievers}\n"
                "e.g. fixed:size=400,overlap=80 · paragraph · bm25:k1=1.2",
                id="config-form-hint",
            )
            yield Static("", id="config-form-message")
            with Horizontal(id="config-form-buttons"):
                yield Button("Apply", variant="primary", id="config-form-apply")
                yield Button("Cancel", id="config-form-cancel")

    def on_mount(self) -> None:
        self.query_one("#config-form-chunker", Input).focus()

    def _values(self) -> tuple[str, str, str, str, str]:
        def text(name: str) -> str:
            return self.query_one(f"#config-form-{name}", Input).value.strip()

        overflow = self.query_one("#config-form-overflow", Select).value
        return text("chunker"), text("retriever"), text("top-k"), text("budget"), str(overflow)

    def _show_message(self, message: str) -> None:
        widget = self.query_one("#config-form-message", Static)
        widget.update(Text(message))  # plain text: an install hint names chunkscope[dense], which is not markup
        widget.set_class(bool(message), "-error")

    def on_input_changed(self, message: Input.Changed) -> None:
        """Check the spec being typed at once, so the message appears while typing."""
        parse = {"config-form-chunker": parse_chunker, "config-form-retriever": parse_retriever}.get(
            message.input.id or ""
        )
        if parse is None:
            return
        try:
            parse(message.value.strip())
        except (ChunkscopeError, ValueError) as error:
            self._show_message(str(error))
        else:
            self._show_message("")

    def _apply(self) -> None:
        try:
            config = parse_form(*self._values(), budget_tokenizer=self.config.budget_tokenizer)
        except (ChunkscopeError, ValueError) as error:
            self._show_message(str(error))
            return
        self.dismiss(config)

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.stop()
        self._apply()

    def on_button_pressed(self, message: Button.Pressed) -> None:
        if message.button.id == "config-form-apply":
            self._apply()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        """Close without a change."""
        self.dismiss(None)
