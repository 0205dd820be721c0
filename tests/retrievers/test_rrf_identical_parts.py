"""RRF with many identical parts: each part still counts, and the cost grows linearly with the parts.

Oracle: n identical parts rank every unit alike, so the fused score of a unit the part ranks at r is
n / (k + r), and the fused order is the part's own order.
"""

from __future__ import annotations

import time

import pytest

from chunkscope.model import Chunk, EvidenceItem, Question, Span
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.rrf import part_names
from chunkscope.retrievers.run import RunFile

UNITS = tuple(
    Chunk(f"c{i}", "d", i * 20, i * 20 + len(text), text)
    for i, text in enumerate(("alpha beta", "beta gamma", "gamma delta alpha", "alpha alpha beta"))
)
QUESTIONS = [Question("q1", "alpha beta", (EvidenceItem((Span("d", 0, 1),)),))]


@pytest.mark.parametrize("copies", [2, 3, 50])
def test_identical_parts_each_count(copies: int) -> None:
    (single,) = parse_retriever("bm25").build(UNITS).rank(QUESTIONS, 20)
    fused_retriever = parse_retriever("rrf:" + "+".join(["bm25"] * copies) + ",k=60")
    (fused,) = fused_retriever.build(UNITS).rank(QUESTIONS, 20)
    assert fused.indices == single.indices
    ranks = range(1, len(single.indices) + 1)
    assert fused.scores == pytest.approx([copies / (60 + r) for r in ranks], rel=1e-12)
    names = [name for name, _ in fused.parts]
    assert names == ["bm25", *(f"bm25#{n}" for n in range(2, copies + 1))]
    assert all(part_ranks == tuple(ranks) for _, part_ranks in fused.parts)


def test_part_names_stay_distinct_when_a_spec_reads_like_a_numbered_name() -> None:
    parts = [RunFile("a"), RunFile("a#2"), RunFile("a")]
    assert part_names(parts) == ["run:path=a", "run:path=a#2", "run:path=a#3"]


def test_naming_twenty_thousand_identical_parts_is_linear() -> None:
    """Comparing each name with every earlier one took 2 * 10^8 steps here (minutes); a lookup takes 20,000."""
    parts = [RunFile("r")] * 20_000
    start = time.perf_counter()
    names = part_names(parts)
    elapsed = time.perf_counter() - start
    assert names[:2] == ["run:path=r", "run:path=r#2"] and names[-1] == "run:path=r#20000"
    assert len(set(names)) == len(names)
    assert elapsed < 10, f"{elapsed:.1f} s"
