"""Sequences of result values kept in a cheaper form and built on first use."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

Item = TypeVar("Item")


class BuiltOnUse(Sequence[Item]):
    """A tuple of values kept in a cheaper form and built on first use (:meth:`_built`).

    It compares equal to the tuple of its values, and to any sequence of the same values.
    """

    __slots__ = ()

    def _built(self) -> tuple[Item, ...]:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._built())

    @overload
    def __getitem__(self, index: int) -> Item: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Item, ...]: ...

    def __getitem__(self, index: int | slice) -> Item | tuple[Item, ...]:
        return self._built()[index]

    def __iter__(self) -> Iterator[Item]:
        return iter(self._built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return self._built() == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._built())

    def __repr__(self) -> str:
        return repr(self._built())
