"""Options and helpers shared by every command."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from chunkscope.chunkers import parse_chunker
from chunkscope.chunkers.imported import ImportedChunker
from chunkscope.errors import ChunkscopeError
from chunkscope.io.atomic import write_atomic
from chunkscope.io.dataset import Dataset, load_dataset, sample_paths
from chunkscope.io.outputs import input_conflict
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.parallel import FINISHED, evaluate_configs
from chunkscope.results import Config, ConfigResult
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.run import RunFile
from chunkscope.spec.grammar import SpecDefaults, format_spec

EXIT_OK = 0
EXIT_GATE = 1
EXIT_INPUT = 2

DEFAULT_CHUNKERS = ("fixed:size=200", "fixed:size=200,overlap=40", "paragraph")
"""Evaluated when ``--chunker`` is not given: a cut-prone window, its overlapping twin, paragraphs."""


def report_error(exc: Exception) -> int:
    """Print a one-line error to stderr and return the input-error exit code."""
    print(f"chunkscope: error: {exc}", file=sys.stderr)
    return EXIT_INPUT


def add_input_options(parser: argparse.ArgumentParser) -> None:
    """--corpus/--questions or --squad; the bundled sample when none is given."""
    group = parser.add_argument_group("input (default: the bundled sample data)")
    group.add_argument("--corpus", metavar="PATH", help="corpus JSONL file or directory of .md/.txt files")
    group.add_argument("--questions", metavar="PATH", help="questions JSONL with gold evidence")
    group.add_argument("--squad", metavar="PATH", help="SQuAD v1.1/v2 JSON (JSQuAD included) instead")
    group.add_argument(
        "--squad-answers",
        choices=("first", "any"),
        default="first",
        help="gold is the first answer (default) or any answer",
    )
    group.add_argument(
        "--chunks",
        action=ImportedChunksOption,
        metavar="FILE",
        help="production chunks JSONL ({id, doc, start, end} or {id, doc, text}): shorthand for the chunker "
        "imported:path=FILE, which a bare 'imported' spec then also means",
    )
    group.add_argument(
        "--run",
        action=RunFileOption,
        dest="run_file",  # args.run is the command's entry point
        metavar="FILE",
        help="production ranking as a TREC run file (qid Q0 chunk_id rank score tag): shorthand for "
        "--retriever run:path=FILE, which a bare 'run' spec then also means",
    )


class ImportedChunksOption(argparse.Action):
    """``--chunks FILE``: add (or, for a single-chunker command, set) the chunker ``imported:path=FILE``."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        namespace.chunks = str(values)
        spec = format_spec(ImportedChunker(str(values)))
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
    """--top-k, --budget, --overflow."""
    group.add_argument("--top-k", type=positive_int, default=5, metavar="K", help="chunks delivered (default 5)")
    group.add_argument("--budget", type=non_negative_int, metavar="CHARS", help="context budget in characters")
    group.add_argument(
        "--overflow",
        choices=("stop", "skip", "truncate"),
        default="stop",
        help="first chunk that does not fit: stop delivery (default), skip it, or truncate it",
    )


def add_output_options(parser: argparse.ArgumentParser) -> None:
    """--json/--csv/--markdown report files."""
    group = parser.add_argument_group("reports (written atomically)")
    group.add_argument("--json", metavar="PATH", help="JSON report ('-' for stdout)")
    group.add_argument("--csv", metavar="PATH", help="CSV report, one row per configuration and question")
    group.add_argument("--markdown", metavar="PATH", help="Markdown report")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def load_from_args(args: argparse.Namespace) -> Dataset:
    """Load the dataset the options name."""
    return load_dataset(args.corpus, args.questions, args.squad, args.squad_answers)


def spec_defaults(args: argparse.Namespace) -> SpecDefaults:
    """What a bare ``imported`` / ``run`` (alone or nested, e.g. ``rrf:bm25+run``) means: the --chunks / --run file.

    Specs are read with these defaults once, when the Configs are made; the canonical specs then name
    the files, so a Config means the same in any process. Without the option, a bare name is an error
    that names the option.
    """
    defaults: dict[type, dict[str, object]] = {}
    if getattr(args, "chunks", None):
        defaults[ImportedChunker] = {"path": args.chunks}
    if getattr(args, "run_file", None):
        defaults[RunFile] = {"path": args.run_file}
    return defaults


def configs_from_args(args: argparse.Namespace, chunkers: Sequence[str] | None = None) -> list[Config]:
    """One Config per distinct chunker spec (canonical form), sharing the retriever and delivery options."""
    specs = chunkers if chunkers is not None else (args.chunker or list(DEFAULT_CHUNKERS))
    defaults = spec_defaults(args)
    configs = [make_config(spec, args.retriever, args.top_k, args.budget, args.overflow, defaults) for spec in specs]
    return list(dict.fromkeys(configs))


def add_jobs_option(parser: argparse.ArgumentParser) -> None:
    """--jobs: worker processes evaluating configurations in parallel."""
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="configurations evaluated in parallel by N worker processes (default: the machine's cores, "
        f"{os.cpu_count() or 1}); 1 evaluates them one after another in this process. The results are the same",
    )


