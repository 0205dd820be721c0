"""The view-model pieces in chunkscope.tui.state that the screens use directly (no Textual)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from chunkscope.analysis.compare import compare
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.tui.screens.config_form import parse_form
from chunkscope.tui.state.config_steps import (
    OVERFLOWS,
    StepError,
    config_step,
    cycle_overlap,
    overflow_named,
    step_size,
)
from chunkscope.tui.state.document_chunks import DocumentChunks
from chunkscope.tui.state.filters import RowFilter, ordered
from chunkscope.tui.state.session import Session

FIXED_200 = make_config("fixed:size=200")
OVERLAP_40 = make_config("fixed:size=200,overlap=40")


def test_overflow_names_round_trip_and_others_are_refused() -> None:
    assert [overflow_named(name) for name in ("stop", "skip", "truncate")] == list(OVERFLOWS)
    with pytest.raises(ValueError, match="'halt'"):
        overflow_named("halt")
    with pytest.raises(ValueError, match="overflow"):
        parse_form("fixed:size=200", "bm25", "5", "", "halt")
    assert parse_form("fixed:size=200", "bm25", "5", "800", "skip") == make_config(
        "fixed:size=200", "bm25", 5, 800, "skip"
    )


def test_size_keys_step_max_chars_and_refuse_chunkers_without_a_size() -> None:
    markdown = make_config("markdown:max_chars=1000")
    assert step_size(markdown, 1).chunker.startswith("markdown:max_chars=1200,")
    assert step_size(markdown, -1).chunker.startswith("markdown:max_chars=800,")
    with pytest.raises(StepError, match="no overlap parameter"):
        cycle_overlap(markdown)
    with pytest.raises(StepError, match="no size parameter"):
        step_size(make_config("parent"), 1)  # its parameters are chunkers, not numbers


def test_config_step_maps_each_key_to_its_ladder() -> None:
    remembered: dict[str, str] = {}
    assert config_step("size", 1, remembered)(FIXED_200).chunker == "fixed:size=300,overlap=0"
    assert config_step("overlap", 1, remembered)(FIXED_200).chunker == "fixed:size=200,overlap=40"
    assert config_step("top_k", -1, remembered)(FIXED_200).top_k == 3
    assert config_step("budget", 1, remembered)(FIXED_200).budget == 200
    assert config_step("overflow", 1, remembered)(FIXED_200).overflow == "skip"
    assert config_step("chunker", 1, remembered)(FIXED_200).chunker != FIXED_200.chunker
    assert remembered == {"chunker fixed": FIXED_200.chunker}


def test_document_chunks_agree_before_and_after_evaluation(sample: Dataset) -> None:
    doc_id = "ja/rx200-torisetsu.md"
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    before = DocumentChunks(evaluator).of(FIXED_200, doc_id)  # from the chunking alone
    evaluator.evaluate(FIXED_200)
    after = DocumentChunks(evaluator).of(FIXED_200, doc_id)  # from the cached result
    assert before == after
    assert [(c.start, c.end) for c in after] == sorted((c.start, c.end) for c in after)
    text_length = len(sample.corpus.by_id[doc_id].text)
    assert [c.start for c in after] == list(range(0, text_length, 200))
    assert DocumentChunks(evaluator).of(FIXED_200, "no/such/doc.md") == ()


def test_the_kept_question_stays_listed_until_the_filter_changes(sample: Dataset) -> None:
    session = Session(sample, FIXED_200)
    session.store(session.evaluator.evaluate(FIXED_200))
    complete = next(row.question.id for row in session.rows(False) if not row.failing)
    session.set_filter("inspect", state="lost")
    assert complete not in {row.question.id for row in session.visible_rows("inspect")}
    session.selected_id = complete
    session.keep_selected("inspect")
    listed = [row.question.id for row in session.visible_rows("inspect")]
    assert complete in listed and sum(1 for row in session.rows(False) if row.result.lost) == len(listed) - 1
    session.set_filter("inspect", state="lost")
    assert complete not in {row.question.id for row in session.visible_rows("inspect")}


def test_rows_without_a_move_follow_the_sorted_ones_in_question_order(sample: Dataset) -> None:
    session = Session(sample, FIXED_200, OVERLAP_40)
    a, b = session.evaluator.evaluate(FIXED_200), session.evaluator.evaluate(OVERLAP_40)
    session.store(a)
    session.store(b)
    waiting = session.rows(True)  # B shown, the comparison not computed yet: no row has a move
    assert ordered(waiting, "improved") == waiting == ordered(waiting, "regressed")
    moves = compare(a, b).moves
    mixed = tuple(replace(row, move=moves[row.index]) if row.index % 2 else row for row in waiting)
    improved = ordered(mixed, "improved")
    assert [row.index for row in improved[20:]] == list(range(0, 40, 2))
    changes = [row.move.rank_change for row in improved[:20] if row.move is not None]
    assert changes == sorted(changes)


def test_tag_and_fragility_filters_read_the_row(sample: Dataset) -> None:
    session = Session(sample, FIXED_200)
    session.store(session.evaluator.evaluate(FIXED_200))
    rows = session.rows(False)
    assert [row.question.id for row in rows if RowFilter(tag="table").accepts(row)] == [
        row.question.id for row in rows if "table" in row.question.tags
    ]
    assert not any(RowFilter(state="fragile OK").accepts(row) for row in rows)  # fragility not computed
    assert RowFilter(state="failing", tag="ja").describe() == "failing · #ja"


@pytest.mark.parametrize("chunker", ["fixed:size=200,overlap=100", "parent:child=fixed:size=100,parent=markdown"])
def test_document_chunks_are_each_documents_retrieval_units_sorted_by_offsets(sample: Dataset, chunker: str) -> None:
    config = make_config(chunker)
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    units = evaluator.evaluate(config).chunks
    chunks = DocumentChunks(evaluator)
    for document in sample.corpus.documents:
        # Brute force: every retrieval unit of the document, ordered by offsets then by position in the chunking.
        expected = [unit for _, unit in sorted(enumerate(units), key=lambda p: (p[1].start, p[1].end, p[0]))]
        assert chunks.of(config, document.id) == tuple(unit for unit in expected if unit.doc == document.id)
