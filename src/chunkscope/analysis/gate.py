"""The CI gate: conditions on summary metrics, and regressions against a saved baseline report.

Conditions (``--fail-if``) read ``METRIC OP NUMBER`` with ``OP`` one of
``< <= > >= == !=`` and ``METRIC`` any metric of
:data:`chunkscope.metrics.registry.REGISTRY` by its key, label or alias, in
any case (``lost``, ``recall_at_5``, ``R@5``, ``complete``, ``precΩ`` ...). A
count metric takes a whole number; a rate (``recall_*``/``mrr_*``/``ndcg_*`` and
the character-overlap rates, a mean in [0, 1]) any number. A condition *fails*
the gate when it holds for any evaluated configuration, so ``lost>0`` fails
when some configuration loses evidence.

A condition may be restricted to one question group: ``METRIC[TAG] OP NUMBER``
(``recall_at_5[lexical:low]<0.8``) reads the metric computed on the questions
carrying ``TAG`` only (:func:`chunkscope.analysis.groups.restrict`: the same
definition on the subset), whether the tag is the questions' own or a computed
group (``--groups auto``). A tag that no question carries is refused
(:class:`~chunkscope.errors.ChunkscopeError`, exit 2) rather than passing silently.

A baseline (``--baseline report.json --fail-if-worse METRIC``) is a JSON report
written by ``chunkscope eval --json``. It is refused (:class:`InputError`, exit
2) when it is malformed, when its ``policy`` differs from the current
:func:`chunkscope.metrics.policy.metric_policy` (its numbers would mean something
else), when a current configuration has no baseline configuration with the
same chunker, retriever, top_k, budget and overflow, or when the two were
evaluated on different numbers of questions. Only metrics with a better
direction (``Metric.better``) can be gated against a baseline; one is worse
when it moved the other way by more than ``1e-12``.
"""

from __future__ import annotations

import json
import math
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chunkscope.analysis.groups import question_tags, restrict, tag_positions
from chunkscope.errors import ChunkscopeError, InputError, SpecError
from chunkscope.io.text import parse_json, read_text
from chunkscope.metrics.policy import metric_policy
from chunkscope.metrics.registry import REGISTRY, Metric
from chunkscope.model import Question
from chunkscope.results import Config, ConfigResult

__all__ = [
    "OPERATORS",
    "Baseline",
    "Condition",
    "GateFailure",
    "check_conditions",
    "check_worse",
    "check_worse_metrics",
    "gate_message",
    "load_baseline",
    "parse_condition",
    "tag_results",
]

OPERATORS: Mapping[str, Callable[[float, float], bool]] = {
    "<=": operator.le,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    ">": operator.gt,
}

ConfigKey = tuple[str, str, int, int | None, str, str | None]
"""What matches a configuration with its baseline: chunker, retriever, top-k, budget, overflow, budget tokenizer."""

_TOLERANCE = 1e-12
_CONDITION = re.compile(
    r"^\s*([^\W\d][\w@.]*)\s*(?:\[([^\]]*)\])?\s*(<=|>=|==|!=|<|>)\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$"
)


@dataclass(frozen=True, slots=True)
class Condition:
    """A failing condition such as ``recall_at_5<0.9``."""

    metric: str
    """The metric's key."""
    op: str
    threshold: float
    text: str
    """The condition as written."""
    tag: str | None = None
    """Only the questions carrying this tag (``METRIC[TAG]``); None: every question."""

    def holds(self, value: float) -> bool:
        """True when ``value OP threshold``: the gate fails."""
        return OPERATORS[self.op](value, self.threshold)


@dataclass(frozen=True, slots=True)
class GateFailure:
    """One configuration that failed one check."""

    config: Config
    metric: str
    value: float
    threshold: float
    """The condition's number, or the baseline's value."""
    reason: str
    """One line naming configuration, metric, value and threshold."""
    tag: str | None = None
    """The question group the value was measured on (None: every question)."""


