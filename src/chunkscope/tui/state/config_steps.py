"""The live-configuration keys: the ladders they climb and the neighbouring configuration each key asks for.

Every function takes a canonical Config and returns one (built through ``make_config``, so a spec
the core would reject never reaches the worker); StepError says why a key does not apply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Container, Sequence
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
"""Chunk sizes in characters ``+``/``-`` step through."""
TOKEN_SIZE_STEPS: tuple[int, ...] = (16, 32, 64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048)
"""Chunk sizes in tokens ``+``/``-`` step through (a chunker with ``unit=tokens``)."""
SIZE_FIELDS: tuple[str, ...] = ("size", "max_chars", "chunk_size")
"""Chunker parameters that set a chunk's size, in the order they are looked for."""
OVERLAP_FIELDS: tuple[str, ...] = ("overlap", "chunk_overlap")
"""Chunker parameters that set the overlap of consecutive chunks, in the order they are looked for."""
OVERLAP_SHARES: tuple[float, ...] = (0.0, 0.2, 0.5)
"""Overlap as a share of the size, cycled by ``o``: none, the studies' 20%, half (the crowding case)."""
TOP_K_STEPS: tuple[int, ...] = (1, 2, 3, 5, 10, 20)
BUDGET_STEPS: tuple[int | None, ...] = (None, 200, 300, 400, 600, 800, 1000, 1200, 1600, 2000, 4000)
"""Context budgets in characters; ``None`` is no budget."""
TOKEN_BUDGET_STEPS: tuple[int | None, ...] = (None, 50, 100, 150, 200, 300, 400, 500, 800, 1000, 2000)
"""Context budgets in tokens (a budget unit of tokens); ``None`` is no budget."""
BUDGET_TOKENIZERS: tuple[str, ...] = ("cl100k", "o200k", "e5", "e5-enpt")
"""Counting tokenizers a budget in tokens can count, in the order ``U`` cycles through them after characters."""
OVERFLOWS: tuple[Overflow, ...] = ("stop", "skip", "truncate")

StrategyKind = Literal["chunker", "retriever"]

SIZE_REFERENCE = "size reference"
"""The key of the cycle state that holds the last chunker with a size, the one a chunker new to the session is
sized like."""
UNSIZED = "unsized"
"""The key of the cycle state that holds the chunker the cycle last reached with its defaults (no size carried
over to it): passing it does not make its default size the reference."""


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
    return _chunker_of(config.chunker, config.label)


def _chunker_of(spec: str, label: str) -> _Chunker:
    chunker = parse_chunker(spec)
    if not dataclasses.is_dataclass(chunker) or isinstance(chunker, type):
        raise StepError(f"{label}: this chunker has no parameters to step (edit it with e)")
    values: dict[str, object] = {f.name: getattr(chunker, f.name) for f in dataclasses.fields(chunker) if f.init}
    ints = {name: value for name, value in values.items() if isinstance(value, int) and not isinstance(value, bool)}
    return _Chunker(chunker, ints)


def _field_in(names: Sequence[str], fields: Container[str]) -> str | None:
    """The first of ``names`` among ``fields`` (a chunker's parameter names), if any."""
    return next((name for name in names if name in fields), None)


def _size_ladder(chunker: _Chunker) -> tuple[int, ...]:
    """The sizes the size keys step: in tokens for a chunker sized in tokens, else in characters."""
    return TOKEN_SIZE_STEPS if getattr(chunker.instance, "unit", "chars") == "tokens" else SIZE_STEPS


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
    """The next larger (``direction`` 1) or smaller (-1) size on SIZE_STEPS (TOKEN_SIZE_STEPS for a chunker
    sized in tokens), overlap kept in proportion."""
    chunker = _parsed_chunker(config)
    name = _field_in(SIZE_FIELDS, chunker.ints)
    if name is None:
        raise StepError(f"{config.label}: this chunker has no size parameter (edit it with e)")
    size = chunker.ints[name]
    candidates = [s for s in _size_ladder(chunker) if (s > size if direction > 0 else s < size)]
    if not candidates:
        raise StepError(f"size {size} is already the {'largest' if direction > 0 else 'smallest'} step")
    new_size = candidates[0] if direction > 0 else candidates[-1]
    changes: dict[str, int] = {name: new_size}
    overlap_name = _field_in(OVERLAP_FIELDS, chunker.ints)
    overlap = chunker.ints[overlap_name] if overlap_name is not None else 0
    if overlap_name is not None and overlap:
        changes[overlap_name] = min(round(overlap * new_size / size), new_size - 1)
    return _with_chunker(config, replace(chunker.instance, **changes))


