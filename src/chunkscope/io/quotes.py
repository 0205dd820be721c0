"""Finding a quoted piece of gold in a document: exact, then normalised, then approximate.

Gold rarely arrives as clean offsets: a quote copied from a PDF or a web page has
other line breaks, spaces and typographic quotes than the corpus. The ladder tries

1. **exact**: the quote occurs as given;
2. **normalized**: both texts are NFKC-normalised, every run of whitespace
   (line breaks included) becomes one space, typographic quotes and dashes are
   folded to ASCII and invisible characters (soft hyphen, zero-width space,
   byte-order mark) are dropped; a match maps back to the ORIGINAL offsets;
3. **fuzzy** (only when asked, needs rapidfuzz): the best alignment of the
   normalised quote whose similarity reaches a threshold.

Each rung is tried only when the ones below found nothing, and every result says
which rung found it.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from chunkscope.errors import MissingExtraError
from chunkscope.model import EXACT, SpanMatch

Level = Literal["exact", "normalized", "fuzzy"]
LEVELS: tuple[Level, ...] = ("exact", "normalized", "fuzzy")
DEFAULT_THRESHOLD = 0.9


@dataclass(frozen=True, slots=True)
class MatchPolicy:
    """How far down the ladder a quote may be matched (``--gold-match``)."""

    level: Level = "normalized"
    """The last rung tried."""
    threshold: float = DEFAULT_THRESHOLD
    """Least similarity (0..1) a fuzzy alignment needs."""

    def allows(self, level: Level) -> bool:
        """True when ``level`` is at or below this policy's last rung."""
        return LEVELS.index(level) <= LEVELS.index(self.level)

    @property
    def label(self) -> str:
        """The option value that gives this policy back (``normalized``, ``fuzzy:0.9``)."""
        return f"fuzzy:{self.threshold:g}" if self.level == "fuzzy" else self.level


DEFAULT_POLICY = MatchPolicy()
EXACT_POLICY = MatchPolicy("exact")


def parse_match_policy(text: str) -> MatchPolicy:
    """``exact``, ``normalized``, ``fuzzy`` or ``fuzzy:0.85``; ValueError otherwise."""
    name, _, threshold = text.strip().partition(":")
    if name not in LEVELS:
        raise ValueError(f"--gold-match must be exact, normalized or fuzzy[:THRESHOLD], got {text!r}")
    if not threshold:
        return MatchPolicy(name)
    if name != "fuzzy":
        raise ValueError(f"--gold-match: only fuzzy takes a threshold, got {text!r}")
    try:
        value = float(threshold)
    except ValueError:
        raise ValueError(f"--gold-match: threshold must be a number between 0 and 1, got {threshold!r}") from None
    if not 0 < value <= 1:
        raise ValueError(f"--gold-match: threshold must be above 0 and at most 1, got {threshold}")
    return MatchPolicy("fuzzy", value)


# ------------------------------------------------------------------ normalisation

