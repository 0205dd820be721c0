"""The README's two commands exist as written, and ``chunkscope eval`` works from any directory."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from importlib.util import find_spec
from pathlib import Path

import pytest

from chunkscope.cli import build_parser
from chunkscope.io.dataset import sample_paths

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


def bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.DOTALL)


def pyproject() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def chunkscope() -> list[str]:
    script = Path(sys.executable).with_name("chunkscope")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]


def test_quick_start_has_the_install_and_the_test_command() -> None:
    install, test = bash_blocks()[:2]
    assert "pip install ." in install and "chunkscope eval" in install
    assert "pip install -e '.[test]'" in test and "pytest" in test


def test_every_chunkscope_command_in_the_readme_exists() -> None:
    text = README.read_text(encoding="utf-8")
    used = set(re.findall(r"`chunkscope (\w+)", text)) | set(re.findall(r"&& chunkscope (\w+)", text))
    assert "eval" in used
    parser = build_parser()
    subcommands = next(a for a in parser._actions if a.dest == "command").choices
    assert used <= set(subcommands)  # type: ignore[arg-type]


def test_the_console_script_and_extras_the_commands_need_are_declared() -> None:
    project = pyproject()["project"]
    assert project["scripts"]["chunkscope"] == "chunkscope.cli:main"  # type: ignore[index]
    test_extra = {re.split(r"[<>=\[ ]", d)[0] for d in project["optional-dependencies"]["test"]}  # type: ignore[index]
    # `pytest -n 2` needs pytest-xdist; the property tests need hypothesis.
    assert {"pytest", "pytest-xdist", "hypothesis"} <= test_extra
    # The reference tests compare against rank-bm25, a runtime dependency.
    assert any(d.startswith("rank-bm25") for d in project["dependencies"])  # type: ignore[union-attr]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    test_command = bash_blocks()[1].strip().split(" && ", 2)[-1]
    assert test_command in (REPO / ".ci" / "run").read_text(encoding="utf-8")


def test_eval_works_from_another_directory(tmp_path: Path) -> None:
    process = subprocess.run(
        [*chunkscope(), "eval", "--chunker", "paragraph"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert process.returncode == 0, process.stderr
    assert "10 documents, 40 questions" in process.stdout
    assert list(tmp_path.iterdir()) == []  # nothing written to the working directory


def test_sample_data_lives_inside_the_package() -> None:
    corpus, questions = sample_paths()
    package = Path(sys.modules["chunkscope"].__file__).resolve().parent  # type: ignore[arg-type]
    assert corpus.resolve().is_relative_to(package) and questions.resolve().is_relative_to(package)


@pytest.mark.skipif(find_spec("hatchling") is None, reason="building the wheel offline needs hatchling installed")
def test_the_wheel_ships_the_sample_data(tmp_path: Path) -> None:
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert process.returncode == 0, process.stderr[-2000:]
    (wheel,) = tmp_path.glob("chunkscope-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    corpus, _questions = sample_paths()
    root = corpus.parent
    shipped = {f"chunkscope/sample_data/{p.relative_to(root).as_posix()}" for p in root.rglob("*") if p.is_file()}
    assert "chunkscope/sample_data/questions.jsonl" in shipped
    assert shipped <= names
