"""Strategy registries: the chunkers, retrievers and tokenizers a spec string can name.

Each kind has one typed registry (``Registry[Chunker]`` in ``chunkscope.chunkers.base``, and so on),
created once at import and filled by the ``register`` decorators of the built-in strategies. A field
holding nested specs names its registry itself (``StrategyKind``); ``registry(kind)`` finds one by
kind for front ends that list names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Generic, TypeVar

from chunkscope.errors import SpecError
from chunkscope.spec.grammar import NO_DEFAULTS, SpecDefaults, StrategyTable, parse_spec

T = TypeVar("T")

_TABLES: dict[str, StrategyTable[object]] = {}
"""Every registry by kind, for listing names."""


class Registry(Generic[T]):
    """Strategies of one kind (chunker, retriever, tokenizer) by name."""

    def __init__(self, kind: str) -> None:
        if kind in _TABLES:
            raise ValueError(f"a {kind} registry exists already")
        self.kind = kind
        self._classes: dict[str, type[T]] = {}
        _TABLES[kind] = self

    def register(self, name: str) -> Callable[[type[T]], type[T]]:
        """Class decorator: register a frozen dataclass under ``name``."""

        def decorate(cls: type[T]) -> type[T]:
            if not dataclasses.is_dataclass(cls):
                raise TypeError(f"{cls.__name__} must be a dataclass")
            self._classes[name] = cls
            cls.spec_name = name  # type: ignore[attr-defined]
            return cls

        return decorate

    @property
    def names(self) -> tuple[str, ...]:
        """Registered names, sorted."""
        return tuple(sorted(self._classes))

    def get(self, name: str) -> type[T]:
        """The class registered as ``name``, or a SpecError listing valid names."""
        try:
            return self._classes[name]
        except KeyError:
            raise SpecError(f"unknown {self.kind} '{name}'; valid {self.kind}s: {', '.join(self.names)}") from None

    def parse(self, text: str, defaults: SpecDefaults = NO_DEFAULTS) -> T:
        """Parse a whole spec string into a strategy instance.

        ``defaults`` gives parameter values for strategies whose spec (or nested spec) leaves them out.
        """
        return parse_spec(text, self, defaults)

    def __contains__(self, name: object) -> bool:
        return name in self._classes


def registry(kind: str) -> StrategyTable[object]:
    """The registry of ``kind`` (``chunker``, ``retriever``, ``tokenizer``), or a SpecError."""
    try:
        return _TABLES[kind]
    except KeyError:
        raise SpecError(f"unknown strategy kind '{kind}'; valid kinds: {', '.join(sorted(_TABLES))}") from None
