"""Score anatomy reports: explanations as JSON, CSV and Markdown (the same facts in each)."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Iterator, Sequence
from typing import Any

from chunkscope.analysis.explain import (
    Anatomy,
    DenseAnatomy,
    DenseScore,
    Explanation,
    FusionAnatomy,
    LexicalAnatomy,
    LexicalScore,
    RankAnatomy,
    RerankAnatomy,
)

ANATOMY_KINDS: dict[type, str] = {
    LexicalAnatomy: "lexical",
    DenseAnatomy: "dense",
    FusionAnatomy: "fusion",
    RerankAnatomy: "rerank",
    RankAnatomy: "ranks",
}
"""The ``kind`` written beside each anatomy in JSON."""


def explain_report(explanations: Sequence[Explanation]) -> dict[str, Any]:
    """The JSON report: one entry per explained question."""
    return {"explanations": [explanation_dict(e) for e in explanations]}


def explanation_dict(explanation: Explanation) -> dict[str, Any]:
    """One explanation as plain JSON values; each anatomy carries its ``kind``."""
    values = {f.name: getattr(explanation, f.name) for f in dataclasses.fields(explanation)}
    values["evidence"] = dataclasses.asdict(explanation.evidence)
    values["rival"] = None if explanation.rival is None else dataclasses.asdict(explanation.rival)
    values["anatomy"] = anatomy_dict(explanation.anatomy)
    return values


def anatomy_dict(anatomy: Anatomy) -> dict[str, Any]:
    """An anatomy with its ``kind`` first and nested anatomies (fusion parts, first stage) in kind."""
    values: dict[str, Any] = {"kind": ANATOMY_KINDS[type(anatomy)]}
    for f in dataclasses.fields(anatomy):
        value = getattr(anatomy, f.name)
        if f.name == "first":
            values[f.name] = None if value is None else anatomy_dict(value)
        elif f.name == "parts":
            values[f.name] = [
                {
                    **{
                        k: getattr(p, k)
                        for k in ("name", "evidence_rank", "evidence_contribution", "rival_rank", "rival_contribution")
                    },
                    "detail": None if p.detail is None else anatomy_dict(p.detail),
                }
                for p in value
            ]
        elif dataclasses.is_dataclass(value):
            values[f.name] = dataclasses.asdict(value)  # type: ignore[arg-type]
        else:
            values[f.name] = value
    return values


CSV_COLUMNS = (
    "question",
    "config",
    "stage",
    "role",
    "chunk_id",
    "rank",
    "item",
    "query_count",
    "tf",
    "df",
    "idf",
    "norm",
    "value",
)
"""``item``: a query term, a fused part, ``score``, ``cosine``, ``sentence_cosine``, ``first_rank``..."""


def explain_csv(explanations: Sequence[Explanation]) -> str:
    """One row per (question, stage, chunk, item): term contributions, part shares, cosines, ranks."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for e in explanations:
        chunks = {"evidence": e.evidence, "rival": e.rival}
        for stage, role, item, cells in _rows(e.anatomy, e.anatomy.retriever):
            chunk = chunks[role]
            writer.writerow(
                [
                    e.question_id,
                    e.config,
                    stage,
                    role,
                    "" if chunk is None else chunk.chunk_id,
                    "" if chunk is None or chunk.rank is None else chunk.rank,
                    item,
                    *cells,
                ]
            )
    return buffer.getvalue()


_Row = tuple[str, str, str, list[object]]


def _rows(anatomy: Anatomy, stage: str) -> Iterator[_Row]:
    blank: list[object] = ["", "", "", ""]
    if isinstance(anatomy, LexicalAnatomy):
        for role, score in (("evidence", anatomy.evidence), ("rival", anatomy.rival)):
            if score is None:
                continue
            for t in score.terms:
                yield stage, role, t.term, [t.query_count, t.tf, t.df, t.idf, t.norm, t.contribution]
            yield stage, role, "score", [*blank, "", score.score]
    elif isinstance(anatomy, DenseAnatomy):
        for role, dense in (("evidence", anatomy.evidence), ("rival", anatomy.rival)):
            if dense is not None:
                yield stage, role, "cosine", [*blank, "", dense.cosine]
                yield stage, role, "sentence_cosine", [*blank, "", dense.sentence_cosine]
    elif isinstance(anatomy, FusionAnatomy):
        for part in anatomy.parts:
            yield (
                stage,
                "evidence",
                f"rank:{part.name}",
                [*blank, "", "" if part.evidence_rank is None else part.evidence_rank],
            )
            yield stage, "evidence", f"rrf:{part.name}", [*blank, "", part.evidence_contribution]
            yield stage, "rival", f"rank:{part.name}", [*blank, "", "" if part.rival_rank is None else part.rival_rank]
            yield stage, "rival", f"rrf:{part.name}", [*blank, "", part.rival_contribution]
            if part.detail is not None:
                yield from _rows(part.detail, f"{stage} > {part.name}")
    elif isinstance(anatomy, RerankAnatomy):
        stages: tuple[tuple[str, int | None, int | None, float | None], ...] = (
            ("evidence", anatomy.evidence_first_rank, anatomy.evidence_final_rank, anatomy.evidence_score),
            ("rival", anatomy.rival_first_rank, anatomy.rival_final_rank, anatomy.rival_score),
        )
        for role, first, final, value in stages:
            yield stage, role, "first_rank", [*blank, "", _blank(first)]
            yield stage, role, "final_rank", [*blank, "", _blank(final)]
            yield stage, role, "rerank_score", [*blank, "", _blank(value)]
        if anatomy.first is not None:
            yield from _rows(anatomy.first, f"{stage} > first")
    else:
        yield stage, "evidence", "score", [*blank, "", _blank(anatomy.evidence_score)]
        yield stage, "rival", "score", [*blank, "", _blank(anatomy.rival_score)]


