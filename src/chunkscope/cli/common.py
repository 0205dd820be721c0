"""Options and helpers shared by every command.

The report-file helpers live in :mod:`chunkscope.cli.report_files` and are re-exported here.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from chunkscope.chunkers import Chunking
from chunkscope.chunkers.imported import ImportedChunker, import_summary_line
from chunkscope.cli.bounds import MAX_BUDGET, MAX_TOP_K, bounded_int
from chunkscope.cli.progress import add_quiet_option, configs_progress
from chunkscope.cli.report_files import (
    OUTPUT_OPTIONS,
    TYPED,
    AliasedReportOption,
    check_outputs,
    input_paths,
    show_and_write_reports,
    stdout_is_data,
    typed,
    write_outputs,
)
from chunkscope.io.chunk_dumps import FORMATS as DUMP_FORMATS
from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.io.dataset_formats import FORMATS as DATASET_FORMATS
from chunkscope.io.footprint import check_memory, corpus_bytes
from chunkscope.io.offsets import OFFSET_UNITS, OffsetUnit, check_unit
from chunkscope.io.quotes import DEFAULT_POLICY, MatchPolicy, parse_match_policy
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.pipeline.parallel import evaluate_configs
from chunkscope.results import ChunkImport, Config, ConfigResult
from chunkscope.retrievers.run import RunFile
from chunkscope.spec.grammar import SpecDefaults, format_spec

__all__ = [  # the report-file helpers are re-exported: commands use them as common.NAME
    "DEFAULT_CHUNKERS",
    "EXIT_GATE",
    "EXIT_INPUT",
    "EXIT_OK",
    "GOLD_ISSUES_SHOWN",
    "OUTPUT_OPTIONS",
    "TYPED",
    "AliasedReportOption",
    "ImportedChunksOption",
    "RunFileOption",
    "add_config_options",
    "add_dataset_options",
    "add_delivery_options",
    "add_executor_option",
    "add_gold_source_options",
    "add_input_options",
    "add_jobs_option",
    "add_offset_unit_option",
    "add_output_options",
    "add_production_options",
    "budget_unit",
    "check_executor",
    "check_outputs",
    "configs_from_args",
    "evaluate_all",
    "evaluating_processes",
    "gold_match_policy",
    "input_paths",
    "integer",
    "load_from_args",
    "non_negative_int",
    "positive_int",
    "print_chunking_problems",
    "print_import_summary",
    "questions_offset_unit",
    "report_chunking_problems",
    "report_error",
    "report_gold_issues",
    "report_offset_unit",
    "show_and_write_reports",
    "spec_defaults",
    "stdout_is_data",
    "typed",
    "write_outputs",
]

EXIT_OK = 0
EXIT_GATE = 1
EXIT_INPUT = 2

DEFAULT_CHUNKERS = ("fixed:size=200", "fixed:size=200,overlap=40", "paragraph")
"""Evaluated when ``--chunker`` is not given: a cut-prone window, its overlapping twin, paragraphs."""


def report_error(exc: Exception) -> int:
    """Print a one-line error to stderr and return the input-error exit code."""
    print(f"chunkscope: error: {exc}", file=sys.stderr)
    return EXIT_INPUT


def add_input_options(parser: argparse.ArgumentParser, production: bool = True) -> None:
    """--corpus/--questions, another question source, --gold-match; the bundled sample when none is given.

    ``production`` adds --chunks and --run (production chunks and rankings).
    """
    group = parser.add_argument_group("input (default: the bundled sample data)")
    group.add_argument("--corpus", metavar="PATH", help="corpus JSONL file or directory (.md .txt .pdf .html .docx)")
    group.add_argument("--questions", metavar="PATH", help="questions JSONL with gold evidence")
    group.add_argument("--squad", metavar="PATH", help="SQuAD v1.1/v2 JSON (JSQuAD included) instead")
    group.add_argument(
        "--squad-answers",
        choices=("first", "any"),
        default="first",
        help="gold is the first answer (default) or any answer",
    )
    add_gold_source_options(group)
    if production:
        add_production_options(group)
    else:  # no chunks file: the offset unit options are the question file's alone
        add_offset_unit_option(group, "--questions-offset-unit", "evidence offsets of the questions (or SQuAD) file")
        add_offset_unit_option(group, "--offset-unit", "the same as --questions-offset-unit (which wins)")


def add_gold_source_options(group: Any) -> None:
    """--chroma, --tydi, --tydi-language, --testset, --financebench and --gold-match."""
    group.add_argument(
        "--chroma",
        metavar="CSV",
        help="Chroma chunking benchmark questions_df.csv (corpora/<corpus_id>.md beside it, or --corpus DIR)",
    )
    group.add_argument("--tydi", metavar="FILE", help="TyDi QA primary-task JSONL (.jsonl or .jsonl.gz) instead")
    group.add_argument("--tydi-language", metavar="NAME", help="only --tydi questions of this language, e.g. japanese")
    add_dataset_options(group)
    group.add_argument(
        "--testset",
        metavar="FILE",
        help="RAGAS/DeepEval style test set (JSON, JSONL or CSV: question + reference contexts), with --corpus",
    )
    group.add_argument(
        "--questions-newlines",
        choices=("as-is", "lf"),
        default="as-is",
        help="what the questions file's offsets count: each document as it is (default), or as read with "
        "universal newlines, CRLF as LF (Python's text mode, LangChain's TextLoader); lf maps them back exactly",
    )
    group.add_argument(
        "--skip-bad-gold",
        action="store_true",
        help="leave out a question whose gold no span can be made of (an answer not at its answer_start, a span "
        "out of range or inside a character, an unknown document, a quote not found or ambiguous) and count it "
        "in the report's excluded_reasons, instead of refusing the whole file",
    )
    group.add_argument(
        "--financebench",
        metavar="FILE",
        help="FinanceBench JSONL (doc_name, evidence pages 0-indexed, evidence_text), with --corpus DIR of its PDFs",
    )
    group.add_argument(
        "--gold-match",
        type=gold_match_policy,
        default=DEFAULT_POLICY,
        metavar="exact|normalized|fuzzy[:T]",
        help="how gold quotes are located: exactly, after normalisation (default), or approximately "
        "(similarity >= T, default 0.9; needs chunkscope[fuzzy])",
    )


def add_dataset_options(group: Any) -> None:
    """--dataset and --dataset-format (the formats of chunkscope.io.dataset_formats)."""
    group.add_argument(
        "--dataset",
        metavar="PATH",
        help="a dataset file of any known format (HotpotQA, MultiHop-RAG, SQuAD, TyDi, HF exports, ...), "
        "recognised by its content; --corpus when the format holds no documents",
    )
    group.add_argument(
        "--dataset-format",
        metavar="NAME",
        help=f"read --dataset as this format instead of recognising it: {', '.join(sorted(DATASET_FORMATS))}",
    )


def gold_match_policy(text: str) -> MatchPolicy:
    """argparse type for --gold-match."""
    try:
        return parse_match_policy(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--gold-match: ")) from None


def add_production_options(group: Any) -> None:
    """--chunks and --run."""
    group.add_argument(
        "--chunks",
        action=ImportedChunksOption,
        metavar="FILE",
        help="production chunks: chunkscope JSONL ({id, doc, start, end} or {id, doc, text}), LangChain Documents, "
        "LlamaIndex nodes or a docstore, or chonkie chunks: shorthand for the chunker imported:path=FILE, which a "
        "bare 'imported' spec then also means",
    )
    group.add_argument(
        "--chunks-format",
        choices=("auto", *DUMP_FORMATS),
        metavar="FORMAT",
        help=f"format of the chunks file: auto (detected, the default), {', '.join(DUMP_FORMATS)}",
    )
    group.add_argument(
        "--chunks-doc-key",
        metavar="PATH",
        help="dotted path of each chunk's document reference when it is not the format's usual one "
        "(e.g. metadata.file_path); its value must be a corpus id or a path ending in one",
    )
    add_offset_unit_option(group, "--chunks-offset-unit", "offsets of the chunks file")
    add_offset_unit_option(group, "--questions-offset-unit", "evidence offsets of the questions (or SQuAD) file")
    add_offset_unit_option(group, "--offset-unit", "both of the above (each specific option wins)")
    group.add_argument(
        "--run",
        action=RunFileOption,
        dest="run_file",  # args.run is the command's entry point
        metavar="FILE",
        help="production ranking as a TREC run file (qid Q0 chunk_id rank score tag): shorthand for "
        "--retriever run:path=FILE, which a bare 'run' spec then also means",
    )


def add_offset_unit_option(group: Any, option: str, what: str) -> None:
    """An ``--*-offset-unit`` option: code points (the default), UTF-8 bytes or UTF-16 code units."""
    group.add_argument(option, choices=OFFSET_UNITS, metavar="UNIT", help=f"{what}: {', '.join(OFFSET_UNITS)}")


class ImportedChunksOption(argparse.Action):
    """``--chunks FILE``: add (or, for a single-chunker command, set) the chunker ``imported``.

    The bare spec is completed by :func:`spec_defaults` once every option is read, so ``--chunks-format``
    and the other chunk options may come before or after ``--chunks``.
    """

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        namespace.chunks = str(values)
        spec = "imported"
        if not hasattr(namespace, "chunker"):
            return
        if isinstance(namespace.chunker, str):
            namespace.chunker = spec
        else:
            namespace.chunker = [*(namespace.chunker or []), spec]


class RunFileOption(argparse.Action):
    """``--run FILE``: the retriever ``run:path=FILE``."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        namespace.run_file = str(values)
        namespace.retriever = format_spec(RunFile(str(values)))


