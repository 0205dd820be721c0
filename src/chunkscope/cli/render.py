"""Rich rendering of core values for the terminal."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from chunkscope.io.sources import Dataset
from chunkscope.metrics.registry import REGISTRY, Metric
from chunkscope.reports.format import format_p, metric_label, summary_cell, verdict
from chunkscope.results import ConfigResult, Summary

if TYPE_CHECKING:
    from chunkscope.analysis.comparison import Comparison, ComparisonSet, MetricTest
    from chunkscope.analysis.groups import TagGroup

BUCKETS_HEADER = "1/2-5/6-20/miss"
EVAL_TABLE_LEAD = ("index_chunks", "lost")
"""Metrics before the tested ones in the eval and sweep tables."""
CHARACTER_TABLE_LEAD = ("pieces",)
"""Metrics before the character-overlap ones in the eval and sweep tables of evidence characters."""
CHARACTER_FAMILY = "overlap"
"""Tested metrics of this family get a table of their own (one table of every metric is too wide)."""
TAG_TABLE_LEAD = ("lost",)
"""Metrics before the tested ones in the tag table."""
EVAL_TABLE_TRAIL = ("duplicate_chars",)
"""Metrics after the tested ones in the eval table."""
SWEEP_TABLE_TRAIL = ("doc_hits", "sent_chars", "duplicate_chars")
"""Metrics after the rank buckets in the sweep table."""


def console(stderr: bool = False) -> Console:
    """A console on stdout, or stderr when stdout carries data."""
    stream = sys.stderr if stderr else sys.stdout
    # Piped output has no terminal width; keep tables readable rather than 80 columns.
    width = None if stream.isatty() else 160
    return Console(stderr=stderr, highlight=False, width=width)


def eval_table(out: Console, dataset: Dataset, results: Sequence[ConfigResult]) -> None:
    """The per-configuration metrics table: size and loss, rank metrics, rank buckets, the other tested metrics."""
    questions = dataset.questions
    title = f"{dataset.name}: {len(dataset.corpus.documents)} documents, {len(questions.questions)} questions"
    table = Table(title=title, title_justify="left")
    table.add_column("configuration", overflow="fold")
    tested, characters = _split_tested()
    ranked = [m for m in tested if m.family == "rank"]
    others = [m for m in tested if m.family != "rank"]
    lead = [REGISTRY[name] for name in EVAL_TABLE_LEAD]
    trail = [REGISTRY[name] for name in EVAL_TABLE_TRAIL]
    for header in (*(m.label for m in [*lead, *ranked]), BUCKETS_HEADER, *(m.label for m in [*others, *trail])):
        table.add_column(header, justify="right", no_wrap=True)
    for result in results:
        s = result.summary
        table.add_row(
            result.config.label,
            *(_cell(m, s) for m in [*lead, *ranked]),
            _buckets(s),
            *(_cell(m, s) for m in [*others, *trail]),
        )
    out.print(table)
    config = results[0].config if results else None
    if config is not None:
        budget = (
            "no budget"
            if config.budget is None
            else f"budget {config.budget} {config.budget_units} ({config.overflow})"
        )
        out.print(
            f"delivery: top-{config.top_k}, {budget} · miss counts lost questions too (lost: no chunk holds the "
            "evidence) · dup: characters sent twice",
            style="dim",
        )
    if characters:
        _character_table(out, results, characters)
    _page_lines(out, results)
    hop_lines(out, results)
    if questions.excluded:
        reasons = ", ".join(f"{reason}: {count}" for reason, count in questions.excluded_reasons.items())
        out.print(f"excluded at load: {questions.excluded} questions ({reasons})", style="dim")


def _page_lines(out: Console, results: Sequence[ConfigResult]) -> None:
    """``page hit: 3 of 4 questions with page gold``, per configuration, when the questions name pages."""
    for result in results:
        summary = result.summary
        if "page_hit" in summary:
            out.print(
                f"{result.config.label}: page hit {summary.count('page_hit')} of {summary.count('page_gold')} "
                "questions with page gold (a delivered chunk shares a character with each gold page)",
                style="dim",
            )


def hop_lines(out: Console, results: Sequence[ConfigResult]) -> None:
    """Multi-hop question sets only: per configuration, all hops within the budget and hops delivered per question."""
    for result in results:
        summary = result.summary
        if "all_hops_delivered" not in summary:
            continue
        counts: dict[tuple[int, int], int] = {}
        for question in result.questions:
            if question.hop_count >= 2:
                key = (question.hops_delivered, question.hop_count)
                counts[key] = counts.get(key, 0) + 1
        spread = ", ".join(f"{got} of {total}: {counts[got, total]}" for got, total in sorted(counts))
        out.print(
            f"hops · {result.config.label}: all hops within the budget {int(summary['all_hops_delivered'])}/"
            f"{int(summary['multi_hop_questions'])} multi-hop questions ({spread})",
            style="dim",
        )


def _split_tested() -> tuple[list[Metric], list[Metric]]:
    """The tested metrics: those of the main table, and the character-overlap ones."""
    tested = REGISTRY.tested()
    return [m for m in tested if m.family != CHARACTER_FAMILY], [m for m in tested if m.family == CHARACTER_FAMILY]


CHARACTER_TITLE = "evidence characters delivered (Chroma's measures: per question, then the mean)"
CHARACTER_NOTE = (
    "delivered in pieces: not complete, yet every evidence character was sent, split across chunks · "
    "precision and IoU: over every character sent, prefixes too"
)


def _character_table(out: Console, results: Sequence[ConfigResult], metrics: Sequence[Metric]) -> None:
    """Questions delivered in pieces and the character-overlap metrics, one row per configuration."""
    table = Table(title=CHARACTER_TITLE, title_justify="left")
    table.add_column("configuration", overflow="fold")
    lead = [REGISTRY[name] for name in CHARACTER_TABLE_LEAD]
    for metric in [*lead, *metrics]:
        table.add_column(metric.heading, justify="right", no_wrap=True)
    for result in results:
        table.add_row(result.config.label, *(_cell(m, result.summary) for m in [*lead, *metrics]))
    out.print(table)
    out.print(CHARACTER_NOTE, style="dim")


# ------------------------------------------------- diagnosis, tags, compare, sweep


def diagnosis_table(out: Console, results: Sequence[ConfigResult]) -> None:
    """Failure causes per configuration and where to look first."""
    from chunkscope.analysis.diagnose import FailureCause, diagnose

    table = Table(title="failure causes (one per question)", title_justify="left")
    table.add_column("configuration", overflow="fold")
    diagnoses = [diagnose(result) for result in results]
    causes = [cause for cause in FailureCause if any(cause in d.counts for d in diagnoses)]
    for cause in causes:
        table.add_column(cause.value, justify="right", no_wrap=True)
    table.add_column("look first at")
    for result, diagnosis in zip(results, diagnoses, strict=True):
        stage = diagnosis.look_first
        table.add_row(
            escape(result.config.label),
            *(str(diagnosis.counts[cause]) if diagnosis.counts.get(cause) else "·" for cause in causes),
            "—" if stage is None else stage.name,
        )
    out.print(table)


def tag_table(out: Console, groups: Sequence[TagGroup]) -> None:
    """Every metric per tag and configuration (a question counts in each of its tags)."""
    table = Table(title="by tag (a question counts in each of its tags)", title_justify="left")
    table.add_column("tag")
    table.add_column("n", justify="right")
    table.add_column("configuration", overflow="fold")
    metrics = [*(REGISTRY[name] for name in TAG_TABLE_LEAD), *REGISTRY.tested()]
    for metric in metrics:
        table.add_column(metric.label, justify="right", no_wrap=True)
    for group in groups:
        for position, result in enumerate(group.results):
            s = result.summary
            table.add_row(
                escape(group.tag) if position == 0 else "",
                str(s.questions) if position == 0 else "",
                escape(result.config.label),
                *(summary_cell(m, s, 3) for m in metrics),
                end_section=position == len(group.results) - 1,
            )
    out.print(table)


def comparison_view(out: Console, dataset: Dataset, comparison: Comparison, moved_limit: int = 25) -> None:
    """The compare report: metric tests, counts, transition matrix, questions that moved worst first."""
    from chunkscope.analysis.comparison import STATES

    a, b = comparison.a, comparison.b
    out.print(f"[bold]A[/] {escape(a.label)}   [bold]B[/] {escape(b.label)}")
    budget = "no budget" if a.budget is None else f"budget {a.budget} {a.budget_units} ({a.overflow})"
    out.print(f"{dataset.name}: {comparison.questions} questions; delivery top-{a.top_k}, {budget}", style="dim")
    tests = Table(title="metrics (paired, per question)", title_justify="left")
    tests.add_column("metric")
    for header in ("A", "B", "Δ B−A", "95% CI", "p", "p raw", ""):
        tests.add_column(header, justify="right" if header else "left", no_wrap=True)
    for test in comparison.tests:
        tests.add_row(
            metric_label(test.metric),
            f"{test.mean_a:.4f}",
            f"{test.mean_b:.4f}",
            f"{test.delta:+.4f}",
            f"[{test.ci_low:+.3f}, {test.ci_high:+.3f}]",
            format_p(test.p_value),
            format_p(test.p_value_raw),
            _rich_verdict(test),
        )
    out.print(tests)
    correction = (
        "no correction (one pair)" if comparison.correction == "none" else f"Holm over {comparison.family_size} tests"
    )
    out.print(
        f"sign-flip permutation test, {comparison.permutations:,} permutations, seed {comparison.seed}; "
        f"bootstrap 95% CI; {correction}; alpha {comparison.alpha}. Not significant does not mean equal.",
        style="dim",
    )
    out.print(
        f"first correct rank: [green]{comparison.better} better[/], [red]{comparison.worse} worse[/], "
        f"{comparison.same} same · [green]{comparison.recovered} recovered[/], "
        f"[red]{comparison.newly_lost} newly lost[/] · complete: +{comparison.complete_gained} "
        f"−{comparison.complete_lost}"
    )
    matrix = Table(title="transitions (rows: A, columns: B)", title_justify="left")
    matrix.add_column("A \\ B")
    for state in STATES:
        matrix.add_column(state, justify="right")
    for row_state, row in zip(STATES, comparison.transitions, strict=True):
        cells = (_transition_cell(n, s == row_state) for s, n in zip(STATES, row, strict=True))
        matrix.add_row(row_state, *cells)
    out.print(matrix)
    _moved_table(out, comparison, moved_limit)
    if comparison.by_tag:
        _tag_deltas(out, comparison)


def _transition_cell(count: int, diagonal: bool) -> str:
    if not count:
        return "·"
    return f"[bold]{count}[/]" if diagonal else str(count)


def _moved_table(out: Console, comparison: Comparison, limit: int) -> None:
    moved = comparison.moved
    if not moved:
        out.print("no question moved")
        return
    table = Table(title=f"questions that moved, worst first ({len(moved)})", title_justify="left")
    for header in ("question", "rank A", "rank B", "state A → B", "cause A → B"):
        table.add_column(header, justify="right" if header.startswith("rank") else "left", no_wrap=True)
    for move in moved[:limit]:
        bad = move.newly_lost or move.movement == "worse" or move.complete_lost
        style = "red" if bad else ("green" if move.movement == "better" or move.complete_gained else "")
        table.add_row(
            escape(move.question_id),
            "–" if move.rank_a is None else str(move.rank_a),
            "–" if move.rank_b is None else str(move.rank_b),
            f"{move.state_a} → {move.state_b}",
            f"{move.cause_a.value} → {move.cause_b.value}",
            style=style,
        )
    out.print(table)
    if len(moved) > limit:
        out.print(f"… {len(moved) - limit} more (all of them in --json/--csv)", style="dim")


def _tag_deltas(out: Console, comparison: Comparison) -> None:
    """Per tag: the rank moves and each test's delta, the character-overlap tests in a second table."""
    names = [test.metric for test in comparison.tests]
    characters = [name for name in names if REGISTRY[name].family == CHARACTER_FAMILY]
    main = [name for name in names if name not in characters]
    title = "by tag: Δ B−A (p, not corrected across tags and metrics)"
    for metrics, counts in ((main, True), (characters, False)):
        if not metrics:
            continue
        table = Table(title=title if counts else f"{title}, evidence characters", title_justify="left")
        for header in ("tag", "n", *(("better", "worse", "newly lost") if counts else ())):
            table.add_column(header, justify="left" if header == "tag" else "right")
        for name in metrics:
            table.add_column(metric_label(name), justify="right", no_wrap=True)
        for group in comparison.by_tag:
            moves = (str(group.better), str(group.worse), str(group.newly_lost)) if counts else ()
            tests = [group.test(name) for name in metrics]
            table.add_row(
                escape(group.group),
                str(group.questions),
                *moves,
                *(_bold_if(t.significant, f"{t.delta:+.3f} ({format_p(t.p_value)})") for t in tests),
            )
        out.print(table)


