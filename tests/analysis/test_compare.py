"""The paired comparison on hand-built results: an improvement, a regression, a tie, and all pairs."""

from __future__ import annotations

import dataclasses
import itertools
import math
import pickle
from collections.abc import Sequence

import numpy as np
import pytest

from chunkscope.analysis.compare import STATES, PairTestsAhead, compare, compare_all, metric_values, state_of
from chunkscope.analysis.comparison import Comparison, QuestionMoves
from chunkscope.analysis.groups import question_tags
from chunkscope.analysis.paired import PairedSettings
from chunkscope.analysis.stats import holm
from chunkscope.errors import ChunkscopeError
from chunkscope.io.dataset import Dataset
from chunkscope.metrics.registry import REGISTRY
from chunkscope.metrics.summary import summarize
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.evaluate import Evaluator
from chunkscope.results import Config, ConfigResult, QuestionResult, Ranking

LOST = "lost"


def question(question_id: str, rank: int | str | None, complete: bool | None = None) -> QuestionResult:
    """A hand-built result: ``rank`` is a first correct rank, None (not ranked) or LOST (evidence cut)."""
    lost = rank == LOST
    first = None if lost else rank
    assert first is None or isinstance(first, int)
    return QuestionResult(
        question_id=question_id,
        evidence_exists=not lost,
        cuts=(),
        ranking=Ranking((), ()),
        first_correct_rank=first,
        delivered=(),
        skipped_ranks=(),
        delivery_stop="top_k",
        covered=((first is not None and first <= 5) if complete is None else complete,),
        doc_hit=True,
    )


def config_result(chunker: str, ranks: Sequence[int | str | None], ids: Sequence[str] | None = None) -> ConfigResult:
    names = ids or [f"q{i + 1}" for i in range(len(ranks))]
    questions = tuple(question(name, rank) for name, rank in zip(names, ranks, strict=True))
    return ConfigResult(Config(chunker), summarize(questions, ()), questions)


def cell(comparison_transitions: tuple[tuple[int, ...], ...], a: str, b: str) -> int:
    return comparison_transitions[STATES.index(a)][STATES.index(b)]


# ----------------------------------------------------------------- improvement


def test_known_improvement() -> None:
    # Every question moves from rank 2 to rank 1.
    a = config_result("fixed:size=100", [2, 2, 2, 2])
    b = config_result("fixed:size=200", [1, 1, 1, 1])
    comparison = compare(a, b, permutations=10_000, seed=0)
    assert (comparison.better, comparison.worse, comparison.same) == (4, 0, 0)
    assert (comparison.recovered, comparison.newly_lost) == (0, 0)
    assert cell(comparison.transitions, "2-5", "1") == 4
    mrr = comparison.test("mrr_at_10")
    # MRR: 1/2 -> 1, d_i = 0.5 for all four questions. Exact test (2**4 = 16 <= 10,000 sign
    # vectors): |sum(s * d)| >= 2 only for s = all +1 or all -1, so p = 2/16 = 0.125.
    assert (mrr.mean_a, mrr.mean_b, mrr.delta) == (0.5, 1.0, 0.5)
    assert mrr.exact
    assert mrr.p_value == pytest.approx(0.125)
    assert mrr.p_value_raw == mrr.p_value  # one pair: no correction
    # A constant difference resamples to itself: the interval is [0.5, 0.5].
    assert (mrr.ci_low, mrr.ci_high) == (0.5, 0.5)
    assert not mrr.significant  # 0.125 >= 0.05: not significant, which does not mean equal
    # nDCG: 1/log2(3) -> 1.
    assert comparison.test("ndcg_at_10").delta == pytest.approx(1 - 1 / math.log2(3))
    # Recall@5 is 1 under both: delta 0 and p = 1.
    recall = comparison.test("recall_at_5")
    assert (recall.delta, recall.p_value) == (0.0, 1.0)
    assert comparison.correction == "none" and comparison.family_size == 1


