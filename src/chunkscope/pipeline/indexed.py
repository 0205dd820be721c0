"""A chunking ready to be measured against: its span locators and its delivered units as columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from chunkscope.chunkers import Chunking
from chunkscope.model import Chunk
from chunkscope.pipeline.locate import UnitLocator

__all__ = ["IndexedChunking", "UnitTable", "index_chunking"]


@dataclass(frozen=True, slots=True)
class IndexedChunking:
    """A chunking with its span locator over the delivered units."""

    chunking: Chunking
    locator: UnitLocator
    delivered_index: tuple[int, ...]
    """For each retrieval unit, the index of its delivered unit in ``delivered_units``."""
    unit_locator: UnitLocator | None = None
    """Over the retrieval units when they are not the delivered ones (parent-child chunking)."""
    table: UnitTable = field(init=False, repr=False, compare=False)
    """The delivered units' ids, documents, offsets and sent lengths as columns (the measuring hot path)."""
    delivered_positions: np.ndarray = field(init=False, repr=False, compare=False)
    """``delivered_index`` as an array."""
    delivers_itself: bool = field(init=False, repr=False, compare=False)
    """Every retrieval unit is its own delivered unit (``delivered_index`` is ``0, 1, 2, ...``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", UnitTable.of(self.chunking.delivered_units))
        object.__setattr__(self, "delivered_positions", np.asarray(self.delivered_index, dtype=np.int64))
        identity = self.delivered_index == tuple(range(len(self.delivered_index)))
        object.__setattr__(self, "delivers_itself", identity)


@dataclass(frozen=True, slots=True)
class UnitTable:
    """Columns of a unit sequence: a tuple item is cheaper to read than a Chunk attribute in the hot path."""

    ids: tuple[str, ...]
    docs: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    sent: tuple[int, ...]
    """Prefix plus body length: what sending the unit whole costs in characters."""
    unique_ids: bool
    """No two units share an id (false for the parents of parent-child chunking)."""
    lengths: np.ndarray
    """Body lengths (int64)."""
    sent_lengths: np.ndarray
    """``sent`` as an array (int64)."""
    line_starts: np.ndarray
    """Each body's start on one line of the documents laid end to end (int64)."""
    line_length: int
    """The length of that line."""

    @classmethod
    def of(cls, units: Sequence[Chunk]) -> UnitTable:
        """The columns of ``units``."""
        ids = tuple(u.id for u in units)
        docs = tuple(u.doc for u in units)
        starts = tuple(u.start for u in units)
        ends = tuple(u.end for u in units)
        document_ends: dict[str, int] = {}
        for doc, end in zip(docs, ends, strict=True):
            document_ends[doc] = max(end, document_ends.get(doc, 0))
        offsets: dict[str, int] = {}
        line_length = 0
        for doc, end in document_ends.items():
            offsets[doc] = line_length
            line_length += end
        first = np.fromiter(map(offsets.__getitem__, docs), dtype=np.int64, count=len(docs))
        start_array = np.asarray(starts, dtype=np.int64).reshape(-1)
        sent = tuple(u.sent_length for u in units)
        return cls(
            ids,
            docs,
            starts,
            ends,
            sent,
            len(set(ids)) == len(ids),
            np.asarray(ends, dtype=np.int64).reshape(-1) - start_array,
            np.asarray(sent, dtype=np.int64).reshape(-1),
            first + start_array,
            line_length,
        )


def index_chunking(chunking: Chunking) -> IndexedChunking:
    """A chunking with its span locator over the delivered units and each unit's delivered position."""
    delivered = chunking.delivered_units
    positions = {unit.id: i for i, unit in enumerate(delivered)}
    delivered_index = (
        tuple(range(len(chunking.units)))
        if chunking.parents is None
        else tuple(positions[p.id] for p in chunking.parents)
    )
    children = None if chunking.parents is None else UnitLocator(chunking.units)
    return IndexedChunking(chunking, UnitLocator(delivered), delivered_index, children)
