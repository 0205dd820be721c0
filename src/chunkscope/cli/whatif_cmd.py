"""``chunkscope whatif``: the smallest boundary change that keeps each lost question's evidence whole."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.cli import common
from chunkscope.cli.one_config import add_one_config_options, one_config_and_dataset

NAME = "whatif"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="the smallest size, overlap or shift that keeps each lost question's evidence whole",
        description=(
            "For each gold span no chunk holds whole (of the lost questions): the smallest size increase, the "
            "smallest overlap and the smallest shift (fixed), or the smallest size (recursive, markdown), that "
            "keeps it whole with the rest of the spec unchanged; then the single setting that recovers the most "
            "lost questions for the least index growth. Only chunking is done: the retriever and delivery "
            "options are accepted, as for eval, and do not change the result."
        ),
    )
    add_one_config_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Chunk with the configuration, solve each cut span, evaluate every option as the setting, report."""
    # Imported here: every command's parser is built at start-up, and the others never need these.
    from chunkscope.analysis.whatif import whatif
    from chunkscope.reports.eval import to_json
    from chunkscope.reports.whatif import whatif_csv, whatif_markdown, whatif_report

    config, dataset = one_config_and_dataset(args)
    result = whatif(config.chunker, dataset.corpus, dataset.questions.questions)
    common.show_and_write_reports(
        args,
        markdown=lambda: whatif_markdown(result),
        json=lambda: to_json(whatif_report(result)),
        csv=lambda: whatif_csv(result),
    )
    return common.EXIT_OK
