"""semantic-text-splitter (extra ``chunkscope[textsplitter]``): its TextSplitter and MarkdownSplitter, with offsets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chunkscope.chunkers.base import chunkers
from chunkscope.chunkers.library_support import chunks_at_offsets, length_function, require, set_unit
from chunkscope.model import Chunk, Document


@chunkers.register("textsplitter")
@dataclass(frozen=True, slots=True)
class TextSplitterChunker:
    """``semantic_text_splitter.TextSplitter`` (or ``MarkdownSplitter`` with ``markdown=true``).

    ``size`` is the splitter's capacity and ``overlap`` its overlap, in the length unit:
    characters (``unit=chars``) or a counting tokenizer's tokens (``unit=tokens[,tokenizer=...]``,
    through ``from_callback``). ``trim`` is the splitter's (edge whitespace left out of each
    chunk). Offsets are the character offsets of ``chunk_indices``, checked
    (``text[start:start + len(chunk)] == chunk``).
    """

    size: int = field(default=400, metadata={"always_show": True})
    overlap: int = 0
    markdown: bool = False
    trim: bool = True
    unit: str = field(default="chars", metadata={"omit_default": True})
    tokenizer: str | None = field(default=None, metadata={"omit_default": True})
    _splitter: Any = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"size must be at least 1, got {self.size}")
        if not 0 <= self.overlap < self.size:
            raise ValueError(f"overlap must lie between 0 and size - 1 ({self.size - 1}), got {self.overlap}")
        tokenizer = set_unit(self)
        module = require("semantic_text_splitter", "the textsplitter chunker", "textsplitter", "semantic-text-splitter")
        cls = module.MarkdownSplitter if self.markdown else module.TextSplitter
        if tokenizer is None:
            splitter = cls(self.size, overlap=self.overlap, trim=self.trim)
        else:
            splitter = cls.from_callback(length_function(tokenizer), self.size, overlap=self.overlap, trim=self.trim)
        object.__setattr__(self, "_splitter", splitter)

    def chunk_document(self, document: Document) -> list[Chunk]:
        indexed = self._splitter.chunk_indices(document.text)
        if not indexed:
            return []
        starts, pieces = zip(*indexed, strict=True)
        return chunks_at_offsets(document, starts, pieces, self)
