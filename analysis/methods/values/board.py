"""The values leaderboard over every model of a store (``python -m analysis leaderboard``): its report's, kept in the
store as the report is."""

from __future__ import annotations

from typing import Any

from analysis.methods.base import invalid_share_gaps
from analysis.methods.values.method import METHOD
from analysis.methods.values.metrics import values_report
from analysis import report_cache
from analysis.runs.store import Store


def leaderboard(store: Store, *, n_boot: int = 1000, chance: int = 0) -> dict[str, Any]:
    """``Method.leaderboard``: the report's leaderboard (kept in the store, ``analysis.report_cache``), each row with its
    model's chance bands when asked for (``chance`` simulations per null): those of rank-order and ipsative stability,
    the numbers a row ranks by (its Stress and fit columns are means over contexts, which have no null of their own:
    each context's bands are in the full report, ``metrics values``)."""
    options = {"n_boot": n_boot, "chance": chance, "chance_scope": "stability"}
    report = report_cache.cached_report(store, "values", options,
                           lambda: values_report(store, n_boot=n_boot, chance=chance, chance_scope="stability"),
                           sources=METHOD.source_paths)
    board = dict(report["leaderboard"])
    board["rows"] = [row | ({"chance": report["models"][row["model"]].get("chance")} if chance else {})
                     for row in board["rows"]]
    board["invalid_gaps"] = invalid_share_gaps(report["models"])
    return board
