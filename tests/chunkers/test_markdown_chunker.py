"""The markdown chunker on hand-built documents: sections, paths, prefixes, tables, code."""

from __future__ import annotations

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.chunkers.markdown import MarkdownChunker, heading_of
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk, Document


def chunk(text: str, **params: object) -> list[Chunk]:
    chunks = MarkdownChunker(**params).chunk_document(Document("d", text))  # type: ignore[arg-type]
    for c in chunks:
        assert text[c.start : c.end] == c.text
    return chunks


NESTED = (
    "Intro line\n\n# Refund policy\n\nBase rule.\n\n## Fees\n\nA fee of 5.\n\n### Deep\n\nx\n\n#### Too deep\n\ny\n"
)
# Offsets: "Intro line" 0-10 | "# Refund policy" 12-27 | "Base rule." 29-39 | "## Fees" 41-48 |
# "A fee of 5." 50-61 | "### Deep" 63-71 | "x" 73-74 | "#### Too deep" 76-89 | "y" 91-92 | "\n" 92-93.


def test_sections_and_their_paths() -> None:
    chunks = chunk(NESTED)
    assert [(c.start, c.end, c.section) for c in chunks] == [
        (0, 10, None),
        (12, 39, "Refund policy"),
        (41, 61, "Refund policy > Fees"),
        (63, 92, "Refund policy > Fees > Deep"),  # level 4 stays in the level-3 section
    ]
    assert all(c.prefix == "" for c in chunks)


def test_levels_limits_which_headings_start_sections() -> None:
    chunks = chunk(NESTED, levels=2)
    assert [(c.start, c.end, c.section) for c in chunks] == [
        (0, 10, None),
        (12, 39, "Refund policy"),
        (41, 92, "Refund policy > Fees"),
    ]


def test_prefix_path_prefixes_the_section_path_outside_the_span() -> None:
    chunks = chunk(NESTED, prefix="path")
    assert [c.prefix for c in chunks] == [
        "",
        "Refund policy\n",
        "Refund policy > Fees\n",
        "Refund policy > Fees > Deep\n",
    ]
    fees = chunks[2]
    assert fees.text == "## Fees\n\nA fee of 5."
    # sent length = 21 prefix characters + 20 body characters
    assert fees.sent_length == 41
    assert fees.indexed_text == "Refund policy > Fees\n## Fees\n\nA fee of 5."


def test_sibling_headings_replace_each_other_in_the_path() -> None:
    chunks = chunk("# A\n## B\n## C\n# D\n")
    assert [(c.start, c.end, c.section) for c in chunks] == [
        (0, 3, "A"),
        (4, 8, "A > B"),
        (9, 13, "A > C"),
        (14, 17, "D"),
    ]


def test_headings_inside_code_fences_are_text() -> None:
    text = "# A\n\n```\n# not a heading\n```\n\n~~~\n## nor this\n~~~\ntext\n"
    chunks = chunk(text)
    assert [(c.start, c.end, c.section) for c in chunks] == [(0, len(text) - 1, "A")]


def test_heading_syntax() -> None:
    assert heading_of("## Fees ##") == (2, "Fees")
    assert heading_of("   ### Deep") == (3, "Deep")
    assert heading_of("#hashtag") is None
    assert heading_of("    # indented code") is None
    assert heading_of("####### seven") is None


def test_long_section_groups_paragraphs_up_to_max_chars() -> None:
    text = "aaaaaaaaaa\n\nbbbbbbbbbb\n\ncccccccccc"
    # paragraphs 0-10, 12-22, 24-34; 0-22 is 22 characters (fits 22), 0-34 does not
    assert [(c.start, c.end) for c in chunk(text, max_chars=22)] == [(0, 22), (24, 34)]


def test_paragraph_longer_than_max_chars_falls_back_to_windows() -> None:
    assert [(c.start, c.end) for c in chunk("x" * 25, max_chars=10)] == [(0, 10), (10, 20), (20, 25)]


