"""``chunkscope explain``: why a question's evidence chunk ranked where it did."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.cli import common
from chunkscope.cli.one_config import add_one_config_options, one_config_and_dataset

NAME = "explain"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="take a question's scores apart: the evidence chunk beside the chunk that outranked it",
        description=(
            "Score anatomy of one or more questions under one configuration: per query term tf, idf, length "
            "normalisation and contribution (BM25, overlap), cosines and best sentences (dense), each part's "
            "1/(k+rank) (rrf), first-stage and final ranks (rerank)."
        ),
    )
    parser.add_argument("question_ids", nargs="+", metavar="QID", help="question id(s)")
    add_one_config_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate the configuration, explain each question, print and write reports."""
    # Imported here: every command's parser is built at start-up, and the others never need these.
    from chunkscope.analysis.explain import Explainer
    from chunkscope.pipeline.evaluate import Evaluator
    from chunkscope.reports.eval import to_json
    from chunkscope.reports.explain import explain_csv, explain_markdown, explain_report

    config, dataset = one_config_and_dataset(args)
    explainer = Explainer(Evaluator(dataset.corpus, dataset.questions.questions))
    explanations = [explainer.explain(config, question_id) for question_id in dict.fromkeys(args.question_ids)]
    common.show_and_write_reports(
        args,
        markdown=lambda: explain_markdown(explanations),
        json=lambda: to_json(explain_report(explanations)),
        csv=lambda: explain_csv(explanations),
    )
    return common.EXIT_OK
