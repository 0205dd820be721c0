"""Answers in the inspector (``inspect --answers``): list marks and a filter per attribution class, the answer
beside the evidence, and answers never attributed to a configuration that did not produce them."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from pilot_helpers import FIXED_200, OVERLAP_40, SIZE, async_test, settle
from rich.text import Text
from textual.command import DiscoveryHit
from textual.widgets import Static

from chunkscope.analysis.answers import ATTRIBUTIONS, AnswerSet, Attribution, attribute, match_answers
from chunkscope.cli import main
from chunkscope.io.answers import load_answers
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.commands import ChunkscopeCommands
from chunkscope.tui.session import Session
from chunkscope.tui.state.answers import InspectorAnswers
from chunkscope.tui.state.case_text import case_file_text, report_renderer
from chunkscope.tui.widgets.answer_lines import answer_text
from chunkscope.tui.widgets.fitted_panel import FittedPanel
from chunkscope.tui.widgets.question_list import QuestionList

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "answers"
SAMPLE_ANSWERS = FIXTURES / "sample-inspector.jsonl"
RULE = "named by the test"

HAND_CLASSES = {
    "q01": "unsupported",  # ✂ lost, answer correct
    "q02": "generation",  # ✓ rank 1, answer wrong
    "q03": "retrieval",  # ✂ lost, answer wrong
    "q05": "unsupported",  # ⧉ in pieces (not complete), matched by its question text, correct
    "q06": "ok",  # ✓ rank 1, correct
    "q10": "retrieval",  # ◐ miss, wrong
    "q11": "generation",  # ✓ rank 2-5, wrong
    "q12": "retrieval",  # ✗ rank 6-20, score 0.2 < 0.5: wrong
    "q14": "ok",  # ✓ rank 1, score 0.9 >= 0.5: correct
    "q39": "unsupported",  # ⧉ in pieces, correct
}
"""sample-inspector.jsonl under fixed:size=200/bm25, by hand: each question's status in the sample tour
(docs/inspector.md) crossed with the file's judgment."""

MARKS = {"ok": "o", "generation": "g", "retrieval": "r", "unsupported": "u"}


def matched(dataset: Dataset, path: Path = SAMPLE_ANSWERS) -> AnswerSet:
    answers, _ = load_answers(path)
    return match_answers(answers, dataset.questions, None)


def oracle(dataset: Dataset, path: Path = SAMPLE_ANSWERS) -> Attribution:
    """The analysis function's attribution, from the same inputs, evaluated apart from the app."""
    result = Evaluator(dataset.corpus, dataset.questions.questions).evaluate(FIXED_200)
    return attribute(result, matched(dataset, path))


def answers_app(dataset: Dataset, path: Path = SAMPLE_ANSWERS, owner: object = FIXED_200) -> ChunkscopeApp:
    answers = InspectorAnswers(matched(dataset, path), owner, RULE)  # type: ignore[arg-type]
    return ChunkscopeApp(Session(dataset, FIXED_200, None, answers))


def listed(app: ChunkscopeApp) -> list[str]:
    return [row.question.id for row in app.screen.query_one(QuestionList).rows]


def list_line(app: ChunkscopeApp, question_id: str) -> str:
    question_list = app.screen.query_one(QuestionList)
    index = next(i for i, row in enumerate(question_list.rows) if row.question.id == question_id)
    question_list.scroll_to(y=index, animate=False, immediate=True)
    y = index - int(question_list.scroll_y)
    return "".join(segment.text for segment in question_list.render_line(y))


def where_text(app: ChunkscopeApp) -> str:
    content = app.screen.query_one("#status-where", Static).content
    assert isinstance(content, Text)
    return content.plain


def panel_text(app: ChunkscopeApp) -> str:
    content = app.screen.query_one("#inspect-answer", FittedPanel).content
    assert isinstance(content, Text)
    return content.plain


def test_the_fixture_meets_every_class_and_the_oracle_agrees_with_the_hand_table(sample: Dataset) -> None:
    attribution = oracle(sample)
    assert {row.question_id: row.attribution for row in attribution.rows} == HAND_CLASSES
    assert set(HAND_CLASSES.values()) == set(ATTRIBUTIONS)


