"""A chunker written in Python by the user: ``python:package.module:function[,key=value...]``."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from chunkscope.chunkers.base import chunkers, make_chunk
from chunkscope.chunkers.library_offsets import locate_texts
from chunkscope.model import Chunk, Document
from chunkscope.spec.grammar import FreeParams, format_spec
from chunkscope.spec.plugins import PluginError, call_plugin, check_param_names, check_target, load_function


@chunkers.register("python")
@dataclass(frozen=True, slots=True)
class PythonChunker:
    """Chunks each document with ``function(text, **params)`` from the user's module.

    The function returns, for one document's text, either ``(start, end)`` pairs (character
    offsets, ``0 <= start < end <= len(text)``, in any order: they are sorted by start, then end;
    pairs may overlap) or chunk texts in document order, placed by
    :func:`chunkscope.chunkers.library_offsets.locate_texts` (an ambiguous or missing text is an
    error). The same chunk twice is an error either way. Parameters after the target are passed
    as keyword arguments (see ``FreeParams`` in :mod:`chunkscope.spec.grammar` for how values are
    typed).
    """

    target: str = field(
        metadata={"positional": True, "missing": "python needs package.module:function, e.g. python:mychunks:split"}
    )
    """The function, as ``package.module:function``."""
    params: FreeParams = field(default=(), metadata={"free_params": True})
    """Keyword arguments for the function, sorted by name."""

    def __post_init__(self) -> None:
        check_target(self.target)
        check_param_names(self.params)
        load_function(self.target)  # a module that cannot be imported fails when the spec is read

    def chunk_document(self, document: Document) -> list[Chunk]:
        label = format_spec(self)
        function = load_function(self.target)
        result = call_plugin(label, f"document '{document.id}'", function, document.text, **dict(self.params))
        spans = plugin_spans(result, document, label)
        return [make_chunk(document, index, start, end) for index, (start, end) in enumerate(spans)]


def plugin_spans(result: Any, document: Document, label: str) -> list[tuple[int, int]]:
    """The chunk spans a chunker plugin returned for ``document`` (PluginError, one line, when unusable)."""
    where = f"{label}: for document '{document.id}'"
    if isinstance(result, str | bytes) or not isinstance(result, Sequence):
        raise PluginError(f"{where} returned {type(result).__name__}: expected a list of (start, end) pairs or strings")
    if not result:
        return []
    if all(isinstance(item, str) for item in result):
        spans = locate_texts(document.text, result, label, document.id)
    else:
        spans = [_pair(item, position, where) for position, item in enumerate(result)]
        length = len(document.text)
        for start, end in spans:
            if not 0 <= start < end <= length:
                raise PluginError(
                    f"{where} returned chunk ({start}, {end}): a chunk needs 0 <= start < end <= {length}"
                )
        spans.sort()
    for previous, current in itertools.pairwise(spans):
        if previous == current:
            raise PluginError(f"{where} returned chunk {current} twice")
    return spans


def _pair(item: object, position: int, where: str) -> tuple[int, int]:
    """One ``(start, end)`` pair of whole numbers (not bools), or PluginError naming its position."""
    if isinstance(item, str):
        raise PluginError(f"{where} mixed strings and (start, end) pairs (item {position}): return one kind")
    try:
        start: Any
        end: Any
        start, end = item  # type: ignore[misc]
        if isinstance(start, bool) or isinstance(end, bool):
            raise TypeError
        return operator.index(start), operator.index(end)
    except (TypeError, ValueError):
        shown = repr(item)
        shown = shown if len(shown) <= 60 else shown[:59] + "…"
        raise PluginError(f"{where} returned item {position} = {shown}: expected (start, end) or a string") from None
