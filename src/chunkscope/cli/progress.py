"""Progress on stderr that fits where it goes.

On a terminal, Rich bars (transient: they vanish when the work is done). On a pipe or a file (a CI log, ``2> log``),
plain lines: nothing for a run shorter than :data:`GRACE` seconds, then one line when a stage begins and at most one
every :data:`INTERVAL` seconds within it, with done/total and an estimate of the time left. ``--quiet`` silences both.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TextIO

from chunkscope.pipeline.evaluate import Progress
from chunkscope.pipeline.parallel import FINISHED, ConfigProgress

GRACE = 10.0
"""Seconds a run goes without plain progress lines: a quick command leaves its log as it was."""

INTERVAL = 5.0
"""Seconds between two plain progress lines within one stage."""

QUIET: ContextVar[bool] = ContextVar("chunkscope_quiet_progress", default=False)
"""Set while a command given ``--quiet`` runs (see :func:`quiet_while`)."""


def add_quiet_option(parser: Any) -> None:
    """``--quiet``: no progress on stderr (warnings and errors still show)."""
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress on stderr: neither bars on a terminal nor the plain lines a pipe or file gets "
        "(warnings and errors still show)",
    )


@contextlib.contextmanager
def quiet_while(quiet: bool) -> Iterator[None]:
    """Within the block, progress is silenced when ``quiet`` is true."""
    token = QUIET.set(quiet)
    try:
        yield
    finally:
        QUIET.reset(token)


@dataclass
class _StageSeen:
    """Where one configuration was when last heard from."""

    stage: str
    started: float
    done_at_start: int
    done: int = 0


class PlainProgress:
    """Plain progress lines for a stderr that is no terminal; called as a :data:`ConfigProgress`.

    A configuration's new stage is one line (once the run is past ``grace`` seconds); within a stage, a line at most
    every ``interval`` seconds, with done/total and, once some of the stage is done, the time left at the rate seen
    so far in that stage. Each finished configuration is a line too (past the grace).
    """

    def __init__(
        self,
        labels: Sequence[str],
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        grace: float | None = None,
        interval: float | None = None,
    ) -> None:
        self.labels = list(labels)
        self.stream = stream
        self.clock = clock
        self.grace = GRACE if grace is None else grace
        self.interval = INTERVAL if interval is None else interval
        self.begun = clock()
        self.last_line = -float("inf")
        self.finished = 0
        self.seen: dict[int, _StageSeen] = {}

    def __call__(self, position: int, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if stage == FINISHED:
            self.finished += 1
            self.seen.pop(position, None)
            if len(self.labels) > 1:
                self._line(now, f"{self.labels[position]}: done ({self.finished} of {len(self.labels)} configurations)")
            return
        seen = self.seen.get(position)
        new_stage = seen is None or seen.stage != stage
        if seen is None or new_stage:
            seen = self.seen[position] = _StageSeen(stage, now, done)
        seen.done = done
        if new_stage or now - self.last_line >= self.interval:
            self._line(now, f"{self.labels[position]}: {stage}{_count(done, total)}{_left(seen, now, total)}")

    def _line(self, now: float, text: str) -> None:
        if now - self.begun < self.grace:
            return
        self.last_line = now
        stream = self.stream if self.stream is not None else sys.stderr
        print(f"chunkscope: {text}", file=stream, flush=True)


def _count(done: int, total: int) -> str:
    """`` 1,200/4,000 (30%)``, or nothing for a stage of one step."""
    if total <= 1:
        return ""
    return f" {done:,}/{total:,} ({100 * done // total}%)"


def _left(seen: _StageSeen, now: float, total: int) -> str:
    """``, about 41 s left`` at the stage's rate so far; nothing before any of it is done."""
    gained = seen.done - seen.done_at_start
    spent = now - seen.started
    if gained <= 0 or spent <= 0 or seen.done >= total:
        return ""
    left = (total - seen.done) * spent / gained
    return f", about {_duration(left)} left"


def _duration(seconds: float) -> str:
    """``41 s``, ``3 min 20 s``, ``1 h 05 min``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


@contextlib.contextmanager
def configs_progress(labels: Sequence[str]) -> Iterator[ConfigProgress | None]:
    """The progress callback of an evaluation of configurations (``labels``): bars, lines or None when quiet.

    On a terminal the first bar counts finished configurations; the second follows the stage (chunking, indexing,
    ranking) of the configuration last heard from, so a long embedding run of a dense retriever shows how far it got.
    """
    if QUIET.get():
        yield None
    elif not sys.stderr.isatty():
        yield PlainProgress(labels)
    else:
        from rich.console import Console
        from rich.progress import Progress as Bars

        with Bars(console=Console(stderr=True), transient=True) as bars:
            overall = bars.add_task("evaluating", total=len(labels))
            stage_task = bars.add_task("", total=1)

            def follow(position: int, stage: str, done: int, total: int) -> None:
                if stage == FINISHED:
                    bars.advance(overall)
                    return
                bars.update(overall, description=labels[position])
                bars.update(stage_task, description=f"  {stage}", completed=done, total=max(total, 1))

            yield follow


@contextlib.contextmanager
def stage_progress(label: str) -> Iterator[Progress | None]:
    """The progress callback (stage, done, total) of one piece of work named ``label``: a bar, lines or None."""
    if QUIET.get():
        yield None
    elif not sys.stderr.isatty():
        lines = PlainProgress([label])
        yield lambda stage, done, total: lines(0, stage, done, total)
    else:
        from rich.console import Console
        from rich.progress import Progress as Bars

        with Bars(console=Console(stderr=True), transient=True) as bars:
            task = bars.add_task(label, total=1)

            def follow(stage: str, done: int, total: int) -> None:
                bars.update(task, description=f"{stage} of {label}", completed=done, total=max(total, 1))

            yield follow
