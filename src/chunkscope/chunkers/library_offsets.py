"""Chunk texts placed back in their document, for splitters that return strings without offsets.

A library splitter (or a plugin) returns its chunks as strings, in document order. Each string
must be a substring of the document (a splitter that strips whitespace returns the stripped text,
which still is one). :func:`locate_texts` finds the one placement of all of them that the rules
below allow, or says why there is none or more than one; it never guesses with a first-occurrence
``find``.

Rules, for consecutive chunks ``a`` and ``b`` (``b`` returned after ``a``):

1. Order: ``b`` starts after ``a`` starts, or at the same offset and is at least as long (a
   splitter that carries a whole chunk over as overlap starts the next one where it started, and
   one that strips a carried-over chunk can return the same text twice).
2. ``max_overlap`` (optional, for a splitter that bounds its overlap in characters): ``b`` shares
   at most ``max_overlap`` characters with ``a``. Without it, ``b`` may lie inside ``a``.
3. ``gap`` (optional, a regular expression, for a splitter whose chunks cover the text): the text
   between ``a``'s end and ``b``'s start, before the first chunk and after the last, matches
   ``gap`` whole (e.g. ``\\s*``: only the whitespace a stripping splitter left out).

Without ``gap`` every rule has the form ``b.start >= f(a.start)`` with ``f`` non-decreasing, so
the allowed placements lie between the greedy one from the front (each chunk at its earliest
occurrence) and the greedy one from the back (each at its latest), both allowed themselves: the
placement is unique exactly when they agree, and the first chunk where they differ is ambiguous.
Each search is one ``str.find`` / ``str.rfind``, so this reads the document about twice.

With ``gap``, a chunk must also start before the end of the gap its predecessor allows, so the
placements are counted (up to two) over every occurrence within those bounds, chunk by chunk; the
candidates of a chunk lie between its predecessor's bounds, a few per chunk.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from chunkscope.errors import ChunkscopeError
from chunkscope.spec.grammar import format_spec


class LocateError(ChunkscopeError):
    """Chunk texts that cannot be placed in their document, or that fit in more than one way."""


def locate_texts(
    text: str,
    pieces: Sequence[str],
    owner: object,
    document: str,
    max_overlap: int | None = None,
    gap: str | None = None,
) -> list[tuple[int, int]]:
    """The ``(start, end)`` of every piece in ``text`` under the module's rules.

    ``owner`` (the chunker, or its spec) and ``document`` (its id) name the failure in a LocateError:
    an empty piece, one that is not in the document, one that cannot follow the previous piece,
    or one that could start at two places.
    """
    where = _Where(owner, document, pieces)
    for index, piece in enumerate(pieces):
        if not piece:
            raise LocateError(f"{where.chunk(index)} is empty")
    if not pieces:
        return []
    if gap is None:
        starts = _ordered_starts(text, pieces, max_overlap, where)
    else:
        starts = _covering_starts(text, pieces, max_overlap, re.compile(gap, re.DOTALL), where)
    return [(start, start + len(piece)) for start, piece in zip(starts, pieces, strict=True)]


@dataclass(frozen=True, slots=True)
class _Where:
    """Names a chunk in an error message."""

    owner: object
    document: str
    pieces: Sequence[str]

    def chunk(self, index: int) -> str:
        owner = self.owner if isinstance(self.owner, str) else format_spec(self.owner, short=True)
        return f"{owner}: chunk {index} of document '{self.document}' ({_preview(self.pieces[index])})"

    def missing(self, text: str, index: int) -> LocateError:
        if text.find(self.pieces[index]) < 0:
            return LocateError(f"{self.chunk(index)} is not in the document")
        return LocateError(f"{self.chunk(index)} has no place after chunk {index - 1} that the order allows")

    def ambiguous(self, index: int, first: int, second: int) -> LocateError:
        return LocateError(f"{self.chunk(index)} fits at offset {first} and at offset {second}: its place is ambiguous")


def _lowest_start(previous: int, previous_length: int, length: int, max_overlap: int | None) -> int:
    """The smallest start rules 1 and 2 allow a chunk of ``length`` after one at ``previous``."""
    lowest = previous if length >= previous_length else previous + 1
    if max_overlap is not None and length > max_overlap:
        # Starting before the previous end minus max_overlap would share more than max_overlap characters.
        lowest = max(lowest, previous + previous_length - max_overlap)
    return lowest


def _highest_start(following: int, following_length: int, length: int, max_overlap: int | None) -> int:
    """The largest start rules 1 and 2 allow a chunk of ``length`` before one at ``following``."""
    highest = following if following_length >= length else following - 1
    if max_overlap is not None and following_length > max_overlap:
        highest = min(highest, following + max_overlap - length)
    return highest


def _ordered_starts(text: str, pieces: Sequence[str], max_overlap: int | None, where: _Where) -> list[int]:
    """The unique placement under rules 1 and 2, from the two greedy placements."""
    earliest: list[int] = []
    for index, piece in enumerate(pieces):
        lowest = 0 if index == 0 else _lowest_start(earliest[-1], len(pieces[index - 1]), len(piece), max_overlap)
        found = text.find(piece, lowest)
        if found < 0:
            raise where.missing(text, index)
        earliest.append(found)
    # The earliest placement is allowed, so each search from the back finds an occurrence at or after it.
    latest = [0] * len(pieces)
    latest[-1] = text.rfind(pieces[-1])
    for index in range(len(pieces) - 2, -1, -1):
        piece = pieces[index]
        highest = _highest_start(latest[index + 1], len(pieces[index + 1]), len(piece), max_overlap)
        latest[index] = text.rfind(piece, 0, highest + len(piece))
    for index, (first, last) in enumerate(zip(earliest, latest, strict=True)):
        if first != last:
            raise where.ambiguous(index, first, last)
    return earliest


@dataclass(slots=True)
class _Place:
    """One allowed start of a chunk: how many placements of the chunks so far end here (capped at 2)."""

    start: int
    count: int
    previous: list[_Place] = field(default_factory=list)


def _covering_starts(
    text: str, pieces: Sequence[str], max_overlap: int | None, gap: re.Pattern[str], where: _Where
) -> list[int]:
    """The unique placement under rules 1 to 3.

    Usually every chunk has exactly one occurrence between the bounds its (single) predecessor
    sets, and the placement is read off in one pass; otherwise placements are counted.
    """
    starts = _single_candidates(text, pieces, max_overlap, gap)
    return starts if starts is not None else _counted_starts(text, pieces, max_overlap, gap, where)


def _single_candidates(
    text: str, pieces: Sequence[str], max_overlap: int | None, gap: re.Pattern[str]
) -> list[int] | None:
    """The placement when each chunk has one candidate given the one before; None as soon as one has not.

    A chunk's candidates are its occurrences from the lowest start rules 1 and 2 allow up to the
    end of the gap after its predecessor; with a single predecessor and a single candidate at
    every step, no other placement exists.
    """
    find, match, fullmatch = text.find, gap.match, gap.fullmatch
    starts: list[int] = []
    previous = previous_length = previous_end = 0
    for index, piece in enumerate(pieces):
        length = len(piece)
        if index == 0:
            lowest = 0
        else:
            lowest = previous if length >= previous_length else previous + 1
            if max_overlap is not None and length > max_overlap:
                lowest = max(lowest, previous_end - max_overlap)
        found_gap = match(text, previous_end)
        reach = previous_end if found_gap is None else found_gap.end()
        found = find(piece, lowest, reach + length)
        if found < 0 or find(piece, found + 1, reach + length) >= 0:
            return None
        if found > previous_end and fullmatch(text, previous_end, found) is None:
            return None
        starts.append(found)
        previous, previous_length, previous_end = found, length, found + length
    return starts if fullmatch(text, previous_end) is not None else None


def _counted_starts(
    text: str, pieces: Sequence[str], max_overlap: int | None, gap: re.Pattern[str], where: _Where
) -> list[int]:
    """The unique placement under rules 1 to 3, by counting placements chunk by chunk."""
    first = pieces[0]
    places = [_Place(start, 1) for start in _occurrences(text, first, 0, _reach(text, 0, gap))]
    places = [place for place in places if gap.fullmatch(text, 0, place.start)]
    if not places:
        raise where.missing(text, 0)
    layers = [places]
    for index in range(1, len(pieces)):
        piece, before = pieces[index], pieces[index - 1]
        lowest = min(_lowest_start(p.start, len(before), len(piece), max_overlap) for p in places)
        highest = max(_reach(text, p.start + len(before), gap) for p in places)
        following: list[_Place] = []
        for start in _occurrences(text, piece, lowest, highest):
            reached = [p for p in places if _follows(text, p.start, len(before), start, len(piece), max_overlap, gap)]
            if reached:
                following.append(_Place(start, min(2, sum(p.count for p in reached)), reached))
        if not following:
            raise where.missing(text, index)
        places = following
        layers.append(places)
    ends = [p for p in places if gap.fullmatch(text, p.start + len(pieces[-1]))]
    if not ends:
        raise LocateError(
            f"{where.chunk(len(pieces) - 1)}: every placement leaves text after the last chunk that the splitter "
            "would not have left out"
        )
    alive = _on_complete_placements(layers, ends)
    for index, starts in enumerate(alive):
        if len(starts) > 1:
            raise where.ambiguous(index, starts[0], starts[1])
    return [starts[0] for starts in alive]


def _follows(
    text: str, start: int, length: int, next_start: int, next_length: int, max_overlap: int | None, gap: re.Pattern[str]
) -> bool:
    """True when a chunk at ``next_start`` may follow one at ``start`` under rules 1 to 3."""
    if next_start < _lowest_start(start, length, next_length, max_overlap):
        return False
    end = start + length
    return next_start <= end or gap.fullmatch(text, end, next_start) is not None


def _on_complete_placements(layers: list[list[_Place]], ends: list[_Place]) -> list[list[int]]:
    """For each chunk, the sorted starts that some complete placement uses."""
    alive: list[list[int]] = [[] for _ in layers]
    current = {id(place): place for place in ends}
    for index in range(len(layers) - 1, -1, -1):
        alive[index] = sorted(place.start for place in current.values())
        current = {id(p): p for place in current.values() for p in place.previous}
    return alive


def _occurrences(text: str, piece: str, lowest: int, highest: int) -> list[int]:
    """Starts of ``piece`` in ``text`` from ``lowest`` to ``highest`` (both included)."""
    starts = []
    limit = highest + len(piece)  # an occurrence starting after `highest` is not looked for
    found = text.find(piece, max(lowest, 0), limit)
    while found >= 0:
        starts.append(found)
        found = text.find(piece, found + 1, limit)
    return starts


def _reach(text: str, position: int, gap: re.Pattern[str]) -> int:
    """The furthest offset a gap starting at ``position`` can run to."""
    match = gap.match(text, position)
    return position if match is None else match.end()


def _preview(piece: str, width: int = 40) -> str:
    """The start of a chunk's text, to name the chunk in a message (line breaks shown as ``\\n``)."""
    return repr(piece if len(piece) <= width else piece[: width - 1] + "…")


