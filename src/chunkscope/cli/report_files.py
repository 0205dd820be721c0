"""Report files of every command: refusing unsafe report paths before any work, then writing the reports.

A report never replaces an input (:func:`check_outputs`), goes to stdout for ``-``, and is written
atomically otherwise (:func:`write_outputs`). The options themselves are added by
:func:`chunkscope.cli.common.add_output_options`, which re-exports these names.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from chunkscope.chunkers import parse_chunker
from chunkscope.errors import ChunkscopeError
from chunkscope.io.chroma import corpora_directory
from chunkscope.io.dataset import sample_paths
from chunkscope.io.outputs import input_conflict
from chunkscope.io.targets import names_stdout, target_problem, write_report
from chunkscope.results import Config
from chunkscope.retrievers import parse_retriever


def write_outputs(args: argparse.Namespace, outputs: dict[str, Callable[[], str]]) -> None:
    """Render and write each requested report; '-' means stdout."""
    for option, render in outputs.items():
        path = getattr(args, option, None)
        if not path:
            continue
        content = render()
        if names_stdout(path):
            sys.stdout.write(content)
            sys.stdout.flush()
            continue
        try:
            write_report(path, content)
        except OSError as exc:
            raise ChunkscopeError(f"cannot write {typed(args, option)} {path}: {exc.strerror or exc}") from None
        print(f"wrote {path}", file=sys.stderr)


def show_and_write_reports(
    args: argparse.Namespace, markdown: Callable[[], str], json: Callable[[], str], csv: Callable[[], str]
) -> None:
    """Print the Markdown report on the console (stderr when stdout carries a report), then write those asked for."""
    # Imported here: rich's Markdown pulls in markdown-it, which commands without a Markdown view never need.
    from rich.markdown import Markdown

    from chunkscope.cli import render

    render.console(stderr=stdout_is_data(args)).print(Markdown(markdown()))
    write_outputs(args, {"json": json, "csv": csv, "markdown": markdown})


OUTPUT_OPTIONS = ("json", "csv", "markdown", "html", "write", "out")


def check_outputs(args: argparse.Namespace, configs: Sequence[Config] = ()) -> None:
    """Refuse report paths that cannot or must not be written, before any work is done.

    A report never replaces an input file (nor adds a document to the corpus
    directory), two reports never share a path, at most one goes to stdout, and
    the target itself must be writable (:func:`chunkscope.io.targets.target_problem`).
    """
    requested: list[tuple[str, str]] = [
        (option, getattr(args, option)) for option in OUTPUT_OPTIONS if getattr(args, option, None) is not None
    ]
    to_stdout = [typed(args, option) for option, path in requested if names_stdout(path)]
    if len(to_stdout) > 1:
        raise ChunkscopeError(f"only one report can go to stdout ('-'): {' and '.join(to_stdout)} both ask for it")
    inputs = [Path(path) for path in input_paths(args, configs)]
    written: dict[Path, str] = {}
    for option, path in requested:
        if not path.strip():
            raise ChunkscopeError(f"{typed(args, option)} needs a file path (or '-' for stdout)")
        problem = target_problem(path)
        if problem is not None:
            raise ChunkscopeError(f"cannot write {typed(args, option)} {path}: {problem}")
        if names_stdout(path):
            continue
        target = Path(path)
        key = target.resolve()
        if key in written:
            both = f"{typed(args, option)} and {typed(args, written[key])}"
            raise ChunkscopeError(f"{both} both write {path}: give each report its own file")
        written[key] = option
        _check_output_path(typed(args, option), target, inputs)


def _check_output_path(option: str, target: Path, inputs: Sequence[Path]) -> None:
    conflict = input_conflict(target, inputs)
    if conflict is not None:
        raise ChunkscopeError(f"refusing to write {option} {target}: {conflict}")


TYPED = "options_typed"
"""Namespace attribute: the option string given for a report option that has an alias (``--out`` for ``--json``)."""


class AliasedReportOption(argparse.Action):
    """A report option with an alias (``chunks --json FILE``, also ``--out FILE``): messages name the one given."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option_string: Any = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.__dict__.setdefault(TYPED, {})[self.dest] = option_string


def typed(args: argparse.Namespace, option: str) -> str:
    """How the user wrote report option ``option`` (``--json``, or an alias such as ``--out``)."""
    return str(getattr(args, TYPED, {}).get(option) or f"--{option}")


def input_paths(args: argparse.Namespace, configs: Sequence[Config] = ()) -> list[str]:
    """Every file or directory the command reads: options, and paths inside chunker/retriever specs."""
    names = ("corpus", "questions", "squad", "chroma", "tydi", "testset", "chunks", "run_file", "baseline", "queries")
    paths = [getattr(args, name, None) for name in (*names, "financebench")]
    paths.extend(getattr(args, "answers", None) or [])  # answers files (eval, compare, explain)
    if getattr(args, "chroma", None) is not None:
        paths.append(str(corpora_directory(args.chroma, getattr(args, "corpus", None))))  # the corpora it reads
    paths.append(getattr(args, "dataset", None))
    if all(getattr(args, name, None) is None for name in (*names[:6], "dataset")):
        paths.extend(str(path) for path in sample_paths())
    for config in configs:
        paths.extend(_strategy_paths(parse_chunker(config.chunker)))
        paths.extend(_strategy_paths(parse_retriever(config.retriever)))
    return [path for path in dict.fromkeys(paths) if path]


def _strategy_paths(strategy: object) -> Iterator[str]:
    """Values of ``path`` parameters (imported chunks, run files) and of fields marked ``input_path`` (context
    files), nested strategies included."""
    if isinstance(strategy, tuple):
        for part in strategy:
            yield from _strategy_paths(part)
        return
    if not dataclasses.is_dataclass(strategy):
        return
    for f in dataclasses.fields(strategy):
        value = getattr(strategy, f.name)
        if (f.name == "path" or f.metadata.get("input_path")) and isinstance(value, str):
            yield value
        else:
            yield from _strategy_paths(value)


def stdout_is_data(args: argparse.Namespace) -> bool:
    """True when a report goes to stdout, so tables must go to stderr."""
    return any(names_stdout(getattr(args, option, None)) for option in ("json", "csv", "markdown", "html"))
