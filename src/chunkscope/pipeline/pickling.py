"""How a worker's results travel to the main process: pickled by :func:`dumps`, read by :func:`loads`.

Chunkscope's frozen slotted dataclasses are rebuilt through their constructors (several times faster than their
default pickling), read-only mappings travel as dicts, a configuration's question results keep what they are
built from as bytes until first read (:class:`PickledRecipe`), and, given the corpus both processes hold, chunk
texts travel as offsets into it.
"""

from __future__ import annotations

import dataclasses
import operator
import pickle
from collections.abc import Callable
from io import BytesIO
from types import MappingProxyType
from typing import Any

from chunkscope.collector import collector_paused
from chunkscope.model import Chunk, Corpus
from chunkscope.results import ConfigResult, QuestionResult, QuestionResults, ResultRecipe


def dumps(value: object, corpus: Corpus | None = None, units: tuple[Chunk, ...] | None = None) -> bytes:
    """Pickle ``value``; chunkscope's frozen dataclasses are rebuilt by their constructors.

    The default pickling of a slotted dataclass restores each field through ``object.__setattr__``
    in Python, three to four times slower than calling the generated ``__init__``; read-only
    mappings (``MappingProxyType``) cannot be pickled at all. :func:`loads` reads the result.

    With ``corpus`` (which the reading process holds too, and passes to :func:`loads`), a chunk whose text is
    its document's text at its offsets is written with its offsets only, and ``corpus`` itself as a reference:
    each configuration's result carries its chunks twice (for display, and in its questions' recipe), and on
    one huge document their texts made the parent hold several times the corpus. ``units`` (with ``corpus``):
    a tuple written as a reference too, which :func:`loads` is given back (a result's chunks, in its recipe).
    """
    buffer = BytesIO()
    with collector_paused():
        if corpus is None:
            _ValuePickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        else:
            _CorpusPickler(buffer, corpus, units).dump(value)
    return buffer.getvalue()


def loads(data: bytes, corpus: Corpus | None = None, units: tuple[Chunk, ...] | None = None) -> Any:
    """Unpickle what :func:`dumps` wrote (with the cyclic collector paused: the values hold no cycles);
    ``corpus`` and ``units``: what it was given."""
    with collector_paused():
        if corpus is None:
            return pickle.loads(data)
        return _CorpusUnpickler(BytesIO(data), corpus, units).load()


