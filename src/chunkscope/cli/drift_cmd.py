"""``chunkscope drift A B --queries LOG``: what a change of configuration does to rankings of queries without gold."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from chunkscope.analysis.drift import DEFAULT_DEPTH, DEFAULT_PERSISTENCE, Drift, measure_drift
from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.base import chunk_corpus
from chunkscope.cli import common
from chunkscope.errors import ChunkscopeError
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset import sample_paths
from chunkscope.io.query_log import QueryLog, read_query_log
from chunkscope.model import Corpus, Question
from chunkscope.pipeline.config import parse_config
from chunkscope.reports.drift import MOVED_SHOWN, drift_csv, drift_markdown, drift_report
from chunkscope.reports.eval import to_json
from chunkscope.results import Config
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.base import build_index

NAME = "drift"
LEVELS = ("auto", "chunk", "document")


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="rank stability and exposure drift between two configurations over a query log without gold",
        description=(
            "Rank every query of a log (JSONL with a query field, or plain text with one query a line) under "
            "configurations A and B and report, per query, the rank-biased overlap of the two top lists (RBO_ext, "
            "Webber et al. 2010) and whether the first hit changed; the documents that gain or lose exposure "
            "(1 / log2(rank + 1) per hit, summed over queries); and the queries that moved most."
        ),
    )
    parser.add_argument("a", metavar="A", help="configuration A: CHUNKER[/RETRIEVER], e.g. paragraph/bm25")
    parser.add_argument("b", metavar="B", help="configuration B")
    parser.add_argument("--queries", required=True, metavar="LOG", help="query log: JSONL (query field) or text")
    parser.add_argument("--corpus", metavar="PATH", help="corpus JSONL or directory (default: the sample corpus)")
    parser.add_argument("--retriever", metavar="SPEC", default="bm25", help="retriever when A or B names none")
    parser.add_argument(
        "--depth",
        type=common.positive_int,
        default=DEFAULT_DEPTH,
        metavar="K",
        help=f"hits compared per query (default {DEFAULT_DEPTH})",
    )
    parser.add_argument(
        "--persistence",
        type=persistence,
        default=DEFAULT_PERSISTENCE,
        metavar="P",
        help=f"RBO's p, in (0, 1): the weight of the top ranks (default {DEFAULT_PERSISTENCE})",
    )
    parser.add_argument(
        "--level",
        choices=LEVELS,
        default="auto",
        help="compare chunk ids or documents; auto: chunks when A and B cut the same chunks, else documents",
    )
    parser.add_argument(
        "--most",
        type=common.positive_int,
        default=MOVED_SHOWN,
        metavar="N",
        help=f"queries and documents listed in the Markdown report (default {MOVED_SHOWN})",
    )
    parser.add_argument(
        "--inspect",
        action="store_true",
        help="then open the inspector on the drift: the queries that moved most first, both rankings side by side",
    )
    common.add_output_options(parser)
    parser.set_defaults(run=run)


def persistence(text: str) -> float:
    """argparse type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1 (exclusive), got {text!r}")
    return value


def chosen_level(level: str, configs: tuple[Config, Config]) -> str:
    """The level asked for, or for ``auto`` chunks when both chunkers are the same, else documents."""
    if level != "auto":
        return level
    return "chunk" if configs[0].chunker == configs[1].chunker else "document"


def ranked_hits(corpus: Corpus, config: Config, log: QueryLog, depth: int) -> list[list[tuple[str, str]]]:
    """Each query's top ``depth`` hits under ``config``, as (chunk id, document id)."""
    units = chunk_corpus(parse_chunker(config.chunker), corpus).units
    index = build_index(parse_retriever(config.retriever), units, corpus)
    questions = [Question(f"line{line}", query, ()) for line, query in zip(log.lines, log.queries, strict=True)]
    return [[(units[i].id, units[i].doc) for i in ranking.indices] for ranking in index.rank(questions, depth)]


def run(args: argparse.Namespace) -> int:
    """Rank the log under both configurations, measure the drift, print and write reports."""
    configs = (
        parse_config(args.a, args.retriever, args.depth),
        parse_config(args.b, args.retriever, args.depth),
    )
    common.check_outputs(args, configs)
    if args.inspect and common.stdout_is_data(args):
        raise ChunkscopeError("--inspect takes the terminal: write the reports to files, not to stdout (-)")
    log = read_query_log(args.queries)
    corpus_path = args.corpus if args.corpus is not None else str(sample_paths()[0])
    corpus, source = load_corpus(corpus_path)
    level = chosen_level(args.level, configs)
    how = "JSONL, the query field of each line" if log.format == "jsonl" else "plain text, one query a line"
    print(f"chunkscope: note: read {log.path} as {how} ({len(log.queries)} queries)", file=sys.stderr)
    if args.level == "auto":
        why = "A and B cut the same chunks" if level == "chunk" else "A and B cut different chunks"
        print(f"chunkscope: note: comparing {level} rankings ({why}; --level says otherwise)", file=sys.stderr)
    if configs[0] == configs[1]:
        raise ChunkscopeError("A and B are the same configuration: nothing can drift")
    hits = [ranked_hits(corpus, config, log, args.depth) for config in configs]
    drift = measure_drift(log.lines, log.queries, hits[0], hits[1], level, args.depth, args.persistence)
    inputs = [{"path": source.path, "sha256": source.sha256}, {"path": log.path, "sha256": log.sha256}]
    common.show_and_write_reports(
        args,
        markdown=lambda: drift_markdown(drift, configs, args.most),
        json=lambda: to_json(drift_report(drift, configs, inputs, log.format)),
        csv=lambda: drift_csv(drift),
    )
    if args.inspect:
        open_inspector(drift, configs, log.path)
    return common.EXIT_OK


def open_inspector(drift: Drift, configs: tuple[Config, Config], log_path: str) -> None:
    """Run the inspector on the drift screen (the values computed above; the screen recomputes nothing)."""
    from chunkscope.tui.drift_app import DriftApp  # the inspector loads only for --inspect
    from chunkscope.tui.screens.drift import DriftInput

    DriftApp(DriftInput(drift, configs[0].label, configs[1].label, log_path)).run()
