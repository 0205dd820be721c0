"""Question groups by tag: every metric broken down per tag.

A question may carry tags (``Question.tags``, from ``"tags"`` in the questions
JSONL). A question counts in each of its tags, so the groups may overlap and
their sizes need not add up to the question count. Tags are listed in
alphabetical order. A group's metrics are the configuration's metrics computed
on that group's questions only (:func:`chunkscope.metrics.summary.summarize` on the
subset), so every definition is the same as for the whole set.

Computed groups (:func:`computed_tags`, opt-in with ``--groups auto``) need no
hand tagging; each question gets one tag of each family:

* ``lexical:high|mid|low``: the share of the query's distinct tokens (default
  tokenizer) that occur among the tokens of its evidence text (every gold span
  of every required item): ``high`` when the share is at least 0.67, ``mid``
  at least 0.33, else ``low`` (a query without tokens is ``low``). Exact-term
  questions are ``high``, paraphrases ``low``.
* ``evidence:single|multi``: one required evidence item, or more.
* ``span:short|long``: ``long`` when some gold span is longer than 40
  characters, else ``short``.

The thresholds are :class:`GroupRules` (``--lexical-thresholds``, ``--span-threshold``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chunkscope.errors import ChunkscopeError
from chunkscope.metrics.summary import summarize
from chunkscope.model import Corpus, Question
from chunkscope.results import ConfigResult
from chunkscope.tokenize.base import get_tokenizer

__all__ = [
    "COMPUTED_FAMILIES",
    "GroupRules",
    "TagGroup",
    "by_tag",
    "computed_tags",
    "lexical_share",
    "question_tags",
    "restrict",
    "tag_positions",
    "with_computed_tags",
]

COMPUTED_FAMILIES = ("lexical", "evidence", "span")
"""Prefixes of the computed tags (``lexical:high`` and so on)."""


@dataclass(frozen=True, slots=True)
class GroupRules:
    """Thresholds of the computed groups."""

    lexical_high: float = 0.67
    """Lexical share at or above which a question is ``lexical:high``."""
    lexical_mid: float = 0.33
    """Lexical share at or above which (and below ``lexical_high``) a question is ``lexical:mid``."""
    span_long: int = 40
    """A gold span longer than this many characters makes the question ``span:long``."""

    def __post_init__(self) -> None:
        if not 0 <= self.lexical_mid <= self.lexical_high <= 1:
            raise ChunkscopeError(
                f"--lexical-thresholds: need 1 >= high >= mid >= 0, got {self.lexical_high},{self.lexical_mid}"
            )
        if self.span_long < 0:
            raise ChunkscopeError(f"--span-threshold must not be negative, got {self.span_long}")

    def as_dict(self) -> dict[str, object]:
        """The rules as report values, with the definition of each family."""
        return {
            "lexical": {
                "high_at_least": self.lexical_high,
                "mid_at_least": self.lexical_mid,
                "share": "distinct query tokens (default tokenizer) found in the evidence text / distinct query tokens",
            },
            "evidence": "single: one required item; multi: more",
            "span": {"long_over_chars": self.span_long},
        }


def lexical_share(question: Question, corpus: Corpus) -> float:
    """Share of the query's distinct tokens that occur in its evidence text (0 for a query without tokens)."""
    tokenize = get_tokenizer("default")
    query = set(tokenize(question.query))
    if not query:
        return 0.0
    evidence: set[str] = set()
    for span in question.gold_spans:
        evidence.update(tokenize(corpus.by_id[span.doc].text[span.start : span.end]))
    return len(query & evidence) / len(query)


def computed_tags(question: Question, corpus: Corpus, rules: GroupRules = GroupRules()) -> tuple[str, ...]:
    """The question's ``lexical:``, ``evidence:`` and ``span:`` tags (see the module docs)."""
    share = lexical_share(question, corpus)
    lexical = "high" if share >= rules.lexical_high else "mid" if share >= rules.lexical_mid else "low"
    evidence = "multi" if len(question.evidence) > 1 else "single"
    span = "long" if any(s.end - s.start > rules.span_long for s in question.gold_spans) else "short"
    return (f"lexical:{lexical}", f"evidence:{evidence}", f"span:{span}")


def with_computed_tags(
    questions: Sequence[Question], corpus: Corpus, rules: GroupRules = GroupRules()
) -> tuple[Question, ...]:
    """The questions with their computed tags added after their own (a tag already carried is not repeated)."""
    return tuple(
        dataclasses.replace(q, tags=tuple(dict.fromkeys((*q.tags, *computed_tags(q, corpus, rules)))))
        for q in questions
    )


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