def test_code_block_with_blank_line_is_not_split() -> None:
    text = "# C\n\n```\nline1\n\nline2\n```\n\nafter"
    # "# C" 0-3, fence 5-25 (blank line inside), "after" 27-32: the section (32) exceeds 30,
    # so blocks are grouped: heading + code = 0-25 (25 <= 30), then "after".
    assert [(c.start, c.end) for c in chunk(text, max_chars=30)] == [(0, 25), (27, 32)]


def test_oversized_code_block_splits_between_lines() -> None:
    text = "```\naaaa\nbbbb\ncccc\n```"
    # lines 0-3, 4-8, 9-13, 14-18, 19-22; limit 10: 0-8 (8), then 9-18 (9), then 19-22
    assert [(c.start, c.end) for c in chunk(text, max_chars=10)] == [(0, 8), (9, 18), (19, 22)]


TABLE = "# T\n\n| k | v |\n|---|---|\n| 1 | a |\n| 2 | b |\n| 3 | c |\n| 4 | d |\n"
# "# T" 0-3; header 5-14, delimiter 15-24, rows 25-34, 35-44, 45-54, 55-64.


def test_table_within_max_chars_stays_whole_with_its_section() -> None:
    chunks = chunk(TABLE, max_chars=100)
    assert [(c.start, c.end, c.prefix) for c in chunks] == [(0, 64, "")]


def test_oversized_table_splits_between_rows_and_repeats_the_header() -> None:
    chunks = chunk(TABLE, max_chars=30)
    # The table (5-64) exceeds 30 alone: the heading is flushed, then rows are grouped:
    # 5-34 (header, delimiter, row 1: 29 chars), then 35-64 (rows 2-4: 29 chars).
    assert [(c.start, c.end) for c in chunks] == [(0, 3), (5, 34), (35, 64)]
    assert [c.prefix for c in chunks] == ["", "", "| k | v |\n|---|---|\n"]
    assert chunks[2].text == "| 2 | b |\n| 3 | c |\n| 4 | d |"
    assert chunks[2].sent_length == 20 + 29
    assert all(c.section == "T" for c in chunks)


def test_table_header_and_path_prefixes_combine() -> None:
    chunks = chunk(TABLE, max_chars=30, prefix="path")
    assert chunks[2].prefix == "T\n| k | v |\n|---|---|\n"
    assert chunks[1].prefix == "T\n"


def test_crlf_lines_keep_exact_offsets() -> None:
    text = "# A\r\n\r\nbody\r\n"
    chunks = chunk(text)
    assert [(c.start, c.end, c.section) for c in chunks] == [(0, 11, "A")]
    assert chunks[0].text == "# A\r\n\r\nbody"


def test_whitespace_only_document_has_no_chunks() -> None:
    assert chunk(" \n\n\t\n") == []


@pytest.mark.parametrize("params", ["max_chars=0", "levels=0", "levels=7", "prefix=heading"])
def test_invalid_parameters(params: str) -> None:
    from chunkscope.errors import SpecError

    with pytest.raises(SpecError):
        parse_chunker(f"markdown:{params}")


def test_sample_webhooks_section_is_split_at_paragraphs(sample: Dataset) -> None:
    # sample_data/README.md: the 1,881-character Webhooks section of en/order-api.md becomes a
    # 1,237-character first part and a 642-character second part (1237 + 2 + 642 = 1881).
    chunks = [c for c in chunk_corpus(MarkdownChunker(), sample.corpus).units if c.doc == "en/order-api.md"]
    webhooks = [c for c in chunks if c.section == "Partner Order API Guide > Webhooks"]
    assert [c.length for c in webhooks] == [1237, 642]
    assert webhooks[1].start - webhooks[0].end == 2


def test_sample_table_is_one_chunk_with_its_header(sample: Dataset) -> None:
    # q10/q11: the shipping rates table sits whole in its section chunk under the default max_chars.
    units = chunk_corpus(MarkdownChunker(), sample.corpus).units
    rates = [c for c in units if c.section == "Shipping and Delivery > Shipping rates"]
    assert len(rates) == 1
    assert "| Zone | Area |" in rates[0].text and "| 9 | Offshore territories |" in rates[0].text
