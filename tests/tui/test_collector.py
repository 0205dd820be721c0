"""The collector's pacing: young collections wait for the screen's pause, and the thresholds come back."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from pilot_helpers import async_test, make_app, settle

from chunkscope.collector import collector_paused
from chunkscope.io.dataset import Dataset
from chunkscope.tui import collector


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)
    gc.unfreeze()


def test_pacing_raises_the_thresholds_and_collect_young_empties_the_young_generation(
    thresholds: tuple[int, int, int],
) -> None:
    previous = collector.pace_collector()
    assert previous == thresholds
    assert gc.get_threshold() == (collector.YOUNG_THRESHOLD, thresholds[1], thresholds[2] * collector.FULL_FACTOR)
    garbage = [[index] for index in range(5 * thresholds[0])]  # more young allocations than the old threshold
    assert gc.get_count()[0] > thresholds[0]
    collector.collect_young()
    assert gc.get_count()[0] < thresholds[0]
    del garbage


def test_collect_young_leaves_a_small_young_generation_alone(thresholds: tuple[int, int, int]) -> None:
    collector.pace_collector()
    gc.collect(1)
    kept = [[1], [2]]
    count = gc.get_count()[0]
    collector.collect_young()
    assert gc.get_count()[0] >= count  # nothing collected: below the threshold the app found
    del kept


def test_collect_young_past_a_given_count(thresholds: tuple[int, int, int]) -> None:
    collector.pace_collector()
    gc.collect(1)
    young = [[index] for index in range(3 * thresholds[0])]  # past the app's threshold, short of the one given
    count = gc.get_count()[0]
    collector.collect_young(more_than=count + 10)
    assert gc.get_count()[0] >= count
    collector.collect_young(more_than=count - 10)
    assert gc.get_count()[0] < thresholds[0]
    del young


def test_collect_young_waits_while_the_collector_is_paused(thresholds: tuple[int, int, int]) -> None:
    # The worker pauses the collector while it evaluates: the UI thread's pause must not collect its objects.
    collector.pace_collector()
    with collector_paused():
        garbage = [[index] for index in range(5 * thresholds[0])]
        count = gc.get_count()[0]
        collector.collect_young()
        assert gc.get_count()[0] >= count
    del garbage


@async_test
async def test_the_app_restores_the_thresholds_it_found(sample: Dataset, thresholds: tuple[int, int, int]) -> None:
    app = make_app(sample)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        assert gc.get_threshold()[0] == collector.YOUNG_THRESHOLD
        await pilot.press("n")
        await settle(pilot)
    assert gc.get_threshold() == thresholds
