"""Every offset of a built map indexes the very block it names (Hypothesis over random block sequences)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from chunkscope.io.documents.builder import BLOCK_SEPARATOR, TextBuilder

_WORDS = st.text(alphabet=st.sampled_from("ab |\n\t\u00e9\u3042-"), min_size=0, max_size=12)
_BLOCK = st.one_of(
    st.tuples(st.just("heading"), _WORDS, st.integers(1, 8)),
    st.tuples(st.just("paragraph"), _WORDS, st.just(0)),
    st.tuples(st.just("list-item"), _WORDS, st.integers(0, 3)),
    st.tuples(st.just("table"), st.lists(st.lists(_WORDS, min_size=1, max_size=3), min_size=1, max_size=4), st.just(0)),
)


def _collapsed(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@given(st.lists(_BLOCK, max_size=12))
def test_elements_index_their_own_rendering(blocks: list[tuple[str, object, int]]) -> None:
    builder = TextBuilder("html")
    expected: list[tuple[str, str]] = []
    for kind, content, level in blocks:
        if kind == "table":
            assert isinstance(content, list)
            builder.table(content)
            rows = [[_collapsed(cell).replace("|", "\\|") for cell in row] for row in content]
            rows = [row for row in rows if any(row)]
            if rows:
                width = max(map(len, rows))
                lines = ["| " + " | ".join(row + [""] * (width - len(row))) + " |" for row in rows]
                expected.append(("table", "\n".join([lines[0], "| " + " | ".join(["---"] * width) + " |", *lines[1:]])))
            continue
        assert isinstance(content, str)
        getattr(builder, kind.replace("-", "_"))(content, level) if kind != "paragraph" else builder.paragraph(content)
        if _collapsed(content):
            expected.append((kind, _collapsed(content)))
    text, structure = builder.build()
    assert [e.kind for e in structure.elements] == [kind for kind, _ in expected]
    previous_end = 0
    for element, (kind, content) in zip(structure.elements, expected, strict=True):
        piece = text[element.start : element.end]
        assert element.start == 0 or text[previous_end : element.start] == BLOCK_SEPARATOR
        previous_end = element.end
        if kind == "heading":
            assert piece == "#" * min(element.level, 6) + " " + content
        elif kind == "list-item":
            assert piece == "  " * element.level + "- " + content
        elif kind == "paragraph":
            assert piece == content
        else:
            assert element.header is not None
            assert piece == content
            lines = piece.split("\n")
            assert text[element.header[0] : element.header[1]] == lines[0]
            assert set(lines[1].split(" | ")) <= {"| ---", "---", "--- |", "| --- |"}
            assert [text[s:e] for s, e in element.rows] == lines[2:]
            assert all(line.startswith("| ") and line.endswith(" |") for line in lines)
    assert previous_end == len(text)
