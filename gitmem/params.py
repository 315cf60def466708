"""A verb's parameters, defined once: a frozen dataclass whose fields carry their metadata.

Each verb that has more than one face (the CLI, the MCP tools, the web API) is one request
class in verbs.py. Every field says how the faces spell it: the command line's flags (none:
a positional argument), the name the MCP tools and the JSON API use when the attribute's
name cannot be it (`from`, `in`, `type` are Python keywords or builtins), the help text
(the CLI's; an agent's wording where it differs), its choices, bounds and default, and which
faces offer it at all (`--no-guard` is for people only; the editor's `expected` only for
the web). From that one definition come the click options (cli/options.py), the MCP tool's
input schema (`schema`) and the web API's accepted fields (`names`); `from_mapping` checks a
JSON object or a query string into the request, with one clear line for an unknown field or
a value of the wrong kind. This module imports nothing of gitmem's: every layer may use it.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import UsageError

FACES = ("cli", "mcp", "web")
KINDS = {str: "string", int: "integer", float: "number", bool: "boolean"}
PYTHON = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": (list, tuple)}
R = TypeVar("R")


@dataclass(frozen=True)
class Param:
    """How the faces spell and check one field of a request."""

    help: str = ""  # the CLI's help text (none for an argument)
    flags: tuple[str, ...] = ()  # the CLI's spellings, e.g. ("--limit", "-n"); () for a positional argument
    wire: str = ""  # the MCP/web name when it is not the attribute's
    agent: str = ""  # the MCP description when it is worded otherwise than help
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    pattern: str = ""  # a JSON schema pattern (MCP only; the domain checks the value too)
    metavar: str | None = None
    show_default: bool = False
    required: bool = False  # the MCP tool and the web API need it (the CLI may read it from stdin)
    cli_optional: bool = False  # a required argument the command line may leave out (watch without NAME lists)
    words: bool = False  # an argument of words (nargs=-1), joined by spaces into the value
    faces: tuple[str, ...] = FACES


@dataclass(frozen=True)
class Field:
    """A request field as the faces see it: its attribute, wire name, kind and default."""

    attr: str
    name: str  # the MCP/web name
    kind: str  # string, integer, number, boolean or array (of strings)
    default: Any
    param: Param


def param(help: str = "", *flags: str, default: Any = None, **meta: Any) -> Any:
    """A dataclass field with its Param: `limit: int | None = param("At most ...", "--limit", "-n", minimum=1)`."""
    return dataclasses.field(default=default, metadata={"param": Param(help, tuple(flags), **meta)})


def _kind(annotation: Any) -> str:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return _kind(args[0])
    if typing.get_origin(annotation) is tuple:
        return "array"
    return KINDS[annotation]


def fields(cls: type, face: str | None = None) -> list[Field]:
    """The request's fields in declaration order (those `face` offers, if given: a field's own
    `faces` and the class's, a ClassVar `faces` naming the faces the verb has at all)."""
    hints = typing.get_type_hints(cls)
    verb_faces = getattr(cls, "faces", FACES)
    found = []
    for f in dataclasses.fields(cls):
        p = f.metadata.get("param")
        if p is None or (face is not None and (face not in p.faces or face not in verb_faces)):
            continue
        found.append(Field(f.name, p.wire or f.name, _kind(hints[f.name]), f.default, p))
    return found


def names(cls: type, face: str) -> tuple[str, ...]:
    """The names `face` (mcp or web) accepts for the request."""
    return tuple(f.name for f in fields(cls, face))


