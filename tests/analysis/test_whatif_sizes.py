"""The smallest recursive / markdown size against brute force: chunk at every size in turn."""

from __future__ import annotations

import random

from chunkscope.analysis.whatif_sizes import NotedSize, smallest_markdown_size, smallest_recursive_size
from chunkscope.chunkers.markdown import MarkdownChunker
from chunkscope.chunkers.recursive import RecursiveChunker
from chunkscope.model import Document

PIECES = ("ab", "c", "de", " ", " ", "\n", "\n\n", "。", ". ", "? ", "xyzw")
MARKDOWN_LINES = (
    "# Title",
    "## Part two",
    "### Deep",
    "Some words here and there.",
    "short",
    "a much longer paragraph line that goes on for a while",
    "```",
    "code()",
    "| a | b |",
    "|---|---|",
    "| 1 | 2 |",
    "",
    "",
)


def random_text(rng: random.Random, pieces: tuple[str, ...], count: int, joiner: str = "") -> str:
    return joiner.join(rng.choice(pieces) for _ in range(count))


def random_span(rng: random.Random, text: str) -> tuple[int, int] | None:
    """A span with no edge whitespace (gold spans are trimmed), or None for a blank text."""
    visible = [i for i, char in enumerate(text) if not char.isspace()]
    if not visible:
        return None
    start = rng.choice(visible)
    ends = [i + 1 for i in visible if i >= start and i - start < 40]
    return start, rng.choice(ends)


def held(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s <= start and end <= e for s, e in spans)


def recursive_holds(text: str, start: int, end: int, size: int, overlap: int) -> bool:
    chunks = RecursiveChunker(size=size, overlap=overlap).chunk_document(Document(id="d", text=text))
    return held([(c.start, c.end) for c in chunks], start, end)


def markdown_holds(text: str, start: int, end: int, max_chars: int) -> bool:
    chunks = MarkdownChunker(max_chars=max_chars).chunk_document(Document(id="d", text=text))
    return held([(c.start, c.end) for c in chunks], start, end)


def test_recursive_size_is_the_first_larger_size_that_holds() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 250:
        text = random_text(rng, PIECES, rng.randint(1, 40))
        span = random_span(rng, text)
        if span is None:
            continue
        size = rng.randint(2, 30)
        overlap = rng.choice([0, rng.randint(0, size - 1)])
        brute = next(
            (s for s in range(size + 1, size + len(text) + 2) if recursive_holds(text, *span, s, overlap)), None
        )
        assert smallest_recursive_size(text, *span, size, overlap) == brute, (text, span, size, overlap)
        checked += 1


def test_markdown_size_is_the_first_larger_size_that_holds() -> None:
    rng = random.Random(8)
    checked = 0
    while checked < 150:
        text = random_text(rng, MARKDOWN_LINES, rng.randint(1, 14), "\n")
        span = random_span(rng, text)
        if span is None:
            continue
        size = rng.randint(1, 60)
        brute = next((s for s in range(size + 1, size + len(text) + 2) if markdown_holds(text, *span, s)), None)
        found = smallest_markdown_size(Document(id="d", text=text), *span, MarkdownChunker(max_chars=size))
        assert found == brute, (text, span, size)
        checked += 1


def test_hand_computed_recursive_size_and_its_non_monotone_neighbour() -> None:
    # Pieces after ". ": "one bbbb. " [0,10), "two cccc. " [10,20), "three dd" [20,28).
    # Size 12 keeps each alone: [10,25) is cut at 19. Size 17: 10 + 10 > 17 and 10 + 8 > 17, still alone.
    # Size 18: [0,10) is emitted, then "two cccc. " + "three dd" = 18 fits: [10,28) holds the span.
    # Size 20 merges the first two instead, [0,20) then [20,28): cut again (no monotone search is valid).
    text = "one bbbb. two cccc. three dd"
    start, end = text.index("two"), text.index("three") + 5
    assert smallest_recursive_size(text, start, end, 12, 0) == 18
    assert not recursive_holds(text, start, end, 17, 0)
    assert not recursive_holds(text, start, end, 20, 0)


def test_noted_size_notes_the_smallest_exceeding_length() -> None:
    noted = NotedSize(10)
    # The chunkers write ``length <= size``: the plain int on the left is what is being tested.
    outcomes = (12 <= noted, 11 > noted, 5 <= noted, noted < 30)  # noqa: SIM300
    assert outcomes == (False, True, True, True)
    assert noted.exceeded == 11
