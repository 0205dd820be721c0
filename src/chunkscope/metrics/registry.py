"""The metric registry: every number chunkscope reports, defined once.

Each :class:`Metric` names its JSON/CSV key, the names it is parsed from, its
display label, whether it is a rate (a mean in [0, 1] over the questions) or a
count, its better direction, its per-question value and its summary function.
The formulas live in small modules by family, one docstring each:
:mod:`chunkscope.metrics.size` (questions, index size),
:mod:`chunkscope.metrics.coverage` (evidence exists, lost, document hits,
complete, delivered in pieces), :mod:`chunkscope.metrics.overlap` (evidence
recall, precision, IoU and precision Ω of characters),
:mod:`chunkscope.metrics.rank` (Recall@k, MRR@k, nDCG@k),
:mod:`chunkscope.metrics.delivery` (sent and re-sent characters) and
:mod:`chunkscope.metrics.window` (evidence past a dense model's token window) and
:mod:`chunkscope.metrics.hops` (multi-hop questions with every hop delivered).

:data:`REGISTRY` lists them in the order of the JSON summary. Everything that
shows or checks a metric reads it: the evaluator's summary, the paired tests of
``compare`` and ``sweep`` (the ``tested`` metrics), the CI gate (names, count
versus share, direction), the reports' columns and labels, the terminal tables
and the inspector. Adding a metric is one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from chunkscope.errors import SpecError
from chunkscope.metrics import coverage, delivery, hops, overlap, pages, rank, size, window
from chunkscope.model import Chunk
from chunkscope.results import QuestionResult, ResultColumns, Summary

__all__ = [
    "REGISTRY",
    "Better",
    "ColumnValue",
    "Kind",
    "Metric",
    "QuestionValue",
    "Registry",
    "SummaryValue",
    "Unit",
    "count_metric",
    "rank_metric",
    "rate_metric",
    "size_metric",
]

Kind = Literal["rate", "count"]
"""``rate``: a mean in [0, 1] over the questions; ``count``: a whole number."""
Better = Literal["higher", "lower"]
"""Which way the metric improves."""
Unit = Literal["questions", "chunks", "characters"]
"""What a count counts (a rate is a share of questions)."""

QuestionValue = Callable[[QuestionResult], float]
"""One question's value of a metric."""
SummaryValue = Callable[[Sequence[QuestionResult], Sequence[Chunk]], float]
"""A configuration's value of a metric, from every question's result and the index's units."""
ColumnValue = Callable[[ResultColumns], np.ndarray]
"""Every question's value of a metric at once, from the results' columns: the same numbers as
``per_question`` of each result (``tolist`` gives the very Python values)."""


