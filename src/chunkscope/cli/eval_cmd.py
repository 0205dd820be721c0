"""``chunkscope eval``: evaluate one or more configurations."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.cli import common, render
from chunkscope.report import eval_report, to_csv, to_json, to_markdown

NAME = "eval"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="evaluate configurations and print their metrics",
        description="Evaluate chunker/retriever configurations on a question set with gold evidence spans.",
    )
    common.add_input_options(parser)
    common.add_config_options(parser)
    common.add_output_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print."""
    configs = common.configs_from_args(args)
    dataset = common.load_from_args(args)
    results = common.evaluate_all(dataset, configs)
    console = render.console(stderr=common.stdout_is_data(args))
    render.eval_table(console, dataset, results)
    common.write_outputs(
        args,
        {
            "json": lambda: to_json(eval_report(dataset, results)),
            "csv": lambda: to_csv(results),
            "markdown": lambda: to_markdown(dataset, results),
        },
    )
    return common.EXIT_OK
