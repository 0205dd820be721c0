"""Configuration strings: ``CHUNKER[/RETRIEVER]`` as used by compare, sweep and the inspector."""

from __future__ import annotations

from chunkscope.chunkers import parse_chunker
from chunkscope.results import Config, Overflow
from chunkscope.retrievers import parse_retriever
from chunkscope.spec import format_spec


def split_config(text: str, default_retriever: str = "bm25") -> tuple[str, str]:
    """Split ``fixed:size=400,overlap=80/bm25`` into its chunker and retriever specs.

    The retriever is optional; the last ``/`` outside parentheses separates them.
    """
    depth = 0
    for position in range(len(text) - 1, -1, -1):
        char = text[position]
        if char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
        elif char == "/" and depth == 0:
            return text[:position].strip(), text[position + 1 :].strip()
    return text.strip(), default_retriever


def make_config(
    chunker: str,
    retriever: str = "bm25",
    top_k: int = 5,
    budget: int | None = None,
    overflow: Overflow = "stop",
) -> Config:
    """A Config with both specs parsed, validated and written in canonical form."""
    if top_k < 1:
        raise ValueError(f"--top-k must be at least 1, got {top_k}")
    if budget is not None and budget < 0:
        raise ValueError(f"--budget must not be negative, got {budget}")
    if overflow not in ("stop", "skip", "truncate"):
        raise ValueError(f"--overflow must be stop, skip or truncate, got {overflow!r}")
    return Config(
        chunker=format_spec(parse_chunker(chunker)),
        retriever=format_spec(parse_retriever(retriever)),
        top_k=top_k,
        budget=budget,
        overflow=overflow,
    )


def parse_config(
    text: str,
    default_retriever: str = "bm25",
    top_k: int = 5,
    budget: int | None = None,
    overflow: Overflow = "stop",
) -> Config:
    """Parse ``CHUNKER[/RETRIEVER]`` into a canonical Config."""
    chunker, retriever = split_config(text, default_retriever)
    return make_config(chunker, retriever, top_k, budget, overflow)


def short_spec(spec: str, kind: str) -> str:
    """A canonical spec with default-valued parameters left out."""
    strategy = parse_chunker(spec) if kind == "chunker" else parse_retriever(spec)
    return format_spec(strategy, short=True)


def short_label(config: Config) -> str:
    """``chunker/retriever`` in short form."""
    return f"{short_spec(config.chunker, 'chunker')}/{short_spec(config.retriever, 'retriever')}"