@dataclass(frozen=True, slots=True)
class Metric:
    """One metric: its names, what kind of number it is, and how it is computed."""

    name: str
    """The JSON/CSV key, e.g. ``recall_at_5``."""
    label: str
    """Short display label (table headers), e.g. ``R@5``."""
    kind: Kind
    """``rate`` (a mean in [0, 1]) or ``count`` (a whole number)."""
    unit: Unit
    """What a count counts; ``questions`` for rates (a share of them)."""
    better: Better | None
    """The direction in which the metric improves; ``None`` for sizes, which are neither good nor bad."""
    summarize: SummaryValue = field(compare=False)
    """The summary function: the configuration's value."""
    per_question: QuestionValue | None = field(default=None, compare=False)
    """One question's value (the summary is its mean or sum); ``None`` for configuration-level sizes."""
    family: str = ""
    """The module that defines the formula: ``size``, ``coverage``, ``overlap``, ``rank`` or ``delivery``."""
    tested: bool = False
    """Compared question by question with a paired test in ``compare`` and ``sweep``."""
    title: str = ""
    """Longer label (the inspector's rows); the label when empty."""
    aliases: tuple[str, ...] = ()
    """Further names the metric is parsed from, besides its name and label."""
    cutoff: tuple[str, int] | None = None
    """Rank metrics: (measure, k), recorded in the metric policy."""
    applies: Callable[[Sequence[QuestionResult]], bool] | None = field(default=None, compare=False)
    """When set, the metric exists only for configurations whose questions' results it returns True
    for (e.g. a model's token window): the others' summaries, reports and tables leave it out."""
    column: ColumnValue | None = field(default=None, compare=False)
    """``per_question`` of every question at once, from the results' columns (None: read each result).
    Given only with a summary that is the mean (rate) or the sum (count) of ``per_question``, as the
    factories :func:`rate_metric` and :func:`count_metric` make it."""
    applies_column: Callable[[ResultColumns], bool] | None = field(default=None, compare=False)
    """``applies`` from the results' columns (needed, with ``applies``, for the columns to be read)."""

    @property
    def heading(self) -> str:
        """The longer label: ``title`` when given, else ``label``."""
        return self.title or self.label

    @property
    def parse_names(self) -> tuple[str, ...]:
        """Every name the metric is parsed from, lower-cased: name, label and aliases."""
        return tuple(dict.fromkeys(n.lower() for n in (self.name, self.label, *self.aliases)))

    @property
    def definition(self) -> str:
        """The exact formula, from the docstrings of the summary and per-question functions, on one line."""
        return " ".join((self.summarize.__doc__ or "").split())

    @property
    def worse_sign(self) -> int:
        """``-1`` when a lower value is worse, ``+1`` when a higher one is; ValueError without a direction."""
        if self.better is None:
            raise ValueError(f"{self.name} has no better direction")
        return -1 if self.better == "higher" else 1

    @property
    def reads_columns(self) -> bool:
        """Its summary and per-question values can be taken from the results' columns."""
        return self.column is not None and (self.applies is None or self.applies_column is not None)

    def column_summary(self, columns: ResultColumns) -> float:
        """The summary value from the columns (requires :attr:`reads_columns`): the same additions, in the
        same order, as the mean (rate) or sum (count) of the per-question values."""
        assert self.column is not None
        values = self.column(columns).tolist()
        if self.kind == "rate":
            return sum(values) / len(values) if values else 0.0
        return int(sum(values))

    def question_mean(self, summary: Summary) -> float:
        """The mean of the per-question values: the rate itself, or the count over the questions."""
        if self.kind == "rate":
            return summary[self.name]
        return summary[self.name] / summary.questions if summary.questions else 0.0