def sweep_table(out: Console, title: str, comparisons: ComparisonSet, results: Sequence[ConfigResult]) -> None:
    """Every configuration with chunk counts and metrics (the character-overlap ones in a table of their own);
    best per metric bold, ↓ significantly below it."""
    characters = [name for name in comparisons.metrics if REGISTRY[name].family == CHARACTER_FAMILY]
    main = [name for name in comparisons.metrics if name not in characters]
    table = Table(title=title, title_justify="left")
    table.add_column("configuration", overflow="fold")
    lead = [REGISTRY[name] for name in EVAL_TABLE_LEAD]
    trail = [REGISTRY[name] for name in SWEEP_TABLE_TRAIL]
    for size in lead:
        table.add_column(size.label, justify="right")
    for name in main:
        table.add_column(metric_label(name), justify="right", no_wrap=True)
    for header in (BUCKETS_HEADER, *(m.label for m in trail)):
        table.add_column(header, justify="right", no_wrap=True)
    for index, result in enumerate(results):
        s = result.summary
        table.add_row(
            escape(result.config.label),
            *(_cell(m, s) for m in lead),
            *_marked_means(comparisons, index, main),
            _buckets(s),
            *(_cell(m, s) for m in trail),
        )
    out.print(table)
    if characters:
        _sweep_character_table(out, comparisons, results, characters)


