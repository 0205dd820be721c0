"""Offsets in other units: UTF-8 bytes and UTF-16 code units, converted exactly at the edges.

Inside chunkscope every offset is a Python string index (a code point). Other tools count
differently: JavaScript and Azure AI Search's Text Split count UTF-16 code units (an emoji is two),
TyDi QA counts UTF-8 bytes (a kana is three). An input in such a unit is converted to code points
when it is read, and a report can convert back when it is written.

A conversion is exact both ways: the code-unit offset of code point ``i`` is the number of code
units of ``text[:i]``, kept for every ``i`` as a cumulative count, so a code-unit offset converts by
a binary search. An offset that falls inside a character (between the bytes of a multi-byte
character, or between the halves of a surrogate pair) has no code-point equivalent and is refused.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping
from typing import Any, Literal, get_args

import numpy as np
import numpy.typing as npt

from chunkscope.io.gold import BadGold
from chunkscope.io.newlines import newline_view
from chunkscope.model import Corpus

OffsetUnit = Literal["codepoint", "utf8", "utf16"]
"""``codepoint``: Python string indices; ``utf8``: bytes of the UTF-8 encoding; ``utf16``: UTF-16 code units."""

OFFSET_UNITS: tuple[OffsetUnit, ...] = get_args(OffsetUnit)

UNIT_NAMES: Mapping[OffsetUnit, str] = {"codepoint": "code points", "utf8": "UTF-8 bytes", "utf16": "UTF-16 code units"}


class OffsetError(ValueError):
    """An offset with no code-point equivalent: outside the text, or inside a character.

    ``inside`` tells which: False for an offset outside the text, True for one inside a character.
    """

    def __init__(self, message: str, inside: bool) -> None:
        super().__init__(message)
        self.inside = inside


def check_unit(unit: str) -> OffsetUnit:
    """``unit`` as an OffsetUnit; ValueError naming the valid units otherwise."""
    for known in OFFSET_UNITS:
        if unit == known:
            return known
    raise ValueError(f"unknown offset unit {unit!r}: use {', '.join(OFFSET_UNITS)}")


class UnitOffsets:
    """Exact conversions between code-point offsets of one text and offsets in ``unit``."""

    def __init__(self, text: str, unit: OffsetUnit) -> None:
        self.text = text
        self.unit = unit
        self._marks: npt.NDArray[np.int64] | None = _block_marks(text, unit)
        """Code units of ``text[:i]`` at every multiple ``i`` of BLOCK, then at ``len(text)``; None: the identity.
        Kept for block starts only (one count per character took 8 bytes a character, 40 while computed)."""

    @property
    def identity(self) -> bool:
        """True when every character of the text is one code unit (the unit changes no offset)."""
        return self._marks is None

    @property
    def length(self) -> int:
        """The text's length in the unit."""
        return len(self.text) if self._marks is None else int(self._marks[-1])

    def _before(self, first: int, last: int) -> npt.NDArray[np.int64]:
        """Code units of ``text[:i]`` for ``i`` in ``first..last``, ``first`` a multiple of BLOCK."""
        assert self._marks is not None
        counts = np.empty(last - first + 1, dtype=np.int64)
        counts[0] = self._marks[first // BLOCK]
        np.cumsum(_widths(self.text[first:last], self.unit), out=counts[1:])
        counts[1:] += counts[0]
        return counts

    def to_codepoint(self, offset: int) -> int:
        """The code-point offset of ``offset`` (in the unit); OffsetError if there is none."""
        if not 0 <= offset <= self.length:
            raise OffsetError(
                f"offset {offset} is outside the document (0..{self.length} {UNIT_NAMES[self.unit]})", inside=False
            )
        if self._marks is None:
            return offset
        # The first i whose count reaches ``offset`` lies in the block before the first mark that does.
        mark = int(np.searchsorted(self._marks, offset))
        if mark == 0:
            return 0
        first = (mark - 1) * BLOCK
        counts = self._before(first, min(first + BLOCK, len(self.text)))
        index = first + int(np.searchsorted(counts, offset))
        if int(counts[index - first]) != offset:
            raise OffsetError(self._inside_message(offset, index - 1), inside=True)
        return index

    def from_codepoint(self, index: int) -> int:
        """The offset in the unit of code-point offset ``index`` (``0 <= index <= len(text)``)."""
        if not 0 <= index <= len(self.text):
            raise ValueError(f"code-point offset {index} is outside the text (0..{len(self.text)})")
        if self._marks is None:
            return index
        first = index - index % BLOCK
        return int(self._before(first, index)[-1])

    def _inside_message(self, offset: int, index: int) -> str:
        char = self.text[index]
        first = self.from_codepoint(index)
        last = first + int(_widths(char, self.unit)[0])
        where = (
            "between the halves of the surrogate pair of" if self.unit == "utf16" else "inside the multi-byte character"
        )
        return (
            f"offset {offset} ({self.unit}) falls {where} {char!r} (U+{ord(char):04X}, "
            f"{UNIT_NAMES[self.unit]} {first}..{last})"
        )


BLOCK = 1 << 16
"""Characters between two kept counts of :class:`UnitOffsets` (a conversion counts at most this many)."""


def _widths(text: str, unit: OffsetUnit) -> npt.NDArray[np.int64]:
    """Code units of each character of ``text`` in ``unit`` (``utf8`` or ``utf16``)."""
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    if unit == "utf8":
        return 1 + (points >= 0x80).astype(np.int64) + (points >= 0x800) + (points >= 0x10000)
    return 1 + (points >= 0x10000).astype(np.int64)


def _block_marks(text: str, unit: OffsetUnit) -> npt.NDArray[np.int64] | None:
    """Code units of ``text[:i]`` for ``i`` = 0, BLOCK, 2 BLOCK, ... and ``len(text)``; None when the count of
    every ``text[:i]`` is ``i`` itself (counted a block at a time: a long document never has a count per
    character in memory)."""
    if unit == "codepoint" or text.isascii():
        return None
    if unit == "utf16" and max(text) <= "\uffff":
        return None
    starts = range(0, len(text), BLOCK)
    marks = np.zeros(len(starts) + 1, dtype=np.int64)
    for number, start in enumerate(starts, start=1):
        marks[number] = marks[number - 1] + int(_widths(text[start : start + BLOCK], unit).sum())
    return marks


class ViewOffsets(UnitOffsets):
    """Offsets in ``unit`` counted on a text's universal-newlines view (CRLF as LF), converted to the text's own.

    ``text`` is the view; :meth:`to_codepoint` maps back to the original exactly
    (:meth:`chunkscope.io.newlines.NewlineView.to_original`), :meth:`from_codepoint` the other way.
    """

    def __init__(self, original: str, unit: OffsetUnit) -> None:
        self.view = newline_view(original)
        super().__init__(self.view.text, unit)
        self.original = original
        self._removed = [view_offset + k for k, view_offset in enumerate(self.view.breaks)]
        """Original offsets of the removed ``\r`` of every CRLF pair."""

    def to_codepoint(self, offset: int) -> int:
        """The original code-point offset of view offset ``offset`` (in the unit)."""
        return self.view.to_original(super().to_codepoint(offset))

    def from_codepoint(self, index: int) -> int:
        """The view offset in the unit of original code-point offset ``index``."""
        if not 0 <= index <= len(self.original):
            raise ValueError(f"code-point offset {index} is outside the text (0..{len(self.original)})")
        return super().from_codepoint(index - bisect_left(self._removed, index))


class DocumentOffsets:
    """One :class:`UnitOffsets` per document text, built when first asked for.

    With ``lf`` the offsets count each text's universal-newlines view (:class:`ViewOffsets`).
    """

    def __init__(self, unit: OffsetUnit, lf: bool = False) -> None:
        self.unit = unit
        self.lf = lf
        self._by_text: dict[str, UnitOffsets] = {}

    def of(self, text: str) -> UnitOffsets:
        """The converter for ``text``."""
        converter = self._by_text.get(text)
        if converter is None:
            made = ViewOffsets(text, self.unit) if self.lf else UnitOffsets(text, self.unit)
            converter = self._by_text[text] = made
        return converter


SPAN_OUTSIDE = "offset outside the document"


def evidence_in_codepoints(items: Any, corpus: Corpus, offsets: DocumentOffsets, where: tuple[str, int]) -> Any:
    """A question's ``evidence`` list with every span's ``start``/``end`` converted from ``offsets.unit``.

    Only well-formed spans (a known ``doc`` and integer offsets inside it) are converted; anything
    else is returned as it is, for the question loader to report. An offset inside a character is an
    InputError naming the file, line and field.
    """

    def to_codepoint(converter: UnitOffsets, value: int, name: str) -> int:
        try:
            return converter.to_codepoint(value)
        except OffsetError as exc:
            reason = "offset inside a character" if exc.inside else SPAN_OUTSIDE
            raise BadGold(where[0], str(exc), line=where[1], field=name, reason=reason) from None

    return _evidence_converted(items, corpus, offsets, to_codepoint)


def evidence_in_unit(items: Any, corpus: Corpus, offsets: DocumentOffsets) -> Any:
    """:func:`evidence_in_codepoints` the other way: every span's code-point ``start``/``end`` in ``offsets.unit``.

    For a file written back in the unit it was read in (``gold check --write``); the offsets come from
    resolved spans, so every one lies on a character boundary of its document.
    """

    def from_codepoint(converter: UnitOffsets, value: int, name: str) -> int:
        try:
            return converter.from_codepoint(value)
        except ValueError:  # outside the text: left as it was
            return value

    return _evidence_converted(items, corpus, offsets, from_codepoint)


_Convert = Callable[["UnitOffsets", int, str], int]
"""Converts one offset of a span (its converter, the value, the field's name for errors)."""


def _evidence_converted(items: Any, corpus: Corpus, offsets: DocumentOffsets, convert: _Convert) -> Any:
    """The evidence list with ``convert`` applied to the integer ``start``/``end`` of every span of a known doc."""
    if not isinstance(items, list):
        return items
    return [_item_converted(item, corpus, offsets, convert, f"evidence[{i}]") for i, item in enumerate(items)]


def _item_converted(item: Any, corpus: Corpus, offsets: DocumentOffsets, convert: _Convert, name: str) -> Any:
    if not isinstance(item, dict):
        return item
    if isinstance(item.get("any"), list):
        alternatives = item["any"]
        return {
            **item,
            "any": [
                _item_converted(alternative, corpus, offsets, convert, f"{name}.any[{i}]")
                for i, alternative in enumerate(alternatives)
            ],
        }
    document = corpus.by_id.get(item["doc"]) if isinstance(item.get("doc"), str) else None
    if document is None:
        return item
    converter = offsets.of(document.text)
    converted = dict(item)
    for key in ("start", "end"):
        value = item.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            converted[key] = convert(converter, value, f"{name}.{key}")
    return converted