def schema(cls: type, face: str = "mcp") -> dict[str, Any]:
    """The JSON schema of the request's object (MCP's inputSchema): unknown properties refused."""
    properties: dict[str, Any] = {}
    for f in fields(cls, face):
        p = f.param
        prop: dict[str, Any] = {"type": f.kind}
        if f.kind == "array":
            prop["items"] = {"type": "string", **({"enum": list(p.choices)} if p.choices else {})}
        elif p.choices:
            prop["enum"] = list(p.choices)
        if p.minimum is not None:
            prop["minimum"] = p.minimum
        if p.maximum is not None:
            prop["maximum"] = p.maximum
        if p.pattern:
            prop["pattern"] = p.pattern
        prop["description"] = p.agent or p.help
        if f.default not in (None, (), ""):
            prop["default"] = f.default
        properties[f.name] = prop
    required = [f.name for f in fields(cls, face) if f.param.required]
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def from_mapping(cls: type[R], data: Mapping[str, Any] | Iterable[tuple[str, Any]], face: str = "mcp",
                 strings: bool = False) -> R:
    """The request `data` asks for: a JSON object (MCP, a web body), or with `strings` the
    pairs of a query string (a name may repeat; numbers and flags are text). UsageError in one
    line for an unknown name, a missing required one, or a value of the wrong kind."""
    pairs = list(data.items()) if isinstance(data, Mapping) else list(data)
    known = {f.name: f for f in fields(cls, face)}
    given: dict[str, Any] = {}
    for name, value in pairs:
        f = known.get(name)
        if f is None:
            raise UsageError(f"unknown field {name!r}", f"the fields are: {', '.join(known)}")
        if strings:
            if f.kind == "array":
                parts = [part.strip() for part in str(value).split(",") if part.strip()]
                given[f.attr] = (*given.get(f.attr, ()), *parts)
                continue
            if str(value) == "" and f.kind != "boolean":  # a form's empty field: not given
                continue
            value = _from_text(f, str(value))
        elif f.kind == "array" and isinstance(value, str):  # one value where a list is expected: a list of it
            value = [part.strip() for part in value.split(",") if part.strip()]
        given[f.attr] = _checked(f, value)
    for f in known.values():
        if f.param.required and f.attr not in given:
            raise UsageError(f"missing field {f.name!r}", f"the request needs {f.name!r}")
    for f in known.values():
        if f.attr in given and isinstance(given[f.attr], tuple) and f.param.choices:
            _choose(f, given[f.attr])
    return cls(**given)


def _from_text(f: Field, value: str) -> Any:
    """A query-string value as the field's kind: '15' a number, '1'/'true'/'on' a flag."""
    if f.kind == "boolean":
        return value.strip().lower() not in ("", "0", "false", "no", "off")
    try:
        return int(value) if f.kind == "integer" else float(value) if f.kind == "number" else value
    except ValueError:
        raise _wrong(f, value) from None


def _checked(f: Field, value: Any) -> Any:
    """`value` if it is of the field's kind and within its bounds and choices, else UsageError."""
    if value is None:
        return f.default
    kind: Any = PYTHON[f.kind]  # Any: isinstance must not narrow `value` to object
    if not isinstance(value, kind) or (isinstance(value, bool) and f.kind in ("integer", "number")):
        raise _wrong(f, value)
    if f.kind == "array":
        if not all(isinstance(item, str) for item in value):
            raise _wrong(f, value)
        return tuple(value)
    if f.kind in ("integer", "number"):
        if isinstance(value, float) and not math.isfinite(value) \
                or f.param.minimum is not None and value < f.param.minimum \
                or f.param.maximum is not None and value > f.param.maximum:
            raise _wrong(f, value)
    if f.param.choices:
        _choose(f, (value,))
    return value


def _choose(f: Field, values: Iterable[str]) -> None:
    for value in values:
        if value not in f.param.choices:
            raise UsageError(f"{f.name!r} must be one of {', '.join(f.param.choices)}, not {value!r}",
                             f"e.g. {f.name}={f.param.choices[0]}")


def _wrong(f: Field, value: Any) -> UsageError:
    words = {"string": "text", "integer": "a whole number", "number": "a number", "boolean": "true or false",
             "array": "a list of text"}[f.kind]
    bounds = ""
    if f.param.minimum is not None and f.param.maximum is not None:
        bounds = f" from {_plain(f.param.minimum)} to {_plain(f.param.maximum)}"
    elif f.param.minimum is not None:
        bounds = f" of {_plain(f.param.minimum)} or more"
    shown = repr(value)[:40]
    return UsageError(f"{f.name!r} must be {words}{bounds}, not {shown}", f"fix the field {f.name!r}")


def _plain(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)