def locate_joined(
    text: str,
    pieces: Sequence[str],
    owner: object,
    document: str,
    pattern: str,
    joiner: str,
    max_overlap: int | None = None,
    gap: str | None = None,
) -> list[tuple[int, int]]:
    """Like :func:`locate_texts`, for a splitter that cut at ``pattern`` and glued the parts back with ``joiner``.

    Such a splitter drops the empty parts between neighbouring separators, so its chunk reads one
    ``joiner`` where the document has a run of separators (LangChain's ``CharacterTextSplitter``
    with ``keep_separator=False``). The pieces are placed in the document with every run of
    ``pattern`` matches written as one ``joiner`` (the text they were cut from), under the same
    rules; each span is then the original document text of that placement, separator runs included.
    """
    collapsed = Collapsed(text, pattern, joiner)
    spans = locate_texts(collapsed.text, pieces, owner, document, max_overlap, gap)
    return [collapsed.original(start, end) for start, end in spans]


class Collapsed:
    """``text`` with each run of ``pattern`` matches written as one ``joiner``, mapped back to ``text``.

    Kept as segments (one per stretch of original text, one per replaced run), so building it and
    mapping a span back cost the number of runs, not of characters.
    """

    def __init__(self, original: str, pattern: str, joiner: str) -> None:
        # A run that already reads as one joiner stays as it is: only longer or different runs are segments
        # (for a literal separator, runs of two or more, found without visiting every single separator).
        if pattern == re.escape(joiner):
            runs: Iterable[re.Match[str]] = re.finditer(f"(?:{pattern}){{2,}}", original)
        else:
            runs = (match for match in re.finditer(f"(?:{pattern})+", original) if match.group() != joiner)
        parts: list[str] = []
        self.starts: list[int] = []
        """Where each segment starts in the collapsed text."""
        self.sources: list[tuple[int, int, bool]] = []
        """Each segment's ``(start, end)`` in the original text, and whether it is a replaced run."""
        position = collapsed_length = 0
        for match in runs:
            if match.end() == match.start():
                continue  # a pattern that matches nothing here cuts nothing
            for start, end, replaced, written in (
                (position, match.start(), False, original[position : match.start()]),
                (match.start(), match.end(), True, joiner),
            ):
                if written:
                    self.starts.append(collapsed_length)
                    self.sources.append((start, end, replaced))
                    parts.append(written)
                    collapsed_length += len(written)
            position = match.end()
        if position < len(original):
            self.starts.append(collapsed_length)
            self.sources.append((position, len(original), False))
            parts.append(original[position:])
        self.text = "".join(parts)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the collapsed ``text[start:end]`` (a replaced run maps to the whole run)."""
        return self._origin(start, first=True), self._origin(end - 1, first=False)

    def _origin(self, position: int, first: bool) -> int:
        """Where character ``position`` of the collapsed text comes from: its start (``first``) or its end."""
        segment = bisect.bisect_right(self.starts, position) - 1
        source_start, source_end, replaced = self.sources[segment]
        if replaced:
            return source_start if first else source_end
        offset = source_start + position - self.starts[segment]
        return offset if first else offset + 1
