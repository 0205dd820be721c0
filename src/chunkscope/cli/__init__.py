"""The ``chunkscope`` command: a thin layer over the core.

Data goes to stdout, diagnostics to stderr. Bad input exits with code 2 and a
one-line message; a failed CI gate exits with 1. The streams never end a command
in a traceback (:mod:`chunkscope.cli.process`): a reader that goes away ends the
output quietly and leaves the exit code to the command; a stdout that cannot be
written (a full disk) is one error line and exit 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from chunkscope import __version__
from chunkscope.allocator import tune_allocator
from chunkscope.cli import (
    chunks_cmd,
    compare_cmd,
    drift_cmd,
    eval_cmd,
    explain_cmd,
    fragility_cmd,
    gold_cmd,
    inspect_cmd,
    sweep_cmd,
    tune_cmd,
    whatif_cmd,
)
from chunkscope.cli.common import EXIT_INPUT, report_error
from chunkscope.cli.process import cleanup_on_sigterm, guarded_streams, one_line_warnings
from chunkscope.errors import ChunkscopeError
from chunkscope.io.streams import GuardedStream

COMMANDS = (
    eval_cmd,
    compare_cmd,
    sweep_cmd,
    inspect_cmd,
    gold_cmd,
    chunks_cmd,
    explain_cmd,
    fragility_cmd,
    whatif_cmd,
    drift_cmd,
    tune_cmd,
)
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
    with guarded_streams() as (stdout, _), cleanup_on_sigterm(), one_line_warnings():
        try:
            args = parser.parse_args(arguments)
        except SystemExit as done:
            if done.code not in (0, None):
                raise
            return _stdout_checked(0, stdout)  # --help and --version: their text must reach stdout too
        if args.command is None:
            parser.print_help()
            return EXIT_INPUT
        if args.command != "inspect":  # the inspector owns the terminal and its own streams
            tune_allocator()  # before any worker is forked: they inherit it
            return _stdout_checked(_run(args), stdout)
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        code: int = args.run(args)
    except (ChunkscopeError, ValueError) as exc:
        return report_error(exc)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a system call refused on the way (the loaders name the usual ones themselves)
        return report_error(ChunkscopeError(_system_error(exc)))
    return code


def _system_error(exc: OSError) -> str:
    """``file: reason`` for an OSError, in one line."""
    reason = exc.strerror or str(exc)
    return f"{exc.filename}: {reason}" if exc.filename is not None else reason


def _stdout_checked(code: int, stdout: GuardedStream) -> int:
    """``code``, unless standard output could not be written (a full disk, an I/O error): then exit 2.

    A reader that went away (``| head``) is no failure: the exit code stays the command's.
    """
    stdout.flush()
    if stdout.failure is None:
        return code
    reason = stdout.failure.strerror or str(stdout.failure)
    print(f"chunkscope: error: cannot write to standard output: {reason}", file=sys.stderr)
    return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())
