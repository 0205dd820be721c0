"""How numbers are written in every report, terminal table and inspector widget."""

from __future__ import annotations

from chunkscope.analysis.comparison import MetricTest
from chunkscope.metrics.registry import REGISTRY, Metric
from chunkscope.results import Summary


def format_p(p: float) -> str:
    """A p-value with 3 significant decimals, ``<0.001`` below that."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def verdict(test: MetricTest) -> str:
    """``B better`` / ``B worse`` when significant, else ``n.s.``."""
    if not test.significant:
        return "n.s."
    return "B better" if test.delta > 0 else "B worse"


def metric_label(name: str) -> str:
    """The registered label of the metric keyed ``name`` (the key itself when it is not registered)."""
    return REGISTRY[name].label if name in REGISTRY else name


def summary_cell(metric: Metric, summary: Summary, digits: int = 4) -> str:
    """A metric's value as a table cell.

    A rate has ``digits`` decimals; a count is a whole number, except a tested
    count (e.g. ``complete``), written ``count/questions`` like the share it is tested as.
    """
    value = summary[metric.name]
    if metric.kind == "rate":
        return f"{value:.{digits}f}"
    if metric.tested:
        return f"{value}/{summary.questions}"
    return f"{value}"
