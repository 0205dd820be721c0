"""``chunkscope inspect``: the Textual inspector (also what bare ``chunkscope`` runs)."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.cli import common

NAME = "inspect"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(NAME, help="open the terminal inspector (default command)")
    common.add_input_options(parser)
    common.add_config_options(parser, many_chunkers=False)
    parser.add_argument("--compare", metavar="CONFIG", help="open the split view with a second configuration")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load, then hand over to the Textual app."""
    print("the inspector is not built yet", flush=True)
    return common.EXIT_INPUT