def cycle_overlap(config: Config) -> Config:
    """The next overlap share of OVERLAP_SHARES above the current one (back to none after the last)."""
    chunker = _parsed_chunker(config)
    size_name = _field_in(SIZE_FIELDS, chunker.ints)
    overlap_name = _field_in(OVERLAP_FIELDS, chunker.ints)
    if overlap_name is None or size_name is None:
        raise StepError(f"{config.label}: this chunker has no overlap parameter (edit it with e)")
    size, overlap = chunker.ints[size_name], chunker.ints[overlap_name]
    choices = sorted({min(round(share * size), size - 1) for share in OVERLAP_SHARES})
    larger = [value for value in choices if value > overlap]
    return _with_chunker(config, replace(chunker.instance, **{overlap_name: larger[0] if larger else 0}))


def has_size(spec: str) -> bool:
    """The chunker ``spec`` has a size parameter (one of SIZE_FIELDS)."""
    try:
        return _field_in(SIZE_FIELDS, _chunker_of(spec, spec).ints) is not None
    except (StepError, ChunkscopeError, ValueError, TypeError):
        return False


def comparable_chunker(name: str, reference: str) -> str:
    """Chunker ``name`` sized like the chunker spec ``reference``: its size, overlap, unit and tokenizer carried
    over to the parameters ``name`` has (``fixed:size=200`` makes ``langchain`` ``chunk_size=200,chunk_overlap=0``,
    not the library's 4000 that holds whole documents). The bare name when there is nothing to carry over."""
    try:
        current = _chunker_of(reference, reference)
        target = parse_chunker(name)
    except (StepError, ChunkscopeError, ValueError, TypeError):
        return name
    size_name = _field_in(SIZE_FIELDS, current.ints)
    if not dataclasses.is_dataclass(target) or isinstance(target, type) or size_name is None:
        return name
    fields = {f.name for f in dataclasses.fields(target) if f.init}
    target_size = _field_in(SIZE_FIELDS, fields)
    if target_size is None:
        return name
    changes: dict[str, object] = {target_size: current.ints[size_name]}
    unit = getattr(current.instance, "unit", "chars")
    if "unit" in fields:
        changes["unit"] = unit
        changes["tokenizer"] = getattr(current.instance, "tokenizer", None)
    elif unit != "chars":
        return name  # a size in tokens means nothing to a chunker that counts characters
    target_overlap = _field_in(OVERLAP_FIELDS, fields)
    if target_overlap is not None:
        overlap_name = _field_in(OVERLAP_FIELDS, current.ints)
        changes[target_overlap] = current.ints[overlap_name] if overlap_name is not None else 0
    try:
        return format_spec(replace(target, **changes))
    except (ChunkscopeError, ValueError, TypeError):
        return name


class UnavailableStrategy(StepError):
    """The cycle reached a strategy whose optional extra is not installed: the keys go on past it."""

    def __init__(self, kind: StrategyKind, name: str, error: MissingExtraError) -> None:
        super().__init__(f"{name}: not installed. {error}")
        self.kind = kind
        self.name = name
        self.error = error


def _default_problem(kind: StrategyKind, name: str) -> Exception | None:
    """Why strategy ``name`` does not work with default parameters (None: it does).

    A missing optional extra (``dense`` without ``chunkscope[dense]``) is such a reason, like a
    required parameter.
    """
    parse = parse_chunker if kind == "chunker" else parse_retriever
    try:
        parse(name)
    except (ChunkscopeError, ValueError, TypeError) as error:
        return error
    return None


def missing_extra(kind: StrategyKind, name: str) -> MissingExtraError | None:
    """The error naming the extra to install when strategy ``name`` needs one that is missing; else None."""
    problem = _default_problem(kind, name)
    return problem if isinstance(problem, MissingExtraError) else None


def cyclable_names(kind: StrategyKind) -> tuple[str, ...]:
    """Registered strategies of ``kind`` that work with default parameters, and those that would once their
    extra is installed (the ones c / r cycle through; an unavailable one says how to install it)."""
    return tuple(
        name
        for name in registry(kind).names
        if missing_extra(kind, name) is not None or _default_problem(kind, name) is None
    )


def missing_extras(kind: StrategyKind) -> tuple[MissingExtraError, ...]:
    """Why registered strategies of ``kind`` do not run for want of an optional extra."""
    problems = (missing_extra(kind, name) for name in registry(kind).names)
    return tuple(problem for problem in problems if problem is not None)


def spec_name(spec: str) -> str:
    """The strategy name of a spec string (``fixed`` for ``fixed:size=200``)."""
    return spec.split(":", 1)[0]


