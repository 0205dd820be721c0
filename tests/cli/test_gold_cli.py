"""``chunkscope gold check`` and the gold options of the other commands, end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from chunkscope.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
GOLD = FIXTURES / "gold"
CHROMA = FIXTURES / "chroma" / "questions_df.csv"
TYDI = FIXTURES / "tydi" / "tydi-sample.jsonl"
TESTSET = FIXTURES / "testset"
GOLD_INPUT = ["--corpus", str(GOLD / "corpus")]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("chunkscope: error: ")
    return err


# ------------------------------------------------------------------ exit codes and reports


def test_clean_gold_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "gold", "check")
    assert code == 0
    assert "the gold is clean" in out


def test_problems_exit_1_and_the_json_report_lists_every_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "gold.json"
    markdown = tmp_path / "gold.md"
    args = ["gold", "check", *GOLD_INPUT, "--questions", str(GOLD / "planted.jsonl"), "--gold-match", "fuzzy"]
    code, out, _ = run(capsys, *args, "--json", str(report), "--markdown", str(markdown))
    assert code == 1
    assert "ambiguous" in out
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["gold_match"] == "fuzzy:0.9"
    assert data["problems"] == 14 == len(data["findings"])
    assert data["counts"]["crosses_paragraph"] == 2
    ambiguous = next(f for f in data["findings"] if f["kind"] == "ambiguous")
    assert ambiguous["places"] == [["guide.md", 89, 96], ["guide.md", 132, 139]]
    text = markdown.read_text(encoding="utf-8")
    assert "## ambiguous" in text and "guide.md [89, 96), guide.md [132, 139)" in text


def test_allowed_kinds_let_the_check_pass(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["gold", "check", *GOLD_INPUT, "--questions", str(GOLD / "hand_fixed.jsonl")]
    assert run(capsys, *args)[0] == 1  # two pieces of evidence whose text repeats
    assert run(capsys, *args, "--allow", "repeated_evidence")[0] == 0


def test_the_report_goes_to_stdout_and_the_table_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "gold", "check", "--json", "-")
    assert code == 0
    assert json.loads(out)["findings"] == []
    assert "clean" in err


# ------------------------------------------------------------------ --write


def test_write_repairs_a_copy_and_never_touches_the_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "planted.jsonl"
    shutil.copy(GOLD / "planted.jsonl", source)
    before = source.read_bytes()
    fixed = tmp_path / "fixed.jsonl"
    code, _, err = run(
        capsys, "gold", "check", *GOLD_INPUT, "--questions", str(source), "--gold-match", "fuzzy", "--write", str(fixed)
    )
    assert code == 1
    assert source.read_bytes() == before
    assert "3 references left as they were" in err
    original = [json.loads(line) for line in before.decode("utf-8").splitlines()]
    repaired = [json.loads(line) for line in fixed.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in repaired] == [r["id"] for r in original]
    by_id = {r["id"]: r for r in repaired}
    for unresolved in ("g02", "g03", "g04"):  # not found, ambiguous, mismatch: as they were
        assert by_id[unresolved] == next(r for r in original if r["id"] == unresolved)
    text = (GOLD / "corpus" / "guide.md").read_text(encoding="utf-8")
    assert by_id["g06"]["evidence"] == [
        {"doc": "guide.md", "quote": "Opened items are inspected first.", "start": 54, "end": 87}
    ]
    assert text.index("Opened items are inspected first.") == 54
    # edge whitespace trimmed
    assert by_id["g09"]["evidence"][0]["quote"] == "Express shipping takes 2 days."
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fixed.jsonl", "planted.jsonl"]


def test_write_output_evaluates_like_hand_fixed_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixed = tmp_path / "fixed.jsonl"
    args = ["gold", "check", *GOLD_INPUT, "--questions", str(GOLD / "fixable.jsonl"), "--gold-match", "fuzzy"]
    run(capsys, *args, "--write", str(fixed))
    text = (GOLD / "corpus" / "guide.md").read_text(encoding="utf-8")
    # the hand-fixed file gives offsets found by reading the document
    hand = [json.loads(line) for line in (GOLD / "hand_fixed.jsonl").read_text(encoding="utf-8").splitlines()]
    assert hand[0]["evidence"][0]["start"] == text.index("leaves a \u201cdelivery notice\u201d")
    assert hand[3]["evidence"][0]["start"] == text.index("shipping takes", text.index("Express"))

    def evaluate(questions: Path, name: str) -> list[dict[str, object]]:
        out = tmp_path / f"{name}.json"
        chunkers = ["--chunker", "fixed:size=60", "--chunker", "paragraph", "--chunker", "recursive:size=80"]
        code = main(["eval", *GOLD_INPUT, "--questions", str(questions), *chunkers, "--json", str(out)])
        capsys.readouterr()
        assert code == 0
        return json.loads(out.read_text(encoding="utf-8"))["configs"]  # type: ignore[no-any-return]

    assert evaluate(fixed, "fixed") == evaluate(GOLD / "hand_fixed.jsonl", "hand")
    assert run(capsys, "gold", "check", *GOLD_INPUT, "--questions", str(fixed), "--gold-match", "exact",
               "--allow", "repeated_evidence")[0] == 0  # fmt: skip


def test_write_refuses_to_replace_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "q.jsonl"
    shutil.copy(GOLD / "fixable.jsonl", source)
    before = source.read_bytes()
    error = one_line_error(capsys, "gold", "check", *GOLD_INPUT, "--questions", str(source), "--write", str(source))
    assert "refusing to write --write" in error
    assert source.read_bytes() == before


def test_write_converts_a_chroma_set_to_questions_jsonl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fixed = tmp_path / "chroma.jsonl"
    code, _, err = run(capsys, "gold", "check", "--chroma", str(CHROMA), "--write", str(fixed))
    assert code == 1  # the mismatched reference, the edge spaces, the repeated sentence
    assert "alpha-2 (mismatch)" in err
    records = [json.loads(line) for line in fixed.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records] == ["alpha-0", "beta-1", "beta-3"]
    assert records[0]["evidence"][1]["quote"] == "Crabs hide under rocks at low tide."  # trailing space trimmed
    corpora = str(CHROMA.parent / "corpora")
    code, _, _ = run(capsys, "gold", "check", "--corpus", corpora, "--questions", str(fixed), "--gold-match", "exact")
    assert code == 1  # only the repeated sentence is left
    report = tmp_path / "r.json"
    run(capsys, "gold", "check", "--corpus", corpora, "--questions", str(fixed), "--json", str(report))
    assert json.loads(report.read_text(encoding="utf-8"))["counts"]["repeated_evidence"] == 1


def test_write_needs_a_source_with_quotes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    error = one_line_error(capsys, "gold", "check", "--tydi", str(TYDI), "--write", str(tmp_path / "f.jsonl"))
    assert "--write needs --questions, --chroma or --testset" in error


# ------------------------------------------------------------------ the other commands


def test_chroma_findings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.json"
    run(capsys, "gold", "check", "--chroma", str(CHROMA), "--json", str(report))
    found = {(f["kind"], f["question"]) for f in json.loads(report.read_text(encoding="utf-8"))["findings"]}
    assert found == {
        ("mismatch", "alpha-2"),
        ("edge_whitespace", "alpha-0"),
        ("edge_whitespace", "beta-3"),
        ("repeated_evidence", "alpha-0"),
    }


def test_a_reference_ending_in_a_space_is_not_cut_by_a_trimming_chunker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    code, _, err = run(capsys, "eval", "--chroma", str(CHROMA), "--chunker", "recursive:size=70", "--json", str(out))
    assert code == 0
    assert "alpha-2 left out" in err  # the excluded question is listed
    questions = {q["id"]: q for q in json.loads(out.read_text(encoding="utf-8"))["configs"][0]["questions"]}
    # beta-3's reference is "...waggle dance. " and the chunk ends before the space
    assert questions["beta-3"]["evidence_exists"] is True
    assert questions["beta-3"]["cuts"] == []
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["excluded_reasons"] == {"reference not at its offsets": 1}
    assert "without its leading and trailing whitespace" in report["policy"]["span_edges"]


def test_approximate_gold_is_marked_in_the_per_question_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.json"
    args = ["eval", *GOLD_INPUT, "--questions", str(GOLD / "fixable.jsonl"), "--gold-match", "fuzzy:0.9"]
    assert run(capsys, *args, "--chunker", "paragraph", "--json", str(out))[0] == 0
    questions = {q["id"]: q for q in json.loads(out.read_text(encoding="utf-8"))["configs"][0]["questions"]}
    assert questions["f1"]["gold_match"] == [["normalized"]]
    assert questions["f2"]["gold_match"] == [["fuzzy 0.95"]]
    assert "gold_match" not in questions["f3"]  # exact: the field is left out


def test_quotes_that_need_a_lower_rung_fail_under_a_stricter_gold_match(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["eval", *GOLD_INPUT, "--questions", str(GOLD / "fixable.jsonl")]
    error = one_line_error(capsys, *args)  # the default stops at normalized: f2's typos are not found
    assert ":2: field 'evidence[0].quote': quote 'Opened itmes are inspectd first.' found 0 times" in error
    assert "try --gold-match fuzzy" in error
    error = one_line_error(capsys, *args, "--gold-match", "exact")  # f1's straight quotes are not found
    assert ":1: field 'evidence[0].quote'" in error
    # normalisation finds f1's quote: the hint is the default, not the approximate fuzzy match
    hint = "(--gold-match exact; try --gold-match normalized, the default, which finds it)"
    assert error.rstrip().endswith(f"{hint} (--skip-bad-gold leaves such questions out and counts them)")
    assert "fuzzy" not in error


def test_a_quote_normalisation_misses_too_still_suggests_fuzzy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (GOLD / "fixable.jsonl").read_text(encoding="utf-8").splitlines()
    only_typos = tmp_path / "f2.jsonl"
    only_typos.write_text(lines[1] + "\n", encoding="utf-8")  # f2: typos, which only fuzzy matching finds
    error = one_line_error(capsys, "eval", *GOLD_INPUT, "--questions", str(only_typos), "--gold-match", "exact")
    hint = "(--gold-match exact; try --gold-match fuzzy)"
    assert error.rstrip().endswith(f"{hint} (--skip-bad-gold leaves such questions out and counts them)")


@pytest.mark.parametrize("command", ["eval", "compare", "sweep", "inspect"])
def test_every_command_takes_the_gold_options(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    out = capsys.readouterr().out
    for option in ("--gold-match", "--chroma", "--tydi", "--tydi-language", "--testset"):
        assert option in out


def test_a_bad_gold_match_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["eval", "--gold-match", "fuzzy:2"])
    assert caught.value.code == 2
    assert "above 0 and at most 1" in capsys.readouterr().err


def test_tydi_and_testset_evaluate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "eval", "--tydi", str(TYDI), "--tydi-language", "japanese", "--chunker", "paragraph")
    assert code == 0 and "3 questions" in out
    code, out, err = run(
        capsys,
        "eval",
        "--corpus",
        str(TESTSET / "corpus"),
        "--testset",
        str(TESTSET / "testset.csv"),
        "--chunker",
        "paragraph",
    )
    assert code == 0 and "4 questions" in out
    assert "testset.csv:5 field 'reference_contexts[0]'" in err and "row-4 left out" in err


# ------------------------------------------------------------------ bad input: one line, exit 2


def test_bad_gold_sources_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(CHROMA.parent / "corpora", tmp_path / "corpora")
    missing = tmp_path / "missing.csv"
    missing.write_text("question,references\nq,[]\n", encoding="utf-8")
    assert f"{missing}:1: field 'corpus_id': missing column" in one_line_error(
        capsys, "gold", "check", "--chroma", str(missing)
    )
    not_json = tmp_path / "not_json.csv"
    not_json.write_text("question,references,corpus_id\nq,[{content: x}],alpha\n", encoding="utf-8")
    assert f"{not_json}:2: field 'references': invalid JSON" in one_line_error(
        capsys, "eval", "--chroma", str(not_json)
    )

    records = [json.loads(line) for line in TYDI.read_text(encoding="utf-8").splitlines()]
    records[0]["annotations"][0]["minimal_answer"]["plaintext_start_byte"] += 1
    tydi = tmp_path / "tydi.jsonl"
    tydi.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    error = one_line_error(capsys, "eval", "--tydi", str(tydi))
    assert f"{tydi}:1: field 'annotations[0].minimal_answer.plaintext_start_byte'" in error
    assert "inside a multi-byte UTF-8 character" in error

    testset = tmp_path / "t.jsonl"
    testset.write_text('{"user_input": "q", "reference_contexts": ["x"]}\n{"user_input": "r"}\n', encoding="utf-8")
    error = one_line_error(capsys, "gold", "check", "--corpus", str(TESTSET / "corpus"), "--testset", str(testset))
    assert f"{testset}:2: field 'reference_contexts': missing" in error


@pytest.mark.parametrize("option", ["--questions-offset-unit", "--offset-unit"])
def test_gold_check_reads_and_writes_offsets_in_the_file_unit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str
) -> None:
    # "😀😀 Some text here. Another sentence here.": each 😀 is two UTF-16 units, so "Another sentence" is code
    # points 19..35 and UTF-16 units 21..37, and " Some text" (quoted with its space) 2..12 -> trimmed 3..12 -> 5..14.
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "e.txt").write_text("😀😀 Some text here. Another sentence here.\n", encoding="utf-8")
    record = {
        "id": "q1",
        "query": "another sentence",
        "evidence": [{"doc": "e.txt", "start": 21, "end": 37}, {"doc": "e.txt", "quote": " Some text"}],
    }
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps(record) + "\n", encoding="utf-8")
    fixed = tmp_path / "fixed.jsonl"
    argv = ["gold", "check", "--corpus", str(corpus), "--questions", str(questions), option, "utf16"]
    assert main([*argv, "--write", str(fixed)]) == 1  # the edge whitespace of " Some text" is a finding
    written = json.loads(fixed.read_text(encoding="utf-8"))
    assert written["evidence"] == [
        {"doc": "e.txt", "start": 21, "end": 37},
        {"doc": "e.txt", "quote": "Some text", "start": 5, "end": 14},
    ]
    argv[argv.index(str(questions))] = str(fixed)
    assert main(argv) == 0  # read back in the same unit: clean
    assert "the gold is clean" in capsys.readouterr().out


def test_gold_check_says_a_chroma_question_it_cannot_resolve_is_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "corpora").mkdir()
    (tmp_path / "corpora" / "c1.md").write_text("The cat sat on the mat. Dogs bark.\n", encoding="utf-8")
    good = '"[{""content"": ""The cat sat"", ""start_index"": 0, ""end_index"": 11}]"'
    bad = '"[{""content"": ""Dogs bark"", ""start_index"": 0, ""end_index"": 9}]"'  # not at 0..9
    csv_text = f'question,references,corpus_id,id\n"Where cat?",{good},c1,a1\n"Dogs?",{bad},c1,a2\n'
    (tmp_path / "q.csv").write_text(csv_text, encoding="utf-8")
    fixed = tmp_path / "fixed.jsonl"
    main(["gold", "check", "--chroma", str(tmp_path / "q.csv"), "--write", str(fixed)])
    err = capsys.readouterr().err
    assert "1 references not resolved: their questions are not in it: a2 (mismatch)" in err
    assert [json.loads(line)["id"] for line in fixed.read_text(encoding="utf-8").splitlines()] == ["a1"]
