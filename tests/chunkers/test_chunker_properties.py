"""Property tests (hypothesis) for the fixed and paragraph chunkers on random text with CJK, emoji and CRLF."""

from __future__ import annotations

import itertools

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from chunkscope.chunkers.fixed import FixedChunker
from chunkscope.chunkers.paragraph import ParagraphChunker
from chunkscope.model import Chunk, Document

FRAGMENTS = st.sampled_from(
    [
        "a",
        "Z",
        "7",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\n\n",
        "\r\n\r\n",
        " \n",
        "\u3000\n",
        "寒帯",
        "ジェット",
        "気流",
        "です。",
        "ｶﾀｶﾅ",
        "😀",
        "👩‍💻",
        "🇯🇵",
        "é",
        "e\u0301",
        "\u200b",
    ]
)
TEXTS = st.one_of(
    st.lists(FRAGMENTS, max_size=60).map("".join),
    st.text(alphabet=st.sampled_from("ab \n\r\t寒😀"), max_size=80),
)


def chunk(chunker: object, text: str) -> list[Chunk]:
    return chunker.chunk_document(Document("doc", text))  # type: ignore[attr-defined,no-any-return]


def assert_text_invariant(chunks: list[Chunk], text: str) -> None:
    for c in chunks:
        assert c.doc == "doc"
        assert 0 <= c.start < c.end <= len(text)
        assert text[c.start : c.end] == c.text
    assert len({c.id for c in chunks}) == len(chunks)


# ------------------------------------------------------------------ fixed


@st.composite
def fixed_params(draw: st.DrawFn) -> tuple[int, int]:
    size = draw(st.integers(min_value=1, max_value=40))
    overlap = draw(st.integers(min_value=0, max_value=size - 1))
    return size, overlap


@settings(max_examples=300, deadline=None)
@given(text=TEXTS, params=fixed_params())
def test_fixed_windows(text: str, params: tuple[int, int]) -> None:
    size, overlap = params
    step = size - overlap
    chunks = chunk(FixedChunker(size, overlap), text)
    assert_text_invariant(chunks, text)
    if not text:
        assert chunks == []
        return
    # Starts at 0 and advances by size - overlap.
    assert [c.start for c in chunks] == [i * step for i in range(len(chunks))]
    # Full windows except possibly the last one, which reaches the end of the document.
    assert all(c.length == size for c in chunks[:-1])
    assert 0 < chunks[-1].length <= size
    assert chunks[-1].end == len(text)
    # Only the last window reaches the end: nothing trails inside the previous window.
    assert all(c.end < len(text) for c in chunks[:-1])
    for previous, current in itertools.pairwise(chunks):
        assert previous.end - current.start == overlap
        assert current.end > previous.end
    # Every character lies in some window.
    covered = set()
    for c in chunks:
        covered.update(range(c.start, c.end))
    assert covered == set(range(len(text)))


# ------------------------------------------------------------------ paragraph


def lines_with_offsets(text: str) -> list[tuple[int, str]]:
    """(offset, line without its '\\n') for each line split at '\\n'."""
    result = []
    offset = 0
    for line in text.split("\n"):
        result.append((offset, line))
        offset += len(line) + 1
    return result


@settings(max_examples=300, deadline=None)
@given(text=TEXTS)
def test_paragraph_blocks(text: str) -> None:
    chunks = chunk(ParagraphChunker(), text)
    assert_text_invariant(chunks, text)
    # Blocks are in order and disjoint.
    for previous, current in itertools.pairwise(chunks):
        assert previous.end < current.start
    for c in chunks:
        # No blank line inside a chunk, and no line break at either edge (a lone CR inside a line is text).
        assert all(line.strip() for line in c.text.split("\n"))
        assert not c.text.startswith("\n") and not c.text.endswith(("\n", "\r"))
        # A block starts at the beginning of a line.
        assert c.start == 0 or text[c.start - 1] == "\n"
    for offset, content in lines_with_offsets(text):
        if content.strip():
            # A non-blank line's content lies wholly inside one chunk.
            assert any(c.start <= offset and offset + len(content.rstrip("\r")) <= c.end for c in chunks)
        else:
            # A blank line (the separator) belongs to no chunk: none of its characters, nor its '\\n'.
            assert not any(c.start <= offset + len(content) and offset < c.end for c in chunks)


@settings(max_examples=100, deadline=None)
@given(text=TEXTS)
def test_paragraph_block_count_equals_runs_of_non_blank_lines(text: str) -> None:
    assume(text)
    blank = [not content.strip() for _, content in lines_with_offsets(text)]
    runs = sum(1 for i, b in enumerate(blank) if not b and (i == 0 or blank[i - 1]))
    assert len(chunk(ParagraphChunker(), text)) == runs
