"""The live-configuration keys: the ladders they climb and the neighbouring configuration each key asks for.

Every function takes a canonical Config and returns one (built through ``make_config``, so a spec
the core would reject never reaches the worker); StepError says why a key does not apply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from chunkscope.chunkers import parse_chunker
from chunkscope.errors import ChunkscopeError, MissingExtraError
from chunkscope.pipeline.config import make_config
from chunkscope.results import Config, Overflow
from chunkscope.retrievers import parse_retriever
from chunkscope.spec.grammar import format_spec
from chunkscope.spec.registry import registry
from chunkscope.tui.state.stepping import cycle

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

SIZE_STEPS: tuple[int, ...] = (50, 100, 150, 200, 300, 400, 500, 600, 800, 1000, 1200, 1600, 2000, 3000, 4000)
"""Chunk sizes ``+``/``-`` step through."""
SIZE_FIELDS: tuple[str, ...] = ("size", "max_chars")
"""Chunker parameters that set a chunk's size, in the order they are looked for."""
OVERLAP_SHARES: tuple[float, ...] = (0.0, 0.2, 0.5)
"""Overlap as a share of the size, cycled by ``o``: none, the studies' 20%, half (the crowding case)."""
TOP_K_STEPS: tuple[int, ...] = (1, 2, 3, 5, 10, 20)
BUDGET_STEPS: tuple[int | None, ...] = (None, 200, 300, 400, 600, 800, 1000, 1200, 1600, 2000, 4000)
"""Context budgets in characters; ``None`` is no budget."""
OVERFLOWS: tuple[Overflow, ...] = ("stop", "skip", "truncate")

StrategyKind = Literal["chunker", "retriever"]


class StepError(Exception):
    """A configuration key that cannot apply to the current configuration (shown as a notification)."""


def overflow_named(name: str) -> Overflow:
    """The overflow policy called ``name`` (ValueError when there is none)."""
    for overflow in OVERFLOWS:
        if overflow == name:
            return overflow
    raise ValueError(f"overflow must be {', '.join(OVERFLOWS)}, got {name!r}")


@dataclass(frozen=True, slots=True)
class _Chunker:
    """A parsed chunker and its whole-number parameters (the ones the keys step)."""

    instance: DataclassInstance
    ints: dict[str, int]


def _parsed_chunker(config: Config) -> _Chunker:
    chunker = parse_chunker(config.chunker)
    if not dataclasses.is_dataclass(chunker) or isinstance(chunker, type):
        raise StepError(f"{config.label}: this chunker has no parameters to step (edit it with e)")
    values: dict[str, object] = {f.name: getattr(chunker, f.name) for f in dataclasses.fields(chunker) if f.init}
    ints = {name: value for name, value in values.items() if isinstance(value, int) and not isinstance(value, bool)}
    return _Chunker(chunker, ints)


def _with_chunker(config: Config, chunker: object) -> Config:
    return with_chunker_spec(config, format_spec(chunker))


def with_chunker_spec(config: Config, spec: str) -> Config:
    """``config`` with another chunker spec; the retriever and the delivery settings stay."""
    return make_config(
        spec,
        config.retriever,
        config.top_k,
        config.budget,
        config.overflow,
        budget_unit=config.budget_unit,
        budget_tokenizer=config.budget_tokenizer,
    )


def step_size(config: Config, direction: int) -> Config:
    """The next larger (``direction`` 1) or smaller (-1) size on SIZE_STEPS, overlap kept in proportion."""
    chunker = _parsed_chunker(config)
    name = next((n for n in SIZE_FIELDS if n in chunker.ints), None)
    if name is None:
        raise StepError(f"{config.label}: this chunker has no size parameter (edit it with e)")
    size = chunker.ints[name]
    candidates = [s for s in SIZE_STEPS if (s > size if direction > 0 else s < size)]
    if not candidates:
        raise StepError(f"size {size} is already the {'largest' if direction > 0 else 'smallest'} step")
    new_size = candidates[0] if direction > 0 else candidates[-1]
    changes: dict[str, int] = {name: new_size}
    overlap = chunker.ints.get("overlap", 0)
    if overlap:
        changes["overlap"] = min(round(overlap * new_size / size), new_size - 1)
    return _with_chunker(config, replace(chunker.instance, **changes))


def cycle_overlap(config: Config) -> Config:
    """The next overlap share of OVERLAP_SHARES above the current one (back to none after the last)."""
    chunker = _parsed_chunker(config)
    size_name = next((n for n in SIZE_FIELDS if n in chunker.ints), None)
    if "overlap" not in chunker.ints or size_name is None:
        raise StepError(f"{config.label}: this chunker has no overlap parameter (edit it with e)")
    size, overlap = chunker.ints[size_name], chunker.ints["overlap"]
    choices = sorted({min(round(share * size), size - 1) for share in OVERLAP_SHARES})
    larger = [value for value in choices if value > overlap]
    return _with_chunker(config, replace(chunker.instance, overlap=larger[0] if larger else 0))


