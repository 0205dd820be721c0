"""Ranking with a progress callback: reports every REPORT_EVERY questions, the same rankings, stoppable."""

from __future__ import annotations

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.io.dataset import load_dataset
from chunkscope.retrievers import parse_retriever, scoring
from chunkscope.retrievers.base import build_index


class Stop(Exception):
    """Raised by a progress callback, as a cancelled evaluation does."""


@pytest.mark.parametrize("retriever", ["bm25", "overlap"])
def test_progress_comes_every_few_questions_and_rankings_stay_the_same(
    retriever: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = load_dataset()
    questions = sample.questions.questions
    units = chunk_corpus(parse_chunker("fixed:size=200"), sample.corpus).units
    index = build_index(parse_retriever(retriever), units, sample.corpus)
    monkeypatch.setattr(scoring, "REPORT_EVERY", 16)
    reports: list[tuple[int, int]] = []
    with_progress = index.rank(questions, 20, lambda done, total: reports.append((done, total)))
    assert reports == [(0, 40), (16, 40), (32, 40)]  # 40 questions, by hand
    assert with_progress == index.rank(questions, 20)

    def stop_after_first(done: int, total: int) -> None:
        if done:
            raise Stop

    with pytest.raises(Stop):
        index.rank(questions, 20, stop_after_first)
