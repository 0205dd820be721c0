"""Fragility: does a question's state survive small changes of the chunk size and overlap?

A question that is ``OK`` under one setting and lost at +10% size is luck, not
design. For a configuration whose chunker has a size parameter, its *neighbours*
are the same configuration with the size, or the overlap, nudged:

* a chunker with a size and an overlap parameter (``fixed``, ``recursive``,
  ``textsplitter``, ``semchunk``: ``size``/``overlap``; ``langchain``:
  ``chunk_size``/``chunk_overlap``), in characters or tokens alike: the size at
  -20%, -10%, +10% and +20% with the overlap kept, then the overlap at -20%,
  -10%, +10% and +20% with the size kept. An overlap of 0 cannot be scaled, so
  it becomes 5%, 10%, 15% and 20% *of the size* instead;
* a chunker with a size parameter only (``markdown``: ``max_chars``): the size
  at -20%, -15%, -10%, -5%, +5%, +10%, +15% and +20%.

That is eight neighbours, in this order. Each new value is rounded half up to a
whole number (``(value * percent + 50) // 100`` on integers, so no float
rounding is involved). A neighbour is dropped when its value equals the base
value, when the chunker rejects it (a size below 1, an overlap not smaller than
the size), or when its canonical spec equals an earlier neighbour's: small
sizes therefore have fewer than eight neighbours (``fixed:size=10`` has six).
A chunker without a size parameter (``paragraph``, ``imported``, ``parent``
and plugins) has no neighbours, and asking for its fragility is an error.

A question's *state* is its failure cause
(:func:`chunkscope.analysis.diagnose.failure_cause`: ``OK``, ``CUT``,
``NOT-RETRIEVED``, ...). Its *fragility* is the share of neighbours under which
its state differs from its state under the base configuration: ``changed /
neighbours``. Each question gets one verdict:

* ``robust OK``: ``OK`` under the base and under every neighbour;
* ``fragile OK``: ``OK`` under the base, not ``OK`` under at least one neighbour;
* ``OK nearby``: not ``OK`` under the base, ``OK`` under at least one neighbour;
* ``not OK``: ``OK`` under neither the base nor any neighbour.

The inspector's one-cell mark (:attr:`FragilityRow.mark`) is ``~`` for fragile
OK, ``+`` for OK nearby and a space otherwise.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from chunkscope.analysis.diagnose import FailureCause, diagnose
from chunkscope.chunkers import parse_chunker
from chunkscope.errors import ChunkscopeError, SpecError
from chunkscope.pipeline.config import short_label
from chunkscope.pipeline.evaluate import Evaluator, Progress
from chunkscope.results import Config, ConfigResult
from chunkscope.spec.grammar import format_spec

__all__ = [
    "FRAGILE_MARK",
    "NEARBY_MARK",
    "OVERLAP_FIELDS",
    "SIZE_FIELDS",
    "FragilityCancelled",
    "FragilityResult",
    "FragilityRow",
    "FragilitySummary",
    "Neighbour",
    "NoNeighbours",
    "Verdict",
    "fragility",
    "fragility_rows",
    "neighbours",
    "scaled",
]

SIZE_FIELDS = ("size", "chunk_size", "max_chars")
"""Names of a chunker's size parameter, first match wins."""
OVERLAP_FIELDS = ("overlap", "chunk_overlap")
"""Names of a chunker's overlap parameter, first match wins."""

RELATIVE_STEPS = (-20, -10, 10, 20)
"""Percent changes of a size or of a non-zero overlap."""
ZERO_OVERLAP_SHARES = (5, 10, 15, 20)
"""An overlap of 0 becomes these percents of the size."""
SIZE_ONLY_STEPS = (-20, -15, -10, -5, 5, 10, 15, 20)
"""Percent changes of the size of a chunker without an overlap parameter."""

FRAGILE_MARK = "~"
"""The inspector's mark of a fragile OK question."""
NEARBY_MARK = "+"
"""The inspector's mark of a question not OK here but OK under some neighbour."""


class NoNeighbours(ChunkscopeError):
    """The configuration has no neighbour to compare with (no size parameter, or every change invalid)."""


class FragilityCancelled(Exception):
    """Raised by :func:`fragility` when its ``cancel`` callable returns True."""


class Verdict(StrEnum):
    """How a question's state fares under the neighbours (see the module docstring)."""

    ROBUST_OK = "robust OK"
    FRAGILE_OK = "fragile OK"
    OK_NEARBY = "OK nearby"
    NOT_OK = "not OK"