def parse_condition(text: str) -> Condition:
    """Parse ``METRIC OP NUMBER`` or ``METRIC[TAG] OP NUMBER``; SpecError naming what is wrong otherwise."""
    match = _CONDITION.match(text)
    if not match:
        raise SpecError(
            f"--fail-if {text!r}: expected METRIC OP NUMBER or METRIC[TAG] OP NUMBER, e.g. 'recall_at_5<0.9' "
            "or 'recall_at_5[lexical:low]<0.8' (OP: < <= > >= == !=)"
        )
    name, tag, op, number = match.groups()
    if tag is not None and not tag.strip():
        raise SpecError(f"--fail-if {text!r}: the tag between [ and ] is empty")
    try:
        metric = REGISTRY.parse(name)
    except SpecError as error:
        raise SpecError(f"--fail-if {text!r}: {error}") from None
    threshold = float(number)
    if not math.isfinite(threshold):
        raise SpecError(f"--fail-if {text!r}: {number} is beyond the range of a number (about 1.8e308)")
    if metric.kind == "count" and not threshold.is_integer():
        raise SpecError(
            f"--fail-if {text!r}: {metric.name} is a count of {metric.unit}, not a share; "
            f"give a whole number (e.g. a share of 0.9 of 200 questions is 180)"
        )
    return Condition(metric.name, op, threshold, text.strip(), None if tag is None else tag.strip())


def tag_results(
    results: Sequence[ConfigResult], questions: Sequence[Question], conditions: Sequence[Condition]
) -> dict[str, list[ConfigResult]]:
    """Tag -> every configuration restricted to that tag's questions, for the tags the conditions name.

    Raises ChunkscopeError naming the tags present when no question carries a named tag.
    """
    wanted = list(dict.fromkeys(c.tag for c in conditions if c.tag is not None))
    if not wanted:
        return {}
    positions = tag_positions([q.id for q in questions], question_tags(questions))
    for tag in wanted:
        if tag not in positions:
            present = ", ".join(positions) or "none"
            raise ChunkscopeError(
                f"--fail-if: no question carries the tag {tag!r} (tags: {present}; computed groups such as "
                "lexical:low need --groups auto)"
            )
    return {tag: [restrict(result, positions[tag]) for result in results] for tag in wanted}


def check_conditions(
    results: Sequence[ConfigResult],
    conditions: Sequence[Condition],
    by_tag: Mapping[str, Sequence[ConfigResult]] | None = None,
) -> list[GateFailure]:
    """Every (configuration, condition) for which the condition holds, in that order.

    A condition with a tag reads ``by_tag[tag]`` (see :func:`tag_results`), whose i-th result is
    ``results[i]`` on that tag's questions. A metric that does not apply to a configuration
    (``Metric.applies``) meets no condition there.
    """
    failures = []
    for position, result in enumerate(results):
        for condition in conditions:
            measured = result if condition.tag is None else _tagged(by_tag, condition.tag)[position]
            if condition.metric not in measured.summary:
                continue
            value = float(measured.summary[condition.metric])
            if condition.holds(value):
                group = (
                    "" if condition.tag is None else f" on tag {condition.tag} ({measured.summary.questions} questions)"
                )
                failures.append(
                    GateFailure(
                        result.config,
                        condition.metric,
                        value,
                        condition.threshold,
                        f"{_describe(result.config)}: {condition.metric}{group} = {_number(value)} meets --fail-if "
                        f"'{condition.text}' (threshold {_number(condition.threshold)})",
                        condition.tag,
                    )
                )
    return failures


def _tagged(by_tag: Mapping[str, Sequence[ConfigResult]] | None, tag: str) -> Sequence[ConfigResult]:
    if by_tag is None or tag not in by_tag:
        raise ChunkscopeError(f"--fail-if: no results for tag {tag!r} (compute them with tag_results)")
    return by_tag[tag]