def add_config_options(parser: argparse.ArgumentParser, many_chunkers: bool = True) -> None:
    """Chunker, retriever and delivery options."""
    group = parser.add_argument_group("configuration")
    if many_chunkers:
        group.add_argument(
            "--chunker",
            action="append",
            metavar="SPEC",
            help="chunker spec, e.g. fixed:size=400,overlap=80 (repeat for several configurations; "
            f"default: {' and '.join(DEFAULT_CHUNKERS)})",
        )
    else:
        group.add_argument("--chunker", metavar="SPEC", default=DEFAULT_CHUNKERS[0], help="chunker spec")
    group.add_argument("--retriever", metavar="SPEC", default="bm25", help="retriever spec (default: bm25)")
    add_delivery_options(group)


def add_delivery_options(group: Any) -> None:
    """--top-k, --budget, --budget-unit, --budget-tokenizer, --overflow."""
    group.add_argument(
        "--top-k",
        type=bounded_int(1, MAX_TOP_K),
        default=5,
        metavar="K",
        help=f"chunks delivered (default 5, at most {MAX_TOP_K:,})",
    )
    group.add_argument(
        "--budget",
        type=bounded_int(0, MAX_BUDGET),
        metavar="CHARS",
        help=f"context budget in characters (at most {MAX_BUDGET:,})",
    )
    group.add_argument(
        "--budget-unit",
        choices=("chars", "tokens"),
        default="chars",
        help="what --budget counts: characters (default) or tokens (of --budget-tokenizer, else of the chunker's)",
    )
    group.add_argument(
        "--budget-tokenizer",
        metavar="NAME",
        help="counting tokenizer of a budget in tokens: cl100k, o200k, e5, e5-enpt (default: the chunker's)",
    )
    group.add_argument(
        "--overflow",
        choices=("stop", "skip", "truncate"),
        default="stop",
        help="first chunk that does not fit: stop delivery (default), skip it, or truncate it",
    )


