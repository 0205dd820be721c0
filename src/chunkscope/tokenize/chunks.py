"""Every chunk's tokens as term ids, taken from its document's token stream when the tokenizer allows it."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from chunkscope.model import Chunk, Corpus, Document
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
            return document_tokens(tokenizer, corpus).chunk_tokens(_spans(units, position), tokenizer)
        return _own_documents(tokenizer, units)
    return _token_lists(tokenizer, units)


BATCH_CHARS = 1 << 22
"""Characters of documents tokenised together by ``chunk_token_batches`` (bounds its memory)."""


def chunk_token_batches(
    tokenizer: Any, units: Sequence[Chunk], corpus: Corpus | None = None, batch_chars: int = BATCH_CHARS
) -> Iterator[tuple[int, ChunkTokens]]:
    """``chunk_tokens`` of consecutive runs of units: (position of the run's first unit, its tokens).

    Each run covers about ``batch_chars`` characters of documents (of unit texts without the corpus),
    tokenised for that run alone and not cached, so the memory stays bounded whatever the corpus
    size. Term ids are numbered per run. The tokens are those ``chunk_tokens`` gives.
    """
    for first, last, documents in _runs(units, corpus, batch_chars):
        run = units[first:last]
        if documents is None or not isinstance(tokenizer, StreamTokenizer):
            yield first, chunk_tokens(tokenizer, run)
            continue
        position = {document.id: number for number, document in enumerate(documents)}
        streams = tokenizer.document_tokens([document.text for document in documents])
        yield first, streams.chunk_tokens(_spans(run, position), tokenizer)


def _runs(
    units: Sequence[Chunk], corpus: Corpus | None, batch_chars: int
) -> Iterator[tuple[int, int, list[Document] | None]]:
    """Consecutive runs of units (first, end, the documents they are cut from: None without the corpus)."""
    by_id = corpus.by_id if corpus is not None else None
    if by_id is not None and not all(unit.doc in by_id for unit in units):
        by_id = None  # units of another corpus: each is tokenised alone, as ``chunk_tokens`` does
    first = size = 0
    documents: dict[str, Document] = {}
    for number, unit in enumerate(units):
        if by_id is None:
            size += len(unit.text) + len(unit.indexed_prefix)
        elif unit.doc not in documents:
            document = documents[unit.doc] = by_id[unit.doc]
            size += len(document.text)
        if size >= batch_chars:
            yield first, number + 1, None if by_id is None else list(documents.values())
            first, size = number + 1, 0
            documents = {}
    if first < len(units):
        yield first, len(units), None if by_id is None else list(documents.values())


def _spans(units: Sequence[Chunk], position: dict[str, int]) -> ChunkSpans:
    """Where the units lie among the documents numbered by ``position``."""
    return ChunkSpans(
        documents=np.fromiter((position[u.doc] for u in units), dtype=np.int64, count=len(units)),
        starts=np.fromiter((u.start for u in units), dtype=np.int64, count=len(units)),
        ends=np.fromiter((u.end for u in units), dtype=np.int64, count=len(units)),
        prefixes=[u.indexed_prefix for u in units],
        texts=_IndexedTexts(units),
    )


def _own_documents(tokenizer: StreamTokenizer, units: Sequence[Chunk]) -> ChunkTokens:
    """Each unit's indexed text tokenised as a document of its own, all at once."""
    texts = [unit.indexed_text for unit in units]
    whole = ChunkSpans(
        documents=np.arange(len(units), dtype=np.int64),
        starts=np.zeros(len(units), dtype=np.int64),
        ends=np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)),
        prefixes=[""] * len(units),
        texts=texts,
    )
    return tokenizer.document_tokens(texts).chunk_tokens(whole, tokenizer)


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

    return ChunkTokens(ids, lengths, lookup, texts.__getitem__, lambda count: texts[:count])
