"""Configuration strings: ``CHUNKER[/RETRIEVER]`` as used by compare, sweep and the inspector."""

from __future__ import annotations

import re

from chunkscope.chunkers import parse_chunker
from chunkscope.pipeline.cost import chunker_tokenizers
from chunkscope.results import Config, Overflow
from chunkscope.retrievers import parse_retriever, retrievers
from chunkscope.spec.grammar import NO_DEFAULTS, SpecDefaults, format_spec
from chunkscope.tokenize.counting import check_counter_name

PUBLISHED_CHUNKERS = (
    "fixed:size=100",
    "fixed:size=100,overlap=20",
    "fixed:size=200",
    "fixed:size=200,overlap=40",
    "fixed:size=400",
    "fixed:size=400,overlap=80",
    "fixed:size=800,overlap=160",
    "paragraph",
)
"""The published eight: fixed 100/200/400 with 0% and 20% overlap, 800 with 20%, paragraphs."""


_SPEC_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(:|$)")


def split_config(text: str, default_retriever: str = "bm25") -> tuple[str, str]:
    """Split ``fixed:size=400,overlap=80/bm25`` into its chunker and retriever specs.

    The retriever is optional; the first ``/`` outside parentheses and quotes that is followed by a
    registered retriever name separates them, so paths inside parameters keep their slashes.
    """
    depth = 0
    quoted = False
    separator = None
    fallback = None
    for position, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "/" and depth == 0 and separator is None:
            rest = text[position + 1 :]
            if _starts_retriever(rest):
                separator = position
            elif _SPEC_NAME.match(rest):
                fallback = position  # an unknown name: split so the error names the retriever
    separator = separator if separator is not None else fallback
    if separator is None:
        return text.strip(), default_retriever
    return text[:separator].strip(), text[separator + 1 :].strip()


def _starts_retriever(rest: str) -> bool:
    """True when ``rest`` begins with a registered retriever name (so '/' in a path is not a separator)."""
    name = rest.split(":", 1)[0].split(",", 1)[0].strip()
    return name in retrievers


def make_config(
    chunker: str,
    retriever: str = "bm25",
    top_k: int = 5,
    budget: int | None = None,
    overflow: Overflow = "stop",
    defaults: SpecDefaults = NO_DEFAULTS,
    *,
    budget_unit: str = "chars",
    budget_tokenizer: str | None = None,
) -> Config:
    """A Config with both specs parsed, validated and written in canonical form, and its display label.

    ``defaults`` (see ``SpecDefaults``) fills parameters the specs leave out; the Config's specs then
    say them, so a Config never depends on how it was made. ``budget_unit`` is ``chars`` or
    ``tokens``; a budget in tokens counts those of ``budget_tokenizer``, or, when it is None, of the
    tokenizer the chunker cuts tokens of.
    """
    if top_k < 1:
        raise ValueError(f"--top-k must be at least 1, got {top_k}")
    if budget is not None and budget < 0:
        raise ValueError(f"--budget must not be negative, got {budget}")
    if overflow not in ("stop", "skip", "truncate"):
        raise ValueError(f"--overflow must be stop, skip or truncate, got {overflow!r}")
    chunker_strategy = parse_chunker(chunker, defaults)
    retriever_strategy = parse_retriever(retriever, defaults)
    return Config(
        chunker=format_spec(chunker_strategy),
        retriever=format_spec(retriever_strategy),
        top_k=top_k,
        budget=budget,
        overflow=overflow,
        budget_tokenizer=_budget_tokenizer(budget_unit, budget_tokenizer, chunker_strategy),
        label=f"{format_spec(chunker_strategy, short=True)}/{format_spec(retriever_strategy, short=True)}",
    )


def _budget_tokenizer(unit: str, tokenizer: str | None, chunker: object) -> str | None:
    """The counting tokenizer of a budget in ``unit`` (None for characters); ValueError when it cannot be told."""
    if unit not in ("chars", "tokens"):
        raise ValueError(f"--budget-unit must be chars or tokens, got {unit!r}")
    if unit == "chars":
        if tokenizer is not None:
            raise ValueError(f"--budget-tokenizer {tokenizer} needs --budget-unit tokens")
        return None
    if tokenizer is None:
        names = chunker_tokenizers(chunker)
        if len(names) != 1:
            cut = f"cuts tokens of {' and '.join(names)}" if names else "counts characters"
            raise ValueError(f"--budget-unit tokens needs --budget-tokenizer: the chunker {cut}")
        tokenizer = names[0]
    check_counter_name(tokenizer)
    return None if tokenizer == "chars" else tokenizer


def parse_config(
    text: str,
    default_retriever: str = "bm25",
    top_k: int = 5,
    budget: int | None = None,
    overflow: Overflow = "stop",
    defaults: SpecDefaults = NO_DEFAULTS,
    *,
    budget_unit: str = "chars",
    budget_tokenizer: str | None = None,
) -> Config:
    """Parse ``CHUNKER[/RETRIEVER]`` into a canonical Config (budget unit: see :func:`make_config`)."""
    chunker, retriever = split_config(text, default_retriever)
    return make_config(
        chunker,
        retriever,
        top_k,
        budget,
        overflow,
        defaults,
        budget_unit=budget_unit,
        budget_tokenizer=budget_tokenizer,
    )


def short_spec(spec: str, kind: str) -> str:
    """A canonical spec with default-valued parameters left out."""
    strategy = parse_chunker(spec) if kind == "chunker" else parse_retriever(spec)
    return format_spec(strategy, short=True)


def short_label(config: Config) -> str:
    """``chunker/retriever`` in short form, from the specs (what ``make_config`` stores as the label)."""
    return f"{short_spec(config.chunker, 'chunker')}/{short_spec(config.retriever, 'retriever')}"
