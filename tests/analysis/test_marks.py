"""Marks over document text, checked by hand on small strings (chunkscope.analysis.marks)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.analysis.marks import (
    Boundary,
    chunk_extents,
    chunk_marks,
    coverage,
    document_marks,
    duplicate_ranges,
    merge_ranges,
    query_matches,
)
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk, Document, EvidenceItem, Question, Span
from chunkscope.pipeline.assembly import assemble
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import RankedChunk
from chunkscope.tokenize.default import DefaultTokenizer


def chunk(doc: Document, start: int, end: int, index: int) -> Chunk:
    return Chunk(f"{doc.id}#{index}", doc.id, start, end, doc.text[start:end])


def question(doc: Document, *spans: tuple[int, int], query: str = "q") -> Question:
    return Question("q", query, tuple(EvidenceItem((Span(doc.id, s, e),)) for s, e in spans))


JET = Document("jet", "寒帯ジェット気流")
ABC = Document("abc", "abcdefghij")


def test_boundary_inside_gold_is_a_cut() -> None:
    # 寒帯ジェ|ット気流 is 寒帯ジェッ|ト気流: chunks [0,5) and [5,8); gold [0,8) fits neither,
    # so the only inner boundary, 5, is the cut.
    marks = document_marks(JET, [chunk(JET, 0, 5, 0), chunk(JET, 5, 8, 1)], question(JET, (0, 8)))
    assert marks.cuts == (5,)
    assert [(g.start, g.end, g.whole) for g in marks.gold] == [(0, 8, False)]
    assert marks.boundaries == (Boundary(0, "start"), Boundary(5, "join"), Boundary(8, "end"))
    assert JET.text[: marks.cuts[0]] == "寒帯ジェッ"


def test_gold_held_whole_by_one_chunk_is_not_cut() -> None:
    # chunks [0,5), [3,8): gold [3,8) lies inside the second, so boundary 5 inside it is no cut
    chunks = [chunk(JET, 0, 5, 0), chunk(JET, 3, 8, 1)]
    marks = document_marks(JET, chunks, question(JET, (3, 8)))
    assert marks.cuts == ()
    assert marks.gold[0].whole


def test_overlaps_and_boundary_kinds() -> None:
    # [0,6) and [4,10) overlap on [4,6): 4 starts inside the first chunk, 6 ends inside the second
    extents = chunk_extents([chunk(ABC, 4, 10, 1), chunk(ABC, 0, 6, 0)], "abc")
    assert [(e.start, e.end, e.ordinal) for e in extents] == [(0, 6, 0), (4, 10, 1)]
    overlaps, boundaries = coverage(extents)
    assert overlaps == ((4, 6),)
    assert [(b.offset, b.kind) for b in boundaries] == [
        (0, "start"),
        (4, "overlap-start"),
        (6, "overlap-end"),
        (10, "end"),
    ]


def test_gaps_between_chunks_give_start_and_end_boundaries() -> None:
    # [0,3) and [5,8): 3..5 and 8..10 are in no chunk
    _, boundaries = coverage(chunk_extents([chunk(ABC, 0, 3, 0), chunk(ABC, 5, 8, 1)], "abc"))
    assert [(b.offset, b.kind) for b in boundaries] == [(0, "start"), (3, "end"), (5, "start"), (8, "end")]


def test_cut_by_overlapping_chunks_lists_every_inner_boundary() -> None:
    # chunks [0,6), [4,10); gold [3,8): neither holds 3..8, boundaries 4 and 6 lie inside it
    marks = document_marks(ABC, [chunk(ABC, 0, 6, 0), chunk(ABC, 4, 10, 1)], question(ABC, (3, 8)))
    assert marks.cuts == (4, 6)
    assert marks.overlaps == ((4, 6),)


def test_other_documents_chunks_are_ignored() -> None:
    marks = document_marks(ABC, [chunk(ABC, 0, 10, 0), chunk(JET, 0, 8, 0)], None)
    assert [e.chunk_id for e in marks.chunks] == ["abc#0"]


def test_chunk_marks_partial_gold_and_edge_cut() -> None:
    # chunk [0,5) holds 寒帯ジェッ of gold [0,8): partial, cut at its end 5
    first = chunk_marks(JET, chunk(JET, 0, 5, 0), question(JET, (0, 8)))
    assert [(g.start, g.end, g.whole) for g in first.gold] == [(0, 5, False)]
    assert first.cuts == (5,)
    # chunk [5,8) holds ト気流: partial, cut at its start 5
    second = chunk_marks(JET, chunk(JET, 5, 8, 1), question(JET, (0, 8)))
    assert [(g.start, g.end, g.whole) for g in second.gold] == [(5, 8, False)]
    assert second.cuts == (5,)
    # a chunk holding the whole span: no cut
    whole = chunk_marks(JET, chunk(JET, 0, 8, 0), question(JET, (2, 8)))
    assert [(g.start, g.end, g.whole) for g in whole.gold] == [(2, 8, True)]
    assert whole.cuts == ()


def test_duplicate_ranges_of_overlapping_deliveries() -> None:
    # delivered in order: [0,6), then [4,10) (re-sends 4,5), then [2,8) (all of it sent before)
    units = [chunk(ABC, 0, 6, 0), chunk(ABC, 4, 10, 1), chunk(ABC, 2, 8, 2)]
    ranked = [RankedChunk(rank, unit, 1.0) for rank, unit in enumerate(units, start=1)]
    delivery = assemble(ranked, top_k=3, budget=None, overflow="stop")
    duplicates = duplicate_ranges(delivery.delivered)
    assert duplicates == {1: (), 2: ((4, 6),), 3: ((2, 8),)}
    # the ranges add up to the core's duplicate_chars: 0, 2, 6
    assert [sum(e - s for s, e in duplicates[d.rank]) for d in delivery.delivered] == [0, 2, 6]
    assert [d.duplicate_chars for d in delivery.delivered] == [0, 2, 6]


def test_merge_ranges_joins_touching_and_overlapping() -> None:
    assert merge_ranges([(5, 7), (0, 2), (2, 3), (6, 9), (4, 4)]) == [(0, 3), (5, 9)]


def test_query_matches_english_whole_words_only() -> None:
    # "refund" marks refund (11..17) and REFUND (29..35) but not inside "Refunds" (0..7)
    text = "Refunds: a refund is issued. REFUND!"
    assert query_matches(text, "refund") == ((11, 17), (29, 35))


def test_query_matches_japanese_bigrams() -> None:
    # query bigrams ジェ ェッ ット ト気 気流 流は はど どこ; in the text ジェ..気流 cover 2..8, 流の is no query bigram
    assert query_matches("寒帯ジェット気流の位置", "ジェット気流はどこ？") == ((2, 8),)


def test_query_matches_every_occurrence_of_words_and_bigrams_in_one_query() -> None:
    # 気流 stands at 0..2, 3..5 and 6..8 (と and の between: no query bigram); jet at 9..12 and 18..21
    # but not inside jets (13..17); the query's repeated 気流 counts once.
    text = "気流と気流の気流 jet jets jet"
    assert query_matches(text, "気流 気流 JET") == ((0, 2), (3, 5), (6, 8), (9, 12), (18, 21))
    # The same query on another text (its tokens are reused) and shifted by an offset.
    assert query_matches("ジェット気流", "気流 気流 JET", offset=10) == ((14, 16),)


def test_query_matches_normalise_full_width() -> None:
    # ＲＸ－２００ is rx-200 after NFKC + lower: tokens rx (2..4) and 200 (5..8), '－' between them
    assert query_matches("型番ＲＸ－２００です", "RX-200") == ((2, 4), (5, 8))


def test_query_matches_map_expanded_characters_back() -> None:
    # ㍿ normalises to 株式会社 (4 characters): 'abc' is at 4..7 normalised, 1..4 in the text
    assert query_matches("㍿abc", "ABC") == ((1, 4),)
    assert query_matches("㍿abc", "株式") == ((0, 1),)


def test_query_matches_lone_cjk_character_only_alone() -> None:
    # 雨 alone in the query is a unigram; 雨が降る and 大雨 make bigrams, so only the lone 雨 counts
    assert query_matches("雨が降る。大雨。雨", "雨") == ((8, 9),)


def test_query_matches_offset_shift() -> None:
    assert query_matches("a refund", "refund", offset=100) == ((102, 108),)


def test_query_matches_long_text_uses_the_same_rule() -> None:
    # past the length where the token index is cached: same matches, shifted by the filler
    filler = "x " * 15_000
    assert query_matches(filler + "Refunds: a refund", "refund") == ((30_011, 30_017),)


def test_sample_q39_cut_inside_compound_word(sample: Dataset) -> None:
    # sample_data/README: q39 is cut at offset 400 between 低温時バッテ and リー保護機能 under fixed:size=200
    questions = sample.questions.questions
    result = Evaluator(sample.corpus, questions).evaluate(make_config("fixed:size=200"))
    index = [q.id for q in questions].index("q39")
    q39 = questions[index]
    document = sample.corpus.by_id["ja/rx200-torisetsu.md"]
    marks = document_marks(document, result.chunks, q39, result.questions[index])
    assert marks.cuts == (400,)
    assert document.text[394:400] == "低温時バッテ"
    assert document.text[400:406] == "リー保護機能"
    # the core's Cut agrees
    assert result.questions[index].cuts[0].boundaries == (400,)
    # rank marks sit at chunk starts of this document, ranked order kept per offset
    assert all(mark.offset % 200 == 0 for mark in marks.ranks)


QUERYLESS = st.text(alphabet=st.sampled_from(["a", "1", " ", "寒", "ジ", "ー", "〇", "。", "Ａ", "-"]), max_size=40)


@settings(max_examples=200, deadline=None)
@given(QUERYLESS, QUERYLESS)
def test_query_matches_follow_the_tokenizer(text: str, query: str) -> None:
    tokens = set(DefaultTokenizer()(query))
    matches = query_matches(text, query)
    # sound: every marked range, tokenized alone, yields a query token
    for start, end in matches:
        assert set(DefaultTokenizer()(text[start:end])) & tokens
    # complete when the query is the text itself: every character that the tokenizer keeps (one that,
    # alone, is a token) is marked, and no other (these characters keep their length under NFKC)
    covered = {i for start, end in query_matches(text, text) for i in range(start, end)}
    assert covered == {i for i, char in enumerate(text) if DefaultTokenizer()(char)}
