"""Every chunk's tokens as term ids, taken from its document's token stream when the tokenizer allows it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from chunkscope.model import Chunk, Corpus
from chunkscope.tokenize.streams import ChunkSpans, ChunkTokens, DocumentTokens

CACHED_CORPORA = 2
"""Document token streams kept per process (an evaluator works on one corpus; a test suite on many)."""


@runtime_checkable
class StreamTokenizer(Protocol):
    """A tokenizer that can tokenise whole documents once and hand every chunk its part."""

    def __call__(self, text: str) -> list[str]: ...

    def document_tokens(self, texts: Sequence[str]) -> DocumentTokens: ...


_CACHE: OrderedDict[tuple[Any, int], tuple[Corpus, DocumentTokens]] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def document_tokens(tokenizer: StreamTokenizer, corpus: Corpus) -> DocumentTokens:
    """The corpus tokenised once per tokenizer (cached for the last few corpora)."""
    key = (tokenizer, id(corpus))
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None and hit[0] is corpus:
            _CACHE.move_to_end(key)
            return hit[1]
    tokens = tokenizer.document_tokens([document.text for document in corpus.documents])
    with _CACHE_LOCK:
        _CACHE[key] = (corpus, tokens)  # the corpus is held so its id cannot be reused while cached
        while len(_CACHE) > CACHED_CORPORA:
            _CACHE.popitem(last=False)
    return tokens


def chunk_tokens(tokenizer: Any, units: Sequence[Chunk], corpus: Corpus | None = None) -> ChunkTokens:
    """Term ids of every unit's indexed text (prefix + body), exactly as ``tokenizer`` gives its tokens.

    With a stream tokenizer and the corpus the units were cut from, each document
    is tokenised once (and cached) and the units take their tokens from it;
    without the corpus, each unit's text is tokenised as a document of its own.
    Any other tokenizer tokenises every unit's text.
    """
    if isinstance(tokenizer, StreamTokenizer):
        if corpus is not None and all(unit.doc in corpus.by_id for unit in units):
            position = {document.id: number for number, document in enumerate(corpus.documents)}
            spans = ChunkSpans(
                documents=np.fromiter((position[u.doc] for u in units), dtype=np.int64, count=len(units)),
                starts=np.fromiter((u.start for u in units), dtype=np.int64, count=len(units)),
                ends=np.fromiter((u.end for u in units), dtype=np.int64, count=len(units)),
                prefixes=[u.prefix for u in units],
                texts=_IndexedTexts(units),
            )
            return document_tokens(tokenizer, corpus).chunk_tokens(spans, tokenizer)
        texts = [unit.indexed_text for unit in units]
        whole = ChunkSpans(
            documents=np.arange(len(units), dtype=np.int64),
            starts=np.zeros(len(units), dtype=np.int64),
            ends=np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)),
            prefixes=[""] * len(units),
            texts=texts,
        )
        return tokenizer.document_tokens(texts).chunk_tokens(whole, tokenizer)
    return _token_lists(tokenizer, units)


class _IndexedTexts(Sequence[str]):
    """Units' indexed texts, built only for the few units tokenised directly."""

    def __init__(self, units: Sequence[Chunk]) -> None:
        self.units = units

    def __len__(self) -> int:
        return len(self.units)

    def __getitem__(self, index: Any) -> Any:
        return self.units[index].indexed_text


def _token_lists(tokenizer: Any, units: Sequence[Chunk]) -> ChunkTokens:
    """Term ids numbered in order of first occurrence, from each unit's token list."""
    token_lists = [tokenizer(unit.indexed_text) for unit in units]
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(units))
    vocabulary: dict[str, int] = {}
    for tokens in token_lists:
        for token in tokens:
            vocabulary.setdefault(token, len(vocabulary))
    ids = np.fromiter(
        (vocabulary[t] for tokens in token_lists for t in tokens), dtype=np.int32, count=int(lengths.sum())
    )
    texts = list(vocabulary)

    def lookup(tokens: Sequence[str]) -> np.ndarray:
        return np.fromiter((vocabulary.get(t, -1) for t in tokens), dtype=np.int64, count=len(tokens))

    return ChunkTokens(ids, lengths, lookup, texts.__getitem__)
