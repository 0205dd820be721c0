"""Parent-child chunking: rank small child chunks, deliver their parent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from chunkscope.chunkers.base import Chunking, DocumentChunker, chunk_corpus, chunkers
from chunkscope.chunkers.fixed import FixedChunker, shifted_window_spans
from chunkscope.chunkers.markdown import MarkdownChunker
from chunkscope.errors import SpecError
from chunkscope.model import Chunk, Corpus, Document
from chunkscope.spec.grammar import StrategyKind


@chunkers.register("parent")
@dataclass(frozen=True, slots=True)
class ParentChildChunker:
    """Parents from the ``parent`` chunker; each parent's body is split by the
    ``child`` chunker into the retrieval units.

    Child offsets are absolute in the document (``parent.start`` + offset in the
    parent); child ids are ``PARENT_ID/i``; a child without a section path takes
    its parent's. Retrieval ranks the children; delivery sends each hit's parent,
    once, and the budget counts the parent's characters (prefix included).
    """

    child: Annotated[Any, StrategyKind(chunkers)] = field(default_factory=lambda: FixedChunker(200))
    """Splits each parent into retrieval units; must split single documents."""
    parent: Annotated[Any, StrategyKind(chunkers)] = field(default_factory=MarkdownChunker)
    """Cuts the delivered units; any chunker except another parent-child one."""

    def __post_init__(self) -> None:
        if not isinstance(self.child, DocumentChunker):
            raise SpecError(f"parent: the child chunker must split single documents, got '{self.child.spec_name}'")
        if isinstance(self.parent, ParentChildChunker):
            raise SpecError("parent: the parent chunker cannot itself be parent-child")

    def chunk_corpus(self, corpus: Corpus) -> Chunking:
        parent_chunking = chunk_corpus(self.parent, corpus)
        fixed_chars = type(self.child) is FixedChunker and self.child.tokenizer is None
        cut = self._fixed_children if fixed_chars else self._children
        children: list[Chunk] = []
        parents: list[Chunk] = []
        for parent in parent_chunking.units:
            cut_children = cut(corpus, parent)
            children.extend(cut_children)
            parents.extend([parent] * len(cut_children))
        return Chunking(tuple(children), tuple(parents), parent_chunking.problems, parent_chunking.imported)

    def _children(self, corpus: Corpus, parent: Chunk) -> list[Chunk]:
        """The children of ``parent``: its body chunked as a document of its own."""
        document = parent_document(corpus.by_id[parent.doc], parent)
        offset = parent.start
        return [
            Chunk(
                id=f"{parent.id}/{index}",
                doc=parent.doc,
                start=offset + child.start,
                end=offset + child.end,
                text=child.text,
                prefix=child.prefix,
                section=child.section or parent.section,
            )
            for index, child in enumerate(self.child.chunk_document(document))
        ]

    def _fixed_children(self, corpus: Corpus, parent: Chunk) -> list[Chunk]:
        """The fixed character windows of ``parent``'s body, cut directly: what ``_children`` gives for them."""
        size, overlap, shift = self.child.size, self.child.overlap, self.child.shift
        body, parent_id, doc, section = parent.text, parent.id, parent.doc, parent.section
        offset = parent.start
        return [
            Chunk(f"{parent_id}/{index}", doc, offset + start, offset + end, body[start:end], "", section)
            for index, (start, end) in enumerate(shifted_window_spans(len(body), size, overlap, shift))
        ]


def parent_document(document: Document, parent: Chunk) -> Document:
    """The parent's body as a document, with recorded paragraphs clipped and shifted into it."""
    paragraphs = None
    if document.paragraphs is not None:
        paragraphs = tuple(
            (max(start, parent.start) - parent.start, min(end, parent.end) - parent.start)
            for start, end in document.paragraphs
            if start < parent.end and end > parent.start
        )
    return Document(id=document.id, text=parent.text, title=document.title, paragraphs=paragraphs)
