"""The registry itself: names, parsing, kinds, directions, order, registration and the policy it yields."""

from __future__ import annotations

import pytest

from chunkscope.errors import SpecError
from chunkscope.metrics import rank
from chunkscope.metrics.policy import metric_policy
from chunkscope.metrics.registry import REGISTRY, Metric, rank_metric

SUMMARY_KEYS = (
    "questions",
    "index_chunks",
    "indexed_chars",
    "evidence_exists",
    "lost",
    "doc_hits",
    "complete",
    "pieces",
    "evidence_recall",
    "precision",
    "iou",
    "precision_omega",
    "recall_at_5",
    "recall_at_20",
    "mrr_at_10",
    "ndcg_at_10",
    "sent_chars",
    "duplicate_chars",
)
"""The JSON summary's keys as the saved reports hold them (rank buckets aside)."""
CONDITIONAL_KEYS = ("truncated_evidence", "page_gold", "page_hit", "multi_hop_questions", "all_hops_delivered")
"""Metrics a summary holds only when they apply (a dense model's token window, questions naming pages,
multi-hop questions)."""
REGISTERED = (*SUMMARY_KEYS, *CONDITIONAL_KEYS)


def test_the_registry_holds_the_reported_metrics_in_report_order() -> None:
    assert REGISTRY.names == REGISTERED
    assert len(REGISTRY) == len(REGISTERED)
    assert [m.name for m in REGISTRY if m.applies is not None] == list(CONDITIONAL_KEYS)
    assert "lost" in REGISTRY and "rank_buckets" not in REGISTRY


OVERLAP = ("evidence_recall", "precision", "iou", "precision_omega")
"""The character-overlap rates, in registry order."""


def test_tested_metrics_put_the_rank_metrics_first() -> None:
    tested = REGISTRY.tested()
    assert [m.name for m in tested] == ["recall_at_5", "recall_at_20", "mrr_at_10", "ndcg_at_10", "complete", *OVERLAP]
    assert [m.label for m in tested] == [
        "R@5",
        "R@20",
        "MRR@10",
        "nDCG@10",
        "complete",
        "ev.recall",
        "prec",
        "IoU",
        "precΩ",
    ]


def test_rates_and_counts() -> None:
    rates = [m.name for m in REGISTRY if m.kind == "rate"]
    assert rates == [*OVERLAP, "recall_at_5", "recall_at_20", "mrr_at_10", "ndcg_at_10"]
    units = {m.name: m.unit for m in REGISTRY if m.kind == "count"}
    assert units == {
        "questions": "questions",
        "index_chunks": "chunks",
        "indexed_chars": "characters",
        "evidence_exists": "questions",
        "lost": "questions",
        "doc_hits": "questions",
        "complete": "questions",
        "pieces": "questions",
        "sent_chars": "characters",
        "duplicate_chars": "characters",
        "truncated_evidence": "questions",
        "page_gold": "questions",
        "page_hit": "questions",
        "multi_hop_questions": "questions",
        "all_hops_delivered": "questions",
    }


def test_directions() -> None:
    # -1: lower is worse; +1: higher is worse. Sizes, characters sent and questions delivered in pieces
    # (better than lost, worse than complete) have no better direction.
    signs = {m.name: m.worse_sign for m in REGISTRY.with_direction()}
    assert signs == {
        "evidence_exists": -1,
        "lost": 1,
        "doc_hits": -1,
        "complete": -1,
        **dict.fromkeys(OVERLAP, -1),
        "recall_at_5": -1,
        "recall_at_20": -1,
        "mrr_at_10": -1,
        "ndcg_at_10": -1,
        "duplicate_chars": 1,
        "truncated_evidence": 1,
        "page_hit": -1,
        "all_hops_delivered": -1,
    }
    with pytest.raises(ValueError, match="sent_chars"):
        _ = REGISTRY["sent_chars"].worse_sign
    with pytest.raises(ValueError, match="pieces"):
        _ = REGISTRY["pieces"].worse_sign


