"""The tokenizer protocol and registry."""

from __future__ import annotations

from typing import Protocol

from chunkscope.spec.registry import Registry


class Tokenizer(Protocol):
    """Turns text into a list of matching tokens."""

    def __call__(self, text: str) -> list[str]: ...


tokenizers: Registry[Tokenizer] = Registry("tokenizer")


def get_tokenizer(name: str) -> Tokenizer:
    """The tokenizer registered as ``name`` (a spec string)."""
    return tokenizers.parse(name)
