"""Inverted postings shared by the lexical retrievers (BM25, keyword overlap)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from chunkscope.model import Chunk, Corpus
from chunkscope.retrievers.base import Progress
from chunkscope.retrievers.query_terms import QueryTerms
from chunkscope.retrievers.scoring import choose_backend
from chunkscope.tokenize.base import get_tokenizer
from chunkscope.tokenize.chunks import chunk_tokens
from chunkscope.tokenize.streams import ChunkTokens

BLOCK = 1 << 21
"""Elements per block when building postings, bounding temporary memory."""

INDEX_STEPS = 4
"""The ``total`` of a lexical index build's progress: ``done`` is 0 before tokenising, 1 before building the
postings, 2 after them, 3 before BM25's weights."""

COMPILED_MIN_TOKENS = 4_000_000
"""Tokens from which the compiled builder repays loading numba: sorting them in numpy takes a second or more,
and an index that size is ranked on the compiled path anyway."""


@lru_cache(maxsize=200_000)
def query_tokens(tokenizer: Any, text: str) -> tuple[str, ...]:
    """Tokens of a query; cached because every configuration re-ranks the same questions."""
    return tuple(tokenizer(text))


@dataclass(frozen=True, slots=True, eq=False)
class QueryTokenTable:
    """The tokens of many queries as distinct token texts and, per token in query order, its distinct one."""

    distinct: list[str]
    """Each token text once, in order of first occurrence."""
    inverse: np.ndarray
    """Per token of the queries, one query after the other: its position in ``distinct`` (int64)."""
    sizes: np.ndarray
    """Tokens per query (int64)."""


@lru_cache(maxsize=8)
def query_token_table(tokenizer: Any, texts: tuple[str, ...]) -> QueryTokenTable:
    """The tokens of ``texts`` (cached: every configuration of a sweep with this tokenizer ranks the same queries,
    and a token's term id is looked up once per distinct text)."""
    token_lists = [query_tokens(tokenizer, text) for text in texts]
    positions: dict[str, int] = {}
    inverse = [positions.setdefault(token, len(positions)) for tokens in token_lists for token in tokens]
    return QueryTokenTable(
        list(positions),
        np.asarray(inverse, dtype=np.int64),
        np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists)),
    )


class Postings:
    """Term -> (unit ids, term frequencies) in CSR form, plus unit lengths in tokens.

    Unit ids are int32. Terms are numbered by ascending token-stream id, not by
    first occurrence; ``first_seen`` lists them in order of first occurrence (the
    order rank_bm25 builds its vocabulary in) for sums that must add up in that order.
    """

    def __init__(
        self,
        units: Sequence[Chunk],
        tokenizer_spec: str,
        corpus: Corpus | None = None,
        progress: Progress | None = None,
    ) -> None:
        # Reports between the long steps (tokenising, sorting the postings): the caller's chance to cancel.
        report = progress or _no_progress
        report(0, INDEX_STEPS)
        self.tokenizer: Any = get_tokenizer(tokenizer_spec)
        self.unit_count = len(units)
        tokens = chunk_tokens(self.tokenizer, units, corpus)
        report(1, INDEX_STEPS)
        self.unit_lengths = tokens.lengths.astype(np.float64)
        self.compiled = choose_backend(len(tokens.ids), COMPILED_MIN_TOKENS) == "numba"
        """Whether the compiled path builds the postings (and their weights)."""
        if self.compiled:
            from chunkscope.retrievers import compiled

            built = compiled.build_postings(tokens.ids, tokens.lengths)
        else:
            built = build_postings(tokens.ids, tokens.lengths)
        stream_ids, self.pointers, self.units, self.frequencies, self.first_seen = built
        self.document_frequency = np.diff(self.pointers)
        self.vocabulary = Vocabulary(tokens, stream_ids)
        report(2, INDEX_STEPS)

    def query_term_ids(self, text: str) -> list[int]:
        """Vocabulary ids of the query's tokens, in order, repeats kept, unknown dropped."""
        ids: list[int] = self.term_ids(query_tokens(self.tokenizer, text)).tolist()
        return ids

    def term_ids(self, tokens: Sequence[str]) -> np.ndarray:
        """Vocabulary ids of tokens, in order, repeats kept, unknown dropped (int64)."""
        ids = self.vocabulary.ids(tokens)
        return ids[ids >= 0]

    def queries_term_ids(self, texts: Sequence[str]) -> QueryTerms:
        """``term_ids`` of many queries, looked up together: each distinct token once."""
        tokens = query_token_table(self.tokenizer, tuple(texts))
        flat = self.vocabulary.ids(tokens.distinct)[tokens.inverse]
        sizes = tokens.sizes
        known = flat >= 0
        owner = np.repeat(np.arange(len(texts)), sizes)[known]
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(np.bincount(owner, minlength=len(texts)), out=offsets[1:])
        return QueryTerms(flat[known], offsets)


