"""``chunkscope gold check``: the integrity report of a question set's gold, and a repaired question file."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console
from rich.table import Table

from chunkscope.analysis.gold import (
    DEFAULT_NEAR_DUPLICATE,
    DEFAULT_REPEATED,
    FINDING_KINDS,
    CheckOptions,
    Finding,
    GoldCheck,
    check_gold,
)
from chunkscope.cli import common, render
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset, sample_paths
from chunkscope.io.gold import questions_jsonl
from chunkscope.io.questions import repair_questions
from chunkscope.model import GoldIssue
from chunkscope.reports.eval import to_json
from chunkscope.reports.gold import gold_report, to_markdown

NAME = "gold"
SHOWN_PER_KIND = 5
"""Findings of each kind printed on the terminal (the reports hold all)."""


def add_parser(subparsers: Any) -> None:
    """Register ``gold`` and its subcommand ``check``."""
    parser = subparsers.add_parser(NAME, help="check (and repair) gold evidence", description="Work on gold evidence.")
    commands = parser.add_subparsers(dest="gold_command", metavar="SUBCOMMAND", required=True)
    check = commands.add_parser(
        "check",
        help="report gold problems; exit 1 when there are any",
        description="Integrity report of a question set's gold: quotes not found, ambiguous or approximate, span "
        "edges inside words or graphemes, edge whitespace, spans crossing paragraphs or sections, duplicate questions, "
        "evidence text that occurs many times. Exit code 1 when problems are found, 0 when clean, 2 for bad input.",
    )
    common.add_input_options(check, production=False)
    group = check.add_argument_group("check")
    group.add_argument(
        "--allow",
        action="append",
        choices=tuple(FINDING_KINDS),
        metavar="KIND",
        help=f"do not count findings of this kind as problems (repeatable): {', '.join(FINDING_KINDS)}",
    )
    group.add_argument(
        "--repeated",
        type=_at_least_two,
        default=DEFAULT_REPEATED,
        metavar="N",
        help=f"report evidence whose text occurs at least N times in the corpus (default {DEFAULT_REPEATED})",
    )
    group.add_argument(
        "--near-duplicate",
        type=_fraction,
        default=DEFAULT_NEAR_DUPLICATE,
        metavar="J",
        help=f"report questions whose trigram Jaccard similarity reaches J (default {DEFAULT_NEAR_DUPLICATE})",
    )
    out = check.add_argument_group("outputs (written atomically; inputs are never modified)")
    out.add_argument("--json", metavar="PATH", help="JSON report ('-' for stdout)")
    out.add_argument("--markdown", metavar="PATH", help="Markdown report")
    out.add_argument(
        "--write",
        metavar="FIXED.jsonl",
        help="write a repaired questions JSONL: quotes resolved to offsets (approximate ones too), edge whitespace "
        "trimmed; ambiguous and unfound references left as they are and listed",
    )
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Load leniently, check, print, write; exit 1 when problems remain."""
    if args.write is not None and (args.squad or args.tydi):
        raise ChunkscopeError("--write needs --questions, --chroma or --testset (SQuAD and TyDi gold are offsets)")
    common.check_outputs(args)
    dataset = common.load_from_args(args, lenient=True, trim=False)
    check = _checked(dataset, CheckOptions(args.repeated, args.near_duplicate), _file_findings(dataset))
    allowed = tuple(args.allow or ())
    left_as_is: tuple[GoldIssue, ...] = ()
    kept = True
    if args.write is not None:
        fixed, left_as_is, kept = _repaired(args, dataset)
        common.write_outputs(args, {"write": lambda: fixed})
    console = render.console(stderr=common.stdout_is_data(args) or args.write == "-")
    _print(console, dataset, check, allowed, left_as_is, kept)
    label = args.gold_match.label
    written = args.write if args.write not in (None, "-") else None
    common.write_outputs(
        args,
        {
            "json": lambda: to_json(gold_report(dataset, check, label, allowed, written, left_as_is)),
            "markdown": lambda: to_markdown(dataset, check, label, allowed),
        },
    )
    return common.EXIT_GATE if check.problems(allowed) else common.EXIT_OK


def _file_findings(dataset: Dataset) -> tuple[Finding, ...]:
    """An ``offset_unit`` finding for each questions file whose offsets-only spans read clearly better another way."""
    return tuple(Finding("offset_unit", "", suspicion.message()) for suspicion in dataset.suspicions)


def _checked(dataset: Dataset, options: CheckOptions, file_findings: tuple[Finding, ...] = ()) -> GoldCheck:
    """The check, with a progress bar on stderr when it is a terminal (as ``eval`` shows)."""
    if not sys.stderr.isatty():
        return check_gold(dataset.corpus, dataset.questions, options, file_findings=file_findings)
    from rich.progress import Progress  # bars only on a terminal

    with Progress(console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("checking gold", total=1)

        def follow(stage: str, done: int, total: int) -> None:
            progress.update(task, description=stage, completed=done, total=max(total, 1))

        return check_gold(dataset.corpus, dataset.questions, options, follow, file_findings)


def _repaired(args: argparse.Namespace, dataset: Dataset) -> tuple[str, tuple[GoldIssue, ...], bool]:
    """The repaired questions file, the references it could not resolve, and whether it keeps them as they were
    (a questions file does; one written from Chroma's CSV, a test set or a ``--dataset`` file holds the loaded
    questions only)."""
    questions = args.questions
    given = (args.chroma, args.testset, args.financebench, getattr(args, "dataset", None))
    if questions is None and all(source is None for source in given):
        questions = sample_paths()[1]
    if questions is not None:
        unit = common.questions_offset_unit(args)
        fixed, left = repair_questions(questions, dataset.corpus, args.gold_match, unit, args.questions_newlines)
        return fixed, left, True
    return questions_jsonl(dataset.questions.questions, dataset.corpus), dataset.questions.issues, False


def _print(
    console: Any,
    dataset: Dataset,
    check: GoldCheck,
    allowed: tuple[str, ...],
    left: tuple[GoldIssue, ...],
    kept: bool = True,
) -> None:
    problems = check.problems(allowed)
    title = (
        f"{dataset.name}: {check.questions} questions ({check.excluded} excluded at load), {check.spans} gold spans, "
        f"{len(problems)} problems"
    )
    table = Table(title=title, title_justify="left")
    table.add_column("finding")
    table.add_column("count", justify="right")
    table.add_column("first ones", overflow="fold")
    counts = check.counts
    for kind in FINDING_KINDS:
        if not counts[kind]:
            continue
        shown = [f for f in check.findings if f.kind == kind][:SHOWN_PER_KIND]
        examples = "\n".join(
            (f"{f.question}: " if f.question else "") + (f"{f.where}: " if f.where else "") + f.detail for f in shown
        )
        name = f"{kind} (allowed)" if kind in allowed else kind
        table.add_row(name, str(counts[kind]), examples)
    if check.findings:
        console.print(table)
    else:
        console.print(f"{title}: the gold is clean")
    if left:
        outcome = "left as they were in the repaired file" if kept else "not resolved: their questions are not in it"
        print(
            f"chunkscope: {len(left)} references {outcome}: "
            + "; ".join(f"{issue.question} ({issue.kind})" for issue in left[:10])
            + (" ..." if len(left) > 10 else ""),
            file=sys.stderr,
        )


def _at_least_two(text: str) -> int:
    value = common.integer(text)  # one bound, one message: 0 and 1 alike are "at least 2"
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be at least 2, got {value}")
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {value}")
    return value
