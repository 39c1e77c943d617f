"""What a trust row from outside (a report file) must hold beyond its column types (``Table.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analysis.runs.row_checks import first_broken, flags, within


def _endowment(row: Mapping[str, Any]) -> float:
    return float(row["endowment"]) if row.get("endowment") is not None else float("inf")


def transfer_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """An amount sent within 0..the endowment; flags 0 or 1 (the source's own amount is kept as it was read)."""
    return first_broken(flags(row, "valid", "source_valid"), within(row, "endowment", 0, float("inf"), "amounts"),
                        within(row, "sent", 0, _endowment(row), "the endowment"))


def round_rules(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """A round numbered from 1; the amount sent and the forecast within 0..the endowment; what came back at most
    what the trustee received; flags 0 or 1."""
    return first_broken(flags(row, "valid", "forecast_valid"), within(row, "round", 1, float("inf"), "rounds"),
                        within(row, "sent", 0, _endowment(row), "the endowment"),
                        within(row, "forecast", 0, _endowment(row), "the endowment"),
                        within(row, "returned", 0, row.get("received") if row.get("received") is not None
                               else float("inf"), "what was received"))


def answer_flags(row: Mapping[str, Any], run: Mapping[str, Any]) -> tuple[str, str] | None:
    """``valid`` is 0 or 1."""
    return flags(row, "valid")
