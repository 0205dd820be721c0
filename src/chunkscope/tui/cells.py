"""Terminal-cell geometry for text: widths, wrapping with character offsets, truncation.

Widths agree with ``rich.cells.cell_len`` (Japanese and other wide characters take
two cells, combining marks none). Wrapping never changes the text: every visual
line is a half-open range of the original string, so a character offset always
maps to a line and back.

Control characters are shown through :func:`visible`, a one-to-one character
substitution (a tab becomes one space, other controls ``�``), so display and
source offsets stay equal. Line terminators (``\\n``, ``\\r\\n`` and a lone
``\\r``) end a line and are not displayed.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from rich._unicode_data import load as load_cell_table
from rich.cells import cell_len

from chunkscope.arrays import sorted_unique

ELLIPSIS = "…"

_CONTROL_TO_VISIBLE = {c: "\ufffd" for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)]}
_CONTROL_TO_VISIBLE[ord("\t")] = " "
_CONTROL_TO_VISIBLE[ord("\n")] = "\n"
_CONTROL_TO_VISIBLE[ord("\r")] = "\r"
_TERMINATORS = re.compile(r"\r\n|\n|\r")
_ZWJ = 0x200D
_VS16 = 0xFE0F


_CONTROLS = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """``text`` with control characters replaced one-for-one by printable ones (terminators kept)."""
    # most texts have none: a regex scan is far cheaper than translate
    return text.translate(_CONTROL_TO_VISIBLE) if _CONTROLS.search(text) else text


@lru_cache(maxsize=1)
def _width_table() -> tuple[np.ndarray, np.ndarray, np.ndarray, frozenset[str]]:
    table = load_cell_table("auto")
    starts = np.array([start for start, _, _ in table.widths], dtype=np.int64)
    ends = np.array([end for _, end, _ in table.widths], dtype=np.int64)
    widths = np.array([width for _, _, width in table.widths], dtype=np.int8)
    return starts, ends, widths, table.narrow_to_wide


def cell_widths(text: str) -> np.ndarray:
    """Cells taken by each character of ``text`` (int8 array, same length as ``text``).

    Vectorised lookup in rich's Unicode width table; C0/C1 controls take 0 cells,
    the character after a zero-width joiner takes 0, and VS16 widens a narrow
    emoji by one, as ``rich.cells.cell_len`` counts them.
    """
    if not text:
        return np.zeros(0, dtype=np.int8)
    if text.isascii():
        codes = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        return np.where((codes < 0x20) | (codes == 0x7F), 0, 1).astype(np.int8)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    starts, ends, table_widths, narrow_to_wide = _width_table()
    position = np.searchsorted(starts, codes, side="right") - 1
    inside = (position >= 0) & (codes <= ends[np.maximum(position, 0)])
    widths = np.where(inside, table_widths[np.maximum(position, 0)], 1).astype(np.int8)
    widths[(codes < 0x20) | ((codes >= 0x7F) & (codes < 0xA0))] = 0
    for index in np.flatnonzero(codes == _ZWJ):
        widths[index] = 0
        if index + 1 < len(widths):
            widths[index + 1] = 0
    for index in np.flatnonzero(codes == _VS16):
        widths[index] = 1 if index > 0 and widths[index - 1] == 1 and text[index - 1] in narrow_to_wide else 0
    return widths


@dataclass(frozen=True, slots=True)
class WrappedText:
    """Visual lines of a text wrapped to a width in cells.

    Line ``i`` owns the offsets ``starts[i] .. starts[i+1]`` (the last line owns up
    to ``len(text)`` inclusive, so a mark at the very end has a line) and displays
    the characters ``starts[i] .. ends[i]``; the rest of its range, not shown, is
    the line terminator or the spaces at which the line was wrapped.
    """

    starts: np.ndarray
    """Offset of the first character of each line (ascending, starts[0] == 0)."""
    ends: np.ndarray
    """Offset one past the last displayed character of each line."""
    text_length: int
    """Length of the wrapped text."""

    @property
    def line_count(self) -> int:
        """Number of visual lines (at least 1)."""
        return len(self.starts)

    def line_of(self, offset: int) -> int:
        """Index of the line that owns character ``offset`` (clamped to the text)."""
        offset = min(max(offset, 0), self.text_length)
        return int(np.searchsorted(self.starts, offset, side="right")) - 1

    def owned(self, line: int) -> tuple[int, int]:
        """The offsets ``[start, next line's start)`` owned by ``line``."""
        stop = int(self.starts[line + 1]) if line + 1 < len(self.starts) else self.text_length + 1
        return int(self.starts[line]), stop


WORD_LOOK_BACK = 24
"""How many characters a forced line start inside a word moves back to the word's start, at most:
a longer run (a URL, a hash) breaks where it was forced."""

# scripts written without spaces between words: any character boundary is a break opportunity
_UNSPACED_SCRIPTS = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x2E80, 0xA4CF),  # CJK radicals and symbols, kana, bopomofo, CJK ideographs, Yi
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # full- and half-width forms
    (0x20000, 0x3FFFF),  # CJK extensions
)


