"""``chunkscope sweep``: evaluate a grid of configurations and test every pair."""

from __future__ import annotations

import argparse
import functools
import math
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.console import Console

from chunkscope.analysis.compare import PairTestsAhead, compare_all
from chunkscope.analysis.equivalence import pairs_equivalence
from chunkscope.analysis.groups import question_tags, restrict, tag_positions
from chunkscope.analysis.paired import tested_metrics
from chunkscope.analysis.sweepmap import Cost, SweepMap
from chunkscope.cli import common, render, rerank_support
from chunkscope.cli.compare_cmd import add_test_options, equivalence_margins, render_equivalence
from chunkscope.cli.group_options import add_group_options, apply_groups, markdown_group_note, with_group_note
from chunkscope.cli.html_output import add_html_option, html_report
from chunkscope.errors import ChunkscopeError, SpecError
from chunkscope.metrics.registry import REGISTRY
from chunkscope.pipeline.config import PUBLISHED_CHUNKERS, make_config
from chunkscope.reports.eval import to_json
from chunkscope.reports.format import metric_label
from chunkscope.reports.sweep import COST_WORDS, ParetoChoice, sweep_csv, sweep_markdown, sweep_report
from chunkscope.results import Config, ConfigResult
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.hybrid import WeightedHybrid
from chunkscope.spec.grammar import SpecDefaults, format_spec

if TYPE_CHECKING:
    from chunkscope.analysis.comparison import ComparisonSet
    from chunkscope.io.dataset import Dataset
    from chunkscope.tui.session import Session

NAME = "sweep"


PRESETS = {"published": PUBLISHED_CHUNKERS}


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="evaluate a grid of chunkers and test every pair of configurations",
        description=(
            "Evaluate a grid of chunkers (default: the published eight), print every configuration's metrics, "
            "mark the best per metric and the configurations significantly below it after Holm's correction "
            "over every pair and metric."
        ),
    )
    common.add_input_options(parser)
    grid = parser.add_argument_group("grid (default: --preset published)")
    grid.add_argument("--size", type=int_list, metavar="N,N,...", help="fixed window sizes, e.g. 100,200,400,800")
    grid.add_argument(
        "--overlap",
        type=number_list,
        metavar="X,X,...",
        help="overlaps: a fraction of the size when < 1 (0.2 = 20%%), characters when >= 1 (default 0)",
    )
    grid.add_argument("--chunker", action="append", metavar="SPEC", help="extra chunker spec (repeatable)")
    grid.add_argument("--preset", choices=sorted(PRESETS), help="built-in grid; published = the eight configurations")
    group = parser.add_argument_group("configuration (shared by every chunker)")
    group.add_argument("--retriever", metavar="SPEC", default="bm25", help="retriever spec (default: bm25)")
    grid.add_argument(
        "--hybrid-alpha",
        type=fraction_list,
        metavar="A,A,...",
        help="with a hybrid --retriever: one configuration per alpha for every chunker, e.g. 0,0.25,0.5,0.75,1",
    )
    common.add_delivery_options(group)
    add_test_options(parser)
    parser.add_argument("--by-tag", action="store_true", help="also break every metric and test down by tag")
    add_group_options(parser)
    add_map_options(parser)
    common.add_output_options(parser)
    add_html_option(parser)
    parser.add_argument(
        "--inspect",
        action="store_true",
        help="then open the inspector on the sweep map (enter on a cell: that configuration as A, the best as B)",
    )
    common.add_jobs_option(parser)
    common.add_executor_option(parser)
    parser.set_defaults(run=run)


COST_CHOICES: dict[str, Cost] = {"chunks": "index_chunks", "chars": "indexed_chars"}
"""``--pareto-cost`` words and the summary metric each reads."""


def add_map_options(parser: argparse.ArgumentParser) -> None:
    """--pareto-metric, --pareto-cost."""
    group = parser.add_argument_group("sweep map and Pareto frontier (reports and the inspector)")
    group.add_argument(
        "--pareto-metric",
        type=pareto_metric,
        metavar="METRIC",
        help=f"tested metric the frontier and the grid use (default {tested_metrics()[0]}, the first tested one)",
    )
    group.add_argument(
        "--pareto-cost",
        choices=sorted(COST_CHOICES),
        default="chunks",
        help="index cost of the frontier: chunks in the index (default) or characters in it",
    )


