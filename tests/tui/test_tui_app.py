"""Pilot tests: the real inspector on the bundled sample data."""

from __future__ import annotations

import hashlib
import io
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from pilot_helpers import FIXED_200, OVERLAP_40, SIZE, async_test, make_app, settle
from rich.cells import cell_len
from rich.console import Console
from textual.app import ScreenStackError
from textual.widgets import Static

from chunkscope.analysis.compare import STATES
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.eval import eval_report, to_json
from chunkscope.results import Config, ConfigResult
from chunkscope.tui.app import INDEXES_KEPT, PROGRESS_INTERVAL_S, ChunkscopeApp
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.config_form import ConfigForm
from chunkscope.tui.screens.export import ExportDialog
from chunkscope.tui.screens.help import HelpScreen
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.screens.summary import SummaryScreen
from chunkscope.tui.widgets.config_bar import ConfigBar
from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.question_list import QuestionList
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
from chunkscope.tui.widgets.summary_widgets import MetricsTable, TransitionMatrix


def core_result(sample: Dataset, config: Config) -> ConfigResult:
    """The core's own evaluation, independent of the app's evaluator."""
    return Evaluator(sample.corpus, sample.questions.questions).evaluate(config)


def header(app: ChunkscopeApp) -> str:
    return str(app.screen.query_one(ConfigBar).render())


def listed(app: ChunkscopeApp) -> list[str]:
    return [row.question.id for row in app.screen.query_one(QuestionList).rows]


def selected(app: ChunkscopeApp) -> str | None:
    row = app.screen.query_one(QuestionList).current
    return row.question.id if row else None


def record_notifications(app: ChunkscopeApp) -> list[str]:
    messages: list[str] = []

    def notify(message: str, **_: Any) -> None:
        messages.append(message)

    app.notify = notify  # type: ignore[method-assign]
    return messages


@async_test
async def test_first_screen_shows_the_core_numbers(sample: Dataset) -> None:
    expected = core_result(sample, FIXED_200).summary
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, InspectScreen)
        text = header(app)
        assert "sample data · 40 questions" in text
        assert "fixed:size=200/bm25 · top-5 · no budget" in text
        assert f"R@5 {expected['recall_at_5']:.3f}" in text
        assert f"lost {expected['lost']}" in text
        assert f"complete {expected['complete']}/40" in text
        assert listed(app) == [q.id for q in sample.questions.questions]
        assert selected(app) == "q01"


