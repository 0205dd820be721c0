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

BETWEEN_PIECES = 20_000
"""Allocations after which the screen's preparation collects the young generations between two of its pieces.
Preparing ahead allocates objects that live on in the panes' caches: left to YOUNG_THRESHOLD they make one
collection of 15 to 25 ms (a key waits for it), collected in steps a few milliseconds each."""

FULL_FACTOR = 1000
"""Full collections run this many times less often than by default. What is loaded is frozen, but the panes'
caches hold hundreds of thousands of objects (the questions prepared ahead), and a full collection scanning
them paused the keys for 0.6 s; the young collections (each counts towards a full one) come every few
thousand allocations while the screen prepares. Little survives a young collection to become cyclic garbage
(measured: about 20 objects a step), so what waits for the rare full collection stays small."""

_young_before = [gc.get_threshold()[0]]
"""The young threshold the app found (Python's default 700): collect_young collects past it."""


def pace_collector() -> tuple[int, int, int]:
    """Raise the collector's thresholds for the app; returns the previous ones (to restore on exit)."""
    before = gc.get_threshold()
    _young_before[0] = before[0]
    gc.freeze()  # what is loaded so far lives as long as the app: full collections need not scan it
    gc.set_threshold(YOUNG_THRESHOLD, before[1], before[2] * FULL_FACTOR)
    return before


def collect_young(more_than: int | None = None) -> None:
    """Collect the young generations if more allocations wait than ``more_than`` (by default the threshold the
    app found).

    Not while the collector is paused (``collector_paused``: the worker is evaluating): the young generation
    then holds the millions of objects an index build allocates, and collecting them would stall the build.
    """
    if gc.isenabled() and gc.get_count()[0] > (_young_before[0] if more_than is None else more_than):
        gc.collect(1)
