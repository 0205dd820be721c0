"""Messages between the inspector's screens and its app: requests go up, worker results come back.

Screens ask the app to open other screens by message, so no screen imports the screens it opens.
"""

from __future__ import annotations

from typing import Literal

from textual.message import Message

from chunkscope.analysis.compare import Comparison
from chunkscope.analysis.fragility import FragilityResult
from chunkscope.results import Config, ConfigResult
from chunkscope.tui.state.slots import Side

ExportKind = Literal["case", "report"]
"""The selected question's case file (Markdown) or the whole report (JSON)."""


class ConfigRequested(Message):
    """A screen asks for ``config`` on one side (A, or B in the split view)."""

    def __init__(self, side: Side, config: Config) -> None:
        super().__init__()
        self.side: Side = side
        self.config = config


class CompareToggleRequested(Message):
    """``v``: open the split view, or close it. A message, so the configuration keys typed before it (``o v`` read
    from the terminal at once) reach the app first."""


class ConfigFormRequested(Message):
    """A screen asks for the configuration form of one side; what the form applies comes back as ConfigRequested."""

    def __init__(self, side: Side, title: str) -> None:
        super().__init__()
        self.side: Side = side
        self.title = title


class SummaryRequested(Message):
    """A screen asks for the summary of the shown configuration (of A and B when ``compare``)."""

    def __init__(self, compare: bool) -> None:
        super().__init__()
        self.compare = compare


class CancelRequested(Message):
    """A screen asks the app to stop the computation that is running."""


class EvaluationProgress(Message):
    """The worker reached a stage of evaluating ``config`` (newer progress replaces older in the queue)."""

    def __init__(self, job: int, config: Config, stage: str, done: int, total: int) -> None:
        super().__init__()
        self.job = job
        """The computation that reports (progress of a cancelled one is ignored)."""
        self.config = config
        self.stage = stage
        self.done = done
        self.total = total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, EvaluationProgress)


class EvaluationFinished(Message):
    """The worker's job ended: done, cancelled or failed (a failure also comes as a worker error)."""

    def __init__(self, job: int) -> None:
        super().__init__()
        self.job = job


class ResultsReady(Message):
    """The worker finished evaluating a configuration."""

    def __init__(self, result: ConfigResult) -> None:
        super().__init__()
        self.result = result


class ComparisonReady(Message):
    """The worker finished comparing A and B."""

    def __init__(self, comparison: Comparison) -> None:
        super().__init__()
        self.comparison = comparison


class FragilityRequested(Message):
    """A screen asked for the fragility of A's configuration (``Session.fragility_wanted``)."""


class FragilityReady(Message):
    """The worker computed the fragility of a configuration (``u``)."""

    def __init__(self, result: FragilityResult) -> None:
        super().__init__()
        self.result = result


class ExportRequested(Message):
    """The export dialog asks for a case file (``case``) or the report (``report``) at ``path``."""

    def __init__(self, what: ExportKind, path: str, with_b: bool) -> None:
        super().__init__()
        self.what: ExportKind = what
        self.path = path
        self.with_b = with_b


class ExportWritten(Message):
    """An export worker wrote a file."""

    def __init__(self, path: str, what: ExportKind) -> None:
        super().__init__()
        self.path = path
        self.what: ExportKind = what
