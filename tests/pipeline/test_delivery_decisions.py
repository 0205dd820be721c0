"""The per-hit delivery decisions (chunkscope.pipeline.assembly.delivery_decisions).

Hand-worked cases for each decision, then a brute-force oracle written from the
definition in :func:`chunkscope.pipeline.assembly.assemble`'s docstring (walk the
top-k hits in rank order; a unit already sent costs nothing; a unit costs its
prefix plus its body; the first unit that does not fit is stopped at, skipped,
or truncated to what is left), checked on random rankings and on the sample data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.io.dataset import Dataset
from chunkscope.model import Chunk
from chunkscope.pipeline.assembly import assemble, delivery_decisions
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config, Overflow, QuestionResult, RankedChunk, Ranking, ranked_chunks

TEXT = "abcdefghijklmnopqrstuvwxyz" * 4  # 104 characters of document "d"


def unit(name: str, start: int, end: int, prefix: str = "") -> Chunk:
    return Chunk(f"d#{name}", "d", start, end, TEXT[start:end], prefix=prefix)


def measured(
    units: Sequence[Chunk],
    top_k: int,
    budget: int | None,
    overflow: Overflow,
    parents: Sequence[Chunk] | None = None,
) -> tuple[QuestionResult, Config]:
    """A QuestionResult ranking ``units`` in the given order, delivered by the core's assembly."""
    ranking = Ranking(tuple(range(len(units))), tuple(float(len(units) - i) for i in range(len(units))))
    unit_tuple = tuple(units)
    parent_tuple = tuple(parents) if parents is not None else None
    delivery = assemble(ranked_chunks(ranking, unit_tuple, parent_tuple), top_k, budget, overflow)
    result = QuestionResult(
        question_id="q",
        evidence_exists=True,
        cuts=(),
        ranking=ranking,
        first_correct_rank=None,
        delivered=delivery.delivered,
        skipped_ranks=delivery.skipped_ranks,
        delivery_stop=delivery.stop,
        covered=(),
        doc_hit=False,
        units=unit_tuple,
        parents=parent_tuple,
    )
    return result, Config("fixed:size=40", top_k=top_k, budget=budget, overflow=overflow)


def rows(result: QuestionResult, config: Config) -> list[tuple[Any, ...]]:
    """(status, sent, body, duplicate, used before, used after, left before) per rank."""
    return [
        (h.status, h.sent_chars, h.body_chars, h.duplicate_chars, h.used_before, h.used_after, h.left_before)
        for h in delivery_decisions(result, config).hits
    ]


# A [0,40) and B [30,70) overlap on 10 characters; C [60,100) costs 40; D [100,104) costs 4.
A, B, C, D = unit("a", 0, 40), unit("b", 30, 70), unit("c", 60, 100), unit("d", 100, 104)
E = unit("e", 0, 10)


def test_budget_stop_at_the_hit_that_does_not_fit_and_after_it() -> None:
    # budget 90: A (40) and B (40, 10 re-sent) fit, 80 used; C (40) does not fit the 10 left: the stop.
    # D (4) would fit, but delivery has ended; E is ranked 5th, beyond top-4.
    result, config = measured([A, B, C, D, E], top_k=4, budget=90, overflow="stop")
    assert rows(result, config) == [
        ("delivered", 40, 40, 0, 0, 40, 90),
        ("delivered", 40, 40, 10, 40, 80, 50),
        ("budget-stop", 0, 0, 0, 80, 80, 10),
        ("budget-stop", 0, 0, 0, 80, 80, 10),
        ("beyond-top-k", 0, 0, 0, 80, 80, 10),
    ]
    decisions = delivery_decisions(result, config)
    assert [h.after_stop for h in decisions.hits] == [False, False, False, True, False]
    stop = decisions.budget_stop
    assert stop is not None
    assert (stop.rank, stop.cost, stop.budget, stop.used, stop.truncated, stop.ends_before) == (3, 40, 90, 80, False, 3)
    assert decisions.stop == "budget" and decisions.used == 80
    end = decisions.top_k_end
    assert end is not None and (end.top_k, end.last_rank, end.continues, end.ends_before) == (4, 5, True, 5)


def test_budget_skip_passes_over_and_delivers_what_fits_later() -> None:
    # same ranking and budget, overflow skip: C is passed over, D (4) fits the 10 left
    result, config = measured([A, B, C, D, E], top_k=4, budget=90, overflow="skip")
    assert rows(result, config) == [
        ("delivered", 40, 40, 0, 0, 40, 90),
        ("delivered", 40, 40, 10, 40, 80, 50),
        ("budget-skip", 0, 0, 0, 80, 80, 10),
        ("delivered", 4, 4, 0, 80, 84, 10),
        ("beyond-top-k", 0, 0, 0, 84, 84, 6),
    ]
    decisions = delivery_decisions(result, config)
    assert decisions.budget_stop is None  # skipping never ends delivery
    assert decisions.stop == "budget"


