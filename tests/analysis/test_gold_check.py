"""The gold check: every planted problem is found, and nothing else; the helpers against brute force."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from chunkscope.analysis.gold import (
    FINDING_KINDS,
    GoldCheck,
    check_gold,
    inside_grapheme,
    normalized_query,
    paragraph_breaks,
    section_headings,
    similar_pairs,
    trigrams,
)
from chunkscope.io.dataset import load_dataset
from chunkscope.io.quotes import MatchPolicy
from chunkscope.model import Corpus, Document, EvidenceItem, Question, QuestionSet, Span

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOLD = FIXTURES / "gold"

PLANTED = {
    ("not_found", "g02"),
    ("ambiguous", "g03"),
    ("mismatch", "g04"),
    ("approximate", "g05"),
    ("approximate", "g06"),
    ("inside_word", "g07"),
    ("inside_grapheme", "g08"),
    ("edge_whitespace", "g09"),
    ("crosses_paragraph", "g10"),
    ("crosses_paragraph", "g11"),
    ("crosses_section", "g11"),
    ("duplicate_question", "g12"),
    ("near_duplicate_question", "g13"),
    ("repeated_evidence", "g14"),
}
"""One question per planted problem (g11 crosses a heading, and so the blank lines around it); g01 is clean."""


FUZZY = MatchPolicy("fuzzy", 0.9)


def planted_check(policy: MatchPolicy = FUZZY) -> GoldCheck:
    dataset = load_dataset(GOLD / "corpus", GOLD / "planted.jsonl", gold_match=policy, lenient=True, trim=False)
    return check_gold(dataset.corpus, dataset.questions)


def test_every_planted_problem_is_found_and_nothing_else() -> None:
    check = planted_check()
    assert {(f.kind, f.question) for f in check.findings} == PLANTED
    assert len(check.findings) == len(PLANTED)
    # the fixture plants every kind found in the loaded questions; offset_unit is about a whole file
    # (tests/io/test_gold_units.py); out_of_range comes from the dataset formats' positions (a sentence index,
    # token offsets: tests/cli/test_gold_check_datasets.py), which a questions file does not hold
    assert {kind for kind, _ in PLANTED} == set(FINDING_KINDS) - {"offset_unit", "out_of_range"}


def test_findings_carry_the_offsets_and_how_the_gold_was_found() -> None:
    check = planted_check()
    text = (GOLD / "corpus" / "guide.md").read_text(encoding="utf-8")
    by = {(f.kind, f.question): f for f in check.findings}
    ambiguous = by["ambiguous", "g03"]
    assert ambiguous.places == tuple(("guide.md", i, i + 7) for i in (89, 132))
    assert [i for i in range(len(text)) if text.startswith("Refunds", i)] == [89, 132]
    assert "fuzzy 0.95" in by["approximate", "g06"].detail
    assert "normalized" in by["approximate", "g05"].detail
    assert by["crosses_section", "g11"].detail.endswith(f"at {text.index('# Shipping')}")
    assert by["inside_grapheme", "g08"].span == Span("guide.md", 299, 307)
    assert text[307] == "\u0301"


def test_under_the_default_match_the_fuzzy_quote_is_not_found() -> None:
    check = planted_check(MatchPolicy())
    kinds = {(f.kind, f.question) for f in check.findings}
    assert ("not_found", "g06") in kinds and ("approximate", "g06") not in kinds


def test_the_sample_gold_is_clean() -> None:
    dataset = load_dataset(lenient=True, trim=False)
    check = check_gold(dataset.corpus, dataset.questions)
    assert check.findings == ()
    assert check.spans == 55 and check.questions == 40


def test_every_copy_listed_as_an_alternative_is_not_a_repeat() -> None:
    corpus = Corpus((Document("a", "tea and tea"),))
    both = Question("q", "tea?", (EvidenceItem((Span("a", 0, 3), Span("a", 8, 11))),))
    one = Question("r", "tea again?", (EvidenceItem((Span("a", 0, 3),)),))
    check = check_gold(corpus, QuestionSet((both, one)))
    assert [(f.kind, f.question) for f in check.findings] == [("repeated_evidence", "r")]


def test_allowed_kinds_are_not_problems() -> None:
    check = planted_check()
    assert len(check.problems()) == len(PLANTED)
    assert len(check.problems(["repeated_evidence", "approximate"])) == len(PLANTED) - 3
    assert {f.kind for f in check.for_question("g11")} == {"crosses_paragraph", "crosses_section"}


@pytest.mark.parametrize(
    ("text", "position", "inside"),
    [
        ("e\u0301x", 1, True),  # before a combining acute
        ("e\u0301x", 2, False),
        ("a\r\nb", 2, True),
        ("a\r\nb", 1, False),
        ("\U0001f468\u200d\U0001f469", 1, True),  # around a zero-width joiner
        ("\U0001f468\u200d\U0001f469", 2, True),
        ("\u2764\ufe0f", 1, True),  # before a variation selector
        ("\U0001f1ef\U0001f1f5\U0001f1eb\U0001f1f7", 1, True),  # inside the first flag
        ("\U0001f1ef\U0001f1f5\U0001f1eb\U0001f1f7", 2, False),  # between two flags
        ("\u1100\u1161", 1, True),  # Hangul jamo L + V
        ("ab", 1, False),
        ("日本", 1, False),
    ],
)
def test_grapheme_boundaries(text: str, position: int, inside: bool) -> None:
    assert inside_grapheme(text, position) is inside


def test_paragraph_breaks_use_recorded_paragraphs_first() -> None:
    document = Document("d", "onetwothree", paragraphs=((0, 3), (3, 6), (6, 11)))
    assert paragraph_breaks(document, Span("d", 1, 8)) == [3, 6]
    assert paragraph_breaks(document, Span("d", 3, 6)) == []
    blank = Document("d", "one\n\ntwo\n  \nthree")
    assert paragraph_breaks(blank, Span("d", 0, 17)) == [3, 8]
    assert section_headings("a\n# H\nb\n#not a heading\n", Span("d", 0, 20)) == [2]


def test_question_normalisation_for_duplicates() -> None:
    assert normalized_query("How long, REALLY?") == normalized_query("how long really")
    assert normalized_query("ＡＢＣ？") == "abc"


def test_similar_pairs_equal_brute_force() -> None:
    rng = random.Random(7)
    words = ["ship", "refund", "days", "long", "how", "the", "card", "東京", "人口"]
    texts = ["".join(rng.choice(words) for _ in range(rng.randint(1, 5))) for _ in range(120)]
    texts += ["ab", "abc", "abcd", "bcd", "x", "xy", "xyz"]  # sets of one and two trigrams: a single shared token
    sets = [(f"q{i}", trigrams(t)) for i, t in enumerate(texts)]
    for threshold in (0.3, 0.5, 0.8, 1.0):
        brute = {
            (a, b)
            for (i, (a, x)), (j, (b, y)) in itertools.combinations(enumerate(sets), 2)
            if x and y and len(x & y) / len(x | y) >= threshold
        }
        assert {(a, b) for a, b, _ in similar_pairs(sets, threshold)} == brute
