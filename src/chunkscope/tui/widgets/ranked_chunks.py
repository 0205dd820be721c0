"""RankedChunksView: a question's ranked hits, what was delivered and why, gold inside each chunk.

Line API widget: the budget gauge stays on the top rows, the hits scroll below it.
Each hit shows rank, score, document and offsets, length, delivery status (with the
reason when not delivered), duplicate characters, fused-ranking parts, the parent
delivered for a child, and a few lines of its text around the gold (``⟦ ⟧``, ``✂``
where the chunk edge cuts it), query matches underlined and re-sent characters
dimmed. A rule marks where delivery stopped (top-k or budget).

The widget only lays rows out and moves the cursor: delivery facts come from
:func:`chunkscope.pipeline.assembly.delivery_decisions`, their wording from
:mod:`.delivery_lines`, the rows from :mod:`.ranked_rows`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rich.segment import Segment
from textual import events
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip

from chunkscope.model import Chunk, Corpus, Question
from chunkscope.pipeline.assembly import delivery_decisions
from chunkscope.pipeline.cost import TokenCost, shown_tokens
from chunkscope.results import Config, DeliveryDecisions, QuestionResult, RankedChunk
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.cells import truncate
from chunkscope.tui.widgets.component_styles import ComponentStyles
from chunkscope.tui.widgets.delivery_lines import HitStatus, StopRule, hit_statuses, stop_rules
from chunkscope.tui.widgets.quiet_scroll import QuietScrollView
from chunkscope.tui.widgets.ranked_rows import before_body_rows, header_strips, hit_strips, rule_strip
from chunkscope.tui.widgets.scroll_size import set_scroll_size

BUILD_MARGIN = 4
"""Rows built below the visible ones, so a short scroll finds them ready."""
ROWS_KEPT = 4096
"""Rows with their cursor column kept (the screens of the questions prepared ahead, at about 45 rows each);
the least recently used go first."""
BLOCKS_KEPT = 1024
"""Hit blocks kept: the first screen's blocks of the questions prepared ahead (about 80 at ten or so each)."""


@dataclass(frozen=True, slots=True)
class _Line:
    """One content row: its strip (without the cursor column) and the hit it belongs to."""

    strip: Strip
    hit: int | None


