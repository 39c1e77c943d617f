"""Behaviour on its own: what the personas sent, whatever became of their beliefs and forecasts.

Belief–behaviour consistency needs both sides to parse. Small models often play the game (an
amount is easy to extract) but do not fill in a belief ranking or a forecast, so these summaries
show the playing side alone, on the same rows the consistency metrics use:

- population: valid single-round transfers (one per persona, the latest run's; no conditioning):
  the distribution of amounts sent (``dollar_bins``: every $1 bin from $0 to the endowment) and, per
  attribute, the mean sent and count per level and η²_behaviour = SS_between / SS_total (NaN when every
  send is equal — no effect to measure); given the plan's levels, a persona whose value is not one of an
  attribute's levels is left out of that attribute only and counted, as in the consistency metrics;
- individual: per archetype and round, the mean amount sent over personas whose round was
  played with a valid amount;
- why replies failed: each table's invalid rows counted by reason, with quoted values folded
  (``'$16' is outside [0, 10]`` and ``'$52' is outside [0, 10]`` are one reason).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from analysis.stats import json_number
from analysis.methods.trust.consistency import behaviour_frame, outside_levels
from analysis.methods.trust.effects import eta_squared
from analysis.methods.trust.forecasting import latest_rounds
from analysis.methods.trust.personas import BY_KEY

def bin_label(lower: int, endowment: int | None = None) -> str:
    """'[7, 8)': the $1 bin from ``lower`` (in) to ``lower`` + 1 (out); the endowment's own bin, which holds the
    endowment alone (no valid amount is above it), is '10'."""
    return str(lower) if endowment is not None and lower == endowment else f"[{lower}, {lower + 1})"


def dollar_bins(amounts: Iterable[float], endowment: int | None = None, *, every: bool = False) -> dict[str, int]:
    """Amounts sent counted in $1 bins, each the half-open interval [d, d + 1) and labelled so (``bin_label``):
    $7.00 and $7.50 in '[7, 8)', $8.00 in '[8, 9)'. ``every``: each bin from $0 to the endowment in order, empty ones
    too; else the bins holding an amount, ascending."""
    lower = Counter(int(math.floor(float(a))) for a in amounts)
    keys = range(endowment + 1) if every and endowment is not None else sorted(lower)
    return {bin_label(d, endowment): int(lower.get(d, 0)) for d in keys}


_QUOTED = re.compile(r"'[^']*'")
_MORE = re.compile(r"\s*\(\+\d+ more\)$")


def population_behaviour(transfers: pd.DataFrame, levels: Mapping[str, Sequence[str]] | None = None) -> dict[str, Any]:
    """Amounts sent and, per attribute, mean send by level with η²_behaviour (see the module docstring).

    ``levels``: attribute -> its levels (the plan's attribute set and split). A persona whose value of such an
    attribute is not one of them is left out of that attribute's groups only and counted (``outside_levels``, as in
    ``consistency``); an attribute not in ``levels`` groups every value it has (personas without one left out)."""
    df = behaviour_frame(transfers) if len(transfers) else pd.DataFrame(columns=["sent", "attributes"])
    sent = df["sent"].to_numpy(float)
    attributes: dict[str, Any] = {}
    for key in sorted({k for a in df["attributes"] for k in (a or {})}):
        level_of = [(a or {}).get(key) for a in df["attributes"]]
        frame = pd.DataFrame({"level": level_of, "sent": sent}).dropna(subset=["level"])
        counted: dict[str, Any] = {}
        if levels is not None and key in levels:
            counted = outside_levels(level_of, tuple(levels[key]))
            frame = frame[frame["level"].isin(list(levels[key]))]
        by = frame.groupby("level")["sent"].agg(["mean", "count"])
        own = levels[key] if levels is not None and key in levels else BY_KEY[key].levels if key in BY_KEY else ()
        known = [lv for lv in own if lv in by.index]
        order = known + [lv for lv in by.index if lv not in known]  # another set's levels keep their own order
        attributes[key] = {"means": {lv: json_number(by.at[lv, "mean"]) for lv in order},
                           "n": {lv: int(by.at[lv, "count"]) for lv in order},
                           "eta2": json_number(eta_squared(frame["sent"], frame["level"]))} | counted
    endowments = pd.to_numeric(transfers["endowment"], errors="coerce").dropna().unique() \
        if "endowment" in transfers else ()
    endowment = int(endowments[0]) if len(endowments) == 1 else None
    return {"n_personas": int(sent.size), "mean_sent": json_number(sent.mean()) if sent.size else None,
            "sent_counts": dollar_bins(sent, endowment, every=True), "attributes": attributes}


def play_by_round(rounds: pd.DataFrame) -> dict[str, Any]:
    """``{str(k): {"mean_sent": [per round], "n": [per round], "n_personas": n}}`` over valid played rounds."""
    if rounds.empty:
        return {}
    df = latest_rounds(rounds)
    df = df[(df["valid"] == 1) & df["sent"].notna()]
    out: dict[str, Any] = {}
    for k in sorted({int(k) for k in rounds["archetype"].dropna()}):
        mine = df[df["archetype"] == k]
        horizon = int(rounds.loc[rounds["archetype"] == k, "round"].max())
        by = mine.groupby("round")["sent"].agg(["mean", "count"])
        out[str(k)] = {"mean_sent": [json_number(by.at[h, "mean"]) if h in by.index else None for h in range(1, horizon + 1)],
                       "n": [int(by.at[h, "count"]) if h in by.index else 0 for h in range(1, horizon + 1)],
                       "n_personas": int(mine["persona_id"].nunique())}
    return out


def reason_kind(reason: str) -> str:
    """A reason with quoted values folded to '…' and a trailing '(+n more)' dropped."""
    return _MORE.sub("", _QUOTED.sub("'…'", str(reason)))


def invalid_reasons(frames: dict[str, pd.DataFrame]) -> dict[str, dict[str, int]]:
    """Per table name, its invalid rows counted by ``reason_kind``, most frequent first."""
    out: dict[str, dict[str, int]] = {}
    for name, df in frames.items():
        bad = df[df["valid"] == 0]
        if len(bad):
            counts = bad["reason"].fillna("no reason recorded").map(reason_kind).value_counts()
            out[name] = {str(r): int(n) for r, n in counts.items()}
    return out
