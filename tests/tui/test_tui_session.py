"""The inspector's view-model: classification, filters, stepping, configuration keys (no Textual)."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.analysis.compare import STATES, compare
from chunkscope.analysis.diagnose import FailureCause
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.results import Config
from chunkscope.tui.session import (
    QuestionRow,
    RowFilter,
    Session,
    Status,
    StepError,
    cycle_overflow,
    cycle_overlap,
    cycle_strategy,
    step_budget,
    step_size,
    step_through,
    step_top_k,
    steps_ahead,
)

FIXED_200 = make_config("fixed:size=200")
OVERLAP_40 = make_config("fixed:size=200,overlap=40")


def evaluated(sample: Dataset, a: Config = FIXED_200, b: Config | None = None) -> Session:
    session = Session(sample, a, b)
    for slot in session.slots():
        session.store(session.evaluator.evaluate(slot.requested))
    return session


def row(session: Session, question_id: str, compare_view: bool = False) -> QuestionRow:
    return next(r for r in session.rows(compare_view) if r.question.id == question_id)


def test_q39_is_lost_under_fixed_200_and_whole_with_overlap_40(sample: Dataset) -> None:
    # q39's gold is ja/rx200-torisetsu.md [380, 421). Windows of 200 put a boundary at 400, inside it;
    # with overlap 40 the windows start every 160 characters and [320, 520) holds it whole. Under
    # windows of 200 both pieces, [200, 400) and [400, 600), are delivered (ranks 1 and 4).
    session = evaluated(sample)
    q39 = row(session, "q39")
    assert q39.result.lost and q39.result.piece_ranks == ((1, 4),)
    assert q39.status is Status.PIECES and q39.status.glyph == "⧉"
    assert q39.state == "pieces"
    assert q39.cause is FailureCause.CUT
    assert [cut.boundaries for cut in q39.result.cuts] == [(400,)]
    assert session.document_chunks(FIXED_200, "ja/rx200-torisetsu.md")[2].start == 400
    session.request("a", OVERLAP_40)
    session.store(session.evaluator.evaluate(OVERLAP_40))
    assert row(session, "q39").status not in (Status.LOST, Status.PIECES)


def test_status_follows_what_was_delivered(sample: Dataset) -> None:
    session = evaluated(sample)
    for r in session.rows(False):
        covered = r.result.covered
        if not r.result.complete and all(c or ranks for c, ranks in zip(covered, r.result.piece_ranks, strict=True)):
            expected = Status.PIECES
        elif r.result.lost:
            expected = Status.LOST
        elif all(covered):
            expected = Status.COMPLETE
        elif any(covered):
            expected = Status.PARTIAL
        else:
            expected = Status.MISSED
        assert r.status is expected, r.question.id


def test_state_filters_agree_with_the_core_summary(sample: Dataset) -> None:
    session = evaluated(sample)
    summary = session.a.shown.summary  # type: ignore[union-attr]
    counts = {}
    for state in ("all", "failing", "lost", "cut", "incomplete"):
        session.set_filter("inspect", state=state)
        counts[state] = len(session.visible_rows("inspect"))
    assert counts["all"] == summary.questions
    assert counts["failing"] == summary.questions - summary["complete"]
    assert counts["lost"] == summary["lost"]
    assert counts["incomplete"] == counts["failing"] - counts["lost"]
    assert counts["cut"] >= counts["lost"]  # a lost question has a cut; "any" alternatives may be cut too


def test_cause_and_text_filters(sample: Dataset) -> None:
    session = evaluated(sample)
    session.set_filter("inspect", cause=FailureCause.CUT)
    assert {r.question.id for r in session.visible_rows("inspect")} == {
        r.question.id for r in session.rows(False) if r.result.lost
    }
    session.set_filter("inspect", cause=None, text="Q3")
    assert [r.question.id for r in session.visible_rows("inspect")] == [f"q3{i}" for i in range(10)]
    session.set_filter("inspect", text="イヤホン")  # matches the Japanese query of q28 only
    assert [r.question.id for r in session.visible_rows("inspect")] == ["q28"]
    assert RowFilter("failing", FailureCause.CUT, None, "x").describe() == 'failing · CUT · "x"'


def test_move_filters_and_transition_cells_use_the_core_comparison(sample: Dataset) -> None:
    session = evaluated(sample, FIXED_200, OVERLAP_40)
    a, b = session.a.shown, session.b.shown  # type: ignore[union-attr]
    assert a is not None and b is not None
    comparison = compare(a, b, permutations=200)
    session.store_comparison(comparison)
    session.set_filter("compare", state="recovered")
    recovered = [r.question.id for r in session.visible_rows("compare")]
    assert len(recovered) == comparison.recovered
    assert "q39" in recovered
    session.set_filter("compare", state="all", cell=("lost", "lost"))
    lost = STATES.index("lost")
    assert len(session.visible_rows("compare")) == comparison.transitions[lost][lost] > 0
    session.set_filter("compare", state="all", cell=("pieces", "2-5"))
    count = comparison.transitions[STATES.index("pieces")][STATES.index("2-5")]
    assert [r.question.id for r in session.visible_rows("compare")] == [
        m.question_id for m in comparison.moves if (m.state_a, m.state_b) == ("pieces", "2-5")
    ]
    assert count > 0


def test_split_view_state_and_cause_filters_look_at_both_sides(sample: Dataset) -> None:
    # q02 is complete at rank 1 under fixed:size=200 but newly lost (cut) under overlap 40, so in the
    # split view "failing", "lost" and the CUT cause must list it although A alone would not.
    session = evaluated(sample, FIXED_200, OVERLAP_40)
    a, b = session.a.shown, session.b.shown
    assert a is not None and b is not None
    q02 = row(session, "q02", compare_view=True)
    assert q02.result.complete and q02.result_b is not None and q02.result_b.lost
    assert q02.failing and q02.cause_b is FailureCause.CUT
    expected_failing = {
        qa.question_id for qa, qb in zip(a.questions, b.questions, strict=True) if not (qa.complete and qb.complete)
    }
    session.set_filter("compare", state="failing")
    assert {r.question.id for r in session.visible_rows("compare")} == expected_failing
    session.set_filter("compare", state="lost")
    assert {r.question.id for r in session.visible_rows("compare")} == {
        qa.question_id for qa, qb in zip(a.questions, b.questions, strict=True) if qa.lost or qb.lost
    }
    session.set_filter("compare", state="all", cause=FailureCause.CUT)
    assert "q02" in {r.question.id for r in session.visible_rows("compare")}
    assert FailureCause.CUT in session.causes_present(compare=True)


def test_step_through_wraps_and_skips(sample: Dataset) -> None:
    rows = evaluated(sample).rows(False)
    failing = [index for index, r in enumerate(rows) if r.failing]
    after_first = step_through(rows, failing[0], 1, lambda r: r.failing)
    assert after_first is rows[failing[1]]
    before_first = step_through(rows, failing[0], -1, lambda r: r.failing)
    assert before_first is rows[failing[-1]]
    assert step_through(rows, None, 1, lambda r: r.failing) is rows[failing[0]]
    assert step_through(rows, None, -1, lambda r: r.failing) is rows[failing[-1]]
    assert step_through(rows, None, 1, lambda r: False) is None


@pytest.mark.parametrize("step", [1, -1])
def test_the_rows_ahead_are_what_repeated_presses_select(sample: Dataset, step: int) -> None:
    session = evaluated(sample)
    failing = [r.question.id for r in session.rows(False) if r.failing]
    session.selected_id = failing[1]
    ahead = [row.question.id for row in session.ahead("inspect", step, lambda r: r.failing, 4)]
    pressed = []
    for _ in range(4):
        row = session.step_selection("inspect", step, lambda r: r.failing)
        assert row is not None
        pressed.append(row.question.id)
    assert ahead == pressed
    # Asked for more than there are: each other failing question once, never the selection.
    session.selected_id = failing[1]
    everything = [row.question.id for row in session.ahead("inspect", step, lambda r: r.failing, 10_000)]
    assert sorted(everything) == sorted(failing[:1] + failing[2:])
    rows = session.rows(False)
    assert steps_ahead(rows, None, 1, lambda r: r.failing, 2) == tuple(r for r in rows if r.failing)[:2]
    assert steps_ahead(rows, 0, 1, lambda r: False, 3) == ()


def test_step_selection_moves_one_failing_question_per_call(sample: Dataset) -> None:
    session = evaluated(sample)
    failing = [r.question.id for r in session.rows(False) if r.failing]
    session.selected_id = failing[0]
    visited = []
    for _ in range(len(failing)):
        row = session.step_selection("inspect", 1, lambda r: r.failing)
        assert row is not None and session.selected_id == row.question.id
        visited.append(row.question.id)
    # Every failing question once, in list order, then back to the first (the list wraps around).
    assert visited == [*failing[1:], failing[0]]
    session.set_filter("inspect", state="lost")
    lost = [r.question.id for r in session.rows(False) if r.result.lost]
    session.selected_id = lost[-1]
    assert session.position("inspect", lost[-1]) == len(lost) - 1
    row = session.step_selection("inspect", 1, lambda r: r.failing)
    assert row is not None and row.question.id == lost[0]


def test_size_steps_keep_the_overlap_share() -> None:
    # 200 -> next step 300; overlap 40 is 20% of 200, so 60 of 300.
    assert step_size(OVERLAP_40, 1).chunker == "fixed:size=300,overlap=60"
    # 200 -> previous step 150; 20% of 150 = 30.
    assert step_size(OVERLAP_40, -1).chunker == "fixed:size=150,overlap=30"
    with pytest.raises(StepError):
        step_size(make_config("fixed:size=50"), -1)
    with pytest.raises(StepError):
        step_size(make_config("paragraph"), 1)


def test_overlap_cycles_none_twenty_fifty_percent() -> None:
    # 20% of 200 = 40, 50% = 100, then back to none.
    first = cycle_overlap(FIXED_200)
    assert first.chunker == "fixed:size=200,overlap=40"
    second = cycle_overlap(first)
    assert second.chunker == "fixed:size=200,overlap=100"
    assert cycle_overlap(second).chunker == "fixed:size=200,overlap=0"


def test_delivery_ladders() -> None:
    assert step_top_k(FIXED_200, 1).top_k == 10  # 5 -> 10
    assert step_top_k(FIXED_200, -1).top_k == 3
    assert step_top_k(make_config("fixed:size=200", top_k=7), 1).top_k == 10  # off the ladder: next above
    assert step_top_k(make_config("fixed:size=200", top_k=7), -1).top_k == 5
    assert step_top_k(make_config("fixed:size=200", top_k=20), 1).top_k == 1  # wraps
    assert step_budget(FIXED_200, 1).budget == 200  # no budget -> smallest
    assert step_budget(FIXED_200, -1).budget == 4000  # no budget -> largest
    assert step_budget(make_config("fixed:size=200", budget=4000), 1).budget is None
    assert cycle_overflow(FIXED_200).overflow == "skip"


def test_strategy_cycle_remembers_parameters() -> None:
    remembered: dict[str, str] = {}
    other = cycle_strategy(OVERLAP_40, "chunker", 1, remembered)
    assert not other.chunker.startswith("fixed")
    back = other
    while not back.chunker.startswith("fixed"):
        back = cycle_strategy(back, "chunker", 1, remembered)
    assert back.chunker == "fixed:size=200,overlap=40"
    retriever = cycle_strategy(FIXED_200, "retriever", 1, remembered)
    assert retriever.retriever != FIXED_200.retriever and retriever.chunker == FIXED_200.chunker


def test_request_keeps_the_previous_result_until_the_new_one_arrives(sample: Dataset) -> None:
    session = evaluated(sample)
    before = session.a.shown
    assert session.request("a", OVERLAP_40) is False
    assert session.a.pending and session.a.shown is before and session.a.previous == FIXED_200
    assert session.missing(compare=False) == (OVERLAP_40,)
    session.give_up(OVERLAP_40, "broken")
    assert session.a.requested == FIXED_200 and not session.a.pending
    assert session.request("a", FIXED_200) is True  # cached: shown at once


def test_open_compare_uses_the_previous_configuration_as_a(sample: Dataset) -> None:
    session = evaluated(sample)
    session.request("a", OVERLAP_40)
    session.open_compare()
    assert session.a.requested == FIXED_200
    assert session.b is not None and session.b.requested == OVERLAP_40
    fresh = evaluated(sample)
    fresh.open_compare()  # no history: B is A with the overlap switched on
    assert fresh.b is not None and fresh.b.requested == OVERLAP_40


def test_exports_never_target_inputs(sample: Dataset, tmp_path: Path) -> None:
    session = Session(sample, FIXED_200)
    corpus_dir, questions_file = (Path(source.path) for source in sample.sources)
    assert session.is_input_path(questions_file)
    assert session.is_input_path(corpus_dir / "en" / "refunds.md")
    assert session.is_input_path(corpus_dir / "new-file.md")
    assert not session.is_input_path(tmp_path / "case.md")
