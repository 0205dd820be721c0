"""LangChain's text splitters (``langchain-text-splitters``, extra ``chunkscope[langchain]``), with exact offsets."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from chunkscope.chunkers.base import chunkers
from chunkscope.chunkers.library_offsets import LocateError, locate_joined, locate_texts
from chunkscope.chunkers.library_support import chunks_at_spans, length_function, require, set_unit
from chunkscope.model import Chunk, Document

SPLITTERS: dict[str, tuple[str, ...]] = {
    "RecursiveCharacterTextSplitter": ("separators", "keep_separator", "is_separator_regex", "language"),
    "CharacterTextSplitter": ("separator", "keep_separator", "is_separator_regex"),
    "MarkdownTextSplitter": ("keep_separator",),
    "PythonCodeTextSplitter": ("keep_separator",),
    "LatexTextSplitter": ("keep_separator",),
}
"""The splitter classes a spec may name, and the parameters each takes beyond the common ones
(``chunk_size``, ``chunk_overlap``, ``strip_whitespace``, and the length unit)."""

OPTIONAL = ("separator", "separators", "keep_separator", "is_separator_regex", "language", "strip_whitespace")
"""Parameters that, left out (``none``), take the splitter class's own default."""

_QUIET = logging.NullHandler()


@chunkers.register("langchain")
@dataclass(frozen=True, slots=True)
class LangchainChunker:
    """``langchain_text_splitters.<splitter>(...).split_text(text)``, each chunk placed at its exact offsets.

    The arguments are the class's own, passed only when the spec gives them, so a left-out one
    keeps the class's default (``chunk_size=4000``, ``chunk_overlap=200`` are LangChain's).
    ``separators`` is a ``+``-joined list of quoted strings. ``language`` builds the recursive
    splitter with ``RecursiveCharacterTextSplitter.from_language`` (e.g. ``markdown``).
    ``unit=tokens[,tokenizer=cl100k]`` passes a counting tokenizer as ``length_function``.

    LangChain returns chunk texts (stripped of edge whitespace by default); each is located in
    the document by :func:`chunkscope.chunkers.library_offsets.locate_texts`, in order. In
    characters, the splitter's overlap never exceeds ``chunk_overlap``, and the locator uses that
    bound. (LangChain's own ``add_start_index`` searches from an estimated position and can place a
    repeated passage at the wrong copy; it is not used.)
    """

    splitter: str = field(default="RecursiveCharacterTextSplitter", metadata={"positional": True})
    """The class name in ``langchain_text_splitters``, one of :data:`SPLITTERS`."""
    chunk_size: int = field(default=4000, metadata={"always_show": True})
    chunk_overlap: int = 200
    separator: str | None = field(default=None, metadata={"omit_default": True})
    separators: tuple[str, ...] | None = field(default=None, metadata={"omit_default": True})
    keep_separator: bool | str | None = field(default=None, metadata={"omit_default": True})
    """``true``, ``false``, ``start`` or ``end``."""
    is_separator_regex: bool | None = field(default=None, metadata={"omit_default": True})
    language: str | None = field(default=None, metadata={"omit_default": True})
    strip_whitespace: bool | None = field(default=None, metadata={"omit_default": True})
    unit: str = field(default="chars", metadata={"omit_default": True})
    tokenizer: str | None = field(default=None, metadata={"omit_default": True})
    _splitter: Any = field(init=False, repr=False, compare=False, default=None)
    _glue: tuple[str, str] | None = field(init=False, repr=False, compare=False, default=None)
    """``(pattern, joiner)`` when the splitter glues parts back with its separator (see :func:`glue`)."""
    _gap: str = field(init=False, repr=False, compare=False, default="")
    """What the splitter leaves out between chunks, as a regular expression (see :func:`gap`)."""

    def __post_init__(self) -> None:
        allowed = SPLITTERS.get(self.splitter)
        if allowed is None:
            raise ValueError(f"unknown splitter '{self.splitter}'; valid splitters: {', '.join(SPLITTERS)}")
        for name in OPTIONAL:
            if name != "strip_whitespace" and getattr(self, name) is not None and name not in allowed:
                takes = ", ".join(allowed)
                raise ValueError(f"{self.splitter} takes no '{name}' (besides the common parameters it takes: {takes})")
        if isinstance(self.keep_separator, str) and self.keep_separator not in ("start", "end"):
            raise ValueError(f"keep_separator must be true, false, start or end, got {self.keep_separator!r}")
        tokenizer = set_unit(self)
        module = require("langchain_text_splitters", "the langchain chunker", "langchain", "langchain-text-splitters")
        # LangChain logs "Created a chunk of size ..." for every oversized piece: a handler of its own keeps
        # that off stderr (logging's last resort) unless the application configured logging itself.
        logging.getLogger("langchain_text_splitters").addHandler(_QUIET)
        splitter = self._build(module, tokenizer)
        object.__setattr__(self, "_splitter", splitter)
        object.__setattr__(self, "_glue", glue(splitter))
        object.__setattr__(self, "_gap", gap(splitter))

    def _build(self, module: Any, tokenizer: str | None) -> Any:
        """The splitter object, with only the arguments the spec gives (ValueError from LangChain passes through)."""
        arguments: dict[str, Any] = {
            "chunk_size": self.chunk_size,
            "chunk_overlap": self.chunk_overlap,
            "length_function": length_function(tokenizer),
        }
        arguments.update({name: getattr(self, name) for name in OPTIONAL if getattr(self, name) is not None})
        if "separators" in arguments:
            arguments["separators"] = list(arguments["separators"])
        language = arguments.pop("language", None)
        if language is not None:
            valid = [member.value for member in module.Language]
            if language not in valid:
                raise ValueError(f"unknown language '{language}'; valid languages: {', '.join(valid)}")
            return module.RecursiveCharacterTextSplitter.from_language(module.Language(language), **arguments)
        return getattr(module, self.splitter)(**arguments)

    def chunk_document(self, document: Document) -> list[Chunk]:
        pieces = self._splitter.split_text(document.text)
        owner = self
        bound = self.chunk_overlap if self.tokenizer is None else None
        try:
            if self._glue is None:
                spans = locate_texts(document.text, pieces, owner, document.id, bound, self._gap)
            else:
                spans = locate_joined(document.text, pieces, owner, document.id, *self._glue, bound, self._gap)
        except LocateError as exc:
            if self._splitter._keep_separator or self._glue is not None:
                raise
            raise LocateError(
                f"{exc} (without keep_separator LangChain glues pieces back with the separator, so a chunk may not "
                "be document text: try keep_separator=true)"
            ) from None
        return chunks_at_spans(document, spans)


