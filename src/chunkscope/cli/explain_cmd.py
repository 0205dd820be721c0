"""``chunkscope explain``: why a question's evidence chunk ranked where it did."""

from __future__ import annotations

import argparse
from typing import Any

from chunkscope.cli import common
from chunkscope.cli.answer_options import add_answer_options, answer_inputs, outcome_for
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
    add_answer_options(parser, choose_config=False)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate the configuration, explain each question, print and write reports."""
    # Imported here: every command's parser is built at start-up, and the others never need these.
    from chunkscope.analysis.explain import Explainer
    from chunkscope.pipeline.evaluate import Evaluator
    from chunkscope.reports.answers import question_answer_markdown, question_answer_view
    from chunkscope.reports.eval import to_json
    from chunkscope.reports.explain import explain_csv, explain_markdown, explain_report

    answers = answer_inputs(args)
    config, dataset = one_config_and_dataset(args)
    evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
    explainer = Explainer(evaluator)
    explanations = [explainer.explain(config, question_id) for question_id in dict.fromkeys(args.question_ids)]
    views: list[dict[str, Any]] = []
    if answers.wanted:
        result = evaluator.evaluate(config)
        rule = "the explained configuration"
        outcome = outcome_for(dataset, [result], answers, [(config, rule)] * len(answers.files))
        by_id = {q.id: q for q in dataset.questions.questions}
        views = [question_answer_view(by_id[e.question_id], result, outcome) for e in explanations]

    def markdown() -> str:
        text = explain_markdown(explanations)
        return text + "".join("\n" + "\n".join(question_answer_markdown(view)) for view in views)

    def json_report() -> str:
        report = explain_report(explanations)
        if views:
            report["answers"] = views
        return to_json(report)

    common.show_and_write_reports(args, markdown=markdown, json=json_report, csv=lambda: explain_csv(explanations))
    return common.EXIT_OK
