"""The action table: every binding comes from it, the help screen and the palette read it, keymaps remap it."""

from __future__ import annotations

import pytest
from pilot_helpers import SIZE, async_test, make_app, settle
from textual.binding import Binding
from textual.command import DiscoveryHit
from textual.dom import DOMNode

from chunkscope.io.dataset import Dataset
from chunkscope.tui.actions import ACTIONS, ACTIONS_BY_ID, Action, Place, actions_of, bindings_for
from chunkscope.tui.app import ChunkscopeApp
from chunkscope.tui.commands import ChunkscopeCommands
from chunkscope.tui.screens.anatomy import AnatomyScreen
from chunkscope.tui.screens.base import SessionScreen
from chunkscope.tui.screens.compare import CompareScreen
from chunkscope.tui.screens.config_form import ConfigForm
from chunkscope.tui.screens.confirm import ConfirmLongWork
from chunkscope.tui.screens.drift import DriftScreen
from chunkscope.tui.screens.export import ExportDialog
from chunkscope.tui.screens.gold import GoldScreen
from chunkscope.tui.screens.groups import GroupPicker
from chunkscope.tui.screens.help import HELP_SECTIONS, HelpScreen, section_bindings
from chunkscope.tui.screens.inspect import InspectScreen
from chunkscope.tui.screens.summary import SummaryScreen
from chunkscope.tui.screens.sweep_map import SweepMapScreen
from chunkscope.tui.screens.whatif import WhatIfScreen
from chunkscope.tui.widgets.document_view import DocumentView
from chunkscope.tui.widgets.question_list import QuestionList
from chunkscope.tui.widgets.ranked_chunks import RankedChunksView
from chunkscope.tui.widgets.summary_widgets import TransitionMatrix

PLACE_CLASSES: dict[Place, type[DOMNode]] = {
    Place.APP: ChunkscopeApp,
    Place.SESSION: SessionScreen,
    Place.INSPECT: InspectScreen,
    Place.COMPARE: CompareScreen,
    Place.SUMMARY: SummaryScreen,
    Place.HELP: HelpScreen,
    Place.EXPORT: ExportDialog,
    Place.FORM: ConfigForm,
    Place.MATRIX: TransitionMatrix,
    Place.LIST: QuestionList,
    Place.RANKED: RankedChunksView,
    Place.DOCUMENT: DocumentView,
    Place.ANATOMY: AnatomyScreen,
    Place.GOLD: GoldScreen,
    Place.SWEEP_MAP: SweepMapScreen,
    Place.DRIFT: DriftScreen,
    Place.WHATIF: WhatIfScreen,
    Place.GROUPS: GroupPicker,
    Place.CONFIRM: ConfirmLongWork,
}

HELP_CLASSES: dict[str, type[DOMNode]] = {
    "Everywhere": ChunkscopeApp,
    "Single view (inspect)": InspectScreen,
    "Split view (compare)": CompareScreen,
    "Summary": SummaryScreen,
    "Transition matrix": TransitionMatrix,
    "Question list": QuestionList,
    "Ranked chunks": RankedChunksView,
    "Document": DocumentView,
    "Sweep map": SweepMapScreen,
    "Drift (chunkscope drift --inspect)": DriftScreen,
}


def declared_bindings(cls: type) -> list[Binding]:
    """What Textual merges for ``cls``: the BINDINGS of every class in its MRO, bases first."""
    return [b for base in reversed(cls.__mro__) for b in base.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]


def test_binding_ids_are_unique_and_namespaced() -> None:
    assert len(ACTIONS_BY_ID) == len(ACTIONS)
    assert all("." in action.id for action in ACTIONS)
    assert {action.place for action in ACTIONS} == set(Place)


@pytest.mark.parametrize("place", list(Place), ids=lambda place: place.value)
def test_each_class_binds_exactly_its_rows_of_the_table(place: Place) -> None:
    assert PLACE_CLASSES[place].__dict__["BINDINGS"] == bindings_for(place)


@pytest.mark.parametrize("action", ACTIONS, ids=lambda action: action.id)
def test_every_action_has_a_handler_where_it_is_bound(action: Action) -> None:
    owner: type[DOMNode] = PLACE_CLASSES[action.place]
    name = action.handler
    if name.startswith("app."):
        owner, name = ChunkscopeApp, name.removeprefix("app.")
    assert callable(getattr(owner, f"action_{name}", None)), f"{owner.__name__} has no action_{name}"


def test_help_lists_what_each_class_really_binds() -> None:
    # Oracle: the bindings Textual merges for the real classes, with an id or a description (the old help).
    assert [section.where for section in HELP_SECTIONS] == list(HELP_CLASSES)
    for section in HELP_SECTIONS:
        expected = [b for b in declared_bindings(HELP_CLASSES[section.where]) if b.id is not None or b.description]
        assert section_bindings(section) == expected, section.where


def test_help_covers_every_action_outside_the_dialogs() -> None:
    listed = {b.id for section in HELP_SECTIONS for b in section_bindings(section)}
    dialogs = {
        Place.HELP,
        Place.EXPORT,
        Place.FORM,
        Place.ANATOMY,
        Place.GOLD,
        Place.WHATIF,
        Place.GROUPS,
        Place.CONFIRM,
    }  # their keys are in their own footers
    assert {a.id for a in ACTIONS if a.place not in dialogs} <= listed
    assert not any(a.id in listed for place in dialogs for a in actions_of(place))


@async_test
async def test_palette_reads_the_table_and_shows_remapped_keys(
    sample: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNKSCOPE_KEYMAP", "config.overlap=ctrl+o")
    app = make_app(sample)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hits = [hit async for hit in ChunkscopeCommands(app.screen).discover()]
    by_title = {hit.text: hit for hit in hits if isinstance(hit, DiscoveryHit)}
    overlap = ACTIONS_BY_ID["config.overlap"]
    assert by_title["Config: overlap"].help == f"{overlap.tooltip} · key ^o"
    # Cancelling needs a computation running, the list/detail switch a narrow terminal: neither applies here.
    inactive = {"config.cancel", "view.pane"}
    for action in actions_of(Place.SESSION) + actions_of(Place.INSPECT):
        title = f"{action.namespace}: {action.description}"
        if action.id in inactive:
            assert title not in by_title
            continue
        hit = by_title[title]
        assert hit.help is not None and hit.help.startswith(action.tooltip)
    assert "Keys: Focus Next" in by_title  # Textual's own keys keep their own texts
