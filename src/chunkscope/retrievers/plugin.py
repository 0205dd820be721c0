"""A retriever written in Python by the user: ``python:package.module:function[,key=value...]``."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any

import numpy as np

from chunkscope.model import Chunk, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import Progress, retrievers, tie_break_positions, top_hits
from chunkscope.spec.grammar import FreeParams, format_spec
from chunkscope.spec.plugins import PluginError, call_plugin, check_param_names, check_target, load_function


@retrievers.register("python")
@dataclass(frozen=True, slots=True)
class PythonRetriever:
    """Ranks with ``function(questions, units, **params)`` from the user's module.

    The function receives every question (``Question``: ``.id``, ``.query``) and every retrieval
    unit (``Chunk``: ``.id``, ``.doc``, ``.text``, ``.indexed_text``), and returns one entry per
    question, in order: a mapping ``{unit_id: score}`` or a sequence of ``(unit_id, score)`` pairs.
    The ranking then follows the rule of every retriever: score descending, ties by document id,
    start, end and id; units scoring 0 or less, and units left out, are not retrieved. An unknown
    unit id, a unit given twice or a score that is not a finite number is an error.
    """

    target: str = field(
        metadata={"positional": True, "missing": "python needs package.module:function, e.g. python:myrank:rank"}
    )
    """The function, as ``package.module:function``."""
    params: FreeParams = field(default=(), metadata={"free_params": True})
    """Keyword arguments for the function, sorted by name."""

    def __post_init__(self) -> None:
        check_target(self.target)
        check_param_names(self.params)
        load_function(self.target)  # a module that cannot be imported fails when the spec is read

    def build(self, units: Sequence[Chunk]) -> PluginIndex:
        return PluginIndex(self, units)


class PluginIndex:
    """The units, and their positions by id, for the plugin to rank."""

    def __init__(self, params: PythonRetriever, units: Sequence[Chunk]) -> None:
        self.params = params
        self.label = format_spec(params)
        self.units = list(units)
        self.position = {unit.id: i for i, unit in enumerate(self.units)}
        self.tie_break = tie_break_positions(self.units)

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        function = load_function(self.params.target)
        context = f"ranking {len(questions)} questions over {len(self.units)} units"
        result = call_plugin(self.label, context, function, list(questions), self.units, **dict(self.params.params))
        if isinstance(result, str | bytes | Mapping) or not isinstance(result, Sequence):
            raise PluginError(f"{self.label} returned {type(result).__name__}: expected one ranking per question")
        if len(result) != len(questions):
            raise PluginError(f"{self.label} returned {len(result)} rankings for {len(questions)} questions")
        return [
            top_hits(self._scores(entry, question), self.tie_break, depth)
            for entry, question in zip(result, questions, strict=True)
        ]

    def _scores(self, entry: Any, question: Question) -> np.ndarray:
        """Every unit's score for one question (0 for units the plugin left out)."""
        where = f"{self.label}: question '{question.id}'"
        pairs = entry.items() if isinstance(entry, Mapping) else entry
        if isinstance(pairs, str | bytes) or not _iterable(pairs):
            expected = "{unit_id: score} or (unit_id, score) pairs"
            raise PluginError(f"{where}: got {type(entry).__name__}, expected {expected}")
        scores = np.zeros(len(self.units), dtype=np.float64)
        seen: set[int] = set()
        for item in pairs:
            unit_id, score = _pair(item, where)
            position = self.position.get(unit_id) if isinstance(unit_id, str) else None
            if position is None:
                raise PluginError(f"{where}: unknown unit id {_short(unit_id)}")
            if position in seen:
                raise PluginError(f"{where}: unit '{unit_id}' is ranked twice")
            seen.add(position)
            scores[position] = score
        return scores


def _iterable(value: object) -> bool:
    try:
        iter(value)  # type: ignore[call-overload]
    except TypeError:
        return False
    return True


def _pair(item: object, where: str) -> tuple[object, float]:
    """``(unit_id, score)`` with a finite real score (not a bool), or PluginError."""
    unit_id: object
    score: Any
    try:
        unit_id, score = item  # type: ignore[misc]
    except (TypeError, ValueError):
        raise PluginError(f"{where}: got {_short(item)}, expected a (unit_id, score) pair") from None
    value = _finite(score)
    if value is None:
        raise PluginError(f"{where}: unit {_short(unit_id)} has score {_short(score)}, expected a finite number")
    return unit_id, value


def _finite(score: object) -> float | None:
    """``score`` as a finite float; None for a bool, a non-number, NaN, an infinity or an int beyond floats."""
    if isinstance(score, bool) or not isinstance(score, Real):
        return None
    try:
        value = float(score)
    except OverflowError:  # an int (or Fraction) past float's range
        return None
    return value if math.isfinite(value) else None


def _short(value: object) -> str:
    try:
        shown = repr(value)
    except ValueError:  # an int past Python's digit limit for conversion to text
        return f"an integer of some {int(value.bit_length() * 0.30103):,} digits" if isinstance(value, int) else "?"
    return shown if len(shown) <= 60 else shown[:59] + "…"