def in_spaced_word(character: str) -> bool:
    """``character`` belongs to a word of a script that separates words with spaces (Latin, Greek,
    Cyrillic, Hangul, ...): a letter, digit, combining mark, ``_``, ``-`` or ``'``. Lines do not break
    between two such characters when they can break elsewhere; CJK and other unspaced text can break
    anywhere."""
    if character.isascii():
        return character.isalnum() or character in "_-'"
    code = ord(character)
    if any(low <= code <= high for low, high in _UNSPACED_SCRIPTS):
        return False
    return character.isalnum() or unicodedata.category(character).startswith("M")


def word_start(text: str, offset: int, floor: int = 0, look_back: int = WORD_LOOK_BACK) -> int:
    """Where a line forced to start at ``offset`` starts instead, so it does not split a word: the start
    of the spaced-script word ``offset`` falls inside (word characters on both sides), when that is at
    most ``look_back`` characters back and not before ``floor`` (the start of the hard line);
    otherwise ``offset`` itself (between words, in CJK text, in a longer run)."""
    if not max(0, floor) < offset < len(text):
        return offset
    if not (in_spaced_word(text[offset]) and in_spaced_word(text[offset - 1])):
        return offset
    start = offset - 1
    lowest = max(floor, offset - look_back)
    while start > lowest and in_spaced_word(text[start - 1]):
        start -= 1
    if start > floor and in_spaced_word(text[start - 1]):
        return offset  # longer than the look-back: no word start in reach
    return start


def wrap_text(
    text: str,
    width: int,
    extra: np.ndarray | None = None,
    word_wrap: bool = True,
    breaks: tuple[int, ...] = (),
) -> WrappedText:
    """Wrap ``text`` to ``width`` cells per line, keeping character offsets.

    ``extra`` (length ``len(text) + 1``, optional) gives cells of marker glyphs drawn
    just before each offset (index ``len(text)`` is after the last character); they
    count towards the width. Words of spaced scripts (:func:`in_spaced_word`) are not split when a
    space earlier in the line allows a break (the space stays at the end of the line); other text (CJK)
    breaks at any character, except that a line does not start with closing
    punctuation such as ``。`` or ``」`` when the character before can move down
    with it. A single character wider than the line gets a line of its own. Hard
    breaks at ``\n``, ``\r\n`` and a lone ``\r``, and before each offset of ``breaks``
    (recorded paragraph starts, ascending) that is not at a terminator.
    """
    width = max(1, width)
    length = len(text)
    base_cost, text_ends, owned_ends = _paragraphs(text, breaks)
    cost = base_cost if extra is None else base_cost + extra.astype(np.int64)
    cumulative = np.zeros(length + 2, dtype=np.int64)
    np.cumsum(cost, out=cumulative[1:])
    para_starts = np.concatenate(([0], owned_ends[:-1]))
    fits = (cumulative[owned_ends] - cumulative[para_starts]) <= width
    if fits.all():
        return WrappedText(para_starts, text_ends.copy(), length)
    starts: list[int] = []
    ends: list[int] = []
    for start, text_end, owned_end, fit in zip(
        para_starts.tolist(), text_ends.tolist(), owned_ends.tolist(), fits.tolist(), strict=True
    ):
        if fit:
            starts.append(start)
            ends.append(text_end)
        else:
            sums = cumulative[start : owned_end + 1] - cumulative[start]
            _wrap_paragraph(text, sums.tolist(), start, start, text_end, owned_end, width, word_wrap, starts, ends)
    return WrappedText(np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64), length)


