"""``chunkscope compare``: paired comparison of two configurations."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.analysis.compare import DEFAULT_PERMUTATIONS, compare
from chunkscope.analysis.groups import question_tags
from chunkscope.cli import common, render
from chunkscope.pipeline.config import parse_config
from chunkscope.reports.compare import compare_csv, compare_markdown, compare_report
from chunkscope.reports.eval import to_json

NAME = "compare"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="compare two configurations question by question, with paired significance tests",
        description=(
            "Compare configuration A against B on the same questions: per-question rank changes, recovered and "
            "newly lost evidence, the bucket transition matrix, and a paired permutation test with a bootstrap "
            "confidence interval per metric. Not significant does not mean equal."
        ),
    )
    parser.add_argument("a", metavar="A", help="configuration A: CHUNKER[/RETRIEVER], e.g. fixed:size=400,overlap=80")
    parser.add_argument("b", metavar="B", help="configuration B, e.g. paragraph/bm25")
    common.add_input_options(parser)
    group = parser.add_argument_group("configuration (shared by A and B)")
    group.add_argument("--retriever", metavar="SPEC", default="bm25", help="retriever when A or B names none")
    common.add_delivery_options(group)
    add_test_options(parser)
    parser.add_argument("--by-tag", action="store_true", help="also compare per question tag")
    common.add_output_options(parser)
    common.add_jobs_option(parser)
    parser.set_defaults(run=run)


def add_test_options(parser: argparse.ArgumentParser) -> None:
    """--permutations, --seed, --alpha."""
    group = parser.add_argument_group("significance tests")
    group.add_argument(
        "--permutations",
        type=common.positive_int,
        default=DEFAULT_PERMUTATIONS,
        metavar="N",
        help=f"sign-flip permutations and bootstrap resamples (default {DEFAULT_PERMUTATIONS:,})",
    )
    group.add_argument("--seed", type=common.non_negative_int, default=0, help="random seed of the tests (default 0)")
    group.add_argument("--alpha", type=probability, default=0.05, help="significance level (default 0.05)")


def probability(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    value = float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got {text}")
    return value


def run(args: argparse.Namespace) -> int:
    """Evaluate both configurations, compare, print and write reports."""
    defaults = common.spec_defaults(args)
    configs = [
        parse_config(text, args.retriever, args.top_k, args.budget, args.overflow, defaults)
        for text in (args.a, args.b)
    ]
    common.check_outputs(args, configs)
    dataset = common.load_from_args(args)
    results = common.evaluate_all(dataset, configs, args.jobs)
    tags = question_tags(dataset.questions.questions) if args.by_tag else None
    comparison = compare(results[0], results[1], args.permutations, args.seed, args.alpha, tags=tags)
    console = render.console(stderr=common.stdout_is_data(args))
    render.comparison_view(console, dataset, comparison)
    common.write_outputs(
        args,
        {
            "json": lambda: to_json(compare_report(dataset, results, comparison)),
            "csv": lambda: compare_csv(comparison),
            "markdown": lambda: compare_markdown(dataset, comparison),
        },
    )
    return common.EXIT_OK