def _sweep_character_table(
    out: Console, comparisons: ComparisonSet, results: Sequence[ConfigResult], metrics: Sequence[str]
) -> None:
    table = Table(title=CHARACTER_TITLE, title_justify="left")
    table.add_column("configuration", overflow="fold")
    lead = [REGISTRY[name] for name in CHARACTER_TABLE_LEAD]
    for metric in lead:
        table.add_column(metric.heading, justify="right")
    for name in metrics:
        table.add_column(REGISTRY[name].heading, justify="right", no_wrap=True)
    for index, result in enumerate(results):
        table.add_row(
            escape(result.config.label),
            *(_cell(m, result.summary) for m in lead),
            *_marked_means(comparisons, index, metrics),
        )
    out.print(table)
    out.print(CHARACTER_NOTE, style="dim")


def _marked_means(comparisons: ComparisonSet, index: int, metrics: Sequence[str]) -> list[str]:
    """Configuration ``index``'s mean of each of ``metrics``, with its sweep mark."""
    from chunkscope.reports.sweep import sweep_marks

    cells = []
    for metric in metrics:
        value = f"{comparisons.means[index][comparisons.metrics.index(metric)]:.4f}"
        cells.append(_SWEEP_MARKS[sweep_marks(comparisons, metric)[index]].format(value))
    return cells


