"""A document's retrieval units under a chunker, in document order (what the document view draws)."""

from __future__ import annotations

from collections import OrderedDict

from chunkscope.model import Chunk
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.pipeline.indexed import IndexedChunking
from chunkscope.results import Config

DOCUMENTS_KEPT = 64
"""Documents whose chunk tuples are kept (per chunker): the same tuple for every question on a document."""


class DocumentChunks:
    """The chunks of one document, read from the span locator the evaluator keeps with each chunking.

    The locator holds every document's units sorted by (start, end, position): one document's are
    taken from it in a few microseconds, so nothing is grouped per chunking on the UI thread (on a
    50 MB corpus that took a second after every new configuration, and its groups stayed in memory).
    """

    def __init__(self, evaluator: Evaluator) -> None:
        self._evaluator = evaluator
        self._kept: OrderedDict[tuple[str, str], tuple[Chunk, ...]] = OrderedDict()

    def of(self, config: Config, doc_id: str) -> tuple[Chunk, ...]:
        """The retrieval units of one document under ``config``, sorted by (start, end), ties in chunking order.

        The same tuple every time: the document view caches its wrapped layout and shading per tuple,
        so every question on a document reuses them. A chunker spec always makes the same chunks, so
        the tuple stays right when the chunking is evicted and built again; only the few kept
        documents' chunks stay alive with it.
        """
        key = (config.chunker, doc_id)
        kept = self._kept.get(key)
        if kept is not None:
            self._kept.move_to_end(key)
            return kept
        chunks = self._units_of(self._evaluator.chunking(config.chunker), doc_id)
        self._kept[key] = chunks
        if len(self._kept) > DOCUMENTS_KEPT:
            self._kept.popitem(last=False)
        return chunks

    @staticmethod
    def _units_of(indexed: IndexedChunking, doc_id: str) -> tuple[Chunk, ...]:
        # The retrieval units: the children of a parent-child chunking, whose own locator is unit_locator.
        locator = indexed.locator if indexed.unit_locator is None else indexed.unit_locator
        units = locator.units
        return tuple(units[index] for _, _, index in locator.by_doc.get(doc_id, ()))
