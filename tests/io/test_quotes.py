"""The quote ladder: exact, normalised (mapped back to original offsets), fuzzy; and --gold-match parsing."""

from __future__ import annotations

import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chunkscope.errors import MissingExtraError
from chunkscope.io.quotes import (
    EXACT_POLICY,
    MatchPolicy,
    QuoteFinder,
    find_all,
    inside_word,
    normalize,
    normalize_with_map,
    parse_match_policy,
    snap_to_words,
    strip_hop_marker,
)
from chunkscope.model import SpanMatch

FUZZY = MatchPolicy("fuzzy", 0.9)


def test_exact_occurrences_come_first_and_all_of_them() -> None:
    hits = QuoteFinder().find("d", "a cat, a cat", "cat")
    assert hits.match == SpanMatch("exact")
    assert hits.places == ((2, 5), (9, 12))


def test_normalised_match_maps_back_to_the_original_characters() -> None:
    text = "He said \u201chello\r\n   world\u201d \u2014 then\u00a0left."
    hits = QuoteFinder().find("d", text, '"hello world" - then left')
    assert hits.match == SpanMatch("normalized")
    (start, end), *_ = hits.places
    # by hand: "He said " is 8 characters; then 1 + 5 + 2 + 3 + 5 + 1 + 1 + 1 + 1 + 4 + 1 + 4 = 29 more
    assert (start, end) == (8, 37)
    assert text[start:end] == "\u201chello\r\n   world\u201d \u2014 then\u00a0left"


def test_normalisation_folds_width_ligatures_and_invisible_characters() -> None:
    assert normalize("ＡＢＣ\u00ad１２３") == "ABC123"
    assert normalize("e\ufb01ne") == "efine"
    assert normalize("zero\u200bwidth") == "zerowidth"
    assert normalize("  a \n\t b  ") == "a b"
    assert normalize("ｶﾀｶﾅ") == "カタカナ"


def test_a_combining_sequence_maps_to_whole_original_characters() -> None:
    text = "Cafe\u0301 au lait"
    normalized = normalize_with_map(text)
    assert normalized.text.startswith("Café")
    # the composed é (normalised index 3) comes from 'e' + U+0301, original [3, 5)
    assert (normalized.starts[3], normalized.ends[3]) == (3, 5)
    assert QuoteFinder().find("d", text, "Café").places == ((0, 5),)


def test_exact_policy_stops_at_the_first_rung() -> None:
    assert QuoteFinder(EXACT_POLICY).find("d", "a \u201cb\u201d", '"b"').match is None
    assert QuoteFinder().find("d", "a \u201cb\u201d", '"b"').match == SpanMatch("normalized")


def test_fuzzy_alignment_finds_the_span_a_quote_with_typos_covers() -> None:
    text = "Intro text here. Opened items are inspected first. Then more."
    hits = QuoteFinder(FUZZY).find("d", text, "Opened itmes are inspectd first.")
    assert hits.match is not None and hits.match.kind == "fuzzy"
    assert hits.places == ((17, 50),)
    assert text[17:50] == "Opened items are inspected first."
    # 3 Indel edits (the swapped "me" costs 2, the missing "e" 1) over 32 + 33 characters
    assert hits.match.score == pytest.approx(1 - 3 / 65)
    assert hits.match.label == "fuzzy 0.95"


def test_fuzzy_below_the_threshold_is_not_found() -> None:
    text = "Refunds take 3 days. Shipping is free."
    assert QuoteFinder(FUZZY).find("d", text, "Refunds are instant.").match is None


def test_fuzzy_edges_snap_to_the_word_they_cut() -> None:
    text = "xx The rain in Spain stays mainly in the plain yy"
    hits = QuoteFinder(MatchPolicy("fuzzy", 0.8)).find("d", text, "the rain in Spain stays mainly in the plain")
    assert hits.places and text[slice(*hits.places[0])] == "The rain in Spain stays mainly in the plain"


def test_snap_moves_at_most_a_few_characters() -> None:
    text = "abcdefghij klm"
    assert snap_to_words(text, 8, 14) == (8, 14)  # 8 characters into the word: too far to snap
    assert snap_to_words(text, 1, 12) == (0, 14)


