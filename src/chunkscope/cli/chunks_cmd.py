"""``chunkscope chunks``: export the chunks of any chunker spec as JSONL.

The export is chunkscope's own chunk format, or rows that load into LangChain ``Document`` or
LlamaIndex ``TextNode`` objects (``--format``); every one reads back with ``--chunks FILE``: index exactly
these chunks in another engine, and bring its ranking back with ``--run``. ``--ids`` gives ids a vector
store accepts (a deterministic UUID, or the position).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections.abc import Callable
from typing import Any

from chunkscope.chunkers import Chunking, chunk_corpus, parse_chunker
from chunkscope.cli import common
from chunkscope.io.corpus import load_corpus
from chunkscope.model import Chunk, Corpus
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.cost import TokenCost, chunker_tokenizers, token_cost
from chunkscope.reports.offsets import OffsetWriter

NAME = "chunks"
ROW_FORMATS = ("chunkscope", "langchain", "llamaindex")
"""What ``--format`` writes: chunkscope's own rows, LangChain ``Document`` or LlamaIndex ``TextNode`` fields."""
ID_SCHEMES = ("chunk", "uuid", "int")
"""What ``--ids`` writes as each row's id: the chunk id, a UUID made from it, or the row's position."""
CHUNK_ID_NAMESPACE = uuid.NAMESPACE_URL
"""``--ids uuid`` writes ``uuid5(NAMESPACE_URL, "chunkscope:" + chunk id)``: the same chunk id, the same UUID."""


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
    group.add_argument(
        "--json",
        "--out",  # the first name of the option; --json is the name every other command's reports use
        action=common.AliasedReportOption,
        metavar="FILE",
        required=True,
        help="the JSONL file to write ('-' for stdout); --out is the same option",
    )
    group.add_argument(
        "--format",
        choices=ROW_FORMATS,
        default="chunkscope",
        help="row fields: chunkscope's (default), LangChain Document(**row), or LlamaIndex TextNode(**row)",
    )
    group.add_argument(
        "--ids",
        choices=ID_SCHEMES,
        default="chunk",
        help="row ids: the chunk id (default), a deterministic UUID of it, or the row's 0-based position "
        "(Qdrant and Weaviate take UUIDs; Qdrant also integers); the chunk id is then kept as chunk_id",
    )
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
    if args.format != "chunkscope" and any(chunk.prefix for chunk in chunking.units):
        print(
            f"chunkscope: warning: the chunks have prefixes: {args.format} rows keep them in metadata.prefix; index "
            "prefix + text to rank what chunkscope ranks",
            file=sys.stderr,
        )
    rows = ROW_BUILDERS[args.format]
    common.write_outputs(args, {"json": lambda: export_jsonl(chunking, write, counter, rows, args.ids)})
    return common.EXIT_OK


def _corpus(args: argparse.Namespace) -> Corpus:
    """The corpus alone when only --corpus is given (no questions are needed to chunk), else the dataset's."""
    if args.corpus is not None and args.questions is None and args.squad is None:
        corpus, _ = load_corpus(args.corpus)
        return corpus
    return common.load_from_args(args).corpus


RowBuilder = Callable[[Chunk, OffsetWriter, "int | None", "str | int"], dict[str, Any]]


def export_jsonl(
    chunking: Chunking,
    write: OffsetWriter,
    tokens: TokenCost | None = None,
    rows: RowBuilder | None = None,
    ids: str = "chunk",
) -> str:
    """The retrieval units as JSONL rows made by ``rows`` (chunkscope's own by default), in corpus order; with
    ``tokens`` (a token-sized chunker), each unit's token count (prefix and body, as a budget in tokens counts it);
    ``ids`` one of :data:`ID_SCHEMES`."""
    build = rows or chunkscope_row
    return "".join(
        json.dumps(
            build(chunk, write, None if tokens is None else tokens.cost(chunk), row_id(chunk, position, ids)),
            ensure_ascii=False,
        )
        + "\n"
        for position, chunk in enumerate(chunking.units)
    )


def row_id(chunk: Chunk, position: int, scheme: str) -> str | int:
    """A row's id under ``scheme``: the chunk id, ``uuid5(NAMESPACE_URL, "chunkscope:" + id)``, or the position."""
    if scheme == "uuid":
        return str(uuid.uuid5(CHUNK_ID_NAMESPACE, "chunkscope:" + chunk.id))
    if scheme == "int":
        return position
    return chunk.id


def chunkscope_row(chunk: Chunk, write: OffsetWriter, tokens: int | None, identifier: str | int) -> dict[str, Any]:
    """chunkscope's own row (:func:`chunk_record`) with ``identifier`` as its id, the chunk id kept as chunk_id."""
    record = chunk_record(chunk, write, tokens)
    if identifier != chunk.id:
        record = {"id": identifier, "chunk_id": chunk.id, **{k: v for k, v in record.items() if k != "id"}}
    return record


def _metadata(chunk: Chunk, tokens: int | None, identifier: str | int) -> dict[str, Any]:
    """What a library row keeps beside its text and offsets: the chunk id when the row's id is another, then the
    prefix, section and token count when set."""
    metadata: dict[str, Any] = {}
    if identifier != chunk.id:
        metadata["chunk_id"] = chunk.id
    if chunk.prefix:
        metadata["prefix"] = chunk.prefix
    if chunk.section is not None:
        metadata["section"] = chunk.section
    if tokens is not None:
        metadata["tokens"] = tokens
    return metadata


def langchain_row(chunk: Chunk, write: OffsetWriter, tokens: int | None, identifier: str | int) -> dict[str, Any]:
    """``langchain_core.documents.Document(**row)``: ``page_content``, ``metadata.source`` (the document),
    ``metadata.start_index`` (as ``add_start_index=True`` writes it) and ``end_index``, ``id`` (a string)."""
    metadata = {
        "source": chunk.doc,
        "start_index": write(chunk.doc, chunk.start),
        "end_index": write(chunk.doc, chunk.end),
        **_metadata(chunk, tokens, identifier),
    }
    return {"id": str(identifier), "metadata": metadata, "page_content": chunk.text, "type": "Document"}


def llamaindex_row(chunk: Chunk, write: OffsetWriter, tokens: int | None, identifier: str | int) -> dict[str, Any]:
    """``llama_index.core.schema.TextNode(**row)`` (or ``TextNode.from_dict``): ``id_`` (a string), ``text``,
    ``start_char_idx``/``end_char_idx``, the document as the SOURCE relationship (``ref_doc_id``) and as
    ``metadata.doc``; every metadata key is excluded from the embedded and the LLM text, so both are the text."""
    metadata = {"doc": chunk.doc, **_metadata(chunk, tokens, identifier)}
    source: dict[str, Any] = {
        "node_id": chunk.doc,
        "node_type": "4",
        "metadata": {},
        "hash": None,
        "class_name": "RelatedNodeInfo",
    }
    return {
        "id_": str(identifier),
        "metadata": metadata,
        "excluded_embed_metadata_keys": list(metadata),
        "excluded_llm_metadata_keys": list(metadata),
        "relationships": {"1": source},
        "text": chunk.text,
        "start_char_idx": write(chunk.doc, chunk.start),
        "end_char_idx": write(chunk.doc, chunk.end),
        "class_name": "TextNode",
    }


ROW_BUILDERS: dict[str, RowBuilder] = {
    "chunkscope": chunkscope_row,
    "langchain": langchain_row,
    "llamaindex": llamaindex_row,
}


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