def add_output_options(parser: argparse.ArgumentParser, offsets: bool = False) -> None:
    """--json/--csv/--markdown report files (and, for reports that hold offsets, their unit)."""
    group = parser.add_argument_group("reports (written atomically)")
    group.add_argument("--json", metavar="PATH", help="JSON report ('-' for stdout)")
    group.add_argument("--csv", metavar="PATH", help="CSV report, one row per configuration and question")
    group.add_argument("--markdown", metavar="PATH", help="Markdown report")
    if offsets:
        add_offset_unit_option(group, "--report-offset-unit", "offsets written in the reports (default codepoint)")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    value = integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def integer(text: str) -> int:
    """argparse type: an integer (the bounds are the caller's)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def load_from_args(args: argparse.Namespace, lenient: bool = False, trim: bool = True) -> Dataset:
    """Load the dataset the options name; gold left out at load is reported on stderr.

    A corpus that would need more memory than the limit is refused first (``io/footprint.py``).
    """
    if getattr(args, "corpus", None):
        check_memory(getattr(args, "command", None) or "eval", corpus_bytes(args.corpus), evaluating_processes(args))
    dataset = load_dataset(
        args.corpus,
        args.questions,
        args.squad,
        args.squad_answers,
        chroma=args.chroma,
        tydi=args.tydi,
        tydi_language=args.tydi_language,
        testset=args.testset,
        financebench=args.financebench,
        gold_match=args.gold_match,
        questions_offset_unit=questions_offset_unit(args),
        lenient=lenient,
        trim=trim,
        skip_bad_gold=getattr(args, "skip_bad_gold", False),
        questions_newlines=getattr(args, "questions_newlines", "as-is"),
        dataset=getattr(args, "dataset", None),
        dataset_format=getattr(args, "dataset_format", None),
    )
    for notice in dataset.notices:
        print(f"chunkscope: {notice}", file=sys.stderr)
    if not lenient:
        report_gold_issues(dataset)
    return dataset


def evaluating_processes(args: argparse.Namespace) -> int:
    """Processes that will each hold an evaluation at once: ``--jobs`` workers, at most one per configuration."""
    jobs = getattr(args, "jobs", None)
    chunkers = getattr(args, "chunker", None)
    configurations = len(chunkers) if isinstance(chunkers, list) and chunkers else len(DEFAULT_CHUNKERS)
    return max(1, min(jobs, configurations)) if isinstance(jobs, int) else 1


GOLD_ISSUES_SHOWN = 10


def report_gold_issues(dataset: Dataset) -> None:
    """One warning per unresolved reference (the first few), so excluded rows are listed, not only counted."""
    issues = dataset.questions.issues
    for issue in issues[:GOLD_ISSUES_SHOWN]:
        print(
            f"chunkscope: warning: {issue.where}: {issue.message}; question {issue.question} left out", file=sys.stderr
        )
    if len(issues) > GOLD_ISSUES_SHOWN:
        print(
            f"chunkscope: warning: {len(issues) - GOLD_ISSUES_SHOWN} more unresolved references: "
            "see chunkscope gold check",
            file=sys.stderr,
        )


def questions_offset_unit(args: argparse.Namespace) -> OffsetUnit:
    """What the question file's offsets count: ``--questions-offset-unit``, else ``--offset-unit``, else code points."""
    return check_unit(getattr(args, "questions_offset_unit", None) or getattr(args, "offset_unit", None) or "codepoint")


