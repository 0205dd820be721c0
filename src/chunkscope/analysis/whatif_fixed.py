"""Boundary arithmetic of fixed character windows: when a window holds a span, and the smallest change that makes one.

The windows of ``fixed:size=s,overlap=o,shift=t`` (step ``d = s - o``, ``0 <= t < d``) over a
document of length ``L`` are the head ``[0, t + o)`` when ``t > 0``, then ``[t + k*d, t + k*d + s)``
for ``k = 0, 1, ...``, each clipped to ``L``, until one reaches ``L``. A span ``[a, b)`` with
``b <= L`` lies inside one of them exactly when

* ``t > 0`` and ``b <= t + o`` (the head), or
* some ``k >= 0`` has ``t + k*d <= a`` and ``b <= t + k*d + s``.

The document length drops out: when the window ``k`` of the second rule lies past the last
window, the last window starts at or before ``a`` and runs to ``L >= b``, so it holds the span.
Every search below solves these inequalities over ``k`` directly.
"""

from __future__ import annotations

__all__ = ["holds", "smallest_overlap", "smallest_shift", "smallest_size"]


def holds(start: int, end: int, size: int, overlap: int, shift: int = 0) -> bool:
    """Some window of ``fixed:size,overlap,shift`` contains ``[start, end)`` (the rule above)."""
    if shift > 0 and end <= shift + overlap:
        return True
    if start < shift:
        return False
    step = size - overlap
    last_start = shift + (start - shift) // step * step  # the grid start at or before ``start`` closest to it
    return end <= last_start + size


def smallest_size(start: int, end: int, size: int, overlap: int, shift: int = 0) -> int | None:
    """The smallest size above ``size`` (overlap and shift unchanged) whose windows hold ``[start, end)``.

    Window ``k`` holds the span for sizes in ``[ceil((end - t + k*o) / (k + 1)), o + floor((a - t) / k)]``
    (``k = 0``: from ``end - t`` on). None when the span starts before the grid and is not in the head.
    """
    lowest = size + 1
    if shift > 0 and end <= shift + overlap:
        return lowest  # the head holds it, whatever the size
    if start < shift:
        return None
    offset = start - shift
    best = max(lowest, end - shift)  # window 0 grows to reach the span's end
    k = 1
    while k * (lowest - overlap) <= offset:  # window k still starts at or before the span for some size >= lowest
        low = max(lowest, -(-(end - shift + k * overlap) // (k + 1)))
        high = overlap + offset // k
        if low <= high:
            best = min(best, low)
        k += 1
    return best


def smallest_overlap(start: int, end: int, size: int, overlap: int, shift: int = 0) -> int | None:
    """The smallest overlap in ``[0, size - shift - 1]`` (size and shift unchanged) whose windows hold the span.

    The grid rule asks for a step ``d`` and a ``k >= 1`` with ``end - size - t <= k*d <= a - t``: the
    first ``k`` with an admissible ``d`` gives the largest ``d``, the smallest overlap ``size - d``.
    The head holds it from overlap ``end - t`` on. ``overlap`` itself is only a default for the
    signature's symmetry; the answer does not depend on it.
    """
    del overlap
    if shift <= start and end <= shift + size:
        return 0  # window 0 holds it whatever the overlap
    candidates = []
    if shift > 0 and end - shift <= size - shift - 1:
        candidates.append(max(0, end - shift))
    step = _largest_step(end - size - shift, start - shift, shift + 1, size)
    if step is not None:
        candidates.append(size - step)
    return min(candidates, default=None)


def _largest_step(low: int, high: int, smallest: int, largest: int) -> int | None:
    """The largest step in ``[smallest, largest]`` with a multiple ``k*step`` (``k >= 1``) in ``[low, high]``."""
    if high < max(low, 1) or largest < smallest:
        return None
    if high // largest >= 1 and high // largest * largest >= low:
        return largest
    k = max(1, -(-max(low, 1) // largest))
    while high // k >= smallest:
        top = min(largest, high // k)
        if k * top >= low:
            return top
        k += 1
    return None


def smallest_shift(start: int, end: int, size: int, overlap: int, shift: int = 0) -> int | None:
    """The smallest shift in ``[0, size - overlap - 1]`` (size and overlap unchanged) whose windows hold the span.

    The grid holds it when some grid start ``p = t + k*d`` lies in ``[max(0, end - size), start]``,
    so the smallest shift is the smallest residue modulo ``d`` of that range; the head holds it from
    shift ``max(1, end - overlap)`` on. ``shift`` itself does not change the answer.
    """
    del shift
    step = size - overlap
    candidates = []
    first = max(0, end - size)
    if first <= start:
        if start - first + 1 >= step or first % step > start % step:
            candidates.append(0)  # the range holds a multiple of the step
        else:
            candidates.append(first % step)
    head = max(1, end - overlap)
    if head < step:
        candidates.append(head)
    return min(candidates, default=None)
