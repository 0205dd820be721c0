"""One side of the inspector (A, or B in the split view): the configuration asked for and the result shown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from chunkscope.results import Config, ConfigResult

Side = Literal["a", "b"]


@dataclass
class Slot:
    """One side of the inspector: the configuration asked for and the result on screen."""

    requested: Config
    """What the user asked for (shown with a progress mark until its result arrives)."""
    shown: ConfigResult | None = None
    """The result on screen (the previous one while the requested configuration is computed)."""
    previous: Config | None = None
    """The configuration before the last change (``p`` switches back)."""
    error: str | None = None
    """Why the first configuration of this side could not be evaluated (nothing to show instead)."""
    requests: int = 0
    """How many requests the session has applied to this side (a screen's keys count what is still on the way)."""

    @property
    def pending(self) -> bool:
        """The requested configuration's result has not arrived yet (and has not failed)."""
        return self.error is None and (self.shown is None or self.shown.config != self.requested)
