"""What a key action of the inspector is: its binding id, default keys, the action it runs, its texts and where
it is bound (:class:`Action`, :class:`Place`). The table of every action is :mod:`chunkscope.tui.actions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from textual.binding import Binding


class Place(Enum):
    """Where an action is bound: the app, a screen or a widget (its ``action_<name>`` handles it)."""

    APP = "app"
    """``ChunkscopeApp``: everywhere."""
    SESSION = "session"
    """``SessionScreen``: both the single and the split view."""
    INSPECT = "inspect"
    """``InspectScreen``, the single view."""
    COMPARE = "compare"
    """``CompareScreen``, the split view."""
    SUMMARY = "summary"
    """``SummaryScreen``."""
    HELP = "help"
    """``HelpScreen``."""
    EXPORT = "export"
    """``ExportDialog``."""
    FORM = "form"
    """``ConfigForm``."""
    MATRIX = "matrix"
    """``TransitionMatrix`` on the split view's summary."""
    LIST = "list"
    """``QuestionList``."""
    RANKED = "ranked"
    """``RankedChunksView``."""
    DOCUMENT = "document"
    """``DocumentView``."""
    ANATOMY = "anatomy"
    """``AnatomyScreen``."""
    GOLD = "gold"
    """``GoldScreen``."""
    SWEEP_MAP = "sweep-map"
    """``SweepMapScreen``."""
    DRIFT = "drift"
    """``DriftScreen``, ``chunkscope drift --inspect``."""
    WHATIF = "whatif"
    """``WhatIfScreen``."""
    GROUPS = "groups"
    """``GroupPicker``."""
    CONFIRM = "confirm"
    """``ConfirmLongWork``, the question before a long computation."""


NAMESPACES = {
    "app": "App",
    "list": "List",
    "question": "Question",
    "filter": "Filter",
    "config": "Config",
    "view": "View",
    "export": "Export",
    "compare": "Compare",
    "summary": "Summary",
    "document": "Document",
    "ranked": "Ranked",
    "matrix": "Matrix",
    "help": "Help",
    "form": "Form",
    "anatomy": "Anatomy",
    "gold": "Gold",
    "sweep": "Sweep map",
    "drift": "Drift",
    "whatif": "What-if",
    "groups": "Groups",
    "confirm": "Confirm",
}
"""Command-palette namespace of each binding-id prefix (``Config: overlap`` for ``config.overlap``)."""

MOVE = Binding.Group("failing")
CHANGED = Binding.Group("top-1 changed")
FILTER = Binding.Group("filter")
SIZE = Binding.Group("size", compact=True)


@dataclass(frozen=True, slots=True)
class Action:
    """One key action."""

    id: str
    """Binding id, ``<namespace>.<name>``: what a keymap remaps and the help screen lists."""
    keys: str
    """Default key or keys, comma-separated Textual key names (``plus,equals_sign``)."""
    action: str
    """The Textual action run: ``<handler>`` or ``<handler>(<arguments>)``, where ``action_<handler>``
    is a method of ``place`` (or of the app, for an ``app.`` prefix)."""
    description: str
    """Short text: the footer label and the palette title."""
    tooltip: str
    """What it does, in a sentence: the help screen's and the palette's explanation."""
    place: Place
    """Which class binds it."""
    show: bool = True
    """Shown in the footer."""
    key_display: str | None = None
    """How the key is shown, when Textual's own name for it reads badly (``?`` for ``question_mark``)."""
    group: Binding.Group | None = None
    """Footer group: actions of a group share one footer entry."""

    @property
    def handler(self) -> str:
        """The action's name without arguments (``config`` for ``config('size', 1)``; ``app.help``)."""
        return self.action.split("(", 1)[0]

    @property
    def namespace(self) -> str:
        """Command-palette namespace (``Config`` for ``config.chunker-next``)."""
        prefix = self.id.split(".", 1)[0]
        return NAMESPACES.get(prefix, prefix.title())

    def binding(self) -> Binding:
        """The Textual binding (its id lets a keymap change the keys)."""
        return Binding(
            self.keys,
            self.action,
            self.description,
            show=self.show,
            key_display=self.key_display,
            id=self.id,
            tooltip=self.tooltip,
            group=self.group,
        )
