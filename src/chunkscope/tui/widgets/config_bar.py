"""The header line(s): dataset, the configuration on screen (always visible) and its key metrics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.widgets import Static

from chunkscope.metrics.registry import REGISTRY
from chunkscope.reports.format import summary_cell
from chunkscope.results import Config, ConfigResult, Summary


@dataclass(frozen=True, slots=True)
class SideLine:
    """What one header line shows for a side (A or B)."""

    name: str
    """``""`` in the single view, ``A`` / ``B`` in the split view."""
    requested: Config
    """The configuration asked for."""
    shown: ConfigResult | None
    """The result on screen (may be the previous configuration's while the requested one is computed)."""
    pending: bool = False
    """The requested configuration is being computed."""
    editing: bool = False
    """The configuration keys change this side."""


def delivery_text(config: Config) -> str:
    """``top-5 · budget 1200 (stop)`` or ``top-5 · no budget``."""
    units = "" if config.budget_tokenizer is None else f" {config.budget_units}"
    budget = "no budget" if config.budget is None else f"budget {config.budget}{units} ({config.overflow})"
    return f"top-{config.top_k} · {budget}"


HEADER_METRICS = ("recall_at_5", "lost", "complete", "ndcg_at_10", "recall_at_20", "index_chunks")
"""The registered metrics the header shows, in order (labels and formatting come from the registry)."""


def metrics_text(summary: Summary) -> Text:
    """``R@5 0.500 · lost 17 · complete 20/40 · …``: the header metrics.

    A nonzero count that should be low (losses) is bold.
    """
    text = Text()
    for position, name in enumerate(HEADER_METRICS):
        metric = REGISTRY[name]
        if position:
            text.append(" · ")
        cell = summary_cell(metric, summary, digits=3)
        if metric.unit == "chunks":
            text.append(f"{cell} {metric.label}")
        else:
            text.append(f"{metric.label} {cell}", style="bold" if metric.better == "lower" and summary[name] else "")
    return text


def side_text(line: SideLine) -> Text:
    """One header line: configuration, delivery, metrics of the shown result and a pending mark."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if line.name:
        text.append(f" {line.name} ", style="reverse bold" if line.editing else "bold")
        text.append(" ")
    shown = line.shown
    config = shown.config if shown is not None else line.requested
    text.append(config.label, style="bold")
    text.append(f" · {delivery_text(config)}")
    if shown is not None:
        text.append("   ")
        text.append_text(metrics_text(shown.summary))
    if line.pending:
        text.append(f"   ⟳ {line.requested.label} · {delivery_text(line.requested)}", style="italic")
    return text


class ConfigBar(Static):
    """Dataset and configuration header; one line per side."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def show(self, dataset: str, questions: int, lines: list[SideLine]) -> None:
        """Show the dataset name and one line per side."""
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append(" chunkscope ", style="reverse bold")
        head.append(f" {dataset} · {questions} questions")
        body = [side_text(line) for line in lines]
        if len(body) == 1:
            self.update(Text.assemble(head, "  │  ", body[0], no_wrap=True, overflow="ellipsis"))
        else:
            self.update(Text("\n", no_wrap=True).join([head, *body]))