class RankedChunksView(QuietScrollView, can_focus=True):
    """The ranked hits of one question under one configuration."""

    DEFAULT_CSS = Path(__file__).with_suffix(".tcss").read_text(encoding="utf-8")

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.RANKED)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "ranked-chunks--rank",
        "ranked-chunks--score",
        "ranked-chunks--location",
        "ranked-chunks--delivered",
        "ranked-chunks--not-delivered",
        "ranked-chunks--detail",
        "ranked-chunks--context",
        "ranked-chunks--text",
        "ranked-chunks--gold",
        "ranked-chunks--gold-cut",
        "ranked-chunks--cut",
        "ranked-chunks--severed",
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
        self._corpus: Corpus | None = None
        self._config: Config | None = None
        self._hits: tuple[RankedChunk, ...] = ()
        self._decisions: DeliveryDecisions | None = None
        self._token_counter: TokenCost | None = None
        self._statuses: dict[int, HitStatus] = {}
        self._rules: list[StopRule] = []
        self._header: list[Strip] = []
        self._lines: list[_Line] = []
        self._hit_lines: dict[int, tuple[int, int]] = {}
        self._next_hit = 0
        self._serial = 0
        self._built_for: Hashable = None
        self._blocks: LRUCache[Hashable, list[Strip]] = LRUCache(BLOCKS_KEPT)
        """Each hit's rows by (question, configuration, rank, width, styles, lines per hit): stepping back to a
        question shown before costs no rebuilding."""
        self._highlighted = 0
        self._styles = ComponentStyles(self, "ranked-chunks")
        self._rows: OrderedDict[tuple[int, bool, int], tuple[Strip, Strip]] = OrderedDict()
        """Each row with its cursor column, by (id of the row's strip, cursor on it, width): the same strip for
        the same row whenever it shows, so its styled form is reused (the row's strip is held, keeping its id)."""
        self._frame: tuple[int, int] | None = None
        """(width, top row) while a paint renders lines."""

    # ----------------------------------------------------------------- public API

    @property
    def highlighted(self) -> RankedChunk | None:
        """The hit under the cursor."""
        return self._hits[self._highlighted] if self._hits else None

    @property
    def built_hits(self) -> int:
        """Hits laid out so far (the first ones: those on screen and just below)."""
        return self._next_hit

    @property
    def statuses(self) -> dict[int, HitStatus]:
        """Delivery status of each shown rank."""
        return self._statuses

    def show(self, question: Question, result: QuestionResult, config: Config, corpus: Corpus) -> None:
        """Display ``result``'s ranking for ``question`` under ``config`` (texts from ``corpus``)."""
        self._question, self._result, self._corpus, self._config = question, result, corpus, config
        self._hits = result.ranked[: config.depth]
        self._decisions = delivery_decisions(result, config)
        self._token_counter = shown_tokens(config)
        self._statuses = hit_statuses(self._decisions, self._hits)
        self._rules = stop_rules(self._decisions)
        self._highlighted = 0
        self._built_for = None
        self._serial += 1
        self.border_title = f"Ranked chunks · {question.id} “{truncate(question.query, 60)}”"
        self.scroll_to(y=0, animate=False, immediate=True)  # first, so only the top hits are built
        self._rebuild()

    def prepare(self, question: Question, result: QuestionResult, config: Config, corpus: Corpus) -> None:
        """Build the hit blocks that showing ``result`` would put on the first screen, into the block cache:
        showing it later lays out cached rows only (the screen prepares the questions a key most likely
        shows next while the user reads this one)."""
        for piece in self.preparation(question, result, config, corpus):
            piece()

    def preparation(
        self, question: Question, result: QuestionResult, config: Config, corpus: Corpus
    ) -> tuple[Callable[[], None], ...]:
        """:meth:`prepare` in pieces of a hit block each (the last one styles the rows), so a key typed meanwhile
        waits for one block, not a screen of them. The pieces past a full screen do nothing."""
        steps = self._preparing(question, result, config, corpus)

        def piece() -> None:
            next(steps, None)

        return (piece,) * (min(len(result.ranked), config.depth) + 1)

    def _preparing(self, question: Question, result: QuestionResult, config: Config, corpus: Corpus) -> Iterator[None]:
        self._check_styles()
        width = self._width()
        if width <= 0:
            return
        hits = result.ranked[: config.depth]
        decisions = delivery_decisions(result, config)
        statuses = hit_statuses(decisions, hits)
        tokens = shown_tokens(config)
        rows = list(self._header_for(result, config, decisions, width, tokens))
        wanted = self._rows_wanted(0) + len(rows)
        for index, hit in enumerate(hits):
            if len(rows) >= wanted:
                break
            block = self._block_of(question, result, corpus, config, hit, statuses[hit.rank], tokens, width)
            rows += [self._row_strip(strip, index == 0, width) for strip in block]  # the cursor starts on the first
            yield
        self.finish_rows_ahead(rows)

    def clear(self) -> None:
        """Show nothing (e.g. when no question is selected)."""
        self._question = self._result = self._corpus = self._config = None
        self._hits = ()
        self._decisions = None
        self._statuses = {}
        self._rules = []
        self._highlighted = 0
        self._built_for = None
        self._serial += 1
        self.border_title = "Ranked chunks"
        self._rebuild()

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
        self._rebuild()
        self._extend_to_hit(index)
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
        self._styles.invalidate()

    def _check_styles(self) -> None:
        if self._styles.check():
            self._blocks.clear()
            self._built_for = None

    def forget_rows(self) -> None:
        super().forget_rows()
        self._blocks.clear()
        self._rows.clear()

    @property
    def prepared_for(self) -> Hashable:
        self._check_styles()
        return (self.size, self._styles.generation, self.lines_per_hit)

    # ----------------------------------------------------------------- layout

    def _width(self) -> int:
        return self.scrollable_content_region.width

    def on_resize(self) -> None:
        self._rebuild()

    def _rebuild(self, complete: bool = False) -> None:
        """Lay out header and hit rows for the current width (kept until something changes).

        Only the hits that are on screen are built (a screenful and a margin): the others when
        scrolled or moved to (or at once with ``complete``). Until then each counts with an estimate
        of its height, so the scrollbar is about right and showing a question costs one screen of work.
        """
        self._check_styles()
        width = self._width()
        key = (width, self._serial, self._styles.generation, self.lines_per_hit)
        if key != self._built_for:
            self._built_for = key
            self._lines, self._hit_lines, self._next_hit = [], {}, 0
            if self._result is None or self._decisions is None or width <= 0:
                self._header = []
                self._set_content_height(width, 0)
                return
            self._header = self._header_for(self._result, self._config, self._decisions, width, self._tokens())
            if not self._hits:
                self._lines.append(_Line(self._rule("no chunk scored above 0 for this query", width - 1), None))
            self._extend(None if complete else self._rows_wanted(int(self.scroll_offset.y)))
        elif complete:
            self._extend(None)

    def _rows_wanted(self, top: int) -> int:
        """Rows to build for a view scrolled to ``top``: what shows, and a margin for the next scroll."""
        return top + self.scrollable_content_region.height + BUILD_MARGIN

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        if self._next_hit < len(self._hits) and self._built_for is not None:
            self._extend(self._rows_wanted(int(new_value)))  # scrolled towards hits not built yet
        super().watch_scroll_y(old_value, new_value)

    def _extend_to_hit(self, index: int) -> None:
        """Build hit rows until hit ``index`` (0-based) is built."""
        while self._next_hit <= index < len(self._hits):
            self._extend(len(self._lines) + 1)

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
                lines.append(_Line(self._rule(rules[hit.rank].text, width - 1), None))
            first = len(lines)
            block = self._block(hit, width)
            lines.extend(_Line(strip, index) for strip in block)
            self._hit_lines[index] = (first, len(lines))
            self._next_hit += 1
        if self._next_hit >= len(self._hits) and self._hits:
            end_rank = self._hits[-1].rank + 1
            if end_rank in rules:
                lines.append(_Line(self._rule(rules[end_rank].text, width - 1), None))
        self._set_content_height(width, len(lines) + len(self._header) + self._estimated_rest(rules))

    def _block(self, hit: RankedChunk, width: int) -> list[Strip]:
        """The rows of one hit (from the cache when this question and configuration showed it before)."""
        assert self._question is not None and self._result is not None and self._corpus is not None
        status = self._statuses[hit.rank]
        return self._block_of(
            self._question, self._result, self._corpus, self._config, hit, status, self._tokens(), width
        )

    def _block_of(
        self,
        question: Question,
        result: QuestionResult,
        corpus: Corpus,
        config: Config | None,
        hit: RankedChunk,
        status: HitStatus,
        tokens: TokenCost | None,
        width: int,
    ) -> list[Strip]:
        """The rows of ``hit`` for ``question`` under ``config`` in a view ``width`` cells wide (the cursor column
        left out): built once, then from the cache (showing a question and preparing it take the same blocks)."""
        key = (question.id, config, hit.rank, hit.chunk.id, width, self._styles.generation, self.lines_per_hit)
        block = self._blocks.get(key)
        if block is None:
            block = hit_strips(
                hit, status, question, result, corpus, width - 1, self.lines_per_hit, self._styles, tokens
            )
            self._blocks.set(key, block)
        return block

    def _header_for(
        self,
        result: QuestionResult,
        config: Config | None,
        decisions: DeliveryDecisions,
        width: int,
        tokens: TokenCost | None,
    ) -> list[Strip]:
        """The header rows of ``result`` under ``config`` (kept with the blocks: the same strips when shown again)."""
        key = ("header", result.question_id, config, width, self._styles.generation)
        header = self._blocks.get(key)
        if header is None:
            header = header_strips(result, decisions, width, self._styles, tokens)
            self._blocks.set(key, header)
        return header

    def _estimated_rest(self, rules: dict[int, StopRule]) -> int:
        """Rows the hits not built yet will take, about: header, text lines and the detail lines each has."""
        rest = 0
        for hit in self._hits[self._next_hit :]:
            rest += 1 + self.lines_per_hit + (hit.rank in rules)
            rest += bool(hit.parts) + before_body_rows(hit.chunk) + (hit.delivers is not None)
            if self._question is not None and any(
                span.doc == hit.chunk.doc and span.start < hit.chunk.end and span.end > hit.chunk.start
                for span in self._question.gold_spans
            ):
                rest += 2  # the gold line and one more text line
        if self._next_hit < len(self._hits) and self._hits[-1].rank + 1 in rules:
            rest += 1
        return rest

    def _set_content_height(self, width: int, height: int) -> None:
        """Set the scrollable size without laying the screen out again (the vertical scrollbar is always shown)."""
        set_scroll_size(self, Size(width, height))

    def _rule(self, text: str, width: int) -> Strip:
        return rule_strip(text, width, self._styles)

    def _tokens(self) -> TokenCost | None:
        """The token counter of a token-sized configuration (counts shown beside characters), else None."""
        return self._token_counter

    # ----------------------------------------------------------------- rendering

    def _cursor(self, line: int) -> Strip:
        hit = self._lines[line].hit
        if hit is not None and hit == self._highlighted and self._hits:
            return Strip([Segment("▌", self._styles.component("cursor"))], 1)
        return Strip([Segment(" ", self._styles.base)], 1)

    def render_lines(self, crop: Region) -> list[Strip]:
        # Laid out and measured once per paint (each measure walks up the DOM), not once per line.
        self._rebuild()
        self._frame = (self._width(), int(self.scroll_offset.y))
        try:
            return super().render_lines(crop)
        finally:
            self._frame = None

    def render_line(self, y: int) -> Strip:
        if self._frame is None:
            self._rebuild()
        width, top = self._frame or (self._width(), int(self.scroll_offset.y))
        if y < len(self._header):
            return self._header[y]
        line = top + y - len(self._header)
        if line < 0 or line >= len(self._lines):
            return Strip.blank(width, self._styles.base)
        row = self._lines[line]
        return self._row_strip(row.strip, row.hit is not None and row.hit == self._highlighted, width)

    def _row_strip(self, content: Strip, on_cursor: bool, width: int) -> Strip:
        """``content`` after the cursor column, ``width`` cells."""
        key = (id(content), on_cursor, width)
        kept = self._rows.get(key)
        if kept is not None and kept[0] is content:
            self._rows.move_to_end(key)
            return kept[1]
        cursor = Segment("▌", self._styles.component("cursor")) if on_cursor else Segment(" ", self._styles.base)
        strip = Strip([cursor, *content], content.cell_length + 1)
        if strip.cell_length != width:
            strip = strip.crop_extend(0, width, self._styles.base)
        self._rows[key] = (content, strip)
        if len(self._rows) > ROWS_KEPT:
            self._rows.popitem(last=False)
        return strip
