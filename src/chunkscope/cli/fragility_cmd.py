"""``chunkscope fragility``: which questions keep their state when the chunk size and overlap move a little."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.analysis.fragility import FragilityResult, fragility, neighbours
from chunkscope.cli import common
from chunkscope.cli.one_config import add_one_config_options, one_config_and_dataset
from chunkscope.cli.progress import add_quiet_option, stage_progress
from chunkscope.io.dataset import Dataset
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.reports.eval import to_json
from chunkscope.reports.fragility import MOST_FRAGILE_SHOWN, fragility_csv, fragility_markdown, fragility_report
from chunkscope.results import Config

NAME = "fragility"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="each question's state when the chunk size and overlap move by 10-20%%: robust OK vs fragile OK",
        description=(
            "Evaluate one configuration and its neighbours (chunk size and overlap at -20%, -10%, +10%, +20%; "
            "an overlap of 0 becomes 5-20% of the size) and report each question's failure cause under each, "
            "the share of neighbours where it differs, and which OK questions are robust and which fragile."
        ),
    )
    add_one_config_options(parser)
    parser.add_argument(
        "--most",
        type=common.positive_int,
        default=MOST_FRAGILE_SHOWN,
        metavar="N",
        help=f"most fragile questions listed in the table and the Markdown report (default {MOST_FRAGILE_SHOWN})",
    )
    add_quiet_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the configuration has neighbours, evaluate them all, print and write reports."""
    # A chunker without a size fails in neighbours, before the data is loaded.
    config, dataset = one_config_and_dataset(args, check=neighbours)
    result = _evaluate(dataset, config)
    common.show_and_write_reports(
        args,
        markdown=lambda: fragility_markdown(dataset, result, args.most),
        json=lambda: to_json(fragility_report(dataset, result)),
        csv=lambda: fragility_csv(result),
    )
    return common.EXIT_OK


def _evaluate(dataset: Dataset, config: Config) -> FragilityResult:
    """The fragility of ``config``, with progress on stderr (:mod:`chunkscope.cli.progress`)."""
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    with stage_progress(config.label) as follow:
        result = fragility(evaluator, config, progress=follow)
    common.report_chunking_problems(evaluator, [config, *(n.config for n in result.neighbours)])
    return result