def _no_progress(done: int, total: int) -> None:
    """Progress nobody asked for."""


def build_postings(
    ids: np.ndarray, lengths: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """CSR postings of a token stream (``ids``, unit after unit, ``lengths`` tokens each).

    Returns the terms' stream ids (ascending), the posting pointers, each
    posting's unit (int32, ascending within a term) and term frequency (int32),
    and the terms in order of first occurrence. One sort of int64 keys ``id | unit | position in
    unit`` gives all of it: postings are runs of equal (id, unit), and each term's
    first key holds its first occurrence.
    """
    unit_count = len(lengths)
    total = len(ids)
    unit_bits = max(unit_count - 1, 1).bit_length()
    offset_bits = max(int(lengths.max(initial=0)) - 1, 1).bit_length()
    id_bits = max(int(ids.max(initial=0)), 1).bit_length()
    if id_bits + unit_bits + offset_bits > 63:
        raise ValueError(f"{total} tokens in {unit_count} units exceed the postings key")  # over 2**63 keys
    starts = np.zeros(unit_count + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    # key = id << (unit_bits + offset_bits) | unit << offset_bits | offset, built unit block by unit block.
    keys = np.empty(total, dtype=np.int64)
    shift = unit_bits + offset_bits
    first_unit = 0
    while first_unit < unit_count:
        last_unit = int(np.searchsorted(starts, starts[first_unit] + BLOCK, side="right"))
        last_unit = max(last_unit - 1, first_unit + 1)
        low, high = int(starts[first_unit]), int(starts[last_unit])
        block = keys[low:high]
        np.left_shift(ids[low:high], shift, out=block, dtype=np.int64)
        units = np.repeat(np.arange(first_unit, last_unit, dtype=np.int64), lengths[first_unit:last_unit])
        block |= (units << offset_bits) + (np.arange(low, high, dtype=np.int64) - starts[units])
        first_unit = last_unit
    keys.sort()
    pair_key = keys >> offset_bits
    new_pair = _changes(pair_key)
    pair_starts = np.flatnonzero(new_pair)
    frequencies = np.diff(np.append(pair_starts, total)).astype(np.int32)
    pairs = pair_key[pair_starts]
    del pair_key, new_pair
    posting_units = (pairs & ((1 << unit_bits) - 1)).astype(np.int32)
    pair_terms = pairs >> unit_bits
    term_starts = np.flatnonzero(_changes(pair_terms))
    stream_ids = pair_terms[term_starts]
    pointers = np.append(term_starts, len(pairs)).astype(np.int64)
    first_keys = keys[pair_starts[term_starts]] & ((1 << shift) - 1)
    first_seen = np.argsort(first_keys, kind="stable")
    return stream_ids, pointers, posting_units, frequencies, first_seen


def _changes(values: np.ndarray) -> np.ndarray:
    """True at the first element and wherever an element differs from the one before."""
    changed = np.empty(len(values), dtype=np.bool_)
    changed[:1] = True
    np.not_equal(values[1:], values[:-1], out=changed[1:])
    return changed


class Vocabulary(Mapping[str, int]):
    """Token text -> postings term id, for the terms that some unit has."""

    def __init__(self, tokens: ChunkTokens, stream_ids: np.ndarray) -> None:
        # Only the lookups are kept, not the token stream itself.
        self.lookup = tokens.lookup
        self.term_text = tokens.term_text
        self.stream_ids = stream_ids

    def ids(self, texts: Sequence[str]) -> np.ndarray:
        """Term ids of token texts (int64), -1 for tokens no unit has."""
        # The token streams remember what they looked up, for every chunking of their corpus.
        return self._find(texts)

    def _find(self, texts: Sequence[str]) -> np.ndarray:
        stream = self.lookup(texts)
        if not len(self.stream_ids):
            return np.full(len(stream), -1, dtype=np.int64)
        where = np.minimum(np.searchsorted(self.stream_ids, stream), len(self.stream_ids) - 1)
        return np.where((stream >= 0) & (self.stream_ids[where] == stream), where, -1)

    def __getitem__(self, text: str) -> int:
        (found,) = self.ids([text]).tolist()
        if found < 0:
            raise KeyError(text)
        return int(found)

    def __iter__(self) -> Iterator[str]:
        return (self.term_text(int(i)) for i in self.stream_ids)

    def __len__(self) -> int:
        return len(self.stream_ids)
