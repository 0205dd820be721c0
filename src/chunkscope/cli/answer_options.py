"""The answer options of ``eval``, ``compare`` and ``explain``: answers files, reader and judge plugins.

Which configuration answers from a file belong to: ``--answers-config`` names it (its number in the
order evaluated, from 1, or its label or ``chunker/retriever`` spec); without it, the imported
production pipeline (chunker ``imported`` with retriever ``run``: ``--chunks`` + ``--run``) when one
is evaluated, else the first configuration. ``compare`` takes one ``--answers`` per side: the
first is A's, the second B's (one alone: the side ``--answers-config`` names, else the imported pipeline's side,
else A's). Every report states it.
Answers a ``--reader`` generates belong to each configuration they were generated under.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console

from chunkscope.analysis.answers import Attribution, Judge, answers_in_context, attribute, match_answers
from chunkscope.analysis.readers import Reader, make_judge, read_answers
from chunkscope.cli.bounds import bounded_int, probability
from chunkscope.errors import ChunkscopeError
from chunkscope.io.answers import FORMATS, AnswerFile, load_answers
from chunkscope.io.sources import Dataset
from chunkscope.reports.answers import AnswerOutcome, in_context_summary, interval_text
from chunkscope.results import Config, ConfigResult


def add_answer_options(
    parser: argparse.ArgumentParser, sides: int = 1, choose_config: bool = True, generate: bool = True
) -> None:
    """--answers (``sides`` times at most), its format, metric, threshold and (``choose_config``) configuration;
    --judge; and (``generate``) --reader, --reader-threads and --answer-in-context (without them: their defaults)."""
    group = parser.add_argument_group("answers (see docs/cli.md#answers)")
    group.add_argument(
        "--answers",
        action="append",
        metavar="FILE",
        help="generated answers with judgments: plain JSONL/CSV (id, answer, correct or score), a ragas export, "
        "a DeepEval test run or a promptfoo results JSON" + ("; give it twice for A and B" if sides == 2 else ""),
    )
    group.add_argument("--answers-format", choices=sorted(FORMATS), help="read --answers as this format")
    group.add_argument(
        "--answer-metric", metavar="NAME", help="the score column or metric to judge by (ragas, DeepEval, promptfoo)"
    )
    group.add_argument(
        "--answer-threshold",
        type=_finite,
        metavar="T",
        help="a score is correct at score >= T (default 0.5, for scores in [0, 1] only)",
    )
    if choose_config:
        group.add_argument(
            "--answers-config",
            metavar="N|SPEC" if sides == 1 else "a|b",
            help="the configuration the --answers file's answers come from (default: the imported --chunks + --run "
            "pipeline, else the first)"
            if sides == 1
            else "the side a single --answers file belongs to (default: the imported --chunks + --run side, else a)",
        )
    group.add_argument(
        "--judge", metavar="em|f1|python:MODULE:FUNCTION", help="judge answers without a judgment (and --reader's)"
    )
    if not generate:
        parser.set_defaults(reader=None, reader_threads=1, answer_in_context=False)
        return
    group.add_argument(
        "--reader",
        metavar="python:MODULE:FUNCTION",
        help="generate an answer per question and configuration from its delivered chunks",
    )
    if sides == 2:
        group.add_argument(
            "--answer-margin",
            type=probability,
            metavar="M",
            help="also test the answer rate for equivalence (TOST) within ±M",
        )
    group.add_argument(
        "--reader-threads",
        type=bounded_int(1, 256),
        default=1,
        metavar="N",
        help="ask the reader and judge for N questions at once (for plugins that wait on a model server; default 1)",
    )
    group.add_argument(
        "--answer-in-context",
        action="store_true",
        help="report answer_in_context (a reference answer occurs in the delivered text) beside complete",
    )


def _finite(text: str) -> float:
    """argparse type: a finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


@dataclass(frozen=True, slots=True)
class AnswerInputs:
    """The answer options, read and checked before any evaluation."""

    files: tuple[AnswerFile, ...]
    judge: tuple[str, Judge] | None
    reader: Reader | None
    in_context: bool
    threshold: float | None
    threads: int = 1

    @property
    def wanted(self) -> bool:
        """Some answer option was given."""
        return bool(self.files) or self.reader is not None or self.in_context


