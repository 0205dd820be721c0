"""Spec strings: one grammar for the CLI and the inspector (the registries are in ``spec.registry``).

Grammar::

    spec   := NAME [":" (value | param) ("," param)*]    (a bare value only for a positional field)
    param  := KEY "=" value
    value  := "(" spec ")" | spec ("+" spec)* | QUOTED | ATOM

A strategy is a frozen dataclass registered under a name; its fields are its
parameters. A field typed as another strategy kind (a chunker inside
``parent``, retrievers inside ``rrf``) takes a nested spec. Without
parentheses a nested spec keeps the parameters it knows, so
``parent:child=fixed:size=200,parent=markdown`` parses as expected.

A strategy may mark its first field ``positional`` (field metadata
``{"positional": True}``): its value may then come first without ``KEY=``, as
in ``rrf:bm25+dense,k=60``. Inside a ``+``-list an unquoted atom also ends at
``+``. A double-quoted atom (``"query: "``, with ``\\"`` and ``\\\\`` escapes)
is taken literally: spaces, commas and ``none`` included. A required field may
carry field metadata ``{"missing": MESSAGE}``: the error when a spec leaves it out. A field with metadata
``{"omit_default": True}`` is left out of the canonical form while it holds its default, so
adding such a parameter to a strategy keeps every existing canonical spec string as it was.

Quoted atoms also read ``\\n``, ``\\t`` and ``\\r`` as a line break, a tab and a carriage return
(the canonical form writes those characters so). A field typed ``tuple[str, ...]`` (not a
strategy) takes atoms joined by ``+``: ``separators="\\n\\n"+"\\n"+" "``.

A strategy may declare one field with metadata ``{"free_params": True}``, typed
:data:`FreeParams`: every ``KEY=value`` whose key is not one of its fields lands there, sorted by
key (a plugin's own parameters). An unquoted free value is an int (``12``), a float (``0.5``,
``1e-3``), a bool (``true``/``false``) or else a string; a quoted one is always a string. A nested
spec written without parentheses takes no free parameters (they belong to the outer spec), so a
nested plugin with parameters is written ``rrf:bm25+(python:pkg.mod:rank,alpha=0.5)``.

A list field whose metadata names a ``weights`` field takes ``*W`` after an item: ``rrf:bm25*2+dense``
reads as ``rrf:bm25+dense,weights=2.0+1.0`` (an item without ``*W`` weighs 1; a nested spec with
parameters is parenthesised first: ``(bm25:k1=1.2)*2``).

Specs nest at most :data:`MAX_DEPTH` (32) levels deep.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import types
import typing
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from chunkscope.errors import SpecError

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

MAX_DEPTH = 32
"""How deeply specs may nest (``rrf:bm25+(rrf:...)``, ``parent:child=(parent:...)``): deeper is a SpecError."""


class StrategyTable(Protocol[T_co]):
    """What the parser needs of a registry: its kind, its names, and the class behind each name."""

    @property
    def kind(self) -> str: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    def get(self, name: str) -> type[T_co]: ...


SpecDefaults = Mapping[type, Mapping[str, object]]
"""Parameter values, by strategy class, for strategies whose spec leaves them out.

The front end says with it what a bare name means, e.g. ``{ImportedChunker: {"path": FILE}}``
reads ``imported`` (alone or nested) as ``imported:path=FILE``; the spec it writes back names the file.
"""

NO_DEFAULTS: SpecDefaults = MappingProxyType({})

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
"""A finite decimal number (``inf`` and ``nan`` stay strings); integers match _INTEGER first."""


def parse_spec(text: str, table: StrategyTable[T], defaults: SpecDefaults = NO_DEFAULTS) -> T:
    """Parse a whole spec string of ``table``'s kind into a strategy instance."""
    parser = _Parser(text, table.kind, defaults)
    value = parser.parse_spec(table)
    parser.expect_end()
    return value


def format_spec(strategy: object, short: bool = False) -> str:
    """Canonical spec string of a strategy: name and every parameter, in field order.

    Parameters marked ``omit_default`` are left out while they equal their default. With ``short``,
    every parameter equal to its default is left out (for display). Free parameters come last.
    """
    name = getattr(strategy, "spec_name", type(strategy).__name__)
    params: list[str] = []
    free: list[str] = []
    for f in dataclasses.fields(strategy):  # type: ignore[arg-type]
        if not f.init or f.metadata.get("hidden"):
            continue
        value = getattr(strategy, f.name)
        if f.metadata.get("free_params"):
            free = [f"{key}={_format_free_value(item)}" for key, item in value]
            continue
        at_default = f.default is not dataclasses.MISSING and value == f.default
        if at_default and (f.metadata.get("omit_default") or (short and not f.metadata.get("always_show"))):
            continue
        if f.metadata.get("positional") and not params:
            params.append(_format_value(value, short))
        else:
            params.append(f"{f.name}={_format_value(value, short)}")
    params += free
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
    if isinstance(value, str) and _needs_quotes(value):
        return _quoted(value)
    return str(value)


