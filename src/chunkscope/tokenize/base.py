"""The tokenizer protocol and registry."""

from __future__ import annotations

from typing import Protocol

from chunkscope.spec.grammar import registry


class Tokenizer(Protocol):
    """Turns text into a list of matching tokens."""

    def __call__(self, text: str) -> list[str]: ...


tokenizers = registry("tokenizer")


def get_tokenizer(name: str) -> Tokenizer:
    """The tokenizer registered as ``name`` (a spec string)."""
    tokenizer: Tokenizer = tokenizers.parse(name)
    return tokenizer