def test_agreement_of_a_quote_with_its_offsets() -> None:
    text = "a \u201cquoted\u201d b"
    finder = QuoteFinder()
    assert finder.agrees(text, "\u201cquoted\u201d", 2, 10) == SpanMatch("exact")
    assert finder.agrees(text, '"quoted"', 2, 10) == SpanMatch("normalized")
    assert finder.agrees(text, '"quoted"', 0, 8) is None
    assert QuoteFinder(EXACT_POLICY).agrees(text, '"quoted"', 2, 10) is None


def test_fuzzy_needs_rapidfuzz_and_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rapidfuzz", None)
    monkeypatch.setitem(sys.modules, "rapidfuzz.distance", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'chunkscope\[fuzzy\]'"):
        QuoteFinder(FUZZY).find("d", "some text", "other words")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("exact", MatchPolicy("exact")),
        ("normalized", MatchPolicy("normalized")),
        ("fuzzy", MatchPolicy("fuzzy", 0.9)),
        ("fuzzy:0.75", MatchPolicy("fuzzy", 0.75)),
    ],
)
def test_gold_match_values(text: str, expected: MatchPolicy) -> None:
    assert parse_match_policy(text) == expected
    assert parse_match_policy(expected.label) == expected


@pytest.mark.parametrize("text", ["loose", "exact:0.5", "fuzzy:x", "fuzzy:0", "fuzzy:1.5"])
def test_bad_gold_match_values(text: str) -> None:
    with pytest.raises(ValueError, match="gold-match"):
        parse_match_policy(text)


def test_word_edges_ignore_scripts_without_spaces() -> None:
    assert inside_word("items", 1)
    assert not inside_word("a b", 1)
    assert not inside_word("東京都", 1)
    assert not inside_word("カタカナ", 2)


def test_hop_markers_are_not_part_of_a_context() -> None:
    assert strip_hop_marker("<1-hop>\n\nText here") == "Text here"
    assert strip_hop_marker("No <1-hop> marker at start") == "No <1-hop> marker at start"


_PIECES = st.sampled_from(
    ["a", "b", "cat", " ", "  ", "\n", "\r\n", "\t", "\u00a0", "\u201c", "\u201d", "\u2019", "'", '"', "\u2014", "-",
     "e\u0301", "\u00e9", "\uff21", "A", "\u00ad", ".", "日本"]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, min_size=1, max_size=30), st.data())
def test_a_normalised_match_holds_text_that_normalises_to_the_quote(pieces: list[str], data: st.DataObject) -> None:
    text = "".join(pieces)
    # a quote cut from the text at piece boundaries, then given other whitespace and quotes
    i = data.draw(st.integers(0, len(pieces) - 1))
    j = data.draw(st.integers(i + 1, len(pieces)))
    quote = "".join(pieces[i:j]).replace("\u201c", '"').replace("\n", " ")
    if not normalize(quote):
        return
    hits = QuoteFinder().find("d", text, quote)
    assert hits.match is not None
    for start, end in hits.places:
        assert normalize(text[start:end]) == normalize(quote)
    # every place is found: compare with a brute force over all original ranges
    brute = {
        (s, e)
        for s in range(len(text))
        for e in range(s + 1, len(text) + 1)
        if normalize(text[s:e]) == normalize(quote) and text[s:e] == text[s:e].strip()
    }
    assert set(hits.places) <= brute or hits.match.kind == "exact"


def test_find_all_counts_overlapping_occurrences() -> None:
    assert find_all("aaaa", "aa") == [0, 1, 2]


def _reference_normalisation(text: str) -> tuple[str, list[int], list[int]]:
    """Cluster by cluster, no fast path: what ``normalize_with_map`` must equal."""
    import unicodedata

    from chunkscope.io.quotes import _FOLD

    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    while position < len(text):
        end = position + 1
        while end < len(text) and unicodedata.combining(text[end]):
            end += 1
        for character in unicodedata.normalize("NFKC", text[position:end]).translate(_FOLD):
            if character.isspace() and out and out[-1] == " " and ends[-1] == position:
                ends[-1] = end
                continue
            out.append(" " if character.isspace() else character)
            starts.append(position)
            ends.append(end)
        position = end
    return "".join(out), starts, ends


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES | st.text(max_size=3), max_size=40))
@example(["0\u1b6b"])  # a combining mark inside a run NFKC leaves alone: it maps back to its whole cluster
def test_the_fast_path_equals_cluster_by_cluster_normalisation(pieces: list[str]) -> None:
    text = "".join(pieces)
    normalized = normalize_with_map(text)
    assert (normalized.text, list(normalized.starts), list(normalized.ends)) == _reference_normalisation(text)
