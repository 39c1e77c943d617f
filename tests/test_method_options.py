"""Every method's run options (``Method.options``): the ``run METHOD`` flags are derived from them, the parsed flags
validate back into the same model, and a value out of bounds is one line naming the flag."""

from __future__ import annotations

import argparse
import typing
from typing import Literal

import pytest

from analysis import methods
from analysis.__main__ import build_parser, main
from analysis.errors import InputError
from analysis.methods.options import Options, add_flags, flag_of, from_args, option, validate

NAMES = methods.names()


@pytest.mark.parametrize("name", NAMES)
def test_no_flag_means_the_options_defaults(name: str) -> None:
    options = methods.get(name).options
    assert options is not None
    args = build_parser().parse_args(["run", name, "--model", "embedded"])
    hidden = {n for n, f in options.model_fields.items() if f.json_schema_extra["cli"].hidden}  # the CLI's own flags
    assert from_args(options, args).model_dump(exclude=hidden) == options().model_dump(exclude=hidden)


@pytest.mark.parametrize("name", NAMES)
def test_every_option_is_a_flag_of_run(name: str) -> None:
    options = methods.get(name).options
    parser = argparse.ArgumentParser()
    add_flags(parser, options)
    flags = set(parser._option_string_actions)  # noqa: SLF001
    hidden = {n for n, f in options.model_fields.items() if f.json_schema_extra["cli"].hidden}
    assert {flag_of(n, f) for n, f in options.model_fields.items() if n not in hidden} <= flags


def _bounds(field) -> tuple[float | None, float | None]:
    lower = next((m.ge for m in field.metadata if hasattr(m, "ge")), None)
    upper = next((m.le for m in field.metadata if hasattr(m, "le")), None)
    return lower, upper


def _bad_values(field) -> list[str]:
    """Strings a numeric option must refuse: out of its bounds, not a whole number, not finite."""
    kind = next((t for t in (int, float) if t in (field.annotation, *typing.get_args(field.annotation))), None)
    if kind is None:
        return []
    lower, upper = _bounds(field)
    bad = ["1.5"] if kind is int else ["nan", "inf"]
    if lower is not None:
        bad.append(str(lower - 1) if kind is int else str(lower - 0.5))
    if upper is not None:
        bad.append(str(upper + 1) if kind is int else str(upper + 0.5))
    return bad


BAD = [(name, flag_of(field_name, field), value) for name in NAMES
       for field_name, field in methods.get(name).options.model_fields.items()
       if not field.json_schema_extra["cli"].hidden for value in _bad_values(field)]


@pytest.mark.parametrize("name, flag, value", BAD, ids=[f"{n} {f}={v}" for n, f, v in BAD])
def test_every_numeric_option_refuses_what_means_nothing(name: str, flag: str, value: str, tmp_path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Out of its bounds, not whole, not finite: one line naming the flag, exit 2, nothing stored (from the parser)."""
    store = tmp_path / "s.db"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", name, "--model", "x@http://127.0.0.1:9/v1", f"{flag}={value}", "--store", str(store)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"argument {flag}" in err and "Traceback" not in err, err
    assert not store.exists()


def test_the_derived_cases_cover_every_method() -> None:
    """Every method with a numeric option has cases (a campaign's numbers are its parts' options, ``--set``)."""
    numeric = {name for name in NAMES for field in methods.get(name).options.model_fields.values() if _bad_values(field)}
    assert {name for name, _, _ in BAD} == numeric and len(BAD) > 40 and numeric >= {n for n in NAMES if methods.get(n).parts is None}


class Demo(Options):
    count: int = option(2, "how many", ge=1)
    mode: Literal["a", "b"] = option("a", "which")
    names: list[str] = option(help="comma list", factory=lambda: ["x"])
    strict: bool = option(False, "a switch")
    lenient: bool = option(True, "on unless --no-lenient")
    secret: str | None = option(None, hidden=True)


def test_flags_follow_the_field_types() -> None:
    parser = argparse.ArgumentParser()
    add_flags(parser, Demo)
    args = parser.parse_args(["--count", "3", "--mode", "b", "--names", "p, q", "--strict", "--no-lenient"])
    assert from_args(Demo, args) == Demo(count=3, mode="b", names=["p", "q"], strict=True, lenient=False)
    assert "--secret" not in parser._option_string_actions  # noqa: SLF001
    with pytest.raises(SystemExit):
        parser.parse_args(["--mode", "c"])  # a Literal's choices


def test_out_of_bounds_is_one_line_naming_the_flag() -> None:
    with pytest.raises(InputError, match=r"^--count: Input should be greater than or equal to 1$"):
        validate(Demo, {"count": 0})
    with pytest.raises(InputError, match=r"^--no-lenient: "):
        validate(Demo, {"lenient": "maybe"})
    with pytest.raises(InputError, match="typo"):
        validate(Demo, {"typo": 1})  # unknown options are refused, never ignored