def evaluate_all(dataset: Dataset, configs: Sequence[Config], jobs: int = 1) -> list[ConfigResult]:
    """Evaluate configurations (``jobs`` at a time), with progress bars on stderr when it is a terminal.

    The first bar counts finished configurations; the second follows the stage (chunking, indexing,
    ranking) of the configuration last heard from, so a long embedding run of a dense retriever
    shows how far it got. Chunking problems and retriever warnings are printed once each, afterwards.
    """
    questions = dataset.questions.questions
    if not sys.stderr.isatty():
        evaluation = evaluate_configs(dataset.corpus, questions, configs, jobs)
    else:
        with Progress(console=Console(stderr=True), transient=True) as progress:
            overall = progress.add_task("evaluating", total=len(configs))
            stage_task = progress.add_task("", total=1)

            def follow(position: int, stage: str, done: int, total: int) -> None:
                if stage == FINISHED:
                    progress.advance(overall)
                    return
                progress.update(overall, description=configs[position].label)
                progress.update(stage_task, description=f"  {stage}", completed=done, total=max(total, 1))

            evaluation = evaluate_configs(dataset.corpus, questions, configs, jobs, follow)
    for warning in evaluation.warnings:
        print(f"chunkscope: warning: {warning}", file=sys.stderr)
    return list(evaluation.results)


def write_outputs(args: argparse.Namespace, outputs: dict[str, Callable[[], str]]) -> None:
    """Render and write each requested report; '-' means stdout."""
    for option, render in outputs.items():
        path = getattr(args, option, None)
        if not path:
            continue
        content = render()
        if path == "-":
            sys.stdout.write(content)
            continue
        try:
            write_atomic(path, content)
        except OSError as exc:
            raise ChunkscopeError(f"cannot write --{option} {path}: {exc.strerror or exc}") from None
        print(f"wrote {path}", file=sys.stderr)


OUTPUT_OPTIONS = ("json", "csv", "markdown")


def check_outputs(args: argparse.Namespace, configs: Sequence[Config] = ()) -> None:
    """Refuse report paths that cannot or must not be written, before any work is done.

    A report never replaces an input file (nor adds a document to the corpus
    directory), two reports never share a path, at most one goes to stdout, and
    its directory must exist.
    """
    requested: list[tuple[str, str]] = [
        (option, getattr(args, option)) for option in OUTPUT_OPTIONS if getattr(args, option, None) is not None
    ]
    to_stdout = [f"--{option}" for option, path in requested if path == "-"]
    if len(to_stdout) > 1:
        raise ChunkscopeError(f"only one report can go to stdout ('-'): {' and '.join(to_stdout)} both ask for it")
    inputs = [Path(path) for path in input_paths(args, configs)]
    written: dict[Path, str] = {}
    for option, path in requested:
        if path == "-":
            continue
        if not path.strip():
            raise ChunkscopeError(f"--{option} needs a file path (or '-' for stdout)")
        target = Path(path)
        key = target.resolve()
        if key in written:
            raise ChunkscopeError(f"--{option} and --{written[key]} both write {path}: give each report its own file")
        written[key] = option
        _check_output_path(option, target, inputs)


def _check_output_path(option: str, target: Path, inputs: Sequence[Path]) -> None:
    if target.is_dir():
        raise ChunkscopeError(f"cannot write --{option} {target}: it is a directory")
    directory = target.parent
    if not directory.is_dir():
        raise ChunkscopeError(f"cannot write --{option} {target}: directory {directory} does not exist")
    conflict = input_conflict(target, inputs)
    if conflict is not None:
        raise ChunkscopeError(f"refusing to write --{option} {target}: {conflict}")


def input_paths(args: argparse.Namespace, configs: Sequence[Config] = ()) -> list[str]:
    """Every file or directory the command reads: options, and paths inside chunker/retriever specs."""
    paths = [getattr(args, name, None) for name in ("corpus", "questions", "squad", "chunks", "run_file", "baseline")]
    if args.corpus is None and args.questions is None and args.squad is None:
        paths.extend(str(path) for path in sample_paths())
    for config in configs:
        paths.extend(_strategy_paths(parse_chunker(config.chunker)))
        paths.extend(_strategy_paths(parse_retriever(config.retriever)))
    return [path for path in dict.fromkeys(paths) if path]


def _strategy_paths(strategy: object) -> Iterator[str]:
    """Values of ``path`` parameters (imported chunks, run files), nested strategies included."""
    if isinstance(strategy, tuple):
        for part in strategy:
            yield from _strategy_paths(part)
        return
    if not dataclasses.is_dataclass(strategy):
        return
    for f in dataclasses.fields(strategy):
        value = getattr(strategy, f.name)
        if f.name == "path" and isinstance(value, str):
            yield value
        else:
            yield from _strategy_paths(value)


def stdout_is_data(args: argparse.Namespace) -> bool:
    """True when a report goes to stdout, so tables must go to stderr."""
    return any(getattr(args, option, None) == "-" for option in ("json", "csv", "markdown"))
