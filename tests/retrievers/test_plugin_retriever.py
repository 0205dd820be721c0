"""``python:`` retrievers: the user's scores ranked by the common rule, and errors that point at the user's code."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk
from chunkscope.retrievers import parse_retriever
from chunkscope.spec.plugins import PluginError


def units(sample: Dataset) -> tuple[Chunk, ...]:
    return chunk_corpus(parse_chunker("paragraph"), sample.corpus).units


def brute_force(query: str, chunks: tuple[Chunk, ...], depth: int) -> list[tuple[str, float]]:
    """Shared distinct words, ranked by score descending then document id, start, end and id; zero left out."""
    words = set(query.lower().split())
    scored = [(float(len(words & set(c.text.lower().split()))), c) for c in chunks]
    ranked = sorted(
        (item for item in scored if item[0] > 0), key=lambda i: (-i[0], i[1].doc, i[1].start, i[1].end, i[1].id)
    )
    return [(chunk.id, score) for score, chunk in ranked[:depth]]


@pytest.mark.parametrize("function", ["shared_words", "as_pairs"])
def test_scores_are_ranked_by_the_common_rule(function: str, plugins: Path, sample: Dataset) -> None:
    chunks = units(sample)
    questions = sample.questions.questions
    rankings = parse_retriever(f"python:cs_plugins.ranking:{function}").build(chunks).rank(questions, 20)
    for question, ranking in zip(questions, rankings, strict=True):
        got = [(chunks[i].id, score) for i, score in zip(ranking.indices, ranking.scores, strict=True)]
        assert got == brute_force(question.query, chunks, 20)


def test_parameters_reach_the_function(plugins: Path, sample: Dataset) -> None:
    chunks = units(sample)
    question = sample.questions.questions[0]
    (ranking,) = parse_retriever("python:cs_plugins.ranking:shared_words,minimum=3").build(chunks).rank([question], 20)
    assert all(score >= 3 for score in ranking.scores)
    assert len(ranking.indices) == len(
        [1 for _, score in brute_force(question.query, chunks, 10_000) if score >= 3][:20]
    )


def test_equal_scores_fall_back_to_the_tie_break(plugins: Path, sample: Dataset) -> None:
    chunks = units(sample)
    (ranking,) = (
        parse_retriever("python:cs_plugins.ranking:constant").build(chunks).rank(sample.questions.questions[:1], 7)
    )
    expected = sorted(range(len(chunks)), key=lambda i: (chunks[i].doc, chunks[i].start, chunks[i].end, chunks[i].id))
    assert list(ranking.indices) == expected[:7]


@pytest.mark.parametrize(
    ("function", "message"),
    [
        ("unknown_unit", r"python:cs_plugins.ranking:unknown_unit: question 'q01': unknown unit id 'no-such-unit#0'"),
        ("too_few", r"python:cs_plugins.ranking:too_few returned 0 rankings for 40 questions"),
        ("bad_score", r"question 'q01': unit 'en/order-api.md#0' has score 'high', expected a finite number"),
    ],
)
def test_unusable_results_are_one_line_errors(function: str, message: str, plugins: Path, sample: Dataset) -> None:
    index = parse_retriever(f"python:cs_plugins.ranking:{function}").build(units(sample))
    with pytest.raises(PluginError, match=message):
        index.rank(sample.questions.questions, 20)


def test_an_exception_names_the_users_file_and_line(plugins: Path, sample: Dataset) -> None:
    path = plugins / "cs_plugins" / "ranking.py"
    line = next(n for n, text in enumerate(path.read_text().splitlines(), start=1) if "lookup[unit.id]" in text)
    index = parse_retriever("python:cs_plugins.ranking:crash").build(units(sample))
    with pytest.raises(PluginError) as caught:
        index.rank(sample.questions.questions, 20)
    assert str(caught.value).startswith(f"{path}:{line}: plugin 'python:cs_plugins.ranking:crash' raised KeyError:")
