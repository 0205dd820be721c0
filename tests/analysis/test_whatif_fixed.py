"""Fixed-window arithmetic against brute force: chunk with every setting and look for a window holding the span."""

from __future__ import annotations

import random

import pytest

from chunkscope.analysis.whatif_fixed import holds, smallest_overlap, smallest_shift, smallest_size
from chunkscope.chunkers.fixed import FixedChunker, shifted_window_spans, window_spans
from chunkscope.model import Document


def chunked_holds(length: int, start: int, end: int, size: int, overlap: int, shift: int) -> bool:
    """Chunk a document of ``length`` characters with the real chunker and look for a chunk holding the span."""
    chunker = FixedChunker(size=size, overlap=overlap, shift=shift)
    chunks = chunker.chunk_document(Document(id="d", text="x" * length))
    return any(c.start <= start and end <= c.end for c in chunks)


def cases(count: int, seed: int) -> list[tuple[int, int, int, int, int, int]]:
    rng = random.Random(seed)
    found: list[tuple[int, int, int, int, int, int]] = []
    while len(found) < count:
        length = rng.randint(1, 60)
        size = rng.randint(1, 20)
        overlap = rng.randint(0, size - 1)
        shift = rng.choice([0, 0, rng.randint(0, size - overlap - 1)])
        start = rng.randint(0, length - 1)
        end = rng.randint(start + 1, length)
        found.append((length, start, end, size, overlap, shift))
    return found


def test_holds_matches_chunking() -> None:
    for case in cases(400, 1):
        check_holds_matches_chunking(case)


def check_holds_matches_chunking(case: tuple[int, int, int, int, int, int]) -> None:
    length, start, end, size, overlap, shift = case
    assert holds(start, end, size, overlap, shift) == chunked_holds(length, start, end, size, overlap, shift), case


def test_smallest_size_is_the_first_larger_size_that_holds() -> None:
    for case in cases(300, 2):
        check_smallest_size_is_the_first_larger_size_that_holds(case)


def check_smallest_size_is_the_first_larger_size_that_holds(case: tuple[int, int, int, int, int, int]) -> None:
    length, start, end, size, overlap, shift = case
    brute = next(
        (s for s in range(size + 1, size + length + 2) if chunked_holds(length, start, end, s, overlap, shift)), None
    )
    assert smallest_size(start, end, size, overlap, shift) == brute, case


def test_smallest_overlap_is_the_first_overlap_that_holds() -> None:
    for case in cases(300, 3):
        check_smallest_overlap_is_the_first_overlap_that_holds(case)


def check_smallest_overlap_is_the_first_overlap_that_holds(case: tuple[int, int, int, int, int, int]) -> None:
    length, start, end, size, overlap, shift = case
    valid = range(size - shift)  # overlaps leaving the shift inside the step
    brute = next((o for o in valid if chunked_holds(length, start, end, size, o, shift)), None)
    assert smallest_overlap(start, end, size, overlap, shift) == brute, case


def test_smallest_shift_is_the_first_shift_that_holds() -> None:
    for case in cases(300, 4):
        check_smallest_shift_is_the_first_shift_that_holds(case)


def check_smallest_shift_is_the_first_shift_that_holds(case: tuple[int, int, int, int, int, int]) -> None:
    length, start, end, size, overlap, shift = case
    valid = range(size - overlap)
    brute = next((t for t in valid if chunked_holds(length, start, end, size, overlap, t)), None)
    assert smallest_shift(start, end, size, overlap, shift) == brute, case


def test_hand_computed_size_overlap_and_shift() -> None:
    # size 10, no overlap: windows [0,10) [10,20) [20,30); the span [8, 13) is cut at 10.
    assert not holds(8, 13, 10, 0)
    # size 13: [0,13) holds it; size 12 gives [0,12) [12,24): still cut.
    assert smallest_size(8, 13, 10, 0) == 13
    # overlap 3: step 7, windows [0,10) [7,17) hold it from 7; overlap 2 gives [8,18): holds; 1 gives [9,19): no.
    assert smallest_overlap(8, 13, 10, 0) == 2
    # shift 3: head [0,3), windows [3,13): holds; shift 2 gives [2,12) [12,22): cut.
    assert smallest_shift(8, 13, 10, 0) == 3
    assert [w for w in shifted_window_spans(30, 10, 0, 3)] == [(0, 3), (3, 13), (13, 23), (23, 30)]


def test_a_span_longer_than_the_size_has_no_overlap_option() -> None:
    assert smallest_overlap(0, 12, 10, 2) is None
    assert smallest_size(0, 12, 10, 2) == 12


def test_shift_with_tokens_is_refused() -> None:
    with pytest.raises(ValueError, match="shift is not supported with unit=tokens"):
        FixedChunker(size=10, shift=2, unit="tokens")
    with pytest.raises(ValueError, match="shift must be between 0 and"):
        FixedChunker(size=10, overlap=4, shift=6)


def grid_windows(length: int, size: int, overlap: int, shift: int) -> list[tuple[int, int]]:
    """The shifted grid built from its definition: every grid window clipped to the document, minus those
    inside another, up to the first that reaches the end."""
    step = size - overlap
    clipped = []
    for k in range(-size, length + 1):
        start, end = max(0, shift + k * step), min(length, shift + k * step + size)
        if start < end:
            clipped.append((start, end))
    kept = [w for w in dict.fromkeys(clipped) if not any(o != w and o[0] <= w[0] and w[1] <= o[1] for o in clipped)]
    kept.sort()
    first_at_end = next(i for i, (_, end) in enumerate(kept) if end == length)
    return kept[: first_at_end + 1]


def test_shifted_windows_follow_the_grid_definition() -> None:
    for case in cases(200, 5):
        check_shifted_windows_follow_the_grid_definition(case)


def check_shifted_windows_follow_the_grid_definition(case: tuple[int, int, int, int, int, int]) -> None:
    length, _, _, size, overlap, shift = case
    assert shifted_window_spans(length, size, overlap, shift) == grid_windows(length, size, overlap, shift), case


def test_shift_zero_is_the_unshifted_grid() -> None:
    for length in range(0, 40):
        assert shifted_window_spans(length, 7, 2, 0) == window_spans(length, 7, 2)
