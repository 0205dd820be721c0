"""Computed question groups: lexical share by hand, thresholds, evidence count, span length."""

from __future__ import annotations

import pytest

from chunkscope.analysis.groups import GroupRules, computed_tags, lexical_share, with_computed_tags
from chunkscope.errors import ChunkscopeError
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span

TEXT = "Refunds take ten days. Opened headphones are inspected first."
CORPUS = Corpus((Document("d", TEXT),))
REFUND = Span("d", 0, 22)  # 'Refunds take ten days.' (22 characters)
OPENED = Span("d", 23, len(TEXT))  # 'Opened headphones are inspected first.' (38 characters)


def _question(query: str, *spans: Span) -> Question:
    return Question("q", query, tuple(EvidenceItem((span,)) for span in spans), ("hand",))


def test_lexical_share_counts_distinct_query_tokens() -> None:
    # Distinct query tokens {how, many, days, do, refunds, take}; 'days', 'refunds', 'take' occur: 3/6.
    assert lexical_share(_question("How many days do refunds take? days", REFUND), CORPUS) == pytest.approx(3 / 6)
    assert lexical_share(_question("refunds take days", REFUND), CORPUS) == 1.0
    assert lexical_share(_question("???", REFUND), CORPUS) == 0.0


def test_tags_by_the_documented_thresholds() -> None:
    assert computed_tags(_question("refunds take days", REFUND), CORPUS) == (
        "lexical:high",
        "evidence:single",
        "span:short",
    )
    # 1 of 2 tokens found: 0.5, mid under the defaults, low with a 0.6 mid threshold.
    half = _question("refunds weekend", REFUND)
    assert computed_tags(half, CORPUS)[0] == "lexical:mid"
    assert computed_tags(half, CORPUS, GroupRules(0.9, 0.6))[0] == "lexical:low"
    both = _question("opened headphones refunds", REFUND, OPENED)
    assert computed_tags(both, CORPUS)[1:] == ("evidence:multi", "span:short")  # 38 <= 40
    assert computed_tags(both, CORPUS, GroupRules(span_long=30))[2] == "span:long"


def test_computed_tags_follow_the_questions_own() -> None:
    (question,) = with_computed_tags([_question("refunds", REFUND)], CORPUS)
    assert question.tags == ("hand", "lexical:high", "evidence:single", "span:short")


def test_bad_thresholds_are_refused() -> None:
    with pytest.raises(ChunkscopeError, match="lexical-thresholds"):
        GroupRules(0.3, 0.6)
