"""Offsets-only gold in the wrong unit or counted on LF-normalised text: said in one line, with what to pass.

Fixtures (tests/fixtures/units): each corpus document with the gold files pointing into it, the offsets
computed by hand in the unit the name says (UTF-16 code units as JavaScript counts them; code points of
the text with CRLF read as LF, as Python's text mode reads it). Before this change each of them loaded
without a word, every span shifted.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.errors import InputError
from chunkscope.io.dataset import Dataset, load_dataset
from chunkscope.io.gold_units import Reading, clean_edge
from chunkscope.io.quotes import MatchPolicy

UNITS = Path(__file__).resolve().parents[1] / "fixtures" / "units"
CORPUS = UNITS / "corpus"


def gold_texts(path: Path, **options: object) -> list[str]:
    dataset = load_dataset(CORPUS, path, **options)  # type: ignore[arg-type]
    return [
        dataset.corpus.by_id[span.doc].text[span.start : span.end]
        for question in dataset.questions.questions
        for span in question.gold_spans
    ]


def test_utf16_offsets_over_emoji_are_named_with_the_option_to_pass() -> None:
    dataset = load_dataset(CORPUS, UNITS / "launch-utf16.jsonl")
    assert len(dataset.notices) == 1
    notice = dataset.notices[0]
    assert notice.startswith(
        f"warning: {UNITS / 'launch-utf16.jsonl'}: 3 offsets-only gold spans read better as UTF-16"
    )
    assert notice.endswith("pass --questions-offset-unit utf16")
    # what the option then reads: the intended texts
    assert gold_texts(UNITS / "launch-utf16.jsonl", questions_offset_unit="utf16") == [
        "opens at nine",
        "Coffee is free",
        "behind the building",
    ]
    assert load_dataset(CORPUS, UNITS / "launch-utf16.jsonl", questions_offset_unit="utf16").notices == ()


def test_a_japanese_span_shifted_by_an_astral_character() -> None:
    dataset = load_dataset(CORPUS, UNITS / "yoshinoya-utf16.jsonl")
    assert len(dataset.suspicions) == 1
    suspicion = dataset.suspicions[0]
    assert dataset.notices == ("warning: " + suspicion.message(),)
    assert suspicion.better == Reading("utf16") and suspicion.affected == 3
    # read as code points: '899年', '京都中央区に', '丼で'; as UTF-16: the answers, every edge at a script change
    assert (suspicion.given_clean, suspicion.better_clean) == (1, 6)


def test_japanese_spans_counted_on_lf_text_over_a_crlf_document() -> None:
    dataset = load_dataset(CORPUS, UNITS / "tokyo-lf.jsonl")
    assert len(dataset.notices) == 1
    assert (
        "line endings differ: 3 offsets-only gold spans read better as code points on the text with CRLF "
        in (dataset.notices[0])
    )
    assert dataset.notices[0].endswith("pass --questions-newlines lf")
    assert gold_texts(UNITS / "tokyo-lf.jsonl", questions_newlines="lf") == ["約1400万人", "富士山", "東京タワー"]


def test_lf_offsets_over_a_crlf_english_document() -> None:
    dataset = load_dataset(CORPUS, UNITS / "refunds-lf.jsonl")
    assert len(dataset.notices) == 1 and "line endings differ" in dataset.notices[0]
    assert gold_texts(UNITS / "refunds-lf.jsonl", questions_newlines="lf") == [
        "30 days",
        "final sale",
        "90 day warranty",
    ]


@pytest.mark.parametrize("name", ["launch-codepoint.jsonl", "tokyo-codepoint.jsonl", "refunds-codepoint.jsonl"])
def test_right_offsets_raise_no_warning(name: str) -> None:
    assert load_dataset(CORPUS, UNITS / name).notices == ()


def test_the_eval_command_prints_the_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval", "--corpus", str(CORPUS), "--questions", str(UNITS / "refunds-lf.jsonl")]
    assert main([*args, "--json", str(tmp_path / "r.json")]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "line endings differ" in line]
    assert len(warnings) == 1 and warnings[0].startswith("chunkscope: warning: ")


def test_gold_check_flags_it_as_an_issue_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "gold.json"
    code = main(
        ["gold", "check", "--corpus", str(CORPUS), "--questions", str(UNITS / "tokyo-lf.jsonl"), "--json", str(report)]
    )
    capsys.readouterr()
    assert code == 1
    findings = json.loads(report.read_text(encoding="utf-8"))["findings"]
    assert [f["kind"] for f in findings if f["kind"] == "offset_unit"] == ["offset_unit"]
    clean = tmp_path / "clean.json"
    args = ["gold", "check", "--corpus", str(CORPUS), "--questions", str(UNITS / "tokyo-lf.jsonl")]
    main([*args, "--questions-newlines", "lf", "--json", str(clean)])
    capsys.readouterr()
    assert json.loads(clean.read_text(encoding="utf-8"))["counts"]["offset_unit"] == 0


def test_a_refusal_in_the_given_reading_names_the_better_one(tmp_path: Path) -> None:
    text = "😀" * 10 + " tail"  # UTF-16 offsets of 'tail' (21..25) lie past the 15 code points
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "e.md").write_text(text, encoding="utf-8")
    questions = tmp_path / "q.jsonl"
    rows = [{"id": f"q{i}", "query": "tail?", "evidence": [{"doc": "e.md", "start": 21, "end": 25}]} for i in range(2)]
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(InputError, match=r"out of range.*pass --questions-offset-unit utf16"):
        load_dataset(corpus, questions)


@pytest.mark.parametrize(
    ("text", "position", "clean"),
    [
        ("the cat", 4, True),
        ("the cat", 5, False),
        ("人口は約1400万人で", 3, True),  # は|約: hiragana to kanji
        ("人口は約1400万人で", 9, False),  # 万|人: inside a kanji run
        ("a\r\nb", 2, False),  # between CR and LF
        ("東京タワーです", 5, True),  # ー|で: katakana to hiragana
    ],
)
def test_clean_edges(text: str, position: int, clean: bool) -> None:
    assert clean_edge(text, position) is clean


def crlf_inputs(tmp_path: Path, evidence: dict[str, object]) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "r.md").write_bytes(b"Returns\r\nItems may be returned\r\nwithin 30 days.\r\n")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "q", "query": "How long?", "evidence": [evidence]}) + "\n", encoding="utf-8")
    return corpus, questions


def test_a_quote_with_lf_over_a_crlf_document_says_line_endings_differ(tmp_path: Path) -> None:
    corpus, questions = crlf_inputs(tmp_path, {"doc": "r.md", "quote": "returned\nwithin 30 days"})
    with pytest.raises(InputError, match=r"found 0 times.*line endings differ: the quote matches the document read"):
        load_dataset(corpus, questions, gold_match=MatchPolicy("exact"))
    # the default ladder finds it by its normalised form, mapped back to the CRLF text
    dataset = load_dataset(corpus, questions)
    span = dataset.questions.questions[0].gold_spans[0]
    assert dataset.corpus.by_id["r.md"].text[span.start : span.end] == "returned\r\nwithin 30 days"


def test_quote_offsets_counted_on_lf_text_say_line_endings_differ(tmp_path: Path) -> None:
    # "30 days" is at 39..46 in the CRLF text (9 + 23 + 7), at 37..44 once each CRLF is one LF
    corpus, questions = crlf_inputs(tmp_path, {"doc": "r.md", "quote": "30 days", "start": 37, "end": 44})
    with pytest.raises(InputError, match=r"does not match the quote.*pass --questions-newlines lf"):
        load_dataset(corpus, questions)
    dataset = load_dataset(corpus, questions, questions_newlines="lf")
    assert dataset.questions.questions[0].gold_spans[0].start == 39


def test_gold_check_write_keeps_offsets_counted_on_the_lf_view(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fixed = tmp_path / "fixed.jsonl"
    source = UNITS / "tokyo-lf.jsonl"
    args = ["gold", "check", "--corpus", str(CORPUS), "--questions", str(source), "--questions-newlines", "lf"]
    main([*args, "--write", str(fixed)])
    capsys.readouterr()
    spans = [
        (item["start"], item["end"])
        for path in (source, fixed)
        for line in path.read_text(encoding="utf-8").splitlines()
        for item in json.loads(line)["evidence"]
    ]
    assert spans[:3] == spans[3:] == [(15, 22), (35, 38), (58, 63)]  # the view's offsets, as the input gave them
    assert gold_texts(fixed, questions_newlines="lf") == ["約1400万人", "富士山", "東京タワー"]


def write_jsquad_variant(tmp_path: Path, jsquad: Dataset, after: str, unit: str) -> tuple[Path, Path, Path]:
    """JSQuAD's documents with ``after`` added after every 。, and its gold given by offsets alone three ways:
    right (code points of the new text), counted in UTF-16, counted with CRLF read as LF."""
    texts = {doc.id: doc.text.replace("。", "。" + after) for doc in jsquad.corpus.documents}
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in texts.items()), encoding="utf-8")
    files = []
    for name in ("right", "other"):
        rows = []
        for question in jsquad.questions.questions:
            span = question.gold_spans[0]
            old = jsquad.corpus.by_id[span.doc].text
            start, end = (i + len(after) * old[:i].count("。") for i in (span.start, span.end))
            text = texts[span.doc]
            if name == "other" and unit == "utf16":
                start, end = (len(text[:i].encode("utf-16-le")) // 2 for i in (start, end))
            elif name == "other":
                start, end = (i - text[:i].count("\r\n") for i in (start, end))
            rows.append(
                {
                    "id": question.id,
                    "query": question.query,
                    "evidence": [{"doc": span.doc, "start": start, "end": end}],
                }
            )
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
        files.append(path)
    return corpus, files[0], files[1]


@pytest.mark.parametrize(("after", "unit"), [("\r\n", "lf"), ("😀", "utf16")])
def test_jsquad_right_offsets_pass_and_shifted_ones_are_named(
    tmp_path: Path, jsquad: Dataset, after: str, unit: str
) -> None:
    corpus, right, other = write_jsquad_variant(tmp_path, jsquad, after, unit)
    assert load_dataset(corpus, right).notices == ()  # no false alarm over 3,900 Japanese spans
    option = {"questions_newlines": "lf"} if unit == "lf" else {"questions_offset_unit": "utf16"}
    assert load_dataset(corpus, other, **option).notices == ()  # type: ignore[arg-type]
    if unit == "lf":
        (notice,) = load_dataset(corpus, other).notices
        assert "line endings differ: 3900 offsets-only gold spans" in notice and notice.endswith(
            "--questions-newlines lf"
        )
    else:  # UTF-16 offsets run past the end of a document read as code points: the refusal names the reading
        with pytest.raises(InputError, match=r"3900 offsets-only gold spans read better as UTF-16 .*utf16$"):
            load_dataset(corpus, other)


def test_a_test_set_context_with_lf_over_a_crlf_document(tmp_path: Path) -> None:
    corpus, _ = crlf_inputs(tmp_path, {"doc": "r.md", "quote": "x"})
    testset = tmp_path / "set.jsonl"
    row = {"question": "How long?", "reference_contexts": ["Items may be returned\nwithin 30 days."]}
    testset.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (issue,) = load_dataset(corpus, testset=testset, gold_match=MatchPolicy("exact")).questions.issues
    assert "not found in the corpus" in issue.message and "line endings differ" in issue.message
    # the default ladder reads the line break alike and finds it
    assert load_dataset(corpus, testset=testset).questions.excluded == 0
