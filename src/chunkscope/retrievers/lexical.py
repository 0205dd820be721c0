"""Inverted postings shared by the lexical retrievers (BM25, keyword overlap)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from chunkscope.model import Chunk
from chunkscope.tokenize import Tokenizer, get_tokenizer


@lru_cache(maxsize=200_000)
def query_tokens(tokenizer: Any, text: str) -> tuple[str, ...]:
    """Tokens of a query; cached because every configuration re-ranks the same questions."""
    return tuple(tokenizer(text))


class Postings:
    """Term -> (unit ids, term frequencies) in CSR form, plus unit lengths in tokens."""

    def __init__(self, units: Sequence[Chunk], tokenizer_spec: str) -> None:
        self.tokenizer: Any = get_tokenizer(tokenizer_spec)
        self.unit_count = len(units)
        vocabulary: dict[str, int] = {}
        term_ids: list[int] = []
        lengths = np.zeros(len(units), dtype=np.int64)
        for unit_id, unit in enumerate(units):
            tokens = self.tokenizer(unit.indexed_text)
            lengths[unit_id] = len(tokens)
            term_ids.extend([vocabulary.setdefault(t, len(vocabulary)) for t in tokens])
        unit_of_token = np.repeat(np.arange(len(units), dtype=np.int64), lengths)
        # One posting per distinct (term, unit) pair, sorted by term then unit.
        pair = np.asarray(term_ids, dtype=np.int64) * max(len(units), 1) + unit_of_token
        pairs, frequencies = np.unique(pair, return_counts=True)
        terms = pairs // max(len(units), 1)
        self.vocabulary = vocabulary
        self.unit_lengths = lengths.astype(np.float64)
        self.units = pairs % max(len(units), 1)
        self.frequencies = frequencies.astype(np.float64)
        self.document_frequency = np.bincount(terms, minlength=len(vocabulary))
        self.pointers = np.concatenate(([0], np.cumsum(self.document_frequency)))

    def query_term_ids(self, text: str) -> list[int]:
        """Vocabulary ids of the query's tokens, in order, repeats kept, unknown dropped."""
        vocabulary = self.vocabulary
        return [vocabulary[t] for t in query_tokens(self.tokenizer, text) if t in vocabulary]

    def gather(self, term_ids: Sequence[int], values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Concatenated (unit ids, per-posting values) of the given terms, in term order."""
        if not term_ids:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
        pointers = self.pointers
        slices = [slice(pointers[t], pointers[t + 1]) for t in term_ids]
        units = np.concatenate([self.units[s] for s in slices])
        weights = np.concatenate([values[s] for s in slices])
        return units, weights
