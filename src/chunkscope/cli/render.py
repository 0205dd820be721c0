"""Rich rendering of core values for the terminal."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from chunkscope.loaders import Dataset
from chunkscope.results import ConfigResult


def console(stderr: bool = False) -> Console:
    """A console on stdout, or stderr when stdout carries data."""
    stream = sys.stderr if stderr else sys.stdout
    # Piped output has no terminal width; keep tables readable rather than 80 columns.
    width = None if stream.isatty() else 160
    return Console(stderr=stderr, highlight=False, width=width)


def eval_table(out: Console, dataset: Dataset, results: Sequence[ConfigResult]) -> None:
    """The per-configuration metrics table."""
    questions = dataset.questions
    title = f"{dataset.name}: {len(dataset.corpus.documents)} documents, {len(questions.questions)} questions"
    table = Table(title=title, title_justify="left")
    table.add_column("configuration", overflow="fold")
    for header in ("chunks", "lost", "R@5", "R@20", "MRR@10", "nDCG@10", "1/2-5/6-20/miss", "complete", "dup"):
        table.add_column(header, justify="right", no_wrap=True)
    for result in results:
        s = result.summary
        b = s.rank_buckets
        table.add_row(
            result.config.label,
            str(s.index_chunks),
            f"[red]{s.lost}[/]" if s.lost else "0",
            f"{s.recall_at_5:.3f}",
            f"{s.recall_at_20:.3f}",
            f"{s.mrr_at_10:.3f}",
            f"{s.ndcg_at_10:.3f}",
            f"{b['1']}/{b['2-5']}/{b['6-20']}/{b['miss']}",
            f"{s.complete}/{s.questions}",
            str(s.duplicate_chars),
        )
    out.print(table)
    config = results[0].config if results else None
    if config is not None:
        budget = "no budget" if config.budget is None else f"budget {config.budget} chars ({config.overflow})"
        out.print(f"delivery: top-{config.top_k}, {budget}", style="dim")
    if questions.excluded:
        reasons = ", ".join(f"{reason}: {count}" for reason, count in questions.excluded_reasons.items())
        out.print(f"excluded at load: {questions.excluded} questions ({reasons})", style="dim")
