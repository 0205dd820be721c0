"""A document's retrieval units under a chunker, in document order (what the document view draws)."""

from __future__ import annotations

from chunkscope.model import Chunk
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config


class DocumentChunks:
    """The chunks of each document per chunker spec, grouped once and kept (the chunking is immutable)."""

    def __init__(self, evaluator: Evaluator) -> None:
        self._evaluator = evaluator
        self._by_chunker: dict[str, dict[str, tuple[Chunk, ...]]] = {}

    def of(self, config: Config, doc_id: str) -> tuple[Chunk, ...]:
        """The retrieval units of one document under ``config``, sorted by (start, end)."""
        by_doc = self._by_chunker.get(config.chunker)
        if by_doc is None:
            result = self._evaluator.cached(config)
            units = result.chunks if result is not None else self._evaluator.chunking(config.chunker).chunking.units
            grouped: dict[str, list[Chunk]] = {}
            for unit in units:
                grouped.setdefault(unit.doc, []).append(unit)
            by_doc = {doc: tuple(sorted(chunks, key=lambda c: (c.start, c.end))) for doc, chunks in grouped.items()}
            self._by_chunker[config.chunker] = by_doc
        return by_doc.get(doc_id, ())
