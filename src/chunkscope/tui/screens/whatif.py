"""``w``: the boundary what-if of the selected question: per cut gold span, the smallest change of one
chunker parameter that keeps it whole, previewed in a document view before anything is re-run.

The options are computed in a worker (:func:`chunkscope.tui.state.whatif.question_whatif`, from the
evaluator's cached chunking). Moving through them shows the span's document chunked by the option's
spec, the new chunks over the span marked ``▌`` in the gutter and the view titled ``PREVIEW``; enter
posts :class:`WhatIfScreen.OptionChosen` and the app evaluates the option as configuration B beside A.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from chunkscope.analysis.whatif import BoundaryOption
from chunkscope.model import Chunk, Corpus, Question
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config
from chunkscope.tui.actions import Place, bindings_for
from chunkscope.tui.state.whatif import QuestionWhatIf, WhatIfChoice, option_config, question_whatif, span_text
from chunkscope.tui.widgets.document_view import DocumentView

__all__ = ["WhatIfScreen", "options_text", "preview_label"]

PREVIEW_ID = "what-if preview"
"""Id of the chunk the gutter marks: the region of the new chunks over the span."""


def options_text(whatif: QuestionWhatIf, cursor: int, lines: int) -> Text:
    """Each cut span and its options, ``▶`` on the selected one; at most ``lines`` lines, scrolled to the cursor."""
    options = [option for span in whatif.spans for option in span.options]
    parameter_width = max((len(o.parameter) for o in options), default=0)
    change_width = max((len(_change(o)) for o in options), default=0)
    spec_width = max((len(o.spec) for o in options), default=0)
    rows: list[Text] = []
    selected_row = 0
    index = 0
    for span in whatif.spans:
        rows.append(Text(span_text(span), style="bold"))
        if not span.options:
            rows.append(Text(f"   {span.note or 'no single change of one parameter keeps it whole'}", style="italic"))
        for option in span.options:
            selected = index == cursor
            verdict = "✓ holds it whole" if option.recovered else "✗ still cut"
            row = Text(
                f" {'▶' if selected else ' '} {option.parameter:<{parameter_width}}  {_change(option):<{change_width}}"
                f"  {option.spec:<{spec_width}}  {verdict}"
            )
            if selected:
                selected_row = len(rows)
                row.stylize("reverse")
            rows.append(row)
            index += 1
    first = max(0, min(selected_row - lines // 2, len(rows) - lines))
    shown = rows[first : first + lines]
    if first > 0:
        shown[0] = Text(f"… {first + 1} more above", style="dim")
    if first + lines < len(rows):
        shown[-1] = Text(f"… {len(rows) - first - lines + 1} more below", style="dim")
    return Text("\n", no_wrap=True, overflow="ellipsis").join(shown)


def _change(option: BoundaryOption) -> str:
    return f"{option.current} → {option.value}"


def preview_label(choice: WhatIfChoice) -> Text:
    """What the document view shows: a preview (not applied) and the option's new chunks over the span."""
    option = choice.option
    new = " ".join(f"[{start}, {end})" for start, end in option.boundaries) or "none"
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(" PREVIEW ", style="reverse bold")
    text.append(f" not applied · new chunks over the span (▌ in the gutter): {new} · enter: apply as B")
    return text


