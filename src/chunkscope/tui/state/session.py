"""The state the inspector's screens share: the dataset, an Evaluator, sides A and B, the views' filters,
the selection and the comparisons and rows computed so far."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Unpack

from chunkscope.analysis.compare import Comparison
from chunkscope.analysis.diagnose import FailureCause
from chunkscope.analysis.fragility import FragilityResult
from chunkscope.analysis.gold import GoldCheck, check_gold
from chunkscope.analysis.groups import question_tags, tag_positions
from chunkscope.io.sources import Dataset
from chunkscope.model import Chunk, Question
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config, ConfigResult
from chunkscope.tui.state.answers import InspectorAnswers
from chunkscope.tui.state.config_steps import StepError, cycle_overlap
from chunkscope.tui.state.document_chunks import DocumentChunks
from chunkscope.tui.state.export_paths import is_input_path
from chunkscope.tui.state.filters import FilterChanges, ListOrder, RowFilter, ViewName, ViewState, ordered
from chunkscope.tui.state.rows import QuestionRow, build_rows
from chunkscope.tui.state.slots import Side, Slot
from chunkscope.tui.state.stepping import step_through, steps_ahead


@dataclass(frozen=True, slots=True)
class _Listing:
    """The rows a view lists, for the rows and filter they were computed from."""

    source: tuple[QuestionRow, ...]
    filter: RowFilter
    order: ListOrder
    kept: str | None
    rows: tuple[QuestionRow, ...]
    positions: dict[str, int]
    """Question id -> index in ``rows``."""


class Session:
    """Everything the screens show, and the single place that turns core values into rows."""

    def __init__(
        self,
        dataset: Dataset,
        config_a: Config,
        config_b: Config | None = None,
        answers: InspectorAnswers | None = None,
    ) -> None:
        self.dataset = dataset
        self.answers = answers
        """Generated answers (``--answers``) and the configuration they belong to."""
        self.questions: tuple[Question, ...] = dataset.questions.questions
        self.multi_hop = any(question.hop_count >= 2 for question in self.questions)
        """Some question has two hops or more (HotpotQA, MultiHop-RAG): the list counts hops, ``f`` finds a
        missing one, the detail names it."""
        self.evaluator = Evaluator(dataset.corpus, self.questions)
        self.a = Slot(config_a)
        self.b: Slot | None = Slot(config_b) if config_b is not None else None
        self.views: dict[ViewName, ViewState] = {"inspect": ViewState(), "compare": ViewState()}
        self.selected_id: str | None = self.questions[0].id if self.questions else None
        self.progress = ""
        """What the evaluation worker is doing, e.g. ``fixed:size=300/bm25: ranking``."""
        self.evaluating = False
        """A computation (evaluations, the comparison) is running: esc cancels it."""
        self.remembered_specs: dict[str, str] = {}
        """Last spec used per strategy kind and name (``"chunker fixed"``), so cycling back restores its parameters."""
        self.cycle_state: dict[str, str] = {}
        """What the c / r cycles keep besides the specs: the unavailable strategy a cycle stopped at (the next key
        goes on from it), the chunker whose size a chunker new to the session takes."""
        self._comparisons: dict[tuple[Config, Config], Comparison] = {}
        self.fragility_wanted: Config | None = None
        """The configuration whose fragility was asked for (``u``) and is not computed yet."""
        self._fragility: dict[Config, FragilityResult] = {}
        self._rows: dict[tuple[Config, Config | None, bool, bool, bool], tuple[QuestionRow, ...]] = {}
        self._document_chunks = DocumentChunks(self.evaluator)
        self._visible: dict[ViewName, _Listing] = {}
        """Per view, the rows it listed last and the filter they were listed under (reused while unchanged)."""
        self.question_index: dict[str, int] = {q.id: i for i, q in enumerate(self.questions)}
        self._gold_check: GoldCheck | None = None
        """Question id -> position in the question set."""

    # -- configurations and results

    def slot(self, side: Side) -> Slot:
        """Slot A or B (B must exist)."""
        if side == "a":
            return self.a
        if self.b is None:
            raise StepError("there is no configuration B: open the split view with v")
        return self.b

    def slots(self) -> tuple[Slot, ...]:
        """A, and B when set."""
        return (self.a,) if self.b is None else (self.a, self.b)

    def request(self, side: Side, config: Config) -> bool:
        """Ask for ``config`` on ``side``; True when its result is already known (shown at once)."""
        if side == "b" and self.b is None:
            self.b = Slot(config)
        slot = self.slot(side)
        if config != slot.requested:
            slot.previous = slot.requested
        slot.requested = config
        slot.requests += 1
        slot.error = None
        cached = self.evaluator.cached(config)
        if cached is not None:
            slot.shown = cached
        return cached is not None

    def decline(self, side: Side) -> None:
        """A request the user declined (the estimate of long work): handled, and nothing changes."""
        self.slot(side).requests += 1

    def store(self, result: ConfigResult) -> None:
        """A worker's result: shown on every side that still asks for it."""
        for slot in self.slots():
            if slot.requested == result.config:
                slot.shown = result

    def give_up(self, config: Config, error: str) -> None:
        """Evaluation of ``config`` failed: sides asking for it fall back to what they show (or keep the error)."""
        for slot in self.slots():
            if slot.requested == config:
                if slot.shown is None:
                    slot.error = error
                else:
                    slot.requested = slot.shown.config
                    slot.previous = None

    def abandon(self) -> tuple[Config, ...]:
        """Stop waiting for the configurations still being computed (cancelled): each side asking for one
        goes back to the result it shows, and ``p`` asks for the abandoned one again. Returns them."""
        abandoned: list[Config] = []
        for slot in self.slots():
            if not slot.pending:
                continue
            abandoned.append(slot.requested)
            if slot.shown is None:
                slot.error = "cancelled"
            else:
                slot.previous, slot.requested = slot.requested, slot.shown.config
        return tuple(dict.fromkeys(abandoned))

    def missing(self, compare: bool) -> tuple[Config, ...]:
        """Requested configurations without a result, A first (B only in the split view)."""
        slots = self.slots() if compare else (self.a,)
        wanted = [s.requested for s in slots if self.evaluator.cached(s.requested) is None]
        return tuple(dict.fromkeys(wanted))

    def open_compare(self) -> None:
        """Give the split view a B: the configuration before the last change becomes A, the current one B;
        without history B is A with the overlap switched on (or off)."""
        if self.b is not None:
            return
        current = self.a.requested
        if self.a.previous is not None and self.a.previous != current:
            self.b = Slot(current, self.evaluator.cached(current))
            self.a = Slot(self.a.previous, self.evaluator.cached(self.a.previous))
            return
        try:
            partner = cycle_overlap(current)
        except StepError:
            partner = current
        self.b = Slot(partner, self.evaluator.cached(partner))

    def close_compare(self, edited: Side) -> None:
        """Back to the single view, which shows the current configuration: the one the keys were changing.

        When that is B (the split view's default), B becomes A, the A before it A's previous configuration, and
        B goes: ``v`` opens the same pair again (A before the change, B the current one). When it is A (after
        ``t``), nothing changes.
        """
        if edited == "b" and self.b is not None:
            current, self.b = self.b.requested, None
            self.request("a", current)

    # -- comparison

    def comparison(self) -> Comparison | None:
        """The comparison of the shown A and B results, when computed."""
        key = self.shown_pair()
        return self._comparisons.get(key) if key is not None else None

    def shown_pair(self) -> tuple[Config, Config] | None:
        """(A, B) configurations on screen, when both have results."""
        if self.b is None or self.a.shown is None or self.b.shown is None:
            return None
        return self.a.shown.config, self.b.shown.config

    def requested_pair(self) -> tuple[Config, Config] | None:
        """(A, B) configurations asked for, in the split view."""
        return (self.a.requested, self.b.requested) if self.b is not None else None

    def has_comparison(self, a: Config, b: Config) -> bool:
        """True when A against B was compared before."""
        return (a, b) in self._comparisons

    def store_comparison(self, comparison: Comparison) -> None:
        """A worker's comparison."""
        self._comparisons[(comparison.a, comparison.b)] = comparison

    # -- fragility

    def fragility(self, config: Config) -> FragilityResult | None:
        """The fragility of ``config``, when computed."""
        return self._fragility.get(config)

    def store_fragility(self, result: FragilityResult) -> None:
        """A worker's fragility result (no longer wanted: it is known)."""
        self._fragility[result.config] = result
        if self.fragility_wanted == result.config:
            self.fragility_wanted = None

    def missing_fragility(self) -> Config | None:
        """The configuration whose fragility is asked for and not computed yet. A change of A's configuration
        supersedes the request, as it does an evaluation no longer wanted (the neighbours evaluated stay cached)."""
        if self.fragility_wanted != self.a.requested:
            self.fragility_wanted = None
        wanted = self.fragility_wanted
        return wanted if wanted is not None and wanted not in self._fragility else None

    # -- rows, filters, selection

    def rows(self, compare: bool) -> tuple[QuestionRow, ...]:
        """Every question as a row under the shown A (with B and the move to B in the split view)."""
        result = self.a.shown
        if result is None:
            return ()
        result_b = self.b.shown if compare and self.b is not None else None
        comparison = self.comparison() if result_b is not None else None
        # The question list marks fragility in the single view only.
        fragility = None if compare else self._fragility.get(result.config)
        # Answers are marked under their own configuration only, in the single view.
        attribution = None if compare or self.answers is None else self.answers.attribution(result)
        key = (
            result.config,
            result_b.config if result_b is not None else None,
            comparison is not None,
            fragility is not None,
            attribution is not None,
        )
        if key not in self._rows:
            self._rows[key] = build_rows(self.questions, result, result_b, comparison, fragility, attribution)
        return self._rows[key]

    def visible_rows(self, view: ViewName) -> tuple[QuestionRow, ...]:
        """The rows the view's filter accepts, plus the kept question, in the view's order."""
        return self._listing(view).rows

    def _listing(self, view: ViewName) -> _Listing:
        state = self.views[view]
        rows = self.rows(view == "compare")
        listing = self._visible.get(view)
        if (
            listing is None
            or listing.source is not rows
            or listing.filter != state.filter
            or listing.order != state.order
            or listing.kept != state.kept
        ):
            visible = ordered([row for row in rows if state.lists(row)], state.order)
            positions = {row.question.id: index for index, row in enumerate(visible)}
            listing = _Listing(rows, state.filter, state.order, state.kept, visible, positions)
            self._visible[view] = listing
        return listing

    def position(self, view: ViewName, question_id: str | None) -> int | None:
        """Where ``question_id`` is in the view's list (0-based); None when the view does not list it."""
        return None if question_id is None else self._listing(view).positions.get(question_id)

    def selected_row(self, view: ViewName) -> QuestionRow | None:
        """The selected question's row in the view's list (None when not listed)."""
        index = self.position(view, self.selected_id)
        return None if index is None else self._listing(view).rows[index]

    def step_selection(self, view: ViewName, step: int, wanted: Callable[[QuestionRow], bool]) -> QuestionRow | None:
        """Select the next (``step`` 1) or previous (-1) row of the view's list that ``wanted`` accepts,
        counting from the selection (wrapping around); returns it, or None (the selection stays)."""
        row = self.step_target(view, step, wanted)
        if row is not None:
            self.selected_id = row.question.id
        return row

    def step_target(self, view: ViewName, step: int, wanted: Callable[[QuestionRow], bool]) -> QuestionRow | None:
        """The row :meth:`step_selection` would select (the selection does not move)."""
        return step_through(self._listing(view).rows, self.position(view, self.selected_id), step, wanted)

    def ahead(
        self, view: ViewName, step: int, wanted: Callable[[QuestionRow], bool], count: int
    ) -> tuple[QuestionRow, ...]:
        """The rows ``count`` presses of the same step select in turn from the selection (nearest first)."""
        listing = self._listing(view)
        return steps_ahead(listing.rows, self.position(view, self.selected_id), step, wanted, count)

    def neighbours(self, view: ViewName, wanted: Callable[[QuestionRow], bool]) -> tuple[QuestionRow, ...]:
        """The rows the next key most likely selects, likeliest first: the next row ``wanted`` accepts (``n``),
        the rows below and above (the arrows), the previous accepted row (``N``); without the selection and repeats."""
        rows = self._listing(view).rows
        current = self.position(view, self.selected_id)
        if current is None:
            return ()
        candidates = [
            self.step_target(view, 1, wanted),
            rows[current + 1] if current + 1 < len(rows) else None,
            rows[current - 1] if current > 0 else None,
            self.step_target(view, -1, wanted),
        ]
        seen = {self.selected_id}
        found = []
        for row in candidates:
            if row is not None and row.question.id not in seen:
                seen.add(row.question.id)
                found.append(row)
        return tuple(found)

    def set_filter(self, view: ViewName, **changes: Unpack[FilterChanges]) -> RowFilter:
        """Change parts of a view's filter (which ends keeping a filtered-out question) and return it."""
        state = self.views[view]
        state.filter = replace(state.filter, **changes)
        state.kept = None
        return state.filter

    def keep_selected(self, view: ViewName) -> None:
        """List the selected question in ``view`` until the filter changes, whatever the filter says."""
        self.views[view].kept = self.selected_id

    def causes_present(self, compare: bool = False) -> tuple[FailureCause, ...]:
        """Failure causes (other than OK) of the shown A (and B, in the split view), in priority order."""
        present: set[FailureCause | None] = set()
        for row in self.rows(compare):
            present.update((row.cause, row.cause_b))
        return tuple(cause for cause in FailureCause if cause in present and cause is not FailureCause.OK)

    def tags_present(self) -> dict[str, int]:
        """Each tag the loaded questions carry (computed groups included), alphabetically, with how many carry it."""
        ids = [question.id for question in self.questions]
        return {tag: len(positions) for tag, positions in tag_positions(ids, question_tags(self.questions)).items()}

    def question(self, question_id: str) -> Question:
        """A question by id."""
        return self.questions[self.question_index[question_id]]

    def document_chunks(self, config: Config, doc_id: str) -> tuple[Chunk, ...]:
        """The retrieval units of one document under ``config``, in document order (cached per chunker)."""
        return self._document_chunks.of(config, doc_id)

    # -- exports

    def gold_check(self) -> GoldCheck:
        """The gold integrity findings of the loaded questions (computed once, on first use)."""
        if self._gold_check is None:
            self._gold_check = check_gold(self.dataset.corpus, self.dataset.questions)
        return self._gold_check

    def is_input_path(self, target: str | Path) -> bool:
        """True when writing ``target`` would replace an input file (the answers file too) or write inside an
        input directory."""
        extra = (self.answers.answers.source,) if self.answers is not None else ()
        return is_input_path(self.dataset, target, extra)
