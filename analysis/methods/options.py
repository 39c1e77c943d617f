"""A method's run options as one pydantic model (``Method.options``); the ``run METHOD`` flags are derived from it.

Each field is one option: its default, its bounds (pydantic constraints), its help (the field's description) and,
where the command line needs more than the type says, a ``Cli`` entry (``option(...)``): the flag's own name, an
argparse type (``parse``) that checks and converts a string the way the other commands do (``analysis.cli_types``), a metavar,
or a negated switch. ``add_flags(parser, Options)`` adds the flags; ``from_args(Options, args)`` validates the parsed
values into the model, which the plan builder reads, from the command line and the Run page alike.

How a field becomes a flag: ``--<name with dashes>``; ``bool`` is a switch (``store_true``; a field defaulting to
True is ``--no-<name>``); a ``Literal`` gives the choices; a ``list`` is a comma list (``csv_list``); ``int`` and
``float`` convert; anything else is a string.
"""

from __future__ import annotations

import argparse
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from analysis.cli_types import csv_list
from analysis.errors import InputError

M = TypeVar("M", bound=BaseModel)


class Options(BaseModel):
    """Base of every method's options: unknown fields are an error (a typo must not be ignored)."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Cli:
    """How a field appears on the command line, where its type alone does not say."""

    flag: str | None = None
    parse: Callable[[str], Any] | None = None  # argparse ``type``
    metavar: str | None = None
    hidden: bool = False  # no flag (set by the Run page or another option only)


def option(default: Any = None, help: str | None = None, *, factory: Callable[[], Any] | None = None,
           flag: str | None = None, parse: Callable[[str], Any] | None = None, metavar: str | None = None,
           hidden: bool = False, **constraints: Any) -> Any:
    """A field of a method's ``Options``: its default (or ``factory``), help, command-line appearance (``Cli``) and
    pydantic ``constraints`` (``ge``, ``le`` ...)."""
    extra = {"cli": Cli(flag, parse, metavar, hidden)}
    if factory is not None:
        return Field(default_factory=factory, description=help, json_schema_extra=extra, **constraints)
    return Field(default, description=help, json_schema_extra=extra, **constraints)


def _cli(field: Any) -> Cli:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    return extra.get("cli") or Cli()


def _unwrap(annotation: Any) -> Any:
    """``X | None`` -> X."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def choices(options: type[BaseModel], name: str) -> list[Any]:
    """The values a ``Literal`` field of ``options`` allows (for a form's select box)."""
    return list(typing.get_args(_unwrap(options.model_fields[name].annotation)))


def flag_of(name: str, field: Any) -> str:
    """The command-line flag of field ``name``."""
    cli = _cli(field)
    if cli.flag:
        return cli.flag
    dashed = name.replace("_", "-")
    return f"--no-{dashed}" if _unwrap(field.annotation) is bool and field.default is True else f"--{dashed}"


def add_flags(parser: argparse.ArgumentParser, options: type[BaseModel]) -> None:
    """Add one flag per field of ``options`` to ``parser`` (see the module docstring)."""
    for name, field in options.model_fields.items():
        cli = _cli(field)
        if cli.hidden:
            continue
        kind = _unwrap(field.annotation)
        default = field.get_default(call_default_factory=True)
        kwargs: dict[str, Any] = {"dest": name, "help": field.description, "default": default}
        if kind is bool:
            kwargs["action"] = "store_false" if default is True else "store_true"
        else:
            if typing.get_origin(kind) is Literal:
                kwargs["choices"] = list(typing.get_args(kind))
            converter = cli.parse or (csv_list if typing.get_origin(kind) is list else
                                     kind if kind in (int, float) else None)
            if converter is not None:
                kwargs["type"] = converter
            if cli.metavar:
                kwargs["metavar"] = cli.metavar
        parser.add_argument(flag_of(name, field), **kwargs)


def from_args(options: type[M], args: argparse.Namespace) -> M:
    """The parsed flags as ``options`` (fields the namespace lacks keep their defaults). A value out of bounds is an
    ``InputError`` naming the flag."""
    given = {name: getattr(args, name) for name in options.model_fields if hasattr(args, name)}
    return validate(options, given)


def validate(options: type[M], values: dict[str, Any]) -> M:
    """``options.model_validate(values)``, with a failure as one ``InputError`` line naming the flag and the reason."""
    try:
        return options.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else ""
        field = options.model_fields.get(name)
        where = flag_of(name, field) if field is not None else name or "options"
        raise InputError(f"{where}: {error['msg']}") from None
