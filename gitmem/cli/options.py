"""A request class (verbs.py) as click parameters: the command line's face of a verb."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..params import Field, fields

R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])


def _click_type(f: Field) -> Any:
    p = f.param
    if p.choices:
        return click.Choice(p.choices)
    if f.kind == "integer" and (p.minimum is not None or p.maximum is not None):
        return click.IntRange(_bound(p.minimum), _bound(p.maximum))
    if f.kind == "number" and (p.minimum is not None or p.maximum is not None):
        return click.FloatRange(p.minimum, p.maximum)
    return None


def _bound(value: float | None) -> int | None:
    return None if value is None else int(value)


def parameter(f: Field) -> Callable[[F], F]:
    """The click argument or option of one field, spelled and explained as the field says."""
    p = f.param
    if not p.flags:
        if p.words:
            return click.argument(f.attr, nargs=-1, metavar=p.metavar)
        return click.argument(f.attr, required=p.required and not p.cli_optional, metavar=p.metavar)
    extra: dict[str, Any] = {}
    if f.kind == "boolean":
        extra["is_flag"] = True
    elif f.kind == "array":
        extra["multiple"] = True
    if f.default not in (None, False, ()) and not p.required:  # a default would satisfy click's required
        extra["default"] = f.default
    if p.show_default:
        extra["show_default"] = True
    if p.required:
        extra["required"] = True
    if p.metavar:
        extra["metavar"] = p.metavar
    kind = _click_type(f)
    if kind is not None:
        extra["type"] = kind
    return click.option(*p.flags, f.attr, help=p.help, **extra)


def own_first(cls: type) -> list[Field]:
    """The CLI's order: arguments, then a subclass's own options before those it inherits."""
    found = fields(cls, "cli")
    inherited = {f.name for base in cls.__mro__[1:] if dataclasses.is_dataclass(base)
                 for f in dataclasses.fields(base)}
    arguments = [f for f in found if not f.param.flags]
    options = [f for f in found if f.param.flags]
    return arguments + [f for f in options if f.attr not in inherited] + [f for f in options if f.attr in inherited]


def options(cls: type) -> Callable[[F], F]:
    """Decorate a click command with the parameters of request class `cls`."""
    def decorate(command: F) -> F:
        for f in reversed(own_first(cls)):
            command = parameter(f)(command)
        return command
    return decorate


def request(cls: type[R], given: dict[str, Any], **values: Any) -> R:
    """The request from a command's click values (an argument of words joined by spaces);
    `values` replace what the command read otherwise (stdin, a path from the current folder)."""
    found: dict[str, Any] = {}
    for f in fields(cls, "cli"):
        if f.attr in given:
            value = given[f.attr]
            found[f.attr] = " ".join(value) if f.param.words and isinstance(value, tuple) else value
    return cls(**{**found, **values})
