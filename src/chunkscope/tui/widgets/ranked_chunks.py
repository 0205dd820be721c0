"""RankedChunksView: a question's ranked hits, what was delivered and why, gold inside each chunk.

Line API widget: the budget gauge stays on the top rows, the hits scroll below it.
Each hit shows rank, score, document and offsets, length, delivery status (with the
reason when not delivered), duplicate characters, fused-ranking parts, the parent
delivered for a child, and a few lines of its text around the gold (``⟦ ⟧``, ``✂``
where the chunk edge cuts it), query matches underlined and re-sent characters
dimmed. A rule marks where delivery stopped (top-k or budget).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from chunkscope.analysis.marks import TextMarks, chunk_marks
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.pipeline.cost import budget_measure, shown_tokens
from chunkscope.results import Config, QuestionResult, RankedChunk
from chunkscope.tui.cells import pad, truncate, visible, wrap_text
from chunkscope.tui.widgets._marked_text import (
    DUPLICATE,
    GOLD,
    GOLD_PARTIAL,
    QUERY,
    UNSENT,
    MarkedText,
    extra_cells,
    marker_glyphs,
    style_codes,
)

INDENT = 5
"""Cells before a hit's detail lines (the cursor column included); text lines have one more for "…"."""

StatusKind = str
"""``delivered``, ``truncated``, ``already-sent``, ``budget-stop``, ``budget-skip``, ``beyond-top-k``."""

_STATUS_GLYPH = {
    "delivered": "●",
    "truncated": "◐",
    "already-sent": "◌",
    "budget-stop": "○",
    "budget-skip": "○",
    "beyond-top-k": "·",
}


@dataclass(frozen=True, slots=True)
class HitStatus:
    """Whether a ranked hit was delivered, and why not."""

    kind: StatusKind
    """One of the :data:`StatusKind` values."""
    text: str
    """Short explanation, e.g. ``not delivered: budget stop``."""
    duplicate_chars: int = 0
    """Body characters an earlier delivered chunk already sent."""

    @property
    def glyph(self) -> str:
        """``●`` delivered, ``◐`` truncated, ``◌`` its unit already sent, ``○`` budget, ``·`` beyond top-k."""
        return _STATUS_GLYPH[self.kind]

    @property
    def delivered(self) -> bool:
        """Some of this hit's text reached the context."""
        return self.kind in ("delivered", "truncated")


@dataclass(frozen=True, slots=True)
class StopRule:
    """A rule drawn between hits where delivery stopped."""

    before_rank: int
    """The rule is drawn just above this rank (one past the last rank for the end)."""
    text: str
    """What stopped delivery, e.g. ``budget stop: #3 (400 chars) does not fit 1200 − 800``."""


def hit_statuses(result: QuestionResult, config: Config) -> dict[int, HitStatus]:
    """Delivery status of each ranked hit, by rank."""
    delivered = {d.rank: d for d in result.delivered}
    sent_by: dict[str, int] = {d.chunk.id: d.rank for d in result.delivered}
    skipped = set(result.skipped_ranks)
    stop_rank = result.skipped_ranks[0] if result.delivery_stop == "budget" and config.overflow != "skip" else None
    statuses: dict[int, HitStatus] = {}
    for hit in result.ranked:
        unit = hit.delivered_unit
        if hit.rank in delivered:
            item = delivered[hit.rank]
            duplicate = f" · {item.duplicate_chars} chars re-sent" if item.duplicate_chars else ""
            if item.truncated:
                text = f"delivered, truncated to {item.end - item.start} of {unit.length} chars{duplicate}"
                statuses[hit.rank] = HitStatus("truncated", text, item.duplicate_chars)
            else:
                statuses[hit.rank] = HitStatus("delivered", f"delivered{duplicate}", item.duplicate_chars)
        elif hit.rank > config.top_k:
            statuses[hit.rank] = HitStatus("beyond-top-k", f"not delivered: beyond top-{config.top_k}")
        elif hit.rank in skipped:
            measure = budget_measure(config)
            used = sum(measure.delivered(d) for d in result.delivered if d.rank < hit.rank)
            if stop_rank is not None and hit.rank > stop_rank:
                statuses[hit.rank] = HitStatus("budget-stop", "not delivered: after the budget stop")
            elif config.overflow == "skip":
                left = (config.budget or 0) - used
                text = f"skipped: {measure.cost(unit)} {config.budget_units} > {left} left"
                statuses[hit.rank] = HitStatus("budget-skip", text)
            else:
                statuses[hit.rank] = HitStatus("budget-stop", "not delivered: budget stop")
        elif unit.id in sent_by:
            what = "parent" if hit.delivers is not None else "chunk"
            statuses[hit.rank] = HitStatus("already-sent", f"{what} already sent by #{sent_by[unit.id]}")
        else:
            statuses[hit.rank] = HitStatus("beyond-top-k", "not delivered")
    return statuses


