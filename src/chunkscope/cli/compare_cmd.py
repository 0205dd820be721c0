"""``chunkscope compare``: paired comparison of two configurations."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rich.console import Console

from chunkscope.analysis.answer_compare import answer_transitions
from chunkscope.analysis.compare import DEFAULT_PERMUTATIONS, Comparison, compare
from chunkscope.analysis.equivalence import pairs_equivalence, parse_margins
from chunkscope.analysis.groups import question_tags
from chunkscope.analysis.paired import tested_metrics
from chunkscope.cli import common, render, rerank_support
from chunkscope.cli.answer_options import add_answer_options, answer_inputs, outcome_for, print_outcome
from chunkscope.cli.bounds import MAX_PERMUTATIONS, MAX_SEED, bounded_int, probability
from chunkscope.cli.group_options import add_group_options, apply_groups, markdown_group_note, with_group_note
from chunkscope.cli.html_output import add_html_option, html_report
from chunkscope.errors import ChunkscopeError
from chunkscope.pipeline.config import parse_config
from chunkscope.reports.answers import (
    AnswerOutcome,
    add_to_compare_csv,
    answers_markdown,
    attribution_dict,
    in_context_summary,
    transitions_dict,
)
from chunkscope.reports.compare import compare_csv, compare_markdown, compare_report
from chunkscope.reports.equivalence import PairEquivalence
from chunkscope.reports.eval import to_json
from chunkscope.reports.format import format_p, metric_label
from chunkscope.results import Config, ConfigResult

NAME = "compare"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="compare two configurations question by question, with paired significance tests",
        description=(
            "Compare configuration A against B on the same questions: per-question rank changes, recovered and "
            "newly lost evidence, the bucket transition matrix, and a paired permutation test with a bootstrap "
            "confidence interval per metric. Not significant does not mean equal."
        ),
    )
    parser.add_argument("a", metavar="A", help="configuration A: CHUNKER[/RETRIEVER], e.g. fixed:size=400,overlap=80")
    parser.add_argument("b", metavar="B", help="configuration B, e.g. paragraph/bm25")
    common.add_input_options(parser)
    group = parser.add_argument_group("configuration (shared by A and B)")
    group.add_argument("--retriever", metavar="SPEC", default="bm25", help="retriever when A or B names none")
    common.add_delivery_options(group)
    add_test_options(parser)
    parser.add_argument("--by-tag", action="store_true", help="also compare per question tag")
    add_group_options(parser)
    add_answer_options(parser, sides=2)
    common.add_output_options(parser)
    add_html_option(parser)
    common.add_jobs_option(parser)
    common.add_executor_option(parser)
    parser.set_defaults(run=run)


def add_test_options(parser: argparse.ArgumentParser) -> None:
    """--permutations, --seed, --alpha."""
    group = parser.add_argument_group("significance tests")
    group.add_argument(
        "--permutations",
        type=bounded_int(1, MAX_PERMUTATIONS),
        default=DEFAULT_PERMUTATIONS,
        metavar="N",
        help=f"sign-flip permutations and bootstrap resamples (default {DEFAULT_PERMUTATIONS:,}, "
        f"at most {MAX_PERMUTATIONS:,})",
    )
    group.add_argument(
        "--seed",
        type=bounded_int(0, MAX_SEED),
        default=0,
        help="random seed of the tests (default 0; 0 to 2^32 - 1)",
    )
    group.add_argument("--alpha", type=probability, default=0.05, help="significance level (default 0.05)")
    group.add_argument(
        "--equivalence-margin",
        metavar="M|METRIC=M,...",
        help="also test equivalence (TOST) within ±M: one number for every tested metric, or per metric "
        "e.g. recall_at_5=0.02,ndcg_at_10=0.01; verdicts: equivalent within ±M, different, neither shown",
    )


def run(args: argparse.Namespace) -> int:
    """Evaluate both configurations, compare, print and write reports."""
    defaults = common.spec_defaults(args)
    configs = [
        parse_config(text, args.retriever, args.top_k, args.budget, args.overflow, defaults, **common.budget_unit(args))
        for text in (args.a, args.b)
    ]
    common.check_outputs(args, configs)
    common.check_executor(args)
    margins = equivalence_margins(args)
    answers = answer_inputs(args, sides=2)
    owners = _answer_owners(args, configs, len(answers.files))
    dataset, rules = apply_groups(args, common.load_from_args(args))
    results = common.evaluate_all(dataset, configs, args.jobs, executor=args.executor)
    tags = question_tags(dataset.questions.questions) if args.by_tag else None
    comparison = compare(results[0], results[1], args.permutations, args.seed, args.alpha, tags=tags)
    equivalence = None
    if margins is not None:
        (equivalence,) = pairs_equivalence(results, [comparison], margins, correct=False)
    effects = rerank_support.effects_for(dataset, results)
    console = render.console(stderr=common.stdout_is_data(args))
    render.comparison_view(console, dataset, comparison)
    render_equivalence(console, [comparison], [equivalence] if equivalence is not None else None)
    rerank_support.print_effects(console, results, effects)
    outcome = _with_transitions(outcome_for(dataset, results, answers, owners, args.seed), results, args)
    print_outcome(console, results, outcome)
    if outcome.transitions is not None:
        console.print(outcome.transitions.sentence(), highlight=False)

    @functools.cache
    def report() -> dict[str, Any]:
        built = with_group_note(compare_report(dataset, results, comparison, equivalence, effects), rules)
        if not outcome.empty:
            built["answers"] = _answers_json(results, outcome)
        return built

    common.write_outputs(
        args,
        {
            "json": lambda: to_json(report()),
            "html": lambda: html_report("compare", report(), dataset, results, outcome),
            "csv": lambda: add_to_compare_csv(compare_csv(comparison, equivalence, effects), results, outcome),
            "markdown": lambda: (
                markdown_group_note(
                    compare_markdown(
                        dataset, comparison, equivalence=equivalence, rerank=(results, effects) if effects else None
                    ),
                    rules,
                )
                + answers_markdown(results, outcome)
            ),
        },
    )
    return common.EXIT_OK


def _answer_owners(args: argparse.Namespace, configs: Sequence[Config], files: int) -> list[tuple[Config, str]]:
    """A's and B's answers files: the first is A's, the second B's; a single one is the side --answers-config
    names, else the imported production pipeline's (--chunks + --run) when exactly one side is it, else A's."""
    side = (args.answers_config or "a").strip().lower()
    if side not in ("a", "b"):
        raise ChunkscopeError(f"--answers-config takes a or b in compare, got {args.answers_config!r}")
    if files == 2:
        if args.answers_config:
            raise ChunkscopeError("--answers-config names the side of a single --answers file; two are A's and B's")
        return [(configs[0], "A: the first --answers file"), (configs[1], "B: the second --answers file")]
    if args.answers_config:
        index, rule = (0, "A") if side == "a" else (1, "B")
        return [(configs[index], f"{rule}: named by --answers-config")][:files]
    production = [
        i for i, c in enumerate(configs) if c.chunker.startswith("imported") and c.retriever.startswith("run")
    ]
    if len(production) == 1:
        index = production[0]
        return [(configs[index], f"{'AB'[index]}: the imported production pipeline (--chunks + --run)")][:files]
    return [(configs[0], "A (the default for a single --answers file)")][:files]


def _with_transitions(
    outcome: AnswerOutcome, results: Sequence[ConfigResult], args: argparse.Namespace
) -> AnswerOutcome:
    """The outcome with A's and B's answer transitions when both have answers."""
    a, b = (outcome.attributions.get(r.config) for r in results)
    if a is None or b is None:
        return outcome
    transitions = answer_transitions(a, b, args.permutations, args.seed, args.alpha, args.answer_margin)
    return replace(outcome, transitions=transitions)


def _answers_json(results: Sequence[ConfigResult], outcome: AnswerOutcome) -> dict[str, Any]:
    entry: dict[str, Any] = {"configs": []}
    for result in results:
        item: dict[str, Any] = {"configuration": result.config.label}
        flags = outcome.in_context.get(result.config)
        if flags is not None:
            item |= in_context_summary(flags)
        attribution = outcome.attributions.get(result.config)
        if attribution is not None:
            item["answers"] = attribution_dict(attribution, outcome.rule[result.config])
        entry["configs"].append(item)
    if outcome.transitions is not None:
        entry["transitions"] = transitions_dict(outcome.transitions)
    return entry


def equivalence_margins(args: argparse.Namespace) -> dict[str, float] | None:
    """The parsed --equivalence-margin (None without it), checked before any work is done."""
    if args.equivalence_margin is None:
        return None
    return parse_margins(args.equivalence_margin, tested_metrics())


def render_equivalence(
    console: Console, comparisons: Sequence[Comparison], tests: Sequence[PairEquivalence] | None
) -> None:
    """One line per (pair, metric) with a margin: the TOST verdict."""
    if tests is None:
        return
    for comparison, pair_tests in zip(comparisons, tests, strict=True):
        for test in pair_tests:
            if test is not None:
                console.print(
                    f"{comparison.b.label} vs {comparison.a.label}, {metric_label(test.metric)}: "
                    f"Δ {test.delta:+.4f}, TOST p {format_p(test.p_value)}: {test.verdict_text}",
                    highlight=False,
                )