@async_test
async def test_list_marks_each_question_with_its_attribution_class(sample: Dataset) -> None:
    expected = {row.question_id: MARKS[row.attribution] for row in oracle(sample).rows}
    app = answers_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for question in sample.questions.questions:
            line = list_line(app, question.id)
            # " ✂u q01 lost ...": the status glyph, then the answer mark (a space: no answer in the file)
            assert line[2] == expected.get(question.id, " "), line
            assert line[4:].startswith(question.id)
        assert "o ok · g generation · r retrieval · u unsupported" in where_text(app)
        await pilot.press("slash", "q", "0", "4")  # a search listing only an unanswered question keeps the column
        await settle(pilot)
        assert listed(app) == ["q04"] and list_line(app, "q04")[2:].startswith("  q04")


@async_test
async def test_each_answer_filter_lists_exactly_the_questions_of_its_class(sample: Dataset) -> None:
    rows = oracle(sample).rows
    app = answers_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(4):  # from all: failing, lost, cut, incomplete, then the answer classes in report order
            await pilot.press("f")
        for name in ATTRIBUTIONS:
            await pilot.press("f")
            await settle(pilot)
            assert app.session.views["inspect"].filter.state == f"answers {name}"
            assert listed(app) == [row.question_id for row in rows if row.attribution == name], name
        await pilot.press("f")  # the cycle wraps to all
        assert app.session.views["inspect"].filter.state == "all"


@async_test
async def test_the_detail_shows_the_answer_its_judgment_and_attribution(sample: Dataset) -> None:
    app = answers_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = panel_text(app)  # q01, selected first
        assert "u unsupported · evidence not complete, answer correct\n" in text
        assert "“Yes: opened audio items are inspected at the returns centre before a refund is approved.” correct" in (
            " ".join(text.split())
        )
        assert f"no reference answers in the question set · from {SAMPLE_ANSWERS.name}:1" in " ".join(text.split())
        await pilot.press("down", "down", "down")  # q04: the file does not answer it
        await settle(pilot)
        assert panel_text(app).startswith(f"no answer to q04 in {SAMPLE_ANSWERS.name}")
        await pilot.press("down", "down", "down", "down", "down", "down", "down", "down")  # q12, judged by its score
        await settle(pilot)
        text = " ".join(panel_text(app).split())
        assert text.startswith("r retrieval · evidence not complete, answer wrong answer “It is")
        assert "“It is returned to the sender.” wrong (score 0.2)" in text
        assert "Attribution: retrieval (cause LOW-RANK)" in case_file_text(app.session, "q12", False)


@async_test
async def test_under_another_configuration_the_answers_are_said_to_belong_to_theirs(sample: Dataset) -> None:
    app = answers_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")  # overlap 20%: another configuration
        await settle(pilot)
        assert app.session.a.shown is not None and app.session.a.shown.config != FIXED_200
        text = " ".join(panel_text(app).split())
        assert text.startswith(f"answers of {FIXED_200.label} ({RULE}): not attributed to the shown configuration")
        assert not any(name in text for name in ("unsupported", "generation", "retrieval", "ok ·"))
        assert "correct" in text  # the answer's own judgment stays: it is the file's, not an attribution
        assert list_line(app, "q01")[2:].startswith(" q01")  # no mark column
        assert all(row.answer is None for row in app.session.rows(False))
        for _ in range(5):  # failing ... incomplete, and no answer filter follows: back to all
            await pilot.press("f")
        assert app.session.views["inspect"].filter.state == "all"
        assert f"answers of {FIXED_200.label} (not attributed here)" in where_text(app)
        assert "answer to" not in case_file_text(app.session, "q01", False)  # the case file attributes nothing
        await pilot.press("p")  # back to the answers' configuration: the marks return
        await settle(pilot)
        assert list_line(app, "q01")[2] == "u"