def _quoted(text: str) -> str:
    """``text`` as a double-quoted atom that reads back as itself."""
    return '"' + "".join(_ESCAPES.get(char, char) for char in text) + '"'


def _format_free_value(value: object) -> str:
    """A free parameter's value, quoted when unquoted it would read back as something else."""
    if isinstance(value, str) and (_needs_quotes(value) or _free_atom(value) != value):
        return _quoted(value)
    return _format_value(value)


_SPECIAL = frozenset(',()+"\\\n\t\r')
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
"""How a character is written inside quotes."""
_UNESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
"""What a backslash before each of these letters means inside quotes (any other escaped character is itself)."""

FreeParams = tuple[tuple[str, str | int | float | bool], ...]
"""The type of a ``free_params`` field: ``(key, value)`` pairs sorted by key."""


def _needs_quotes(text: str) -> bool:
    """True when an atom would not read back as this exact string unquoted."""
    return text != text.strip() or text.lower() in ("", "none", "null") or any(char in _SPECIAL for char in text)


def _free_atom(raw: str) -> str | int | float | bool:
    """An unquoted free value: int, finite float, bool (``true``/``false``), else the string itself."""
    text = raw.strip()
    if _INTEGER.fullmatch(text):
        return int(text)
    if _DECIMAL.fullmatch(text):
        return float(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


class _Parser:
    """Recursive-descent parser over one spec string."""

    def __init__(self, text: str, kind: str, defaults: SpecDefaults) -> None:
        self.text = text.strip()
        self.pos = 0
        self.kind = kind
        self.defaults = defaults
        self.depth = 0
        """Nested specs open around the current position."""

    def fail(self, message: str) -> SpecError:
        return SpecError(f"in {self.kind} spec '{self.text}': {message}")

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

    def parse_spec(self, reg: StrategyTable[T], nested: bool = False, in_list: bool = False) -> T:
        name = self.read_name()
        cls = reg.get(name)
        fields = _init_fields(cls)
        free = _free_params_field(cls)
        if free is not None:
            del fields[free]  # not a key of its own: it collects the keys the strategy does not declare
        values: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        if self.peek() == ":":
            self.pos += 1
            positional = _positional_field(cls)
            if positional is not None and not self.at_named_param(fields):
                values[positional] = self.parse_weighted(cls, name, positional, fields, values, in_list)
                more = self.peek() == ","
                if more:
                    self.pos += 1
            else:
                more = True
            while more:
                mark = self.pos
                key = self.read_name()
                if key not in fields and free is not None and not nested:
                    if key in extras:
                        raise self.fail(f"{reg.kind} '{name}' parameter '{key}' is given twice")
                    if self.peek() != "=":
                        raise self.fail(f"expected '=' after '{key}'")
                    self.pos += 1
                    extras[key] = self.parse_free_value(in_list)
                    if self.peek() != ",":
                        break
                    self.pos += 1
                    continue
                if key not in fields:
                    if nested and values:
                        self.pos = mark - 1  # give the comma back to the outer spec
                        break
                    valid = ", ".join(fields) or "none"
                    raise self.fail(f"{reg.kind} '{name}' has no parameter '{key}' (valid: {valid})")
                if key in values:
                    if nested:
                        self.pos = mark - 1  # a second 'key=' belongs to the outer spec
                        break
                    raise self.fail(f"{reg.kind} '{name}' parameter '{key}' is given twice")
                if self.peek() != "=":
                    raise self.fail(f"expected '=' after '{key}'")
                self.pos += 1
                if key in _weight_targets(cls) and key in values:
                    raise self.fail(f"{reg.kind} '{name}' parameter '{key}' is given twice (once as '*' weights)")
                values[key] = self.parse_weighted(cls, name, key, fields, values, in_list)
                if self.peek() != ",":
                    break
                self.pos += 1
        if free is not None and extras:
            values[free] = tuple(sorted(extras.items()))
        for key, value in self.defaults.get(cls, {}).items():
            values.setdefault(key, value)
        missing = [f for f in _required_fields(cls) if f.name not in values]
        if missing:
            hint = missing[0].metadata.get("missing")
            raise self.fail(hint or f"{reg.kind} '{name}' needs parameter '{missing[0].name}'")
        try:
            return cls(**values)
        except (TypeError, ValueError) as exc:
            raise self.fail(str(exc)) from None

    def parse_weighted(
        self, cls: type, owner: str, key: str, fields: dict[str, Any], values: dict[str, Any], in_list: bool
    ) -> Any:
        """A field's value; for a list field with metadata ``weights``, ``SPEC*W`` items also fill that field.

        ``rrf:bm25*2+dense`` gives ``parts=(bm25, dense)`` and ``weights=(2.0, 1.0)``: an item without
        ``*W`` weighs 1. Without any ``*`` the weights field is left alone.
        """
        target = _weights_field(cls, key)
        if target is None:
            return self.parse_value(owner, key, fields[key], in_list)
        reg = _nested_table(fields[key])
        assert reg is not None, "a weighted field holds nested specs"
        items = [self.parse_nested(reg, True)]
        weights = [self.read_weight(owner)]
        while self.peek() == "+":
            self.pos += 1
            items.append(self.parse_nested(reg, True))
            weights.append(self.read_weight(owner))
        if any(weight is not None for weight in weights):
            if target in values:
                raise self.fail(f"'{owner}' parameter '{target}' is given twice (once as '*' weights)")
            values[target] = tuple(1.0 if weight is None else weight for weight in weights)
        return tuple(items)

    def read_weight(self, owner: str) -> float | None:
        """The ``*W`` after a list item (a positive finite number), or None when there is none."""
        if self.peek() != "*":
            return None
        self.pos += 1
        raw = self.read_atom(True).strip()
        try:
            weight = float(raw)
        except ValueError:
            weight = math.nan
        if not (math.isfinite(weight) and weight > 0):
            raise self.fail(f"'{owner}' weight after '*' must be a positive number, got '{raw}'")
        return weight

    def at_named_param(self, fields: dict[str, Any]) -> bool:
        """True when the text ahead is ``KEY=`` for one of ``fields`` (not a positional value)."""
        end = self.pos
        while end < len(self.text) and (self.text[end].isalnum() or self.text[end] in "_-."):
            end += 1
        return end < len(self.text) and self.text[end] == "=" and self.text[self.pos : end] in fields

    def parse_value(self, owner: str, key: str, hint: Any, in_list: bool = False) -> Any:
        reg = _nested_table(hint)
        if reg is not None:
            many = _is_tuple(hint)
            items = [self.parse_nested(reg, in_list or many)]
            while many and self.peek() == "+":
                self.pos += 1
                items.append(self.parse_nested(reg, True))
            return tuple(items) if many else items[0]
        element = _atom_tuple_element(hint)
        if element is not None:
            return self.parse_atom_tuple(owner, key, hint, element)
        if self.peek() == '"':
            return _convert_atom(self.read_quoted(), hint, owner, key, self, quoted=True)
        return _convert_atom(self.read_atom(in_list), hint, owner, key, self)

    def read_atom(self, in_list: bool) -> str:
        """An unquoted atom: up to the next ``,`` or ``)`` (or ``+`` inside a list)."""
        stops = ",)+" if in_list else ",)"
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in stops:
            self.pos += 1
        return self.text[start : self.pos]

    def parse_atom_tuple(self, owner: str, key: str, hint: Any, element: Any) -> tuple[Any, ...] | None:
        """Atoms joined by ``+`` for a ``tuple[T, ...]`` field (an unquoted ``none`` when it may be None)."""
        if self.peek() != '"':
            mark = self.pos
            if self.read_atom(True).strip().lower() in ("none", "null") and _allows_none(hint):
                return None
            self.pos = mark
        items = []
        while True:
            if self.peek() == '"':
                items.append(_convert_atom(self.read_quoted(), element, owner, key, self, quoted=True))
            else:
                items.append(_convert_atom(self.read_atom(True), element, owner, key, self))
            if self.peek() != "+":
                return tuple(items)
            self.pos += 1

    def parse_free_value(self, in_list: bool) -> str | int | float | bool:
        """A free parameter's value: quoted, always a string; unquoted, read by :func:`_free_atom`."""
        if self.peek() == '"':
            return self.read_quoted()
        return _free_atom(self.read_atom(in_list))

    def read_quoted(self) -> str:
        """A double-quoted atom with backslash escapes; the position ends after the closing quote."""
        start = self.pos
        self.pos += 1
        chars = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text):
                escaped = self.text[self.pos + 1]
                chars.append(_UNESCAPES.get(escaped, escaped))
                self.pos += 2
                continue
            self.pos += 1
            if char == '"':
                return "".join(chars)
            chars.append(char)
        raise self.fail(f"unterminated quote starting at position {start}")

    def parse_nested(self, reg: StrategyTable[object], in_list: bool = False) -> object:
        if self.depth >= MAX_DEPTH:
            shown = self.text if len(self.text) <= 80 else self.text[:79] + "…"
            raise SpecError(f"in {self.kind} spec '{shown}': specs nest at most {MAX_DEPTH} levels deep")
        self.depth += 1
        try:
            return self._parse_nested(reg, in_list)
        finally:
            self.depth -= 1

    def _parse_nested(self, reg: StrategyTable[object], in_list: bool = False) -> object:
        if self.peek() == "(":
            self.pos += 1
            value = self.parse_spec(reg)
            if self.peek() != ")":
                raise self.fail("missing ')'")
            self.pos += 1
            return value
        return self.parse_spec(reg, nested=True, in_list=in_list)


