"""Before long work the inspector says its estimate and asks once (issue 28, point 3). The embedder's speed is faked:
no model runs, and a computation that starts is cancelled at once."""

from __future__ import annotations

import pytest
from pilot_helpers import async_test, make_app, settle
from textual.widgets import Static

from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.config import make_config
from chunkscope.retrievers.dense import Dense
from chunkscope.tui.screens.confirm import ConfirmLongWork
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.state import estimate
from chunkscope.tui.state.estimate import known_throughput  # the real one: conftest fakes the module's

SIZE = (140, 40)


def fake_speed(monkeypatch: pytest.MonkeyPatch, speed: float | None) -> dict[str, float]:
    """The embedder's measured speed is ``speed`` characters a second (None: never measured; measuring gives 100)."""
    speeds: dict[str, float] = {} if speed is None else {"any": speed}
    measured: list[str] = []

    def known(key: str) -> float | None:
        return speeds.get("any")

    def measure(params: Dense) -> float:
        measured.append(params.model)
        speeds["any"] = 100.0
        return 100.0

    monkeypatch.setattr(estimate, "known_throughput", known)
    monkeypatch.setattr(estimate, "measure_throughput", measure)
    return speeds


def sample_characters(sample: Dataset) -> int:
    return sum(len(d.text) for d in sample.corpus.documents) + sum(len(q.query) for q in sample.questions.questions)


@async_test
async def test_a_slow_embedding_is_estimated_and_asked_for_once(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_speed(monkeypatch, 100.0)  # the sample data's ~24,000 characters: about 4 minutes
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")  # bm25 -> dense
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmLongWork)
        text = str(dialog.query_one("#confirm-text", Static).render())
        minutes = round(sample_characters(sample) / 100 / 60)
        assert f"about {minutes} min on this machine" in text and "measured 100 characters a second" in text
        assert app.job is None  # nothing runs while it asks
        await pilot.press("escape")  # leave it
        await settle(pilot)
        assert isinstance(app.screen, InspectScreen)
        assert app.session.a.requested.retriever.startswith("bm25") and app.job is None
        await pilot.press("k")  # the keys go on from the configuration shown
        await settle(pilot)
        assert app.session.a.requested.retriever.startswith("bm25") and app.session.a.requested.top_k == 10
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmLongWork)  # declined before: asked again
        await pilot.press("enter")
        await pilot.pause()
        assert app.session.a.requested.retriever.startswith("dense")
        assert app.job is not None and app.job.configs[0].retriever.startswith("dense")
        await pilot.press("escape")  # esc still cancels the computation
        await pilot.pause()
        assert app.job is None and app.session.a.requested.retriever.startswith("bm25")
        await pilot.press("p")  # asks for it again: agreed before, not asked twice
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmLongWork)
        assert app.job is not None
        await pilot.press("escape")
        await pilot.pause()


@async_test
async def test_a_short_embedding_starts_without_a_question(sample: Dataset, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_speed(monkeypatch, 1e9)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmLongWork)
        assert app.job is not None and app.job.configs[0].retriever.startswith("dense")
        await pilot.press("escape")
        await pilot.pause()


@async_test
async def test_an_unmeasured_embedder_is_measured_then_asked_for(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    speeds = fake_speed(monkeypatch, None)
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("r")
        for _ in range(200):
            await pilot.pause(0.01)
            if isinstance(app.screen, ConfirmLongWork):
                break
        assert speeds == {"any": 100.0}
        assert isinstance(app.screen, ConfirmLongWork)
        await pilot.press("escape")
        await settle(pilot)


def test_the_estimate_counts_overlapping_characters_again() -> None:
    plain = make_config("fixed:size=200", "dense")
    overlapping = make_config("fixed:size=200,overlap=100", "dense")
    assert estimate.embedded_characters(plain, 10_000, 500) == 10_500
    assert estimate.embedded_characters(overlapping, 10_000, 500) == 20_500  # each character in two chunks
    assert estimate.duration_text(45) == "45 s" and estimate.duration_text(240) == "4 min"
    assert estimate.duration_text(4800) == "1 h 20 min"


def test_measured_speeds_are_kept_in_the_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    cache = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHUNKSCOPE_CACHE", str(cache))
        assert known_throughput("model-a") is None
        estimate.store_throughput("model-a", 1234.5)
        estimate.store_throughput("model-b", 99.0)
        assert known_throughput("model-a") == 1234.5
        assert estimate.throughput_path() == cache / "inspector" / "throughput.json"
        estimate.throughput_path().write_text("not json", encoding="utf-8")
        assert known_throughput("model-a") is None  # a damaged file is no reason to fail
