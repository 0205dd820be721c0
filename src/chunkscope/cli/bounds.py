"""Documented bounds of the numeric options, and argparse types that enforce them.

Every bound keeps a run finite and its memory modest; none is a recommendation.

* ``--top-k``: 1 to :data:`MAX_TOP_K` chunks.
* ``--budget``: 0 to :data:`MAX_BUDGET` characters.
* ``--permutations``: 1 to :data:`MAX_PERMUTATIONS`. The bootstrap keeps one mean per
  resample and tested metric, so memory grows linearly: on the sample data a
  ``compare`` at 10^6 takes about 5 s and 130 MB, a published ``sweep`` (28 pairs)
  at 10^5 about 270 MB.
* ``--seed``: 0 to :data:`MAX_SEED`.
* ``--alpha``: strictly between 0 and 1.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable

MAX_TOP_K = 1_000_000
MAX_BUDGET = 10**12
MAX_PERMUTATIONS = 1_000_000
MAX_SEED = 2**32 - 1
_MAX_DIGITS = 20
"""Longer text is refused before int() is asked to convert it (Python refuses beyond 4,300 digits)."""


def bounded_int(minimum: int, maximum: int) -> Callable[[str], int]:
    """argparse type: a whole number in ``[minimum, maximum]``."""

    def parse(text: str) -> int:
        value, shown = _whole_number(text)
        if (value is None and shown.startswith("a negative")) or (value is not None and value < minimum):
            floor = "must not be negative" if minimum == 0 else f"must be at least {minimum:,}"
            raise argparse.ArgumentTypeError(f"{floor}, got {shown}")
        if value is None or value > maximum:
            raise argparse.ArgumentTypeError(f"must be at most {maximum:,}, got {shown}")
        return value

    return parse


def probability(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {_shown(text)}") from None
    if not math.isfinite(value) or not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {_shown(text, quote=False)}")
    return value


def _whole_number(text: str) -> tuple[int | None, str]:
    """The number (None when too long to convert) and how a message shows it."""
    stripped = text.strip()
    digits = stripped.lstrip("+-")
    if len(digits) > _MAX_DIGITS and digits.isdigit():
        sign = "a negative" if stripped.startswith("-") else "a"
        return None, f"{sign} number of {len(digits):,} digits"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {_shown(text)}") from None
    return value, f"{value:,}" if abs(value) >= 10_000 else str(value)


def _shown(text: str, quote: bool = True) -> str:
    short = text if len(text) <= 40 else text[:39] + "…"
    return repr(short) if quote else short
