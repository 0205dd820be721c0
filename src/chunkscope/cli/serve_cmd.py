"""``chunkscope serve``: the inspector in a browser, served by textual-serve (Textual's own way to serve an app).

Each browser tab that connects runs its own ``chunkscope inspect`` with the arguments given after ``--``.
Bound to 127.0.0.1 by default; any other address is reachable by others, who can then read the corpus,
so binding to one prints a warning.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys
from typing import Any

from chunkscope.cli import common, inspect_cmd
from chunkscope.errors import MissingExtraError

NAME = "serve"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
INSPECT = [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())", "inspect"]
"""How each connection starts the inspector: this interpreter, so the same installation serves it."""


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="serve the inspector in a browser (textual-serve; needs chunkscope[serve])",
        description=(
            "Serve the inspector over HTTP: every browser tab runs its own inspector. Arguments after '--' go to "
            "'chunkscope inspect' (e.g. chunkscope serve -- --corpus docs --questions q.jsonl). Bound to "
            f"{DEFAULT_HOST} by default: whoever reaches the address can read the corpus."
        ),
    )
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to bind (default {DEFAULT_HOST})")
    parser.add_argument("--port", type=common.positive_int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("inspect_args", nargs=argparse.REMAINDER, metavar="-- INSPECT-ARGS", help="for inspect")
    parser.set_defaults(run=run)


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches (127.0.0.0/8, ::1, ``localhost``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_inspect_args(inspect_args: list[str]) -> None:
    """Parse the inspector's arguments now, so a bad one fails once here and not in every browser tab."""
    parser = argparse.ArgumentParser(prog="chunkscope")
    inspect_cmd.add_parser(parser.add_subparsers())
    rest = inspect_args[1:] if inspect_args[:1] == ["--"] else inspect_args
    parser.parse_args(["inspect", *rest])


def inspect_command(inspect_args: list[str]) -> str:
    """The shell command each connection runs: ``chunkscope inspect`` with the given arguments."""
    rest = inspect_args[1:] if inspect_args[:1] == ["--"] else inspect_args
    return shlex.join([*INSPECT, *rest])


def run(args: argparse.Namespace) -> int:
    """Check the inspector's arguments, warn about a public address, then serve until interrupted."""
    try:
        from textual_serve.server import Server
    except ImportError:
        raise MissingExtraError("chunkscope serve", "serve", "textual-serve") from None
    check_inspect_args(args.inspect_args)
    if not is_loopback(args.host):
        print(
            f"chunkscope: warning: serving on {args.host}: whoever reaches this address can read the corpus "
            "and the questions (bind to 127.0.0.1, the default, to keep it on this machine)",
            file=sys.stderr,
        )
    Server(inspect_command(args.inspect_args), host=args.host, port=args.port, title="chunkscope").serve()
    return common.EXIT_OK
