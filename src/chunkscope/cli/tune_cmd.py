"""``chunkscope tune``: the cheapest configuration of a search space that is as good as the best, under a budget."""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from chunkscope.analysis.compare import compare_all
from chunkscope.analysis.fragility import NoNeighbours, fragility
from chunkscope.analysis.paired import metric_values
from chunkscope.analysis.sweepmap import Cost
from chunkscope.analysis.tune import Halving, Scored, TuneSettings, successive_halving
from chunkscope.cli import common
from chunkscope.cli.bounds import bounded_int
from chunkscope.cli.compare_cmd import add_test_options
from chunkscope.cli.sweep_cmd import fraction_list, inspector_session, number_list, open_inspector, pareto_metric
from chunkscope.cli.tune_space import int_list, merged_space, space_configs
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.io.outputs import input_conflict
from chunkscope.io.text import non_regular_kind, path_mode
from chunkscope.pipeline.distributed import evaluate_on_cluster
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.pipeline.parallel import evaluate_configs
from chunkscope.reports.compare import config_ref
from chunkscope.reports.eval import to_json
from chunkscope.reports.sweep import ParetoChoice
from chunkscope.reports.tune import tune_csv, tune_markdown, tune_report
from chunkscope.results import Config

NAME = "tune"
COSTS = ("sent_chars", "indexed_chars", "index_chunks")
DEFAULT_MAX_EVALUATIONS = 500


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="recommend the cheapest configuration of a search space that is as good as the best",
        description=(
            "Search a space of configurations (chunkers, sizes, overlaps, retrievers, hybrid alpha, top-k) by "
            "successive halving over question subsets, then recommend the cheapest configuration that is not "
            "significantly worse than the best (Holm) and, with --margin, equivalent to it (TOST)."
        ),
    )
    common.add_input_options(parser)
    space = parser.add_argument_group("search space (a TOML file, the options below, or both)")
    space.add_argument("--space", metavar="FILE", help="TOML: chunkers, sizes, overlaps, retrievers, alpha, top_k")
    space.add_argument("--preset", choices=("published",), help="add the eight published chunkers")
    space.add_argument("--size", type=int_list, metavar="N,N,...", help="fixed window sizes")
    space.add_argument("--overlap", type=number_list, metavar="X,X,...", help="overlaps (fractions < 1, else chars)")
    space.add_argument("--chunker", action="append", metavar="SPEC", help="a chunker spec (repeatable)")
    space.add_argument("--retriever", action="append", metavar="SPEC", help="a retriever spec (repeatable)")
    space.add_argument("--hybrid-alpha", type=fraction_list, metavar="A,A,...", help="alphas of hybrid retrievers")
    space.add_argument("--top-k", type=int_list, metavar="K,K,...", help="chunks delivered (default 5)")
    delivery = parser.add_argument_group("budget (shared by every configuration)")
    delivery.add_argument("--budget", type=common.non_negative_int, metavar="C", help="context budget")
    delivery.add_argument("--budget-unit", choices=("chars", "tokens"), default="chars", help="what --budget counts")
    delivery.add_argument("--budget-tokenizer", metavar="NAME", help="counting tokenizer of a budget in tokens")
    delivery.add_argument("--overflow", choices=("stop", "skip", "truncate"), default="stop")
    goal = parser.add_argument_group("goal")
    goal.add_argument("--metric", type=pareto_metric, default="recall_at_5", help="target metric (tested metric)")
    goal.add_argument("--cost", choices=COSTS, default="sent_chars", help="what 'cheapest' means (default sent_chars)")
    goal.add_argument("--margin", type=float, metavar="M", help="also require equivalence within ±M (TOST)")
    add_test_options(parser)
    search = parser.add_argument_group("search")
    search.add_argument("--eta", type=bounded_int(2, 10), default=2, help="halving factor (default 2)")
    search.add_argument(
        "--min-questions", type=common.positive_int, default=200, help="questions of the first round (default 200)"
    )
    search.add_argument(
        "--max-evaluations",
        type=common.positive_int,
        default=DEFAULT_MAX_EVALUATIONS,
        metavar="N",
        help=f"refuse a space needing more configuration evaluations (default {DEFAULT_MAX_EVALUATIONS})",
    )
    search.add_argument("--cache", metavar="FILE", help="JSONL cache of finished evaluations (resume from it)")
    search.add_argument("--no-fragility", action="store_true", help="skip the recommendation's fragility")
    parser.add_argument(
        "--inspect",
        action="store_true",
        help="then open the inspector on the sweep map of the finalists (A: the best, as for sweep --inspect)",
    )
    common.add_output_options(parser)
    common.add_jobs_option(parser)
    common.add_executor_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Expand the space, halve it, recommend, print and write reports."""
    if args.margin is not None and not (math.isfinite(args.margin) and args.margin > 0):
        raise ChunkscopeError(f"--margin must be a positive number, got {args.margin:g}")
    space = merged_space(args)
    configs, notes = space_configs(space, args)
    needed = len(configs)
    if needed > args.max_evaluations:
        raise ChunkscopeError(
            f"the search space has {needed:,} configurations, more than --max-evaluations {args.max_evaluations:,} "
            f"allows (each is evaluated at least once): narrow it, or give --max-evaluations {needed * 2:,} to run it"
        )
    common.check_outputs(args, configs)
    common.check_executor(args)
    if args.inspect and common.stdout_is_data(args):
        raise ChunkscopeError("--inspect takes the terminal: write the reports to files, not to stdout (-)")
    if args.cache:
        check_cache_path(args, configs)
    cache = EvaluationCache(args.cache) if args.cache else None
    dataset = common.load_from_args(args)
    for note in notes:
        print(f"chunkscope: note: {note}", file=sys.stderr)
    settings = TuneSettings(args.alpha, args.permutations, args.seed, args.margin)
    evaluate = ScoringRun(dataset, args.metric, args.cost, args.jobs, cache, args.executor)
    questions = len(dataset.questions.questions)
    halving = successive_halving(configs, questions, evaluate, settings, args.eta, args.min_questions)
    fragile = None if args.no_fragility else recommendation_fragility(dataset, halving)
    context = {
        "inputs": [{"path": s.path, "sha256": s.sha256} for s in dataset.sources],
        "metric": args.metric,
        "cost": args.cost,
        "space": len(configs),
        "questions": questions,
        "eta": args.eta,
    }
    print(
        f"chunkscope: {len(configs)} configurations, {halving.evaluations} evaluations "
        f"({evaluate.cached} from the cache) over {len(halving.rounds)} rounds",
        file=sys.stderr,
    )
    common.show_and_write_reports(
        args,
        markdown=lambda: tune_markdown(halving, settings, args.metric, args.cost, fragile),
        json=lambda: to_json(tune_report(halving, settings, context, fragile)),
        csv=lambda: tune_csv(halving),
    )
    if args.inspect:
        inspect_finalists(dataset, halving, args)
    return common.EXIT_OK


MAP_COSTS: dict[str, Cost] = {
    "sent_chars": "indexed_chars",
    "indexed_chars": "indexed_chars",
    "index_chunks": "index_chunks",
}
"""The sweep map's cost for each --cost (the map has no sent characters: their nearest is the characters indexed)."""