def _mean_over(per_question: QuestionValue) -> SummaryValue:
    def mean(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> float:
        # map, not a generator: the same additions in the same order, without a frame per question.
        return sum(map(per_question, results)) / len(results) if results else 0.0

    mean.__doc__ = f"Mean over the questions of: {per_question.__doc__}"
    return mean


def _sum_over(per_question: QuestionValue) -> SummaryValue:
    def total(results: Sequence[QuestionResult], units: Sequence[Chunk]) -> int:
        return int(sum(map(per_question, results)))

    total.__doc__ = f"Sum over the questions of: {per_question.__doc__}"
    return total


def rate_metric(
    name: str,
    label: str,
    per_question: QuestionValue,
    *,
    family: str,
    tested: bool = False,
    title: str = "",
    aliases: tuple[str, ...] = (),
    cutoff: tuple[str, int] | None = None,
    column: ColumnValue | None = None,
) -> Metric:
    """A metric whose value is the mean of a per-question value in [0, 1]; higher is better.

    ``column``: the per-question values of every question at once, from the results' columns.
    """
    return Metric(
        name,
        label,
        "rate",
        "questions",
        "higher",
        _mean_over(per_question),
        per_question,
        family=family,
        tested=tested,
        title=title,
        aliases=aliases,
        cutoff=cutoff,
        column=column,
    )


def count_metric(
    name: str,
    label: str,
    per_question: QuestionValue,
    unit: Unit,
    better: Better | None,
    *,
    family: str,
    tested: bool = False,
    title: str = "",
    aliases: tuple[str, ...] = (),
    applies: Callable[[Sequence[QuestionResult]], bool] | None = None,
    column: ColumnValue | None = None,
    applies_column: Callable[[ResultColumns], bool] | None = None,
) -> Metric:
    """A metric whose value is the sum of a whole-number per-question value (``column``: see :func:`rate_metric`)."""
    return Metric(
        name,
        label,
        "count",
        unit,
        better,
        _sum_over(per_question),
        per_question,
        family=family,
        tested=tested,
        title=title,
        aliases=aliases,
        applies=applies,
        column=column,
        applies_column=applies_column,
    )


def size_metric(name: str, label: str, summarize: SummaryValue, unit: Unit, *, title: str = "") -> Metric:
    """A count of the configuration as a whole (no per-question value, no better direction)."""
    return Metric(name, label, "count", unit, None, summarize, None, family="size", title=title)


def rank_metric(
    measure: str, k: int, label: str, formula: Callable[[int | None, int], float], *, tested: bool = True
) -> Metric:
    """``{measure}_at_{k}``: the mean of ``formula(first correct rank, k)``; parsed as ``{measure}@{k}`` too."""

    def at_k(result: QuestionResult) -> float:
        return formula(result.first_correct_rank, k)

    def at_k_column(columns: ResultColumns) -> np.ndarray:
        # formula itself gives each rank's value: a table looked up by rank (0 stands for None).
        ranks = columns.first_correct_rank
        values = [formula(None, k)] + [formula(r, k) for r in range(1, int(ranks.max(initial=0)) + 1)]
        table: np.ndarray = np.asarray(values, dtype=np.float64)[ranks]
        return table

    at_k.__doc__ = f"{(formula.__doc__ or '').strip()} With k = {k}."
    return rate_metric(
        f"{measure}_at_{k}",
        label,
        at_k,
        family="rank",
        tested=tested,
        aliases=(f"{measure}@{k}",),
        cutoff=(measure, k),
        column=at_k_column,
    )


class Registry:
    """The metrics in order; the one list every summary, test, gate and report reads."""

    def __init__(self, metrics: Iterable[Metric]) -> None:
        self._metrics: list[Metric] = []
        for metric in metrics:
            self.register(metric)

    def __iter__(self) -> Iterator[Metric]:
        return iter(tuple(self._metrics))

    def __len__(self) -> int:
        return len(self._metrics)

    def __contains__(self, name: object) -> bool:
        return any(m.name == name for m in self._metrics)

    def __getitem__(self, name: str) -> Metric:
        """The metric whose JSON key is ``name`` (KeyError otherwise)."""
        for metric in self._metrics:
            if metric.name == name:
                return metric
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        """Every metric's JSON key, in order."""
        return tuple(m.name for m in self._metrics)

    def tested(self) -> tuple[Metric, ...]:
        """The metrics compared with paired tests, in display order: rank metrics first, then the others."""
        tested = [m for m in self._metrics if m.tested]
        return tuple(sorted(tested, key=lambda m: m.family != "rank"))

    def with_direction(self) -> tuple[Metric, ...]:
        """The metrics with a better direction (those a baseline can be worse in)."""
        return tuple(m for m in self._metrics if m.better is not None)

    def parse(self, text: str, among: Sequence[Metric] | None = None) -> Metric:
        """The metric ``text`` names (its key, label or an alias, any case).

        Raises SpecError naming the valid keys when it names none of ``among``
        (default: every metric).
        """
        candidates = tuple(self._metrics) if among is None else tuple(among)
        wanted = text.strip().lower()
        for metric in candidates:
            if wanted in metric.parse_names:
                return metric
        raise SpecError(f"unknown metric {text!r}; choose from {', '.join(m.name for m in candidates)}")

    def register(self, metric: Metric, *, after: str | None = None) -> None:
        """Add ``metric`` at the end (or right after the metric named ``after``).

        Raises ValueError when one of its names is taken, or ``after`` is unknown.
        """
        taken = {name: m.name for m in self._metrics for name in m.parse_names}
        clashes = sorted(name for name in metric.parse_names if name in taken)
        if clashes:
            raise ValueError(f"metric {metric.name!r}: {', '.join(clashes)} already names {taken[clashes[0]]!r}")
        position = len(self._metrics) if after is None else self.names.index(after) + 1
        self._metrics.insert(position, metric)

    def unregister(self, name: str) -> None:
        """Remove the metric whose key is ``name`` (KeyError when absent)."""
        self._metrics.remove(self[name])


REGISTRY = Registry(
    (
        size_metric("questions", "questions", size.questions, "questions"),
        size_metric("index_chunks", "chunks", size.index_chunks, "chunks"),
        size_metric("indexed_chars", "indexed", size.indexed_chars, "characters", title="indexed chars"),
        count_metric(
            "evidence_exists",
            "exists",
            coverage.evidence_exists,
            "questions",
            "higher",
            family="coverage",
            title="evidence exists",
            column=coverage.evidence_exists_column,
        ),
        count_metric(
            "lost",
            "lost",
            coverage.lost,
            "questions",
            "lower",
            family="coverage",
            title="lost (evidence cut)",
            column=coverage.lost_column,
        ),
        count_metric(
            "doc_hits",
            "doc hits",
            coverage.doc_hit,
            "questions",
            "higher",
            family="coverage",
            column=coverage.doc_hit_column,
        ),
        count_metric(
            "complete",
            "complete",
            coverage.complete,
            "questions",
            "higher",
            family="coverage",
            tested=True,
            column=coverage.complete_column,
        ),
        count_metric(
            "pieces",
            "pieces",
            coverage.pieces,
            "questions",
            None,
            family="coverage",
            title="delivered in pieces",
            column=coverage.pieces_column,
        ),
        rate_metric(
            "evidence_recall",
            "ev.recall",
            overlap.evidence_recall,
            family="overlap",
            tested=True,
            title="evidence recall",
            aliases=("evidence recall",),
            column=overlap.evidence_recall_column,
        ),
        rate_metric(
            "precision",
            "prec",
            overlap.precision,
            family="overlap",
            tested=True,
            title="precision",
            column=overlap.precision_column,
        ),
        rate_metric("iou", "IoU", overlap.iou, family="overlap", tested=True, column=overlap.iou_column),
        rate_metric(
            "precision_omega",
            "precΩ",
            overlap.precision_omega,
            family="overlap",
            tested=True,
            title="precision Ω",
            aliases=("precision Ω", "precision_Ω"),
            column=overlap.precision_omega_column,
        ),
        rank_metric("recall", 5, "R@5", rank.recall_at),
        rank_metric("recall", 20, "R@20", rank.recall_at),
        rank_metric("mrr", 10, "MRR@10", rank.reciprocal_rank),
        rank_metric("ndcg", 10, "nDCG@10", rank.ndcg_single),
        count_metric(
            "sent_chars",
            "sent",
            delivery.sent_chars,
            "characters",
            None,
            family="delivery",
            title="sent chars",
            column=delivery.sent_chars_column,
        ),
        count_metric(
            "duplicate_chars",
            "dup",
            delivery.duplicate_chars,
            "characters",
            "lower",
            family="delivery",
            title="re-sent chars",
            column=delivery.duplicate_chars_column,
        ),
    )
)
"""Every metric, in the order of the JSON summary."""

# Token windows: evidence a dense model that reads only its window never saw (dense:window=N only).
REGISTRY.register(
    count_metric(
        "truncated_evidence",
        "past window",
        window.truncated_evidence,
        "questions",
        "lower",
        family="window",
        title="evidence past the window",
        applies=window.has_window,
        column=window.truncated_evidence_column,
        applies_column=window.has_window_column,
    )
)


def _page_metric(name: str, label: str, value: QuestionValue, column: ColumnValue, better: Better | None) -> Metric:
    """A count of questions over page gold, present only when some question names a page."""
    title = {"page_gold": "questions with page gold", "page_hit": "questions whose gold pages were delivered"}[name]
    return count_metric(
        name,
        label,
        value,
        "questions",
        better,
        family="pages",
        title=title,
        applies=pages.has_page_gold,
        column=column,
        applies_column=pages.has_page_gold_column,
    )


# Page gold: questions naming pages (FinanceBench, {"doc": ..., "page": N}); absent from every other report.
REGISTRY.register(_page_metric("page_gold", "page gold", pages.page_gold, pages.page_gold_column, None))
REGISTRY.register(_page_metric("page_hit", "page hit", pages.page_hit, pages.page_hit_column, "higher"))


# Multi-hop questions (HotpotQA, MultiHop-RAG): every hop must be delivered (only when some question has two hops).
REGISTRY.register(
    count_metric(
        "multi_hop_questions",
        "multihop",
        hops.multi_hop,
        "questions",
        None,
        family="hops",
        title="multi-hop questions",
        applies=hops.has_multi_hop,
        column=hops.multi_hop_column,
        applies_column=hops.has_multi_hop_column,
    )
)
REGISTRY.register(
    count_metric(
        "all_hops_delivered",
        "all hops",
        hops.all_hops_delivered,
        "questions",
        "higher",
        family="hops",
        title="all hops within the budget",
        applies=hops.has_multi_hop,
        column=hops.all_hops_delivered_column,
        applies_column=hops.has_multi_hop_column,
    )
)
