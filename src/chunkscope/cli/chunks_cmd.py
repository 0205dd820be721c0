"""``chunkscope chunks``: export the chunks of any chunker spec as JSONL.

The export is chunkscope's own chunk format, so it reads back with ``--chunks FILE``: index exactly
these chunks in another engine, and bring its ranking back with ``--run``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from chunkscope.chunkers import Chunking, chunk_corpus, parse_chunker
from chunkscope.cli import common
from chunkscope.io.corpus import load_corpus
from chunkscope.model import Chunk, Corpus
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.cost import TokenCost, chunker_tokenizers, token_cost
from chunkscope.reports.offsets import OffsetWriter

NAME = "chunks"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="export the chunks of a chunker spec as JSONL",
        description="Write the chunks of a chunker spec as JSONL ({id, doc, start, end, text, ...}), the format "
        "--chunks reads: index them in your own engine and bring the ranking back with --run.",
    )
    parser.add_argument("spec", metavar="SPEC", help="chunker spec, e.g. fixed:size=400,overlap=80 or markdown")
    common.add_input_options(parser)
    group = parser.add_argument_group("output (written atomically)")
    group.add_argument("--out", metavar="FILE", required=True, help="the JSONL file to write ('-' for stdout)")
    common.add_offset_unit_option(group, "--report-offset-unit", "offsets written in the export (default codepoint)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Chunk the corpus and write every retrieval unit, one JSON object per line."""
    config = make_config(args.spec, defaults=common.spec_defaults(args))
    common.check_outputs(args, [config])
    corpus = _corpus(args)
    chunker = parse_chunker(config.chunker)
    chunking = chunk_corpus(chunker, corpus)
    common.print_chunking_problems(chunking)
    if chunking.parents is not None:
        print(
            "chunkscope: warning: parent-child chunking: the export holds the retrieval units (children); "
            "read back, each one is also what is delivered",
            file=sys.stderr,
        )
    write = OffsetWriter(corpus, common.report_offset_unit(args))
    tokenizers = chunker_tokenizers(chunker)
    counter = token_cost(tokenizers[0]) if tokenizers else None
    common.write_outputs(args, {"out": lambda: export_jsonl(chunking, write, counter)})
    return common.EXIT_OK


def _corpus(args: argparse.Namespace) -> Corpus:
    """The corpus alone when only --corpus is given (no questions are needed to chunk), else the dataset's."""
    if args.corpus is not None and args.questions is None and args.squad is None:
        corpus, _ = load_corpus(args.corpus)
        return corpus
    return common.load_from_args(args).corpus


def export_jsonl(chunking: Chunking, write: OffsetWriter, tokens: TokenCost | None = None) -> str:
    """The retrieval units as JSONL, in corpus order; with ``tokens`` (a token-sized chunker), each unit's
    token count (prefix and body, as a budget in tokens counts it)."""
    return "".join(
        json.dumps(chunk_record(chunk, write, None if tokens is None else tokens.cost(chunk)), ensure_ascii=False)
        + "\n"
        for chunk in chunking.units
    )


def chunk_record(chunk: Chunk, write: OffsetWriter, tokens: int | None = None) -> dict[str, Any]:
    """One exported chunk: id, doc, start, end (in ``write``'s unit), text, then prefix, section, tokens if any."""
    record: dict[str, Any] = {
        "id": chunk.id,
        "doc": chunk.doc,
        "start": write(chunk.doc, chunk.start),
        "end": write(chunk.doc, chunk.end),
        "text": chunk.text,
    }
    if chunk.prefix:
        record["prefix"] = chunk.prefix
    if chunk.context:
        record["context"] = chunk.context  # indexed, not sent (contextual chunks with send=false)
    if chunk.section is not None:
        record["section"] = chunk.section
    if tokens is not None:
        record["tokens"] = tokens
    return record
