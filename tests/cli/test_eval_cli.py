"""``chunkscope eval``: tables, reports, the JSON report schema, and bad input (exit 2, one line)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from chunkscope.cli import main
from chunkscope.io.atomic import write_atomic
from chunkscope.io.dataset import sample_paths

# The JSON report schema: every key listed here must be present under exactly this name.
CONFIG_KEYS = {"chunker", "retriever", "top_k", "budget", "overflow", "summary", "questions"}
SUMMARY_KEYS = {
    "questions",
    "index_chunks",
    "indexed_chars",
    "evidence_exists",
    "lost",
    "doc_hits",
    "complete",
    "pieces",
    "evidence_recall",
    "precision",
    "iou",
    "precision_omega",
    "recall_at_5",
    "recall_at_20",
    "mrr_at_10",
    "ndcg_at_10",
    "rank_buckets",
    "sent_chars",
    "duplicate_chars",
}
OVERLAP_RATES = {"evidence_recall", "precision", "iou", "precision_omega"}
RATES = {"recall_at_5", "recall_at_20", "mrr_at_10", "ndcg_at_10", *OVERLAP_RATES}
BUCKET_KEYS = {"1", "2-5", "6-20", "miss"}
QUESTION_KEYS = {
    "id",
    "evidence_exists",
    "first_correct_rank",
    "bucket",
    "doc_hit",
    "complete",
    "covered",
    "pieces",
    "piece_ranks",
    "sent_chars",
    "duplicate_chars",
    *OVERLAP_RATES,
    "ranked",
    "delivered",
    "cuts",
}
RANKED_KEYS = {"rank", "doc", "start", "end", "score"}
DELIVERED_KEYS = {"doc", "start", "end"}
TOP_KEYS = {"configs", "excluded_questions"}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["eval", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def digest(path: Path) -> str:
    if path.is_dir():
        return hashlib.sha256(
            b"".join(
                p.relative_to(path).as_posix().encode() + p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()
            )
        ).hexdigest()
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------ the sample data


def test_eval_without_input_prints_a_table_of_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys)
    assert code == 0
    assert "10 documents, 40 questions" in out
    # One row per default configuration.
    for label in ("fixed:size=200/bm25", "fixed:size=200,overlap=40/bm25", "paragraph/bm25"):
        assert label in out
    assert "Traceback" not in err


def test_several_chunkers_give_one_row_each_in_order(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "--chunker", "fixed:size=300", "--chunker", "paragraph", "--retriever", "overlap", "--json", "-"
    )
    assert code == 0
    report = json.loads(out)
    assert [(c["chunker"], c["retriever"]) for c in report["configs"]] == [
        ("fixed:size=300,overlap=0", "overlap:tokenizer=default"),
        ("paragraph", "overlap:tokenizer=default"),
    ]


def test_table_rows_for_several_chunkers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--chunker", "fixed:size=300", "--chunker", "fixed:size=500,overlap=50")
    assert code == 0
    metrics_table = out.split("└")[0]  # later tables (diagnosis) repeat the labels
    rows = [line for line in metrics_table.splitlines() if "/bm25" in line]
    assert len(rows) == 2
    assert "fixed:size=300/bm25" in rows[0] and "fixed:size=500,overlap=50/bm25" in rows[1]


def test_json_matches_the_issue_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--json", "-")
    assert code == 0
    report = json.loads(out)  # stdout is pure JSON: the table went to stderr
    assert "10 documents, 40 questions" in err
    assert report.keys() >= TOP_KEYS
    assert report["excluded_questions"] == 0
    assert len(report["configs"]) == 3
    for config in report["configs"]:
        assert config.keys() >= CONFIG_KEYS
        assert isinstance(config["top_k"], int) and config["budget"] is None and config["overflow"] == "stop"
        summary = config["summary"]
        assert summary.keys() == SUMMARY_KEYS
        assert summary["rank_buckets"].keys() == BUCKET_KEYS
        for key, value in summary.items():
            if key in RATES:
                assert isinstance(value, float) and 0.0 <= value <= 1.0, key
            elif key == "rank_buckets":
                assert all(type(v) is int for v in value.values())
            else:
                assert type(value) is int, key
        assert len(config["questions"]) == summary["questions"] == 40
        for question in config["questions"]:
            check_question(question, config["top_k"])
        check_summary_against_questions(summary, config["questions"])


def check_question(question: dict[str, Any], top_k: int) -> None:
    assert question.keys() >= QUESTION_KEYS
    assert isinstance(question["id"], str)
    for key in ("evidence_exists", "doc_hit", "complete"):
        assert isinstance(question[key], bool), key
    rank = question["first_correct_rank"]
    assert rank is None or (type(rank) is int and rank >= 1)
    assert question["bucket"] in BUCKET_KEYS
    assert all(isinstance(c, bool) for c in question["covered"])
    assert question["complete"] == all(question["covered"])
    assert type(question["sent_chars"]) is int and type(question["duplicate_chars"]) is int
    assert len(question["ranked"]) <= max(20, top_k)
    for position, hit in enumerate(question["ranked"], start=1):
        assert hit.keys() >= RANKED_KEYS
        assert hit["rank"] == position
        assert isinstance(hit["score"], float) and hit["score"] > 0
    scores = [hit["score"] for hit in question["ranked"]]
    assert scores == sorted(scores, reverse=True)
    assert len(question["delivered"]) <= top_k
    for delivered in question["delivered"]:
        assert delivered.keys() >= DELIVERED_KEYS
    for cut in question["cuts"]:
        assert all(cut["start"] < b < cut["end"] for b in cut["boundaries"])
    assert question["evidence_exists"] or question["cuts"]
    assert isinstance(question["pieces"], bool) and len(question["piece_ranks"]) == len(question["covered"])
    # in pieces: not complete, and every item whole (covered) or spread over the delivered chunks it names
    items = zip(question["covered"], question["piece_ranks"], strict=True)
    assert question["pieces"] == (not question["complete"] and all(c or bool(r) for c, r in items))
    delivered_ranks = {d["rank"] for d in question["delivered"]}
    assert all(set(ranks) <= delivered_ranks and len(ranks) >= 2 for ranks in question["piece_ranks"] if ranks)
    assert all(isinstance(question[key], float) and 0.0 <= question[key] <= 1.0 for key in OVERLAP_RATES)


def check_summary_against_questions(summary: dict[str, Any], questions: list[dict[str, Any]]) -> None:
    n = len(questions)
    ranks = [q["first_correct_rank"] for q in questions]
    assert summary["evidence_exists"] == sum(q["evidence_exists"] for q in questions)
    assert summary["lost"] == n - summary["evidence_exists"]
    assert summary["doc_hits"] == sum(q["doc_hit"] for q in questions)
    assert summary["complete"] == sum(q["complete"] for q in questions)
    assert summary["sent_chars"] == sum(q["sent_chars"] for q in questions)
    assert summary["duplicate_chars"] == sum(q["duplicate_chars"] for q in questions)
    assert summary["recall_at_5"] == pytest.approx(sum(r is not None and r <= 5 for r in ranks) / n)
    assert summary["recall_at_20"] == pytest.approx(sum(r is not None and r <= 20 for r in ranks) / n)
    assert summary["mrr_at_10"] == pytest.approx(sum(1 / r for r in ranks if r is not None and r <= 10) / n)
    assert summary["pieces"] == sum(q["pieces"] for q in questions)
    for key in OVERLAP_RATES:
        assert summary[key] == pytest.approx(sum(q[key] for q in questions) / n), key
    buckets = summary["rank_buckets"]
    assert sum(buckets.values()) == n
    assert buckets["1"] == sum(r == 1 for r in ranks)
    assert buckets["miss"] == sum(r is None for r in ranks)


def question_of(report: dict[str, Any], qid: str, config: int = 0) -> dict[str, Any]:
    return next(q for q in report["configs"][config]["questions"] if q["id"] == qid)


def test_documented_sample_failures(capsys: pytest.CaptureFixture[str]) -> None:
    # sample_data/README.md: q39 is cut at offset 400 by fixed:size=200 (低温時バッテ | リー保護機能).
    code, out, _ = run(capsys, "--chunker", "fixed:size=200", "--json", "-")
    assert code == 0
    q39 = question_of(json.loads(out), "q39")
    assert not q39["evidence_exists"]
    assert [cut["boundaries"] for cut in q39["cuts"]] == [[400]]
    # q03's evidence is in a 541-character paragraph: with a 300-character budget and stop, nothing is sent.
    code, out, _ = run(capsys, "--chunker", "paragraph", "--budget", "300", "--overflow", "stop", "--json", "-")
    q03 = question_of(json.loads(out), "q03")
    assert q03["ranked"][0]["end"] - q03["ranked"][0]["start"] == 541
    assert q03["delivered"] == [] and q03["sent_chars"] == 0 and not q03["complete"]


def test_overlap_crowding_in_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    # q01 under fixed:size=200,overlap=100 and top-2: two windows of the same passage take both slots,
    # repeating 100 characters, and the base rule (item 1) is not delivered.
    code, out, _ = run(capsys, "--chunker", "fixed:size=200,overlap=100", "--top-k", "2", "--json", "-")
    assert code == 0
    q01 = question_of(json.loads(out), "q01")
    assert len(q01["delivered"]) == 2
    assert q01["delivered"][1]["start"] - q01["delivered"][0]["start"] in (100, -100)
    assert q01["duplicate_chars"] == 100
    assert q01["covered"][0] is False


def test_csv_and_markdown_are_written_atomically(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "reports"
    out_dir.mkdir()
    code, _, err = run(
        capsys,
        "--chunker",
        "paragraph",
        "--chunker",
        "fixed:size=200",
        "--csv",
        str(out_dir / "r.csv"),
        "--markdown",
        str(out_dir / "r.md"),
        "--json",
        str(out_dir / "r.json"),
    )
    assert code == 0
    assert sorted(p.name for p in out_dir.iterdir()) == ["r.csv", "r.json", "r.md"]  # no temporary file left
    assert f"wrote {out_dir / 'r.csv'}" in err
    rows = list(csv.DictReader(io.StringIO((out_dir / "r.csv").read_text(encoding="utf-8"))))
    assert len(rows) == 2 * 40
    assert {row["chunker"] for row in rows} == {"paragraph", "fixed:size=200,overlap=0"}
    markdown = (out_dir / "r.md").read_text(encoding="utf-8")
    assert markdown.startswith("# chunkscope report")
    assert "| `paragraph` |" in markdown
    assert json.loads((out_dir / "r.json").read_text(encoding="utf-8"))["configs"][0]["chunker"] == "paragraph"


def test_write_atomic_leaves_the_old_file_and_no_temporary_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")

    def fail(source: str, destination: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_unwritable_report_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--chunker", "paragraph", "--csv", str(tmp_path / "missing" / "r.csv"))
    assert code == 2
    assert err.startswith("chunkscope: error: cannot write --csv")


def test_input_files_are_never_modified(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus_dir, questions_file = sample_paths()
    corpus = shutil.copytree(corpus_dir, tmp_path / "corpus")
    questions = Path(shutil.copy(questions_file, tmp_path / "questions.jsonl"))
    before = (digest(corpus), digest(questions), sorted(p.name for p in tmp_path.rglob("*")))
    code, _, _ = run(
        capsys,
        "--corpus",
        str(corpus),
        "--questions",
        str(questions),
        "--chunker",
        "paragraph",
        "--json",
        str(tmp_path / "out.json"),
    )
    assert code == 0
    assert (digest(corpus), digest(questions)) == before[:2]
    assert sorted(p.name for p in tmp_path.rglob("*")) == sorted([*before[2], "out.json"])


# ------------------------------------------------------------------ bad input

DOC = "The cat sat. The cat ran."  # "cat" at 4 and 17


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "cats", "text": DOC}) + "\n", encoding="utf-8")
    return {"corpus": corpus, "questions": tmp_path / "questions.jsonl"}


def good(qid: str = "ok") -> dict[str, Any]:
    return {"id": qid, "query": "cat", "evidence": [{"doc": "cats", "quote": "sat"}]}


def bad_question(evidence: list[Any]) -> dict[str, Any]:
    return {"id": "bad", "query": "cat", "evidence": evidence}


def write_lines(path: Path, lines: list[Any]) -> None:
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines), encoding="utf-8"
    )


def one_line_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, _out, err = run(capsys, *argv)
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("chunkscope: error: ")
    return lines[0]


@pytest.mark.parametrize(
    ("lines", "where", "message"),
    [
        (
            [good(), bad_question([{"doc": "dogs", "quote": "x"}])],
            ":2: field 'evidence[0].doc'",
            "unknown document 'dogs'",
        ),
        (
            [good(), bad_question([{"doc": "cats", "start": 20, "end": 30}])],
            ":2: field 'evidence[0].start'",
            "span [20, 30) is out of range (document has 25 characters)",
        ),
        (
            [good(), bad_question([{"doc": "cats", "start": 5, "end": 5}])],
            ":2: field 'evidence[0].start'",
            "span [5, 5) is empty",
        ),
        (
            [good(), bad_question([{"doc": "cats", "quote": "dog"}])],
            ":2: field 'evidence[0].quote'",
            "quote 'dog' found 0 times in 'cats'",
        ),
        (
            [bad_question([{"doc": "cats", "start": 0, "end": 3}, {"doc": "cats", "quote": "cat"}])],
            ":1: field 'evidence[1].quote'",
            "quote 'cat' found 2 times in 'cats' at offsets 4, 17",
        ),
        ([good("q1"), good("q2"), good("q1")], ":3: field 'id'", "duplicate question id 'q1' (first on line 1)"),
        ([], "", "the question set is empty"),
        ([good(), "{not json"], ":2:", "invalid JSON"),
    ],
)
def test_bad_questions(
    inputs: dict[str, Path], capsys: pytest.CaptureFixture[str], lines: list[Any], where: str, message: str
) -> None:
    write_lines(inputs["questions"], lines)
    error = one_line_error(capsys, "--corpus", str(inputs["corpus"]), "--questions", str(inputs["questions"]))
    assert error.startswith(f"chunkscope: error: {inputs['questions']}{where}")
    assert message in error


def test_an_ambiguous_quote_lists_ten_offsets_and_counts_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, questions = tmp_path / "corpus.jsonl", tmp_path / "questions.jsonl"
    corpus.write_text(json.dumps({"id": "many", "text": "cat " * 13}) + "\n", encoding="utf-8")
    write_lines(questions, [{"id": "q", "query": "cat", "evidence": [{"doc": "many", "quote": "cat"}]}])
    error = one_line_error(capsys, "--corpus", str(corpus), "--questions", str(questions))
    # "cat " repeats every 4 characters: offsets 0, 4, ..., 36 are listed, 40, 44 and 48 are counted.
    listed = ", ".join(str(4 * i) for i in range(10))
    assert f"quote 'cat' found 13 times in 'many' at offsets {listed} +3 more;" in error


def test_duplicate_document_id(inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write_lines(inputs["corpus"], [{"id": "cats", "text": DOC}, {"id": "cats", "text": "again"}])
    write_lines(inputs["questions"], [good()])
    error = one_line_error(capsys, "--corpus", str(inputs["corpus"]), "--questions", str(inputs["questions"]))
    assert error == (
        f"chunkscope: error: {inputs['corpus']}:2: field 'id': duplicate document id 'cats' (first on line 1)"
    )


def test_invalid_corpus_json(inputs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    write_lines(inputs["corpus"], [{"id": "cats", "text": DOC}, '{"id": "x", "text": '])
    write_lines(inputs["questions"], [good()])
    error = one_line_error(capsys, "--corpus", str(inputs["corpus"]), "--questions", str(inputs["questions"]))
    assert error.startswith(f"chunkscope: error: {inputs['corpus']}:2: invalid JSON")


@pytest.mark.parametrize(
    ("option", "spec", "message"),
    [
        ("--chunker", "fixed:size=100,overlap=100", "overlap (100) must be smaller than size (100)"),
        ("--chunker", "fixed:size=100,overlap=150", "overlap (150) must be smaller than size (100)"),
        ("--chunker", "sentence", "unknown chunker 'sentence'; valid chunkers: "),
        ("--retriever", "tfidf", "unknown retriever 'tfidf'; valid retrievers: "),
        ("--chunker", "fixed:width=3", "has no parameter 'width' (valid: size, overlap, unit, tokenizer, shift)"),
    ],
)
def test_bad_specs(capsys: pytest.CaptureFixture[str], option: str, spec: str, message: str) -> None:
    error = one_line_error(capsys, option, spec)
    assert message in error
    if "valid chunkers" in message:
        assert {"fixed", "paragraph"} <= set(error.split("valid chunkers: ")[1].split(", "))
    if "valid retrievers" in message:
        assert {"bm25", "overlap"} <= set(error.split("valid retrievers: ")[1].split(", "))


def test_missing_inputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "no such file" in one_line_error(capsys, "--squad", str(tmp_path / "absent.json"))
    assert "--questions is needed too" in one_line_error(capsys, "--corpus", str(tmp_path))


def test_bad_option_values_exit_2_without_traceback(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--top-k", "0"], ["--budget", "-5"], ["--overflow", "drop"], ["--top-k", "many"]):
        with pytest.raises(SystemExit) as caught:
            main(["eval", *argv])
        assert caught.value.code == 2
        assert "Traceback" not in capsys.readouterr().err


def test_console_script_reports_bad_input_in_one_line(inputs: dict[str, Path]) -> None:
    write_lines(inputs["questions"], [good(), bad_question([{"doc": "cats", "quote": "cat"}])])
    script = Path(sys.executable).with_name("chunkscope")
    command = (
        [str(script)]
        if script.exists()
        else [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
    )
    process = subprocess.run(
        [*command, "eval", "--corpus", str(inputs["corpus"]), "--questions", str(inputs["questions"])],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert process.returncode == 2
    assert process.stdout == ""
    assert process.stderr == (
        f"chunkscope: error: {inputs['questions']}:2: field 'evidence[0].quote': quote 'cat' found 2 times in "
        "'cats' at offsets 4, 17; add \"occurrence\": N (0-based) to pick one "
        "(--skip-bad-gold leaves such questions out and counts them)\n"
    )


# ------------------------------------------------------------------ JSQuAD


@pytest.mark.jsquad
def test_jsquad_eval_reports_exclusions(jsquad_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--squad", str(jsquad_path), "--chunker", "paragraph", "--json", "-")
    assert code == 0
    report = json.loads(out)
    assert report["excluded_questions"] == 469
    summary = report["configs"][0]["summary"]
    assert (summary["questions"], summary["index_chunks"], summary["indexed_chars"]) == (3973, 1145, 196_198)
    assert summary["lost"] == 0  # paragraphs are exactly the SQuAD contexts: no answer can be cut
    assert "59 documents, 3973 questions" in err
    assert "excluded at load: 469 questions" in err
