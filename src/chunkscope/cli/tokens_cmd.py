"""``chunkscope tokens export-tiktoken-cache DIR``: tiktoken's cache from the BPE ranks chunkscope ships."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from chunkscope.cli import common
from chunkscope.tokenize.tiktoken_cache import TIKTOKEN_FILES, export_tiktoken_cache

NAME = "tokens"


def add_parser(subparsers: Any) -> None:
    """Register ``tokens`` and its subcommand ``export-tiktoken-cache``."""
    parser = subparsers.add_parser(
        NAME, help="token data for offline use (tiktoken's cache)", description="Token data for offline use."
    )
    commands = parser.add_subparsers(dest="tokens_command", metavar="SUBCOMMAND", required=True)
    export = commands.add_parser(
        "export-tiktoken-cache",
        help="write tiktoken's cl100k/o200k cache files from chunkscope's own BPE ranks, hash-checked",
        description="Write the cache files tiktoken would download for cl100k_base and o200k_base (named by the "
        "SHA-1 of their URL, checked against the SHA-256 tiktoken expects) from the ranks chunkscope ships, so that "
        "tiktoken, LlamaIndex's default splitter and LangChain's token splitters run without network with "
        "TIKTOKEN_CACHE_DIR=DIR. Needs chunkscope[tokens].",
    )
    export.add_argument("directory", metavar="DIR", help="the cache directory (created when missing)")
    export.add_argument(
        "--encoding",
        action="append",
        choices=tuple(TIKTOKEN_FILES),
        help="only this encoding (repeatable; default: cl100k and o200k)",
    )
    export.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write the files, name each on stderr, and print the variable to set on stdout."""
    names = tuple(dict.fromkeys(args.encoding or TIKTOKEN_FILES))
    for name, path in zip(names, export_tiktoken_cache(args.directory, names), strict=True):
        file = TIKTOKEN_FILES[name]
        print(f"wrote {path} ({file.encoding}, SHA-256 as tiktoken expects)", file=sys.stderr)
    print(f"export TIKTOKEN_CACHE_DIR={shlex.quote(str(Path(args.directory).resolve()))}")
    return common.EXIT_OK
