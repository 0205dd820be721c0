"""A document's retrieval units under a chunker, in document order (what the document view draws)."""

from __future__ import annotations

from chunkscope.model import Chunk
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config


class DocumentChunks:
    """The chunks of one document, read from the span locator the evaluator keeps with each chunking.

    The locator holds every document's units sorted by (start, end, position): one document's are
    taken from it in a few microseconds, so nothing is grouped per chunking on the UI thread (on a
    50 MB corpus that took a second after every new configuration, and its groups stayed in memory).
    """

    def __init__(self, evaluator: Evaluator) -> None:
        self._evaluator = evaluator

    def of(self, config: Config, doc_id: str) -> tuple[Chunk, ...]:
        """The retrieval units of one document under ``config``, sorted by (start, end), ties in chunking order."""
        indexed = self._evaluator.chunking(config.chunker)
        # The retrieval units: the children of a parent-child chunking, whose own locator is unit_locator.
        locator = indexed.locator if indexed.unit_locator is None else indexed.unit_locator
        units = locator.units
        return tuple(units[index] for _, _, index in locator.by_doc.get(doc_id, ()))
