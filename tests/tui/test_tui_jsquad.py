"""The inspector on JSQuAD valid: thousands of questions, Japanese text, 50 steps through the list."""

from __future__ import annotations

import pytest
from pilot_helpers import FIXED_200, async_test, detail_filled, make_app, settle

from chunkscope.io.dataset import Dataset
from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.question_list import QuestionList
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView

pytestmark = pytest.mark.jsquad


@async_test
async def test_step_through_fifty_questions(jsquad: Dataset) -> None:
    questions = jsquad.questions.questions
    app = make_app(jsquad, FIXED_200)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        question_list = app.screen.query_one(QuestionList)
        ranked = app.screen.query_one(RankedChunksView)
        document = app.screen.query_one(DocumentView)
        assert len(question_list.rows) == len(questions)
        for step in range(1, 51):
            await pilot.press("down")
            await detail_filled(pilot)
            question = questions[step]
            assert app.session.selected_id == question.id
            assert question.id in str(ranked.border_title)
            assert document.document is not None and document.document.id == question.gold_spans[0].doc
        # The failing filter and next-failing work at this size too.
        await pilot.press("f", "n")
        row = question_list.current
        assert row is not None and not row.result.complete
