"""The chunker contract and the value a chunking produces."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, TypeAlias, runtime_checkable

from chunkscope.model import Chunk, Corpus, Document
from chunkscope.results import ChunkImport
from chunkscope.spec.registry import Registry


@runtime_checkable
class DocumentChunker(Protocol):
    """Splits one document; offsets are computed while splitting, never re-found."""

    def chunk_document(self, document: Document) -> list[Chunk]: ...


@runtime_checkable
class CorpusChunker(Protocol):
    """Chunks a whole corpus at once (parent-child, imported chunks)."""

    def chunk_corpus(self, corpus: Corpus) -> Chunking: ...


@dataclass(frozen=True, slots=True)
class Chunking:
    """The retrieval units of one chunker over one corpus."""

    units: tuple[Chunk, ...]
    """What the retriever ranks, in corpus order."""
    parents: tuple[Chunk, ...] | None = None
    """When set, ``parents[i]`` is what is delivered for a hit on ``units[i]``."""
    problems: tuple[str, ...] = ()
    """Warnings found while chunking (e.g. imported chunks that could not be located)."""
    imported: ChunkImport | None = None
    """How the chunks of an imported dump were placed (None for chunkers that cut the text themselves)."""

    @property
    def delivered_units(self) -> tuple[Chunk, ...]:
        """The chunk delivered for each unit (itself, or its parent)."""
        return self.parents if self.parents is not None else self.units


Chunker: TypeAlias = DocumentChunker | CorpusChunker
"""A chunking strategy: it splits single documents, or chunks a whole corpus."""

chunkers: Registry[Chunker] = Registry("chunker")


def chunk_corpus(chunker: Chunker, corpus: Corpus) -> Chunking:
    """Run any chunker over a corpus."""
    if isinstance(chunker, CorpusChunker):
        return chunker.chunk_corpus(corpus)
    if isinstance(chunker, DocumentChunker):
        units: list[Chunk] = []
        for document in corpus.documents:
            units.extend(chunker.chunk_document(document))
        return Chunking(tuple(units))
    raise TypeError(f"{type(chunker).__name__} is not a chunker")


def make_chunk(document: Document, index: int, start: int, end: int, **extra: str | None) -> Chunk:
    """A chunk of ``document`` with the conventional id ``doc#index``."""
    return Chunk(
        id=f"{document.id}#{index}",
        doc=document.id,
        start=start,
        end=end,
        text=document.text[start:end],
        **extra,  # type: ignore[arg-type]
    )
