"""``a``: the score anatomy of the selected question (the same view as ``chunkscope explain``)."""

from __future__ import annotations

from typing import ClassVar
from weakref import WeakKeyDictionary

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from chunkscope.analysis.explain import Explainer, Explanation
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.explain import explain_markdown
from chunkscope.tui.actions import Place, bindings_for

_EXPLAINERS: WeakKeyDictionary[Evaluator, Explainer] = WeakKeyDictionary()


def explainer_for(evaluator: Evaluator) -> Explainer:
    """One explainer per evaluator, so its lexical statistics are built once per session."""
    explainer = _EXPLAINERS.get(evaluator)
    if explainer is None:
        explainer = _EXPLAINERS[evaluator] = Explainer(evaluator)
    return explainer


class AnatomyScreen(ModalScreen[None]):
    """The anatomy panel: the two chunks and every stage's table, scrollable."""

    DEFAULT_CSS = """
    AnatomyScreen { align: center middle; }
    #anatomy-box {
        width: 92%; height: 90%; border: round $accent; background: $surface; padding: 0 1; overflow-x: auto;
    }
    /* The stage tables' numbers are cut with an ellipsis below this width (rich shrinks the columns):
       narrower, the panel keeps it and scrolls sideways. */
    #anatomy-panel { min-width: 104; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.ANATOMY)

    def __init__(self, explanation: Explanation) -> None:
        super().__init__()
        self.explanation = explanation

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="anatomy-box"):
            yield Static(Markdown(explain_markdown([self.explanation])), id="anatomy-panel")
        yield Footer(compact=True)