def rewrap_text(
    text: str,
    width: int,
    extra: np.ndarray,
    base: WrappedText,
    base_extra: np.ndarray,
    word_wrap: bool = True,
    breaks: tuple[int, ...] = (),
    forced: tuple[int, ...] = (),
) -> WrappedText:
    """``wrap_text(text, width, extra, breaks=breaks)`` with a line also starting at each
    offset of ``forced`` (ascending), re-wrapping only the hard lines where ``extra``
    differs from ``base_extra`` or that hold a forced start (``base`` is
    ``wrap_text(text, width, base_extra, breaks=breaks)``).

    For marks that change per question (gold brackets, cuts; the ranked chunks' starts,
    which begin a line so their tags sit in the gutter) while most (chunk boundaries) stay.
    The lines equal ``wrap_text`` with ``breaks`` and ``forced`` together as breaks.
    """
    forced = _usable_breaks(text, forced)
    changed = np.union1d(np.flatnonzero(extra != base_extra), np.array(forced, dtype=np.int64))
    if not changed.size:
        return base
    width = max(1, width)
    base_cost, text_ends, owned_ends = _paragraphs(text, breaks)
    paragraphs = sorted_unique(np.searchsorted(owned_ends, changed, side="right")).tolist()
    base_starts = base.starts.tolist()
    base_ends = base.ends.tolist()
    starts: list[int] = []
    ends: list[int] = []
    copied = 0
    for index in paragraphs:
        start = int(owned_ends[index - 1]) if index else 0
        text_end, owned_end = int(text_ends[index]), int(owned_ends[index])
        first = bisect.bisect_left(base_starts, start)
        last = bisect.bisect_left(base_starts, owned_end)
        starts += base_starts[copied:first]
        ends += base_ends[copied:first]
        sums = np.zeros(owned_end - start + 1, dtype=np.int64)
        np.cumsum(base_cost[start:owned_end] + extra[start:owned_end], out=sums[1:])
        sum_list = sums.tolist()
        piece_start = start
        for forced_start in forced[bisect.bisect_right(forced, start) : bisect.bisect_left(forced, text_end)]:
            _wrap_paragraph(
                text, sum_list, start, piece_start, forced_start, forced_start, width, word_wrap, starts, ends
            )
            piece_start = forced_start
        _wrap_paragraph(text, sum_list, start, piece_start, text_end, owned_end, width, word_wrap, starts, ends)
        copied = last
    starts += base_starts[copied:]
    ends += base_ends[copied:]
    return WrappedText(np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64), base.text_length)


def _usable_breaks(text: str, offsets: tuple[int, ...]) -> tuple[int, ...]:
    """The ``offsets`` inside ``text`` where a line can start without a terminator: not at the
    start or end, not next to a line terminator (one already breaks there)."""
    return tuple(
        sorted({o for o in offsets if 0 < o < len(text) and text[o - 1] not in "\r\n" and text[o] not in "\r\n"})
    )


