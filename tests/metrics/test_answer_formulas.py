"""Exact match, F1 and has-answer on hand-checked cases (SQuAD v1.1's and JGLUE's definitions)."""

from __future__ import annotations

import pytest

from chunkscope.metrics.answers import ANSWER_METRICS, exact_match, f1_score, has_answer, language_of


@pytest.mark.parametrize(
    ("prediction", "references", "em", "f1"),
    [
        # lowercase, "!" dropped, "The" dropped: both sides are "eiffel tower".
        ("The Eiffel Tower!", ["eiffel tower"], True, 1.0),
        # "in city of paris" (4 tokens; "the" dropped) vs "paris france" (2, "," dropped): 1 common token,
        # P = 1/4, R = 1/2, F1 = 2·(1/4)(1/2) / (1/4 + 1/2) = (1/4) / (3/4) = 1/3.
        ("in the city of Paris", ["Paris, France"], False, 1 / 3),
        # "a b b" loses the article: [b, b] vs [b, c]; the multiset intersection is one b:
        # P = 1/2, R = 1/2, F1 = 1/2.
        ("a b b", ["b c"], False, 0.5),
        # the best reference: vs "london" 0; vs [paris, city] 1 common, P = 1, R = 1/2, F1 = 2/3.
        ("paris", ["London", "Paris city"], False, 2 / 3),
        # the apostrophe is punctuation: "don't" becomes "dont".
        ("dont", ["Don't"], True, 1.0),
        # both normalise to "": the official script's exact match is 1 ("" == ""), its F1 0 (no common token).
        ("the", ["a"], True, 0.0),
    ],
)
def test_squad_exact_match_and_f1(prediction: str, references: list[str], em: bool, f1: float) -> None:
    assert exact_match(prediction, references) is em
    assert f1_score(prediction, references) == pytest.approx(f1, abs=1e-12)


@pytest.mark.parametrize(
    ("prediction", "reference", "em", "f1"),
    [
        # a trailing 。 is stripped: equal.
        ("東京都。", "東京都", True, 1.0),
        # characters [東 京 都 庁] vs [東 京 都]: 3 common, P = 3/4, R = 1, F1 = 2·(3/4) / (7/4) = 6/7.
        ("東京都庁", "東京都", False, 6 / 7),
        # the space stays a character: [東 京 ␠ 都] vs [東 京 都], F1 = 6/7 again, no exact match.
        ("東京 都", "東京都", False, 6 / 7),
        # JGLUE's scorer applies no NFKC: full-width ＡＢＣ lowercases to ａｂｃ, no common character with "abc".
        ("ＡＢＣ", "abc", False, 0.0),
        # an empty prediction: F1 is 1 only when both sides are empty.
        ("", "東京", False, 0.0),
        # punctuation is kept: 「東京」 has 4 characters, 2 common with 東京: P = 2/4, R = 1, F1 = 2/3.
        ("「東京」", "東京", False, 2 / 3),
    ],
)
def test_jsquad_exact_match_and_character_f1(prediction: str, reference: str, em: bool, f1: float) -> None:
    assert exact_match(prediction, [reference], "ja") is em
    assert f1_score(prediction, [reference], "ja") == pytest.approx(f1, abs=1e-12)


def test_language_follows_the_reference() -> None:
    assert language_of("東京") == "ja"
    assert language_of("カタカナ") == "ja"
    assert language_of("NHK") == "en"
    # a Japanese reference is scored by characters: 6/7 as above, where tokens would give 0.
    assert f1_score("東京都庁", ["東京都"]) == pytest.approx(6 / 7)


def test_no_reference_scores_nothing() -> None:
    assert exact_match("x", []) is False
    assert f1_score("x", []) == 0.0


@pytest.mark.parametrize(
    ("references", "texts", "expected"),
    [
        # tokens [eiffel tower] run inside [visit eiffel tower paris].
        (["the Eiffel Tower"], ["Visit Eiffel Tower, Paris"], True),
        # token level: "tower" is not a token of "towers".
        (["tower"], ["Eiffel towers"], False),
        # the run must be contiguous.
        (["eiffel tower"], ["eiffel big tower"], False),
        # within one chunk only: split across two delivered chunks it does not occur.
        (["eiffel tower"], ["the eiffel", "tower"], False),
        # Japanese: whitespace removed on both sides.
        (["東京 都"], ["首都は東京都です"], True),
        # Japanese: NFKC makes full-width ＡＢＣ plain ABC.
        (["ＡＢＣ社"], ["ABC社の本社"], True),
        (["大阪"], ["首都は東京都です"], False),
        # a Latin reference in Japanese text: the Japanese rule (tokens would make "nhkの番組" one word).
        (["NHK"], ["NHKの番組"], True),
        # Latin in Latin text keeps the token rule.
        (["NHK"], ["NHKs"], False),
        # a reference that normalises to nothing never occurs.
        (["the"], ["the the"], False),
    ],
)
def test_has_answer(references: list[str], texts: list[str], expected: bool) -> None:
    assert has_answer(references, texts) is expected


def test_answer_metrics_by_hand() -> None:
    values = [True, False, None, True]  # the third question has no reference: left out
    assert ANSWER_METRICS["answer_in_context"].summarize(values) == 2
    assert ANSWER_METRICS["answer_in_context_rate"].summarize(values) == pytest.approx(2 / 3)
    assert ANSWER_METRICS["questions_with_references"].summarize(values) == 3
    assert ANSWER_METRICS["answer_correct_rate"].summarize([None, None]) is None
    assert all(metric.definition for metric in ANSWER_METRICS.values())
