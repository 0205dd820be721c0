"""Errors that carry enough context to tell the user exactly what to fix."""

from __future__ import annotations


class ChunkscopeError(Exception):
    """Base class for every error chunkscope reports to the user (exit code 2)."""


class InputError(ChunkscopeError):
    """Bad input data: names the file, the line (1-based) and the field."""

    def __init__(self, path: str, message: str, *, line: int | None = None, field: str | None = None) -> None:
        self.path = path
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        what = f" field '{self.field}':" if self.field else ""
        return f"{where}:{what} {self.message}"

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only arguments: the default reduction (the class called with self.args) cannot rebuild it.
        return _rebuild_input_error, (type(self), self.path, self.message, self.line, self.field)


def _rebuild_input_error(
    cls: type[InputError], path: str, message: str, line: int | None, field: str | None
) -> InputError:
    return cls(path, message, line=line, field=field)


class SpecError(ChunkscopeError):
    """A chunker, retriever or tokenizer spec string that cannot be parsed."""


class MissingExtraError(ChunkscopeError):
    """A feature needs an optional dependency group that is not installed."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        self.feature = feature
        self.extra = extra
        self.module = module
        super().__init__(
            f"{feature} needs the optional dependency '{module}': install it with  pip install 'chunkscope[{extra}]'"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return type(self), (self.feature, self.extra, self.module)


class ChunkscopeWarning(UserWarning):
    """Something the user should know that did not stop the work (e.g. a cache that could not be written).

    Evaluations collect these and the command line prints each once, as ``chunkscope: warning: ...``.
    """