@dataclass(frozen=True, slots=True)
class Neighbour:
    """One nudged configuration."""

    config: Config
    """The configuration: the base with one chunker parameter changed (canonical spec)."""
    parameter: str
    """The changed parameter, e.g. ``size`` or ``chunk_overlap``."""
    value: int
    """Its new value."""
    rule: str
    """How the value was made: ``size -20%``, ``overlap +10%``, ``overlap 5% of size``."""


@dataclass(frozen=True, slots=True)
class FragilityRow:
    """One question's state under the base configuration and each neighbour."""

    question_id: str
    """The question."""
    base: FailureCause
    """Its state under the base configuration."""
    states: tuple[FailureCause, ...]
    """Its state under each neighbour, in neighbour order."""

    @property
    def changed(self) -> int:
        """Neighbours under which the state differs from the base state."""
        return sum(state is not self.base for state in self.states)

    @property
    def share(self) -> float:
        """Fragility: ``changed / neighbours`` (0 when there are no neighbours)."""
        return self.changed / len(self.states) if self.states else 0.0

    @property
    def verdict(self) -> Verdict:
        """Robust OK, fragile OK, OK nearby or not OK."""
        ok_nearby = FailureCause.OK in self.states
        if self.base is FailureCause.OK:
            return Verdict.ROBUST_OK if all(state is FailureCause.OK for state in self.states) else Verdict.FRAGILE_OK
        return Verdict.OK_NEARBY if ok_nearby else Verdict.NOT_OK

    @property
    def is_fragile_ok(self) -> bool:
        """OK under the base, not OK under at least one neighbour."""
        return self.verdict is Verdict.FRAGILE_OK

    @property
    def mark(self) -> str:
        """One cell for the question list: ``~`` fragile OK, ``+`` OK nearby, else a space."""
        verdict = self.verdict
        if verdict is Verdict.FRAGILE_OK:
            return FRAGILE_MARK
        if verdict is Verdict.OK_NEARBY:
            return NEARBY_MARK
        return " "


@dataclass(frozen=True, slots=True)
class FragilitySummary:
    """Questions per verdict, and the mean fragility."""

    questions: int
    robust_ok: int
    fragile_ok: int
    ok_nearby: int
    not_ok: int
    changed: int
    """Questions whose state differs under at least one neighbour."""
    mean_share: float
    """Mean fragility over every question (0 without questions)."""

    @property
    def ok(self) -> int:
        """Questions OK under the base configuration."""
        return self.robust_ok + self.fragile_ok


