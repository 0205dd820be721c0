"""The header line(s): dataset, the configuration on screen (always visible) and its key metrics.

The header is laid out for its width in terminal cells: when a line is too long, long texts (a
chunker spec naming a production chunks file, a run file) are cut in the middle and the least
important parts go first, so the metrics of the shown result stay on screen at any width.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

from chunkscope.metrics.registry import REGISTRY
from chunkscope.reports.format import summary_cell
from chunkscope.results import Config, ConfigResult, Summary
from chunkscope.tui.cells import truncate, truncate_shared

ELIDED_MIN = 16
"""A text cut in the middle keeps at least this many cells (its start and its end stay readable)."""
LAST_RESORT_MIN = 7
"""What a text cut in the middle keeps when the line's always-shown metrics would be cut off otherwise."""
CUT_FROM = 3
"""Texts are cut in the middle only once the parts with a lower ``drop`` (decorations) are left out."""
LABEL_CUT_FROM = 6
"""The configuration's label is cut only once the dataset part and the secondary metrics are left out."""


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


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a header line."""

    text: str
    style: str = ""
    elide: bool = False
    """May be cut in the middle (down to ELIDED_MIN cells) when the line is too long."""
    cut_from: int = CUT_FROM
    """An elidable text is cut only once the parts with a lower ``drop`` than this are left out."""
    drop: int = 0
    """0: always shown; otherwise left out, lowest first, when cutting the long texts is not enough."""
    shared: int = 0
    """Leading characters an elidable text shares with the text beside it (A's label and B's): cut first, so
    what differs stays, instead of the middle."""

    def cut(self, width: int) -> str:
        """The text cut to ``width`` cells: its shared start first, else its middle."""
        return truncate_shared(self.text, width, self.shared)


def delivery_text(config: Config) -> str:
    """``top-5 · budget 1200 (stop)`` or ``top-5 · no budget``."""
    units = "" if config.budget_tokenizer is None else f" {config.budget_units}"
    budget = "no budget" if config.budget is None else f"budget {config.budget}{units} ({config.overflow})"
    return f"top-{config.top_k} · {budget}"


HEADER_METRICS = (
    ("recall_at_5", 0),
    ("lost", 0),
    ("complete", 0),
    ("ndcg_at_10", 5),
    ("recall_at_20", 4),
    ("index_chunks", 2),
)
"""The registered metrics the header shows, in order, each with its ``drop`` rank (0: always shown);
labels and formatting come from the registry."""


def metric_parts(summary: Summary) -> list[Part]:
    """``R@5 0.500 · lost 17 · complete 20/40 · …``: recall@5, lost and complete always, the others when
    there is room. A nonzero count that should be low (losses) is bold."""
    parts = [Part("   ")]
    for position, (name, drop) in enumerate(HEADER_METRICS):
        metric = REGISTRY[name]
        cell = summary_cell(metric, summary, digits=3)
        if position:
            parts.append(Part(" · ", drop=drop))
        if metric.unit == "chunks":
            parts.append(Part(f"{cell} {metric.label}", drop=drop))
        else:
            bold = metric.better == "lower" and bool(summary[name])
            parts.append(Part(f"{metric.label} {cell}", style="bold" if bold else "", drop=drop))
    return parts


def side_parts(line: SideLine, shared: int = 0) -> list[Part]:
    """One side's parts: name, configuration, delivery, metrics of the shown result and a pending mark;
    ``shared``: the leading characters the configuration's label shares with the other side's."""
    parts: list[Part] = []
    if line.name:
        parts += [Part(f" {line.name} ", style="reverse bold" if line.editing else "bold"), Part(" ")]
    shown = line.shown
    config = shown.config if shown is not None else line.requested
    parts += [
        Part(config.label, style="bold", elide=True, cut_from=LABEL_CUT_FROM, shared=shared),
        Part(f" · {delivery_text(config)}", drop=8),
    ]
    if shown is not None:
        parts += metric_parts(shown.summary)
    if line.pending:
        parts += [
            Part("   ⟳ ", style="italic"),
            Part(line.requested.label, style="italic", elide=True, drop=7, cut_from=LABEL_CUT_FROM),
            Part(f" · {delivery_text(line.requested)}", style="italic", drop=1),
        ]
    return parts


def shown_label(line: SideLine) -> str:
    """The label of the configuration a header line names (the shown result's, else the requested one)."""
    return (line.shown.config if line.shown is not None else line.requested).label


def shared_start(labels: Sequence[str]) -> int:
    """How many leading characters ``labels`` share, when they differ (0 when they are the same: nothing
    would be left to tell them apart)."""
    if len(set(labels)) < 2:
        return 0
    differing = (index for index, chars in enumerate(zip(*labels, strict=False)) if len(set(chars)) > 1)
    return next(differing, min(len(label) for label in labels))


def head_parts(dataset: str, questions: int) -> list[Part]:
    """The dataset part: the app's name, then the dataset and its size."""
    return [
        Part(" chunkscope ", style="reverse bold", drop=1),
        Part(" "),
        Part(dataset, elide=True, drop=3),
        Part(f" · {questions} questions", drop=3),
    ]


def fit(parts: Sequence[Part], width: int) -> Text:
    """``parts`` as one line of at most ``width`` cells.

    Droppable parts are left out lowest ``drop`` first; before each is dropped, the elidable texts whose
    ``cut_from`` that rank reached are cut in the middle to try to make the line fit. As a last resort
    the end is cut off.
    """
    kept = list(parts)
    for rank in [*sorted({part.drop for part in parts if part.drop}), math.inf]:
        fitted = _elided(kept, width, rank)
        if fitted is not None:
            return _text(fitted, width)
        kept = [part for part in kept if part.drop != rank]
    # Before the end (the metrics that are always shown) is cut off, the long texts give up more.
    fitted = _elided(kept, width, math.inf, LAST_RESORT_MIN)
    if fitted is None:  # not even then: the texts at their shortest, and the end cut off
        fitted = [
            replace(part, text=part.cut(LAST_RESORT_MIN))
            if part.elide and cell_len(part.text) > LAST_RESORT_MIN
            else part
            for part in kept
        ]
    return _text(fitted, width)


def _elided(parts: list[Part], width: int, rank: float, least: int = ELIDED_MIN) -> list[Part] | None:
    """``parts`` with the texts that may be cut at ``rank`` cut (longest first, to ``least`` cells at most)
    to fit ``width``; None when they cannot fit."""
    widths = [cell_len(part.text) for part in parts]
    over = sum(widths) - width
    if over <= 0:
        return parts
    room = {
        i: max(0, w - least)
        for i, (part, w) in enumerate(zip(parts, widths, strict=True))
        if part.elide and part.cut_from <= rank
    }
    if sum(room.values()) < over:
        return None
    cut = dict.fromkeys(room, 0)
    while over > 0:
        longest = max(room, key=lambda i: widths[i] - cut[i] if cut[i] < room[i] else -1)
        cut[longest] += 1
        over -= 1
    return [replace(part, text=part.cut(widths[i] - cut[i])) if cut.get(i) else part for i, part in enumerate(parts)]


def _text(parts: Sequence[Part], width: int) -> Text:
    """The parts as styled text, cut at ``width`` cells (with an ellipsis) if they still do not fit."""
    text = Text(no_wrap=True, end="")
    used = 0
    for part in parts:
        room = width - used
        if room <= 0:
            break
        piece = part.text if cell_len(part.text) <= room else truncate(part.text, room)
        text.append(piece, style=part.style)
        used += cell_len(piece)
    return text


class ConfigBar(Widget):
    """Dataset and configuration header: one line in the single view, dataset then one line per side
    in the split view; laid out for the width it gets."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._head: list[Part] = []
        self._lines: list[SideLine] = []

    def show(self, dataset: str, questions: int, lines: list[SideLine]) -> None:
        """Show the dataset name and one line per side."""
        self._head = head_parts(dataset, questions)
        self._lines = list(lines)
        self.refresh(layout=True)

    def line_parts(self) -> list[list[Part]]:
        """The header's lines as parts, before fitting them to the width."""
        if len(self._lines) == 1:
            return [[*self._head, Part("  │  ", drop=3), *side_parts(self._lines[0])]]
        shared = shared_start([shown_label(line) for line in self._lines])
        return [self._head, *(side_parts(line, shared) for line in self._lines)]

    def render(self) -> Text:
        width = max(1, self.size.width)
        return Text("\n", no_wrap=True, end="").join(fit(parts, width) for parts in self.line_parts())