def _init_fields(cls: type) -> dict[str, Any]:
    """A fresh copy of the strategy's init fields and their types (the parser deletes keys it handles)."""
    return dict(_init_field_types(cls))


@functools.cache
def _init_field_types(cls: type) -> Mapping[str, Any]:
    # get_type_hints re-evaluates every annotation string; a spec with thousands of parts
    # (rrf over 5,000 retrievers) spent most of its parse time here before this was cached.
    hints = typing.get_type_hints(cls, include_extras=True)
    return MappingProxyType({f.name: hints[f.name] for f in dataclasses.fields(cls) if f.init})


def _required_fields(cls: type) -> list[dataclasses.Field[Any]]:
    """Init fields without a default: a spec must give them (field metadata ``missing`` says how)."""
    return [
        f
        for f in dataclasses.fields(cls)
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]


def _positional_field(cls: type) -> str | None:
    """The field a spec may give first without its key, if the strategy declares one."""
    return next((f.name for f in dataclasses.fields(cls) if f.init and f.metadata.get("positional")), None)


def _weights_field(cls: type, key: str) -> str | None:
    """The field that ``*W`` weights after the items of list field ``key`` fill (field metadata ``weights``)."""
    for f in dataclasses.fields(cls):
        if f.name == key:
            target = f.metadata.get("weights")
            return str(target) if target else None
    return None