_FOLD = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛′‵`", "'"),
        **dict.fromkeys("“”„‟″‶«»", '"'),
        **dict.fromkeys("‐‑‒–—―−⁃", "-"),
        **dict.fromkeys("\u00ad\u200b\u200c\u200d\u2060\ufeff"),
    }
)
"""Typographic quotes and dashes to ASCII; soft hyphen and zero-width characters removed."""


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A normalised text with, for each of its characters, the original range it came from."""

    text: str
    starts: array[int]
    """Original offset of the first character behind each normalised character (machine integers: a
    tuple of Python ints took 72 bytes per character of a document, 1.2 GB for a 20 MB one)."""
    ends: array[int]
    """Original offset one past the last character behind each normalised character."""

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original range behind normalised ``[start, end)`` (non-empty)."""
        return self.starts[start], self.ends[end - 1]


def normalize(text: str) -> str:
    """The normalised form of ``text`` (what the second rung compares), without edge whitespace."""
    return normalize_with_map(text).text.strip(" ")


def normalize_with_map(text: str) -> NormalizedText:
    """Normalise ``text`` and keep, per output character, the original range it came from.

    NFKC is applied per cluster (a character and the combining marks after it), so
    every output character maps back to whole original characters. Runs that NFKC
    leaves as they are (most text) are copied in one step.
    """
    out: list[str] = []
    blocks: list[str] = []
    code = "i" if len(text) < 2**31 - 1 else "q"  # 4 bytes per offset where they fit
    starts: array[int] = array(code)
    ends: array[int] = array(code)
    position = 0
    for special in _SPECIAL.finditer(text):
        position = _copy(text, position, special.start(), out, starts, ends)
        position = _clusters(text, max(position, special.start()), special.end(), out, starts, ends)
        if len(out) > PIECES_JOINED:
            # Words and spaces as separate strings cost ~50 bytes each: join them as we go, keeping the
            # last piece apart (a space run after it extends it).
            blocks.append("".join(out[:-1]))
            del out[:-1]
    _copy(text, position, len(text), out, starts, ends)
    return NormalizedText("".join(blocks + out), starts, ends)


PIECES_JOINED = 1 << 16
"""Pieces of normalised text kept apart before they are joined into one string."""


_SPECIAL = re.compile("[\\s" + re.escape("".join(chr(c) for c in _FOLD)) + "]+")
"""Whitespace and the characters folded or dropped: what a stable run of text never holds."""


def _copy(text: str, start: int, stop: int, out: list[str], starts: array[int], ends: array[int]) -> int:
    """Append ``text[start:stop]``, unchanged when NFKC keeps it; return where the next character starts."""
    if start >= stop:
        return start
    run = text[start:stop]
    if run.isascii() or (unicodedata.is_normalized("NFKC", run) and _combining_marks().search(run) is None):
        out.append(run)
        starts.extend(range(start, stop))
        ends.extend(range(start + 1, stop + 1))
        return stop
    return _clusters(text, start, stop, out, starts, ends)


@functools.cache
def _combining_marks() -> re.Pattern[str]:
    """Every character with a non-zero combining class (all lie below U+20000), as one character class.

    A run holding one is normalised cluster by cluster: its marks map back to their whole cluster, as
    everywhere else. Built on first use (about 10 ms), not at import.
    """
    marks = [code for code in range(0x300, 0x20000) if unicodedata.combining(chr(code))]
    ranges = []
    first = previous = marks[0]
    for code in marks[1:]:
        if code != previous + 1:
            ranges.append((first, previous))
            first = code
        previous = code
    ranges.append((first, previous))
    return re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges) + "]")


def _clusters(text: str, start: int, stop: int, out: list[str], starts: array[int], ends: array[int]) -> int:
    """Normalise the clusters that begin in ``[start, stop)``; return the end of the last one."""
    position = start
    length = len(text)
    while position < stop:
        end = position + 1
        while end < length and unicodedata.combining(text[end]):
            end += 1
        cluster = text[position:end]
        piece = (cluster if cluster.isascii() else unicodedata.normalize("NFKC", cluster)).translate(_FOLD)
        for character in piece:
            if character.isspace():
                if out and out[-1][-1] == " " and ends[-1] == position:
                    ends[-1] = end  # extend the space of the run
                    continue
                character = " "
            out.append(character)
            starts.append(position)
            ends.append(end)
        position = end
    return position


# ------------------------------------------------------------------ the ladder


@dataclass(frozen=True, slots=True)
class QuoteHits:
    """Where a quote was found, at the first rung that found it."""

    match: SpanMatch | None
    """How it was found; ``None`` when not found."""
    places: tuple[tuple[int, int], ...] = ()
    """Original ``(start, end)`` of every occurrence at that rung (fuzzy: the best alignment only)."""


NOT_FOUND = QuoteHits(None)


class QuoteFinder:
    """Locates quotes in texts by the ladder, caching each text's normalised form by key."""

    def __init__(self, policy: MatchPolicy = DEFAULT_POLICY) -> None:
        self.policy = policy
        self._normalized: dict[str, NormalizedText] = {}

    def normalized(self, key: str, text: str) -> NormalizedText:
        """``text`` normalised (cached under ``key``, e.g. the document id)."""
        cached = self._normalized.get(key)
        if cached is None:
            cached = self._normalized[key] = normalize_with_map(text)
        return cached

    def find(self, key: str, text: str, quote: str) -> QuoteHits:
        """Every occurrence of ``quote`` in ``text`` at the lowest rung that finds one."""
        for level in self.levels:
            hits = self.at(level, key, text, quote)
            if hits.places:
                return hits
        return NOT_FOUND

    @property
    def levels(self) -> tuple[Level, ...]:
        """The rungs this finder tries, in order."""
        return tuple(level for level in LEVELS if self.policy.allows(level))

    def at(self, level: Level, key: str, text: str, quote: str) -> QuoteHits:
        """Occurrences of ``quote`` found by one rung only."""
        if level == "exact":
            found = find_all(text, quote)
            return QuoteHits(EXACT, tuple((start, start + len(quote)) for start in found)) if found else NOT_FOUND
        needle = normalize(quote)
        if not needle:
            return NOT_FOUND
        haystack = self.normalized(key, text)
        if level == "fuzzy":
            return self._fuzzy(haystack, needle)
        places = tuple(dict.fromkeys(haystack.original(p, p + len(needle)) for p in find_all(haystack.text, needle)))
        return QuoteHits(SpanMatch("normalized"), places) if places else NOT_FOUND

    def agrees(self, text: str, quote: str, start: int, end: int) -> SpanMatch | None:
        """How ``text[start:end]`` matches ``quote`` under this policy; ``None`` when it does not."""
        held = text[start:end]
        if held == quote:
            return EXACT
        if not self.policy.allows("normalized"):
            return None
        needle, found = normalize(quote), normalize(held)
        if needle and needle == found:
            return SpanMatch("normalized")
        if not self.policy.allows("fuzzy") or not needle:
            return None
        score = _similarity()(needle, found)
        return SpanMatch("fuzzy", score) if score >= self.policy.threshold else None

    def _fuzzy(self, haystack: NormalizedText, needle: str) -> QuoteHits:
        similarity = _similarity()
        located = best_alignment(haystack.text, needle, similarity)
        if located is None:
            return NOT_FOUND
        start, end, score = located
        if score < self.policy.threshold:
            return NOT_FOUND
        return QuoteHits(SpanMatch("fuzzy", score), (haystack.original(start, end),))


Similarity = Callable[[str, str], float]


def _similarity() -> Similarity:
    """Normalised Indel similarity (rapidfuzz ``fuzz.ratio`` / 100): 1 - edits / (len(a) + len(b))."""
    try:
        from rapidfuzz.distance import Indel
    except ImportError:
        raise MissingExtraError("--gold-match fuzzy", "fuzzy", "rapidfuzz") from None
    similarity: Similarity = Indel.normalized_similarity
    return similarity


def best_alignment(text: str, needle: str, similarity: Similarity) -> tuple[int, int, float] | None:
    """The span of ``text`` most similar to ``needle``, with its similarity.

    rapidfuzz's partial-ratio alignment finds the best window of the needle's
    length; its edges are then moved (start first, then end, each within a fifth of
    the needle's length) to the positions of highest similarity, so a quote missing
    or adding a few characters gets the span it really covers. Ties keep the
    position nearest the window.
    """
    from rapidfuzz import fuzz

    if not text:
        return None
    window = fuzz.partial_ratio_alignment(needle, text)
    if window is None or window.dest_end <= window.dest_start:
        return None
    reach = len(needle) // 5 + 2
    start, end = window.dest_start, window.dest_end

    def best(candidates: range, anchor: int, score: Callable[[int], float]) -> int:
        """The candidate of highest score; the one nearest ``anchor`` among equals."""
        return max(candidates, key=lambda c: (score(c), -abs(c - anchor)), default=anchor)

    start = best(
        range(max(0, start - reach), min(end, start + reach + 1)), start, lambda s: similarity(needle, text[s:end])
    )
    end = best(
        range(max(start + 1, end - reach), min(len(text), end + reach) + 1),
        end,
        lambda e: similarity(needle, text[start:e]),
    )
    start, end = snap_to_words(text, start, end)
    return start, end, similarity(needle, text[start:end])


SNAP_REACH = 3
"""Characters an approximate edge may move to reach the edge of the word it cuts."""


def snap_to_words(text: str, start: int, end: int) -> tuple[int, int]:
    """Move edges that cut a word to that word's edges, when they are at most SNAP_REACH characters away."""
    if inside_word(text, start):
        back = start
        while back > 0 and start - back < SNAP_REACH and inside_word(text, back):
            back -= 1
        start = back if not inside_word(text, back) else start
    if inside_word(text, end):
        ahead = end
        while ahead < len(text) and ahead - end < SNAP_REACH and inside_word(text, ahead):
            ahead += 1
        end = ahead if not inside_word(text, ahead) else end
    return start, end


def inside_word(text: str, position: int) -> bool:
    """True when ``position`` lies between two word characters (see ``is_word_character``)."""
    return 0 < position < len(text) and is_word_character(text[position - 1]) and is_word_character(text[position])


_UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff]"
)
"""Scripts written without spaces between words (Thai, Lao, Myanmar, Khmer, kana, CJK ideographs):
a boundary between two of their characters is not "inside a word"."""


def is_word_character(character: str) -> bool:
    """A letter, digit or mark of a script that separates words by spaces."""
    return (character.isalnum() or unicodedata.category(character).startswith("M")) and not _UNSPACED.match(character)


def find_all(text: str, needle: str) -> list[int]:
    """Start offsets of every (possibly overlapping) occurrence of ``needle``."""
    found = []
    position = text.find(needle)
    while position != -1:
        found.append(position)
        position = text.find(needle, position + 1)
    return found


_HOP_MARKER = re.compile(r"^<\d+-hop>\s*")


def strip_hop_marker(context: str) -> str:
    """A RAGAS multi-hop reference context without its ``<1-hop>`` marker."""
    return _HOP_MARKER.sub("", context)
