"""``--groups auto``: computed question groups (lexical share, evidence count, span length) beside the tags."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from chunkscope.analysis.groups import GroupRules, with_computed_tags
from chunkscope.io.dataset import Dataset


def add_group_options(parser: argparse.ArgumentParser) -> None:
    """--groups, --lexical-thresholds, --span-threshold."""
    group = parser.add_argument_group("question groups (for --by-tag)")
    group.add_argument(
        "--groups",
        choices=("tags", "auto"),
        default="tags",
        help="tags: the questions' own tags (default); auto: also computed groups lexical:high|mid|low, "
        "evidence:single|multi, span:short|long",
    )
    group.add_argument(
        "--lexical-thresholds",
        type=_thresholds,
        default=(0.67, 0.33),
        metavar="HIGH,MID",
        help="share of query tokens found in the evidence for lexical:high and lexical:mid (default 0.67,0.33)",
    )
    group.add_argument(
        "--span-threshold",
        type=int,
        default=40,
        metavar="CHARS",
        help="a gold span longer than this is span:long (default 40)",
    )


def _thresholds(text: str) -> tuple[float, float]:
    try:
        high, mid = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected HIGH,MID such as 0.67,0.33, got {text!r}") from None
    return high, mid


def apply_groups(args: Any, dataset: Dataset) -> tuple[Dataset, GroupRules | None]:
    """The dataset with computed tags added to its questions under ``--groups auto`` (and the rules used)."""
    rules = GroupRules(args.lexical_thresholds[0], args.lexical_thresholds[1], args.span_threshold)
    if args.groups != "auto":
        return dataset, None
    questions = with_computed_tags(dataset.questions.questions, dataset.corpus, rules)
    return dataclasses.replace(dataset, questions=dataclasses.replace(dataset.questions, questions=questions)), rules


def with_group_note(report: dict[str, Any], rules: GroupRules | None) -> dict[str, Any]:
    """``report`` with ``computed_groups`` (the rules) when computed groups were used; unchanged otherwise."""
    if rules is None:
        return report
    return {**report, "computed_groups": rules.as_dict()}


def markdown_group_note(text: str, rules: GroupRules | None) -> str:
    """A Markdown report with a closing note on the computed groups (unchanged without them)."""
    if rules is None:
        return text
    return text + (
        f"\nComputed groups (`--groups auto`): lexical:high (share >= {rules.lexical_high:g}), lexical:mid "
        f"(>= {rules.lexical_mid:g}), lexical:low; evidence:single|multi; span:long (a gold span over "
        f"{rules.span_long} characters) or span:short.\n"
    )