def test_improvement_on_many_questions_is_significant() -> None:
    # 12 questions miss under A and rank 1 under B: d = +1 each. Exact (2**12 = 4096 <= 10,000):
    # only the two constant sign vectors reach |sum| = 12, so p = 2/4096.
    a = config_result("fixed:size=100", [None] * 12)
    b = config_result("paragraph", [1] * 12)
    test = compare(a, b).test("recall_at_20")
    assert test.p_value == pytest.approx(2 / 4096)
    assert test.significant


# ------------------------------------------------------------------ regression


def test_known_regression() -> None:
    # q1: rank 1 -> evidence cut (newly lost); q2: rank 3 -> 3 (same); q3: rank 1 -> 7 (worse);
    # q4: evidence cut -> rank 2 (recovered, better).
    a = config_result("fixed:size=200,overlap=40", [1, 3, 1, LOST])
    b = config_result("fixed:size=200", [LOST, 3, 7, 2])
    comparison = compare(a, b)
    assert (comparison.better, comparison.worse, comparison.same) == (1, 2, 1)
    assert (comparison.recovered, comparison.newly_lost) == (1, 1)
    # Complete (rank <= 5): A = T, T, T, F; B = F, T, F, T -> 2 lost, 1 gained.
    assert (comparison.complete_lost, comparison.complete_gained) == (2, 1)
    assert cell(comparison.transitions, "1", "lost") == 1
    assert cell(comparison.transitions, "2-5", "2-5") == 1
    assert cell(comparison.transitions, "1", "6-20") == 1
    assert cell(comparison.transitions, "lost", "2-5") == 1
    assert sum(map(sum, comparison.transitions)) == 4
    # Worst first: newly lost q1, then the rank drop q3, then the recovered q4 last; q2 did not move.
    assert [m.question_id for m in comparison.moved] == ["q1", "q3", "q4"]
    recall = comparison.test("recall_at_5")
    # Recall@5 d = (-1, 0, -1, +1): mean -1/4. Exact over 16 sign vectors: |sum| >= 1 always
    # except when s1*(-1) + s3*(-1) + s4*(+1) has |.| < 1, which never happens (odd sum of
    # three +-1 terms), so p = 16/16 = 1.
    assert recall.delta == -0.25
    assert recall.p_value == 1.0
    move = comparison.move("q1")
    assert (move.state_a, move.state_b, move.movement) == ("1", "lost", "worse")
    assert move.cause_b.value == "CUT"


def test_regression_p_value_by_hand() -> None:
    # d = (-1, 0, -1) for Recall@5: |sum| = 2 needs s1 = s3 (s2 is free): 4 of 8 vectors, p = 0.5.
    a = config_result("paragraph", [1, 3, 1])
    b = config_result("fixed:size=100", [LOST, 3, 7])
    assert compare(a, b).test("recall_at_5").p_value == pytest.approx(0.5)


# ------------------------------------------------------------------------- tie


def test_tie() -> None:
    a = config_result("fixed:size=200", [1, 4, None, LOST, 12])
    b = config_result("fixed:size=400", [1, 4, None, LOST, 12])
    comparison = compare(a, b)
    assert (comparison.better, comparison.worse, comparison.same) == (0, 0, 5)
    assert comparison.moved == ()
    assert all(t.delta == 0.0 and t.p_value == 1.0 and not t.significant for t in comparison.tests)
    # states 1, 2-5, 6-20, pieces, miss, lost: rank 12 is 6-20, nothing is delivered in pieces
    assert [comparison.transitions[i][i] for i in range(len(STATES))] == [1, 1, 1, 0, 1, 1]


def test_two_misses_are_the_same_rank() -> None:
    # None counts as infinity on both sides: same, not better or worse.
    comparison = compare(config_result("a", [None]), config_result("b", [None]), permutations=10)
    assert comparison.moves[0].movement == "same"