def pareto_metric(text: str) -> str:
    """argparse type: a tested metric by key, label or alias."""
    try:
        return REGISTRY.parse(text, REGISTRY.tested()).name
    except SpecError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def pareto_choice(args: argparse.Namespace) -> ParetoChoice:
    """The frontier the reports mark."""
    return ParetoChoice(args.pareto_metric, COST_CHOICES[args.pareto_cost])


def int_list(text: str) -> list[int]:
    """argparse type: comma-separated positive integers."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or any(value < 1 for value in values):
        raise argparse.ArgumentTypeError(f"expected comma-separated integers >= 1, got {text!r}")
    return values


def number_list(text: str) -> list[float]:
    """argparse type: comma-separated non-negative numbers."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None
    if not values or any(not math.isfinite(value) or value < 0 for value in values):
        raise argparse.ArgumentTypeError(f"expected comma-separated finite numbers >= 0, got {text!r}")
    return values


def fraction_list(text: str) -> list[float]:
    """argparse type: comma-separated numbers between 0 and 1."""
    values = number_list(text)
    if any(value > 1 for value in values):
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers between 0 and 1, got {text!r}")
    return values


def alpha_retrievers(retriever: str, alphas: Sequence[float] | None, defaults: SpecDefaults) -> list[str]:
    """``retriever`` once per alpha of ``--hybrid-alpha`` (it must then be a hybrid), or alone."""
    if alphas is None:
        return [retriever]
    strategy = parse_retriever(retriever, defaults)
    if not isinstance(strategy, WeightedHybrid):
        raise ChunkscopeError(f"--hybrid-alpha needs a hybrid --retriever (hybrid:bm25+dense), got '{retriever}'")
    return [format_spec(replace(strategy, alpha=alpha)) for alpha in dict.fromkeys(alphas)]


def overlap_chars(size: int, overlap: float) -> int:
    """Overlap in characters: ``round(overlap * size)`` for a fraction (< 1), else ``overlap`` itself."""
    if overlap < 1:
        return round(overlap * size)
    if overlap != int(overlap):
        raise ChunkscopeError(f"--overlap {overlap}: values >= 1 are characters and must be whole numbers")
    return int(overlap)


def grid_chunkers(sizes: Sequence[int], overlaps: Sequence[float]) -> tuple[list[str], list[str]]:
    """Chunker specs of the size x overlap grid, and a note for each combination skipped as invalid."""
    specs: list[str] = []
    notes: list[str] = []
    for size in sizes:
        for overlap in overlaps:
            chars = overlap_chars(size, overlap)
            if chars >= size:
                notes.append(f"skipped size {size} with overlap {overlap:g} ({chars} characters >= size)")
                continue
            specs.append(f"fixed:size={size}" + (f",overlap={chars}" if chars else ""))
    return specs, notes


def sweep_configs(args: argparse.Namespace) -> tuple[list[Config], list[str]]:
    """The configurations to evaluate (duplicates removed, order kept) and notes on skipped combinations."""
    specs: list[str] = []
    notes: list[str] = []
    if args.overlap is not None and args.size is None:
        raise ChunkscopeError("--overlap needs --size (the window sizes it applies to)")
    if args.size is not None:
        specs, notes = grid_chunkers(args.size, args.overlap if args.overlap is not None else [0.0])
        if not specs:
            raise ChunkscopeError(f"every --size/--overlap combination is invalid: {'; '.join(notes)}")
    specs += args.chunker or []
    if args.preset or not specs:
        specs = list(PRESETS[args.preset or "published"]) + specs
    defaults = common.spec_defaults(args)
    configs = [
        make_config(spec, retriever, args.top_k, args.budget, args.overflow, defaults, **common.budget_unit(args))
        for spec in specs
        for retriever in alpha_retrievers(args.retriever, getattr(args, "hybrid_alpha", None), defaults)
    ]
    unique = list(dict.fromkeys(configs))
    if len(unique) < 2:
        skipped = f" ({'; '.join(notes)})" if notes else ""
        raise ChunkscopeError(f"a sweep needs at least two distinct configurations{skipped}")
    return unique, notes


