"""``--html FILE``: the self-contained HTML report, written like the other reports.

The option joins the command's report options, so its path passes the same checks
(:func:`chunkscope.cli.common.check_outputs`) and is written atomically by
:func:`chunkscope.cli.common.write_outputs`.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from chunkscope.html.render import render_page
from chunkscope.io.sources import Dataset
from chunkscope.reports.answers import AnswerOutcome
from chunkscope.reports.html_data import html_data
from chunkscope.results import ConfigResult

REPORTS_GROUP = "reports (written atomically)"


def add_html_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--html FILE`` to the parser's report options."""
    group: Any = next((g for g in parser._action_groups if g.title == REPORTS_GROUP), parser)
    group.add_argument(
        "--html",
        metavar="FILE",
        help="self-contained HTML report (one file, no network; open it in a browser; '-' for stdout)",
    )


def generated_at() -> str:
    """The page's date: now in UTC, or ``SOURCE_DATE_EPOCH`` when set (reproducible builds)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    moment = datetime.fromtimestamp(int(epoch), UTC) if epoch.isdigit() else datetime.now(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def html_report(
    kind: str,
    report: Mapping[str, Any],
    dataset: Dataset,
    results: Sequence[ConfigResult],
    answers: AnswerOutcome | None = None,
) -> str:
    """The HTML page of a ``kind`` report, with the per-question detail of ``results`` (and their ``answers``)."""
    return render_page(html_data(kind, report, dataset, results, generated_at(), answers))
