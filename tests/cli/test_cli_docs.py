"""docs/cli.md keeps its commands table whole: every command once, in one table."""

from __future__ import annotations

from pathlib import Path

from chunkscope.cli import COMMANDS

CLI_DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _commands_table() -> list[str]:
    """The rows of the first table of docs/cli.md, up to the first line that is not a table row."""
    lines = CLI_DOC.read_text(encoding="utf-8").splitlines()
    start = lines.index("| command | does |")
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_the_commands_table_lists_every_command_once() -> None:
    named = [row.split("`")[1].split()[1] for row in _commands_table()]
    assert sorted(named) == sorted(command.NAME for command in COMMANDS)


def test_no_table_row_is_left_outside_the_commands_table() -> None:
    text = CLI_DOC.read_text(encoding="utf-8")
    for command in COMMANDS:
        assert text.count(f"| `chunkscope {command.NAME}") == 1, command.NAME


def test_each_shared_option_has_one_row() -> None:
    text = CLI_DOC.read_text(encoding="utf-8")
    shared = text.split("## Options shared by every command\n")[1].split("\n## ")[0]
    rows = [line.split("|")[1].strip() for line in shared.splitlines() if line[:3] == "| `"]
    options = [row for row in rows if row.startswith("`--")]
    assert len(options) == len(set(options)), sorted(o for o in options if options.count(o) > 1)