def inspect_finalists(dataset: Dataset, halving: Halving, args: argparse.Namespace) -> None:
    """The inspector on the sweep map of the finalists, evaluated on every question (as ``sweep --inspect``)."""
    finalists = [scored.config for scored in halving.rounds[-1].evaluated]
    session = inspector_session(dataset, finalists[0])
    results = [session.evaluator.evaluate(config) for config in finalists]
    if len(results) < 2:
        print("chunkscope: note: one finalist: the inspector opens on it, without a sweep map", file=sys.stderr)
        session.request("a", finalists[0])
        from chunkscope.tui.app import ChunkscopeApp

        ChunkscopeApp(session).run()
        return
    comparisons = compare_all(results, args.permutations, args.seed, args.alpha)
    open_inspector(session, comparisons, results, ParetoChoice(args.metric, MAP_COSTS[args.cost]))


def recommendation_fragility(dataset: Dataset, halving: Halving) -> Any:
    """The recommendation's fragility summary, or why it has none (a chunker without a size)."""
    config = halving.recommendation.recommended.config
    try:
        evaluator = Evaluator(dataset.corpus, dataset.questions.questions)
        return fragility(evaluator, config).summary
    except NoNeighbours as reason:
        return str(reason)


def check_cache_path(args: argparse.Namespace, configs: Sequence[Config]) -> None:
    """The cache is appended to: it must be neither an input (nor a corpus document) nor a report."""
    target = Path(args.cache)
    conflict = input_conflict(target, [Path(path) for path in common.input_paths(args, configs)])
    if conflict is not None:
        raise ChunkscopeError(f"refusing to use --cache {args.cache}: {conflict}")
    for option in ("json", "csv", "markdown"):
        report = getattr(args, option, None)
        if report and report != "-" and Path(report).resolve() == target.resolve():
            raise ChunkscopeError(f"--cache and --{option} both name {args.cache}: give the cache its own file")


