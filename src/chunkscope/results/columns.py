"""A configuration's question results as metric columns, and the results kept as those columns."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from typing import Any, Protocol, overload

import numpy as np

from chunkscope.results.lazy import BuiltOnUse
from chunkscope.results.question import QuestionResult


@dataclass(frozen=True, slots=True, eq=False)
class ResultColumns:
    """What the metrics read of each question result of one configuration, as arrays in question order.

    Each column holds, per question, the :class:`QuestionResult` value of the same name:
    ``first_correct_rank`` with 0 for None, the character counts of ``overlap`` under their own
    names, ``past_window`` as ``any(past_window)`` and ``windowed`` as ``bool(past_window)``, ``page_gold``
    as ``bool(page_hits)`` and ``page_hit`` as ``bool(page_hits) and all(page_hits)``.
    """

    question_ids: tuple[str, ...]
    first_correct_rank: np.ndarray
    """int64; 0 for None (ranks start at 1)."""
    evidence_exists: np.ndarray
    complete: np.ndarray
    in_pieces: np.ndarray
    doc_hit: np.ndarray
    sent_chars: np.ndarray
    duplicate_chars: np.ndarray
    evidence_chars: np.ndarray
    delivered_evidence_chars: np.ndarray
    undelivered_evidence_chars: np.ndarray
    omega_evidence_chars: np.ndarray
    omega_chars: np.ndarray
    past_window: np.ndarray
    windowed: np.ndarray
    page_gold: np.ndarray
    page_hit: np.ndarray
    multi_hop: np.ndarray
    """Two hops or more (``hop_count >= 2``)."""
    all_hops: np.ndarray
    """Multi-hop and every hop delivered (``hops_delivered == hop_count >= 2``)."""

    def __len__(self) -> int:
        return len(self.question_ids)

    @classmethod
    def of(cls, results: Sequence[QuestionResult]) -> ResultColumns:
        """The columns of ``results``, read one result at a time."""
        count = len(results)

        def column(values: Iterator[int] | Iterator[bool], kind: type[np.generic]) -> np.ndarray:
            return np.fromiter(values, dtype=kind, count=count)

        overlaps = [r.overlap for r in results]
        return cls(
            tuple(r.question_id for r in results),
            column((r.first_correct_rank or 0 for r in results), np.int64),
            column((r.evidence_exists for r in results), np.bool_),
            column((r.complete for r in results), np.bool_),
            column((r.in_pieces for r in results), np.bool_),
            column((r.doc_hit for r in results), np.bool_),
            column((r.sent_chars for r in results), np.int64),
            column((r.duplicate_chars for r in results), np.int64),
            column((o.evidence_chars for o in overlaps), np.int64),
            column((o.delivered_evidence_chars for o in overlaps), np.int64),
            column((o.undelivered_evidence_chars for o in overlaps), np.int64),
            column((o.omega_evidence_chars for o in overlaps), np.int64),
            column((o.omega_chars for o in overlaps), np.int64),
            column((any(r.past_window) for r in results), np.bool_),
            column((bool(r.past_window) for r in results), np.bool_),
            column((bool(r.page_hits) for r in results), np.bool_),
            column((bool(r.page_hits) and all(r.page_hits) for r in results), np.bool_),
            column((r.hop_count >= 2 for r in results), np.bool_),
            column((r.hop_count >= 2 and r.hops_delivered == r.hop_count for r in results), np.bool_),
        )

    @classmethod
    def joined(cls, count: int, parts: Sequence[tuple[Sequence[int], ResultColumns]]) -> ResultColumns:
        """The columns of ``count`` questions from parts, each the columns of the questions at its positions."""
        ids: list[str] = [""] * count
        arrays: dict[str, np.ndarray] = {}
        for column in fields(cls)[1:]:
            kind = getattr(parts[0][1], column.name).dtype if parts else np.int64
            arrays[column.name] = np.zeros(count, dtype=kind)
        for positions, part in parts:
            index = np.asarray(positions, dtype=np.int64)
            for name, array in arrays.items():
                array[index] = getattr(part, name)
            for position, question_id in zip(positions, part.question_ids, strict=True):
                ids[position] = question_id
        return cls(tuple(ids), **arrays)


class ResultRecipe(Protocol):
    """Builds the result of one question from what an evaluation measured of it (see :class:`QuestionResults`)."""

    def result(self, position: int) -> QuestionResult:
        """The result of the question at ``position``."""
        ...


class QuestionResults(BuiltOnUse[QuestionResult]):
    """A configuration's question results, kept as what was measured and each built on first use.

    The evaluator's batched measuring (``chunkscope.pipeline.batch``) keeps its questions this way:
    the summary and the paired tests read :attr:`columns`, and a report or the inspector reading a
    result gets the very value the per-question path gives. It compares equal to the tuple of its
    results, and to any sequence of the same results.
    """

    __slots__ = ("_all", "_items", "_recipe", "columns")

    def __init__(self, columns: ResultColumns, recipe: ResultRecipe, items: Sequence[QuestionResult | None]) -> None:
        """``items[i]``: the result of question ``i`` when built already, else None (``recipe`` builds it)."""
        self.columns = columns
        """What the metrics read of every result."""
        self._recipe = recipe
        self._items = list(items)
        self._all: tuple[QuestionResult, ...] | None = None

    def _item(self, position: int) -> QuestionResult:
        item = self._items[position]
        if item is None:
            item = self._items[position] = self._recipe.result(position)
        return item

    def _built(self) -> tuple[QuestionResult, ...]:
        if self._all is None:
            self._all = tuple(map(self._item, range(len(self._items))))
        return self._all

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> QuestionResult: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[QuestionResult, ...]: ...

    def __getitem__(self, index: int | slice) -> QuestionResult | tuple[QuestionResult, ...]:
        if isinstance(index, slice):
            return self._built()[index]
        return self._item(range(len(self._items))[index])

    def __iter__(self) -> Iterator[QuestionResult]:
        return map(self._item, range(len(self._items)))

    def __reduce__(self) -> tuple[Any, ...]:
        return QuestionResults, (self.columns, self._recipe, self._items)


def question_ids(results: Sequence[QuestionResult]) -> tuple[str, ...]:
    """The question id of each result (kept by :class:`QuestionResults` without building its results)."""
    if isinstance(results, QuestionResults):
        return results.columns.question_ids
    return tuple(result.question_id for result in results)
