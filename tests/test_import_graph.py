"""The package's import graph: no cycles, no deferred imports hiding one, and the import-linter contracts kept.

The graph is read from the source with ``ast``: every ``import`` statement counts, at module level
or inside a function (a deferred import is still a dependency, it only runs later).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

import chunkscope

PACKAGE = Path(chunkscope.__file__).resolve().parent
PYPROJECT = PACKAGE.parents[1] / "pyproject.toml"
FRONT_ENDS = ("chunkscope.cli", "chunkscope.tui")
LEFT_OUT: tuple[str, ...] = ()
"""Packages left out of the cycle check: none; the inspector has no cycle either."""


def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(("chunkscope", *parts))] = path
    return modules


@functools.cache
def syntax_tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def imported_modules(module: str, path: Path, modules: set[str]) -> Iterator[tuple[str, bool]]:
    """(imported module, inside a function?) for every import statement of a module.

    ``from a import b`` imports the module ``a.b`` when there is one, else the name ``b`` of ``a``.
    Third-party modules come back under their own names.
    """
    tree = syntax_tree(path)
    in_function: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function.update(id(inner) for inner in ast.walk(node) if inner is not node)
    for node in ast.walk(tree):
        deferred = id(node) in in_function
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, deferred
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, path.name == "__init__.py", node.module, node.level)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                yield (submodule if submodule in modules else base), deferred


def _absolute(module: str, is_package: bool, name: str | None, level: int) -> str:
    """The absolute module name of a (possibly relative) ``from`` import."""
    if level == 0:
        return name or ""
    parts = module.split(".")
    anchor = parts if is_package else parts[:-1]
    anchor = anchor[: len(anchor) - (level - 1)]
    return ".".join([*anchor, name] if name else anchor)


def import_graph() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (at module level or deferred)."""
    files = module_files()
    modules = set(files)
    return {
        module: {name for name, _ in imported_modules(module, path, modules) if name in modules and name != module}
        for module, path in files.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _left_out(module: str) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in LEFT_OUT)


def checked_graph() -> dict[str, set[str]]:
    graph = import_graph()
    return {
        module: {t for t in targets if not _left_out(t)} for module, targets in graph.items() if not _left_out(module)
    }


def test_cycle_finder_finds_a_cycle_and_a_self_contained_chain() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_sees_module_level_and_deferred_imports() -> None:
    graph = import_graph()
    assert "chunkscope.pipeline.parallel" in graph["chunkscope.cli.common"]  # module level
    assert "chunkscope.tui.app" in graph["chunkscope.cli.inspect_cmd"]  # inside run()
    # ``from chunkscope.cli import common`` depends on the module cli.common, not on the package's __init__
    assert "chunkscope.cli.common" in graph["chunkscope.cli.eval_cmd"]
    assert "chunkscope.cli" not in graph["chunkscope.cli.eval_cmd"]


def test_no_import_cycle() -> None:
    graph = checked_graph()
    assert len(graph) > 50  # every module outside tui/ was read
    assert cycles(graph) == []


_NUMBA = (
    "it imports numba (the fast extra), whose start-up costs about 0.7 s: loaded only when the compiled path is chosen"
)
DEFERRED_EXTRAS = {
    f"chunkscope.retrievers.{module} imports chunkscope.retrievers.compiled": _NUMBA
    for module in ("scoring", "bm25", "lexical")
}
"""Deferred imports of the package's own modules that stand for an optional extra, each with why."""


def test_the_core_defers_no_import_of_its_own() -> None:
    """Outside the front ends, a function-level import is only ever an optional third-party extra."""
    files = module_files()
    deferred = [
        f"{module} imports {name}"
        for module, path in files.items()
        if not module.startswith(FRONT_ENDS)
        for name, inside_function in imported_modules(module, path, set(files))
        if inside_function and name.split(".")[0] == "chunkscope"
    ]
    assert [entry for entry in deferred if entry not in DEFERRED_EXTRAS] == []


def test_import_linter_contracts_are_kept() -> None:
    """The layers and the textual/rich ban of pyproject.toml's [tool.importlinter]."""
    cli = pytest.importorskip("importlinter.cli")
    if not PYPROJECT.exists():
        pytest.skip("run from a source checkout: the contracts live in pyproject.toml")
    assert cli.lint_imports(config_filename=str(PYPROJECT), no_cache=True) == cli.EXIT_STATUS_SUCCESS
