"""Ranking with a progress callback: reports every REPORT_EVERY questions, the same rankings, stoppable."""

from __future__ import annotations

from typing import Any

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.io.dataset import load_dataset
from chunkscope.retrievers import lexical, parse_retriever, scoring
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


@pytest.mark.parametrize(
    ("retriever", "reports"),
    [
        # Hand-listed: tokenising, building the postings, after them, and BM25 before its weights.
        ("bm25", [(0, 4), (1, 4), (2, 4), (3, 4)]),
        ("overlap", [(0, 4), (1, 4), (2, 4)]),
        ("rrf:bm25+overlap", [(0, 4), (1, 4), (2, 4), (3, 4), (0, 4), (1, 4), (2, 4)]),
    ],
)
def test_an_index_build_reports_between_its_steps_and_is_the_same_with_progress(
    retriever: str, reports: list[tuple[int, int]]
) -> None:
    sample = load_dataset()
    questions = sample.questions.questions
    units = chunk_corpus(parse_chunker("fixed:size=200"), sample.corpus).units
    seen: list[tuple[int, int]] = []
    reported = build_index(parse_retriever(retriever), units, sample.corpus, lambda d, t: seen.append((d, t)))
    assert seen == reports
    plain = build_index(parse_retriever(retriever), units, sample.corpus)
    assert reported.rank(questions, 20) == plain.rank(questions, 20)


def test_an_index_build_stops_at_the_report_that_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    sample = load_dataset()
    units = chunk_corpus(parse_chunker("fixed:size=200"), sample.corpus).units
    built: list[int] = []
    original = lexical.build_postings

    def counted(ids: Any, lengths: Any) -> Any:
        built.append(len(ids))
        return original(ids, lengths)

    monkeypatch.setenv(scoring.BACKEND_ENV, "numpy")
    monkeypatch.setattr(lexical, "build_postings", counted)

    def stop_after_tokenising(done: int, total: int) -> None:
        if done == 1:
            raise Stop

    with pytest.raises(Stop):
        build_index(parse_retriever("bm25"), units, sample.corpus, stop_after_tokenising)
    assert built == []  # stopped before the postings were built
