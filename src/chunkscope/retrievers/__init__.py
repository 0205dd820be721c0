"""Retrievers, registered by name; importing this package registers the built-ins."""

from chunkscope.results import Ranking
from chunkscope.retrievers import bm25, dense, engine, hybrid, overlap, plugin, rerank, rrf, run
from chunkscope.retrievers.base import Retriever, RetrieverIndex, retrievers
from chunkscope.spec.grammar import NO_DEFAULTS, SpecDefaults

__all__ = [
    "Ranking",
    "Retriever",
    "RetrieverIndex",
    "bm25",
    "dense",
    "engine",
    "hybrid",
    "overlap",
    "parse_retriever",
    "plugin",
    "rerank",
    "retrievers",
    "rrf",
    "run",
]


def parse_retriever(spec: str, defaults: SpecDefaults = NO_DEFAULTS) -> Retriever:
    """Parse a retriever spec string such as ``bm25:k1=1.2`` (``defaults``: see ``SpecDefaults``)."""
    return retrievers.parse(spec, defaults)
