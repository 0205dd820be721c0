"""A TREC run file as a retriever: rank chunks the way a production system did."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from chunkscope.errors import InputError
from chunkscope.io.text import read_text, reject_bom
from chunkscope.model import Chunk, Question
from chunkscope.results import Ranking
from chunkscope.retrievers.base import EMPTY_RANKING, Progress, retrievers

RUN_FIELDS = ("qid", "Q0", "chunk_id", "rank", "score", "tag")
SHOWN_UNKNOWN_IDS = 5


@retrievers.register("run")
@dataclass(frozen=True, slots=True)
class RunFile:
    """Rankings read from a TREC run file: ``qid Q0 chunk_id rank score tag`` per line.

    Per question, chunks are ordered by the file's ``rank`` column (ascending),
    ties by score (descending), then by line order. A chunk id repeated for one
    question keeps its first position in that order. Every listed chunk is
    retrieved, whatever its score. Questions the run does not mention get an
    empty ranking (misses, not errors); run lines for unknown questions are
    ignored, but a run that ranks none of the questions is an error (it belongs
    to another question set). Chunk ids the chunking does not have are an error
    listing them; so are an empty run and a score that is not a finite number.
    A spec must name the file; the CLI reads a bare ``run`` as the file given to ``--run``.
    """

    path: str = field(metadata={"missing": "run needs path=FILE (or the --run FILE option)"})

    def build(self, units: Sequence[Chunk]) -> RunIndex:
        return RunIndex(self.path, read_run(self.path), units)


@dataclass(frozen=True, slots=True)
class RunEntry:
    """One line of a run file."""

    chunk_id: str
    rank: int
    score: float
    line: int


def read_run(path: str) -> dict[str, list[RunEntry]]:
    """Entries per question id, in rank order (rank ascending, score descending, line order)."""
    content, _ = read_text(Path(path), "run file")
    reject_bom(path, content)
    by_question: dict[str, list[RunEntry]] = {}
    for number, line in enumerate(content.split("\n"), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != len(RUN_FIELDS):
            raise InputError(
                path,
                f"expected {len(RUN_FIELDS)} whitespace-separated fields ({' '.join(RUN_FIELDS)}), got {len(fields)}",
                line=number,
            )
        qid, _, chunk_id, rank_text, score_text, _ = fields
        try:
            rank = int(rank_text)
        except ValueError:
            raise InputError(path, f"must be an integer, got '{rank_text}'", line=number, field="rank") from None
        try:
            score = float(score_text)
        except ValueError:
            raise InputError(path, f"must be a number, got '{score_text}'", line=number, field="score") from None
        if not math.isfinite(score):
            raise InputError(path, f"must be a finite number, got '{score_text}'", line=number, field="score")
        by_question.setdefault(qid, []).append(RunEntry(chunk_id, rank, score, number))
    if not by_question:
        raise InputError(path, "the run is empty: expected lines 'qid Q0 chunk_id rank score tag'")
    for entries in by_question.values():
        entries.sort(key=lambda entry: (entry.rank, -entry.score, entry.line))
    return by_question


class RunIndex:
    """The run resolved against one chunking's units."""

    def __init__(self, path: str, run: dict[str, list[RunEntry]], units: Sequence[Chunk]) -> None:
        self.path = path
        position = {unit.id: index for index, unit in enumerate(units)}
        unknown: dict[str, int] = {}
        for entries in run.values():
            for entry in entries:
                if entry.chunk_id not in position and entry.chunk_id not in unknown:
                    unknown[entry.chunk_id] = entry.line
        if unknown:
            first_line = min(unknown.values())
            shown = ", ".join(sorted(unknown, key=unknown.__getitem__)[:SHOWN_UNKNOWN_IDS])
            more = f" and {len(unknown) - SHOWN_UNKNOWN_IDS} more" if len(unknown) > SHOWN_UNKNOWN_IDS else ""
            raise InputError(
                path,
                f"{len(unknown)} chunk ids are not in the chunking: {shown}{more} "
                "(use the chunks file the run was made from: --chunks FILE)",
                line=first_line,
                field="chunk_id",
            )
        self.rankings: dict[str, Ranking] = {}
        for qid, entries in run.items():
            indices: list[int] = []
            scores: list[float] = []
            seen: set[int] = set()
            for entry in entries:
                index = position[entry.chunk_id]
                if index not in seen:
                    seen.add(index)
                    indices.append(index)
                    scores.append(entry.score)
            self.rankings[qid] = Ranking(tuple(indices), tuple(scores))

    def rank(self, questions: Sequence[Question], depth: int, progress: Progress | None = None) -> list[Ranking]:
        if questions and not any(question.id in self.rankings for question in questions):
            shown = ", ".join(list(self.rankings)[:SHOWN_UNKNOWN_IDS])
            if len(self.rankings) > SHOWN_UNKNOWN_IDS:
                shown += f" and {len(self.rankings) - SHOWN_UNKNOWN_IDS} more"
            raise InputError(
                self.path,
                f"ranks none of the {len(questions)} questions: its question ids ({shown}) are not in the "
                "question set (is it the run of another question set?)",
                field="qid",
            )
        result = []
        for question in questions:
            ranking = self.rankings.get(question.id, EMPTY_RANKING)
            result.append(Ranking(ranking.indices[:depth], ranking.scores[:depth]))
        return result