def test_per_question_values_exist_except_for_sizes() -> None:
    assert [m.name for m in REGISTRY if m.per_question is None] == ["questions", "index_chunks", "indexed_chars"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("recall@5", "recall_at_5"),
        ("r@5", "recall_at_5"),
        ("R@5", "recall_at_5"),
        ("RECALL_AT_5", "recall_at_5"),
        ("recall@20", "recall_at_20"),
        ("mrr@10", "mrr_at_10"),
        ("MRR@10", "mrr_at_10"),
        ("ndcg@10", "ndcg_at_10"),
        ("nDCG@10", "ndcg_at_10"),
        (" complete ", "complete"),
        ("Lost", "lost"),
        ("chunks", "index_chunks"),
        ("dup", "duplicate_chars"),
        ("evidence recall", "evidence_recall"),
        ("ev.recall", "evidence_recall"),
        ("prec", "precision"),
        ("IoU", "iou"),
        ("precision Ω", "precision_omega"),
        ("precΩ", "precision_omega"),
        ("Pieces", "pieces"),
    ],
)
def test_parse_names(text: str, name: str) -> None:
    assert REGISTRY.parse(text).name == name


def test_every_parse_name_round_trips_in_any_case() -> None:
    seen: dict[str, str] = {}
    for metric in REGISTRY:
        assert metric.parse_names[0] == metric.name
        for text in (*metric.parse_names, metric.label, metric.name.upper(), metric.label.swapcase()):
            assert REGISTRY.parse(text) == metric
        for text in metric.parse_names:
            assert seen.setdefault(text, metric.name) == metric.name, f"{text} names two metrics"


@pytest.mark.parametrize("text", ["recall@7", "r@", "rank_buckets", "", "mrr"])
def test_an_unknown_name_lists_the_valid_ones(text: str) -> None:
    with pytest.raises(SpecError) as error:
        REGISTRY.parse(text)
    assert str(error.value) == f"unknown metric {text!r}; choose from {', '.join(REGISTERED)}"


def test_parsing_among_a_subset_lists_only_the_subset() -> None:
    directed = REGISTRY.with_direction()
    assert REGISTRY.parse("r@20", directed).name == "recall_at_20"
    with pytest.raises(SpecError) as error:
        REGISTRY.parse("sent_chars", directed)
    assert "sent_chars" not in str(error.value).split("choose from ")[1]
    assert "duplicate_chars" in str(error.value)


def test_a_taken_name_is_refused() -> None:
    with pytest.raises(ValueError, match="recall@5"):
        REGISTRY.register(rank_metric("recall", 5, "Recall@5", rank.recall_at))
    with pytest.raises(ValueError):
        REGISTRY.register(rank_metric("recall", 7, "R@7", rank.recall_at), after="recall_at_6")
    assert REGISTRY.names == REGISTERED


def test_register_after_and_unregister(recall_at_10: Metric) -> None:
    names = REGISTRY.names
    assert names[names.index("recall_at_5") + 1] == "recall_at_10"
    assert REGISTRY.parse("R@10") == recall_at_10 and REGISTRY.parse("recall@10") == recall_at_10
    assert [m.name for m in REGISTRY.tested()][:3] == ["recall_at_5", "recall_at_10", "recall_at_20"]
    REGISTRY.unregister("recall_at_10")
    assert REGISTRY.names == REGISTERED
    REGISTRY.register(recall_at_10, after="recall_at_5")  # the fixture removes it again


def test_the_policy_records_the_rank_cutoffs() -> None:
    assert metric_policy()["cutoffs"] == {"recall": [5, 20], "mrr": 10, "ndcg": 10}


def test_the_policy_follows_a_new_cutoff(recall_at_10: Metric) -> None:
    assert metric_policy()["cutoffs"] == {"recall": [5, 10, 20], "mrr": 10, "ndcg": 10}
