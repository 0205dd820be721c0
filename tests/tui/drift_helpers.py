"""A drift of the sample corpus between fixed:size=200 and paragraph over eight queries (drift screen tests)."""

from __future__ import annotations

from pathlib import Path

from chunkscope.analysis.drift import Drift, measure_drift
from chunkscope.cli.drift_cmd import ranked_hits
from chunkscope.io.corpus import load_corpus
from chunkscope.io.dataset import sample_paths
from chunkscope.io.query_log import read_query_log
from chunkscope.pipeline.config import parse_config
from chunkscope.tui.drift_app import DriftApp
from chunkscope.tui.screens.drift import DriftInput

QUERIES = (
    "Can opened audio items be returned?",
    "How long does a refund take?",
    "What does E-114 mean?",
    "How do I connect the headphones?",
    "開封したイヤホンは返品できますか？",
    "Is water damage covered by the warranty?",
    "How many API requests can I make per minute?",
    "What happens to webhook events when my endpoint is down?",
)
A, B = "fixed:size=200", "paragraph"


def write_log(directory: Path) -> Path:
    """The eight queries as a plain-text log."""
    path = directory / "queries.txt"
    path.write_text("".join(query + "\n" for query in QUERIES), encoding="utf-8")
    return path


def sample_drift(directory: Path) -> Drift:
    """The drift the CLI computes for A and B over the log (document level: the chunkers differ), by the analysis."""
    log = read_query_log(write_log(directory))
    corpus, _ = load_corpus(str(sample_paths()[0]))
    hits = [ranked_hits(corpus, parse_config(spec, "bm25", 10), log, 10) for spec in (A, B)]
    return measure_drift(log.lines, log.queries, hits[0], hits[1], "document")


def drift_app(drift: Drift) -> DriftApp:
    """The drift inspector on ``drift``."""
    return DriftApp(DriftInput(drift, f"{A}/bm25", f"{B}/bm25", "queries.txt"))
