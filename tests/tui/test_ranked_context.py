"""A contextual chunk's context shows dimmed above its body in the ranked chunks: sent (the prefix) or not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pilot_helpers import SIZE, async_test, make_app, settle
from textual.strip import Strip

from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
from chunkscope.tui.widgets.ranked_rows import before_body_lines

CONTEXT = "Larkspur returns policy. Exceptions to the 30-day window for opened audio items."
"""The context the file gives q01's first hit under fixed:size=200 (en/refunds.md 600-800)."""


def context_file(tmp_path: Path) -> Path:
    path = tmp_path / "contexts.jsonl"
    record = {"doc": "en/refunds.md", "start": 600, "end": 800, "context": CONTEXT}
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


def hit_block(view: RankedChunksView, location: str) -> list[Strip]:
    """The strips of the hit whose header names ``location``, up to the next hit's header."""
    strips = [view.render_line(y) for y in range(view.scrollable_content_region.height)]
    rows = [strip.text for strip in strips]
    first = next(i for i, row in enumerate(rows) if location in row and "#" in row[:3])
    end = next((i for i in range(first + 1, len(rows)) if rows[i][1:2] == "#"), len(rows))
    return strips[first:end]


@pytest.mark.parametrize(
    ("send", "label"),
    [("false", "indexed, not sent: "), ("true", "sent before the body: ")],
)
@async_test
async def test_the_context_shows_dimmed_between_the_details_and_the_body(
    sample: Dataset, tmp_path: Path, send: str, label: str
) -> None:
    path = context_file(tmp_path)
    config = make_config(f"contextual:base=fixed:size=200,context={path},send={send}")
    app = make_app(sample, config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.selected_id == "q01"
        view = app.screen.query_one(RankedChunksView)
        block = hit_block(view, "en/refunds.md 600–800")
        rows = [strip.text.rstrip() for strip in block]
        at = next(i for i, row in enumerate(rows) if label in row)
        # Label and context, wrapped to the pane's width (two lines at 140 columns) ...
        shown = rows[at].split(label, 1)[1] + " " + rows[at + 1][1:].strip()  # [1:]: the cursor column
        assert shown == CONTEXT
        # ... below the gold line, above the first line of the body's text.
        assert "item 2 partial" in rows[at - 1]
        assert rows[at + 2][1:].startswith("    …it.")  # the body: en/refunds.md 600-800 starts "it."
        # Dimmed: every character of the context lines is drawn dim, the body's are not.
        for strip in block[at : at + 2]:
            text = strip.crop(1, strip.cell_length)  # after the cursor column
            assert all(segment.style is not None and segment.style.dim for segment in text if segment.text.strip())
        assert not any(
            segment.style is not None and segment.style.dim for segment in block[at + 2] if "told" in segment.text
        )
        # Only that chunk has a context: no other hit on screen shows one, and nothing is labelled a prefix.
        others = [strip.text for strip in view_strips(view) if label in strip.text]
        assert len(others) == 1
        assert not any("prefix:" in strip.text for strip in view_strips(view))


def view_strips(view: RankedChunksView) -> list[Strip]:
    return [view.render_line(y) for y in range(view.scrollable_content_region.height)]


def test_a_long_context_takes_two_lines_and_ends_in_an_ellipsis() -> None:
    # 10 cells a line: "ctx: " + 30 characters is four lines wrapped at spaces; two are kept, the second cut.
    lines = before_body_lines("ctx: ", "aaaa bbbb cccc dddd eeee ffff", 10)
    assert lines == ["ctx: aaaa", "bbbb cccc…"]


def test_line_breaks_of_a_context_stay_and_blank_lines_go() -> None:
    assert before_body_lines("c: ", "Title\n\n> Section\r\n", 40) == ["c: Title", "> Section"]
    assert before_body_lines("c: ", "\n \n", 40) == []
