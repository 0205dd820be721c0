"""Chunkers, registered by name; importing this package registers the built-ins."""

from chunkscope.chunkers import fixed, imported, markdown, paragraph, parent, recursive
from chunkscope.chunkers.base import Chunking, chunk_corpus, chunkers

__all__ = [
    "Chunking",
    "chunk_corpus",
    "chunkers",
    "fixed",
    "imported",
    "markdown",
    "paragraph",
    "parent",
    "parse_chunker",
    "recursive",
]


def parse_chunker(spec: str) -> object:
    """Parse a chunker spec string such as ``fixed:size=400,overlap=80``."""
    return chunkers.parse(spec)
