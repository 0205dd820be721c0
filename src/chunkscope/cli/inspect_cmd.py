"""``chunkscope inspect``: the Textual inspector (also what bare ``chunkscope`` runs)."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.cli import common
from chunkscope.configspec import parse_config

NAME = "inspect"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="open the terminal inspector (default command)",
        description="Step through failing questions, change the configuration live, compare two side by side.",
    )
    common.add_input_options(parser)
    common.add_config_options(parser, many_chunkers=False)
    parser.add_argument(
        "--compare",
        metavar="CONFIG",
        help="open the split view with a second configuration CHUNKER[/RETRIEVER], e.g. fixed:size=200,overlap=40",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load and validate everything first (bad input: one line, exit 2), then hand over to the app."""
    (config_a,) = common.configs_from_args(args, [args.chunker])
    config_b = (
        parse_config(args.compare, args.retriever, args.top_k, args.budget, args.overflow) if args.compare else None
    )
    dataset = common.load_from_args(args)
    # Textual is imported only here, so the headless commands never load it.
    from chunkscope.tui.app import ChunkscopeApp
    from chunkscope.tui.session import Session

    ChunkscopeApp(Session(dataset, config_a, config_b), open_compare=config_b is not None).run()
    return common.EXIT_OK
