"""The universal-newlines view and its way back, against a brute-force walk and hand cases."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chunkscope.io.newlines import has_carriage_return, newline_view


def brute_force_map(original: str) -> list[int]:
    """For every view offset, the original offset, by walking the original the way a text-mode reader does."""
    mapping: list[int] = []
    i = 0
    while i < len(original):
        mapping.append(i)
        i += 2 if original[i] == "\r" and original[i + 1 : i + 2] == "\n" else 1
    mapping.append(len(original))
    return mapping


def test_hand_case() -> None:
    view = newline_view("ab\r\ncd\r\n\r\nef\rg")
    assert view.text == "ab\ncd\n\nef\ng"
    assert view.changed
    # the view's "\n" at 2 is the original's "\r" at 2; 'c' at 3 is at 4; 'e' at 7 is at 10; the end 11 is 13
    assert [view.to_original(v) for v in (0, 2, 3, 5, 6, 7, 9, 10, 11)] == [0, 2, 4, 6, 8, 10, 12, 13, 14]


def test_a_text_without_carriage_return_is_its_own_view() -> None:
    view = newline_view("a\nb")
    assert view.text == "a\nb" and not view.changed and view.to_original(3) == 3
    assert not has_carriage_return("a\nb") and has_carriage_return("a\rb")


def test_a_lone_carriage_return_changes_the_view_but_no_offset() -> None:
    view = newline_view("a\rb")
    assert view.text == "a\nb" and view.changed
    assert [view.to_original(v) for v in range(4)] == [0, 1, 2, 3]


@given(st.text(alphabet="ab\r\n", max_size=40))
def test_every_offset_maps_like_a_text_mode_reader(original: str) -> None:
    view = newline_view(original)
    expected = brute_force_map(original)
    assert len(view.text) + 1 == len(expected)
    assert [view.to_original(v) for v in range(len(view.text) + 1)] == expected
    # every span of the view reads back, in text mode, as the same text
    for start in range(len(view.text) + 1):
        for end in range(start, len(view.text) + 1):
            piece = original[view.to_original(start) : view.to_original(end)]
            assert piece.replace("\r\n", "\n").replace("\r", "\n") == view.text[start:end]
