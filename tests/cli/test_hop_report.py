"""Hops delivered per question and 'all hops within the budget', checked against a brute-force oracle."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chunkscope.cli import main
from chunkscope.io.dataset import load_dataset

DATASETS = Path(__file__).parents[1] / "fixtures" / "datasets"
CASES = [
    (DATASETS / "hotpotqa" / "distractor.json", ["--chunker", "fixed:size=40", "--top-k", "2"]),
    (DATASETS / "hotpotqa" / "distractor.json", ["--chunker", "paragraph", "--top-k", "3", "--budget", "120"]),
    (DATASETS / "multihop_rag" / "MultiHopRAG.json", ["--chunker", "fixed:size=60,overlap=20", "--top-k", "3"]),
    (DATASETS / "multihop_rag" / "MultiHopRAG.json", ["--chunker", "fixed:size=400", "--top-k", "1"]),
]


def _report(path: Path, options: list[str], tmp_path: Path) -> dict:
    out = tmp_path / "report.json"
    assert main(["eval", "--dataset", str(path), *options, "--json", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize(("path", "options"), CASES)
def test_hops_delivered_match_a_brute_force_over_the_delivered_chunks(
    path: Path, options: list[str], tmp_path: Path
) -> None:
    dataset = load_dataset(dataset=path)
    (config,) = _report(path, options, tmp_path)["configs"]
    all_hops = 0
    multi = 0
    for question, entry in zip(dataset.questions.questions, config["questions"], strict=True):
        delivered = [(d["doc"], d["start"], d["end"]) for d in entry["delivered"]]
        hop_ok: dict[int, bool] = {}
        for item, hop in zip(question.evidence, question.hops, strict=True):
            inside = any(
                doc == span.doc and start <= span.start and span.end <= end
                for span in item.alternatives
                for doc, start, end in delivered
            )
            hop_ok[hop] = hop_ok.get(hop, True) and inside
        got = sum(hop_ok.values())
        assert entry["hops"]["delivered"] == got
        assert entry["hops"]["of"] == len(hop_ok)
        assert entry["hops"]["label"] == f"{got} of {len(hop_ok)}"
        assert entry["hops"]["missing"] == sorted(hop for hop, ok in hop_ok.items() if not ok)
        if len(hop_ok) >= 2:
            multi += 1
            all_hops += got == len(hop_ok)
    assert config["summary"]["multi_hop_questions"] == multi
    assert config["summary"]["all_hops_delivered"] == all_hops


def test_a_question_set_without_hops_has_no_hop_metrics(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert main(["eval", "--chunker", "paragraph", "--json", str(out)]) == 0
    (config, *_) = json.loads(out.read_text())["configs"]
    assert "all_hops_delivered" not in config["summary"] and "multi_hop_questions" not in config["summary"]
    assert all("hops" not in entry for entry in config["questions"])


def test_everything_delivered_delivers_every_hop(tmp_path: Path) -> None:
    # Hand-checked: 4 one-paragraph documents, top-10 sends all of them, so both two-hop questions get both hops.
    path = DATASETS / "hotpotqa" / "distractor.json"
    (config,) = _report(path, ["--chunker", "paragraph", "--top-k", "10"], tmp_path)["configs"]
    assert (config["summary"]["multi_hop_questions"], config["summary"]["all_hops_delivered"]) == (2, 2)
    assert [entry["hops"]["label"] for entry in config["questions"]] == ["2 of 2", "2 of 2", "1 of 1"]


def test_the_terminal_says_hops_per_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = DATASETS / "hotpotqa" / "distractor.json"
    (config,) = _report(path, ["--chunker", "paragraph", "--top-k", "2"], tmp_path)["configs"]
    capsys.readouterr()
    assert main(["eval", "--dataset", str(path), "--chunker", "paragraph", "--top-k", "2"]) == 0
    out = capsys.readouterr().out
    labels = [entry["hops"]["label"] for entry in config["questions"] if entry["hops"]["of"] >= 2]
    spread = ", ".join(f"{label}: {labels.count(label)}" for label in sorted(set(labels)))
    done = labels.count("2 of 2")
    assert f"all hops within the budget {done}/{len(labels)} multi-hop questions ({spread})" in " ".join(out.split())
    plain = main(["eval", "--chunker", "paragraph"])
    assert plain == 0 and "hops ·" not in capsys.readouterr().out
