"""The trust-game replies as samples (``analysis.samples``): beliefs, one-shot transfers, up-front forecasts, and each
repeated-game round's decision and forecast."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from analysis.samples import build, concat, is_one


def _money(column: str):
    return lambda r: pd.to_numeric(r[column], errors="coerce").map(lambda v: f"${v:g}" if pd.notna(v) else None)


def _endowment(r: pd.DataFrame) -> pd.Series:
    return "$" + r["endowment"].astype(str)


def _transfer_context(r: pd.DataFrame) -> pd.Series:
    """"$10 · none", and for imported answers the source's condition too ("$10 · none · COT"): the same persona index
    under two conditions is another question."""
    base = _endowment(r) + " · " + r["conditioning"].fillna("none").astype(str)
    if "condition" not in r:
        return base
    return base + r["condition"].map(lambda c: f" · {c}" if isinstance(c, str) and c else "")


def _reply(r: pd.DataFrame) -> pd.Series:
    """The raw reply; where an import stored the numbers only, the note saying so and how to import the text."""
    if "reply_note" not in r:
        return r["raw"]
    return r["raw"].where(r["raw"].notna(), r["reply_note"])


def _round_context(r: pd.DataFrame) -> pd.Series:
    return _endowment(r) + " · archetype " + r["archetype"].astype(str) + " · round " + r["round"].astype(str)


def samples(store, run_ids: Sequence[str] | None = None) -> pd.DataFrame:
    """Each reply of a trust run, by kind: belief (strategy × attribute), transfer (a persona's amount), forecast (a
    persona's planned sends per archetype), round (a decision) and round forecast. An imported transfer stored without its
text shows "text not bundled: <the command that imports it>" as its reply."""
    out = []
    beliefs = store.table("trust_beliefs", run_ids)
    if len(beliefs):
        out.append(build(
            beliefs, method="trust", kind="belief", table="trust_beliefs", key=("run_id", "strategy", "attribute"),
            persona_id=None, item="attribute", context=lambda r: _endowment(r) + " · " + r["strategy"].astype(str),
            parsed=lambda r: r["ranking"].fillna("").astype(str) + r["effect_size"].map(
                lambda e: f" · effect size {e:g}" if pd.notna(e) else ""),
            reply="raw", valid=is_one("valid"), scored=True, truncated=lambda r: r["finish_reason"] == "length"))
    transfers = store.table("trust_transfers", run_ids)
    if len(transfers):
        out.append(build(
            transfers, method="trust", kind="transfer", table="trust_transfers", key=("run_id", "persona_id"),
            persona_id="persona_id", item=lambda r: pd.Series("transfer", index=r.index),
            context=_transfer_context, parsed=_money("sent"), reply=_reply, valid=is_one("valid"), scored=True,
            truncated=lambda r: r["finish_reason"] == "length"))
    forecasts = store.table("trust_forecasts", run_ids)
    if len(forecasts):
        out.append(build(
            forecasts, method="trust", kind="forecast", table="trust_forecasts", key=("run_id", "persona_id", "archetype"),
            persona_id="persona_id", item=lambda r: "archetype " + r["archetype"].astype(str), context=_endowment,
            parsed="sends", reply="raw", valid=is_one("valid"), scored=True,
            truncated=lambda r: r["finish_reason"] == "length"))
    rounds = store.table("trust_rounds", run_ids)
    if len(rounds):
        key = ("run_id", "persona_id", "archetype", "round")
        out.append(build(
            rounds, method="trust", kind="round", table="trust_rounds", key=key, persona_id="persona_id",
            item=lambda r: pd.Series("decision", index=r.index), context=_round_context, parsed=_money("sent"),
            reply="raw", valid=is_one("valid"), scored=True, truncated=lambda r: r["finish_reason"] == "length"))
        asked = rounds[rounds["forecast_raw"].notna() | rounds["forecast_cache_key"].notna()]
        if len(asked):
            out.append(build(
                asked, method="trust", kind="round forecast", table="trust_rounds", key=key, persona_id="persona_id",
                item=lambda r: pd.Series("forecast", index=r.index), context=_round_context,
                parsed=_money("forecast"), reply="forecast_raw", valid=is_one("forecast_valid"), reason="forecast_reason",
                cache_key="forecast_cache_key", scored=True,
                truncated=lambda r: r["forecast_finish_reason"] == "length"))
    return concat(out)