def _weight_targets(cls: type) -> frozenset[str]:
    """Fields that ``*W`` weights may fill."""
    return frozenset(str(f.metadata["weights"]) for f in dataclasses.fields(cls) if f.metadata.get("weights"))


def _free_params_field(cls: type) -> str | None:
    """The field that collects a strategy's undeclared ``KEY=value`` parameters, if it has one."""
    return next((f.name for f in dataclasses.fields(cls) if f.init and f.metadata.get("free_params")), None)


def _union_options(hint: Any) -> list[Any]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return list(typing.get_args(hint))
    return [hint]


def _allows_none(hint: Any) -> bool:
    return type(None) in _union_options(hint)


def _atom_tuple_element(hint: Any) -> Any:
    """``T`` for a field typed ``tuple[T, ...]`` (or that or None), else None."""
    for option in _union_options(hint):
        if typing.get_origin(option) is tuple:
            args = typing.get_args(option)
            if len(args) == 2 and args[1] is Ellipsis:
                return args[0]
    return None


def _nested_table(hint: Any) -> StrategyTable[object] | None:
    """The registry whose specs a field holds, from its ``Annotated[..., StrategyKind(registry)]`` hint."""
    if typing.get_origin(hint) is typing.Annotated:
        for meta in hint.__metadata__:
            if isinstance(meta, StrategyKind):
                return meta.table
    return None


def _is_tuple(hint: Any) -> bool:
    base = typing.get_args(hint)[0] if typing.get_origin(hint) is typing.Annotated else hint
    return typing.get_origin(base) is tuple


@dataclasses.dataclass(frozen=True)
class StrategyKind:
    """Marks a field as holding nested specs of ``table``: ``Annotated[Chunker, StrategyKind(chunkers)]``."""

    table: StrategyTable[object]


def _convert_atom(raw: str, hint: Any, owner: str, key: str, parser: _Parser, quoted: bool = False) -> Any:
    options = [hint]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        options = list(typing.get_args(hint))
    if quoted:
        if str in options:
            return raw
    else:
        raw = raw.strip()
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
                number = float(raw)
                if not math.isfinite(number):
                    raise parser.fail(f"'{owner}' parameter '{key}' must be a finite number, got '{raw}'")
                return number
            if option is str:
                return raw
        except ValueError:
            continue
    names = " or ".join(getattr(o, "__name__", str(o)) for o in options if o is not type(None))
    raise parser.fail(f"'{owner}' parameter '{key}' must be {names}, got '{raw}'")
