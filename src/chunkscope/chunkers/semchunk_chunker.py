"""semchunk (extra ``chunkscope[semchunk]``): semantic splitting to a size, with the library's own offsets."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chunkscope.chunkers.base import chunkers
from chunkscope.chunkers.library_support import chunks_at_offsets, length_function, require, set_unit
from chunkscope.model import Chunk, Document


@chunkers.register("semchunk")
@dataclass(frozen=True, slots=True)
class SemchunkChunker:
    """``semchunk.chunkerify(counter, size)(text, offsets=True, overlap=...)``.

    ``size`` is semchunk's ``chunk_size`` in the length unit: characters (``unit=chars``, the
    counter is ``len``) or a counting tokenizer's tokens (``unit=tokens[,tokenizer=cl100k]``).
    ``overlap`` is semchunk's: a share of ``size`` when below 1, else a number of units; 0 is
    none. semchunk reports each chunk's offsets itself; each start is checked (the chunk's text
    must stand there in the document) and used as it is, the end being start + the text's length.
    """

    size: int = field(default=400, metadata={"always_show": True})
    overlap: int | float = 0
    unit: str = field(default="chars", metadata={"omit_default": True})
    tokenizer: str | None = field(default=None, metadata={"omit_default": True})
    _chunker: Any = field(init=False, repr=False, compare=False, default=None)

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"size must be at least 1, got {self.size}")
        if self.overlap < 0:
            raise ValueError(f"overlap must not be negative, got {self.overlap}")
        tokenizer = set_unit(self)
        semchunk = require("semchunk", "the semchunk chunker", "semchunk", "semchunk")
        object.__setattr__(self, "_chunker", semchunk.chunkerify(length_function(tokenizer), self.size))

    def chunk_document(self, document: Document) -> list[Chunk]:
        pieces, offsets = self._chunker(document.text, offsets=True, overlap=self.overlap or None)
        return chunks_at_offsets(document, [start for start, _ in offsets], pieces, self)
