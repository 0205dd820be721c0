"""The ``chunkscope`` command: a thin layer over the core.

Data goes to stdout, diagnostics to stderr. Bad input exits with code 2 and a
one-line message; a failed CI gate exits with 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from chunkscope import __version__
from chunkscope.cli import chunks_cmd, compare_cmd, eval_cmd, inspect_cmd, sweep_cmd
from chunkscope.cli.common import EXIT_INPUT, report_error
from chunkscope.errors import ChunkscopeError

COMMANDS = (eval_cmd, compare_cmd, sweep_cmd, inspect_cmd, chunks_cmd)
"""Each module offers ``NAME``, ``add_parser(subparsers)`` and ``run(args) -> int``."""


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="chunkscope",
        description="See what chunking did to retrieval: gold spans cut by boundaries, ranks, context budgets.",
    )
    parser.add_argument("--version", action="version", version=f"chunkscope {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments:
        arguments = ["inspect"]
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.command is None:
        parser.print_help()
        return EXIT_INPUT
    try:
        code: int = args.run(args)
    except (ChunkscopeError, ValueError) as exc:
        return report_error(exc)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