class WhatIfScreen(Screen[None]):
    """The options of every cut span of one question, the selected one previewed in a document view."""

    CSS_PATH = "whatif.tcss"

    BINDINGS: ClassVar[list[BindingType]] = bindings_for(Place.WHATIF)

    OPTION_LINES = 8
    """Lines of the options list at most (it scrolls with the cursor)."""

    class OptionChosen(Message):
        """Evaluate ``config`` (the option's chunker, the rest of ``current``) as B beside ``current`` as A."""

        def __init__(self, current: Config, config: Config) -> None:
            super().__init__()
            self.current = current
            """The configuration the what-if was computed for."""
            self.config = config

    class Ready(Message):
        """The worker computed the what-if."""

        def __init__(self, whatif: QuestionWhatIf) -> None:
            super().__init__()
            self.whatif = whatif

    def __init__(self, evaluator: Evaluator, question: Question, config: Config) -> None:
        super().__init__(id="whatif")
        self._waiting: list[Callable[[], None]] = []
        """Actions of keys typed while the what-if was computed (``w Down Enter``), run once it is in."""
        self.evaluator = evaluator
        self.question = question
        self.config = config
        self.whatif: QuestionWhatIf | None = None
        self.cursor = 0

    @property
    def corpus(self) -> Corpus:
        """The corpus the question is on."""
        return self.evaluator.corpus

    @property
    def choice(self) -> WhatIfChoice | None:
        """The option under the cursor (None before the worker is done, or without options)."""
        if self.whatif is None or not self.whatif.choices:
            return None
        return self.whatif.choices[self.cursor]

    def compose(self) -> ComposeResult:
        yield Static(id="whatif-title")
        yield Static(id="whatif-options")
        yield Static(id="whatif-preview-label")
        document = DocumentView(id="whatif-document")
        document.can_focus = False  # up and down move through the options; pgup / pgdn scroll the preview
        yield document
        yield Footer(compact=True)

    def on_mount(self) -> None:
        query = " ".join(self.question.query.split())
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(f"What-if · {self.question.id}", style="bold")
        title.append(f" “{query}” · under {self.config.chunker}")
        self.query_one("#whatif-title", Static).update(title)
        self.query_one("#whatif-options", Static).update(
            Text(f"Computing the what-if of {self.question.id}…", style="italic")
        )
        self.query_one(DocumentView).display = False
        self.compute()

    @work(thread=True, exit_on_error=False, group="whatif", description="what-if")
    def compute(self) -> None:
        """The what-if off the UI thread (it chunks the span's document once per option)."""
        self.post_message(self.Ready(question_whatif(self.evaluator, self.question, self.config)))

    def on_what_if_screen_ready(self, message: WhatIfScreen.Ready) -> None:
        self.whatif = message.whatif
        self.cursor = 0
        self.refresh_views()
        waiting, self._waiting = self._waiting, []
        for action in waiting:
            action()

    def refresh_views(self) -> None:
        """Show the options and preview the selected one."""
        whatif = self.whatif
        if whatif is None:
            return
        options = self.query_one("#whatif-options", Static)
        label = self.query_one("#whatif-preview-label", Static)
        view = self.query_one(DocumentView)
        choice = self.choice
        if whatif.note is not None:
            options.update(Text(whatif.note, style="italic"))
        else:
            options.update(options_text(whatif, self.cursor, self.OPTION_LINES))
        if choice is None:
            label.update("")  # the note is in the options, under each span
            view.display = False
            return
        label.update(preview_label(choice))
        view.display = True
        self.preview(view, choice)

    def preview(self, view: DocumentView, choice: WhatIfChoice) -> None:
        """The span's document chunked by the option, the new chunks over the span marked in the gutter."""
        document = self.corpus.by_id[choice.span.span.doc]
        start, end = choice.region
        view.show(document, choice.chunks, None, self.question, focus_offset=start)
        view.highlight_chunk(Chunk(PREVIEW_ID, document.id, start, end, document.text[start:end]))
        view.border_title = f"PREVIEW {choice.option.spec} · {document.title or document.id}"

    # -- keys

    def action_move(self, step: int) -> None:
        """The previous or next option; the document previews it."""
        if self.whatif is None:
            self._waiting.append(lambda: self.action_move(step))
            return
        if not self.whatif.choices:
            return
        self.cursor = max(0, min(len(self.whatif.choices) - 1, self.cursor + step))
        self.refresh_views()

    def action_apply(self) -> None:
        """Evaluate the selected option as B beside A."""
        if self.whatif is None:
            self._waiting.append(self.action_apply)
            return
        choice = self.choice
        if choice is None:
            self.notify("No option to apply.", severity="warning")
            return
        self.post_message(self.OptionChosen(self.config, option_config(self.config, choice.option)))

    def action_scroll_preview(self, pages: int) -> None:
        """Scroll the preview a page down (1) or up (-1)."""
        view = self.query_one(DocumentView)
        if pages > 0:
            view.scroll_page_down(animate=False)
        else:
            view.scroll_page_up(animate=False)
