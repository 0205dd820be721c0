"""The ``chunkscope`` command: a thin layer over the core.

Data goes to stdout, diagnostics to stderr. Bad input exits with code 2 and a
one-line message; a failed CI gate exits with 1. The streams never end a command
in a traceback (:mod:`chunkscope.cli.process`): a reader that goes away ends the
output quietly and leaves the exit code to the command; a stdout that cannot be
written (a full disk) is one error line and exit 2.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence

from chunkscope import __version__
from chunkscope.allocator import tune_allocator
from chunkscope.cli import (
    chunks_cmd,
    compare_cmd,
    corpus_cmd,
    drift_cmd,
    eval_cmd,
    explain_cmd,
    fragility_cmd,
    gold_cmd,
    inspect_cmd,
    report_cmd,
    serve_cmd,
    sweep_cmd,
    tokens_cmd,
    tune_cmd,
    whatif_cmd,
)
from chunkscope.cli.common import EXIT_INPUT, report_error
from chunkscope.cli.process import cleanup_on_sigterm, guarded_streams, one_line_warnings
from chunkscope.cli.progress import quiet_while
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
    tokens_cmd,
    report_cmd,
    serve_cmd,
    drift_cmd,
    tune_cmd,
    corpus_cmd,
)
"""Each module offers ``NAME``, ``add_parser(subparsers)`` and ``run(args) -> int``."""


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with one subparser per command."""
    parser = argparse.ArgumentParser(
        prog="chunkscope",
        description="See what chunking did to retrieval: gold spans cut by boundaries, ranks, context budgets.",
        epilog="Without a command, chunkscope opens the inspector: 'chunkscope --squad FILE' is "
        "'chunkscope inspect --squad FILE' (see chunkscope inspect --help).",
    )
    parser.add_argument("--version", action="version", version=f"chunkscope {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    with guarded_streams() as (stdout, _), cleanup_on_sigterm(), one_line_warnings():
        unknown = unknown_command(arguments, parser)
        if unknown is not None:
            return report_error(ChunkscopeError(unknown))
        arguments = with_default_command(arguments)
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


TOP_LEVEL_OPTIONS = ("-h", "--help", "--version")
"""Options of ``chunkscope`` itself; any other leading option belongs to the inspector (the default command)."""


def with_default_command(arguments: Sequence[str]) -> list[str]:
    """``arguments`` with ``inspect`` put first when they name no command: bare ``chunkscope`` and
    ``chunkscope --squad FILE ...`` open the inspector as ``chunkscope inspect ...`` does."""
    if not arguments or (arguments[0].startswith("-") and arguments[0] not in TOP_LEVEL_OPTIONS):
        return ["inspect", *arguments]
    return list(arguments)


def unknown_command(arguments: Sequence[str], parser: argparse.ArgumentParser) -> str | None:
    """The one-line error for a word that is no command (``evl``: did you mean eval?), else None.

    The first word is checked against the commands of ``parser``, and the word after a command that has
    subcommands (``gold chek``) against those.
    """
    if not arguments or arguments[0].startswith("-"):
        return None
    word = arguments[0]
    commands = _subcommands(parser)
    if word not in commands:
        return _unknown(word, "command", tuple(commands), "; options alone open the inspector")
    subcommands = _subcommands(commands[word])
    if subcommands and len(arguments) > 1 and not arguments[1].startswith("-") and arguments[1] not in subcommands:
        return _unknown(arguments[1], f"{word} subcommand", tuple(subcommands))
    return None


def _unknown(word: str, what: str, names: Sequence[str], otherwise: str = "") -> str:
    """``unknown command 'evl': did you mean eval?``, or the valid names when none is close."""
    starting = [name for name in names if name.startswith(word)]
    close = starting if len(starting) == 1 else difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    if close:
        return f"unknown {what} {word!r}: did you mean {close[0]}?"
    return f"unknown {what} {word!r} (valid: {', '.join(names)}{otherwise})"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands of ``parser`` by name (none for a command without)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _run(args: argparse.Namespace) -> int:
    try:
        with quiet_while(getattr(args, "quiet", False)):
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