@async_test
async def test_navigation_updates_ranked_chunks_and_document(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("down", "down")
        assert selected(app) == "q03"
        assert "q03" in str(app.screen.query_one(RankedChunksView).border_title)
        # q03's gold is in en/refunds.md, so the document view shows that document.
        document = app.screen.query_one(DocumentView).document
        assert document is not None and document.id == "en/refunds.md"
        await pilot.press("end")
        assert selected(app) == "q40"
        await pilot.press("home")
        assert selected(app) == "q01"


@async_test
async def test_filters_cycle_and_count_like_the_core(sample: Dataset) -> None:
    result = core_result(sample, FIXED_200)
    failing = [q.question_id for q in result.questions if not q.complete]
    lost = [q.question_id for q in result.questions if q.lost]
    cut = [q.question_id for q in result.questions if q.cuts]
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f")
        assert listed(app) == failing
        await pilot.press("f")
        assert listed(app) == lost
        await pilot.press("f")
        assert listed(app) == cut
        await pilot.press("f")
        assert listed(app) == [q for q in failing if q not in lost]
        await pilot.press("f")
        assert len(listed(app)) == 40
        await pilot.press("F")  # first cause present: CUT, the lost questions
        assert listed(app) == lost
        await pilot.press("escape")
        assert len(listed(app)) == 40


@async_test
async def test_search_by_id_and_text(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"q39")
        assert listed(app) == ["q39"]
        await pilot.press("enter")
        assert isinstance(app.focused, QuestionList)
        assert selected(app) == "q39"
        await pilot.press("escape")
        assert len(listed(app)) == 40
        await pilot.press("slash", *"webhook")
        assert listed(app) == [q.id for q in sample.questions.questions if "webhook" in q.query.lower()]


@async_test
async def test_next_failing_keeps_the_focus_in_the_current_pane(sample: Dataset) -> None:
    result = core_result(sample, FIXED_200)
    failing = [q.question_id for q in result.questions if not q.complete]
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ranked = app.screen.query_one(RankedChunksView)
        ranked.focus()
        await pilot.pause()
        await pilot.press("n")
        assert selected(app) == failing[1]  # q01 (failing) is selected at start
        await pilot.press("n")
        assert selected(app) == failing[2]
        await pilot.press("N", "N", "N")
        assert selected(app) == failing[-1]  # wraps around
        assert app.focused is ranked


@async_test
async def test_live_configuration_changes_the_results(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)
        after = core_result(sample, OVERLAP_40).summary
        assert app.session.a.shown is not None and app.session.a.shown.config == OVERLAP_40
        assert "fixed:size=200,overlap=40/bm25" in header(app)
        assert f"lost {after['lost']}" in header(app)
        assert f"R@5 {after['recall_at_5']:.3f}" in header(app)
        # The list moved with it: q39, cut at 400 under fixed:size=200, now survives.
        q39 = next(row for row in app.screen.query_one(QuestionList).rows if row.question.id == "q39")
        assert not q39.result.lost
        steps: list[tuple[str, Config]] = [
            ("plus", make_config("fixed:size=300,overlap=60")),
            ("minus", OVERLAP_40),
            ("k", make_config("fixed:size=200,overlap=40", top_k=10)),
            ("b", make_config("fixed:size=200,overlap=40", top_k=10, budget=200)),
            ("O", make_config("fixed:size=200,overlap=40", top_k=10, budget=200, overflow="skip")),
        ]
        for key, config in steps:
            await pilot.press(key)
            await settle(pilot)
            assert app.session.a.shown is not None and app.session.a.shown.config == config, key
            assert f"complete {core_result(sample, config).summary['complete']}/40" in header(app), key
        await pilot.press("p")  # back to the configuration before the last change: instant, cached
        await pilot.pause()
        assert app.session.a.shown is not None and app.session.a.shown.config == steps[-2][1]


@async_test
async def test_chunker_cycle_keeps_parameters(sample: Dataset) -> None:
    app = make_app(sample, OVERLAP_40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")
        await settle(pilot)
        assert app.session.a.requested.chunker.split(":")[0] != "fixed"
        await pilot.press("C")
        await settle(pilot)
        assert app.session.a.shown is not None and app.session.a.shown.config == OVERLAP_40


@async_test
async def test_recomputation_runs_in_a_worker_and_input_stays_responsive(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        evaluator = app.session.evaluator
        release = threading.Event()
        original = evaluator.evaluate

        def slow(config: Config, progress: Any = None, cancelled: Any = None) -> ConfigResult:
            if config == OVERLAP_40:
                release.wait(10)
            return original(config, progress, cancelled)

        monkeypatch.setattr(evaluator, "evaluate", slow)
        await pilot.press("o")
        await pilot.pause()
        # Still computing: the old results stay, the header marks the pending configuration ...
        assert app.session.a.pending
        assert "⟳ fixed:size=200,overlap=40/bm25" in header(app)
        # ... and keys are handled meanwhile.
        await pilot.press("down", "down", "f")
        assert selected(app) is not None and len(listed(app)) < 40
        release.set()
        await settle(pilot)
        assert not app.session.a.pending
        assert "⟳" not in header(app)


@async_test
async def test_a_failed_evaluation_is_reported_and_reverted(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notes = record_notifications(app)
        original = app.session.evaluator.evaluate

        def failing(config: Config, progress: Any = None, cancelled: Any = None) -> ConfigResult:
            if config == OVERLAP_40:
                raise ChunkscopeError("overlap broke on purpose")
            return original(config, progress, cancelled)

        monkeypatch.setattr(app.session.evaluator, "evaluate", failing)
        await pilot.press("o")
        await settle(pilot)
        assert any("overlap broke on purpose" in note for note in notes)
        assert app.session.a.requested == FIXED_200 and not app.session.a.pending


@async_test
async def test_config_form_validates_and_applies(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, ConfigForm)
        chunker = form.query_one("#config-form-chunker")
        chunker.value = "fixed:size=abc"  # type: ignore[attr-defined]
        await pilot.pause()
        message = str(form.query_one("#config-form-message").render())
        assert "'fixed' parameter 'size' must be int, got 'abc'" in message
        chunker.value = "fixed:size=400,overlap=80"  # type: ignore[attr-defined]
        form.query_one("#config-form-budget").value = "1200"  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, InspectScreen)
        expected = make_config("fixed:size=400,overlap=80", budget=1200)
        assert app.session.a.shown is not None and app.session.a.shown.config == expected
        assert "budget 1200 (stop)" in header(app)


@async_test
async def test_compare_shows_movement_and_filters_on_it(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("o", "v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CompareScreen)
        assert app.session.a.requested == FIXED_200 and app.session.b is not None
        assert app.session.b.requested == OVERLAP_40
        comparison = app.session.comparison()
        assert comparison is not None
        text = header(app)
        assert "A  fixed:size=200/bm25" in text and "B  fixed:size=200,overlap=40/bm25" in text
        # f cycles all, failing, lost, cut, incomplete, moved, better, worse, recovered.
        await pilot.press(*["f"] * 8)
        assert app.session.views["compare"].filter.state == "recovered"
        recovered = [m.question_id for m in comparison.moves if m.recovered]
        assert listed(app) == recovered and "q39" in recovered
        await pilot.press("slash", *"q39", "enter")
        assert selected(app) == "q39"
        documents = screen.query(DocumentView)
        assert [d.document.id for d in documents if d.document] == ["ja/rx200-torisetsu.md"] * 2
        ranked_a, ranked_b = screen.query(RankedChunksView)
        assert "q39" in str(ranked_a.border_title) and "q39" in str(ranked_b.border_title)
        await pilot.press("v")
        assert isinstance(app.screen, InspectScreen)


@async_test
async def test_compare_documents_scroll_in_step(sample: Dataset) -> None:
    app = make_app(sample, FIXED_200, OVERLAP_40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, CompareScreen)
        left, right = app.screen.query(DocumentView)
        left.focus()
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert left.scroll_offset.y > 0
        # The right view follows by text position: its top line starts where the left one's does.
        assert abs(right.top_offset() - left.top_offset()) < 120


@async_test
async def test_config_keys_change_b_in_the_split_view_and_t_switches(sample: Dataset) -> None:
    app = make_app(sample, FIXED_200, OVERLAP_40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("k")
        await settle(pilot)
        assert app.session.b is not None and app.session.b.requested.top_k == 10
        assert app.session.a.requested == FIXED_200
        await pilot.press("t", "k")
        await settle(pilot)
        assert app.session.a.requested.top_k == 10
        comparison = app.session.comparison()
        assert comparison is not None and comparison.a.top_k == 10 and comparison.b.top_k == 10


@async_test
async def test_summary_transition_cell_filters_the_list(sample: Dataset) -> None:
    app = make_app(sample, FIXED_200, OVERLAP_40)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        # The matrix has focus at once (no Tab needed); the cursor starts on (1, 1):
        # "lost" is the sixth row, "2-5" the second column.
        assert summary.focused is summary.query_one(TransitionMatrix)
        await pilot.press(*["down"] * STATES.index("lost"), "right", "enter")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        comparison = app.session.comparison()
        assert comparison is not None
        count = comparison.transitions[STATES.index("lost")][STATES.index("2-5")]
        assert len(listed(app)) == count > 0
        assert all(
            row.move is not None and (row.move.state_a, row.move.state_b) == ("lost", "2-5")
            for row in app.screen.query_one(QuestionList).rows
        )


@async_test
async def test_single_summary_and_help(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        diagnosis = str(app.screen.query_one("#summary-diagnosis").render())
        assert "look first at chunking" in diagnosis
        await pilot.press("escape", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(app.screen.key_table())
        keys = console.export_text()
        for binding_id in ("question.next-failing", "config.overlap", "view.compare", "compare.side", "app.quit"):
            assert binding_id in keys
        await pilot.press("escape")
        assert isinstance(app.screen, InspectScreen)


@async_test
async def test_export_case_file_and_report(sample: Dataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash", *"q39", "enter", "x")
        await pilot.pause()
        assert isinstance(app.screen, ExportDialog)
        await pilot.press("enter")  # the case file path is focused, with its default name
        await settle(pilot)
        case = (tmp_path / "case-q39.md").read_text(encoding="utf-8")
        assert case.startswith("# Case q39: ")
        assert "低温時バッテ✂リー保護機能" in case
        await pilot.press("x")
        await pilot.pause()
        await pilot.click("#export-report")
        await settle(pilot)
        written = json.loads((tmp_path / "chunkscope-report.json").read_text(encoding="utf-8"))
        assert written == json.loads(to_json(eval_report(sample, [core_result(sample, FIXED_200)])))


@async_test
async def test_export_refuses_input_files(sample: Dataset) -> None:
    questions = Path(sample.sources[1].path)
    before = hashlib.sha256(questions.read_bytes()).hexdigest()
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        notes = record_notifications(app)
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#export-report-path").value = str(questions)  # type: ignore[attr-defined]
        await pilot.click("#export-report")
        await settle(pilot)
        assert isinstance(app.screen, ExportDialog)  # still open, nothing written
        assert any("refusing to write" in note for note in notes)
    assert hashlib.sha256(questions.read_bytes()).hexdigest() == before


@async_test
async def test_command_palette_runs_actions(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p", *"config: overlap")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot)
        assert app.session.a.shown is not None and app.session.a.shown.config == OVERLAP_40
        await pilot.press("ctrl+p", *"go to q28")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert selected(app) == "q28"


@async_test
async def test_mouse_click_selects_a_question(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.click(QuestionList, offset=(5, 4))
        assert selected(app) == "q05"


@async_test
async def test_keys_can_be_remapped_by_binding_id(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKSCOPE_KEYMAP", "question.next-failing=j;config.overlap=ctrl+o,alt+o")
    failing = [q.question_id for q in core_result(sample, FIXED_200).questions if not q.complete]
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j")
        assert selected(app) == failing[1]
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert app.session.a.shown is not None and app.session.a.shown.config == OVERLAP_40
        # The help lists the keys as remapped, not the defaults (n for the next failing question did nothing).
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        rows = {row[3]: row[1] for row in help_rows(app.screen)}
        assert rows["question.next-failing"] == "j"
        assert rows["config.overlap"] == "^o, alt+o"


@async_test
async def test_theme_picker_opens(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("T")
        await pilot.pause()
        assert type(app.screen).__name__ == "CommandPalette"


@async_test
async def test_question_list_aligns_japanese_by_terminal_cells(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        question_list = app.screen.query_one(QuestionList)
        width = question_list.scrollable_content_region.width
        lines = {row.question.id: question_list.render_line(i).text for i, row in enumerate(question_list.rows[:30])}
        # Every line fills the pane exactly, whatever the mix of one- and two-cell characters.
        assert {cell_len(text) for text in lines.values()} == {width}
        # The query column starts at the same cell for an English and a Japanese query, and the Japanese
        # query (two cells per character) is cut with an ellipsis to fit the cells left, not the characters.
        english, japanese = lines["q01"], lines["q28"]
        assert cell_len(english[: english.index("Can opened")]) == cell_len(japanese[: japanese.index("開封した")])
        assert "…" in japanese and len(japanese) < width


@async_test
async def test_a_failing_first_configuration_says_why(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(sample)

    def failing(config: Config, progress: Any = None, cancelled: Any = None) -> ConfigResult:
        raise ChunkscopeError("the dense retriever needs its extra")

    monkeypatch.setattr(app.session.evaluator, "evaluate", failing)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = str(app.screen.query_one("#inspect-question").render())
        assert "Could not evaluate fixed:size=200/bm25: the dense retriever needs its extra" in panel
        assert not app.session.a.pending and "⟳" not in header(app)


@async_test
async def test_no_color_keeps_every_glyph(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.no_color
        for key in ("f", "f", "N", "o", "v", "s", "escape", "x", "escape"):
            await pilot.press(key)
            await settle(pilot)  # every screen rendered through the monochrome filter without error
        assert isinstance(app.screen, CompareScreen)
        question_list = app.screen.query_one(QuestionList)
        top = int(question_list.scroll_y)  # render_line takes rows of the visible window
        for y, row in enumerate(question_list.rows[top : top + 20]):
            assert row.status_b is not None
            assert question_list.render_line(y).text.startswith(f" {row.status.glyph}{row.status_b.glyph} ")


@async_test
async def test_choosing_a_gold_finding_selects_its_question() -> None:
    from pathlib import Path

    from textual.widgets import OptionList

    from chunkscope.io.dataset import load_dataset
    from chunkscope.io.quotes import parse_match_policy
    from chunkscope.pipeline.config import make_config
    from chunkscope.tui.screens.gold import GoldScreen

    gold = Path(__file__).resolve().parents[1] / "fixtures" / "gold"
    dataset = load_dataset(gold / "corpus", gold / "fixable.jsonl", gold_match=parse_match_policy("fuzzy"))
    app = make_app(dataset, make_config("fixed:size=120"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GoldScreen)
        findings = screen.check.findings
        target = next(i for i, finding in enumerate(findings) if finding.question != app.session.selected_id)
        screen.query_one(OptionList).highlighted = target
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, GoldScreen)
        assert app.session.selected_id == findings[target].question


@async_test
async def test_the_inspector_keeps_a_few_indexes_and_every_result(sample: Dataset) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        visited = [app.session.a.requested]
        for _ in range(INDEXES_KEPT + 2):  # each + a chunk size not seen before: a new chunking and index
            await pilot.press("plus")
            await settle(pilot)
            visited.append(app.session.a.requested)
        evaluator = app.session.evaluator
        assert len(set(visited)) == INDEXES_KEPT + 3
        assert len(evaluator.held_indexes) == INDEXES_KEPT
        assert evaluator.held_indexes[-1] == (visited[-1].chunker, visited[-1].retriever)
        assert all(evaluator.cached(config) is not None for config in visited)
        await pilot.press("p")  # back to a configuration whose index was dropped: shown from the cache
        await pilot.pause()
        assert not app.session.evaluating
        assert app.session.a.shown is not None and app.session.a.shown.config == visited[-2]


@async_test
async def test_on_a_large_corpus_the_inspector_keeps_only_the_indexes_that_fit_its_memory_budget(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A budget smaller than one sample index plays a corpus whose every index is larger than the budget.
    monkeypatch.setattr("chunkscope.tui.app.INDEX_BYTES_KEPT", 1)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        visited = [app.session.a.requested]
        for _ in range(2):
            await pilot.press("plus")
            await settle(pilot)
            visited.append(app.session.a.requested)
        evaluator = app.session.evaluator
        assert evaluator.held_indexes == ((visited[-1].chunker, visited[-1].retriever),)
        assert all(evaluator.cached(config) is not None for config in visited)


@async_test
async def test_a_burst_of_progress_reports_is_shown_a_few_times_ending_on_the_latest(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        evaluator = app.session.evaluator
        reported, release = threading.Event(), threading.Event()
        original = evaluator.evaluate

        def bursty(config: Config, progress: Any = None, cancelled: Any = None) -> ConfigResult:
            if config == OVERLAP_40 and progress is not None:
                for done in range(50):
                    progress("measuring", done, 50)
                reported.set()
                release.wait(10)
            return original(config, progress, cancelled)

        monkeypatch.setattr(evaluator, "evaluate", bursty)
        screen = app.screen
        synced: list[str] = []
        sync_status = screen.sync_status

        def counted() -> None:
            synced.append(app.session.progress)
            sync_status()

        monkeypatch.setattr(screen, "sync_status", counted)
        await pilot.press("o")
        assert reported.wait(10)
        await pilot.pause(PROGRESS_INTERVAL_S * 3)
        label = str(screen.query_one("#status-progress", Static).render())
        release.set()
        await settle(pilot)
    assert "measuring 49/50" in label
    # 50 reports of the burst; the evaluation's own reports after it are shown too, and not counted here.
    assert len([shown for shown in synced if shown.endswith("/50")]) < 10


def test_progress_shown_after_the_screens_are_gone_is_dropped(sample: Dataset) -> None:
    # The throttled progress timer can fire while the app closes, when no screen is left to show it on.
    app = make_app(sample)
    with pytest.raises(ScreenStackError):
        _ = app.screen
    app._show_progress()
    assert app._progress_due is None


@async_test
async def test_configuration_keys_handled_before_the_app_applies_them_all_count(sample: Dataset) -> None:
    # Keys typed together (one terminal write) are handled before the app has applied the first one's
    # ConfigRequested: each must step from the one before, not from what the session held.
    app = make_app(sample, FIXED_200)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, InspectScreen)
        start = app.session.a.requested
        assert start.top_k == 5 and start.budget is None
        screen.action_config("top_k", 1)  # 5 -> 10
        screen.action_config("top_k", 1)  # 10 -> 20
        screen.action_config("top_k", -1)  # 20 -> 10
        screen.action_config("budget", 1)  # none -> the smallest budget
        assert app.session.a.requested == start  # nothing applied yet
        await settle(pilot)
        done = app.session.a.requested
        assert done.top_k == 10
        assert done.budget is not None
        # A configuration no key posted (here the previous one, as `u` asks) starts the steps afresh.
        app.session.request("a", start)
        screen.action_config("top_k", 1)
        await settle(pilot)
        assert app.session.a.requested.top_k == 10 and app.session.a.requested.budget is None


@pytest.mark.parametrize(("size", "stacked"), [((80, 24), True), ((120, 40), True), ((200, 50), False)])
@async_test
async def test_summary_tables_never_wrap(sample: Dataset, size: tuple[int, int], stacked: bool) -> None:
    # The split view's metrics table with its tests is about 80 cells wide and the matrix 70: side by side with
    # the charts (3/5 of the width) they wrapped every row at 80 and at 120 columns; stacked they fit.
    app = make_app(sample, FIXED_200, OVERLAP_40)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await pilot.pause()
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, SummaryScreen)
        assert summary.has_class("-stacked") is stacked
        for table in (summary.query_one("#summary-metrics", MetricsTable), summary.query_one(TransitionMatrix)):
            lines = table.render().plain.splitlines()
            assert lines and max(cell_len(line) for line in lines) <= table.content_size.width, lines


@async_test
async def test_a_search_that_matches_nothing_empties_the_panes_and_owns_plus_and_minus(sample: Dataset) -> None:
    app = make_app(sample, FIXED_200)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        ranked = app.screen.query_one(RankedChunksView)
        document = app.screen.query_one(DocumentView)
        assert ranked.built_hits > 0 and document.document is not None
        assert "plus" in app.screen.active_bindings  # + changes the chunk size while the list has focus
        await pilot.press("slash", *"zz")
        await settle(pilot)
        # The box has focus: + and - would type into it, so the footer must not offer them (Textual knows
        # no character for "plus" and "minus" and kept them, while it dropped the letters).
        assert "plus" not in app.screen.active_bindings and "minus" not in app.screen.active_bindings
        assert "n" not in app.screen.active_bindings
        assert app.session.visible_rows("inspect") == ()
        # No question is listed: the panes no longer show the one selected before the search.
        assert ranked.built_hits == 0 and ranked.border_title == "Ranked chunks"
        assert document.document is None


@async_test
async def test_the_selection_stays_in_view_when_a_filter_is_cleared(sample: Dataset) -> None:
    # "lost" lists 17 questions, which fit the list unscrolled; back to all 40 with q39 selected, the list must
    # scroll to it once its new height is laid out (the scroll stopped at the old end, 0, before).
    app = make_app(sample, FIXED_200)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f", "f", "end")
        await settle(pilot)
        selected = app.session.selected_id
        await pilot.press("escape")
        await settle(pilot)
        questions = app.screen.query_one(QuestionList)
        assert len(questions.rows) == 40 and app.session.selected_id == selected
        top = int(questions.scroll_offset.y)
        assert top <= questions.cursor < top + questions.size.height, (top, questions.cursor)


def help_rows(screen: HelpScreen) -> list[tuple[str, ...]]:
    """The help's key table as plain cells (where, key, does, id), one tuple per row."""
    table = screen.key_table()
    columns = [[str(cell) for cell in column.cells] for column in table.columns]
    return list(zip(*columns, strict=True))