def stop_rules(result: QuestionResult, config: Config) -> list[StopRule]:
    """Rules to draw where delivery stopped: the budget stop and the top-k cut-off."""
    ranked = result.ranked
    by_rank = {hit.rank: hit for hit in ranked}
    rules: list[StopRule] = []
    if result.delivery_stop == "budget" and config.budget is not None:
        truncated = [d for d in result.delivered if d.truncated]
        if truncated:
            item = truncated[-1]
            text = f"budget full: #{item.rank} truncated to {item.end - item.start} of {item.chunk.length} chars"
            rules.append(StopRule(item.rank + 1, text))
        elif config.overflow != "skip" and result.skipped_ranks:
            first = result.skipped_ranks[0]
            measure = budget_measure(config)
            used = sum(measure.delivered(d) for d in result.delivered if d.rank < first)
            cost = measure.cost(by_rank[first].delivered_unit) if first in by_rank else 0
            text = f"budget stop: #{first} ({cost} {config.budget_units}) does not fit {config.budget} − {used}"
            rules.append(StopRule(first, text))
    if len(ranked) > config.top_k:
        rules.append(StopRule(config.top_k + 1, f"top-{config.top_k}: ranks below are not delivered"))
    elif ranked:
        rules.append(StopRule(len(ranked) + 1, f"ranking ends at #{len(ranked)} (top-k {config.top_k})"))
    return rules


@dataclass(frozen=True, slots=True)
class _Line:
    """One content row: its strip (without the cursor column) and the hit it belongs to."""

    strip: Strip
    hit: int | None