def answer_inputs(args: argparse.Namespace, sides: int = 1) -> AnswerInputs:
    """Load the answers files and plugins named by the options (fails fast, before evaluating)."""
    paths = args.answers or []
    if len(paths) > sides:
        raise ChunkscopeError(f"--answers is given {len(paths)} times; at most {sides}")
    if paths and args.reader:
        raise ChunkscopeError("--answers and --reader go separately: answers come from a file or from the reader")
    threshold = args.answer_threshold
    judge = make_judge(args.judge, threshold) if args.judge else None
    reader = Reader(args.reader) if args.reader else None
    if reader is not None and judge is None:
        judge = make_judge("em", threshold)
    files = tuple(load_answers(path, args.answers_format, args.answer_metric)[0] for path in paths)
    return AnswerInputs(files, judge, reader, args.answer_in_context, threshold, args.reader_threads)


def answers_config(args: argparse.Namespace, configs: Sequence[Config]) -> tuple[Config, str]:
    """The configuration an answers file belongs to, and the rule that chose it (see the module docstring)."""
    wanted = getattr(args, "answers_config", None)
    if wanted:
        text = wanted.strip()
        if text.isdigit() and 1 <= int(text) <= len(configs):
            return configs[int(text) - 1], f"named by --answers-config {text}"
        for config in configs:
            if text in (config.label, f"{config.chunker}/{config.retriever}", config.chunker):
                return config, f"named by --answers-config {text}"
        names = ", ".join(f"{i} ({c.label})" for i, c in enumerate(configs, 1))
        raise ChunkscopeError(f"--answers-config {text!r} names no evaluated configuration; choose from {names}")
    for config in configs:
        if config.chunker.startswith("imported") and config.retriever.startswith("run"):
            return config, "the imported production pipeline (--chunks + --run)"
    if len(configs) == 1:
        return configs[0], "the only configuration"
    return configs[0], "the first configuration (name another with --answers-config)"


def outcome_for(
    dataset: Dataset,
    results: Sequence[ConfigResult],
    inputs: AnswerInputs,
    owners: Sequence[tuple[Config, str]],
    seed: int = 0,
) -> AnswerOutcome:
    """answer_in_context of every configuration (when references exist) and the attribution of those with answers.

    ``owners``: the configuration of each answers file, with its rule, in file order.
    """
    if not inputs.wanted:
        return AnswerOutcome()
    has_references = any(q.references for q in dataset.questions.questions)
    in_context = {r.config: answers_in_context(dataset.questions, r) for r in results} if has_references else {}
    notes: tuple[str, ...] = ()
    if inputs.in_context and not has_references:
        notes = ("answer_in_context not computed: no question has a reference answer",)
    by_config = {r.config: r for r in results}
    attributions: dict[Config, Attribution] = {}
    rules: dict[Config, str] = {}
    for file, (config, rule) in zip(inputs.files, owners, strict=True):
        answers = match_answers(file, dataset.questions, inputs.threshold, inputs.judge)
        attributions[config] = attribute(by_config[config], answers, seed)
        rules[config] = rule
    if inputs.reader is not None:
        assert inputs.judge is not None
        for result in results:
            answers = read_answers(inputs.reader, result, dataset.questions, inputs.judge, threads=inputs.threads)
            attributions[result.config] = attribute(result, answers, seed)
            rules[result.config] = f"generated under it by --reader {inputs.reader.spec}"
    return AnswerOutcome(in_context, attributions, rules, notes=notes)


def print_outcome(console: Console, results: Sequence[ConfigResult], outcome: AnswerOutcome) -> None:
    """The answer lines of the terminal output."""
    for note in outcome.notes:
        console.print(note, highlight=False)
    for result in results:
        flags = outcome.in_context.get(result.config)
        if flags is not None:
            summary = in_context_summary(flags)
            console.print(
                f"{result.config.label}: complete {result.summary.count('complete')}, answer in context "
                f"{summary['answer_in_context']} of {summary['questions_with_references']} questions with references",
                highlight=False,
            )
    for config, attribution in outcome.attributions.items():
        counts = attribution.counts
        answers = attribution.answers
        console.print(
            f"answers of {config.label} ({outcome.rule[config]}; {answers.source}, {answers.format}): "
            + ", ".join(f"{name} {counts[name]}" for name in counts)
            + f"; unanswered {len(attribution.unanswered)}, unmatched rows {len(answers.unmatched)}; "
            f"agreement {interval_text(attribution.agreement)}, phi {interval_text(attribution.phi)}",
            highlight=False,
        )
        for where in answers.unmatched[:10]:
            console.print(f"  unmatched: {where}", highlight=False)
        if len(answers.unmatched) > 10:
            console.print(f"  … and {len(answers.unmatched) - 10} more unmatched rows", highlight=False)