def sweep_legend(out: Console, comparisons: ComparisonSet) -> None:
    """What ★ and ↓ mean, and the correction family."""
    out.print(
        f"★ best mean per metric; ↓ below the best with Holm-corrected p < {comparisons.alpha} "
        f"({len(comparisons.pairs)} pairs × {len(comparisons.metrics)} metrics = {comparisons.family_size} tests, "
        "paired sign-flip permutation test). No mark: no detectable difference from the best, "
        "which does not mean equal.",
        style="dim",
    )


_SWEEP_MARKS = {"best": "[bold green]{} ★[/]", "worse": "{} ↓", "": "{}  "}


def _cell(metric: Metric, summary: Summary) -> str:
    """A summary cell with rates to 3 decimals and ``lost`` in red when any evidence is lost."""
    text = summary_cell(metric, summary, 3)
    return f"[red]{text}[/]" if metric.name == "lost" and summary[metric.name] else text


def _buckets(summary: Summary) -> str:
    b = summary.rank_buckets
    return f"{b['1']}/{b['2-5']}/{b['6-20']}/{b['miss']}"


def _rich_verdict(test: MetricTest) -> str:
    """The comparison verdict, coloured: green when B is significantly better, red when worse."""
    text = verdict(test)
    colour = {"B better": "green", "B worse": "red"}.get(text, "dim")
    return f"[{colour}]{text}[/]"


def _bold_if(condition: bool, text: str) -> str:
    return f"[bold]{text}[/]" if condition else text