# ------------------------------------------------------------------ mismatches


def test_different_question_order_is_refused() -> None:
    a = config_result("fixed:size=200", [1, 2], ["q1", "q2"])
    b = config_result("fixed:size=400", [1, 2], ["q2", "q1"])
    with pytest.raises(ChunkscopeError, match="question 1 is 'q1' in one and 'q2'"):
        compare(a, b)


def test_different_question_count_is_refused() -> None:
    with pytest.raises(ChunkscopeError, match=r"2 questions.*3 questions"):
        compare(config_result("fixed:size=100", [1, 2]), config_result("paragraph", [1, 2, 3]))


# ---------------------------------------------------------------- all pairs


def test_compare_all_corrects_over_every_pair_and_metric() -> None:
    ranks: dict[str, list[int | str | None]] = {
        "fixed:size=100": [None, 3, 1, 8, None, 2, 1, 1, 15, 4, 1, 2, 6, 1],
        "fixed:size=200": [1, 1, 1, 2, None, 1, 1, 3, 4, 1, 1, 1, 2, 1],
        "paragraph": [1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, LOST],
    }
    results = [config_result(name, r) for name, r in ranks.items()]
    comparisons = compare_all(results, permutations=5_000, seed=3)
    assert len(comparisons.pairs) == 3
    tested = len(REGISTRY.tested())  # R@5, R@20, MRR@10, nDCG@10, complete and the 4 overlap rates
    assert comparisons.family_size == 3 * tested == 27
    # The raw p-values equal the uncorrected single-pair comparisons (same seed, same sign vectors)...
    raw = [t.p_value_raw for pair in comparisons.pairs for t in pair.tests]
    single = [t.p_value for i, j in ((0, 1), (0, 2), (1, 2)) for t in compare(results[i], results[j], 5_000, 3).tests]
    assert raw == single
    # ... and the reported p-values are Holm over all 27 of them together.
    corrected = [t.p_value for pair in comparisons.pairs for t in pair.tests]
    np.testing.assert_array_equal(corrected, holm(raw))
    assert all(pair.correction == "holm" and pair.family_size == 27 for pair in comparisons.pairs)
    assert comparisons.pair(1, 2).a.chunker == "fixed:size=200"
    assert comparisons.pair(1, 2).b.chunker == "paragraph"


def five_results(seed: int) -> list[ConfigResult]:
    names = ["fixed:size=100", "fixed:size=200", "fixed:size=400", "paragraph", "markdown"]
    rng = np.random.default_rng(seed)
    picks: list[int | str | None] = [1, 2, 3, 7, 15, None, LOST]
    return [config_result(name, [picks[i] for i in rng.integers(0, len(picks), size=30)]) for name in names]


def test_tests_ahead_give_the_same_comparisons() -> None:
    results = five_results(11)
    plain = compare_all(results, permutations=3_000, seed=4)
    ahead = PairTestsAhead(30, 3_000, 4)
    ahead.start()
    for position in (3, 0, 4, 1, 2):  # in the order they finish, as workers deliver them
        ahead.add(position, results[position])
    assert compare_all(results, permutations=3_000, seed=4, ahead=ahead) == plain
    metrics = tuple(m.name for m in REGISTRY.tested())
    assert ahead.taken(0, results[0], metrics) is not None
    assert ahead.taken(0, results[1], metrics) is None  # another result at that position
    assert ahead.taken(0, results[0], metrics[:2]) is None  # other metrics


