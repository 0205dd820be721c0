"""What the library chunkers share: importing an optional library, and measuring length in chars or tokens."""

from __future__ import annotations

import importlib
import itertools
import operator
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from chunkscope.errors import ChunkscopeError, MissingExtraError
from chunkscope.model import Chunk, Document
from chunkscope.spec.grammar import format_spec

UNITS = ("chars", "tokens")
DEFAULT_TOKENIZER = "cl100k"
"""The counting tokenizer of ``unit=tokens`` when a spec names none."""
COUNTING_MODULE = "chunkscope.tokenize.counting"
"""Where the counting tokenizers (``cl100k``, ``o200k``, ``e5``...) live, looked up when a spec asks for tokens."""


def require(module: str, feature: str, extra: str, package: str) -> ModuleType:
    """Import ``module``, or raise MissingExtraError naming ``chunkscope[extra]`` and the ``package`` it brings."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(feature, extra, package) from None


def resolve_unit(unit: str, tokenizer: str | None) -> str | None:
    """The counting tokenizer that ``unit`` and ``tokenizer`` mean, or None for characters.

    ``unit=tokens`` without a tokenizer means :data:`DEFAULT_TOKENIZER`; ``tokenizer=chars`` means
    characters. ValueError for an unknown unit, or a tokenizer given with ``unit=chars``.
    """
    if unit not in UNITS:
        raise ValueError(f"unit must be chars or tokens, got {unit!r}")
    if unit == "chars":
        if tokenizer not in (None, "chars"):
            raise ValueError(f"tokenizer={tokenizer} counts tokens: add unit=tokens")
        return None
    name = tokenizer or DEFAULT_TOKENIZER
    return None if name == "chars" else name


def length_function(tokenizer: str | None) -> Callable[[str], int]:
    """How long a text is: ``len`` for characters (``tokenizer`` None), else that counting tokenizer's count.

    The counting tokenizers come from :data:`COUNTING_MODULE`; without it (or its package) a spec
    that counts tokens is an error naming the ``tokens`` extra.
    """
    if tokenizer is None:
        return len
    try:
        counting: Any = importlib.import_module(COUNTING_MODULE)
    except ImportError:
        raise ChunkscopeError(
            f"unit=tokens (tokenizer={tokenizer}) needs the tokens extra and chunkscope's counting tokenizers: "
            "install it with  pip install 'chunkscope[tokens]'"
        ) from None
    try:
        counter = counting.token_counter(tokenizer)
    except ChunkscopeError as exc:
        if isinstance(exc, MissingExtraError):
            raise
        raise ValueError(str(exc)) from None
    count: Callable[[str], int] = counter.count
    return count


def set_unit(chunker: object) -> str | None:
    """Write a chunker's ``unit`` and ``tokenizer`` fields in canonical form; return the counting tokenizer.

    ``tokenizer`` becomes the counting tokenizer in use (None for characters) and ``unit`` says which,
    so ``unit=tokens`` and ``unit=tokens,tokenizer=cl100k`` are one canonical spec.
    """
    tokenizer = resolve_unit(getattr(chunker, "unit"), getattr(chunker, "tokenizer"))  # noqa: B009
    object.__setattr__(chunker, "tokenizer", tokenizer)
    object.__setattr__(chunker, "unit", "chars" if tokenizer is None else "tokens")
    return tokenizer


def chunks_at_offsets(document: Document, starts: Sequence[int], pieces: Sequence[str], owner: object) -> list[Chunk]:
    """Chunks ``doc#i`` from a library's own chunk texts and their start offsets, after checking each offset.

    A library that reported byte offsets, or offsets into another text, fails here with a
    ChunkscopeError naming the chunk (``owner`` is the chunker, shown by its spec), rather than
    giving chunks whose text is not what it chunked.
    """
    text, doc_id = document.text, document.id
    # Checked and built with map: C-level loops, as this runs once per chunk of every library chunking.
    if not (all(pieces) and min(starts, default=0) >= 0 and all(map(text.startswith, pieces, starts))):
        index = next(
            i
            for i, (start, piece) in enumerate(zip(starts, pieces, strict=True))
            if not piece or start < 0 or not text.startswith(piece, start)
        )
        raise ChunkscopeError(
            f"{format_spec(owner, short=True)}: chunk {index} of document '{doc_id}' reported at offset "
            f"{starts[index]}, where the document holds other text"
        )
    ends = list(map(operator.add, starts, map(len, pieces)))
    ids = [f"{doc_id}#{index}" for index in range(len(pieces))]
    return list(map(Chunk, ids, itertools.repeat(doc_id), starts, ends, pieces))


def chunks_at_spans(document: Document, spans: Sequence[tuple[int, int]]) -> list[Chunk]:
    """Chunks ``doc#i`` over ``spans``, each holding ``document.text[start:end]``."""
    text, doc_id = document.text, document.id
    return [Chunk(f"{doc_id}#{index}", doc_id, start, end, text[start:end]) for index, (start, end) in enumerate(spans)]