@dataclass(frozen=True, slots=True)
class Baseline:
    """A saved evaluation report's configurations and summaries."""

    path: str
    summaries: Mapping[ConfigKey, Mapping[str, Any]]
    """(chunker, retriever, top_k, budget, overflow, budget tokenizer) -> summary."""
    positions: Mapping[ConfigKey, int]
    """Where each configuration sits in the report's ``configs`` list."""

    def summary_for(self, config: Config) -> tuple[int, Mapping[str, Any]]:
        """The baseline summary (and its position) of the configuration matching ``config``."""
        key = _key(config)
        if key not in self.summaries:
            wanted = _delivery(config.top_k, config.budget, config.overflow, config.budget_tokenizer)
            raise InputError(
                self.path,
                f"no configuration matches {config.chunker}/{config.retriever} ({wanted}); the baseline has "
                + "; ".join(f"{c}/{r} ({_delivery(k, b, o, t)})" for c, r, k, b, o, t in self.summaries),
                field="configs",
            )
        return self.positions[key], self.summaries[key]


def load_baseline(path: str | Path, metrics: Sequence[str] = ()) -> Baseline:
    """Read and validate a saved ``chunkscope eval --json`` report.

    ``metrics`` (keys, labels or aliases) must be present as numbers in every
    configuration's summary. Raises InputError naming the file and the field.
    """
    name = str(path)
    keys = [REGISTRY.parse(metric).name for metric in metrics]
    text, _ = read_text(Path(path))  # refuses devices and FIFOs, names unreadable and non-UTF-8 files
    try:
        report = parse_json(name, text)
    except InputError as exc:
        raise InputError(name, f"not a JSON report: {exc.message}", line=exc.line, field=exc.field) from None
    if not isinstance(report, dict):
        raise InputError(name, "not a chunkscope report (expected a JSON object)")
    if "policy" not in report:
        raise InputError(name, "missing: the report records no metric policy", field="policy")
    current = json.loads(json.dumps(metric_policy()))
    if report["policy"] != current:
        differing = _differing_keys(report["policy"], current)
        raise InputError(
            name,
            f"metric policy differs from this chunkscope's ({differing}): its numbers are not comparable",
            field="policy",
        )
    configs = report.get("configs")
    if not isinstance(configs, list) or not configs:
        raise InputError(name, "missing or empty list of configurations", field="configs")
    summaries: dict[ConfigKey, Mapping[str, Any]] = {}
    positions: dict[ConfigKey, int] = {}
    for index, entry in enumerate(configs):
        key, summary = _baseline_entry(name, index, entry, keys)
        summaries[key] = summary
        positions[key] = index
    return Baseline(name, summaries, positions)


def check_worse(results: Sequence[ConfigResult], baseline: Baseline, metrics: Sequence[str]) -> list[GateFailure]:
    """Every (configuration, metric) that is worse than in the baseline.

    ``metrics`` are named as for :func:`check_worse_metrics`. Raises InputError
    when a configuration has no baseline counterpart or was evaluated on a
    different number of questions.
    """
    keys = check_worse_metrics(metrics)
    failures = []
    for result in results:
        index, summary = baseline.summary_for(result.config)
        if summary["questions"] != result.summary.questions:
            raise InputError(
                baseline.path,
                f"baseline has {summary['questions']} questions, this run {result.summary.questions}: not comparable",
                field=f"configs[{index}].summary.questions",
            )
        for metric in keys:
            if metric not in result.summary or metric not in summary:
                continue  # it does not apply to this configuration (a model's token window)
            value = float(result.summary[metric])
            before = float(summary[metric])
            if (value - before) * REGISTRY[metric].worse_sign > _TOLERANCE:
                failures.append(
                    GateFailure(
                        result.config,
                        metric,
                        value,
                        before,
                        f"{_describe(result.config)}: {metric} = {_number(value, before)} is worse than the "
                        f"baseline {_number(before, value)} ({baseline.path})",
                    )
                )
    return failures


