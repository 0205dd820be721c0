"""One-line readings of core values that several places show (a notification, the summary, the list title)."""

from __future__ import annotations

from chunkscope.analysis.fragility import FragilityResult


def fragility_note(result: FragilityResult) -> str:
    """``robust OK 1 · fragile OK 2 · OK nearby 1 · not OK 1 · mean fragility 0.250 (8 neighbours)``:
    the core's fragility summary, the counts as the core computes them."""
    summary = result.summary
    return (
        f"robust OK {summary.robust_ok} · fragile OK {summary.fragile_ok} · OK nearby {summary.ok_nearby} · "
        f"not OK {summary.not_ok} · mean fragility {summary.mean_share:.3f} ({len(result.neighbours)} neighbours)"
    )
