"""Python plugins: a function named in a spec as ``package.module:function``, and errors that point at user code.

The chunker ``python:...`` and the retriever ``python:...`` load their function here. The module
is imported as ``import package.module`` would (so its directory must be on ``sys.path``, e.g. via
``PYTHONPATH``); ``function`` may be a dotted attribute path inside it (``Class.method``).

Every failure is a :class:`PluginError`, one line: a module that cannot be imported names the
module and the reason; an exception raised by the plugin names the file and line of the last
traceback frame inside the plugin's own module (where the user's code went wrong), else the last
frame of the traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
import traceback
from collections.abc import Callable, Iterator
from types import ModuleType, TracebackType
from typing import Any

from chunkscope.errors import ChunkscopeError

_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_TARGET = re.compile(rf"(?P<module>{_DOTTED}):(?P<function>{_DOTTED})")
MESSAGE_LIMIT = 300
"""Characters of an exception's message kept in a PluginError."""


class PluginError(ChunkscopeError):
    """A plugin that cannot be loaded, raised an exception, or returned something unusable."""


def check_target(target: str) -> tuple[str, str]:
    """``(module, function)`` of a ``package.module:function`` target (ValueError when it has another shape)."""
    match = _TARGET.fullmatch(target.strip())
    if match is None:
        raise ValueError(f"a plugin is named package.module:function (Python names), got {target!r}")
    return match["module"], match["function"]


def check_param_names(params: tuple[tuple[str, object], ...]) -> None:
    """ValueError unless every plugin parameter is a Python name (it is passed as a keyword argument)."""
    for key, _ in params:
        if not key.isidentifier():
            raise ValueError(f"plugin parameter {key!r} is not a Python name, so it cannot be a keyword argument")


def load_function(target: str) -> Callable[..., Any]:
    """The callable ``target`` names, importing its module (PluginError naming what went wrong)."""
    module_name, attribute = check_target(target)
    module = _import(module_name)
    found: Any = module
    for part in attribute.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            where = getattr(module, "__file__", None) or module_name
            raise PluginError(f"plugin module '{module_name}' ({where}) has no attribute '{attribute}'") from None
    if not callable(found):
        raise PluginError(f"plugin '{target}' is a {type(found).__name__}, not a function")
    function: Callable[..., Any] = found
    return function


def _import(module_name: str) -> ModuleType:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise PluginError(
                f"cannot import plugin module '{module_name}': {exc} (is its directory on PYTHONPATH?)"
            ) from None
        raise _import_failure(module_name, exc) from None
    except SyntaxError as exc:
        where = f"{exc.filename}:{exc.lineno}: " if exc.filename else ""
        raise PluginError(f"{where}cannot import plugin module '{module_name}': {_describe(exc)}") from None
    except (Exception, SystemExit) as exc:
        raise _import_failure(module_name, exc) from None


def _import_failure(module_name: str, exc: BaseException) -> PluginError:
    """An exception raised while the module ran its top level, at the module's own line when it is there."""
    origin = None
    try:
        spec = importlib.util.find_spec(module_name)
        origin = spec.origin if spec is not None else None
    except (ImportError, ValueError):
        pass
    frame = _user_frame(exc.__traceback__, {origin} if origin else set())
    return PluginError(f"{frame}cannot import plugin module '{module_name}': {_describe(exc)}")


def call_plugin(label: str, context: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``; an exception becomes a PluginError at the user's file and line.

    ``label`` names the plugin (its spec) and ``context`` what it was doing (``document 'a.md'``).

    A result that is an iterator (a generator function) is read to the end here, so an exception
    raised while it yields is reported the same way; a list comes back as a list.
    """
    try:
        result = function(*args, **kwargs)
        if isinstance(result, Iterator):
            result = list(result)
    except Exception as exc:
        frame = _user_frame(exc.__traceback__, _user_files(function))
        raise PluginError(f"{frame}plugin '{label}' raised {_describe(exc)} ({context})") from None
    return result


def _user_files(function: Callable[..., Any]) -> set[str]:
    """The plugin's own source files: its module's file and the file its code object comes from."""
    files: set[str] = set()
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    if code is not None:
        files.add(code.co_filename)
    module = sys.modules.get(getattr(function, "__module__", None) or "")
    module_file = getattr(module, "__file__", None)
    if isinstance(module_file, str):
        files.add(module_file)
    return files


def _user_frame(tb: TracebackType | None, user_files: set[str]) -> str:
    """``FILE:LINE: `` of the last traceback frame in ``user_files``, else of the last frame ('' when none)."""
    frames = traceback.extract_tb(tb)
    if not frames:
        return ""
    wanted = {_normal(path) for path in user_files}
    inside = [frame for frame in frames if _normal(frame.filename) in wanted]
    frame = (inside or frames)[-1]
    return f"{frame.filename}:{frame.lineno}: "


def _normal(path: str) -> str:
    return os.path.normcase(os.path.abspath(path))


def _describe(exc: BaseException) -> str:
    """``Type: message`` on one line, the message cut to MESSAGE_LIMIT characters."""
    message = " ".join(str(exc).split())
    if len(message) > MESSAGE_LIMIT:
        message = message[: MESSAGE_LIMIT - 1] + "…"
    name = type(exc).__name__
    return f"{name}: {message}" if message else name
