"""The JSQuAD tests say where they looked for the file and how to point them at it, once in the session header."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
JSQUAD_TEST = "tests/io/test_squad_loader.py::test_jsquad_facts"


def _pytest(env_value: str, *options: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key not in ("CI", "CHUNKSCOPE_JSQUAD")}
    env["CHUNKSCOPE_JSQUAD"] = env_value
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-rs", *options, JSQUAD_TEST],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_missing_file_is_named_in_the_header_and_in_the_skip_reason(tmp_path: Path) -> None:
    absent = tmp_path / "nowhere" / "jsquad.json"
    result = _pytest(str(absent))
    assert result.returncode == 0, result.stdout[-2000:]
    header = result.stdout.split("collect", 1)[0]
    expected = (
        f"JSQuAD tests skipped: CHUNKSCOPE_JSQUAD={absent} names no file; "
        "run them with CHUNKSCOPE_JSQUAD=/path/to/jsquad-valid-v1.3.json"
    )
    assert expected in header
    assert header.count("JSQuAD tests skipped") == 1
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1 and expected in skipped[0]


def _conftest_with(monkeypatch: pytest.MonkeyPatch, value: str) -> ModuleType:
    """tests/conftest.py loaded afresh with CHUNKSCOPE_JSQUAD set to ``value``."""
    monkeypatch.setenv("CHUNKSCOPE_JSQUAD", value)
    spec = importlib.util.spec_from_file_location("conftest_jsquad_probe", REPO / "tests" / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_a_directory_is_no_jsquad_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # it exists, but the JSQuAD tests would fail reading it: they skip, naming it
    missing = _conftest_with(monkeypatch, str(tmp_path)).jsquad_missing()
    assert missing is not None and f"CHUNKSCOPE_JSQUAD={tmp_path} names no file" in missing


def test_an_empty_variable_falls_back_to_the_project_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    probe = _conftest_with(monkeypatch, "")
    beside = REPO.parent / "shared" / "data" / "jsquad-valid-v1.3.json"
    assert beside == probe.JSQUAD
    if beside.is_file():
        assert probe.jsquad_missing() is None
        assert probe.pytest_report_header() == f"JSQuAD tests run on {beside}"
    else:
        assert f"CHUNKSCOPE_JSQUAD is not set and {beside} (../shared/data beside the repository) is absent" in (
            probe.jsquad_missing()
        )


def test_a_found_file_is_named_in_the_header(monkeypatch: pytest.MonkeyPatch, jsquad_path: Path) -> None:
    probe = _conftest_with(monkeypatch, str(jsquad_path))
    assert probe.jsquad_missing() is None
    assert probe.pytest_report_header() == f"JSQuAD tests run on {jsquad_path}"
