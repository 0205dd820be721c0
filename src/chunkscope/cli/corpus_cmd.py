"""``chunkscope corpus export DIR --corpus PATH``: the texts chunkscope measures, for a team's own pipeline."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from chunkscope.cli import common
from chunkscope.errors import ChunkscopeError
from chunkscope.io.corpus import load_corpus
from chunkscope.io.documents.export import export_corpus

NAME = "corpus"


def add_parser(subparsers: Any) -> None:
    """Register ``corpus`` and its subcommand ``export``."""
    parser = subparsers.add_parser(
        NAME, help="the corpus as chunkscope reads it (export extracted texts)", description="The corpus as read."
    )
    commands = parser.add_subparsers(dest="corpus_command", metavar="SUBCOMMAND", required=True)
    export = commands.add_parser(
        "export",
        help="write each document's text (and the page/element map of a PDF, HTML or DOCX file) to DIR",
        description="Write every document's text as DIR/ID.txt (UTF-8, exactly the text offsets index) and, for a "
        "document extracted from PDF, HTML or DOCX, its pages and elements as DIR/ID.map.json, so that a team's own "
        "pipeline chunks the same text. DIR must not lie inside the corpus directory.",
    )
    export.add_argument("directory", metavar="DIR", help="where to write (created when missing)")
    export.add_argument("--corpus", metavar="PATH", required=True, help="corpus JSONL file or directory")
    export.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load the corpus, write the texts, and say how many files were written where."""
    source = Path(args.corpus)
    target = Path(args.directory)
    if source.is_dir() and target.resolve().is_relative_to(source.resolve()):
        raise ChunkscopeError(f"refusing to write into {target}: it lies inside the corpus directory {source}")
    corpus, _ = load_corpus(source)
    written = export_corpus(corpus, target)
    print(f"wrote {len(written)} files for {len(corpus.documents)} documents under {target}", file=sys.stderr)
    return common.EXIT_OK
