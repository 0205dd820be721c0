"""The ``all`` extra installs every optional strategy, and each one then runs on the sample data.

The strategies come from one table, ``chunkscope.spec.extras.OPTIONAL_STRATEGIES``; pyproject.toml's ``all``
extra is checked against it, so neither can drift. CI installs ``.[dev]``, whose ``test`` extra holds every
package of ``all``: there an unavailable strategy fails here rather than being skipped.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from chunkscope.io.dataset import sample_paths
from chunkscope.spec.extras import ALL_EXTRAS, LEFT_OUT_OF_ALL, OPTIONAL_STRATEGIES, OptionalStrategy, optional_strategy

REPO = Path(__file__).resolve().parents[2]
EXTRAS: dict[str, list[str]] = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "optional-dependencies"
]
NOT_STRATEGIES = {"test", "docs", "dev", "bench", "all", "serve", "dask"}
"""Extras that bring tools, not strategies (serve: the web server of `chunkscope serve`; dask: a cluster executor)."""


def _name(requirement: str) -> str:
    """The distribution name of a requirement (``semchunk>=4.1,<5`` -> ``semchunk``), normalised."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _self_extras(requirements: list[str]) -> set[str]:
    """The extras named by ``chunkscope[a,b]`` entries."""
    named: set[str] = set()
    for requirement in requirements:
        match = re.fullmatch(r"chunkscope\[([^\]]+)\]", requirement)
        assert match, f"all must only name chunkscope's own extras, got {requirement!r}"
        named.update(part.strip() for part in match.group(1).split(","))
    return named


def test_the_all_extra_is_exactly_the_tables_extras() -> None:
    assert _self_extras(EXTRAS["all"]) == set(ALL_EXTRAS)


def test_every_extra_is_in_all_or_left_out_with_a_reason() -> None:
    strategies = set(EXTRAS) - NOT_STRATEGIES
    assert strategies == set(ALL_EXTRAS) | set(LEFT_OUT_OF_ALL)
    assert not set(ALL_EXTRAS) & set(LEFT_OUT_OF_ALL)
    assert "st" in LEFT_OUT_OF_ALL and "torch" in LEFT_OUT_OF_ALL["st"]


def test_the_test_extra_holds_every_package_of_all_so_ci_runs_them() -> None:
    tested = {_name(requirement) for requirement in EXTRAS["test"]}
    for extra in ALL_EXTRAS:
        missing = {_name(requirement) for requirement in EXTRAS[extra]} - tested
        assert not missing, f"the test extra lacks {missing} of chunkscope[{extra}]"


def test_lookup_and_install_line() -> None:
    sudachi = optional_strategy("tokenizer", "sudachi")
    assert sudachi is not None and sudachi.install == "pip install 'chunkscope[ja]'"
    assert optional_strategy("chunker", "fixed") is None


def test_an_absent_module_makes_a_strategy_unavailable() -> None:
    absent = OptionalStrategy("x", "chunker", "x", ("json", "chunkscope_no_such_module"), ())
    assert not absent.available
    assert OptionalStrategy("x", "chunker", "x", ("json",), ()).available


RUN = """
import json, sys
from chunkscope.cli import main
modules = json.loads(sys.argv[1])
before = {m for m in modules if m in sys.modules}
code = main(sys.argv[2:])
print(json.dumps({"code": code, "before": sorted(before), "after": sorted(m for m in modules if m in sys.modules)}))
"""


SLICE = ("en/refunds.md", "ja/henpin.md")
"""The sample documents each strategy runs on (one English, one Japanese): the whole sample would take a dense
run about 20 s of CPU, and these two cover what every strategy reads."""


def _sample_slice(tmp_path: Path, fuzzy: bool) -> tuple[Path, Path]:
    """A corpus directory of the :data:`SLICE` documents and the sample questions about them only; with ``fuzzy``,
    one more question whose quote (one letter changed) only fuzzy matching finds."""
    corpus, questions = sample_paths()
    directory = tmp_path / "corpus"
    for doc in SLICE:
        (directory / doc).parent.mkdir(parents=True, exist_ok=True)
        (directory / doc).write_bytes((corpus / doc).read_bytes())
    lines = [
        line
        for line in questions.read_text(encoding="utf-8").splitlines()
        if set(re.findall(r'"doc": "([^"]+)"', line)) <= set(SLICE)
    ]
    if fuzzy:
        typo = {"doc": "en/refunds.md", "quote": "Most items can be returned within 30 dayz of delivery."}
        lines.append(json.dumps({"id": "typo", "query": "How long is the return window?", "evidence": [typo]}))
    path = tmp_path / "questions.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return directory, path


def _add_document(path: Path) -> None:
    """A PDF, HTML or DOCX file beside the sample documents, written by the fixture writers."""
    from document_files import HTML_WITH_TABLES, write_docx, write_pdf

    if path.suffix == ".pdf":
        write_pdf(path, [["Plans are billed monthly."], ["Cancel any time."]])
    elif path.suffix == ".docx":
        write_docx(path)
    else:
        path.write_text(HTML_WITH_TABLES, encoding="utf-8")


@pytest.mark.parametrize("strategy", OPTIONAL_STRATEGIES, ids=lambda s: f"{s.extra}-{s.name}")
def test_each_optional_strategy_runs_on_the_sample_data(strategy: OptionalStrategy, tmp_path: Path) -> None:
    assert strategy.available, f"{strategy.kind} {strategy.name} is not installed: {strategy.install}"
    corpus, questions = _sample_slice(tmp_path, fuzzy=strategy.kind == "gold-match")
    if strategy.kind == "input format":
        _add_document(corpus / f"extra.{strategy.name}")
    report = tmp_path / "report.json"
    argv = ["eval", "--corpus", str(corpus), "--questions", str(questions), "--jobs", "1", "--quiet"]
    argv += ["--json", str(report), *strategy.example]
    if "--chunker" not in strategy.example:
        argv += ["--chunker", "fixed:size=400"]  # one configuration, few chunks to embed
    modules = list(strategy.modules)
    if strategy.kind == "fast path":
        modules.append("chunkscope.retrievers.compiled")  # numba loaded, and the compiled scoring used
    env = {**os.environ, "CHUNKSCOPE_CACHE": str(tmp_path / "cache"), **dict(strategy.environment)}
    result = subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(list(modules)), *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    outcome = json.loads(result.stdout.splitlines()[-1])
    assert outcome["code"] == 0, result.stderr[-2000:]
    # the strategy's own packages were loaded by the run, not before it
    assert outcome["before"] == [] and outcome["after"] == sorted(modules)
    (config,) = json.loads(report.read_text(encoding="utf-8"))["configs"]
    assert config["summary"]["questions"] == len(questions.read_text(encoding="utf-8").splitlines()) >= 8
    assert 0.0 <= config["summary"]["recall_at_5"] <= 1.0
    if strategy.kind == "gold-match":
        typo = next(q for q in config["questions"] if q["id"] == "typo")
        assert typo["gold_match"][0][0].startswith("fuzzy")
