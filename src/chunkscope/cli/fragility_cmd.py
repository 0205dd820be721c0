"""``chunkscope fragility``: which questions keep their state when the chunk size and overlap move a little."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.analysis.fragility import FragilityResult, fragility, neighbours
from chunkscope.cli import common
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
    common.add_input_options(parser)
    common.add_config_options(parser, many_chunkers=False)
    common.add_output_options(parser)
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
    config = common.configs_from_args(args, [args.chunker])[0]
    neighbours(config)  # a chunker without a size fails here, before the data is loaded
    common.check_outputs(args, [config])
    dataset = common.load_from_args(args)
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