def test_an_export_never_replaces_the_answers_file(sample: Dataset) -> None:
    answers = InspectorAnswers(matched(sample), FIXED_200, RULE)
    assert Session(sample, FIXED_200, None, answers).is_input_path(SAMPLE_ANSWERS)
    assert not Session(sample, FIXED_200).is_input_path(SAMPLE_ANSWERS)


def test_references_of_the_question_set_are_quoted(sample: Dataset) -> None:
    question = replace(sample.questions.questions[0], references=("30 days", "a month"))
    answers = InspectorAnswers(matched(sample), FIXED_200, RULE)
    text = answer_text(question, FIXED_200, answers, None).plain
    assert "references “30 days” · “a month”" in text


# ---------------------------------------------------------------- the command


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[ChunkscopeApp]:
    """Apps that ``run()`` would have started (not started: no terminal in tests)."""
    apps: list[ChunkscopeApp] = []
    monkeypatch.setattr(ChunkscopeApp, "run", lambda self, *a, **k: apps.append(self))
    return apps


def test_inspect_answers_belong_to_the_configuration_named(
    started: list[ChunkscopeApp], capsys: pytest.CaptureFixture[str]
) -> None:
    plain = str(FIXTURES / "plain.jsonl")
    assert main(["--answers", plain]) == 0  # bare chunkscope takes the inspector's options
    answers = started[-1].session.answers
    assert answers is not None and answers.config == FIXED_200 and answers.rule == "the only configuration"
    assert sorted(answers.answers.judgments) == ["q01", "q02", "q03", "q05"]
    err = capsys.readouterr().err
    assert f"answers {plain}: 4 of 40 questions answered, belonging to {FIXED_200.label}" in err
    assert f"1 unmatched rows (first: {plain}:5)" in err
    overlap = "fixed:size=200,overlap=40"
    assert main(["inspect", "--answers", plain, "--compare", overlap, "--answers-config", "2"]) == 0
    answers = started[-1].session.answers
    assert answers is not None and answers.config == make_config(overlap)
    assert answers.rule == "named by --answers-config 2"
    scores = str(FIXTURES / "plain-scores.csv")
    assert main(["inspect", "--answers", scores, "--answer-threshold", "0.6"]) == 0
    answers = started[-1].session.answers
    assert answers is not None
    assert {q: j.correct for q, j in answers.answers.judgments.items()} == {"q01": True, "q02": False, "q03": False}


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--answers", "A", "--answers", "A"], "--answers is given 2 times; at most 1"),
        (["--answers-config", "1"], "--answers-config names the configuration of an --answers file"),
        (["--answers", "A", "--answers-config", "3"], "--answers-config '3' names no evaluated configuration"),
        (["--answers", "missing.jsonl"], "missing.jsonl: no such file"),
    ],
)
def test_bad_answer_options_are_one_line_and_exit_2(
    argv: list[str], says: str, started: list[ChunkscopeApp], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(FIXTURES / "plain.jsonl") if word == "A" else word for word in argv]
    assert main(["inspect", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and "Traceback" not in err, err
    assert not started


def test_the_inspector_takes_no_reader(capsys: pytest.CaptureFixture[str]) -> None:
    # answers come from a file: a reader would generate them again for every configuration the keys reach
    with pytest.raises(SystemExit) as stopped:
        main(["inspect", "--answers", str(FIXTURES / "plain.jsonl"), "--reader", "python:m:f"])
    assert stopped.value.code == 2
    assert "unrecognized arguments: --reader python:m:f" in capsys.readouterr().err


# ---------------------------------------------------------------- the split view


def compare_panel_text(app: ChunkscopeApp) -> str:
    content = app.screen.query_one("#compare-question", FittedPanel).content
    assert isinstance(content, Text)
    return " ".join(content.plain.split())


@async_test
async def test_the_split_view_gives_the_answer_to_the_side_that_produced_it(sample: Dataset) -> None:
    answers = InspectorAnswers(matched(sample), FIXED_200, RULE)
    app = ChunkscopeApp(Session(sample, OVERLAP_40, FIXED_200, answers), open_compare=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = compare_panel_text(app)  # q01: unsupported under B, the answers' configuration
        assert text.endswith(
            "B answer “Yes: opened audio items are inspected at the returns centre before a refund "
            "is approved.” correct · u unsupported"
        ), text
        assert "A answer" not in text


@async_test
async def test_the_split_view_attributes_nothing_when_neither_side_produced_the_answers(sample: Dataset) -> None:
    answers = InspectorAnswers(matched(sample), FIXED_200, RULE)
    app = ChunkscopeApp(Session(sample, OVERLAP_40, make_config("fixed:size=400"), answers), open_compare=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = compare_panel_text(app)
        assert f"answers of {FIXED_200.label}, neither A nor B: not attributed here" in text
        assert not any(f" · {mark} " in text for mark in MARKS.values()) and "unsupported" not in text
        assert "A answer" not in text and "B answer" not in text


# ---------------------------------------------------------------- the summary


@async_test
async def test_the_summary_counts_the_classes_as_the_eval_report_does(sample: Dataset) -> None:
    # the oracle: eval's JSON report on the same answers file (the answers belong to its only configuration)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", "--answers", str(SAMPLE_ANSWERS), "--json", "-"]) == 0
    block = json.loads(out.getvalue())["configs"][0]["answers"]["answers"]
    app = answers_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        content = app.screen.query_one("#summary-answers", Static).content
        text = " ".join(str(content).split())
        counts = " · ".join(f"{name} {block['attribution'][name]}" for name in ATTRIBUTIONS)
        assert f"answers ({RULE}): {counts} · unanswered {block['unanswered']}" in text
        agreement = block["agreement"]
        assert f"agreement {agreement['value']:.3f} [{agreement['low']:.3f}, {agreement['high']:.3f}]" in text
        await pilot.press("escape", "o", "s")  # another configuration: nothing attributed
        await settle(pilot)
        text = " ".join(str(app.screen.query_one("#summary-answers", Static).content).split())
        assert text == f"answers of {FIXED_200.label} ({RULE}): not attributed to the shown configuration"


@async_test
async def test_the_exported_report_carries_the_answers_as_eval_reports_them(sample: Dataset) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["eval", "--answers", str(SAMPLE_ANSWERS), "--json", "-"]) == 0
    expected = json.loads(out.getvalue())["configs"][0]
    app = answers_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        exported = json.loads(report_renderer(app.session, False)())["configs"][0]
        assert exported["answers"]["answers"]["attribution"] == expected["answers"]["answers"]["attribution"]
        assert exported["answers"]["answers"]["why_this_configuration"] == RULE
        by_id = {q["id"]: q for q in expected["questions"]}
        for question in exported["questions"]:
            assert question["answer_attribution"] == by_id[question["id"]]["answer_attribution"]
        await pilot.press("o")  # another configuration: the export attributes nothing to it
        await settle(pilot)
        exported = json.loads(report_renderer(app.session, False)())["configs"][0]
        assert "answers" not in exported and "answer_attribution" not in exported["questions"][0]


@async_test
async def test_the_palette_offers_each_answer_filter_under_the_answers_configuration_only(sample: Dataset) -> None:
    app = answers_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        async def titles() -> dict[str, DiscoveryHit]:
            commands = ChunkscopeCommands(app.screen)
            return {hit.text: hit async for hit in commands.discover() if isinstance(hit, DiscoveryHit)}

        hits = await titles()
        hits["Filter: show answers unsupported"].command()
        await settle(pilot)
        assert listed(app) == [qid for qid, name in HAND_CLASSES.items() if name == "unsupported"]
        await pilot.press("escape", "o")
        await settle(pilot)
        assert not any(title.startswith("Filter: show answers") for title in await titles())


def test_an_answers_file_matching_no_question_is_one_line_and_exit_2(
    tmp_path: Path, started: list[ChunkscopeApp], capsys: pytest.CaptureFixture[str]
) -> None:
    answers = tmp_path / "answers.jsonl"
    answers.write_text('{"id": "nope", "answer": "x", "correct": true}\n', encoding="utf-8")
    assert main(["inspect", "--answers", str(answers)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert str(answers) in err and "no row matches a question of the set" in err
    assert not started
