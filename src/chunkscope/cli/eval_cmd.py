"""``chunkscope eval``: evaluate one or more configurations."""

from __future__ import annotations

import argparse
import functools
import sys
from typing import Any

from chunkscope.analysis import gate
from chunkscope.analysis.groups import by_tag
from chunkscope.cli import common, render, rerank_support
from chunkscope.cli.answer_options import add_answer_options, answer_inputs, answers_config, outcome_for, print_outcome
from chunkscope.cli.group_options import add_group_options, apply_groups
from chunkscope.cli.html_output import add_html_option, html_report
from chunkscope.errors import ChunkscopeError
from chunkscope.reports.answers import add_to_csv, add_to_eval_report, answers_markdown
from chunkscope.reports.eval import eval_report, to_csv, to_json, to_markdown
from chunkscope.reports.offsets import OffsetWriter

NAME = "eval"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="evaluate configurations and print their metrics",
        description="Evaluate chunker/retriever configurations on a question set with gold evidence spans.",
    )
    common.add_input_options(parser)
    common.add_config_options(parser)
    common.add_output_options(parser, offsets=True)
    add_html_option(parser)
    common.add_jobs_option(parser)
    parser.add_argument("--by-tag", action="store_true", help="break every metric down by question tag")
    add_group_options(parser)
    add_answer_options(parser)
    group = parser.add_argument_group("CI gate (exit 1 with a one-line reason when a check fails)")
    group.add_argument(
        "--fail-if",
        action="append",
        metavar="COND",
        help="fail when e.g. 'lost>0', 'recall_at_5<0.9'; METRIC[TAG] reads one question group only, "
        "e.g. 'recall_at_5[lexical:low]<0.8' (computed groups need --groups auto)",
    )
    group.add_argument("--baseline", metavar="REPORT", help="a saved 'chunkscope eval --json' report")
    group.add_argument("--fail-if-worse", action="append", metavar="METRIC", help="fail when worse than in --baseline")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Evaluate and print."""
    configs = common.configs_from_args(args)
    common.check_outputs(args, configs)
    conditions, baseline = _gate_inputs(args)
    answers = answer_inputs(args)
    owners = [answers_config(args, configs)] * len(answers.files)
    if baseline is not None:
        for config in configs:
            baseline.summary_for(config)
    dataset, rules = apply_groups(args, common.load_from_args(args))
    gate.tag_results([], dataset.questions.questions, conditions)  # an unknown tag fails before evaluating
    results = common.evaluate_all(dataset, configs, args.jobs)
    console = render.console(stderr=common.stdout_is_data(args))
    render.eval_table(console, dataset, results)
    render.diagnosis_table(console, results)
    effects = rerank_support.effects_for(dataset, results)
    rerank_support.print_effects(console, results, effects)
    if args.by_tag:
        render.tag_table(console, by_tag(results, dataset.questions.questions))
    outcome = outcome_for(dataset, results, answers, owners)
    print_outcome(console, results, outcome)
    unit = common.report_offset_unit(args)

    @functools.cache
    def report() -> dict[str, Any]:
        built = eval_report(dataset, results, unit, effects, rules)
        add_to_eval_report(built, results, outcome)
        return built

    common.write_outputs(
        args,
        {
            "json": lambda: to_json(report()),
            "html": lambda: html_report("eval", report(), dataset, results, outcome),
            "csv": lambda: add_to_csv(to_csv(results, OffsetWriter(dataset.corpus, unit), effects), results, outcome),
            "markdown": lambda: to_markdown(dataset, results, unit, effects) + answers_markdown(results, outcome),
        },
    )
    tagged = gate.tag_results(results, dataset.questions.questions, conditions)
    failures = gate.check_conditions(results, conditions, tagged)
    if baseline is not None:
        failures += gate.check_worse(results, baseline, args.fail_if_worse)
    if failures:
        print(f"chunkscope: {gate.gate_message(failures)}", file=sys.stderr)
        return common.EXIT_GATE
    return common.EXIT_OK


def _gate_inputs(args: argparse.Namespace) -> tuple[list[gate.Condition], gate.Baseline | None]:
    """Parse --fail-if and load --baseline before evaluating, so bad gate input fails fast."""
    conditions = [gate.parse_condition(text) for text in args.fail_if or []]
    if bool(args.baseline) != bool(args.fail_if_worse):
        raise ChunkscopeError("--baseline and --fail-if-worse go together")
    if not args.baseline:
        return conditions, None
    gate.check_worse_metrics(args.fail_if_worse)
    return conditions, gate.load_baseline(args.baseline, args.fail_if_worse)