class RankedChunksView(ScrollView, can_focus=True):
    """The ranked hits of one question under one configuration."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "down",
            "next_hit",
            "Next hit",
            show=False,
            id="ranked.next-hit",
            tooltip="Move to the next ranked chunk; the document view follows",
        ),
        Binding(
            "up",
            "previous_hit",
            "Previous hit",
            show=False,
            id="ranked.previous-hit",
            tooltip="Move to the previous ranked chunk; the document view follows",
        ),
        Binding("home", "first_hit", "First hit", show=False, id="ranked.first-hit", tooltip="Move to rank 1"),
        Binding(
            "end",
            "last_hit",
            "Last hit",
            show=False,
            id="ranked.last-hit",
            tooltip="Move to the last ranked chunk shown",
        ),
        Binding(
            "pagedown",
            "page_down",
            "Page down",
            show=False,
            id="ranked.page-down",
            tooltip="Scroll the ranked chunks down a page",
        ),
        Binding(
            "pageup",
            "page_up",
            "Page up",
            show=False,
            id="ranked.page-up",
            tooltip="Scroll the ranked chunks up a page",
        ),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "ranked-chunks--rank",
        "ranked-chunks--score",
        "ranked-chunks--location",
        "ranked-chunks--delivered",
        "ranked-chunks--not-delivered",
        "ranked-chunks--detail",
        "ranked-chunks--text",
        "ranked-chunks--gold",
        "ranked-chunks--gold-cut",
        "ranked-chunks--cut",
        "ranked-chunks--query",
        "ranked-chunks--duplicate",
        "ranked-chunks--unsent",
        "ranked-chunks--rule",
        "ranked-chunks--gauge-used",
        "ranked-chunks--gauge-free",
        "ranked-chunks--header",
        "ranked-chunks--cursor",
    }

    lines_per_hit: reactive[int] = reactive(3)
    """Lines of chunk text shown per hit (one more when the chunk holds gold)."""

    class ChunkHighlighted(Message):
        """The user moved to a hit."""

        def __init__(self, view: RankedChunksView, chunk: Chunk, rank: int) -> None:
            super().__init__()
            self.view = view
            self.chunk = chunk
            """The ranked chunk (the matched unit, a child in parent-child chunking)."""
            self.rank = rank
            """Its 1-based rank."""

        @property
        def control(self) -> RankedChunksView:
            """The view that posted the message."""
            return self.view

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None, disabled: bool = False
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._question: Question | None = None
        self._result: QuestionResult | None = None
        self._config: Config | None = None
        self._corpus: Corpus | None = None
        self._hits: tuple[RankedChunk, ...] = ()
        self._statuses: dict[int, HitStatus] = {}
        self._rules: list[StopRule] = []
        self._header: list[Strip] = []
        self._lines: list[_Line] = []
        self._hit_lines: dict[int, tuple[int, int]] = {}
        self._next_hit = 0
        self._serial = 0
        self._built_for: Hashable = None
        self._blocks: LRUCache[Hashable, list[Strip]] = LRUCache(256)
        self._styles_dirty = True
        self._style_fingerprint: object = None
        self._style_generation = 0
        self._highlighted = 0
        self._style_cache: dict[object, Style] = {}
        self._base_style = Style()

    # ----------------------------------------------------------------- public API

    @property
    def highlighted(self) -> RankedChunk | None:
        """The hit under the cursor."""
        return self._hits[self._highlighted] if self._hits else None

    @property
    def statuses(self) -> dict[int, HitStatus]:
        """Delivery status of each shown rank."""
        return self._statuses

    def show(self, question: Question, result: QuestionResult, config: Config, corpus: Corpus) -> None:
        """Display ``result``'s ranking for ``question`` under ``config`` (texts from ``corpus``)."""
        self._question, self._result, self._config, self._corpus = question, result, config, corpus
        self._hits = result.ranked[: config.depth]
        self._statuses = hit_statuses(result, config)
        self._rules = stop_rules(result, config)
        self._highlighted = 0
        self._built_for = None
        self._serial += 1
        self.border_title = f"Ranked chunks · {question.id} “{truncate(question.query, 60)}”"
        self._rebuild()
        self.scroll_to(y=0, animate=False, immediate=True)

    def clear(self) -> None:
        """Show nothing (e.g. when no question is selected)."""
        self._question = self._result = self._config = self._corpus = None
        self._hits = ()
        self._statuses = {}
        self._rules = []
        self._highlighted = 0
        self._built_for = None
        self._serial += 1
        self.border_title = "Ranked chunks"
        self._rebuild()

    def highlight_rank(self, rank: int, *, post: bool = False) -> None:
        """Move the cursor to ``rank`` (posting :class:`ChunkHighlighted` when ``post``)."""
        for index, hit in enumerate(self._hits):
            if hit.rank == rank:
                self._move_to(index, post=post)
                return

    def lines_text(self) -> list[str]:
        """Every row as plain text (header then hits), for tests and export."""
        self._rebuild(complete=True)
        rows = [strip.text for strip in self._header]
        return rows + [self._cursor(i).text + line.strip.text for i, line in enumerate(self._lines)]

    # ----------------------------------------------------------------- actions

    def action_next_hit(self) -> None:
        self._move_to(self._highlighted + 1, post=True)

    def action_previous_hit(self) -> None:
        self._move_to(self._highlighted - 1, post=True)

    def action_first_hit(self) -> None:
        self._move_to(0, post=True)

    def action_last_hit(self) -> None:
        self._move_to(len(self._hits) - 1, post=True)

    def _move_to(self, index: int, *, post: bool) -> None:
        if not self._hits:
            return
        index = max(0, min(index, len(self._hits) - 1))
        self._highlighted = index
        self._scroll_to_hit(index)
        self.refresh()
        if post:
            hit = self._hits[index]
            self.post_message(self.ChunkHighlighted(self, hit.chunk, hit.rank))

    def _scroll_to_hit(self, index: int) -> None:
        if index not in self._hit_lines:
            self._rebuild(complete=True)
        if index not in self._hit_lines:
            return
        first, last = self._hit_lines[index]
        visible_rows = max(1, self.scrollable_content_region.height - len(self._header))
        top = int(self.scroll_offset.y)
        if index == 0:
            top = 0
        elif first < top:
            top = first - 1
        elif last > top + visible_rows:
            top = min(first, last - visible_rows)
        self.scroll_to(y=max(0, top), animate=False, immediate=True)

    async def _on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        row = offset.y - len(self._header)
        if row < 0:
            return
        line = int(self.scroll_offset.y) + row
        if 0 <= line < len(self._lines) and self._lines[line].hit is not None:
            self.focus()
            self._move_to(self._lines[line].hit or 0, post=True)

    def watch_lines_per_hit(self) -> None:
        self._built_for = None
        self._blocks.clear()
        self._rebuild()

    # ----------------------------------------------------------------- styles

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles_dirty = True

    def _check_styles(self) -> None:
        if not self._styles_dirty:
            return
        self._styles_dirty = False
        self._base_style = self.rich_style
        fingerprint = (
            self._base_style,
            tuple(self.get_component_rich_style(name) for name in sorted(self.COMPONENT_CLASSES)),
        )
        if fingerprint != self._style_fingerprint:
            self._style_fingerprint = fingerprint
            self._style_generation += 1
            self._blocks.clear()
            self._built_for = None
            self._style_cache.clear()

    def _component(self, name: str) -> Style:
        """Base style plus the component's colours (when set) and text style."""
        key = ("component", name)
        cache = self._style_cache
        style = cache.get(key)
        if style is None:
            styles = self.get_component_styles(f"ranked-chunks--{name}")
            full = self.get_component_rich_style(f"ranked-chunks--{name}")
            style = (
                self._base_style
                + Style(
                    color=full.color if styles.has_rule("color") else None,
                    bgcolor=full.bgcolor if styles.has_rule("background") else None,
                )
                + styles.text_style
            )
            cache[key] = style
        return style

    def _code_style(self, code: int) -> Style:
        cache = self._style_cache
        style = cache.get(code)
        if style is None:
            style = self._component("text")
            if code & UNSENT:
                style += self._layer("unsent")
            if code & DUPLICATE:
                style += self._layer("duplicate")
            if code & (GOLD | GOLD_PARTIAL):
                style += self._layer("gold" if code & GOLD else "gold-cut")
            if code & QUERY:
                style += self._layer("query", background=False)
            cache[code] = style
        return style

    def _layer(self, name: str, background: bool = True) -> Style:
        styles = self.get_component_styles(f"ranked-chunks--{name}")
        full = self.get_component_rich_style(f"ranked-chunks--{name}")
        return (
            Style(
                color=full.color if styles.has_rule("color") else None,
                bgcolor=full.bgcolor if background and styles.has_rule("background") else None,
            )
            + styles.text_style
        )

    # ----------------------------------------------------------------- layout

    def _width(self) -> int:
        return self.scrollable_content_region.width

    def on_resize(self) -> None:
        self._rebuild()

    def _rebuild(self, complete: bool = False) -> None:
        """Lay out header and hit rows for the current width (kept until something changes).

        Only the hits of the first screenful are built at once; the rest follow after
        the next refresh (or at once with ``complete``), so showing a question costs
        about one screen of work before it is on screen.
        """
        self._check_styles()
        width = self._width()
        key = (width, self._serial, self._style_generation, self.lines_per_hit)
        if key != self._built_for:
            self._built_for = key
            self._lines, self._hit_lines, self._next_hit = [], {}, 0
            if self._result is None or self._config is None or width <= 0:
                self._header = []
                self.virtual_size = Size(width, 0)
                self.refresh()
                return
            self._header = self._header_strips(width)
            if not self._hits:
                self._lines.append(_Line(self._rule_strip("no chunk scored above 0 for this query", width - 1), None))
            self._extend(None if complete else self.scrollable_content_region.height + 4)
            if self._next_hit < len(self._hits):
                self.call_after_refresh(self._finish, key)
        elif complete:
            self._extend(None)

    def _finish(self, key: Hashable) -> None:
        if key == self._built_for:
            self._extend(None)

    def _extend(self, rows: int | None) -> None:
        """Build hit rows until ``rows`` rows exist (``None``: every hit), then the closing rule."""
        if self._next_hit >= len(self._hits) and self._hits:
            return
        width = self._width()
        lines = self._lines
        rules = {rule.before_rank: rule for rule in self._rules}
        while self._next_hit < len(self._hits) and (rows is None or len(lines) < rows):
            index = self._next_hit
            hit = self._hits[index]
            if hit.rank in rules:
                lines.append(_Line(self._rule_strip(rules[hit.rank].text, width - 1), None))
            first = len(lines)
            block_key = (self._serial, hit.rank, width, self._style_generation, self.lines_per_hit)
            block = self._blocks.get(block_key)
            if block is None:
                block = self._hit_strips(hit, width - 1)
                self._blocks.set(block_key, block)
            lines.extend(_Line(strip, index) for strip in block)
            self._hit_lines[index] = (first, len(lines))
            self._next_hit += 1
        if self._next_hit >= len(self._hits) and self._hits:
            end_rank = self._hits[-1].rank + 1
            if end_rank in rules:
                lines.append(_Line(self._rule_strip(rules[end_rank].text, width - 1), None))
        self.virtual_size = Size(width, len(lines) + len(self._header))
        self.refresh()

    def _header_strips(self, width: int) -> list[Strip]:
        result, config = self._result, self._config
        assert result is not None and config is not None
        covered = sum(result.covered)
        evidence = f"evidence {covered} of {len(result.covered)} delivered"
        evidence_glyph = "✓" if result.complete else ("◐" if covered else "✗")
        segments: list[Segment] = []
        if config.budget:
            sent = sum(budget_measure(config).delivered(d) for d in result.delivered)
            gauge_width = max(8, min(30, width // 4))
            filled = min(1.0, sent / config.budget) * gauge_width
            full_cells = int(filled)
            eighths = int((filled - full_cells) * 8)
            bar = "█" * full_cells + ("▏▎▍▌▋▊▉"[eighths - 1] if eighths else "")
            segments += [
                Segment("budget ▕", self._component("header")),
                Segment(bar, self._component("gauge-used")),
                Segment(" " * (gauge_width - len(bar)), self._component("gauge-free")),
                Segment(f"▏ {sent} / {config.budget} {config.budget_units}", self._component("header")),
            ]
        else:
            tokens = shown_tokens(config)
            counted = "" if tokens is None else f" · {tokens.sent(result)} {tokens.tokenizer} tokens"
            segments.append(Segment(f"sent {result.sent_chars} chars{counted} (no budget)", self._component("header")))
        evidence_segment = Segment(f"{evidence_glyph} {evidence}", self._component("header"))
        first = result.first_correct_rank
        found = f"first correct rank #{first} ({result.bucket})" if first else "evidence not in the ranking"
        details = [found]
        if result.cuts:
            details.append(f"✂ gold cut by chunking in {len(result.cuts)} span{'s' if len(result.cuts) > 1 else ''}")
        if result.lost:
            details.append("lost: no chunk holds the evidence")
        if result.duplicate_chars:
            details.append(f"{result.duplicate_chars} chars re-sent")
        line2 = [Segment(" · ".join(details), self._component("detail"))]
        if Strip(segments).cell_length + 2 + cell_len(evidence_segment.text) <= width:
            lines = [[*segments, Segment("  ", self._component("header")), evidence_segment], line2]
        else:
            lines = [segments, [evidence_segment], line2]
        return [self._fit(line, width) for line in lines]

    def _fit(self, segments: list[Segment], width: int) -> Strip:
        return Strip(segments).crop_extend(0, width, self._base_style)

    def _rule_strip(self, text: str, width: int) -> Strip:
        label = f" {truncate(text, max(1, width - 8))} "
        left = 3
        right = max(0, width - left - len(label) - 1)
        style = self._component("rule")
        return Strip([Segment("─" * left + label + "─" * right, style)]).crop_extend(0, width, self._base_style)

    def _hit_strips(self, hit: RankedChunk, width: int) -> list[Strip]:
        """Rows of one hit: header, details (gold, parts, parent, prefix) and a window of its text."""
        assert self._result is not None and self._corpus is not None
        status = self._statuses[hit.rank]
        chunk = hit.chunk
        document = self._corpus.by_id[chunk.doc]
        marks = chunk_marks(document, chunk, self._question, self._result)
        status_style = self._component("delivered" if status.delivered else "not-delivered")
        score = f"{hit.score:.4g}"
        location = f"{chunk.doc} {chunk.start}–{chunk.end} · {chunk.length} ch"
        tokens = shown_tokens(self._config) if self._config is not None else None
        if tokens is not None:
            location += f" · {tokens.cost(chunk)} tok"
        head = [
            Segment(f"#{hit.rank:<3}", self._component("rank")),
            Segment(f"{score:>7}  ", self._component("score")),
        ]
        status_text = f"  {status.glyph} {status.text}"
        lead = 13  # "#12 " + score column
        room = max(12, width - lead - min(cell_len(status_text), width // 2))
        head += [Segment(pad(truncate(location, room), room), self._component("location"))]
        head += [Segment(truncate(status_text, max(0, width - lead - room)), status_style)]
        strips = [Strip(head).crop_extend(0, width, self._base_style)]
        for detail in self._details(hit, marks):
            strips.append(
                Strip([Segment(" " * (INDENT - 1) + detail, self._component("detail"))]).crop_extend(
                    0, width, self._base_style
                )
            )
        strips += self._text_window(chunk, marks, width)
        return strips

    def _details(self, hit: RankedChunk, marks: TextMarks) -> list[str]:
        """Lines under a hit's header: gold it holds, fused parts, the parent it delivers, its prefix."""
        details = []
        gold = []
        for mark in marks.gold:
            item = f"item {mark.item + 1}"
            gold.append(
                f"⟦gold⟧ {item} whole"
                if mark.whole
                else f"✂ {item} partial ({mark.end - mark.start} of {mark.span.length} chars)"
            )
        if gold:
            details.append(" · ".join(gold))
        if hit.parts:
            details.append(
                "fused: "
                + " · ".join(f"{name} #{rank}" if rank is not None else f"{name} –" for name, rank in hit.parts.items())
            )
        if hit.delivers is not None and hit.delivers.id != hit.chunk.id:
            parent = hit.delivers
            held = ""
            if self._question is not None:
                spans = [s for s in self._question.gold_spans if parent.contains(s)]
                held = " ⟦gold⟧ whole in parent" if spans else ""
            details.append(f"→ delivers parent {parent.id} {parent.start}–{parent.end} · {parent.length} ch{held}")
        if hit.chunk.prefix:
            details.append("prefix: " + visible(hit.chunk.prefix).replace("\n", " ⏎ ").replace("\r", ""))
        return details

    def _text_window(self, chunk: Chunk, marks: TextMarks, width: int) -> list[Strip]:
        """A few wrapped lines of the chunk around its gold (else its first query match), with … elisions."""
        glyphs = marker_glyphs(marks, boundaries=False, ranks=False)
        marked = MarkedText(
            chunk.start,
            visible(chunk.text),
            style_codes(marks, chunk.start, chunk.end, shading=False),
            glyphs,
            sorted(glyphs),
        )
        text_width = max(4, width - INDENT - 2)
        wrapped = wrap_text(chunk.text, text_width, extra_cells(glyphs, chunk.start, chunk.end))
        shown = [
            i
            for i in range(wrapped.line_count)
            if wrapped.ends[i] > wrapped.starts[i]
            or any(chunk.start + wrapped.owned(i)[0] <= o < chunk.start + wrapped.owned(i)[1] for o in glyphs)
        ]
        if not shown:
            return []
        if marks.gold:
            focus = marks.gold[0].start
        elif marks.query_matches:
            focus = marks.query_matches[0][0]
        else:
            focus = chunk.start
        focus_line = wrapped.line_of(focus - chunk.start)
        count = self.lines_per_hit + (1 if marks.gold else 0)
        position = next((n for n, i in enumerate(shown) if i >= focus_line), 0)
        first = max(0, min(position - (1 if position else 0), len(shown) - count))
        window = shown[first : first + count]
        strips = []
        for n, line in enumerate(window):
            start, owned_end = wrapped.owned(line)
            # the column before the text holds "…" when text above is left out
            elided_above = n == 0 and first > 0
            segments = [
                Segment(" " * (INDENT - 1), self._base_style),
                Segment("…" if elided_above else " ", self._component("detail")),
            ]
            segments += marked.segments(
                chunk.start + start,
                chunk.start + int(wrapped.ends[line]),
                chunk.start + owned_end,
                self._code_style,
                self._glyph_style,
            )
            if n == len(window) - 1 and first + count < len(shown):
                segments.append(Segment("…", self._component("detail")))
            strips.append(Strip(segments).crop_extend(0, width, self._component("text")))
        return strips

    def _glyph_style(self, kind: str) -> Style:
        return self._component(kind)

    # ----------------------------------------------------------------- rendering

    def _cursor(self, line: int) -> Strip:
        hit = self._lines[line].hit
        if hit is not None and hit == self._highlighted and self._hits:
            return Strip([Segment("▌", self._component("cursor"))], 1)
        return Strip([Segment(" ", self._base_style)], 1)

    def render_line(self, y: int) -> Strip:
        self._check_styles()
        self._rebuild()
        width = self._width()
        if y < len(self._header):
            return self._header[y]
        line = int(self.scroll_offset.y) + y - len(self._header)
        if line < 0 or line >= len(self._lines):
            return Strip.blank(width, self._base_style)
        strip = Strip.join([self._cursor(line), self._lines[line].strip])
        return strip.crop_extend(0, width, self._base_style)
