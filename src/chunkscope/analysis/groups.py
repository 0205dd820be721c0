"""Question groups by tag: every metric broken down per tag.

A question may carry tags (``Question.tags``, from ``"tags"`` in the questions
JSONL). A question counts in each of its tags, so the groups may overlap and
their sizes need not add up to the question count. Tags are listed in
alphabetical order. A group's metrics are the configuration's metrics computed
on that group's questions only (:func:`chunkscope.metrics.summary.summarize` on the
subset), so every definition is the same as for the whole set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chunkscope.errors import ChunkscopeError
from chunkscope.metrics.summary import summarize
from chunkscope.model import Question
from chunkscope.results import ConfigResult

__all__ = ["TagGroup", "by_tag", "question_tags", "restrict", "tag_positions"]


@dataclass(frozen=True, slots=True)
class TagGroup:
    """The questions carrying one tag, and every configuration restricted to them."""

    tag: str
    """The tag."""
    question_ids: tuple[str, ...]
    """Questions carrying the tag, in question-set order."""
    results: tuple[ConfigResult, ...]
    """Each configuration's result on these questions only (summaries recomputed)."""


def question_tags(questions: Sequence[Question]) -> dict[str, tuple[str, ...]]:
    """Question id -> its tags."""
    return {question.id: question.tags for question in questions}


def tag_positions(question_ids: Sequence[str], tags: Mapping[str, Sequence[str]]) -> dict[str, tuple[int, ...]]:
    """Tag -> positions (into ``question_ids``) of the questions carrying it, tags sorted alphabetically."""
    positions: dict[str, list[int]] = {}
    for position, question_id in enumerate(question_ids):
        for tag in dict.fromkeys(tags.get(question_id, ())):
            positions.setdefault(tag, []).append(position)
    return {tag: tuple(positions[tag]) for tag in sorted(positions)}


def restrict(result: ConfigResult, positions: Sequence[int]) -> ConfigResult:
    """``result`` on the questions at ``positions`` only, with the summary recomputed."""
    questions = tuple(result.questions[p] for p in positions)
    return ConfigResult(result.config, summarize(questions, result.chunks), questions, result.chunks)


def by_tag(results: Sequence[ConfigResult], questions: Sequence[Question]) -> tuple[TagGroup, ...]:
    """One group per tag, each holding every configuration restricted to the tag's questions.

    Raises ChunkscopeError when a result's questions are not ``questions`` in order.
    """
    ids = tuple(question.id for question in questions)
    for result in results:
        if tuple(q.question_id for q in result.questions) != ids:
            raise ChunkscopeError(f"{result.config.label}: results do not cover the question set in order")
    groups = []
    for tag, positions in tag_positions(ids, question_tags(questions)).items():
        groups.append(
            TagGroup(tag, tuple(ids[p] for p in positions), tuple(restrict(result, positions) for result in results))
        )
    return tuple(groups)
