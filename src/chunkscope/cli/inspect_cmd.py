"""``chunkscope inspect``: the Textual inspector (also what bare ``chunkscope`` runs)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from chunkscope.analysis.answers import match_answers
from chunkscope.cli import common
from chunkscope.cli.answer_options import AnswerInputs, add_answer_options, answer_inputs, answers_config
from chunkscope.cli.group_options import add_group_options, apply_groups
from chunkscope.errors import ChunkscopeError
from chunkscope.io.sources import Dataset
from chunkscope.pipeline.config import parse_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.run import RunFile
from chunkscope.tokenize.base import get_tokenizer

if TYPE_CHECKING:
    from chunkscope.tui.state.answers import InspectorAnswers

NAME = "inspect"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="open the terminal inspector (default command)",
        description="Step through failing questions, change the configuration live, compare two side by side.",
    )
    # Every plain option of inspect is given once: a second --retriever would otherwise silently replace
    # the first (the inspector shows one configuration; --compare names the second).
    parser.register("action", None, StoreOnce)
    parser.register("action", "store", StoreOnce)
    common.add_input_options(parser)
    common.add_config_options(parser, many_chunkers=False)
    parser.add_argument(
        "--compare",
        metavar="CONFIG",
        help="open the split view with a second configuration CHUNKER[/RETRIEVER], e.g. fixed:size=200,overlap=40",
    )
    add_group_options(parser)  # --groups auto: the computed groups join the tags the group picker (#) offers
    # The answers of one configuration (--answers-config: 1 is A, 2 the --compare configuration); answers are
    # read from a file only: a reader would generate them again for every configuration the keys reach.
    add_answer_options(parser, generate=False)
    parser.set_defaults(run=run)


class StoreOnce(argparse.Action):
    """Store an option's value like ``store``, and remember every value given (to refuse repeats)."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        given: dict[str, list[str]] = namespace.__dict__.setdefault(GIVEN, {})
        given.setdefault(option_string or self.dest, []).append(str(values))


GIVEN = "options_given"
"""Namespace attribute: the values of each option, in the order given (see StoreOnce)."""


def check_repeats(args: argparse.Namespace) -> None:
    """A repeated option is an error naming its values (``eval`` takes several ``--chunker``; inspect one)."""
    for option, values in getattr(args, GIVEN, {}).items():
        if len(values) > 1:
            shown = ", ".join(values)
            hint = " (a second configuration goes in --compare CHUNKER[/RETRIEVER])" if option in CONFIG_OPTIONS else ""
            raise ChunkscopeError(f"inspect takes {option} once, got {len(values)}: {shown}{hint}")


CONFIG_OPTIONS = ("--chunker", "--retriever", "--top-k", "--budget", "--overflow")


def run(args: argparse.Namespace) -> int:
    """Load and validate everything first (bad input: one line, exit 2), then hand over to the app."""
    check_repeats(args)
    answers = answer_inputs(args)  # the answers file and the judge, checked before anything is evaluated
    (config_a,) = common.configs_from_args(args, [args.chunker])
    config_b = (
        parse_config(
            args.compare,
            args.retriever,
            args.top_k,
            args.budget,
            args.overflow,
            common.spec_defaults(args),
            **common.budget_unit(args),
        )
        if args.compare
        else None
    )
    dataset, _ = apply_groups(args, common.load_from_args(args))
    # The inspector's package loads only for this command, so the headless commands never import chunkscope.tui.
    from chunkscope.tui.session import Session

    configs = [config_a] if config_b is None else [config_a, config_b]
    session = Session(dataset, config_a, config_b, inspector_answers(args, answers, dataset, configs))
    check_lazy_inputs(session.evaluator, configs)
    common.report_chunking_problems(session.evaluator, configs)  # a dump's summary, before the screen is taken
    # Textual is imported only here, after the inputs were checked, so the headless commands never load it.
    from chunkscope.tui.app import ChunkscopeApp

    app = ChunkscopeApp(session, open_compare=config_b is not None)
    app.run()
    return app.return_code or common.EXIT_OK  # 128 + N when signal N ended it


def inspector_answers(
    args: argparse.Namespace, inputs: AnswerInputs, dataset: Dataset, configs: Sequence[Config]
) -> InspectorAnswers | None:
    """The ``--answers`` file matched to the questions and judged, with the configuration it belongs to (the
    rule of ``eval``), stated on stderr before the screen is taken: it stays there after the inspector closes."""
    if not inputs.files:
        if getattr(args, "answers_config", None):
            raise ChunkscopeError("--answers-config names the configuration of an --answers file: give --answers")
        return None
    from chunkscope.tui.state.answers import InspectorAnswers

    config, rule = answers_config(args, configs)
    matched = match_answers(inputs.files[0], dataset.questions, inputs.threshold, inputs.judge)
    unmatched = matched.unmatched
    print(
        f"chunkscope: answers {matched.source}: {len(matched.judgments)} of {len(dataset.questions.questions)} "
        f"questions answered, belonging to {config.label} ({rule}); {len(unmatched)} unmatched rows"
        + (f" (first: {unmatched[0]})" if unmatched else ""),
        file=sys.stderr,
    )
    return InspectorAnswers(matched, config, rule)


def check_lazy_inputs(evaluator: Evaluator, configs: Sequence[Config]) -> None:
    """Read the files an evaluation reads lazily (imported chunks, run files) so bad ones fail before the app starts.

    The chunkings stay cached in ``evaluator``; run files are resolved against them (unknown chunk ids, a run of
    another question set). Dense indexes are not built here: that is the slow part the app shows progress for.
    """
    for config in configs:
        units = evaluator.chunking(config.chunker).chunking.units
        for strategy in _strategies(parse_retriever(config.retriever)):
            if isinstance(strategy, RunFile):
                strategy.build(units).rank(evaluator.questions, 1)
            tokenizer = getattr(strategy, "tokenizer", None)
            if isinstance(tokenizer, str):
                get_tokenizer(tokenizer)


def _strategies(strategy: object) -> Iterator[object]:
    """A strategy and every strategy nested in it (rrf parts)."""
    if isinstance(strategy, tuple):
        for part in strategy:
            yield from _strategies(part)
    elif dataclasses.is_dataclass(strategy):
        yield strategy
        for f in dataclasses.fields(strategy):
            yield from _strategies(getattr(strategy, f.name))
