"""Small defects a researcher's tour of the dashboard found (issue 60, item 6), each pinned by a test."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from app.methods.mbti.data import natural_key
from app.samples import is_set, parsed


@pytest.mark.parametrize("ids, ordered", [
    (["1", "10", "11", "2", "20", "3"], ["1", "2", "3", "10", "11", "20"]),
    (["E10", "E2", "I1", "E1"], ["E1", "E2", "E10", "I1"]),
    (["b", "10", "a", "9"], ["9", "10", "a", "b"]),
])
def test_statement_ids_sort_as_numbers(ids, ordered):
    assert sorted(ids, key=natural_key) == ordered


def test_mbti_answers_per_statement_in_natural_order(app_on_fixture):
    """MBTI's "Answers per statement" table listed statements as text (1, 10, 11 … 2, 20)."""
    at = app_on_fixture("mbti")
    assert not at.exception
    tables = [f.value for f in at.dataframe if "statement_id" in f.value.columns and "mode_count" in f.value.columns]
    assert tables, "the answers-per-statement table is on the page"
    ids = tables[0]["statement_id"].astype(str).tolist()
    assert len(ids) >= 12 and ids == sorted(ids, key=natural_key) and ids != sorted(ids)


def test_a_missing_value_is_left_out_of_a_samples_json_not_printed_as_na():
    """A sample's parsed fields printed "<NA>" for pandas' NA."""
    row = pd.Series({"score": pd.NA, "letter": "B", "option": None, "weight": np.nan, "valid": 1}, dtype=object)
    shown = parsed(row)
    assert "<NA>" not in str(shown) and all(is_set(v) for v in shown.values())
    assert not is_set(pd.NA) and not is_set(np.nan) and not is_set(None) and not is_set(pd.NaT) and is_set(0)


def test_cross_method_names_no_threshold_when_shuffles_gave_none():
    """Cross-method printed "|r| must exceed — (0 shuffles)"."""
    from app.methods.cross_method.data import family_caption

    none = family_caption({"size": 12, "n_sims": 0, "band": None})
    assert "—" not in none and "0 shuffles" not in none and "no threshold" in none
    assert "no cell" in family_caption({"size": 0, "n_sims": 0, "band": None})
    assert family_caption({"size": 12, "n_sims": 200, "band": 0.4123}).endswith("must exceed 0.41 (200 shuffles).")


def test_compare_draws_no_empty_forest(app_on_fixture, monkeypatch):
    """Compare's pair drew an empty chart from −1 to 1 when no A − B was defined: now a line says so instead."""
    from app import data

    real = data.compare

    def undefined(*args):
        frame = real(*args)
        return frame.assign(diff=np.nan, lo=np.nan, hi=np.nan)

    monkeypatch.setattr(data, "compare", undefined)
    at = app_on_fixture("compare")
    assert not at.exception
    assert any("nothing to plot" in c.value for c in at.caption)
    assert not any("forest" in str(c.proto.id) or "forest" in str(getattr(c, "key", "")) for c in at.get("plotly_chart"))


@pytest.mark.parametrize("page", ["structure", "inventory"])
def test_a_link_to_a_model_the_page_lacks_says_so(app_on_fixture, page):
    """Issue 60: `/structure?model=gpt-4` silently showed another model. Now one line names the link's model and the
    one shown instead; a link naming a model the page has shows no such line."""
    at = app_on_fixture(page, model="gpt-4-nonexistent")
    assert not at.exception
    said = [c.value for c in at.caption if "Not here" in c.value]
    assert len(said) == 1 and "'gpt-4-nonexistent'" in said[0] and "showing" in said[0], said
    assert said[0].startswith(":orange[**Not here**]: "), said  # the word first, in colour; no "⚠" before it
    shown = at.selectbox(key="model").value
    assert shown in said[0]
    at = app_on_fixture(page, model=shown)
    assert not [c.value for c in at.caption if "Not here" in c.value]


EMOJI_MARKS = ("✅", "⚠️", "📥", "🛑", "❌")


def test_headline_cards_carry_their_chance_verdict_in_words(app_on_fixture):
    """Issue 60: a small run's α read 1.000 in large type with only a warning below; now each defined card with a
    verdict carries it as words and a colour ("at chance", "beyond chance"), no emoji."""
    from app.ui import CARD_VERDICTS

    at = app_on_fixture("inventory")
    assert not at.exception
    deltas = [m.proto.delta for m in at.metric if m.proto.delta]
    words = {text for text, _ in CARD_VERDICTS.values()}
    assert deltas and set(deltas) <= words, deltas
    assert not any(e in d for d in deltas for e in EMOJI_MARKS)


def test_the_run_plan_marks_read_without_emoji(app_on_fixture):
    """The Run page's "This run can show" line: each analysis "ok" or "cannot show (why)" in words."""
    at = app_on_fixture("run")
    assert not at.exception
    line = next(m.value for m in at.markdown if m.value.startswith("**This run"))
    assert ":green[ok]" in line or ":orange[cannot show]" in line
    assert not any(e in line for e in EMOJI_MARKS)


def test_a_running_runs_tab_title_says_running_in_words():
    """The browser tab of a run in progress read "⏳ 3/10 · Run · RoleScope": without an emoji font, a box and two
    numbers. Now it says "Running 3/10"."""
    from analysis.runs.outcome import progress_title

    assert progress_title(3, 10) == "Running 3/10" and progress_title(0, 0) == "Running 0/…"
    assert not any(e in progress_title(3, 10) for e in (*EMOJI_MARKS, "⏳"))
