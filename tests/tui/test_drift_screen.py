"""The drift screen (chunkscope drift --inspect) shows the drift analysis's values, queries moved most first.

Oracle: the drift computed in the test by the analysis (``measure_drift``), its order and ranks derived here by
brute force over its values, compared with the text the screen shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from drift_helpers import A, B, drift_app, sample_drift, write_log
from pilot_helpers import async_test
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from chunkscope.analysis import drift as drift_analysis
from chunkscope.analysis.drift import Drift, QueryDrift
from chunkscope.cli import main
from chunkscope.tui.drift_app import DriftApp
from chunkscope.tui.screens.drift import DriftInput, DriftScreen
from chunkscope.tui.screens.help import HelpScreen

SIZE = (200, 50)


def static_text(screen: DriftScreen, selector: str) -> str:
    widget = screen.query_one(selector, Static)
    return str(widget.render())


def list_rows(screen: DriftScreen) -> list[str]:
    queries = screen.query_one("#drift-queries", OptionList)
    return [str(queries.get_option_at_index(i).prompt) for i in range(queries.option_count)]


def ranking_rows(screen: DriftScreen, side: str) -> list[tuple[int, str, str]]:
    """(rank, item, mark) of each line of one side's ranking pane."""
    rows = []
    for line in static_text(screen, f"#drift-{side}-items").splitlines():
        rank, item, *mark = line.split()
        rows.append((int(rank), item, " ".join(mark)))
    return rows


def expected_mark(rank: int, item: str, other: tuple[str, ...], side: str) -> str:
    """Where ``item`` sits in the other ranking, by the definitions in docs/inspector.md."""
    other_side = "B" if side == "a" else "A"
    if item not in other:
        return f"{'−' if side == 'a' else '+'} not in {other_side}"
    other_rank = other.index(item) + 1
    rank_b = other_rank if side == "a" else rank
    rank_a = rank if side == "a" else other_rank
    arrow = "=" if rank_a == rank_b else ("▲" if rank_b < rank_a else "▼")
    return f"{other_side} #{other_rank} {arrow}"


def same_item(shown: str, item: str) -> bool:
    """``shown`` is ``item``, or its start cut with an ellipsis to fit a narrow pane."""
    return shown == item or (shown.endswith("…") and item.startswith(shown[:-1]))


def check_shows(screen: DriftScreen, query: QueryDrift, row: int, count: int) -> None:
    """The selected pane and both rankings show ``query``'s values."""
    selected = static_text(screen, "#drift-selected")
    assert f"line {query.line}  {query.query}" in selected
    assert f"RBO {query.rbo:.4f}" in selected
    if query.top1_changed:
        assert f"≠ top-1 changed: {query.first[0]} → {query.second[0]}" in selected
    else:
        assert f"= top-1 same: {query.first[0]}" in selected
    assert f"row {row + 1} of {count}" in selected
    for side, items, other in (("a", query.first, query.second), ("b", query.second, query.first)):
        shown = ranking_rows(screen, side)
        # No gold marks: the items, in rank order.
        assert len(shown) == len(items) and all(same_item(s, i) for (_, s, _), i in zip(shown, items, strict=True))
        assert [rank for rank, _, _ in shown] == list(range(1, len(items) + 1))
        assert [mark for _, _, mark in shown] == [
            expected_mark(rank, item, other, side) for rank, item in enumerate(items, 1)
        ]


async def ordered(pilot: Pilot[None]) -> DriftScreen:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    screen = pilot.app.screen
    assert isinstance(screen, DriftScreen)
    return screen


@pytest.fixture(scope="module")
def drift(tmp_path_factory: pytest.TempPathFactory) -> Drift:
    return sample_drift(tmp_path_factory.mktemp("drift"))


