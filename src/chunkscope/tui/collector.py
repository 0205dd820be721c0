"""The cyclic garbage collector paced by the keyboard: its young collections run while the user reads.

Filling the panes for a question allocates tens of thousands of objects (strips, segments, styles) and
frees most of them at the next question. With Python's default threshold (700 allocations) the young
generations were collected about once a step, inside it, for up to 5 ms each. Here they wait for up to
``YOUNG_THRESHOLD`` allocations, and the screen collects them when it starts preparing the next
questions (see ``SessionScreen._start_preparing``), which is when no key is waiting. Should keys come
without a pause (a held key) the collector still runs by itself at the raised threshold, so memory
stays bounded; full collections keep their own (raised) threshold.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 100_000
"""Allocations (net of frees) before the young generation is collected without waiting for a pause."""

FULL_FACTOR = 10
"""Full collections run this many times less often than by default (what is loaded is frozen anyway)."""

_young_before = [gc.get_threshold()[0]]
"""The young threshold the app found (Python's default 700): collect_young collects past it."""


def pace_collector() -> tuple[int, int, int]:
    """Raise the collector's thresholds for the app; returns the previous ones (to restore on exit)."""
    before = gc.get_threshold()
    _young_before[0] = before[0]
    gc.freeze()  # what is loaded so far lives as long as the app: full collections need not scan it
    gc.set_threshold(YOUNG_THRESHOLD, before[1], before[2] * FULL_FACTOR)
    return before


def collect_young() -> None:
    """Collect the young generations if more allocations wait than the threshold the app found.

    Not while the collector is paused (``collector_paused``: the worker is evaluating): the young generation
    then holds the millions of objects an index build allocates, and collecting them would stall the build.
    """
    if gc.isenabled() and gc.get_count()[0] > _young_before[0]:
        gc.collect(1)
