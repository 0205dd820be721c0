"""Failure causes: one label per question and configuration, and where to look first.

Each question gets exactly one :class:`FailureCause`. A question whose required
evidence was all delivered (``QuestionResult.complete``) is ``OK``; otherwise the
first label of this list that applies is given:

1. ``CUT``: the evidence does not exist: for some required item, no chunk wholly
   contains any of its alternative spans (``not evidence_exists``). The
   boundaries that split it are ``QuestionResult.cuts``. No retriever can fix
   this: fix the chunking.
   ``TRUNCATED`` (dense retrievers whose model reads a token window only,
   ``dense:window=N``): a required item that was not delivered lies past the
   window in every unit that contains it (``QuestionResult.past_window``): the
   model never read it, so whatever ranked the unit, it was not the evidence.
   Fix the chunk size (chunks of at most the window in the model's tokens).
   Configurations without such a window have no ``TRUNCATED`` count.
2. ``NOT-RETRIEVED``: the evidence exists but ranks 1..20 do not together
   contain every required item (first correct rank ``None`` or ``> 20``, bucket
   ``miss``). A first-stage retrieval problem (embedding model, BM25, hybrid).
3. ``LOW-RANK``: the first correct rank is in 6..20 (bucket ``6-20``). A job
   for reordering (fusion, reranking).
4. ``CROWDED``: the counterfactual delivery that passes over every *twin* hit
   would have delivered every required item. Walking the ranked list best
   first, a hit is a twin when at least half of its delivered body (``>=
   TWIN_SHARE``) is already covered by the delivered bodies of the earlier
   hits kept in the walk (a hit whose unit was already sent is a twin too:
   100% covered). The kept hits are handed to
   :func:`chunkscope.pipeline.assembly.assemble` with the same top-k, budget and
   overflow; an item counts as delivered when a kept hit whose unit contains
   it (``item_ranks``) is delivered untruncated. So the twins took the slots
   or the budget the evidence needed.
5. ``OVER-BUDGET``: a hit within top-k whose delivered unit contains an
   alternative of an uncovered required item was not delivered because of the
   budget (its delivery decision is a budget stop or skip), or was delivered
   truncated (:func:`chunkscope.pipeline.assembly.delivery_decisions`).
6. ``INCOMPLETE``: any other question that is not complete: some but not all
   items delivered, typically because an item's first hit ranks within 2..5 but
   beyond ``top_k``.

A complete question is ``OK`` even if its first correct rank is above 5 (only
possible with ``top_k > 5``): the labels explain failures, and the rank
buckets are reported separately. A failing question delivered in pieces
(``QuestionResult.in_pieces``: every evidence character was sent, split across
chunks) keeps its label, since no chunk delivered holds the evidence whole,
and its detail says so, naming the chunks that hold the pieces.

The diagnosis summary counts the labels and names where to look first, in the
order the published diagnosis procedure recommends: chunking (``CUT``), the
model's window (``TRUNCATED``), then first-stage retrieval (``NOT-RETRIEVED``), then ranking (``LOW-RANK``), then
budget/delivery (``CROWDED``, ``OVER-BUDGET``, ``INCOMPLETE``). The first
stage with a non-zero count is where to look first; ``None`` when every
question is ``OK``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

import numpy as np

from chunkscope.analysis.tables import SeveredRow, severed_detail
from chunkscope.pipeline.assembly import assemble, delivery_decisions
from chunkscope.pipeline.cost import delivery_cost
from chunkscope.results import (
    RANKING_DEPTH,
    Config,
    ConfigResult,
    QuestionResult,
    QuestionResults,
    RankedChunk,
    question_ids,
)

__all__ = [
    "STAGES",
    "TWIN_SHARE",
    "Diagnosis",
    "FailureCause",
    "Stage",
    "counterfactual_without_twins",
    "diagnose",
    "diagnosis_dict",
    "failure_cause",
    "failure_causes",
    "failure_detail",
    "pieces_detail",
]

TWIN_SHARE = 0.5
"""A hit is a twin when at least this share of its delivered body was already kept."""


class FailureCause(StrEnum):
    """Why a question failed under a configuration (``OK`` when it did not)."""

    CUT = "CUT"
    TRUNCATED = "TRUNCATED"
    NOT_RETRIEVED = "NOT-RETRIEVED"
    LOW_RANK = "LOW-RANK"
    CROWDED = "CROWDED"
    OVER_BUDGET = "OVER-BUDGET"
    INCOMPLETE = "INCOMPLETE"
    OK = "OK"


@dataclass(frozen=True, slots=True)
class Stage:
    """A pipeline stage and the failure causes that point at it."""

    name: str
    """Stage name as shown to users, e.g. ``first-stage retrieval``."""
    causes: tuple[FailureCause, ...]
    """Labels that mean this stage should be fixed."""
    advice: str
    """What to try at this stage."""


STAGES: tuple[Stage, ...] = (
    Stage("chunking", (FailureCause.CUT,), "evidence is split by chunk boundaries: add overlap or cut at structure"),
    Stage(
        "model window",
        (FailureCause.TRUNCATED,),
        "evidence lies past the dense model's token window in its chunk: cut chunks of at most the window "
        "in the model's tokens (unit=tokens)",
    ),
    Stage(
        "first-stage retrieval",
        (FailureCause.NOT_RETRIEVED,),
        "evidence exists but is not in the top 20: change the retriever (BM25, embeddings, hybrid)",
    ),
    Stage("ranking", (FailureCause.LOW_RANK,), "evidence ranks 6-20: reorder with fusion or a reranker"),
    Stage(
        "budget/delivery",
        (FailureCause.CROWDED, FailureCause.OVER_BUDGET, FailureCause.INCOMPLETE),
        "evidence ranks high but is not delivered: de-duplicate, raise top-k or the budget, or use smaller units",
    ),
)
"""Stages in the order the published diagnosis procedure says to look at them."""


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """Failure causes of every question of one configuration."""

    config: Config
    """The diagnosed configuration."""
    causes: tuple[tuple[str, FailureCause], ...]
    """(question id, cause) in question-set order."""
    counts: Mapping[FailureCause, int]
    """Questions per cause, every cause present (zero when none), in priority order; ``TRUNCATED``
    only for a retriever whose model reads a token window."""

    @property
    def look_first(self) -> Stage | None:
        """The first stage (chunking, window, retrieval, ranking, budget) with a failure; None when all OK."""
        for stage in STAGES:
            if any(self.counts.get(cause, 0) for cause in stage.causes):
                return stage
        return None

    @property
    def failures(self) -> int:
        """Questions not OK."""
        return sum(count for cause, count in self.counts.items() if cause is not FailureCause.OK)

    def cause_of(self, question_id: str) -> FailureCause:
        """The cause of one question (KeyError when unknown)."""
        return dict(self.causes)[question_id]


def failure_cause(result: QuestionResult, config: Config) -> FailureCause:
    """The single failure label of ``result`` under ``config`` (see the module docstring)."""
    if result.complete:
        return FailureCause.OK
    if not result.evidence_exists:
        return FailureCause.CUT
    if any(past and not covered for past, covered in zip(result.past_window, result.covered, strict=False)):
        return FailureCause.TRUNCATED
    bucket = result.bucket
    if bucket == "miss":
        return FailureCause.NOT_RETRIEVED
    if bucket == "6-20":
        return FailureCause.LOW_RANK
    if _crowded(result, config):
        return FailureCause.CROWDED
    if _over_budget(result, config):
        return FailureCause.OVER_BUDGET
    return FailureCause.INCOMPLETE


def failure_causes(results: Sequence[QuestionResult], config: Config) -> tuple[FailureCause, ...]:
    """:func:`failure_cause` of every result; from the columns of results that keep them
    (:class:`chunkscope.results.QuestionResults`) wherever they decide it, from the result itself elsewhere."""
    if not isinstance(results, QuestionResults):
        return tuple(failure_cause(result, config) for result in results)
    columns = results.columns
    ranks = columns.first_correct_rank
    # The first tests of failure_cause, in its order: complete, no evidence, then (without a window) the bucket.
    decided = np.select(
        [
            columns.complete,
            ~columns.evidence_exists,
            columns.windowed,
            (ranks == 0) | (ranks > RANKING_DEPTH),
            ranks > 5,
        ],
        [_OK, _CUT, _UNDECIDED, _NOT_RETRIEVED, _LOW_RANK],
        _UNDECIDED,
    ).tolist()
    return tuple(
        _CAUSE_ORDER[code] if code != _UNDECIDED else failure_cause(results[position], config)
        for position, code in enumerate(decided)
    )


_CAUSE_ORDER = tuple(FailureCause)
_OK, _CUT, _NOT_RETRIEVED, _LOW_RANK = (
    _CAUSE_ORDER.index(cause)
    for cause in (FailureCause.OK, FailureCause.CUT, FailureCause.NOT_RETRIEVED, FailureCause.LOW_RANK)
)
_UNDECIDED = -1


def diagnose(result: ConfigResult) -> Diagnosis:
    """Label every question of ``result`` and count the labels."""
    questions = result.questions
    causes = tuple(zip(question_ids(questions), failure_causes(questions, result.config), strict=True))
    if isinstance(questions, QuestionResults):
        windowed = bool(questions.columns.windowed.any())
    else:
        windowed = any(q.past_window for q in questions)
    counts = {cause: 0 for cause in FailureCause if windowed or cause is not FailureCause.TRUNCATED}
    for _, cause in causes:
        counts[cause] += 1
    return Diagnosis(result.config, causes, MappingProxyType(counts))


def failure_detail(
    result: QuestionResult,
    config: Config,
    cause: FailureCause | None = None,
    offset: Callable[[str, int], int] | None = None,
    severed: Sequence[SeveredRow] = (),
) -> str:
    """One line saying why the question got its label (``cause``, computed when None), naming cuts and ranks;
    a failing question delivered in pieces says so and names the delivered chunks holding the pieces.

    ``offset(doc, position)`` writes a cut's offsets in a report's unit (code points when None). ``severed``: the
    question's delivered table rows without their header (:func:`chunkscope.analysis.tables.severed_rows`), named
    at the end when there are any.
    """
    cause = failure_cause(result, config) if cause is None else cause
    detail = _cause_detail(result, config, cause, offset or _same_offset)
    detail = f"{detail}; {pieces_detail(result)}" if result.in_pieces else detail
    return f"{detail}; {severed_detail(severed, offset)}" if severed else detail


def pieces_detail(result: QuestionResult) -> str:
    """``delivered in pieces: ...`` naming the ranks of the delivered chunks that hold the pieces."""
    ranks = sorted({rank for item_ranks in result.piece_ranks for rank in item_ranks})
    names = [f"#{rank}" for rank in ranks]
    chunks = " and ".join(names) if len(names) <= 2 else ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"delivered in pieces: the model sees every character, split across chunks {chunks}"


def _same_offset(doc: str, position: int) -> int:
    return position


def _cause_detail(
    result: QuestionResult, config: Config, cause: FailureCause, offset: Callable[[str, int], int]
) -> str:
    if cause is FailureCause.CUT:
        cuts = "; ".join(
            f"{cut.span.doc} {offset(cut.span.doc, cut.span.start)}-{offset(cut.span.doc, cut.span.end)} cut at "
            + (", ".join(str(offset(cut.span.doc, b)) for b in cut.boundaries) or "?")
            for cut in result.cuts
        )
        return f"no chunk contains the evidence: {cuts}"
    if cause is FailureCause.TRUNCATED:
        pairs = zip(result.past_window, result.covered, strict=False)
        unseen = ", ".join(str(n) for n, (past, covered) in enumerate(pairs, start=1) if past and not covered)
        return f"required item {unseen} lies past the model's token window in every chunk holding it"
    if cause is FailureCause.NOT_RETRIEVED:
        return "evidence exists but is not within the top 20"
    if cause is FailureCause.LOW_RANK:
        return f"first correct rank {result.first_correct_rank} (6-20)"
    if cause is FailureCause.CROWDED:
        return "chunks repeating earlier chunks took the slots or budget the evidence needed"
    if cause is FailureCause.OVER_BUDGET:
        ranks = ", ".join(map(str, _evidence_ranks_cut_by_budget(result, config)))
        unit = "characters" if config.budget_tokenizer is None else f"{config.budget_tokenizer} tokens"
        return f"evidence at rank {ranks} did not fit the budget of {config.budget} {unit}"
    if cause is FailureCause.INCOMPLETE:
        missing = sum(not c for c in result.covered)
        return f"{missing} of {len(result.covered)} required items not delivered (top-{config.top_k})"
    return "every required item delivered"


def counterfactual_without_twins(ranked: Sequence[RankedChunk], share: float = TWIN_SHARE) -> list[RankedChunk]:
    """``ranked`` without its twins: hits whose delivered body is ``>= share`` covered by earlier kept hits."""
    kept: list[RankedChunk] = []
    seen: dict[str, list[tuple[int, int]]] = {}
    for hit in ranked:
        unit = hit.delivered_unit
        intervals = seen.setdefault(unit.doc, [])
        length = unit.end - unit.start
        if length > 0 and _covered_chars(intervals, unit.start, unit.end) >= share * length:
            continue
        kept.append(hit)
        intervals.append((unit.start, unit.end))
    return kept


def _covered_chars(intervals: list[tuple[int, int]], start: int, end: int) -> int:
    """Characters of [start, end) inside the union of ``intervals``."""
    pieces = sorted((max(s, start), min(e, end)) for s, e in intervals if s < end and e > start)
    total = 0
    reached = start
    for piece_start, piece_end in pieces:
        piece_start = max(piece_start, reached)
        if piece_end > piece_start:
            total += piece_end - piece_start
            reached = piece_end
    return total


def _crowded(result: QuestionResult, config: Config) -> bool:
    if not result.item_ranks:
        return False
    ranked = result.ranked
    kept = counterfactual_without_twins(ranked)
    if len(kept) == len(ranked):
        return False
    delivery = assemble(kept, config.top_k, config.budget, config.overflow, delivery_cost(config))
    # Kept hits keep their original rank, so item_ranks says which delivered units hold each item.
    # A truncated unit is not counted: without the question's spans it cannot be told whether
    # the truncated body still holds the item.
    whole = {d.rank for d in delivery.delivered if not d.truncated}
    return all(any(rank in whole for rank in ranks) for ranks in result.item_ranks)


def _over_budget(result: QuestionResult, config: Config) -> bool:
    return bool(_evidence_ranks_cut_by_budget(result, config))


_CUT_BY_BUDGET = frozenset({"budget-stop", "budget-skip", "truncated"})


def _evidence_ranks_cut_by_budget(result: QuestionResult, config: Config) -> list[int]:
    """Ranks within top-k holding an uncovered item that the budget stopped, skipped or truncated."""
    candidates = {
        rank
        for covered, item_ranks in zip(result.covered, result.item_ranks, strict=False)
        if not covered
        for rank in item_ranks
        if rank <= config.top_k
    }
    if not candidates:
        return []
    decisions = delivery_decisions(result, config, limit=max(candidates))
    return sorted(rank for rank in candidates if decisions.of(rank).status in _CUT_BY_BUDGET)


def diagnosis_dict(diagnosis: Diagnosis) -> dict[str, Any]:
    """The diagnosis summary as plain JSON values: counts per label, and where to look first."""
    stage = diagnosis.look_first
    return {
        "counts": {cause.value: count for cause, count in diagnosis.counts.items()},
        "look_first": None if stage is None else stage.name,
        "advice": None if stage is None else stage.advice,
    }