@async_test
async def test_queries_moved_most_first_each_with_its_rankings_rbo_and_top1(
    drift: Drift, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The screen reads the values: computing an RBO while it runs would fail.
    monkeypatch.setattr(drift_analysis, "rbo_ext", lambda *args, **kwargs: pytest.fail("the screen recomputed RBO"))
    moved_first = sorted(drift.queries, key=lambda query: (query.rbo, query.line))
    assert len({query.rbo for query in drift.queries}) > 3 and any(q.top1_changed for q in drift.queries)
    async with drift_app(drift).run_test(size=SIZE) as pilot:
        screen = await ordered(pilot)
        rows = list_rows(screen)
        assert [row.split()[2] for row in rows] == [f"l{query.line}" for query in moved_first]
        assert [row.split()[1] for row in rows] == [f"{query.rbo:.4f}" for query in moved_first]
        assert [row.split()[0] for row in rows] == ["≠" if q.top1_changed else "=" for q in moved_first]
        check_shows(screen, moved_first[0], 0, len(drift.queries))
        for row in (1, 2):
            await pilot.press("j")
            check_shows(screen, moved_first[row], row, len(drift.queries))
        await pilot.press("k")
        check_shows(screen, moved_first[1], 1, len(drift.queries))
        await pilot.press("end")
        check_shows(screen, moved_first[-1], len(moved_first) - 1, len(drift.queries))


@async_test
async def test_n_and_N_step_through_the_queries_whose_first_hit_changed(drift: Drift) -> None:
    moved_first = sorted(drift.queries, key=lambda query: (query.rbo, query.line))
    changed_rows = [row for row, query in enumerate(moved_first) if query.top1_changed]
    async with drift_app(drift).run_test(size=SIZE) as pilot:
        screen = await ordered(pilot)
        start = 0 if not moved_first[0].top1_changed else None
        assert start == 0, "the sample's most moved query kept its first hit: n must move"
        for row in changed_rows:
            await pilot.press("n")
            check_shows(screen, moved_first[row], row, len(moved_first))
        await pilot.press("n")  # none below: the selection stays
        check_shows(screen, moved_first[changed_rows[-1]], changed_rows[-1], len(moved_first))
        await pilot.press("N")
        check_shows(screen, moved_first[changed_rows[-2]], changed_rows[-2], len(moved_first))


@async_test
async def test_o_lists_the_log_order_and_keeps_the_selected_query(drift: Drift) -> None:
    moved_first = sorted(drift.queries, key=lambda query: (query.rbo, query.line))
    async with drift_app(drift).run_test(size=SIZE) as pilot:
        screen = await ordered(pilot)
        await pilot.press("j")
        selected = moved_first[1]
        await pilot.press("o")
        screen = await ordered(pilot)
        assert [row.split()[2] for row in list_rows(screen)] == [f"l{query.line}" for query in drift.queries]
        check_shows(screen, selected, drift.queries.index(selected), len(drift.queries))
        await pilot.press("o")
        screen = await ordered(pilot)
        check_shows(screen, selected, 1, len(drift.queries))


@async_test
async def test_exposure_lists_the_gains_and_losses_of_the_drift(drift: Drift) -> None:
    gains = sorted((s for s in drift.exposure if s.second > s.first), key=lambda s: (s.first - s.second, s.doc))
    losses = sorted((s for s in drift.exposure if s.second < s.first), key=lambda s: (s.second - s.first, s.doc))
    assert gains and losses
    async with drift_app(drift).run_test(size=SIZE) as pilot:
        screen = await ordered(pilot)
        for selector, shifts in (("#drift-gained", gains), ("#drift-lost", losses)):
            lines = static_text(screen, selector).splitlines()
            assert lines[0].endswith(f"({len(shifts)})")
            shown = [line.split() for line in lines[1:] if not line.strip().startswith("…")]
            assert [parts[0] for parts in shown] == [s.doc for s in shifts][: len(shown)]
            assert [parts[-1] for parts in shown] == [f"({s.second - s.first:+.4f})" for s in shifts][: len(shown)]
            assert [parts[1] for parts in shown] == [f"{s.first:.4f}" for s in shifts][: len(shown)]


@async_test
async def test_the_title_gives_the_drift_summaries(drift: Drift) -> None:
    count = len(drift.queries)
    changed = [q for q in drift.queries if q.top1_changed]
    mean = sum(q.rbo for q in drift.queries) / count
    async with drift_app(drift).run_test(size=SIZE) as pilot:
        screen = await ordered(pilot)
        title = static_text(screen, "#drift-title")
        assert f"A {A}/bm25 → B {B}/bm25" in title
        assert f"{count} queries · mean RBO {mean:.4f} · top-1 changed {len(changed)}/{count}" in title


@async_test
async def test_an_80_column_terminal_puts_the_list_above_and_keeps_every_pane(drift: Drift) -> None:
    async with drift_app(drift).run_test(size=(80, 24)) as pilot:
        screen = await ordered(pilot)
        assert screen.has_class("-narrow")
        regions = {name: screen.query_one(f"#drift-{name}").region for name in ("queries", "a", "b", "exposure")}
        assert regions["queries"].bottom <= regions["a"].y
        assert regions["a"].y == regions["b"].y and regions["a"].right <= regions["b"].x
        assert regions["a"].height >= 5 and regions["a"].bottom <= regions["exposure"].y
        assert regions["exposure"].bottom <= 23  # above the key bar
        check_shows(screen, sorted(drift.queries, key=lambda q: (q.rbo, q.line))[0], 0, len(drift.queries))


def test_drift_inspect_opens_the_screen_on_the_reported_drift(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    opened: list[DriftInput] = []
    monkeypatch.setattr(DriftApp, "run", lambda self, *args, **kwargs: opened.append(self.drift))
    log, report = write_log(tmp_path), tmp_path / "drift.json"
    assert main(["drift", A, B, "--queries", str(log), "--inspect", "--json", str(report)]) == 0
    (shown,) = opened
    per_query = json.loads(report.read_text(encoding="utf-8"))["per_query"]
    assert [(q.line, q.rbo, q.top1_changed, list(q.first), list(q.second)) for q in shown.drift.queries] == [
        (row["line"], row["rbo"], row["top1_changed"], row["a"], row["b"]) for row in per_query
    ]
    assert (shown.a, shown.b) == (f"{A}/bm25", f"{B}/bm25")


def test_drift_inspect_refuses_a_report_on_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = write_log(tmp_path)
    assert main(["drift", A, B, "--queries", str(log), "--inspect", "--json", "-"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["chunkscope: error: --inspect takes the terminal: write the reports to files, not to stdout (-)"]


@async_test
async def test_help_lists_the_drift_keys_and_q_quits(drift: Drift) -> None:
    app = drift_app(drift)
    async with app.run_test(size=SIZE) as pilot:
        await ordered(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DriftScreen)
        assert app.return_code is None
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0  # set by exit


@async_test
async def test_an_ordering_that_fails_is_reported(drift: Drift, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Drift, count: int) -> list[QueryDrift]:
        raise RuntimeError("ordering broke")

    monkeypatch.setattr(Drift, "moved_most", broken)
    app = drift_app(drift)
    async with app.run_test(size=SIZE) as pilot:
        screen = await ordered(pilot)
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["ordering broke"]
        assert list_rows(screen) == []
