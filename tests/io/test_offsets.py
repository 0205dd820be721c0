"""Offset units: exact conversions both ways, refused offsets inside characters, the loaders' hooks."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chunkscope.errors import InputError
from chunkscope.io.offsets import BLOCK, OffsetError, UnitOffsets
from chunkscope.io.questions import load_questions
from chunkscope.io.squad import load_squad
from chunkscope.model import Corpus, Document

# ASCII, Latin with a combining accent, CJK, kana, an emoji, a flag (two astral code points), U+FFFF
CHARACTERS = ["a", " ", "\n", "é", "e\u0301", "語", "か", "😀", "🇯🇵", "\uffff", "ß", "\u0800"]
TEXTS = st.lists(st.sampled_from(CHARACTERS), max_size=30).map("".join)


def code_units(text: str, unit: str) -> int:
    """The oracle: encode and count (bytes, or 2-byte code units)."""
    if unit == "utf8":
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize("unit", ["utf8", "utf16"])
@given(text=TEXTS)
def test_conversions_are_exact_both_ways(unit: str, text: str) -> None:
    converter = UnitOffsets(text, unit)  # type: ignore[arg-type]
    boundaries = {code_units(text[:i], unit): i for i in range(len(text) + 1)}
    assert converter.length == code_units(text, unit)
    for index in range(len(text) + 1):
        assert converter.from_codepoint(index) == code_units(text[:index], unit)
    for offset in range(converter.length + 1):
        if offset in boundaries:
            assert converter.to_codepoint(offset) == boundaries[offset]
        else:
            with pytest.raises(OffsetError) as caught:
                converter.to_codepoint(offset)
            assert caught.value.inside
    for outside in (-1, converter.length + 1):
        with pytest.raises(OffsetError) as caught:
            converter.to_codepoint(outside)
        assert not caught.value.inside


def test_messages_name_the_character() -> None:
    with pytest.raises(OffsetError, match=r"offset 2 \(utf16\) falls between the halves of the surrogate pair"):
        UnitOffsets("a😀", "utf16").to_codepoint(2)
    with pytest.raises(OffsetError, match=r"inside the multi-byte character '語' \(U\+8A9E, UTF-8 bytes 1..4\)"):
        UnitOffsets("a語", "utf8").to_codepoint(3)


TEXT = "返品は30日以内 😀 です。返品ポリシー"
CORPUS = Corpus((Document("ja.md", TEXT),))


def byte_offset(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def test_question_spans_in_utf8_bytes(tmp_path: Path) -> None:
    start = TEXT.index("です")
    span = {"doc": "ja.md", "start": byte_offset(TEXT, start), "end": byte_offset(TEXT, start + 2)}
    record = {"id": "q", "query": "x", "evidence": [span, {"any": [{"doc": "ja.md", "start": 0, "end": 6}]}]}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    questions, _ = load_questions(path, CORPUS, offset_unit="utf8")
    first, second = questions.questions[0].gold_spans
    assert TEXT[first.start : first.end] == "です"
    assert TEXT[second.start : second.end] == "返品"
    bad = {**record, "evidence": [{"doc": "ja.md", "start": 1, "end": 6}]}
    path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="inside the multi-byte character '返'") as caught:
        load_questions(path, CORPUS, offset_unit="utf8")
    assert (caught.value.line, caught.value.field) == (1, "evidence[0].start")


def test_squad_answer_start_in_utf16(tmp_path: Path) -> None:
    context = "😀😀 answer here"
    squad = {
        "data": [
            {
                "title": "T",
                "paragraphs": [
                    {
                        "context": context,
                        "qas": [{"id": "a0p0q0", "question": "q?", "answers": [{"text": "answer", "answer_start": 5}]}],
                    }
                ],
            }
        ]
    }
    path = tmp_path / "squad.json"
    path.write_text(json.dumps(squad), encoding="utf-8")
    dataset = load_squad(path, offset_unit="utf16")  # the two emoji are four code units
    (span,) = dataset.questions.questions[0].gold_spans
    assert dataset.corpus.by_id["T"].text[span.start : span.end] == "answer"
    with pytest.raises(InputError, match="answer text 'answer' is not at offset 5"):
        load_squad(path)


def _long_mixed_text() -> str:
    """Text several BLOCKs long mixing 1-, 2-, 3- and 4-byte characters (astral ones too), at irregular places."""
    pieces = ["plain words ", "é", "かな漢字", "😀", "\r\n", "x" * 37, "𝔘"]
    return "".join(pieces[(i * 7 + i // 3) % len(pieces)] for i in range(60_000))


@pytest.mark.parametrize("unit", ["utf8", "utf16"])
def test_conversions_across_blocks_match_counting_the_prefix(unit: str) -> None:
    # Counts are kept per block of characters: every offset near a block edge and a spread of others
    # must convert as counting the prefix's code units does.
    text = _long_mixed_text()
    assert len(text) > 3 * BLOCK
    offsets = UnitOffsets(text, unit)  # type: ignore[arg-type]
    encoding, width = ("utf-8", 1) if unit == "utf8" else ("utf-16-le", 2)

    def units(i: int) -> int:
        return len(text[:i].encode(encoding, "surrogatepass")) // width

    assert offsets.length == units(len(text))
    places = {0, len(text)} | set(range(0, len(text), 4_999))
    places |= {edge + d for edge in range(0, len(text), BLOCK) for d in (-2, -1, 0, 1, 2) if 0 <= edge + d <= len(text)}
    for i in sorted(places):
        assert offsets.from_codepoint(i) == units(i)
        assert offsets.to_codepoint(units(i)) == i
        inside = units(i) + 1
        if i < len(text) and units(i + 1) > inside:  # inside a multi-unit character: refused
            with pytest.raises(OffsetError):
                offsets.to_codepoint(inside)


def test_conversions_of_a_long_text_take_little_memory() -> None:
    # A count per character (8 bytes each, about 40 while computed) made the quote/offset checks of one
    # huge document peak at many times its size; counts are kept per block now.
    text = _long_mixed_text() * 8
    tracemalloc.start()
    try:
        offsets = UnitOffsets(text, "utf8")
        assert offsets.to_codepoint(offsets.from_codepoint(len(text) - 5)) == len(text) - 5
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < len(text) // 2  # a few blocks at a time (a count per character: about 40 bytes each)
