"""Where a forced line start goes so that it does not split a word (``cells.word_start``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.tui.cells import WORD_LOOK_BACK, cell_widths, fitting_prefix, in_spaced_word, truncate, word_start


def test_a_start_inside_a_word_moves_to_the_word_start_by_hand() -> None:
    text = "downloadable software and x"
    # "software" is [13, 21): a start at "w" (17) moves back to 13; starts at a word's edge stay
    assert word_start(text, 17) == 13
    assert word_start(text, 13) == 13
    assert word_start(text, 21) == 21
    assert word_start(text, 12) == 12
    # never before the start of the hard line (a recorded paragraph start at 15)
    assert word_start(text, 17, floor=15) == 15
    # the word start is 4 characters back: within a look-back of 4, not of 3
    assert word_start(text, 17, look_back=4) == 13
    assert word_start(text, 17, look_back=3) == 17


def test_cjk_and_long_runs_break_where_forced() -> None:
    # Japanese text breaks anywhere; a Latin word inside it starts after the last kana
    assert word_start("梅雨の時期", 2) == 2
    assert word_start("観測にはsoftware", 7) == 4
    # a run longer than the look-back (a hash) has no word start in reach
    run = "a" * (WORD_LOOK_BACK + 5)
    assert word_start(run, WORD_LOOK_BACK + 2) == WORD_LOOK_BACK + 2
    assert word_start(run, WORD_LOOK_BACK) == 0


def test_spaced_scripts_by_hand() -> None:
    assert all(in_spaced_word(c) for c in "aZ9_-'éßжλ한\u0301")
    assert not any(in_spaced_word(c) for c in " .,;「梅あアｶＡ\tก")


WORDS = st.text(alphabet=st.sampled_from(["a", "b", "é", " ", "-", ".", "寒", "\n"]), max_size=60)


@settings(max_examples=200, deadline=None)
@given(WORDS, st.integers(0, 60), st.integers(0, 60), st.integers(1, 30))
def test_word_start_agrees_with_the_runs_of_word_characters(text: str, offset: int, floor: int, look_back: int) -> None:
    offset = min(offset, len(text))
    floor = min(floor, offset)
    # brute force: the maximal runs of word characters, and the one the offset falls strictly inside
    runs, start = [], None
    for index, character in enumerate([*text, " "]):
        if in_spaced_word(character) and start is None:
            start = index
        elif not in_spaced_word(character) and start is not None:
            runs.append((start, index))
            start = None
    inside = [(s, e) for s, e in runs if s < offset < e and offset > floor]
    expected = offset
    if inside:
        begin = max(inside[0][0], floor)
        expected = begin if offset - begin <= look_back else offset
    assert word_start(text, offset, floor, look_back) == expected


# What a character may be in a question, a chunk id or a path: ASCII, CJK (two cells), combining marks (none),
# controls (none), emoji with joiners and variation selectors (widths that depend on the neighbour).
_CELL_TEXT = st.text(
    alphabet=st.sampled_from(
        ["a", " ", "é", "梅", "雨", "ｱ", "\u0301", "\x07", "\x85", "👍", "\u200d", "\ufe0f", "❤", "☺"]
    ),
    max_size=40,
)


@settings(max_examples=400, deadline=None)
@given(_CELL_TEXT, st.integers(min_value=0, max_value=45))
def test_fitting_prefix_agrees_with_the_cumulative_widths(text: str, room: int) -> None:
    # The oracle: every character's cells over the whole text, the longest prefix whose sum fits.
    cumulative = 0
    expected = 0
    for index, cells in enumerate(cell_widths(text)):
        cumulative += int(cells)
        if cumulative > room:
            break
        expected = index + 1
    assert fitting_prefix(text, room) == expected


def test_truncate_by_hand() -> None:
    assert truncate("梅雨の時期", 6) == "梅雨…"  # two wide characters and the ellipsis in 5 of 6 cells
    assert truncate("abcdef", 4) == "abc…"
    assert truncate("abc", 3) == "abc"
    assert truncate("ab\u0301cdef", 4) == "ab\u0301c…"  # the combining accent rides on its letter
