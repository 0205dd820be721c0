"""Helpers for driving the inspector with Textual's Pilot."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.results import Config
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.screens.base import SessionScreen
from chunkscope.tui.session import Session
from chunkscope.tui.widgets.document_view import DocumentView

SIZE = (140, 40)
FIXED_200 = make_config("fixed:size=200")
OVERLAP_40 = make_config("fixed:size=200,overlap=40")


def make_app(dataset: Dataset, a: Config = FIXED_200, b: Config | None = None) -> ChunkscopeApp:
    """The real app on ``dataset``, opening the split view when ``b`` is given."""
    return ChunkscopeApp(Session(dataset, a, b), open_compare=b is not None)


async def settle(pilot: Pilot[None]) -> None:
    """Wait until every worker finished (a cancelled one counts as finished), the messages they posted
    were handled and the detail panes show the selection."""
    for _ in range(2):
        with contextlib.suppress(WorkerCancelled):
            await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    await detail_filled(pilot)


async def detail_filled(pilot: Pilot[None]) -> None:
    """Wait until the detail panes show the selection (after a burst of keys they catch up once it pauses)
    and the delayed changes (the footer's esc, a panel's shrink) are done, so a snapshot is not timing-bound."""
    screen = pilot.app.screen
    for _ in range(500):
        if not isinstance(screen, SessionScreen) or not screen.settling:
            return
        await pilot.pause(0.01)
    raise AssertionError("the detail panes were not filled within 5 s")


def async_test(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an ``async def`` test in its own event loop (fixtures still resolve by the test's signature)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def every_document_row(pilot: Pilot[None], view: DocumentView) -> list[str]:
    """Every line of the document ``view`` shows, as drawn, scrolling a screenful at a time."""
    rows: list[str] = []
    height, total = view.scrollable_content_region.height, view.virtual_size.height
    for top in range(0, total, height):
        view.scroll_to(y=top, animate=False, immediate=True)
        await pilot.pause()
        # near the end the scroll stops short of `top`
        skip = top - int(view.scroll_offset.y)
        rows += [view.render_line(y).text for y in range(skip, skip + min(height, total - top))]
    return rows