def test_tests_ahead_of_other_results_or_settings_are_not_used() -> None:
    results, others = five_results(12), five_results(13)
    plain = compare_all(results, permutations=2_000, seed=1)
    ahead = PairTestsAhead(30, 2_000, 1)
    for position, other in enumerate(others):
        ahead.add(position, other)
    assert compare_all(results, permutations=2_000, seed=1, ahead=ahead) == plain
    partial = PairTestsAhead(30, 2_000, 1)  # one result never came
    for position in range(4):
        partial.add(position, results[position])
    assert compare_all(results, permutations=2_000, seed=1, ahead=partial) == plain
    counted = PairTestsAhead(31, 2_000, 1)  # drawn for another question count
    assert counted.draws_for(compare_settings(2_000, 1), 30) is None
    assert compare_all(results, permutations=2_000, seed=1, ahead=counted) == plain
    assert compare_all(results, permutations=2_000, seed=2, ahead=ahead) == compare_all(results, 2_000, seed=2)


def compare_settings(permutations: int, seed: int) -> PairedSettings:
    return PairedSettings(permutations, permutations, seed, 0.05, True, tuple(m.name for m in REGISTRY.tested()))


def test_best_and_significant_differences_from_it() -> None:
    # 20 questions: the best always ranks 1, a close second misses one, the worst misses all.
    best = config_result("paragraph", [1] * 20)
    close = config_result("fixed:size=400", [1] * 19 + [None])
    worst = config_result("fixed:size=100", [None] * 20)
    comparisons = compare_all([worst, best, close], permutations=2_000, seed=0)
    assert comparisons.best("recall_at_5") == 1
    # worst vs best: d = -1 on all 20; no random sign vector reaches |sum| = 20 except the two
    # constant ones (probability 2/2**20), so p_raw = 1/2001 and Holm multiplies by at most 15.
    differs = comparisons.differs_from_best("recall_at_5", 0)
    assert differs is not None and differs.p_value_raw == pytest.approx(1 / 2001)
    # One question of twenty cannot be told apart.
    assert comparisons.differs_from_best("recall_at_5", 2) is None
    assert comparisons.differs_from_best("recall_at_5", 1) is None  # the best itself


def test_fewer_than_two_configurations_is_refused() -> None:
    with pytest.raises(ChunkscopeError, match="at least two"):
        compare_all([config_result("a", [1])])


def test_metric_values_per_question() -> None:
    values = metric_values(config_result("a", [1, 4, 12, None]))
    # rows: R@5, R@20, MRR@10, nDCG@10, complete, then the overlap rates: 0 without character counts
    np.testing.assert_array_equal(values[5:], np.zeros((4, 4)))
    np.testing.assert_allclose(
        values[:5],
        np.array(
            [
                [1, 1, 0, 0],
                [1, 1, 1, 0],
                [1, 0.25, 0, 0],
                [1, 1 / math.log2(5), 0, 0],
                [1, 1, 0, 0],
            ]
        ),
    )


def test_lost_takes_precedence_over_the_bucket() -> None:
    assert state_of(question("q", LOST)) == "lost"
    assert state_of(question("q", None)) == "miss"
    assert state_of(question("q", 21)) == "miss"


def in_pieces(result: QuestionResult) -> QuestionResult:
    """``result`` with its one item not covered but delivered in pieces by the chunks ranked 1 and 2."""
    return dataclasses.replace(result, covered=(False,), piece_ranks=((1, 2),))


def test_pieces_takes_precedence_over_lost_and_miss_only() -> None:
    assert state_of(in_pieces(question("q", LOST))) == "pieces"
    assert state_of(in_pieces(question("q", None))) == "pieces"
    assert state_of(in_pieces(question("q", 21))) == "pieces"
    assert state_of(in_pieces(question("q", 12))) == "6-20"  # a correct rank is kept
    assert state_of(in_pieces(question("q", 3))) == "2-5"
    assert STATES.index("pieces") == STATES.index("miss") - 1  # better than miss, worse than any rank


def test_recovered_and_newly_lost_read_the_evidence_not_the_state() -> None:
    lost_in_pieces = in_pieces(question("q1", LOST))
    a = ConfigResult(Config("fixed:size=100"), summarize((lost_in_pieces,), ()), (lost_in_pieces,))
    b = config_result("fixed:size=200", [2])
    forward, backward = compare(a, b, permutations=10), compare(b, a, permutations=10)
    assert forward.moves[0].state_a == "pieces" and forward.recovered == 1 and forward.newly_lost == 0
    assert backward.moves[0].state_b == "pieces" and backward.newly_lost == 1 and backward.recovered == 0
    assert forward.transitions[STATES.index("pieces")][STATES.index("2-5")] == 1