def test_truncate_sends_what_is_left_and_ends_delivery() -> None:
    # overflow truncate: C sends the first 10 of its 40 characters, [60, 70), filling 90 (B had sent
    # them already: 10 re-sent); D comes after the stop
    result, config = measured([A, B, C, D, E], top_k=4, budget=90, overflow="truncate")
    assert rows(result, config)[2:4] == [
        ("truncated", 10, 10, 10, 80, 90, 10),
        ("budget-stop", 0, 0, 0, 90, 90, 0),
    ]
    decisions = delivery_decisions(result, config)
    assert decisions.of(4).after_stop
    stop = decisions.budget_stop
    assert stop is not None
    assert (stop.rank, stop.body_chars, stop.unit_length, stop.truncated, stop.ends_before) == (3, 10, 40, True, 4)


def test_truncate_with_no_room_for_the_prefix_is_a_stop() -> None:
    # C carries a 12-character prefix; 10 are left, so not even the prefix fits: nothing of C is sent
    prefixed = unit("c", 60, 100, prefix="## Heading\n\n")
    result, config = measured([A, B, prefixed, D], top_k=4, budget=90, overflow="truncate")
    decisions = delivery_decisions(result, config)
    assert [(h.status, h.cost, h.after_stop) for h in decisions.hits[2:]] == [
        ("budget-stop", 52, False),
        ("budget-stop", 4, True),
    ]
    stop = decisions.budget_stop
    assert stop is not None and (stop.rank, stop.cost, stop.truncated, stop.ends_before) == (3, 52, False, 3)


def test_a_parent_already_sent_costs_nothing() -> None:
    # children [0,30) and [30,60) share the parent [0,60); [60,100) has the parent [60,104)
    children = [unit("c0", 0, 30), unit("c1", 30, 60), unit("c2", 60, 100)]
    first, second = unit("p0", 0, 60), unit("p1", 60, 104)
    result, config = measured(children, top_k=3, budget=None, overflow="stop", parents=[first, first, second])
    decisions = delivery_decisions(result, config)
    assert [(h.status, h.sent_chars, h.cost, h.sent_by) for h in decisions.hits] == [
        ("delivered", 60, 60, None),
        ("already-sent", 0, 60, 1),
        ("delivered", 44, 44, None),
    ]
    assert decisions.of(2).left_before is None  # no budget
    assert decisions.budget_stop is None and decisions.stop == "top_k"


def test_ranking_exhausted_before_top_k() -> None:
    result, config = measured([A, C], top_k=5, budget=None, overflow="stop")
    decisions = delivery_decisions(result, config)
    assert decisions.stop == "exhausted"
    assert [h.status for h in decisions.hits] == ["delivered", "delivered"]
    end = decisions.top_k_end
    assert end is not None and (end.last_rank, end.continues, end.ends_before) == (2, False, 3)


def test_nothing_ranked_has_no_top_k_end() -> None:
    result, config = measured([], top_k=5, budget=100, overflow="stop")
    decisions = delivery_decisions(result, config)
    assert decisions.hits == () and decisions.top_k_end is None and decisions.budget_stop is None


def test_a_limit_decides_the_first_ranks_alike() -> None:
    result, config = measured([A, B, C, D, E], top_k=4, budget=90, overflow="truncate")
    full = delivery_decisions(result, config)
    first_three = delivery_decisions(result, config, limit=3)
    assert first_three.hits == full.hits[:3]
    assert first_three.budget_stop == full.budget_stop


def test_a_result_of_another_config_is_refused() -> None:
    # measured with top-2; read as top-4, rank 3 was neither delivered nor skipped
    result, _ = measured([A, C, D], top_k=2, budget=None, overflow="stop")
    with pytest.raises(ValueError, match="rank 3"):
        delivery_decisions(result, Config("fixed:size=40", top_k=4))


# ---------------------------------------------------------------------------------------------- oracle


