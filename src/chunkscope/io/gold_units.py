"""Offsets-only gold counted in another unit or on another view of the line endings: detected, never guessed.

A span given by offsets alone (no quote to check it against) is taken as it is: offsets computed in
UTF-16 code units (JavaScript, Azure) or on the text read with universal newlines (Python's text
mode turns every CRLF into LF) silently point at other text. This module reads the file's
offsets-only spans every other way (code points, UTF-8 bytes, UTF-16 code units, each on the file's
text or its universal-newlines view, mapped back exactly by :mod:`chunkscope.io.newlines`) and
scores each reading by evidence about the spans it gives:

- a reading under which an offset falls inside a character or outside its document cannot be the
  file's (it is left out);
- each span edge (after its edge whitespace) is *clean* when it lies at the start or end of the
  text, or between two characters of different classes (letters of one script, digits, spaces,
  punctuation: a word boundary in English, a script change in Japanese, where particles in hiragana
  follow nouns in kanji or katakana), and not inside a grapheme or a CRLF pair.

Only spans whose text differs between readings count (a document of ASCII text without CR reads the
same in every unit). Another reading is *clearly better* when it gives at least
:data:`LEAST_MORE_CLEAN` more clean edges than the given one, at least :data:`LEAST_SHARE` of its
edges are clean, and the difference is at least :data:`LEAST_GAIN` of all edges: then
:func:`suspect_reading` returns what to pass. The loader never switches by itself.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from chunkscope.io.newlines import NewlineView, newline_view
from chunkscope.io.offsets import OFFSET_UNITS, UNIT_NAMES, OffsetError, OffsetUnit, UnitOffsets
from chunkscope.model import Document

Newlines = Literal["as-is", "lf"]
"""``as-is``: offsets count the file's text; ``lf``: they count its universal-newlines view (CRLF as LF)."""
NEWLINES: tuple[Newlines, ...] = ("as-is", "lf")

LEAST_MORE_CLEAN = 2
LEAST_SHARE = 0.75
LEAST_GAIN = 0.25


@dataclass(frozen=True, slots=True)
class Reading:
    """One way of reading a file's offsets: their unit, and the line endings they were counted on."""

    unit: OffsetUnit
    newlines: Newlines = "as-is"

    @property
    def label(self) -> str:
        lf = " on the text with CRLF read as LF" if self.newlines == "lf" else ""
        return f"{UNIT_NAMES[self.unit]}{lf}"

    @property
    def options(self) -> str:
        """The options that select this reading."""
        parts = [f"--questions-offset-unit {self.unit}"] if self.unit != "codepoint" else []
        if self.newlines == "lf":
            parts.append("--questions-newlines lf")
        return " and ".join(parts) or "no --questions-offset-unit or --questions-newlines option"


READINGS = tuple(Reading(unit, newlines) for newlines in NEWLINES for unit in OFFSET_UNITS)


@dataclass(frozen=True, slots=True)
class Suspicion:
    """Another reading of a file's offsets-only spans is clearly better than the one given."""

    path: str
    given: Reading
    better: Reading
    affected: int
    """Offsets-only spans whose text differs between the two readings."""
    given_clean: int
    better_clean: int

    @property
    def line_endings(self) -> bool:
        """True when the better reading differs in its line endings (what the message leads with)."""
        return self.better.newlines != self.given.newlines

    def message(self) -> str:
        """One line: the file, the count of affected spans, the evidence and what to pass."""
        edges = 2 * self.affected
        lead = "line endings differ: " if self.line_endings else ""
        return (
            f"{self.path}: {lead}{self.affected} offsets-only gold spans read better as "
            f"{self.better.label} ({self.better_clean}/{edges} span edges at word or script boundaries) rather than "
            f"as {self.given.label} ({self.given_clean}/{edges}): pass {self.better.options}"
        )