def _blank(value: object) -> object:
    return "" if value is None else value


def explain_markdown(explanations: Sequence[Explanation]) -> str:
    """A section per question: the two chunks, then each stage's anatomy as a table."""
    lines = ["# Score anatomy", ""]
    for e in explanations:
        lines += _question_markdown(e)
    return "\n".join(lines).rstrip("\n") + "\n"


def _question_markdown(e: Explanation) -> list[str]:
    rank = "not found" if e.first_correct_rank is None else str(e.first_correct_rank)
    lines = [
        f"## {e.question_id}: {_cell(e.query, 200)}",
        "",
        f"Configuration `{e.config}`; first correct rank: {rank}.",
        "",
    ]
    held = "its best piece (the span is cut)" if e.cut else "holds the evidence"
    lines.append(f"- evidence chunk `{e.evidence.chunk_id}` (rank {_rank(e.evidence.rank)}), {held}")
    if e.rival is not None:
        role = "ranked above it" if e.rival_role == "outranked" else "the runner-up"
        lines.append(f"- rival `{e.rival.chunk_id}` (rank {_rank(e.rival.rank)}), {role}")
    lines.append("")
    lines += anatomy_markdown(e.anatomy)
    return lines


def anatomy_markdown(anatomy: Anatomy, level: int = 3) -> list[str]:
    """One stage's table (and its nested stages'), as Markdown lines."""
    heading = "#" * level + f" {anatomy.retriever}"
    lines = [heading, ""]
    if isinstance(anatomy, LexicalAnatomy):
        lines += _lexical_table(anatomy)
    elif isinstance(anatomy, DenseAnatomy):
        lines += _dense_table(anatomy.evidence, anatomy.rival)
    elif isinstance(anatomy, FusionAnatomy):
        lines += ["| part | evidence rank | 1/(k+rank) | rival rank | 1/(k+rank) |", "|---|---:|---:|---:|---:|"]
        for p in anatomy.parts:
            lines.append(
                f"| {p.name} | {_rank(p.evidence_rank)} | {p.evidence_contribution:.6f} | "
                f"{_rank(p.rival_rank)} | {p.rival_contribution:.6f} |"
            )
        rival = "–" if anatomy.rival_score is None else f"{anatomy.rival_score:.6f}"
        lines += [f"| **sum** (k={anatomy.k}) | | {anatomy.evidence_score:.6f} | | {rival} |", ""]
        for p in anatomy.parts:
            if p.detail is not None:
                lines += anatomy_markdown(p.detail, level + 1)
    elif isinstance(anatomy, RerankAnatomy):
        lines += [
            "| chunk | first-stage rank | final rank | rerank score |",
            "|---|---:|---:|---:|",
            f"| evidence | {_rank(anatomy.evidence_first_rank)} | {_rank(anatomy.evidence_final_rank)} | "
            f"{_number(anatomy.evidence_score)} |",
            f"| rival | {_rank(anatomy.rival_first_rank)} | {_rank(anatomy.rival_final_rank)} | "
            f"{_number(anatomy.rival_score)} |",
            "",
            f"Candidates re-ordered: the first stage's top {anatomy.candidates}.",
            "",
        ]
        if anatomy.first is not None:
            lines += anatomy_markdown(anatomy.first, level + 1)
    else:
        lines += [
            "| chunk | rank | score |",
            "|---|---:|---:|",
            f"| evidence | {_rank(anatomy.evidence_rank)} | {_number(anatomy.evidence_score)} |",
            f"| rival | {_rank(anatomy.rival_rank)} | {_number(anatomy.rival_score)} |",
            "",
        ]
    return lines


def _lexical_table(anatomy: LexicalAnatomy) -> list[str]:
    rival = anatomy.rival
    lines = [
        f"{anatomy.unit_count} chunks, average length {anatomy.average_length:.2f} tokens; evidence chunk "
        f"{anatomy.evidence.length} tokens" + ("" if rival is None else f", rival {rival.length} tokens") + ".",
        "",
        "| term | in query | df | idf | tf evidence | norm evidence | evidence | tf rival | norm rival | rival |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rival_terms = {t.term: t for t in rival.terms} if rival is not None else {}
    for t in anatomy.evidence.terms:
        r = rival_terms.get(t.term)
        rival_cells = "| – | – | –" if r is None else f"| {r.tf} | {r.norm:.4f} | {r.contribution:.4f}"
        lines.append(
            f"| {_cell(t.term)} | {t.query_count} | {t.df} | {t.idf:.4f} | {t.tf} | {t.norm:.4f} | "
            f"{t.contribution:.4f} {rival_cells} |"
        )
    rival_total = "–" if rival is None else f"{rival.score:.4f}"
    lines += [f"| **score** | | | | | | {anatomy.evidence.score:.4f} | | | {rival_total} |", ""]
    return lines


def _dense_table(evidence: DenseScore, rival: DenseScore | None) -> list[str]:
    lines = ["| chunk | cosine | best sentence | its cosine |", "|---|---:|---|---:|"]
    for role, score in (("evidence", evidence), ("rival", rival)):
        if score is not None:
            lines.append(
                f"| {role} | {score.cosine:.4f} | {_cell(score.sentence, 120)} | {score.sentence_cosine:.4f} |"
            )
    return [*lines, ""]


def _rank(rank: int | None) -> str:
    return "–" if rank is None else str(rank)


def _number(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def _cell(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


__all__ = [
    "CSV_COLUMNS",
    "LexicalScore",
    "anatomy_dict",
    "anatomy_markdown",
    "explain_csv",
    "explain_markdown",
    "explain_report",
    "explanation_dict",
]