@lru_cache(maxsize=8)
def _paragraphs(text: str, breaks: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells of each offset as displayed (terminators 0, one extra slot at the end), and per hard line
    the end of its text and the end of the offsets it owns (cached per text and breaks).

    A hard line ends at each terminator and before each usable offset of ``breaks``
    (which then ends both its text and what it owns)."""
    length = len(text)
    cost = np.zeros(length + 1, dtype=np.int64)
    cost[:length] = cell_widths(visible(text))
    ends: list[tuple[int, int]] = [(b, b) for b in _usable_breaks(text, breaks)]
    for match in _TERMINATORS.finditer(text):
        cost[match.start() : match.end()] = 0
        ends.append((match.start(), match.end()))
    ends.sort()
    ends.append((length, length + 1))
    cost.flags.writeable = False
    return (
        cost,
        np.array([text_end for text_end, _ in ends], dtype=np.int64),
        np.array([owned_end for _, owned_end in ends], dtype=np.int64),
    )


# a line should not start with these (Japanese line-breaking rules, kinsoku shori)
_NO_LINE_START = frozenset("、。，．,.)）」』】〕〉》’”!?！？・ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ々〻…‥")


def _wrap_paragraph(
    text: str,
    sums: list[int],
    base: int,
    start: int,
    text_end: int,
    owned_end: int,
    width: int,
    word_wrap: bool,
    starts: list[int],
    ends: list[int],
) -> None:
    """Append the lines of one paragraph (its characters ``start..text_end``, owning to ``owned_end``).

    ``sums[i]`` is the cells of offsets ``base .. base + i`` with ``base <= start`` (a plain
    list: bisect on it is far cheaper per call than numpy's searchsorted on a scalar).
    """
    line_start = start
    while sums[owned_end - base] - sums[line_start - base] > width:
        limit = sums[line_start - base] + width
        # offsets before `fit` can be shown with their marker glyphs within the width
        fit = base + bisect.bisect_right(sums, limit, line_start - base) - 1
        fit = min(fit, text_end)
        if fit <= line_start:
            fit = line_start + 1
        elif fit < text_end:
            if word_wrap and in_spaced_word(text[fit]) and in_spaced_word(text[fit - 1]):
                space = text.rfind(" ", line_start, fit)
                if space > line_start:
                    fit = space + 1
            elif text[fit] in _NO_LINE_START and fit - 1 > line_start:
                # Punctuation may not start a line: it goes down with what precedes it. After a spaced
                # word ("order.") that is the whole word, from the space before it; in CJK one character.
                space = text.rfind(" ", line_start, fit) if word_wrap and in_spaced_word(text[fit - 1]) else -1
                fit = space + 1 if space > line_start else fit - 1
        if fit >= text_end:
            if line_start == text_end:
                break
            # the text fits but marker glyphs at the terminator do not: they get a line of their own
            fit = text_end
        starts.append(line_start)
        ends.append(fit)
        # spaces where the line breaks are not shown at the start of the next line (unless a glyph sits there)
        while fit < text_end and text[fit] == " " and sums[fit + 1 - base] - sums[fit - base] == 1:
            fit += 1
        line_start = fit
    # Spaces skipped at a wrap can reach the paragraph's end: no empty line for them,
    # unless marker glyphs drawn at the end need that line (or the paragraph is empty).
    if line_start < text_end or line_start == start or sums[owned_end - base] > sums[line_start - base]:
        starts.append(line_start)
        ends.append(text_end)


def wrap_lines(text: str, width: int, word_wrap: bool = True) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of each displayed line of ``text`` wrapped to ``width`` cells."""
    wrapped = wrap_text(text, width, word_wrap=word_wrap)
    return [(int(s), int(e)) for s, e in zip(wrapped.starts, wrapped.ends, strict=True)]


def truncate(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` cut to at most ``width`` cells, ending in ``ellipsis`` when something was cut."""
    if cell_len(text) <= width:
        return text
    if width <= 0:
        return ""
    room = width - cell_len(ellipsis)
    if room < 0:
        return ""
    return text[: fitting_prefix(text, room)] + ellipsis


def fitting_prefix(text: str, room: int) -> int:
    """How many leading characters of ``text`` fit in ``room`` cells (zero-width ones after the last that fits
    included), counting cells as :func:`cell_widths` does."""
    if chr(_ZWJ) in text or chr(_VS16) in text:
        # A joiner or a variation selector changes its neighbour's width: the whole text is measured.
        return int(np.searchsorted(np.cumsum(cell_widths(text)), room, side="right"))
    # Each character's width is its own: walk to the first that does not fit, usually a few dozen in
    # (a question list row or a header), where measuring the whole text in numpy costs more than the walk.
    used = 0
    for index, character in enumerate(text):
        used += _character_cells(character)
        if used > room:
            return index
    return len(text)


@lru_cache(maxsize=4096)
def _character_cells(character: str) -> int:
    return int(cell_widths(character)[0])


def truncate_start(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` cut from the left to at most ``width`` cells, starting with ``ellipsis`` when cut."""
    if cell_len(text) <= width:
        return text
    room = width - cell_len(ellipsis)
    if room < 0:
        return ""
    widths = cell_widths(text)[::-1]
    cumulative = np.cumsum(widths)
    keep = int(np.searchsorted(cumulative, room, side="right"))
    return ellipsis + text[len(text) - keep :]


def truncate_middle(text: str, width: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` cut to at most ``width`` cells by removing its middle: both ends stay (a path keeps its
    root and its file name), the start taking the extra cell of an odd room."""
    if cell_len(text) <= width:
        return text
    room = width - cell_len(ellipsis)
    if room < 0:
        return ""
    widths = cell_widths(text)
    head_room = room - room // 2
    head = int(np.searchsorted(np.cumsum(widths), head_room, side="right"))
    tail_room = room - int(widths[:head].sum())
    tail = int(np.searchsorted(np.cumsum(widths[::-1]), tail_room, side="right"))
    return text[:head] + ellipsis + text[len(text) - tail :]


def truncate_shared(text: str, width: int, shared: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` cut to at most ``width`` cells by removing from its first ``shared`` characters (a start it has in
    common with a text shown beside it) first, so what differs stays: ``…size=200/bm25`` beside
    ``…overlap=40/bm25``. When what follows the shared start does not fit either, its middle is cut too."""
    if cell_len(text) <= width:
        return text
    if not 0 < shared < len(text):
        return truncate_middle(text, width, ellipsis)
    room = width - cell_len(ellipsis)
    if room < 0:
        return ""
    rest = text[shared:]
    if cell_len(rest) > room:
        return ellipsis + truncate_middle(rest, room, ellipsis)
    tail = int(np.searchsorted(np.cumsum(cell_widths(text)[::-1]), room, side="right"))
    return ellipsis + text[len(text) - tail :]


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces (or truncated) to exactly ``width`` cells."""
    text = truncate(text, width)
    return text + " " * (width - cell_len(text))


def pad_left(text: str, width: int) -> str:
    """``text`` right-aligned in ``width`` cells (truncated when longer)."""
    text = truncate(text, width)
    return " " * (width - cell_len(text)) + text
