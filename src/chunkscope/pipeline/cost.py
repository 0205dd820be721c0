"""What a delivered unit costs against the context budget: characters, or tokens of a counting tokenizer."""

from __future__ import annotations

import dataclasses
import functools
import threading
from typing import Protocol

from chunkscope.chunkers import parse_chunker
from chunkscope.model import Chunk
from chunkscope.results import Config, DeliveredChunk, QuestionResult
from chunkscope.tokenize.counting import TokenCounter, token_counter


class DeliveryCost(Protocol):
    """The budget's unit: what a unit costs, and how much of its body fits in what is left."""

    def cost(self, unit: Chunk) -> int:
        """What sending ``unit`` whole costs: its prefix and body."""
        ...

    def fit(self, unit: Chunk, room: int) -> int:
        """The largest body end (``unit.start`` to ``unit.end``) whose prefix and body costs at most ``room``."""
        ...

    def delivered(self, item: DeliveredChunk) -> int:
        """What a delivered chunk (truncated or whole) cost."""
        ...


class CharacterCost:
    """``len(prefix) + len(body)`` characters: the default budget unit."""

    def cost(self, unit: Chunk) -> int:
        return unit.sent_length

    def delivered(self, item: DeliveredChunk) -> int:
        return item.sent_chars

    def fit(self, unit: Chunk, room: int) -> int:
        return max(unit.start, min(unit.end, unit.start + room - len(unit.prefix)))


class TokenCost:
    """The tokens of ``prefix + body`` encoded on their own, by one counting tokenizer.

    A truncated unit keeps its prefix and the body up to the start of a token (a character start):
    as many of the unit's first tokens as fit, fewer when the part sent, encoded on its own, would
    take more than what is left.
    """

    def __init__(self, tokenizer: str) -> None:
        self.tokenizer = tokenizer
        self.counter: TokenCounter = token_counter(tokenizer)
        self._costs: dict[tuple[str, int, int, str], int] = {}
        self._lock = threading.Lock()

    def cost(self, unit: Chunk) -> int:
        key = (unit.doc, unit.start, unit.end, unit.prefix)
        found = self._costs.get(key)
        if found is None:
            found = self.counter.count(unit.sent_text)
            with self._lock:
                self._costs[key] = found
        return found

    def count(self, text: str) -> int:
        """Tokens of ``text`` encoded on its own."""
        return self.counter.count(text)

    def delivered(self, item: DeliveredChunk) -> int:
        """Tokens sent for a delivered chunk: its prefix and delivered body, encoded on their own."""
        unit = item.chunk
        if item.end == unit.end:
            return self.cost(unit)
        return self.count(unit.prefix + unit.text[: item.end - unit.start])

    def sent(self, result: QuestionResult) -> int:
        """Tokens of a question's delivered context: the sum over its delivered chunks."""
        return sum(self.delivered(item) for item in result.delivered)

    def fit(self, unit: Chunk, room: int) -> int:
        if self.cost(unit) <= room:
            return unit.end
        prefix = len(unit.prefix)
        spans = self.counter.spans(unit.sent_text)
        tokens = max(0, room)
        while tokens > 0:
            body = spans.cut_before(tokens) - prefix
            if body <= 0:
                break
            end = unit.start + body
            if self.counter.count(unit.prefix + unit.text[:body]) <= room:
                return end
            tokens -= 1
        return unit.start


CHARACTERS = CharacterCost()

_TOKEN_COSTS: dict[str, TokenCost] = {}
_TOKEN_COSTS_LOCK = threading.Lock()


def token_cost(tokenizer: str) -> TokenCost:
    """The shared token cost of ``tokenizer`` (its unit counts are cached for the process)."""
    with _TOKEN_COSTS_LOCK:
        if tokenizer not in _TOKEN_COSTS:
            _TOKEN_COSTS[tokenizer] = TokenCost(tokenizer)
        return _TOKEN_COSTS[tokenizer]


def delivery_cost(config: Config) -> DeliveryCost | None:
    """The budget unit of ``config``: None for characters (the assembly's fast path), else its token cost."""
    return None if config.budget_tokenizer is None else token_cost(config.budget_tokenizer)


def budget_measure(config: Config) -> DeliveryCost:
    """What ``config``'s budget counts: characters or its tokenizer's tokens (for display)."""
    return delivery_cost(config) or CHARACTERS


def shown_tokens(config: Config) -> TokenCost | None:
    """The token counter of :func:`shown_tokenizer`, None when no token unit is in use."""
    name = shown_tokenizer(config)
    return None if name is None else token_cost(name)


@functools.lru_cache(maxsize=256)
def shown_tokenizer(config: Config) -> str | None:
    """The counting tokenizer whose counts reports show for ``config``, None when no token unit is in use.

    The budget's tokenizer when the budget counts tokens, else the chunker's when it cuts tokens.
    """
    if config.budget_tokenizer is not None:
        return config.budget_tokenizer
    names = chunker_tokenizers(parse_chunker(config.chunker))
    return names[0] if names else None


def chunker_tokenizers(strategy: object) -> tuple[str, ...]:
    """The counting tokenizers a chunker (nested chunkers included) cuts tokens of, in field order."""
    if not dataclasses.is_dataclass(strategy) or isinstance(strategy, type):
        return ()
    found: list[str] = []
    own = getattr(strategy, "tokenizer", None)
    if getattr(strategy, "unit", None) == "tokens" and isinstance(own, str):
        found.append(own)
    for f in dataclasses.fields(strategy):
        value = getattr(strategy, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            found.extend(chunker_tokenizers(value))
    return tuple(dict.fromkeys(found))