def oracle(
    ranked: Sequence[RankedChunk], top_k: int, budget: int | None, overflow: Overflow
) -> tuple[list[tuple[Any, ...]], tuple[Any, ...] | None, str]:
    """Per hit (rank, status, sent, body, duplicate, used before, sent by, after stop), the budget stop, the stop."""
    sent_by: dict[str, int] = {}
    seen: set[tuple[str, int]] = set()
    used = 0
    stopped = False
    skipped_any = False
    stop: tuple[Any, ...] | None = None
    out: list[tuple[Any, ...]] = []
    for hit in ranked:
        u = hit.delivered_unit
        cost = len(u.prefix) + (u.end - u.start)
        before = used
        if hit.rank > top_k:
            out.append((hit.rank, "beyond-top-k", 0, 0, 0, before, None, False))
            continue
        if u.id in sent_by:
            out.append((hit.rank, "already-sent", 0, 0, 0, before, sent_by[u.id], False))
            continue
        if stopped:
            out.append((hit.rank, "budget-stop", 0, 0, 0, before, None, True))
            continue
        room = None if budget is None else budget - used
        if room is None or cost <= room:
            body = u.end - u.start
        elif overflow == "skip":
            skipped_any = True
            out.append((hit.rank, "budget-skip", 0, 0, 0, before, None, False))
            continue
        elif overflow == "truncate" and room - len(u.prefix) > 0:
            body = room - len(u.prefix)
            stopped = True
            stop = (hit.rank, cost, budget, before, body)
        else:
            stopped = True
            stop = (hit.rank, cost, budget, before, 0)
            out.append((hit.rank, "budget-stop", 0, 0, 0, before, None, False))
            continue
        positions = {(u.doc, p) for p in range(u.start, u.start + body)}
        duplicate = len(positions & seen)
        seen |= positions
        sent_by[u.id] = hit.rank
        used += len(u.prefix) + body
        status = "delivered" if body == u.end - u.start else "truncated"
        out.append((hit.rank, status, len(u.prefix) + body, body, duplicate, before, None, False))
    window = [hit for hit in ranked if hit.rank <= top_k]
    ending = "budget" if stopped or skipped_any else ("top_k" if len(window) >= top_k else "exhausted")
    return out, stop, ending


def decided(result: QuestionResult, config: Config) -> tuple[list[tuple[Any, ...]], tuple[Any, ...] | None, str]:
    decisions = delivery_decisions(result, config)
    hits = [
        (h.rank, h.status, h.sent_chars, h.body_chars, h.duplicate_chars, h.used_before, h.sent_by, h.after_stop)
        for h in decisions.hits
    ]
    stop = decisions.budget_stop
    stop_row = None if stop is None else (stop.rank, stop.cost, stop.budget, stop.used, stop.body_chars)
    return hits, stop_row, decisions.stop


extents = st.tuples(st.integers(0, 90), st.integers(1, 14)).map(lambda se: (se[0], se[0] + se[1]))


@settings(max_examples=300, deadline=None)
@given(
    spans=st.lists(extents, min_size=0, max_size=9),
    prefixes=st.lists(st.sampled_from(["", "", "# H\n", "## Heading\n\n"]), min_size=9, max_size=9),
    parent_of=st.one_of(st.none(), st.lists(st.integers(0, 2), min_size=9, max_size=9)),
    top_k=st.integers(1, 7),
    budget=st.one_of(st.none(), st.integers(0, 80)),
    overflow=st.sampled_from(["stop", "skip", "truncate"]),
)
def test_decisions_match_the_brute_force_definition(
    spans: list[tuple[int, int]],
    prefixes: list[str],
    parent_of: list[int] | None,
    top_k: int,
    budget: int | None,
    overflow: Overflow,
) -> None:
    units = [unit(str(i), s, e, prefixes[i]) for i, (s, e) in enumerate(spans)]
    parents = None
    if parent_of is not None:
        shared = [unit("p0", 0, 30, "# P\n"), unit("p1", 20, 60), unit("p2", 50, 104)]
        parents = [shared[parent_of[i]] for i in range(len(units))]
    result, config = measured(units, top_k, budget, overflow, parents)
    assert decided(result, config) == oracle(result.ranked, top_k, budget, overflow)


@pytest.mark.parametrize(
    ("chunker", "top_k", "budget", "overflow"),
    [
        ("fixed:size=200,overlap=100", 5, 700, "stop"),
        ("fixed:size=300,overlap=100", 5, 700, "skip"),
        ("recursive:size=300,overlap=60", 6, 900, "truncate"),
        ("parent:child=fixed:size=120,parent=markdown", 6, 900, "truncate"),
        ("parent:child=fixed:size=200,parent=markdown", 5, 1000, "skip"),
        ("markdown", 3, None, "stop"),
    ],
)
def test_decisions_match_the_definition_on_the_sample_data(
    sample: Dataset, chunker: str, top_k: int, budget: int | None, overflow: Overflow
) -> None:
    config = make_config(chunker, top_k=top_k, budget=budget, overflow=overflow)
    result = Evaluator(sample.corpus, sample.questions.questions).evaluate(config)
    statuses: set[str] = set()
    for question in result.questions:
        expected = oracle(question.ranked, top_k, budget, overflow)
        assert decided(question, config) == expected, question.question_id
        decisions = delivery_decisions(question, config)
        assert decisions.used == question.sent_chars
        statuses.update(h.status for h in decisions.hits)
    assert "delivered" in statuses and "beyond-top-k" in statuses