def report_offset_unit(args: argparse.Namespace) -> OffsetUnit:
    """What offsets in reports count (``--report-offset-unit``; code points by default)."""
    return check_unit(getattr(args, "report_offset_unit", None) or "codepoint")


def spec_defaults(args: argparse.Namespace) -> SpecDefaults:
    """What a bare ``imported`` / ``run`` (alone or nested, e.g. ``rrf:bm25+run``) means: the --chunks / --run file.

    ``--chunks-format``, ``--chunks-doc-key`` and the chunks offset unit fill the same parameters of ``imported``.

    Specs are read with these defaults once, when the Configs are made; the canonical specs then name
    the files, so a Config means the same in any process. Without the option, a bare name is an error
    that names the option.
    """
    defaults: dict[type, dict[str, object]] = {}
    imported: dict[str, object] = {}
    if getattr(args, "chunks", None):
        imported["path"] = args.chunks
    if getattr(args, "chunks_format", None):
        imported["format"] = args.chunks_format
    if getattr(args, "chunks_doc_key", None):
        imported["doc_key"] = args.chunks_doc_key
    chunks_unit = getattr(args, "chunks_offset_unit", None) or getattr(args, "offset_unit", None)
    if chunks_unit:
        imported["offset_unit"] = chunks_unit
    if imported:
        defaults[ImportedChunker] = imported
    if getattr(args, "run_file", None):
        defaults[RunFile] = {"path": args.run_file}
    return defaults


def configs_from_args(args: argparse.Namespace, chunkers: Sequence[str] | None = None) -> list[Config]:
    """One Config per distinct chunker spec (canonical form), sharing the retriever and delivery options."""
    specs = chunkers if chunkers is not None else (args.chunker or list(DEFAULT_CHUNKERS))
    defaults = spec_defaults(args)
    configs = [
        make_config(spec, args.retriever, args.top_k, args.budget, args.overflow, defaults, **budget_unit(args))
        for spec in specs
    ]
    return list(dict.fromkeys(configs))


