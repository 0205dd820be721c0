"""``chunkscope report``: render a saved JSON report (eval, compare or sweep) as HTML, without re-running."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from chunkscope.cli import common
from chunkscope.cli.html_output import generated_at
from chunkscope.errors import ChunkscopeError
from chunkscope.html.render import render_page
from chunkscope.io.outputs import input_conflict
from chunkscope.io.targets import names_stdout
from chunkscope.reports.html_data import load_report, saved_report_data

NAME = "report"


def add_parser(subparsers: Any) -> None:
    """Register the subcommand."""
    parser = subparsers.add_parser(
        NAME,
        help="render a saved JSON report as a self-contained HTML file",
        description=(
            "Render a report saved with 'chunkscope eval|compare|sweep --json' as one self-contained HTML file, "
            "without evaluating again. The saved report holds no texts: question and document texts appear only "
            "in an HTML written by the run itself (--html)."
        ),
    )
    parser.add_argument("report", metavar="RESULTS.json", help="a saved chunkscope JSON report")
    group = parser.add_argument_group("reports (written atomically)")
    group.add_argument("--html", metavar="FILE", required=True, help="the HTML file to write ('-' for stdout)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Read, check and render the report."""
    common.check_outputs(args)
    conflict = None if names_stdout(args.html) else input_conflict(Path(args.html), [Path(args.report)])
    if conflict is not None:
        raise ChunkscopeError(f"refusing to write --html {args.html}: {conflict}")
    report = load_report(args.report)
    common.write_outputs(args, {"html": lambda: render_page(saved_report_data(report, generated_at()))})
    return common.EXIT_OK
