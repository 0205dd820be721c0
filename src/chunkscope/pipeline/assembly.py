"""Context assembly: which ranked chunks would be sent to the model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from chunkscope.model import Chunk
from chunkscope.pipeline.cost import DeliveryCost, budget_measure
from chunkscope.results import (
    BudgetStop,
    Config,
    DeliveredChunk,
    DeliveryDecisions,
    DeliveryStatus,
    DeliveryStop,
    HitDelivery,
    Overflow,
    QuestionResult,
    RankedChunk,
    SeenPositions,
    TopKEnd,
    ranked_chunks,
)


@dataclass(frozen=True, slots=True)
class Delivery:
    """The outcome of assembling one question's context."""

    delivered: tuple[DeliveredChunk, ...]
    skipped_ranks: tuple[int, ...]
    stop: DeliveryStop


def assemble(
    ranked: Sequence[RankedChunk],
    top_k: int,
    budget: int | None,
    overflow: Overflow,
    measure: DeliveryCost | None = None,
) -> Delivery:
    """Walk the first ``top_k`` hits in rank order and decide what is sent.

    Each hit sends its delivered unit (the chunk, or its parent); a unit already
    sent is not sent again and costs nothing. A unit costs ``len(prefix) +
    len(body)`` characters, or what ``measure`` says (tokens, see
    :mod:`chunkscope.pipeline.cost`). With a budget, the first unit that does not fit is
    handled by ``overflow``: ``stop`` ends delivery, ``skip`` passes over it and
    tries the next, ``truncate`` sends the prefix and as much of the body as fits
    (nothing, the hit then skipped, when not one body character fits: a prefix is never
    sent alone) and ends delivery.
    """
    window = [(hit.rank, hit.delivered_unit) for hit in ranked[:top_k]]
    return assemble_units(window, len(window) >= top_k, budget, overflow, measure)


def assemble_units(
    window: Sequence[tuple[int, Chunk]],
    reached_top_k: bool,
    budget: int | None,
    overflow: Overflow,
    measure: DeliveryCost | None = None,
) -> Delivery:
    """:func:`assemble` over ``(rank, delivered unit)`` pairs of the first top-k hits, in rank order.

    ``reached_top_k`` says whether the ranking had at least top-k hits (delivery
    then stops at ``top_k`` rather than ``exhausted``). This is the evaluator's
    hot path: it avoids building a RankedChunk per hit.
    """
    delivered: list[DeliveredChunk] = []
    skipped: list[int] = []
    sent_units: set[str] = set()
    seen = SeenPositions()
    used = 0
    for position, (rank, unit) in enumerate(window):
        if unit.id in sent_units:
            continue
        start, end = unit.start, unit.end
        sent = len(unit.prefix) + end - start
        cost = sent if measure is None else measure.cost(unit)
        if budget is None or used + cost <= budget:
            delivered.append(DeliveredChunk(rank, unit, start, end, sent, seen.add(unit.doc, start, end)))
            sent_units.add(unit.id)
            used += cost
            continue
        if overflow == "skip":
            skipped.append(rank)
            continue
        if overflow == "truncate":
            cut = unit.start + budget - used - len(unit.prefix) if measure is None else measure.fit(unit, budget - used)
            if cut > unit.start:
                delivered.append(_deliver(rank, unit, cut, seen))
                sent_units.add(unit.id)
            else:
                skipped.append(rank)
            skipped.extend(r for r, u in window[position + 1 :] if u.id not in sent_units)
            return Delivery(tuple(delivered), tuple(skipped), "budget")
        skipped.extend(r for r, u in window[position:] if u.id not in sent_units)
        return Delivery(tuple(delivered), tuple(skipped), "budget")
    stop: DeliveryStop = "top_k" if reached_top_k else "exhausted"
    if skipped:
        stop = "budget"
    return Delivery(tuple(delivered), tuple(skipped), stop)


def delivery_decisions(result: QuestionResult, config: Config, limit: int | None = None) -> DeliveryDecisions:
    """Every ranked hit's delivery decision, read from what :func:`assemble` recorded in ``result``.

    ``config`` must be the configuration ``result`` was measured under. The one place
    that turns ``delivered``, ``skipped_ranks`` and ``delivery_stop`` into per-hit
    facts (budget used and left, the stop, skip versus stop, already sent): the
    inspector, the case file and the diagnosis read these instead of deriving them.
    Built on demand, never in the evaluator's hot path. With ``limit``, only the
    first ``limit`` ranks are decided (``top_k_end`` then describes those only).
    """
    ranked = ranked_chunks(result.ranking, result.units, result.parents, limit)
    delivered = {d.rank: d for d in result.delivered}
    skipped = set(result.skipped_ranks)
    sent_by: dict[str, int] = {}
    for sent in result.delivered:
        sent_by.setdefault(sent.chunk.id, sent.rank)
    stop_rank = _budget_stop_rank(result, config)
    budget = config.budget
    measure = budget_measure(config)
    used = 0
    hits: list[HitDelivery] = []
    budget_stop: BudgetStop | None = None
    for hit in ranked:
        unit = hit.delivered_unit
        before = used
        item = delivered.get(hit.rank)
        if item is not None:
            used += measure.delivered(item)
        status = _status(hit, item, config, hit.rank in skipped, sent_by)
        hits.append(
            HitDelivery(
                rank=hit.rank,
                status=status,
                cost=measure.cost(unit),
                unit_length=unit.length,
                sent_chars=item.sent_chars if item else 0,
                body_chars=item.end - item.start if item else 0,
                duplicate_chars=item.duplicate_chars if item else 0,
                used_before=before,
                used_after=used,
                left_before=None if budget is None else budget - before,
                left_after=None if budget is None else budget - used,
                sent_by=sent_by[unit.id] if status == "already-sent" else None,
                after_stop=status == "budget-stop" and stop_rank is not None and hit.rank > stop_rank,
            )
        )
        if hit.rank == stop_rank and budget is not None:
            body = item.end - item.start if item else 0
            budget_stop = BudgetStop(hit.rank, measure.cost(unit), budget, before, unit.length, body)
    end = TopKEnd(config.top_k, ranked[-1].rank) if ranked else None
    return DeliveryDecisions(
        tuple(hits), result.delivery_stop, config.top_k, budget, used, budget_stop, end, config.budget_units
    )


def _budget_stop_rank(result: QuestionResult, config: Config) -> int | None:
    """The rank at which the budget ended delivery: the truncated hit, else the first one not sent."""
    if result.delivery_stop != "budget" or config.overflow == "skip" or config.budget is None:
        return None
    truncated = [d.rank for d in result.delivered if d.truncated]
    if truncated:
        return truncated[-1]
    return result.skipped_ranks[0] if result.skipped_ranks else None


def _status(
    hit: RankedChunk, item: DeliveredChunk | None, config: Config, skipped: bool, sent_by: dict[str, int]
) -> DeliveryStatus:
    if item is not None:
        return "truncated" if item.truncated else "delivered"
    if hit.rank > config.top_k:
        return "beyond-top-k"
    if skipped:
        return "budget-skip" if config.overflow == "skip" else "budget-stop"
    if sent_by.get(hit.delivered_unit.id, hit.rank) < hit.rank:
        return "already-sent"
    raise ValueError(
        f"rank {hit.rank} was neither delivered, skipped nor already sent: result not measured under config"
    )


def _deliver(rank: int, unit: Chunk, end: int, seen: SeenPositions) -> DeliveredChunk:
    duplicate = seen.add(unit.doc, unit.start, end)
    return DeliveredChunk(rank, unit, unit.start, end, len(unit.prefix) + end - unit.start, duplicate)
