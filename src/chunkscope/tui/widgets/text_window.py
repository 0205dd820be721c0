"""A few wrapped lines of a chunk's text around its gold, as strips, with ``…`` where text is left out.

The window centres on the first gold in the chunk, else its first query match,
else its start. Marks (gold, cuts, query matches, re-sent and unsent
characters) are drawn as in the document view.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from chunkscope.analysis.marks import TextMarks
from chunkscope.model import Chunk
from chunkscope.tui.cells import visible, wrap_text
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
from chunkscope.tui.widgets.component_styles import ComponentStyles

INDENT = 5
"""Cells before a hit's detail lines (the cursor column included); text lines have one more for "…"."""


def text_window(chunk: Chunk, marks: TextMarks, width: int, lines: int, styles: ComponentStyles) -> list[Strip]:
    """``lines`` wrapped lines of ``chunk`` (one more when it holds gold) in ``width`` cells.

    ``styles`` are the view's component classes: ``text`` under the characters,
    ``unsent``, ``duplicate``, ``gold``, ``gold-cut`` and ``query`` over them,
    ``detail`` for the ``…`` elisions and the glyph kinds (``cut``, ``gold``) for markers.
    """
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
    count = lines + (1 if marks.gold else 0)
    position = next((n for n, i in enumerate(shown) if i >= focus_line), 0)
    first = max(0, min(position - (1 if position else 0), len(shown) - count))
    window = shown[first : first + count]

    def code_style(code: int) -> Style:
        return styles.cached(("text-code", code), lambda: _code_style(code, styles))

    strips = []
    for n, line in enumerate(window):
        start, owned_end = wrapped.owned(line)
        # the column before the text holds "…" when text above is left out
        elided_above = n == 0 and first > 0
        segments = [
            Segment(" " * (INDENT - 1), styles.base),
            Segment("…" if elided_above else " ", styles.component("detail")),
        ]
        segments += marked.segments(
            chunk.start + start,
            chunk.start + int(wrapped.ends[line]),
            chunk.start + owned_end,
            code_style,
            styles.component,
        )
        if n == len(window) - 1 and first + count < len(shown):
            segments.append(Segment("…", styles.component("detail")))
        strips.append(Strip(segments).crop_extend(0, width, styles.component("text")))
    return strips


def _code_style(code: int, styles: ComponentStyles) -> Style:
    """The text style plus a layer per mark bit of ``code``."""
    style = styles.component("text")
    if code & UNSENT:
        style += styles.layer("unsent")
    if code & DUPLICATE:
        style += styles.layer("duplicate")
    if code & (GOLD | GOLD_PARTIAL):
        style += styles.layer("gold" if code & GOLD else "gold-cut")
    if code & QUERY:
        style += styles.layer("query", background=False)
    return style