def run(args: argparse.Namespace) -> int:
    """Evaluate the grid, test every pair, print the table and write reports."""
    configs, notes = sweep_configs(args)
    common.check_outputs(args, configs)
    common.check_executor(args)
    if args.inspect and common.stdout_is_data(args):
        raise ChunkscopeError("--inspect takes the terminal: write the reports to files, not to stdout (-)")
    margins = equivalence_margins(args)
    dataset, rules = apply_groups(args, common.load_from_args(args))
    session = inspector_session(dataset, configs[0]) if args.inspect else None
    evaluator = session.evaluator if session is not None else None
    questions = dataset.questions.questions
    # The tests' random numbers are drawn, and each result's values taken, while the configurations are evaluated.
    ahead = PairTestsAhead(len(questions), args.permutations, args.seed)
    results = common.evaluate_all(
        dataset, configs, args.jobs, evaluator, ahead.start, ahead.add, executor=args.executor
    )
    tags = question_tags(questions) if args.by_tag else None
    comparisons = compare_all(results, args.permutations, args.seed, args.alpha, tags=tags, ahead=ahead)
    equivalence = None
    if margins is not None:
        equivalence = pairs_equivalence(results, comparisons.pairs, margins, correct=True)
    effects = rerank_support.effects_for(dataset, results)
    positions = tag_positions([q.id for q in questions], tags or {})
    tag_results = [[restrict(result, positions[group.group]) for result in results] for group in comparisons.by_tag]
    console = render.console(stderr=common.stdout_is_data(args))
    for note in notes:
        print(f"chunkscope: note: {note}", file=sys.stderr)
    first = configs[0]
    budget = "no budget" if first.budget is None else f"budget {first.budget} {first.budget_units} ({first.overflow})"
    title = (
        f"{dataset.name}: {len(dataset.corpus.documents)} documents, {len(questions)} questions; "
        f"top-{first.top_k}, {budget}"
    )
    render.sweep_table(console, title, comparisons, results)
    render.sweep_legend(console, comparisons)
    pareto = pareto_choice(args)
    print_frontier(console, pareto.map(comparisons, results))
    render_equivalence(console, comparisons.pairs, equivalence)
    rerank_support.print_effects(console, results, effects)
    for group, group_results in zip(comparisons.by_tag, tag_results, strict=True):
        render.sweep_table(
            console, f"tag {group.group} ({group_results[0].summary.questions} questions)", group, group_results
        )
    report = functools.cache(
        lambda: with_group_note(
            sweep_report(dataset, results, comparisons, tag_results, equivalence, effects, pareto), rules
        )
    )
    common.write_outputs(
        args,
        {
            "json": lambda: to_json(report()),
            "html": lambda: html_report("sweep", report(), dataset, results),
            "csv": lambda: sweep_csv(comparisons, results, tag_results, equivalence, effects, pareto),
            "markdown": lambda: markdown_group_note(
                sweep_markdown(dataset, results, comparisons, tag_results, equivalence, effects, pareto), rules
            ),
        },
    )
    if session is not None:
        open_inspector(session, comparisons, results, pareto)
    return common.EXIT_OK


def print_frontier(console: Console, view: SweepMap) -> None:
    """One line: the Pareto frontier of the map's metric against its cost, cheapest first."""
    points = ", ".join(
        f"{p.label} ({p.cost(view.cost):,} {COST_WORDS[view.cost].split()[0]}, {p.value:.4f})" for p in view.frontier
    )
    console.print(
        f"Pareto frontier of {metric_label(view.metric)} against {COST_WORDS[view.cost]}, cheapest first: {points}",
        highlight=False,
    )


def inspector_session(dataset: Dataset, first: Config) -> Session:
    """The inspector's session, made before the sweep so its evaluator keeps every result for the app."""
    from chunkscope.tui.session import Session  # the inspector loads only for --inspect

    return Session(dataset, first)


def open_inspector(
    session: Session, comparisons: ComparisonSet, results: Sequence[ConfigResult], pareto: ParetoChoice
) -> None:
    """Run the inspector on the sweep map, with the best configuration of the map's metric as A."""
    from chunkscope.tui.app import ChunkscopeApp
    from chunkscope.tui.screens.sweep_map import SweepInput

    sweep = SweepInput(comparisons, tuple(results), pareto.metric, pareto.cost)
    session.request("a", comparisons.configs[comparisons.best(pareto.metric or comparisons.metrics[0])])
    ChunkscopeApp(session, sweep=sweep).run()