def _default_problem(kind: StrategyKind, name: str) -> Exception | None:
    """Why strategy ``name`` does not work with default parameters (None: it does).

    A missing optional extra (``dense`` without ``chunkscope[dense]``) is such a reason, like a
    required parameter: the c / r cycles skip the strategy instead of failing on every press.
    """
    parse = parse_chunker if kind == "chunker" else parse_retriever
    try:
        parse(name)
    except (ChunkscopeError, ValueError, TypeError) as error:
        return error
    return None


def cyclable_names(kind: StrategyKind) -> tuple[str, ...]:
    """Registered strategies of ``kind`` that work with default parameters (the ones c / r cycle through)."""
    return tuple(name for name in registry(kind).names if _default_problem(kind, name) is None)


def missing_extras(kind: StrategyKind) -> tuple[MissingExtraError, ...]:
    """Why registered strategies of ``kind`` are left out of the cycle for want of an optional extra."""
    problems = (_default_problem(kind, name) for name in registry(kind).names)
    return tuple(problem for problem in problems if isinstance(problem, MissingExtraError))


def spec_name(spec: str) -> str:
    """The strategy name of a spec string (``fixed`` for ``fixed:size=200``)."""
    return spec.split(":", 1)[0]


def cycle_strategy(config: Config, kind: StrategyKind, step: int, remembered: dict[str, str]) -> Config:
    """The next chunker or retriever by name; a strategy used before comes back with its last parameters."""
    current = config.chunker if kind == "chunker" else config.retriever
    # Keyed by kind too: a name can be both a chunker and a retriever (python:).
    remembered[f"{kind} {spec_name(current)}"] = current
    used = [key.split(" ", 1)[1] for key in remembered if key.startswith(f"{kind} ")]
    # A strategy that needs parameters (a python: plugin) joins the cycle once it has been used.
    names = tuple(sorted({*cyclable_names(kind), *used}))
    name = cycle(names, spec_name(current), step)
    if name == spec_name(current):
        missing = missing_extras(kind)
        why = f" ({'; '.join(str(error) for error in missing)})" if missing else ""
        raise StepError(f"{name} is the only {kind} available{why}")
    spec = remembered.get(f"{kind} {name}", name)
    if kind == "chunker":
        return make_config(
            spec,
            config.retriever,
            config.top_k,
            config.budget,
            config.overflow,
            budget_unit=config.budget_unit,
            budget_tokenizer=config.budget_tokenizer,
        )
    return make_config(
        config.chunker,
        spec,
        config.top_k,
        config.budget,
        config.overflow,
        budget_unit=config.budget_unit,
        budget_tokenizer=config.budget_tokenizer,
    )


def _ladder_step(values: Sequence[int | None], current: int | None, step: int) -> int | None:
    """The value ``step`` places from ``current`` on an ascending ladder (``None``, no limit, last), wrapping."""
    ladder: list[int | None] = [*sorted(v for v in values if v is not None), *([None] if None in values else [])]
    if current in ladder:
        return ladder[(ladder.index(current) + step) % len(ladder)]
    # A value from the command line that is not on the ladder: the nearest step in the asked direction.
    assert current is not None
    above = [v for v in ladder if v is None or v > current]
    below = [v for v in ladder if v is not None and v < current]
    if step > 0:
        return above[0] if above else ladder[0]
    return below[-1] if below else ladder[-1]


def step_top_k(config: Config, step: int) -> Config:
    """The next (``step`` 1) or previous (-1) top-k of TOP_K_STEPS, wrapping around."""
    top_k = _ladder_step(TOP_K_STEPS, config.top_k, step)
    assert top_k is not None
    return replace(config, top_k=top_k)


def step_budget(config: Config, step: int) -> Config:
    """The next or previous budget of BUDGET_STEPS (no budget after the largest), wrapping around."""
    return replace(config, budget=_ladder_step(BUDGET_STEPS, config.budget, step))


def cycle_overflow(config: Config) -> Config:
    """stop -> skip -> truncate -> stop."""
    return replace(config, overflow=OVERFLOWS[(OVERFLOWS.index(config.overflow) + 1) % len(OVERFLOWS)])


def config_step(name: str, step: int, remembered: dict[str, str]) -> Callable[[Config], Config]:
    """The configuration change a key asks for, as a function of the current configuration.

    ``remembered`` is the last spec used per strategy kind and name (``"chunker fixed"``), so cycling back
    restores its parameters.
    """
    steps: dict[str, Callable[[Config], Config]] = {
        "chunker": lambda c: cycle_strategy(c, "chunker", step, remembered),
        "retriever": lambda c: cycle_strategy(c, "retriever", step, remembered),
        "size": lambda c: step_size(c, step),
        "overlap": cycle_overlap,
        "top_k": lambda c: step_top_k(c, step),
        "budget": lambda c: step_budget(c, step),
        "overflow": cycle_overflow,
    }
    return steps[name]
