"""The search space of ``chunkscope tune``: a TOML file and the grid options, expanded into configurations."""

from __future__ import annotations

import argparse
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chunkscope.cli import common
from chunkscope.cli.sweep_cmd import PRESETS, alpha_retrievers, grid_chunkers, number_list
from chunkscope.errors import ChunkscopeError, InputError
from chunkscope.io.text import read_text
from chunkscope.pipeline.config import make_config
from chunkscope.results import Config

SPACE_KEYS = ("preset", "chunkers", "sizes", "overlaps", "retrievers", "alpha", "top_k")


@dataclass(frozen=True, slots=True)
class Space:
    """The axes of a search space; the configurations are their product."""

    chunkers: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    overlaps: tuple[float, ...] = ()
    retrievers: tuple[str, ...] = ()
    alphas: tuple[float, ...] = ()
    top_ks: tuple[int, ...] = ()
    preset: str | None = None
    notes: list[str] = field(default_factory=list, compare=False)


def read_space(path: str) -> Space:
    """A TOML search space: ``chunkers``, ``sizes``, ``overlaps``, ``retrievers``, ``alpha``, ``top_k``, ``preset``."""
    text, _ = read_text(Path(path), "search space")
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(path, f"invalid TOML: {error}") from None
    unknown = sorted(set(table) - set(SPACE_KEYS))
    if unknown:
        raise InputError(path, f"unknown key (valid: {', '.join(SPACE_KEYS)})", field=unknown[0])
    preset = table.get("preset")
    if preset is not None and preset not in PRESETS:
        raise InputError(path, f"must be one of {', '.join(sorted(PRESETS))}", field="preset")
    return Space(
        chunkers=_strings(path, table, "chunkers"),
        sizes=tuple(_number(path, "sizes", v, integer=True) for v in _list(path, table, "sizes")),  # type: ignore[misc]
        overlaps=tuple(_number(path, "overlaps", v) for v in _list(path, table, "overlaps")),
        retrievers=_strings(path, table, "retrievers"),
        alphas=tuple(_number(path, "alpha", v, upper=1.0) for v in _list(path, table, "alpha")),
        top_ks=tuple(_number(path, "top_k", v, integer=True) for v in _list(path, table, "top_k")),  # type: ignore[misc]
        preset=preset,
    )


def _list(path: str, table: dict[str, Any], key: str) -> list[Any]:
    value = table.get(key, [])
    if not isinstance(value, list):
        raise InputError(path, "must be a list", field=key)
    return value


def _strings(path: str, table: dict[str, Any], key: str) -> tuple[str, ...]:
    values = _list(path, table, key)
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise InputError(path, "must be a list of spec strings", field=key)
    return tuple(values)


def _number(path: str, key: str, value: object, integer: bool = False, upper: float | None = None) -> float:
    wrong = isinstance(value, bool) or not isinstance(value, int | float) or (integer and not isinstance(value, int))
    if wrong or value < (1 if integer else 0) or (upper is not None and value > upper):  # type: ignore[operator]
        kind = "whole numbers >= 1" if integer else "numbers >= 0" + (f" and <= {upper:g}" if upper else "")
        raise InputError(path, f"must be a list of {kind}, got {value!r}", field=key)
    return value  # type: ignore[return-value]


def merged_space(args: argparse.Namespace) -> Space:
    """The TOML space (``--space``) with the grid options added to each axis."""
    base = read_space(args.space) if args.space else Space()
    return Space(
        chunkers=base.chunkers + tuple(args.chunker or ()),
        sizes=base.sizes + tuple(args.size or ()),
        overlaps=base.overlaps + tuple(args.overlap or ()),
        retrievers=base.retrievers + tuple(args.retriever or ()),
        alphas=base.alphas + tuple(args.hybrid_alpha or ()),
        top_ks=base.top_ks + tuple(args.top_k or ()),
        preset=args.preset or base.preset,
    )


def space_configs(space: Space, args: argparse.Namespace) -> tuple[list[Config], list[str]]:
    """Every configuration of the space (duplicates removed, order kept), and notes on skipped combinations."""
    specs: list[str] = []
    notes: list[str] = []
    if space.overlaps and not space.sizes:
        raise ChunkscopeError("the search space gives overlaps but no sizes for them")
    if space.sizes:
        specs, notes = grid_chunkers(space.sizes, space.overlaps or (0.0,))
    specs += space.chunkers
    if space.preset:
        specs = list(PRESETS[space.preset]) + specs
    defaults = common.spec_defaults(args)
    retrievers: list[str] = []
    hybrids = [r for r in space.retrievers if r.split(":", 1)[0].strip() == "hybrid"]
    if space.alphas and not hybrids:
        raise ChunkscopeError(
            "the search space gives alphas but no hybrid retriever (hybrid:bm25+dense) to apply them to"
        )
    for retriever in space.retrievers or ("bm25",):
        hybrid = retriever in hybrids
        retrievers += alpha_retrievers(retriever, space.alphas if hybrid and space.alphas else None, defaults)
    configs = [
        make_config(
            spec, retriever, top_k, args.budget, args.overflow, defaults, **common.budget_unit(args)
        )
        for spec in specs
        for retriever in retrievers
        for top_k in space.top_ks or (5,)
    ]  # fmt: skip
    unique = list(dict.fromkeys(configs))
    if not unique:
        raise ChunkscopeError(
            "the search space is empty: give --space FILE, --preset, --size or --chunker (docs/cli.md, chunkscope tune)"
        )
    return unique, notes


def int_list(text: str) -> list[int]:
    """argparse type: comma-separated whole numbers >= 1."""
    values = number_list(text)
    if any(value != int(value) or value < 1 for value in values):
        raise argparse.ArgumentTypeError(f"expected comma-separated whole numbers >= 1, got {text!r}")
    return [int(value) for value in values]
