"""The core imports neither textual nor rich; the headless CLI loads no textual."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import chunkscope

PACKAGE = Path(chunkscope.__file__).resolve().parent
FRONT_ENDS = ("cli", "tui")


def core_modules() -> list[str]:
    """Every module of the package outside cli/ and tui/, by walking the source tree."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] in FRONT_ENDS:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join(("chunkscope", *parts)))
    return names


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)


def test_the_core_module_list_is_complete() -> None:
    modules = core_modules()
    for expected in (
        "chunkscope",
        "chunkscope.model",
        "chunkscope.results",
        "chunkscope.io.dataset",
        "chunkscope.tokenize.default",
        "chunkscope.chunkers",
        "chunkscope.chunkers.fixed",
        "chunkscope.chunkers.paragraph",
        "chunkscope.retrievers.bm25",
        "chunkscope.retrievers.overlap",
        "chunkscope.pipeline.assembly",
        "chunkscope.pipeline.evaluate",
        "chunkscope.reports.eval",
        "chunkscope.analysis.stats",
    ):
        assert expected in modules
    assert not any(m.startswith(("chunkscope.cli", "chunkscope.tui")) for m in modules)


def test_importing_every_core_module_loads_neither_textual_nor_rich() -> None:
    code = (
        "import importlib, json, sys\n"
        f"for name in {core_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'})\n"
        "print(json.dumps(loaded))\n"
    )
    process = run_python(code)
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout) == []


def test_eval_help_loads_no_textual() -> None:
    code = (
        "import json, sys\n"
        "from chunkscope.cli import main\n"
        "code = main(['eval', '--help'])\n"
        "print(json.dumps([code, 'textual' in sys.modules]), file=sys.stderr)\n"
    )
    process = run_python(code)
    assert "usage: chunkscope eval" in process.stdout
    assert json.loads(process.stderr.strip().splitlines()[-1]) == [0, False]


def test_a_headless_eval_run_loads_no_textual() -> None:
    code = (
        "import json, sys\n"
        "from chunkscope.cli import main\n"
        "code = main(['eval', '--chunker', 'paragraph'])\n"
        "print(json.dumps([code, 'textual' in sys.modules]), file=sys.stderr)\n"
    )
    process = run_python(code)
    assert json.loads(process.stderr.strip().splitlines()[-1]) == [0, False]


def test_the_console_script_runs_eval_help_without_textual() -> None:
    # The installed entry point when there is one (it sits next to the interpreter in a venv).
    script = Path(sys.executable).with_name("chunkscope")
    target = (
        [str(script)] if script.exists() else ["-c", "import sys; from chunkscope.cli import main; sys.exit(main())"]
    )
    process = subprocess.run(
        [sys.executable, "-X", "importtime", *target, "eval", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert process.returncode == 0, process.stderr[-2000:]
    assert "--chunker SPEC" in process.stdout
    imported = [
        line.rsplit("|", 1)[-1].strip() for line in process.stderr.splitlines() if line.startswith("import time:")
    ]
    assert "chunkscope.cli" in imported
    assert not [name for name in imported if name == "textual" or name.startswith("textual.")]