# ------------------------------------------------------------------------ tags


def test_tags_compare_each_group_on_its_own_questions() -> None:
    a = config_result("fixed:size=100", [2, 2, 1, 1])
    b = config_result("fixed:size=200", [1, 1, 3, 1])
    tags = {"q1": ("exact-term",), "q2": ("exact-term", "table"), "q3": ("paraphrase",), "q4": ("paraphrase",)}
    comparison = compare(a, b, permutations=100, tags=tags)
    assert [group.group for group in comparison.by_tag] == ["exact-term", "paraphrase", "table"]
    exact, paraphrase, table = comparison.by_tag
    assert (exact.questions, exact.better, exact.worse) == (2, 2, 0)
    assert (paraphrase.questions, paraphrase.better, paraphrase.worse) == (2, 0, 1)
    assert table.questions == 1
    # paraphrase MRR: (1/3 - 1 + 0) / 2 = -1/3
    assert paraphrase.test("mrr_at_10").delta == pytest.approx(-1 / 3)


def test_sample_comparison_counts_are_consistent(sample: Dataset) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    a = evaluator.evaluate(make_config("fixed:size=200"))
    b = evaluator.evaluate(make_config("fixed:size=200,overlap=40"))
    comparison = compare(a, b, permutations=500, tags=question_tags(sample.questions.questions))
    assert comparison.better + comparison.worse + comparison.same == len(sample.questions.questions)
    assert comparison.newly_lost == sum(q.evidence_exists for q in a.questions if not _exists(b, q.question_id))
    assert comparison.test("recall_at_5").mean_a == a.summary["recall_at_5"]
    assert comparison.test("ndcg_at_10").mean_b == pytest.approx(b.summary["ndcg_at_10"])
    en = comparison.tag("en")
    assert en.questions == sum("en" in q.tags for q in sample.questions.questions)


def as_tuple(comparison: Comparison) -> Comparison:
    """The same comparison with its moves as a plain tuple: every count is then taken move by move."""
    return dataclasses.replace(comparison, moves=tuple(comparison.moves))


MOVE_COUNTS = ("better", "worse", "same", "recovered", "newly_lost", "complete_gained", "complete_lost")


def test_counts_from_the_columns_equal_the_counts_move_by_move(sample: Dataset) -> None:
    evaluator = Evaluator(sample.corpus, sample.questions.questions)
    results = [evaluator.evaluate(make_config(spec)) for spec in ("fixed:size=80", "fixed:size=200", "paragraph")]
    tags = question_tags(sample.questions.questions)
    comparisons = compare_all(results, permutations=200, tags=tags)
    for comparison in [*comparisons.pairs, *(pair for group in comparisons.by_tag for pair in group.pairs)]:
        assert isinstance(comparison.moves, QuestionMoves)
        plain = as_tuple(comparison)
        assert [getattr(comparison, name) for name in MOVE_COUNTS] == [getattr(plain, name) for name in MOVE_COUNTS]
        assert comparison.moved == plain.moved
        assert comparison.moved == tuple(sorted((m for m in plain.moves if m.moved), key=lambda m: m.severity))
        transitions = [[0] * len(STATES) for _ in STATES]
        for move in plain.moves:
            transitions[STATES.index(move.state_a)][STATES.index(move.state_b)] += 1
        assert comparison.transitions == tuple(tuple(row) for row in transitions)
    assert any(pair.moved for pair in comparisons.pairs)


