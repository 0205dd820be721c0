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
from chunkscope.tui.state.config_steps import BUDGET_TOKENIZERS, OVERFLOWS, StrategyKind, missing_extra, overflow_named

CHARACTERS = "chars"
"""The budget unit choice of a budget in characters (the others are counting tokenizers' names)."""


def budget_unit_choices() -> list[tuple[str, str]]:
    """The form's budget units: characters, then the tokens of each counting tokenizer."""
    return [("characters", CHARACTERS), *((f"{name} tokens", name) for name in BUDGET_TOKENIZERS)]


def strategy_names(kind: StrategyKind) -> Text:
    """The registered strategies of ``kind``, comma-separated; those whose optional extra is missing are dimmed
    and marked (typing one shows the line that installs it)."""
    text = Text()
    for position, name in enumerate(registry(kind).names):
        if position:
            text.append(", ")
        missing = missing_extra(kind, name)
        if missing is None:
            text.append(name)
        else:
            text.append(f"{name} (needs [{missing.extra}])", style="dim")
    return text


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
            units = "characters" if budget_tokenizer is None else "tokens"
            raise ValueError(f"budget must be a whole number of {units} or empty, got {budget!r}") from None
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
                yield Label("unit")
                yield Select(
                    budget_unit_choices(),
                    value=c.budget_tokenizer or CHARACTERS,
                    allow_blank=False,
                    id="config-form-budget-unit",
                )
                yield Label("overflow")
                yield Select(
                    [(name, name) for name in OVERFLOWS], value=c.overflow, allow_blank=False, id="config-form-overflow"
                )
            yield Static(
                Text.assemble(
                    "chunkers: ",
                    strategy_names("chunker"),
                    " · retrievers: ",
                    strategy_names("retriever"),
                    "\ne.g. fixed:size=400,overlap=80 · fixed:size=256,unit=tokens · paragraph · bm25:k1=1.2",
                ),
                id="config-form-hint",
            )
            yield Static("", id="config-form-message")
            with Horizontal(id="config-form-buttons"):
                yield Button("Apply", variant="primary", id="config-form-apply")
                yield Button("Cancel", id="config-form-cancel")

    def on_mount(self) -> None:
        self.query_one("#config-form-chunker", Input).focus()

    def _budget_tokenizer(self) -> str | None:
        unit = str(self.query_one("#config-form-budget-unit", Select).value)
        return None if unit == CHARACTERS else unit

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
        kinds: dict[str, StrategyKind] = {"config-form-chunker": "chunker", "config-form-retriever": "retriever"}
        kind = kinds.get(message.input.id or "")
        if kind is None:
            return
        spec = message.value.strip()
        missing = missing_extra(kind, spec.split(":", 1)[0]) if spec else None
        if missing is not None:
            self._show_message(str(missing))
            return
        try:
            (parse_chunker if kind == "chunker" else parse_retriever)(spec)
        except (ChunkscopeError, ValueError) as error:
            self._show_message(str(error))
        else:
            self._show_message("")

    def _apply(self) -> None:
        try:
            config = self._config()
        except (ChunkscopeError, ValueError) as error:
            self._show_message(str(error))
            return
        self.dismiss(config)

    def _config(self) -> Config:
        """The configuration the form holds; ChunkscopeError / ValueError name what is wrong."""
        chunker, retriever, top_k, budget, overflow = self._values()
        strategies: tuple[tuple[StrategyKind, str], ...] = (("chunker", chunker), ("retriever", retriever))
        for kind, spec in strategies:
            missing = missing_extra(kind, spec.split(":", 1)[0]) if spec else None
            if missing is not None:
                raise missing
        return parse_form(chunker, retriever, top_k, budget, overflow, budget_tokenizer=self._budget_tokenizer())

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
