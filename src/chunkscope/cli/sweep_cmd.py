"""``chunkscope sweep``: evaluate a grid of configurations."""

from __future__ import annotations

import argparse
from typing import Any

NAME = "sweep"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(NAME, help="sweep two configurations question by question")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Not built yet."""
    raise NotImplementedError