def _separator_patterns(splitter: Any) -> list[str]:
    """The splitter's separators as regular expressions."""
    separators: list[str] = getattr(splitter, "_separators", None) or [splitter._separator]
    regex: bool = splitter._is_separator_regex
    return [separator if regex else re.escape(separator) for separator in separators if separator]


def gap(splitter: Any) -> str:
    """What LangChain leaves out between chunks: whitespace (stripped edges), and separators it does not keep."""
    if splitter._keep_separator:
        return r"\s*" if splitter._strip_whitespace else ""
    joined = glue(splitter)
    if joined is not None:
        return rf"(?:\s|{re.escape(joined[1])})*"  # in the collapsed text each run of separators is one joiner
    return rf"(?:\s|{'|'.join(_separator_patterns(splitter))})*"


def glue(splitter: Any) -> tuple[str, str] | None:
    """``(pattern, joiner)`` when the splitter glues its parts back with the separator, else None.

    That is ``CharacterTextSplitter`` without ``keep_separator`` and with a separator that is not a
    zero-width lookaround: its chunks then read one separator where the document may have several.
    (The recursive splitter without ``keep_separator`` glues with the separator of each level; a
    chunk of it that is not document text is reported by the locator.)
    """
    if type(splitter).__name__ != "CharacterTextSplitter" or splitter._keep_separator:
        return None
    separator: str = splitter._separator
    regex: bool = splitter._is_separator_regex
    if not separator or (regex and separator.startswith(("(?=", "(?<!", "(?<=", "(?!"))):
        return None
    return (separator if regex else re.escape(separator)), separator
