"""The rerank stage: a hand-made scorer's re-ordering, computed by hand; spec errors; the missing extra."""

from __future__ import annotations

from pathlib import Path

import pytest

from chunkscope.chunkers import chunk_corpus, parse_chunker
from chunkscope.errors import MissingExtraError, SpecError
from chunkscope.model import Corpus, Document, EvidenceItem, Question, Span
from chunkscope.retrievers import parse_retriever
from chunkscope.retrievers.dense import module_available
from chunkscope.retrievers.rerank import FIRST_STAGE, RerankIndex

TEXT = "alpha beta gamma delta. gamma gamma alpha alpha alpha epsilon. zeta eta theta beta. alpha beta beta beta."
# fixed:size=24 chunks: d#0 'alpha beta gamma delta. ', d#1 'gamma gamma alpha alpha ',
# d#2 'alpha epsilon. zeta eta ', d#3 'theta beta. alpha beta b', d#4 'eta beta beta beta.'
UNITS = chunk_corpus(parse_chunker("fixed:size=24"), Corpus((Document("d", TEXT),))).units
QUESTION = Question("q", "alpha", (EvidenceItem((Span("d", 0, 5),)),))


def test_candidates_are_reordered_by_the_second_scorer() -> None:
    # overlap ranks the four chunks holding 'alpha' (score 1 each) in start order: d#0, d#1, d#2, d#3.
    # test-count scores them by how often 'beta' occurs: d#0 1, d#1 0, d#2 0, d#3 2 ('beta.' and 'beta').
    # Descending, ties in first-stage order: d#3, d#0, d#1, d#2.
    (ranking,) = parse_retriever("rerank:first=overlap,by=test-count").build(UNITS).rank([QUESTION], 20)
    assert [UNITS[i].id for i in ranking.indices] == ["d#3", "d#0", "d#1", "d#2"]
    assert ranking.scores == (2.0, 1.0, 0.0, 0.0)
    assert ranking.parts == ((FIRST_STAGE, (4, 1, 2, 3)),)


def test_only_the_top_candidates_move() -> None:
    # candidates=2: d#0 (1) and d#1 (0) keep their order; d#2, d#3 follow with their overlap scores.
    (ranking,) = parse_retriever("rerank:first=overlap,by=test-count,candidates=2").build(UNITS).rank([QUESTION], 20)
    assert [UNITS[i].id for i in ranking.indices] == ["d#0", "d#1", "d#2", "d#3"]
    assert ranking.scores == (1.0, 0.0, 1.0, 1.0)


def test_depth_cuts_the_final_list_and_seconds_are_kept() -> None:
    index = parse_retriever("rerank:first=overlap,by=test-count").build(UNITS)
    (ranking,) = index.rank([QUESTION], 2)
    assert [UNITS[i].id for i in ranking.indices] == ["d#3", "d#0"]
    assert isinstance(index, RerankIndex)
    assert len(index.seconds) == 1 and index.seconds[0] >= 0


def test_spec_round_trip_and_errors(tmp_path: Path) -> None:
    from chunkscope.spec.grammar import format_spec

    spec = format_spec(parse_retriever("rerank:first=bm25:k1=1.2,by=test-count:word=x,candidates=5"), short=True)
    assert spec == "rerank:first=(bm25:k1=1.2),by=(test-count:word=x),candidates=5"
    assert format_spec(parse_retriever(spec), short=True) == spec
    with pytest.raises(SpecError, match="rerank needs by=SPEC"):
        parse_retriever("rerank:first=bm25")
    with pytest.raises(SpecError, match="candidates must be at least 1"):
        parse_retriever("rerank:first=bm25,by=test-count,candidates=0")
    with pytest.raises(SpecError, match="no such model directory"):
        parse_retriever(f"rerank:first=bm25,by=crossencoder:path={tmp_path / 'absent'}")


@pytest.mark.skipif(module_available("sentence_transformers"), reason="sentence-transformers is installed")
def test_crossencoder_without_the_extra_names_it(tmp_path: Path) -> None:
    with pytest.raises(MissingExtraError, match=r"chunkscope\[st\]"):
        parse_retriever(f"rerank:first=bm25,by=crossencoder:path={tmp_path}")
