"""Answers under A and B: answer transitions beside evidence transitions, the paired test, equivalence.

Over the questions answered under both configurations: each question's evidence transition
(``became complete``, ``stayed complete``, ``became incomplete``, ``stayed incomplete``) crossed with
its answer transition (``turned correct``, ``stayed correct``, ``turned wrong``, ``stayed wrong``).
The answer rate is compared with the test every binary metric of ``compare`` gets: the two-sided
paired sign-flip permutation test of ``d_i = correct_B,i − correct_A,i``
(:func:`chunkscope.analysis.stats.paired_permutation_test`, exact when ``2**n <= permutations``;
for 0/1 values this is an exact McNemar test on the discordant questions). With a margin ``M``,
TOST: the one-sided sign-flip p-values of ``d + M`` and ``M − d``
(:func:`chunkscope.analysis.stats.one_sided_permutation_pvalues`), equivalent when their maximum is
below alpha (the verdicts of :mod:`chunkscope.analysis.equivalence`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from chunkscope.analysis.answers import Attribution
from chunkscope.analysis.equivalence import DIFFERENT, EQUIVALENT, NEITHER, EquivalenceTest
from chunkscope.analysis.stats import PairedTest, one_sided_permutation_pvalues, paired_permutation_test
from chunkscope.errors import ChunkscopeError

EVIDENCE_TRANSITIONS = ("became complete", "stayed complete", "became incomplete", "stayed incomplete")
ANSWER_TRANSITIONS = ("turned correct", "stayed correct", "turned wrong", "stayed wrong")


@dataclass(frozen=True, slots=True)
class AnswerTransitions:
    """Answers under A and B on the questions answered under both."""

    a: Attribution
    b: Attribution
    questions: tuple[str, ...]
    """Question ids answered under both, in question order."""
    crossed: Mapping[str, Mapping[str, int]]
    """Evidence transition -> answer transition -> questions."""
    answer_test: PairedTest
    """The paired test of the answer rate (correct under B minus under A)."""
    evidence_test: PairedTest
    """The same test of ``complete`` on the same questions."""
    equivalence: EquivalenceTest | None
    """TOST of the answer rate when a margin is given."""

    def evidence_count(self, transition: str) -> int:
        """Questions with this evidence transition."""
        return sum(self.crossed[transition].values())

    def answer_count(self, transition: str) -> int:
        """Questions with this answer transition."""
        return sum(row[transition] for row in self.crossed.values())

    def sentence(self) -> str:
        """``Evidence became complete for 41; of those, 29 answers turned correct (answer rate p = ...)``."""
        became = self.evidence_count("became complete")
        turned = self.crossed["became complete"]["turned correct"]
        lost = self.evidence_count("became incomplete")
        turned_wrong = self.crossed["became incomplete"]["turned wrong"]
        return (
            f"Evidence became complete for {became}; of those, {turned} answers turned correct. "
            f"Evidence became incomplete for {lost}; of those, {turned_wrong} answers turned wrong. "
            f"Answer rate {self.answer_test.mean_a:.4f} -> {self.answer_test.mean_b:.4f}, "
            f"paired test p = {self.answer_test.p_value:.4g}"
        )


def _evidence_transition(before: bool, after: bool) -> str:
    if before:
        return "stayed complete" if after else "became incomplete"
    return "became complete" if after else "stayed incomplete"


def _answer_transition(before: bool, after: bool) -> str:
    if before:
        return "stayed correct" if after else "turned wrong"
    return "turned correct" if after else "stayed wrong"


def question_transitions(a: Attribution, b: Attribution) -> dict[str, tuple[str, str]]:
    """Each question answered under both A and B: its evidence transition and its answer transition, in A's order."""
    rows_b = {row.question_id: row for row in b.rows}
    return {
        row_a.question_id: (
            _evidence_transition(row_a.complete, rows_b[row_a.question_id].complete),
            _answer_transition(row_a.correct, rows_b[row_a.question_id].correct),
        )
        for row_a in a.rows
        if row_a.question_id in rows_b
    }


def answer_transitions(
    a: Attribution,
    b: Attribution,
    permutations: int,
    seed: int,
    alpha: float,
    margin: float | None = None,
) -> AnswerTransitions:
    """Compare the answers of A and B (see the module docstring); ChunkscopeError when no question has both."""
    rows_b = {row.question_id: row for row in b.rows}
    pairs = [(row, rows_b[row.question_id]) for row in a.rows if row.question_id in rows_b]
    if not pairs:
        raise ChunkscopeError("no question has an answer under both A and B: nothing to compare")
    crossed = {e: dict.fromkeys(ANSWER_TRANSITIONS, 0) for e in EVIDENCE_TRANSITIONS}
    for evidence, answer in question_transitions(a, b).values():
        crossed[evidence][answer] += 1
    correct_a = [float(ra.correct) for ra, _ in pairs]
    correct_b = [float(rb.correct) for _, rb in pairs]
    answer_test = paired_permutation_test(correct_a, correct_b, permutations, seed)
    evidence_test = paired_permutation_test(
        [float(ra.complete) for ra, _ in pairs], [float(rb.complete) for _, rb in pairs], permutations, seed
    )
    equivalence = None
    if margin is not None:
        d = np.asarray(correct_b) - np.asarray(correct_a)
        lower, upper = one_sided_permutation_pvalues(np.vstack([d + margin, margin - d]), permutations, seed)
        p = float(max(lower, upper))
        verdict = EQUIVALENT if p < alpha else DIFFERENT if answer_test.p_value < alpha else NEITHER
        equivalence = EquivalenceTest(
            "answer_correct", margin, float(d.mean()), float(lower), float(upper), p, p, verdict
        )
    return AnswerTransitions(
        a,
        b,
        tuple(ra.question_id for ra, _ in pairs),
        MappingProxyType({k: MappingProxyType(v) for k, v in crossed.items()}),
        answer_test,
        evidence_test,
        equivalence,
    )
