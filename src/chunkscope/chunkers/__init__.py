"""Chunkers, registered by name; importing this package registers the built-ins."""

from chunkscope.chunkers import (
    contextual,
    fixed,
    imported,
    langchain_splitters,
    markdown,
    paragraph,
    parent,
    plugin,
    recursive,
    semchunk_chunker,
    text_splitter,
)
from chunkscope.chunkers.base import Chunker, Chunking, chunk_corpus, chunkers
from chunkscope.spec.grammar import NO_DEFAULTS, SpecDefaults

__all__ = [
    "Chunker",
    "Chunking",
    "chunk_corpus",
    "chunkers",
    "contextual",
    "fixed",
    "imported",
    "langchain_splitters",
    "markdown",
    "paragraph",
    "parent",
    "parse_chunker",
    "plugin",
    "recursive",
    "semchunk_chunker",
    "text_splitter",
]


def parse_chunker(spec: str, defaults: SpecDefaults = NO_DEFAULTS) -> Chunker:
    """Parse a chunker spec string such as ``fixed:size=400,overlap=80`` (``defaults``: see ``SpecDefaults``)."""
    return chunkers.parse(spec, defaults)