def _read_only_mapping(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


class PickledRecipe:
    """A :class:`ResultRecipe` kept as the bytes :func:`dumps` made of it, unpickled when a result is first built.

    A sweep's reports read each configuration's summary and columns only: its rankings, most of what a
    worker sends back, then never cost the parent an unpickling.
    """

    __slots__ = ("_corpus", "_data", "_recipe", "_units")

    def __init__(self, data: bytes, corpus: Corpus | None = None, units: tuple[Chunk, ...] | None = None) -> None:
        self._data = data
        self._corpus = corpus
        """What the chunks' texts are read from (see :func:`dumps`)."""
        self._units = units
        """The result's chunks, which the recipe's refer to (not a second copy)."""
        self._recipe: ResultRecipe | None = None

    def result(self, position: int) -> QuestionResult:
        """The result of the question at ``position``, from the recipe unpickled on the first call."""
        if self._recipe is None:
            self._recipe = loads(self._data, self._corpus, self._units)
        return self._recipe.result(position)

    def __reduce__(self) -> tuple[Any, ...]:
        return PickledRecipe, (self._data, self._corpus, self._units)


def _question_results(
    columns: Any,
    recipe: bytes,
    items: list[QuestionResult | None],
    corpus: Corpus | None = None,
    units: tuple[Chunk, ...] | None = None,
) -> QuestionResults:
    return QuestionResults(columns, PickledRecipe(recipe, corpus, units), items)


_NO_FAST_PATH = None
_FIELD_GETTERS: dict[type, Callable[[Any], tuple[Any, ...]] | None] = {}


def _field_getter(cls: type) -> Callable[[Any], tuple[Any, ...]] | None:
    """A function returning an instance's constructor arguments, for chunkscope's frozen dataclasses."""
    if cls in _FIELD_GETTERS:
        return _FIELD_GETTERS[cls]
    getter = _NO_FAST_PATH
    params = getattr(cls, "__dataclass_params__", None)
    if cls.__module__.startswith("chunkscope.") and params is not None and params.frozen:
        fields = dataclasses.fields(cls)
        if all(f.init and not f.kw_only for f in fields) and fields:
            names = [f.name for f in fields]
            many = operator.attrgetter(*names)
            getter = many if len(names) > 1 else (lambda value: (many(value),))
    _FIELD_GETTERS[cls] = getter
    return getter


class _ValuePickler(pickle.Pickler):
    corpus: Corpus | None = None
    result_chunks: tuple[Chunk, ...] | None = None
    """The chunks of the ConfigResult being written (its question results are written after it is seen)."""

    def reducer_override(self, obj: Any) -> Any:
        cls = type(obj)
        if cls is MappingProxyType:
            return _read_only_mapping, (dict(obj),)
        if cls is QuestionResults:
            columns, recipe, items = obj.__reduce__()[1]
            if isinstance(recipe, PickledRecipe):
                return NotImplemented  # already bytes: pickled as such
            if self.corpus is None:
                return _question_results, (columns, dumps(recipe), items)
            units = self.result_chunks  # written here first: the result's own field refers back to them
            return _question_results, (columns, dumps(recipe, self.corpus, units), items, self.corpus, units)
        getter = _field_getter(cls)
        if getter is None:
            return NotImplemented
        return cls, getter(obj)


class _CorpusText:
    """Stands for ``text[start:end]`` of a corpus document in a pickle (a persistent id)."""

    __slots__ = ("where",)

    def __init__(self, doc: str, start: int, end: int) -> None:
        self.where = (doc, start, end)


class _CorpusPickler(_ValuePickler):
    """Writes ``corpus`` as a reference, and a chunk's text, when it is its document's text there, as offsets."""

    def __init__(self, file: BytesIO, corpus: Corpus, units: tuple[Chunk, ...] | None) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.corpus = corpus
        self.units = units
        self.texts = {document.id: document.text for document in corpus.documents}

    def persistent_id(self, obj: Any) -> Any:
        if type(obj) is _CorpusText:
            return obj.where
        if obj is self.units and obj is not None:
            return UNITS_REFERENCE
        return CORPUS_REFERENCE if obj is self.corpus else None

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is ConfigResult:
            self.result_chunks = obj.chunks
        elif type(obj) is Chunk:
            text = self.texts.get(obj.doc)
            if text is not None and len(obj.text) == obj.end - obj.start and text[obj.start : obj.end] == obj.text:
                where = _CorpusText(obj.doc, obj.start, obj.end)
                return Chunk, (obj.id, obj.doc, obj.start, obj.end, where, obj.prefix, obj.section, obj.context)
        return super().reducer_override(obj)


CORPUS_REFERENCE = "corpus"
"""The persistent id of the corpus in a pickle of :func:`dumps` given one."""
UNITS_REFERENCE = "units"
"""The persistent id of the ``units`` given to :func:`dumps`."""


class _CorpusUnpickler(pickle.Unpickler):
    """Reads what :class:`_CorpusPickler` wrote, with the same corpus."""

    def __init__(self, file: BytesIO, corpus: Corpus, units: tuple[Chunk, ...] | None) -> None:
        super().__init__(file)
        self.corpus = corpus
        self.units = units
        self.texts = {document.id: document.text for document in corpus.documents}

    def persistent_load(self, pid: Any) -> Any:
        if pid == CORPUS_REFERENCE:
            return self.corpus
        if pid == UNITS_REFERENCE:
            if self.units is None:
                raise pickle.UnpicklingError("the pickle refers to units it was not given")
            return self.units
        doc, start, end = pid
        return self.texts[doc][start:end]