def budget_unit(args: argparse.Namespace) -> dict[str, Any]:
    """``make_config``'s budget-unit keywords from --budget-unit and --budget-tokenizer."""
    return {
        "budget_unit": getattr(args, "budget_unit", "chars"),
        "budget_tokenizer": getattr(args, "budget_tokenizer", None),
    }


def add_executor_option(parser: argparse.ArgumentParser) -> None:
    """--executor: evaluate the configurations on a Dask cluster instead of local processes."""
    parser.add_argument(
        "--executor",
        metavar="dask://HOST:PORT",
        help="evaluate each configuration as a task of the Dask cluster whose scheduler listens there "
        "(extra chunkscope[dask]); the results are those of a local run. Default: local, --jobs processes",
    )


def check_executor(args: argparse.Namespace) -> None:
    """A malformed --executor address fails before any work (an unreachable one when the run connects)."""
    executor = getattr(args, "executor", None)
    if executor is not None:
        from chunkscope.pipeline.distributed import scheduler_address

        scheduler_address(executor)


def add_jobs_option(parser: argparse.ArgumentParser) -> None:
    """--jobs: worker processes evaluating configurations in parallel (and --quiet: no progress)."""
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="configurations evaluated in parallel by N worker processes (default: the machine's cores, "
        f"{os.cpu_count() or 1}); 1 evaluates them one after another in this process. The results are the same",
    )
    add_quiet_option(parser)


def evaluate_all(
    dataset: Dataset,
    configs: Sequence[Config],
    jobs: int = 1,
    evaluator: Evaluator | None = None,
    alongside: Callable[[], None] | None = None,
    finished: Callable[[int, ConfigResult], None] | None = None,
    executor: str | None = None,
) -> list[ConfigResult]:
    """Evaluate configurations (``jobs`` at a time), with progress on stderr (:mod:`chunkscope.cli.progress`).

    Chunking problems and retriever warnings are printed once each, afterwards.
    With ``evaluator`` (e.g. the inspector's, which keeps the results cached) the configurations
    are evaluated by it in this process, whatever ``jobs`` says. ``alongside`` and ``finished``: see
    :func:`chunkscope.pipeline.parallel.evaluate_configs`. ``executor`` (``dask://HOST:PORT``) evaluates
    them as tasks of that Dask cluster instead (:mod:`chunkscope.pipeline.distributed`).
    """
    questions = dataset.questions.questions
    if executor is not None and evaluator is None:
        from chunkscope.pipeline.distributed import evaluate_on_cluster  # dask loads only for --executor

        evaluation = evaluate_on_cluster(executor, dataset.corpus, questions, configs, alongside, finished)
    else:
        with configs_progress([config.label for config in configs]) as follow:
            evaluation = evaluate_configs(
                dataset.corpus,
                questions,
                configs,
                jobs,
                follow,
                evaluator=evaluator,
                alongside=alongside,
                finished=finished,
            )
    for warning in evaluation.retriever_warnings:
        print(f"chunkscope: warning: {warning}", file=sys.stderr)
    for chunker, problems in evaluation.chunking_problems:
        imported = next(result.chunk_import for result in evaluation.results if result.config.chunker == chunker)
        print_import_summary(imported, problems)
    return list(evaluation.results)


def report_chunking_problems(evaluator: Evaluator, configs: Sequence[Config]) -> None:
    """Print each chunking's problems (e.g. imported chunks not found) once, on stderr, after its import summary."""
    for chunker in dict.fromkeys(config.chunker for config in configs):
        print_chunking_problems(evaluator.chunking(chunker).chunking)


def print_chunking_problems(chunking: Chunking) -> None:
    """A chunking's import summary (for a dump) and its warnings, on stderr."""
    print_import_summary(chunking.imported, chunking.problems)


def print_import_summary(imported: ChunkImport | None, problems: Sequence[str]) -> None:
    """An import summary (when chunks were read from a dump), then each chunking problem, on stderr."""
    if imported is not None:
        print(f"chunkscope: chunks {import_summary_line(imported)}", file=sys.stderr)
    for problem in problems:
        print(f"chunkscope: warning: {problem}", file=sys.stderr)
