"""Hand-built question results whose every metric is computed by hand, for the metric tests."""

from __future__ import annotations

from chunkscope.model import Chunk
from chunkscope.results import NO_OVERLAP, CharacterOverlap, DeliveredChunk, QuestionResult, Ranking

# Two units of document d: d#0 = [0, 10) with a 3-character prefix, d#1 = [5, 15) without.
UNITS = (
    Chunk("d#0", "d", 0, 10, "abcdefghij", prefix="T: "),
    Chunk("d#1", "d", 5, 15, "fghijklmno"),
)


def question(
    question_id: str,
    first_rank: int | None,
    *,
    exists: bool = True,
    covered: tuple[bool, ...] = (True,),
    doc_hit: bool = True,
    delivered: tuple[DeliveredChunk, ...] = (),
    piece_ranks: tuple[tuple[int, ...], ...] = (),
    overlap: CharacterOverlap = NO_OVERLAP,
) -> QuestionResult:
    return QuestionResult(
        question_id,
        exists,
        (),
        Ranking((), ()),
        first_rank,
        delivered,
        (),
        "top_k",
        covered,
        doc_hit,
        piece_ranks=piece_ranks,
        overlap=overlap,
    )


def hand_results(ranks: tuple[int | None, ...] = (1, 3, 12, None)) -> tuple[QuestionResult, ...]:
    """Four questions (with the default ranks):

    * qa: rank 1, complete, delivers d#0 (13 characters sent, prefix included); its 4 evidence
      characters all delivered; Ω: 4 of the 13 characters of its holding unit;
    * qb: rank 3, one of two items covered, delivers d#0 and d#1 (10 sent, 5 of them re-sent); the
      other item arrives in pieces (ranks 1 and 2), so every one of its 6 + 6 evidence characters was
      delivered: in pieces; Ω: 12 of 18;
    * qc: rank 12, nothing covered, no document hit, nothing delivered; 5 evidence characters, none
      delivered; Ω: 5 of 10;
    * qd: never ranked, evidence lost, nothing measured (every character count 0).
    """
    first = DeliveredChunk(1, UNITS[0], 0, 10, 13, 0)
    second = DeliveredChunk(2, UNITS[1], 5, 15, 10, 5)
    return (
        question("qa", ranks[0], delivered=(first,), piece_ranks=((),), overlap=CharacterOverlap(4, 4, 0, 4, 13)),
        question(
            "qb",
            ranks[1],
            covered=(True, False),
            delivered=(first, second),
            piece_ranks=((), (1, 2)),
            overlap=CharacterOverlap(12, 12, 0, 12, 18),
        ),
        question("qc", ranks[2], covered=(False,), doc_hit=False, overlap=CharacterOverlap(5, 0, 5, 5, 10)),
        question("qd", ranks[3], exists=False, covered=(False,), doc_hit=False),
    )


HAND_SUMMARY = {
    "questions": 4,
    "index_chunks": 2,
    "indexed_chars": (3 + 10) + (0 + 10),
    "evidence_exists": 3,
    "lost": 1,
    "doc_hits": 2,
    "complete": 1,
    "pieces": 1,  # qb
    "evidence_recall": (4 / 4 + 12 / 12 + 0 / 5 + 0) / 4,
    "precision": (4 / 13 + 12 / 23 + 0 + 0) / 4,  # qc and qd sent nothing: 0
    "iou": (4 / (13 + 0) + 12 / (23 + 0) + 0 / (0 + 5) + 0) / 4,
    "precision_omega": (4 / 13 + 12 / 18 + 5 / 10 + 0) / 4,
    "recall_at_5": 2 / 4,  # ranks 1 and 3
    "recall_at_20": 3 / 4,  # and 12
    "mrr_at_10": (1 + 1 / 3) / 4,
    "ndcg_at_10": (1 + 1 / 2) / 4,  # 1/log2(2) + 1/log2(4)
    "sent_chars": 13 + 13 + 10,
    "duplicate_chars": 5,
}
"""Every built-in metric of :func:`hand_results` with :data:`UNITS`, by hand."""


def truncated_chunks(result: QuestionResult) -> int:
    """Delivered chunks whose body was cut to fit the budget."""
    return sum(d.truncated for d in result.delivered)
