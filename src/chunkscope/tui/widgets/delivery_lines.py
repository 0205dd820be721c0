"""How the core's delivery decisions read in the ranked-chunks view: status lines and stop rules.

Only wording: every fact (what was sent, what the budget had left, where delivery
stopped) comes from :func:`chunkscope.pipeline.assembly.delivery_decisions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chunkscope.results import DeliveryDecisions, DeliveryStatus, HitDelivery, RankedChunk

_STATUS_GLYPH: dict[DeliveryStatus, str] = {
    "delivered": "●",
    "truncated": "◐",
    "already-sent": "◌",
    "budget-stop": "○",
    "budget-skip": "○",
    "beyond-top-k": "·",
}


@dataclass(frozen=True, slots=True)
class HitStatus:
    """Whether a ranked hit was delivered, and why not, as the view shows it."""

    kind: DeliveryStatus
    """The core's decision."""
    text: str
    """Short explanation, e.g. ``not delivered: budget stop``."""
    duplicate_chars: int = 0
    """Body characters an earlier delivered chunk already sent."""

    @property
    def glyph(self) -> str:
        """``●`` delivered, ``◐`` truncated, ``◌`` its unit already sent, ``○`` budget, ``·`` beyond top-k."""
        return _STATUS_GLYPH[self.kind]

    @property
    def delivered(self) -> bool:
        """Some of this hit's text reached the context."""
        return self.kind in ("delivered", "truncated")


@dataclass(frozen=True, slots=True)
class StopRule:
    """A rule drawn between hits where delivery stopped."""

    before_rank: int
    """The rule is drawn just above this rank (one past the last rank for the end)."""
    text: str
    """What stopped delivery, e.g. ``budget stop: #3 (400 chars) does not fit 1200 − 800``."""


def hit_statuses(decisions: DeliveryDecisions, ranked: Sequence[RankedChunk]) -> dict[int, HitStatus]:
    """The status line of each of the ``ranked`` hits, by rank."""
    return {hit.rank: hit_status(hit, decisions.of(hit.rank), decisions.top_k, decisions.units) for hit in ranked}


def hit_status(hit: RankedChunk, decision: HitDelivery, top_k: int, units: str = "chars") -> HitStatus:
    """The status line of one hit (``units``: what the budget counts)."""
    status = decision.status
    if status == "delivered" or status == "truncated":
        duplicate = f" · {decision.duplicate_chars} chars re-sent" if decision.duplicate_chars else ""
        if status == "truncated":
            text = f"delivered, truncated to {decision.body_chars} of {decision.unit_length} chars{duplicate}"
        else:
            text = f"delivered{duplicate}"
        return HitStatus(status, text, decision.duplicate_chars)
    if status == "beyond-top-k":
        return HitStatus(status, f"not delivered: beyond top-{top_k}")
    if status == "budget-skip":
        return HitStatus(status, f"skipped: {decision.cost} {units} > {decision.left_before} left")
    if status == "budget-stop":
        return HitStatus(
            status, "not delivered: after the budget stop" if decision.after_stop else "not delivered: budget stop"
        )
    what = "parent" if hit.delivers is not None else "chunk"
    return HitStatus(status, f"{what} already sent by #{decision.sent_by}")


def stop_rules(decisions: DeliveryDecisions) -> list[StopRule]:
    """Rules to draw where delivery stopped: the budget stop and the end of the top-k window."""
    rules: list[StopRule] = []
    stop = decisions.budget_stop
    if stop is not None:
        if stop.truncated:
            text = f"budget full: #{stop.rank} truncated to {stop.body_chars} of {stop.unit_length} chars"
        else:
            text = f"budget stop: #{stop.rank} ({stop.cost} {decisions.units}) does not fit {stop.budget} − {stop.used}"
        rules.append(StopRule(stop.ends_before, text))
    end = decisions.top_k_end
    if end is not None:
        if end.continues:
            text = f"top-{end.top_k}: ranks below are not delivered"
        else:
            text = f"ranking ends at #{end.last_rank} (top-k {end.top_k})"
        rules.append(StopRule(end.ends_before, text))
    return rules
