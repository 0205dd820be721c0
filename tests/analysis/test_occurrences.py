"""Corpus-wide occurrence counts of many texts in one scan, against ``str.count`` (the definition)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chunkscope.analysis import occurrences
from chunkscope.analysis.occurrences import count_occurrences


def brute_force(documents: list[str], texts: list[str]) -> dict[str, int]:
    return {text: sum(document.count(text) for document in documents) for text in texts if text}


def test_counts_hand_checked() -> None:
    documents = ["aaaa bb aaaa", "aa", "日本語の日本語", "x" * 40 + "needle in a haystack, long enough" + "x" * 3]
    texts = ["aa", "aaa", "bb", "日本語", "needle in a haystack, long enough", "absent text of some length", "x"]
    counts = count_occurrences(documents, texts)
    # non-overlapping as str.count: "aaaa" holds "aa" twice and "aaa" once
    assert counts == {
        "aa": 5,
        "aaa": 2,
        "bb": 1,
        "日本語": 2,
        "needle in a haystack, long enough": 1,
        "absent text of some length": 0,
        "x": 43,
    }


def test_an_occurrence_never_spans_two_documents() -> None:
    assert count_occurrences(["abc", "def"], ["cd", "abcdef"]) == {"cd": 0, "abcdef": 0}


@pytest.mark.parametrize("window", [1, 3, 7])
def test_windows_of_a_long_document_miss_nothing(monkeypatch: pytest.MonkeyPatch, window: int) -> None:
    monkeypatch.setattr(occurrences, "WINDOW", window)
    monkeypatch.setattr(occurrences, "_POWERS", {})
    documents = ["abababab cdcdcd the quick brown fox jumps over the lazy dog 🎉🎉 abab", "ab🎉"]
    texts = ["ab", "abab", "bab", "🎉", "ab🎉", "the quick brown fox jumps", "lazy dog 🎉🎉 abab", "dcd"]
    assert count_occurrences(documents, texts) == brute_force(documents, texts)


@settings(max_examples=200, deadline=None)
@given(
    documents=st.lists(st.text(alphabet="ab\r\n😀ü", max_size=60), min_size=1, max_size=4),
    texts=st.lists(st.text(alphabet="ab\r\n😀ü", min_size=1, max_size=20), min_size=1, max_size=8),
)
def test_agrees_with_str_count(documents: list[str], texts: list[str]) -> None:
    assert count_occurrences(documents, texts) == brute_force(documents, texts)


def test_progress_reaches_its_total() -> None:
    calls: list[tuple[int, int]] = []
    count_occurrences(["abc", "defgh"], ["ab", "a much longer text than the anchor"], lambda d, t: calls.append((d, t)))
    assert calls[-1][0] == calls[-1][1] == 16  # 8 characters, scanned once per anchor length (2 and 16)
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