def check_worse_metrics(metrics: Sequence[str]) -> list[str]:
    """The keys of the metrics named (key, label or alias, any case); SpecError unless each has a better direction."""
    return [_worse_metric(name).name for name in metrics]


def _worse_metric(name: str) -> Metric:
    directed = REGISTRY.with_direction()
    try:
        return REGISTRY.parse(name, directed)
    except SpecError:
        raise SpecError(
            f"--fail-if-worse {name!r}: choose from {', '.join(m.name for m in directed)} "
            "(metrics with a known better direction)"
        ) from None


def gate_message(failures: Sequence[GateFailure]) -> str:
    """The one-line reason: the first failure, plus how many more there are."""
    first = failures[0].reason
    more = len(failures) - 1
    return f"gate failed: {first}" + (f" (and {more} more failure{'s' if more > 1 else ''})" if more else "")


def _describe(config: Config) -> str:
    units = "" if config.budget_tokenizer is None else f" {config.budget_units}"
    budget = "no budget" if config.budget is None else f"budget {config.budget}{units} {config.overflow}"
    return f"{config.label} (top-{config.top_k}, {budget})"


def _number(value: float, other: float | None = None) -> str:
    """``value`` to 4 decimals (whole numbers as such), or in full where that would read as ``other`` does
    (which it differs from): ``0.5000`` against ``0.5000``, ``1.0000`` against ``1``."""
    shown = _short_number(value)
    if other is not None and float(shown) == float(_short_number(other)):
        return repr(value)  # the shortest text that reads back as this float: never the other's
    return shown


def _short_number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:.4f}"


def _key(config: Config) -> ConfigKey:
    return (config.chunker, config.retriever, config.top_k, config.budget, config.overflow, config.budget_tokenizer)


def _differing_keys(saved: Any, current: Mapping[str, Any]) -> str:
    if not isinstance(saved, dict):
        return "not an object"
    keys = sorted(k for k in set(saved) | set(current) if saved.get(k) != current.get(k))
    return "differs in " + ", ".join(keys)


def _baseline_entry(name: str, index: int, entry: Any, metrics: Sequence[str]) -> tuple[ConfigKey, Mapping[str, Any]]:
    where = f"configs[{index}]"
    if not isinstance(entry, dict):
        raise InputError(name, "must be an object", field=where)
    kinds: dict[str, tuple[type, ...]] = {
        "chunker": (str,),
        "retriever": (str,),
        "top_k": (int,),
        "budget": (int, type(None)),
        "overflow": (str,),
        "summary": (dict,),
    }
    for field, kind in kinds.items():
        if field not in entry:
            raise InputError(name, "missing", field=f"{where}.{field}")
        if not isinstance(entry[field], kind) or isinstance(entry[field], bool):
            raise InputError(name, f"has the wrong type ({type(entry[field]).__name__})", field=f"{where}.{field}")
    summary = entry["summary"]
    for metric in ("questions", *metrics):
        value = summary.get(metric)
        if value is None and metric in REGISTRY and REGISTRY[metric].applies is not None:
            continue  # a metric that applies only to some configurations
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise InputError(name, "missing or not a finite number", field=f"{where}.summary.{metric}")
    tokenizer = entry.get("budget_tokenizer")  # written only for a budget in tokens
    if tokenizer is not None and not isinstance(tokenizer, str):
        raise InputError(name, "must be a tokenizer name", field=f"{where}.budget_tokenizer")
    key = (entry["chunker"], entry["retriever"], entry["top_k"], entry["budget"], entry["overflow"], tokenizer)
    return key, summary


def _delivery(top_k: int, budget: int | None, overflow: str, tokenizer: str | None = None) -> str:
    """``top-5, budget 300 stop`` (characters) or ``top-5, budget 300 cl100k tokens stop``: what tells keys apart."""
    if budget is None:
        return f"top-{top_k}, no budget"
    units = "" if tokenizer is None else f" {tokenizer} tokens"
    return f"top-{top_k}, budget {budget}{units} {overflow}"