@dataclass(frozen=True, slots=True)
class FragilityResult:
    """Fragility of every question of one configuration."""

    config: Config
    """The base configuration."""
    neighbours: tuple[Neighbour, ...]
    """Its neighbours, in the documented order."""
    rows: tuple[FragilityRow, ...]
    """One row per question, in question-set order."""
    by_question: Mapping[str, FragilityRow] = field(init=False, repr=False, compare=False)
    """The rows by question id (for a list that looks rows up as it draws them)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_question", MappingProxyType({row.question_id: row for row in self.rows}))

    def row(self, question_id: str) -> FragilityRow:
        """The row of one question (KeyError when unknown)."""
        return self.by_question[question_id]

    @property
    def summary(self) -> FragilitySummary:
        """Questions per verdict and the mean fragility."""
        verdicts = [row.verdict for row in self.rows]
        shares = [row.share for row in self.rows]
        return FragilitySummary(
            questions=len(self.rows),
            robust_ok=verdicts.count(Verdict.ROBUST_OK),
            fragile_ok=verdicts.count(Verdict.FRAGILE_OK),
            ok_nearby=verdicts.count(Verdict.OK_NEARBY),
            not_ok=verdicts.count(Verdict.NOT_OK),
            changed=sum(row.changed > 0 for row in self.rows),
            mean_share=sum(shares) / len(shares) if shares else 0.0,
        )

    def most_fragile(self, limit: int | None = None) -> tuple[FragilityRow, ...]:
        """Rows whose state changes under some neighbour, most changes first (then question order)."""
        changed = sorted((row for row in self.rows if row.changed), key=lambda row: -row.changed)
        return tuple(changed if limit is None else changed[:limit])


def scaled(value: int, percent: int) -> int:
    """``value * percent / 100`` rounded half up, in integers."""
    return (value * percent + 50) // 100


def neighbours(config: Config) -> tuple[Neighbour, ...]:
    """The neighbours of ``config`` (see the module docstring); NoNeighbours when it has none."""
    strategy = parse_chunker(config.chunker)
    size_field, overlap_field = _window_fields(strategy, config.chunker)
    size = getattr(strategy, size_field)
    found: list[Neighbour] = []
    seen = {config.chunker}
    for parameter, value, rule in _candidates(strategy, size_field, overlap_field):
        spec = _nudged_spec(strategy, parameter, value)
        if spec is None or spec in seen:
            continue
        seen.add(spec)
        nudged = dataclasses.replace(config, chunker=spec)
        found.append(Neighbour(dataclasses.replace(nudged, label=short_label(nudged)), parameter, value, rule))
    if not found:
        raise NoNeighbours(f"fragility: {config.chunker} has no valid neighbour (size {size} is too small to nudge)")
    return tuple(found)


def _window_fields(strategy: object, spec: str) -> tuple[str, str | None]:
    """The names of the strategy's whole-number size and overlap parameters; NoNeighbours without a size."""
    names = {f.name for f in dataclasses.fields(strategy) if f.init}  # type: ignore[arg-type]
    size = next((name for name in SIZE_FIELDS if name in names), None)
    if size is None or not _whole(getattr(strategy, size)):
        raise NoNeighbours(
            f"fragility needs a chunker with a size parameter (fixed, recursive, markdown, ...): {spec} has none"
        )
    overlap = next((name for name in OVERLAP_FIELDS if name in names), None)
    if overlap is not None and not _whole(getattr(strategy, overlap)):
        raise NoNeighbours(f"fragility nudges whole-number overlaps: {spec} has {overlap}={getattr(strategy, overlap)}")
    return size, overlap


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _candidates(strategy: object, size_field: str, overlap_field: str | None) -> list[tuple[str, int, str]]:
    """(parameter, value, rule) for every candidate neighbour, in the documented order, before any is dropped."""
    size: int = getattr(strategy, size_field)
    if overlap_field is None:
        return [(size_field, scaled(size, 100 + step), f"{size_field} {step:+d}%") for step in SIZE_ONLY_STEPS]
    candidates = [(size_field, scaled(size, 100 + step), f"{size_field} {step:+d}%") for step in RELATIVE_STEPS]
    overlap: int = getattr(strategy, overlap_field)
    if overlap == 0:
        candidates += [
            (overlap_field, scaled(size, share), f"{overlap_field} {share}% of {size_field}")
            for share in ZERO_OVERLAP_SHARES
        ]
    else:
        candidates += [
            (overlap_field, scaled(overlap, 100 + step), f"{overlap_field} {step:+d}%") for step in RELATIVE_STEPS
        ]
    return candidates


def _nudged_spec(strategy: object, parameter: str, value: int) -> str | None:
    """The canonical spec of ``strategy`` with ``parameter`` set to ``value``; None when the chunker rejects it."""
    if getattr(strategy, parameter) == value:
        return None
    try:
        nudged = dataclasses.replace(strategy, **{parameter: value})  # type: ignore[type-var]
        return format_spec(parse_chunker(format_spec(nudged)))
    except (ValueError, TypeError, SpecError):
        return None


def fragility(
    evaluator: Evaluator,
    config: Config,
    *,
    progress: Progress | None = None,
    cancel: Callable[[], bool] | None = None,
) -> FragilityResult:
    """Evaluate ``config`` and its neighbours (cached by ``evaluator``) and compare each question's states.

    ``progress`` is called with (``fragility``, configurations done, configurations in all) before each
    evaluation and once at the end; ``cancel`` is asked before each evaluation, and FragilityCancelled is
    raised when it returns True.
    """
    nearby = neighbours(config)
    configs = [config, *(neighbour.config for neighbour in nearby)]
    results: list[ConfigResult] = []
    for done, each in enumerate(configs):
        if cancel is not None and cancel():
            raise FragilityCancelled(f"fragility of {config.label} cancelled")
        if progress is not None:
            progress("fragility", done, len(configs))
        results.append(evaluator.evaluate(each))
    if progress is not None:
        progress("fragility", len(configs), len(configs))
    return FragilityResult(config, nearby, fragility_rows(results[0], results[1:]))


def fragility_rows(base: ConfigResult, nearby: Sequence[ConfigResult]) -> tuple[FragilityRow, ...]:
    """Each question's state under ``base`` and under each of ``nearby`` (same questions, same order)."""
    base_causes = diagnose(base).causes
    nearby_causes = [diagnose(result).causes for result in nearby]
    for causes in nearby_causes:
        if [qid for qid, _ in causes] != [qid for qid, _ in base_causes]:
            raise ValueError("fragility: the neighbour results do not hold the base result's questions")
    return tuple(
        FragilityRow(qid, cause, tuple(causes[index][1] for causes in nearby_causes))
        for index, (qid, cause) in enumerate(base_causes)
    )
