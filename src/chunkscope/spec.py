"""Spec strings and strategy registries: one grammar for the CLI and the inspector.

Grammar::

    spec   := NAME [":" param ("," param)*]
    param  := KEY "=" value
    value  := "(" spec ")" | spec ("+" spec)* | ATOM

A strategy is a frozen dataclass registered under a name; its fields are its
parameters. A field typed as another strategy kind (a chunker inside
``parent``, retrievers inside ``rrf``) takes a nested spec. Without
parentheses a nested spec keeps the parameters it knows, so
``parent:child=fixed:size=200,parent=markdown`` parses as expected.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from chunkscope.errors import SpecError

T = TypeVar("T")


class Registry(Generic[T]):
    """Strategies of one kind (chunker, retriever, tokenizer) by name."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._classes: dict[str, type[T]] = {}

    def register(self, name: str) -> Callable[[type[T]], type[T]]:
        """Class decorator: register a frozen dataclass under ``name``."""

        def decorate(cls: type[T]) -> type[T]:
            if not dataclasses.is_dataclass(cls):
                raise TypeError(f"{cls.__name__} must be a dataclass")
            self._classes[name] = cls
            cls.spec_name = name  # type: ignore[attr-defined]
            return cls

        return decorate

    @property
    def names(self) -> tuple[str, ...]:
        """Registered names, sorted."""
        return tuple(sorted(self._classes))

    def get(self, name: str) -> type[T]:
        """The class registered as ``name``, or a SpecError listing valid names."""
        try:
            return self._classes[name]
        except KeyError:
            raise SpecError(f"unknown {self.kind} '{name}'; valid {self.kind}s: {', '.join(self.names)}") from None

    def parse(self, text: str) -> T:
        """Parse a whole spec string into a strategy instance."""
        parser = _Parser(text, self)
        value: T = parser.parse_spec(self)
        parser.expect_end()
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._classes


_REGISTRIES: dict[str, Registry[Any]] = {}


def registry(kind: str) -> Registry[Any]:
    """The shared registry of ``kind`` (created on first use)."""
    if kind not in _REGISTRIES:
        _REGISTRIES[kind] = Registry(kind)
    return _REGISTRIES[kind]


def format_spec(strategy: object, short: bool = False) -> str:
    """Canonical spec string of a strategy: name and every parameter, in field order.

    With ``short``, parameters equal to their default are left out (for display).
    """
    name = getattr(strategy, "spec_name", type(strategy).__name__)
    params = []
    for f in dataclasses.fields(strategy):  # type: ignore[arg-type]
        if not f.init or f.metadata.get("hidden"):
            continue
        value = getattr(strategy, f.name)
        if short and f.default is not dataclasses.MISSING and value == f.default:
            continue
        params.append(f"{f.name}={_format_value(value, short)}")
    return f"{name}:{','.join(params)}" if params else name


def _format_value(value: object, short: bool = False) -> str:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = format_spec(value, short)
        return f"({inner})" if ":" in inner else inner
    if isinstance(value, tuple):
        return "+".join(_format_value(v, short) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return str(value)


class _Parser:
    """Recursive-descent parser over one spec string."""

    def __init__(self, text: str, root: Registry[Any]) -> None:
        self.text = text.strip()
        self.pos = 0
        self.root = root

    def fail(self, message: str) -> SpecError:
        return SpecError(f"in {self.root.kind} spec '{self.text}': {message}")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect_end(self) -> None:
        if self.pos != len(self.text):
            raise self.fail(f"unexpected '{self.text[self.pos :]}'")

    def read_name(self) -> str:
        start = self.pos
        while self.pos < len(self.text) and (self.text[self.pos].isalnum() or self.text[self.pos] in "_-."):
            self.pos += 1
        if start == self.pos:
            raise self.fail(f"expected a name at position {self.pos}")
        return self.text[start : self.pos]

    def parse_spec(self, reg: Registry[Any], nested: bool = False) -> Any:
        name = self.read_name()
        cls = reg.get(name)
        fields = _init_fields(cls)
        values: dict[str, Any] = {}
        if self.peek() == ":":
            self.pos += 1
            while True:
                mark = self.pos
                key = self.read_name()
                if key not in fields:
                    if nested and values:
                        self.pos = mark - 1  # give the comma back to the outer spec
                        break
                    valid = ", ".join(fields) or "none"
                    raise self.fail(f"{reg.kind} '{name}' has no parameter '{key}' (valid: {valid})")
                if self.peek() != "=":
                    raise self.fail(f"expected '=' after '{key}'")
                self.pos += 1
                values[key] = self.parse_value(name, key, fields[key])
                if self.peek() != ",":
                    break
                self.pos += 1
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise self.fail(str(exc)) from None

    def parse_value(self, owner: str, key: str, hint: Any) -> Any:
        kind = _nested_kind(hint)
        if kind is not None:
            reg = registry(kind)
            many = _is_tuple(hint)
            items = [self.parse_nested(reg)]
            while many and self.peek() == "+":
                self.pos += 1
                items.append(self.parse_nested(reg))
            return tuple(items) if many else items[0]
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",)":
            self.pos += 1
        return _convert_atom(self.text[start : self.pos], hint, owner, key, self)

    def parse_nested(self, reg: Registry[Any]) -> Any:
        if self.peek() == "(":
            self.pos += 1
            value = self.parse_spec(reg)
            if self.peek() != ")":
                raise self.fail("missing ')'")
            self.pos += 1
            return value
        return self.parse_spec(reg, nested=True)


def _init_fields(cls: type) -> dict[str, Any]:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init}


def _nested_kind(hint: Any) -> str | None:
    """The registry kind a field holds, from its ``Annotated[..., 'kind']`` hint."""
    if typing.get_origin(hint) is typing.Annotated:
        for meta in hint.__metadata__:
            if isinstance(meta, StrategyKind):
                return meta.kind
    return None


def _is_tuple(hint: Any) -> bool:
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint
    return typing.get_origin(base) is tuple


@dataclasses.dataclass(frozen=True)
class StrategyKind:
    """Marks a field as holding a nested spec of another registry."""

    kind: str


def _convert_atom(raw: str, hint: Any, owner: str, key: str, parser: _Parser) -> Any:
    raw = raw.strip()
    options = [hint]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        options = list(typing.get_args(hint))
    if type(None) in options and raw.lower() in ("none", "null", ""):
        return None
    for option in options:
        try:
            if option is bool:
                if raw.lower() in ("true", "yes", "1", "on"):
                    return True
                if raw.lower() in ("false", "no", "0", "off"):
                    return False
                continue
            if option is int:
                return int(raw)
            if option is float:
                return float(raw)
            if option is str:
                return raw
        except ValueError:
            continue
    names = " or ".join(getattr(o, "__name__", str(o)) for o in options if o is not type(None))
    raise parser.fail(f"'{owner}' parameter '{key}' must be {names}, got '{raw}'")