def suspect_reading(path: str, spans: Sequence[tuple[Document, int, int]], given: Reading) -> Suspicion | None:
    """The reading of ``spans`` (as written in the file) clearly better than ``given``, if there is one."""
    counters = _Counters()
    spans = [(d, s, e) for d, s, e in spans if "\r" in d.text or not d.text.isascii()]  # others read the same
    converted = {reading: [counters.span(d, s, e, reading) for d, s, e in spans] for reading in READINGS}
    best: Suspicion | None = None
    for reading in READINGS:
        if reading == given:
            continue
        affected = [i for i, span in enumerate(converted[reading]) if span != converted[given][i]]
        if not affected or any(converted[reading][i] is None for i in affected):
            continue
        given_clean = sum(_clean_edges(spans[i][0].text, converted[given][i]) for i in affected)
        better_clean = sum(_clean_edges(spans[i][0].text, converted[reading][i]) for i in affected)
        gain, edges = better_clean - given_clean, 2 * len(affected)
        clear = gain >= LEAST_MORE_CLEAN and better_clean >= LEAST_SHARE * edges and gain >= LEAST_GAIN * edges
        if clear and (best is None or gain > best.better_clean - best.given_clean):
            best = Suspicion(path, given, reading, len(affected), given_clean, better_clean)
    return best


class _Counters:
    """Per document and reading: the universal-newlines view (when read so) and the unit converter over it."""

    def __init__(self) -> None:
        self.views: dict[str, NewlineView] = {}
        self.units: dict[tuple[str, Reading], UnitOffsets] = {}

    def span(self, document: Document, start: int, end: int, reading: Reading) -> tuple[int, int] | None:
        """The code-point span of ``[start, end)`` read as ``reading``; None when it is not a span of the document."""
        view = None
        if reading.newlines == "lf":
            view = self.views.get(document.id) or self.views.setdefault(document.id, newline_view(document.text))
        counted = document.text if view is None else view.text
        key = (document.id, reading)
        converter = self.units.get(key) or self.units.setdefault(key, UnitOffsets(counted, reading.unit))
        try:
            first, last = converter.to_codepoint(start), converter.to_codepoint(end)
        except OffsetError:
            return None
        if not 0 <= first < last:
            return None
        if view is not None:
            first, last = view.to_original(first), view.to_original(last)
        return first, last


def _clean_edges(text: str, span: tuple[int, int] | None) -> int:
    """Clean edges (0, 1 or 2) of ``span`` after its edge whitespace; 0 for no span."""
    if span is None:
        return 0
    start, end = span
    held = text[start:end]
    stripped = held.strip()
    if stripped:
        start += len(held) - len(held.lstrip())
        end = start + len(stripped)
    return int(clean_edge(text, start)) + int(clean_edge(text, end))


def clean_edge(text: str, position: int) -> bool:
    """True when ``position`` lies at a word or script boundary of ``text`` (see the module docstring)."""
    if position <= 0 or position >= len(text):
        return True
    before, after = text[position - 1], text[position]
    if before == "\r" and after == "\n":
        return False
    if "\udc00" <= after <= "\udfff" or unicodedata.category(after).startswith("M") or after in "\u200d\ufe0f":
        return False
    first, second = _character_class(before), _character_class(after)
    return first != second or first in ("space", "punctuation")


def _character_class(character: str) -> str:
    """A coarse class: space, punctuation, digit, or the script of a letter (by its Unicode name)."""
    category = unicodedata.category(character)
    if character.isspace():
        return "space"
    if category[0] in "PSZC":
        return "punctuation"
    if category == "Nd":
        return "digit"
    name = unicodedata.name(character, "")
    for script in ("HIRAGANA", "KATAKANA", "CJK", "HANGUL", "LATIN", "CYRILLIC", "GREEK", "ARABIC", "HEBREW"):
        if name.startswith(script):
            return script
    return "letter"


def quote_line_endings(text: str, quote: str) -> str:
    """A note for a quote not found as it is: when it is found in the text with CRLF read as LF, say so."""
    if "\r" not in text or newline_view(text).text.find(quote) == -1:
        return ""
    return (
        "; line endings differ: the quote matches the document read with CRLF as LF "
        "(--gold-match normalized reads every line break alike)"
    )


def offsets_line_endings(text: str, quote: str, start: int, end: int) -> str:
    """A note for a quote not at its code-point offsets: when they hold it counted on the CRLF-as-LF view, say so."""
    if "\r" not in text:
        return ""
    view = newline_view(text)
    if not 0 <= start < end <= len(view.text) or text[view.to_original(start) : view.to_original(end)] != quote:
        return ""
    return "; line endings differ: the offsets count the document read with CRLF as LF: pass --questions-newlines lf"
