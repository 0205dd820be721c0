"""Keeping the cyclic garbage collector out of bursts of allocation (no textual, no rich: a core module)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for a burst of allocations (restored afterwards).

    An evaluation creates a dozen values per question and some per unit, and a ranking one value and
    two tuples per query, none in a reference cycle, yet their number triggers repeated full
    collections of everything kept so far (on JSQuAD a full collection costs as much as ranking every
    question on the compiled path). Nesting is safe: only the outermost pause re-enables a collector
    that was enabled.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
