"""The Leaderboard's results table for the paper (issue 60 item 4): built on request, its numbers those of
``analysis.results_table`` (which reads ``metrics --json``'s reports), downloadable as CSV, Markdown and LaTeX."""

from __future__ import annotations

import pandas as pd
import pytest


def test_the_results_table_section_builds_on_request(app_on_fixture):
    at = app_on_fixture("leaderboard")
    assert not at.exception
    assert not [f for f in at.dataframe if "headline" in f.value.columns]  # nothing built before it is asked for
    at.toggle(key="lb_table").set_value(True).run()
    assert not at.exception
    frame = next(f.value for f in at.dataframe if "headline" in f.value.columns)
    assert len(frame) and {"value", "ci_lo", "ci_hi", "n", "read_share", "chance", "runs"} <= set(frame.columns)
    undefined = frame[frame["value"].isna()]
    assert undefined["reason"].notna().all()  # undefined has its reason, never a 0
    labels = [b.proto.label for b in at.get("download_button")]
    assert {"Download as CSV", "Download as Markdown", "Download as LaTeX"} <= set(labels)


def test_the_page_shows_the_tables_numbers(app_on_fixture, fixture_store):
    """Each value on the page is the library's for the same options."""
    from analysis.results_table import results_table
    from analysis.runs.store import Store
    from app import data

    at = app_on_fixture("leaderboard", lb_table="1")
    assert not at.exception
    shown = next(f.value for f in at.dataframe if "headline" in f.value.columns)
    with Store(fixture_store, read_only=True) as store:
        expected = results_table(store, n_boot=data.N_BOOT, chance=data.CHANCE_SIMS).frame()
    merged = shown.merge(expected, on=["headline", "model"], suffixes=("", "_lib"))
    assert len(merged) == len(shown)
    both = merged["value"].notna()
    assert (merged["value_lib"].notna() == both).all()
    assert merged.loc[both, "value"].to_numpy() == pytest.approx(merged.loc[both, "value_lib"].to_numpy(), abs=1e-12)
    assert isinstance(shown, pd.DataFrame)
