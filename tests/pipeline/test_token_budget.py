"""Budgets in tokens: unit costs, truncation at a token start, the budget's tokenizer, and the CLI."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.errors import SpecError
from chunkscope.model import Chunk
from chunkscope.pipeline.assembly import assemble
from chunkscope.pipeline.config import make_config
from chunkscope.pipeline.cost import CHARACTERS, token_cost
from chunkscope.results import RankedChunk
from chunkscope.tokenize import counting
from reference_bpe import reference_encoding

# cl100k, counted by tiktoken: "Hello world" = Hello| world (2); "Hello world, Hello again." =
# Hello| world|,| Hello| again|. (6); "Fees > Refund\n" = F|ees| >| Ref|und|\n (6); a rocket = 3 tokens.
DOC = "Hello world. Hello world, Hello again. 🚀🚀🚀"
SHORT = Chunk("d#0", "d", 0, 11, DOC[0:11])  # "Hello world": 2
LONG = Chunk("d#1", "d", 13, 38, DOC[13:38])  # "Hello world, Hello again.": 6
ROCKETS = Chunk("d#2", "d", 39, 42, DOC[39:42])  # 9
SECTION = Chunk("e#0", "e", 0, 11, "Hello world", prefix="Fees > Refund\n")  # 6 + 2


def ranked(*chunks: Chunk) -> list[RankedChunk]:
    return [RankedChunk(rank, c, 10.0 - rank) for rank, c in enumerate(chunks, start=1)]


def delivered(chunks: list[Chunk], budget: int, overflow: str) -> list[str]:
    delivery = assemble(ranked(*chunks), 5, budget, overflow, token_cost("cl100k"))  # type: ignore[arg-type]
    return [d.chunk.prefix + d.chunk.text[: d.end - d.chunk.start] for d in delivery.delivered]


def test_hand_counts_agree_with_tiktoken() -> None:
    encoding = reference_encoding("cl100k")
    for chunk, tokens in ((SHORT, 2), (LONG, 6), (ROCKETS, 9), (SECTION, 8)):
        assert len(encoding.encode_ordinary(chunk.indexed_text)) == tokens
        assert token_cost("cl100k").cost(chunk) == tokens


def test_stop_and_skip_count_tokens() -> None:
    assert delivered([SHORT, LONG, ROCKETS], 8, "stop") == ["Hello world", "Hello world, Hello again."]
    assert delivered([SHORT, LONG, ROCKETS], 7, "stop") == ["Hello world"]
    assert delivered([LONG, ROCKETS, SHORT], 8, "skip") == ["Hello world, Hello again.", "Hello world"]
    # In characters the same budget of 8 sends nothing at all: "Hello world" is 11 characters.
    assert assemble(ranked(SHORT), 5, 8, "stop", CHARACTERS).delivered == ()


def test_a_prefix_costs_its_tokens() -> None:
    assert delivered([SECTION], 8, "stop") == ["Fees > Refund\nHello world"]
    assert delivered([SECTION], 7, "stop") == []


def test_truncate_cuts_at_a_token_start() -> None:
    # 2 + 3 of LONG's tokens fit 5: "Hello| world|," is sent, " Hello again." is not.
    assert delivered([SHORT, LONG], 5, "truncate") == ["Hello world", "Hello world,"]
    # The prefix alone fills 6 tokens; 7 leaves one for the body: "Hello".
    assert delivered([SECTION], 7, "truncate") == ["Fees > Refund\nHello"]
    assert delivered([SECTION], 6, "truncate") == []


def test_truncate_never_splits_a_character() -> None:
    # Three tokens are one rocket; four reach into the second, which is left out whole.
    assert delivered([ROCKETS], 3, "truncate") == ["🚀"]
    assert delivered([ROCKETS], 4, "truncate") == ["🚀"]
    assert delivered([ROCKETS], 2, "truncate") == []
    for room in range(10):
        (text,) = delivered([ROCKETS], room, "truncate") or [""]
        assert "\ufffd" not in text and DOC[39 : 39 + len(text)] == text
        assert len(reference_encoding("cl100k").encode_ordinary(text)) <= room


def test_the_budget_tokenizer_comes_from_the_option_or_the_chunker() -> None:
    config = make_config("fixed:size=100,unit=tokens,tokenizer=o200k", budget=50, budget_unit="tokens")
    assert config.budget_tokenizer == "o200k" and config.budget_unit == "tokens"
    assert config.budget_units == "o200k tokens"
    named = make_config("fixed:size=100", budget=50, budget_unit="tokens", budget_tokenizer="cl100k")
    assert named.budget_tokenizer == "cl100k"
    nested = make_config("parent:child=fixed:size=50,unit=tokens", budget=50, budget_unit="tokens")
    assert nested.budget_tokenizer == "cl100k"
    assert make_config("fixed:size=100", budget=50).budget_tokenizer is None
    assert (
        make_config("fixed:size=100", budget=50, budget_unit="tokens", budget_tokenizer="chars").budget_unit == "chars"
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"budget_unit": "tokens"}, "--budget-unit tokens needs --budget-tokenizer: the chunker counts characters"),
        ({"budget_tokenizer": "cl100k"}, "--budget-tokenizer cl100k needs --budget-unit tokens"),
        ({"budget_unit": "words"}, "--budget-unit must be chars or tokens, got 'words'"),
    ],
)
def test_bad_budget_units(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_config("fixed:size=100", budget=50, **kwargs)  # type: ignore[arg-type]


def test_an_unknown_budget_tokenizer_lists_the_valid_ones() -> None:
    with pytest.raises((SpecError, ValueError), match="valid counting tokenizers: chars, cl100k, e5, e5-enpt, o200k"):
        make_config("fixed:size=100", budget=50, budget_unit="tokens", budget_tokenizer="gpt2")


# ------------------------------------------------------------------ end to end


def run_eval(tmp_path: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = tmp_path / "report.json"
    assert main(["eval", *args, "--json", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_eval_with_a_token_budget_sends_at_most_the_budget(tmp_path: Path, sample) -> None:  # type: ignore[no-untyped-def]
    report = run_eval(
        tmp_path,
        *("--chunker", "recursive:size=120,unit=tokens", "--budget", "300", "--budget-unit", "tokens"),
        *("--overflow", "truncate"),
    )
    (config,) = report["configs"]
    assert (config["budget_unit"], config["budget_tokenizer"], config["tokenizer"]) == ("tokens", "cl100k", "cl100k")
    encoding = reference_encoding("cl100k")
    texts = {d.id: d.text for d in sample.corpus.documents}
    total = 0
    for question in config["questions"]:
        counts = [len(encoding.encode_ordinary(texts[d["doc"]][d["start"] : d["end"]])) for d in question["delivered"]]
        assert [d["tokens"] for d in question["delivered"]] == counts
        assert question["sent_tokens"] == sum(counts) <= 300
        for hit in question["ranked"]:
            assert hit["tokens"] == len(encoding.encode_ordinary(texts[hit["doc"]][hit["start"] : hit["end"]]))
        total += sum(counts)
    assert config["sent_tokens"] == total


def test_token_chunks_with_a_character_budget_still_show_tokens(tmp_path: Path) -> None:
    report = run_eval(tmp_path, "--chunker", "fixed:size=60,unit=tokens,tokenizer=o200k", "--budget", "900")
    (config,) = report["configs"]
    assert "budget_unit" not in config and config["tokenizer"] == "o200k"
    assert all(hit["tokens"] <= 60 for q in config["questions"] for hit in q["ranked"])


def test_character_configurations_get_no_token_fields(tmp_path: Path) -> None:
    report = run_eval(tmp_path, "--chunker", "fixed:size=200", "--budget", "900")
    (config,) = report["configs"]
    assert not {"budget_unit", "budget_tokenizer", "tokenizer", "sent_tokens"} & set(config)
    assert "sent_tokens" not in config["questions"][0]
    assert "tokens" not in config["questions"][0]["ranked"][0]


def test_csv_and_markdown_show_tokens_only_when_counted(tmp_path: Path) -> None:
    csv_path, md_path = tmp_path / "r.csv", tmp_path / "r.md"
    args = ["eval", "--chunker", "fixed:size=200", "--chunker", "fixed:size=50,unit=tokens", "--csv", str(csv_path)]
    assert main([*args, "--markdown", str(md_path), "--budget", "100", "--budget-unit", "tokens",
                 "--budget-tokenizer", "cl100k"]) == 0  # fmt: skip
    header, first, *_ = csv_path.read_text(encoding="utf-8").splitlines()
    assert header.endswith(",tokenizer,sent_tokens") and ",cl100k," in first
    markdown = md_path.read_text(encoding="utf-8")
    assert "budget 100 cl100k tokens" in markdown and "cl100k tokens over 40 questions" in markdown


def test_cli_budget_unit_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--chunker", "fixed:size=200", "--budget", "300", "--budget-unit", "tokens"]) == 2
    assert "--budget-unit tokens needs --budget-tokenizer: the chunker counts characters" in capsys.readouterr().err


def test_cli_names_the_missing_extra(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "quicktok" else real(name, *a))
    monkeypatch.setattr(counting, "_COUNTERS", {})
    assert main(["eval", "--chunker", "fixed:size=50,unit=tokens"]) == 2
    error = capsys.readouterr().err
    assert "pip install 'chunkscope[tokens]'" in error
    assert error.count("\n") == 1  # one line, no traceback
