"""Reciprocal rank fusion over any retrievers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Annotated, Protocol

import numpy as np

from chunkscope.model import Chunk, Corpus, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import Progress, Retriever, RetrieverIndex, build_index, retrievers, tie_break_positions
from chunkscope.spec.grammar import StrategyKind, format_spec


@retrievers.register("rrf")
@dataclass(frozen=True, slots=True)
class ReciprocalRankFusion:
    """score(d) = sum over parts p that rank d of w_p / (k + rank_p(d)).

    ``w_p`` is part p's weight (``weights``, or ``*W`` after a part: ``rrf:bm25*2+dense``), 1 by default.

    Each part ranks its top ``max(depth, candidates)`` units (``depth`` is what the
    evaluation keeps: 20, or top-k when larger); a unit a part does not rank there
    adds nothing. By default that window is the evaluation depth itself (as with
    Elasticsearch's ``rank_window_size``); ``candidates=100`` fuses deeper lists.
    Ties: document id, then chunk start. Each fused hit keeps every part's rank
    (``None`` when the part did not rank it) for display. Identical parts are
    built and ranked once.
    """

    parts: Annotated[tuple[Retriever, ...], StrategyKind(retrievers)] = field(
        metadata={"positional": True, "weights": "weights"}
    )
    """The fused retrievers (two or more), written ``bm25+dense``."""
    k: int = 60
    candidates: int = 20
    weights: tuple[float, ...] | None = field(default=None, metadata={"omit_default": True})
    """Each part's weight (``None``: every part weighs 1)."""

    def __post_init__(self) -> None:
        if len(self.parts) < 2:
            raise ValueError("rrf needs at least two retrievers, e.g. rrf:bm25+overlap")
        if self.weights is not None:
            if len(self.weights) != len(self.parts):
                raise ValueError(f"rrf has {len(self.parts)} parts but {len(self.weights)} weights")
            if not all(math.isfinite(weight) and weight > 0 for weight in self.weights):
                raise ValueError(f"rrf weights must be positive numbers, got {'+'.join(map(str, self.weights))}")
        if self.k < 0:
            raise ValueError(f"k must not be negative, got {self.k}")
        if self.candidates < 1:
            raise ValueError(f"candidates must be at least 1, got {self.candidates}")

    def build(self, units: Sequence[Chunk]) -> FusionIndex:
        return FusionIndex(self, units)

    def build_over(self, units: Sequence[Chunk], corpus: Corpus, progress: Progress | None = None) -> FusionIndex:
        """The fusion with parts that can reuse the corpus built over it."""
        return FusionIndex(self, units, corpus, progress)


def part_names(parts: Sequence[object]) -> list[str]:
    """Short spec of each part; a repeated spec gets ``#2``, ``#3``... so names stay distinct.

    Linear in the number of parts (each name is looked up, not compared with every earlier one).
    """
    names: list[str] = []
    taken: set[str] = set()
    occurrences: dict[str, int] = {}
    for part in parts:
        base = format_spec(part, short=True)
        count = occurrences.get(base, 0) + 1
        name = base if count == 1 else f"{base}#{count}"
        while name in taken:  # another part's spec happens to read 'base#N'
            count += 1
            name = f"{base}#{count}"
        occurrences[base] = count
        taken.add(name)
        names.append(name)
    return names


class FusedParts(Protocol):
    """What a fusion of retrievers declares: its parts and how deep each ranks."""

    @property
    def parts(self) -> tuple[Retriever, ...]: ...

    @property
    def candidates(self) -> int: ...


class PartsIndex:
    """The parts' indexes over the same units; a subclass fuses their rankings per question."""

    def __init__(
        self,
        params: FusedParts,
        units: Sequence[Chunk],
        corpus: Corpus | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.params = params
        self.names = part_names(params.parts)
        self.tie_break = tie_break_positions(units)
        self.unit_at = np.argsort(self.tie_break)
        """The unit at each tie-break position."""
        built: dict[str, RetrieverIndex] = {}
        self.part_keys = [format_spec(part) for part in params.parts]
        for key, part in zip(self.part_keys, params.parts, strict=True):
            if key not in built:
                built[key] = build_index(part, units, corpus, progress)
        self.indexes = built

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        part_depth = max(depth, self.params.candidates)
        keys = list(self.indexes)
        rankings: dict[str, list[Ranking]] = {}
        for number, key in enumerate(keys):
            report = None
            if progress is not None:
                report = _scaled(progress, number, len(keys))
            rankings[key] = self.indexes[key].rank(questions, part_depth, report)
        return self.fuse([rankings[key] for key in self.part_keys], depth)

    def fuse(self, per_part: Sequence[Sequence[Ranking]], depth: int) -> list[Ranking]:
        """Every question's fused ranking from the parts' rankings (``per_part[p][question]``)."""
        raise NotImplementedError


class FusionIndex(PartsIndex):
    """Reciprocal rank fusion of the parts' rankings."""

    params: ReciprocalRankFusion

    def __init__(
        self,
        params: ReciprocalRankFusion,
        units: Sequence[Chunk],
        corpus: Corpus | None = None,
        progress: Progress | None = None,
    ) -> None:
        super().__init__(params, units, corpus, progress)
        self.params = params

    def numerators(self, part_ranks: Sequence[np.ndarray]) -> np.ndarray | float:
        """Each part's weight, repeated over its ranked pairs (1.0 when no part has a weight)."""
        weights = self.params.weights
        if weights is None:
            return 1.0
        return np.repeat(np.asarray(weights, dtype=np.float64), [len(ranks) for ranks in part_ranks])

    def fuse(self, per_part: Sequence[Sequence[Ranking]], depth: int) -> list[Ranking]:
        """Every question's fused ranking from the parts' rankings (``per_part[p][question]``).

        Vectorised over all questions: each (question, unit) pair is keyed by
        ``question * units + tie-break position``, so sorting the keys orders the
        units of a question by the tie-break, and a stable sort by score keeps it.
        A part's ranking lists each unit at most once (every retriever's does).
        """
        tie_break = self.tie_break
        unit_count = len(tie_break)
        question_count = len(per_part[0])
        part_keys = []
        part_ranks = []
        flattened: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # identical parts share one ranking list
        for rankings in per_part:
            if id(rankings) not in flattened:
                lengths = np.fromiter((len(r.indices) for r in rankings), dtype=np.int64, count=question_count)
                total = int(lengths.sum())
                units = np.fromiter(chain.from_iterable(r.indices for r in rankings), dtype=np.int64, count=total)
                questions = np.repeat(np.arange(question_count, dtype=np.int64), lengths)
                first = np.repeat(np.cumsum(lengths) - lengths, lengths)
                ranks = np.arange(total, dtype=np.int64) - first + 1
                flattened[id(rankings)] = (questions * unit_count + tie_break[units], ranks)
            keys, ranks = flattened[id(rankings)]
            part_keys.append(keys)
            part_ranks.append(ranks)
        all_keys = np.concatenate(part_keys)
        contributions = self.numerators(part_ranks) / (self.params.k + np.concatenate(part_ranks))
        pairs, inverse = np.unique(all_keys, return_inverse=True)
        if len(per_part) > 2:
            # Add each pair's terms largest first, so equal rank sets give bit-equal sums.
            order = np.lexsort((-contributions, inverse))
            inverse, contributions = inverse[order], contributions[order]
        scores = np.bincount(inverse, weights=contributions, minlength=len(pairs))
        question_of = pairs // unit_count
        order = np.lexsort((-scores, question_of))  # stable: ties stay in tie-break order
        counts = np.bincount(question_of, minlength=question_count)
        segment_start = np.cumsum(counts) - counts
        keep = order[np.arange(len(order)) - segment_start[question_of[order]] < depth]
        units_kept = self.unit_at[pairs[keep] % unit_count].tolist()
        scores_kept = scores[keep].tolist()
        ranks_kept = []
        kept_of: dict[int, list[int | None]] = {}
        for keys, ranks in zip(part_keys, part_ranks, strict=True):
            if id(keys) not in kept_of:
                rank_of_pair = np.zeros(len(pairs), dtype=np.int64)
                rank_of_pair[np.searchsorted(pairs, keys)] = ranks
                kept_of[id(keys)] = [rank or None for rank in rank_of_pair[keep].tolist()]
            ranks_kept.append(kept_of[id(keys)])
        bounds = np.concatenate(([0], np.cumsum(np.minimum(counts, depth)))).tolist()
        fused = []
        for question in range(question_count):
            begin, end = bounds[question], bounds[question + 1]
            parts = tuple((name, tuple(ranks[begin:end])) for name, ranks in zip(self.names, ranks_kept, strict=True))
            fused.append(Ranking(tuple(units_kept[begin:end]), tuple(scores_kept[begin:end]), parts))
        return fused


def _scaled(progress: Progress, number: int, count: int) -> Progress:
    """Progress of one of ``count`` consecutive parts as progress of the whole."""

    def report(done: int, total: int) -> None:
        progress(number * total + done, count * total)

    return report