class ScoringRun:
    """Evaluates configurations on question subsets: per-question target values and the cost, cached."""

    def __init__(
        self, dataset: Dataset, metric: str, cost: str, jobs: int, cache: EvaluationCache | None, executor: str | None
    ) -> None:
        self.dataset = dataset
        self.executor = executor
        self.metric = metric
        self.cost = cost
        self.jobs = jobs
        self.cache = cache
        self.cached = 0
        self.fingerprint = json.dumps([[s.path, s.sha256] for s in dataset.sources])

    def key(self, config: Config, question_ids: Sequence[str]) -> str:
        """The cache key of one evaluation: inputs, configuration, metric, cost and the questions."""
        text = json.dumps([self.fingerprint, config_ref(config), self.metric, self.cost, list(question_ids)])
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def __call__(self, configs: Sequence[Config], positions: np.ndarray) -> list[Scored]:
        everything = self.dataset.questions.questions
        questions = [everything[i] for i in positions.tolist()]
        ids = [q.id for q in questions]
        keys = [self.key(config, ids) for config in configs]
        found = {key: self.cache.get(key) for key in keys} if self.cache is not None else {}
        missing = [config for config, key in zip(configs, keys, strict=True) if found.get(key) is None]
        if missing:
            if self.executor is not None:
                evaluation = evaluate_on_cluster(self.executor, self.dataset.corpus, questions, missing)
            else:
                evaluation = evaluate_configs(self.dataset.corpus, questions, missing, self.jobs)
            for result in evaluation.results:
                values = metric_values(result, [self.metric])[0]
                entry = (values.tolist(), float(result.summary[self.cost]))
                found[self.key(result.config, ids)] = entry
                if self.cache is not None:
                    self.cache.put(self.key(result.config, ids), result.config.label, entry)
        self.cached += len(configs) - len(missing)
        scored = []
        for config, key in zip(configs, keys, strict=True):
            values, cost = found[key]  # type: ignore[misc]
            scored.append(Scored(config, np.asarray(values, dtype=np.float64), cost))
        return scored


class EvaluationCache:
    """Finished evaluations, one JSON line each: resumable after an interruption.

    A line that does not parse (the end of a run killed while writing) is ignored; the file is
    only appended to, and must be a regular file when it exists.
    """

    def __init__(self, path: str) -> None:
        self.path = Path(path)
        mode = path_mode(self.path)
        kind = non_regular_kind(mode) if mode is not None else None
        if mode is not None and (kind is not None or self.path.is_dir()):
            raise ChunkscopeError(f"--cache {path}: not a regular file")
        self.entries: dict[str, tuple[list[float], float]] = {}
        if mode is not None:
            for line in self.path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    record = json.loads(line)
                    self.entries[record["key"]] = (list(record["values"]), float(record["cost"]))
                except (ValueError, KeyError, TypeError):
                    continue

    def get(self, key: str) -> tuple[list[float], float] | None:
        """A finished evaluation, or None."""
        return self.entries.get(key)

    def put(self, key: str, label: str, entry: tuple[list[float], float]) -> None:
        """Append one finished evaluation (flushed at once, so an interruption keeps it)."""
        self.entries[key] = entry
        record = {"key": key, "config": label, "values": entry[0], "cost": entry[1]}
        try:
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record) + "\n")
        except OSError as exc:
            raise ChunkscopeError(f"cannot write --cache {self.path}: {exc.strerror or exc}") from None