def test_moves_are_the_values_of_each_question() -> None:
    a = config_result("fixed:size=100", [2, LOST, 1, None])
    b = config_result("fixed:size=200", [1, 3, LOST, None])
    comparison = compare(a, b, permutations=100)
    moves = comparison.moves
    assert len(moves) == 4 and moves == tuple(moves) and hash(moves) == hash(tuple(moves))
    assert [(m.question_id, m.rank_a, m.rank_b, m.lost_a, m.lost_b) for m in moves] == [
        ("q1", 2, 1, False, False),
        ("q2", None, 3, True, False),
        ("q3", 1, None, False, True),
        ("q4", None, None, False, False),
    ]
    assert moves[1:3] == (moves[1], moves[2])
    assert comparison.move("q3").newly_lost and comparison.move("q2").recovered


def test_comparisons_pickle_with_their_moves() -> None:
    a = config_result("fixed:size=100", [2, 2, 1, 9])
    b = config_result("fixed:size=200", [1, 1, 3, 9])
    comparison = compare(a, b, permutations=100)
    copy = pickle.loads(pickle.dumps(comparison))
    assert copy == comparison and copy.moves == comparison.moves and copy.better == 2


def _exists(result: ConfigResult, question_id: str) -> bool:
    return next(q.evidence_exists for q in result.questions if q.question_id == question_id)


def sign_flip_pvalue(d: list[float]) -> float:
    """Exact two-sided sign-flip p-value, every sign vector enumerated in plain Python."""
    observed = abs(sum(d))
    flips = list(itertools.product((1, -1), repeat=len(d)))
    hits = sum(abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed - 1e-12 for signs in flips)
    return hits / len(flips)


def test_exact_p_values_of_b_minus_a_per_metric() -> None:
    a = config_result("a", [2, 4, None, 1, 5, 3])
    b = config_result("b", [1, 1, 1, 1, 1, 1])
    comparison = compare(a, b, permutations=64, seed=11)  # 2**6 = 64 sign vectors: enumerated
    # R@5, R@20 and complete: only q3 differs (d = 1), so every sign vector ties |mean| = 1/6 and p = 1.
    # MRR@10 d = (1/2, 3/4, 1, 0, 4/5, 2/3) and nDCG@10 d = 1 - 1/log2(r + 1) > 0 except q4: only the
    # all-plus and all-minus signs on the five non-zero values reach |mean|, times 2 signs of the zero,
    # so p = 4/64.
    assert [(t.metric, t.exact, t.p_value) for t in comparison.tests] == [
        ("recall_at_5", True, 1.0),
        ("recall_at_20", True, 1.0),
        ("mrr_at_10", True, 4 / 64),
        ("ndcg_at_10", True, 4 / 64),
        ("complete", True, 1.0),
        *((name, True, 1.0) for name in ("evidence_recall", "precision", "iou", "precision_omega")),  # all d = 0
    ]
    assert comparison.test("mrr_at_10").delta == pytest.approx((1 / 2 + 3 / 4 + 1 + 0 + 4 / 5 + 2 / 3) / 6)


def test_monte_carlo_p_values_estimate_the_exact_ones() -> None:
    a_ranks = [1, 2, None, 4, 1, 1, 3, None, 2, 1, 1, 1]
    b_ranks = [1, 1, 2, 4, None, 1, 1, 1, 2, 1, 3, 1]
    comparison = compare(config_result("a", a_ranks), config_result("b", b_ranks), permutations=3_000, seed=11)
    test = comparison.test("mrr_at_10")
    assert not test.exact  # 2**12 = 4096 > 3000: random sign vectors

    def reciprocal(rank: int | None) -> float:
        return 0.0 if rank is None else 1 / rank

    d = [reciprocal(rb) - reciprocal(ra) for ra, rb in zip(a_ranks, b_ranks, strict=True)]
    # 3,000 draws: the standard error of the estimate is at most 0.5 / sqrt(3000) < 0.01.
    assert test.p_value == pytest.approx(sign_flip_pvalue(d), abs=0.03)