def cycle_strategy(
    config: Config,
    kind: StrategyKind,
    step: int,
    remembered: dict[str, str],
    cycle_state: dict[str, str] | None = None,
) -> Config:
    """The next chunker or retriever by name; a strategy used before comes back with its last parameters, a
    chunker new to the session comes sized like the current one (:func:`comparable_chunker`).

    Reaching a strategy whose extra is missing raises UnavailableStrategy, whose message says how to install it;
    ``cycle_state`` remembers it (per ``kind`` and current spec, ``"chunker fixed:size=200"``), so the next key goes
    on from it instead of stopping there again, and the chunker sizes are carried from (SIZE_REFERENCE, UNSIZED).
    """
    current = config.chunker if kind == "chunker" else config.retriever
    state = {} if cycle_state is None else cycle_state
    reached = state.pop(f"{kind} {current}", None)
    # Keyed by kind too: a name can be both a chunker and a retriever (python:).
    remembered[f"{kind} {spec_name(current)}"] = current
    used = [key.split(" ", 1)[1] for key in remembered if key.startswith(f"{kind} ")]
    # A strategy that needs parameters (a python: plugin) joins the cycle once it has been used.
    names = tuple(sorted({*cyclable_names(kind), *used}))
    name = cycle(names, reached if reached in names else spec_name(current), step)
    if name == spec_name(current) and reached is not None:  # back over the one it stopped at: on from here
        name = cycle(names, spec_name(current), step)
    if name == spec_name(current):
        missing = missing_extras(kind)
        why = f" ({'; '.join(str(error) for error in missing)})" if missing else ""
        raise StepError(f"{name} is the only {kind} available{why}")
    missing_one = missing_extra(kind, name)
    if missing_one is not None:
        state[f"{kind} {current}"] = name
        raise UnavailableStrategy(kind, name, missing_one)
    if kind == "chunker":
        # Sized like the last chunker with a size of its own: the cycle passes chunkers without one (paragraph)
        # or that could not take it (markdown from a size in tokens), and they do not set the size after them.
        if has_size(current) and current != state.get(UNSIZED):
            state[SIZE_REFERENCE] = current
        reference = state.get(SIZE_REFERENCE, current)
        spec = remembered.get(f"{kind} {name}") or comparable_chunker(name, reference)
        stepped = with_chunker_spec(config, spec)
        if spec == name:
            state[UNSIZED] = stepped.chunker
        return stepped
    spec = remembered.get(f"{kind} {name}", name)
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
    """The next or previous budget of BUDGET_STEPS, or TOKEN_BUDGET_STEPS for a budget in tokens (no budget after
    the largest), wrapping around."""
    ladder = BUDGET_STEPS if config.budget_tokenizer is None else TOKEN_BUDGET_STEPS
    return replace(config, budget=_ladder_step(ladder, config.budget, step))


def cycle_budget_unit(config: Config) -> Config:
    """What the budget counts, next: characters, then the tokens of each of BUDGET_TOKENIZERS, then characters.
    The budget's number stays (``b`` then steps the ladder of the new unit)."""
    units: tuple[str | None, ...] = (None, *BUDGET_TOKENIZERS)
    current = config.budget_tokenizer if config.budget_tokenizer in units else None
    tokenizer = units[(units.index(current) + 1) % len(units)]
    return replace(config, budget_tokenizer=tokenizer)


def cycle_overflow(config: Config) -> Config:
    """stop -> skip -> truncate -> stop."""
    return replace(config, overflow=OVERFLOWS[(OVERFLOWS.index(config.overflow) + 1) % len(OVERFLOWS)])


def config_step(
    name: str, step: int, remembered: dict[str, str], cycle_state: dict[str, str] | None = None
) -> Callable[[Config], Config]:
    """The configuration change a key asks for, as a function of the current configuration.

    ``remembered`` is the last spec used per strategy kind and name (``"chunker fixed"``), so cycling back
    restores its parameters; ``cycle_state``, what the c / r cycles keep besides (see :func:`cycle_strategy`).
    """
    steps: dict[str, Callable[[Config], Config]] = {
        "chunker": lambda c: cycle_strategy(c, "chunker", step, remembered, cycle_state),
        "retriever": lambda c: cycle_strategy(c, "retriever", step, remembered, cycle_state),
        "size": lambda c: step_size(c, step),
        "overlap": cycle_overlap,
        "top_k": lambda c: step_top_k(c, step),
        "budget": lambda c: step_budget(c, step),
        "budget_unit": cycle_budget_unit,
        "overflow": cycle_overflow,
    }
    return steps[name]
