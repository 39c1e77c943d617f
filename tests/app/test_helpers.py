"""The app's helpers: one colour per value, figure builders' invariants, Compare's rows."""

from __future__ import annotations

import pandas as pd

from analysis.figures import style as figures
from analysis.figures.palette import model_colors
from analysis.methods.values import VALUES, plots
from analysis.methods.values.plots import VALUE_COLORS


def test_palette_covers_values_and_is_stable_per_model():
    """Every value has its own colour; a model keeps its colour whatever other models are shown."""
    assert set(VALUE_COLORS) == set(VALUES) and len(set(VALUE_COLORS.values())) == len(VALUES)
    assert model_colors(["b", "a"])["a"] == model_colors(["a", "b", "c"])["a"]


def test_circumplex_draws_sectors_and_items():
    """Items keep their coordinates and value colour; axes are equal; each value is labelled once."""
    layout = pd.DataFrame({"item_id": ["1", "2"], "value": ["Power", "Universalism"], "x": [0.0, 0.3], "y": [-1.0, 0.9]})
    fig = plots.circumplex(layout, None, {"1": "Likes to be in charge."})
    power = next(t for t in fig.data if t.name == "Power")
    assert list(power.y) == [-1.0] and power.marker.color == VALUE_COLORS["Power"]
    assert "Likes to be in charge." in power.hovertext[0]
    assert fig.layout.yaxis.scaleanchor == "x"
    assert sorted(a.text for a in fig.layout.annotations) == sorted(VALUES)


def test_difference_forest_whiskers_follow_the_ci():
    """The forest plot's asymmetric whiskers reach the CI bounds; rows without a CI have none."""
    diffs = pd.DataFrame({"method": ["V", "M"], "metric": ["x", "y"], "diff": [0.2, -0.1], "lo": [0.1, None], "hi": [0.5, None]})
    trace = figures.difference_forest(diffs, "a", "b").data[0]
    assert list(trace.error_x.array) == [0.3, 0.0] and list(trace.error_x.arrayminus) == [0.1, 0.0]


def test_difference_forest_names_a_method_once():
    """A headline's label already names its method ("Trust: sent − human ($)"): the row is not "Trust: Trust: …"."""
    diffs = pd.DataFrame({"method": ["Trust", "inventory"], "metric": ["Trust: sent − human ($)", "α, mean over domains"],
                          "diff": [1.0, 0.1], "lo": [None, None], "hi": [None, None]})
    assert list(figures.difference_forest(diffs, "a", "b").data[0].y) == ["Trust: sent − human ($)",
                                                                          "inventory: α, mean over domains"]


def test_the_apps_chance_draws_are_the_ones_the_demo_caches(monkeypatch):
    """app.data keeps its default without importing analysis.chance (a warm start stays light): the two must agree."""
    import importlib

    from analysis.chance import DEFAULT_SIMS

    monkeypatch.delenv("ROLESCOPE_CHANCE_SIMS", raising=False)
    import app.data

    assert importlib.reload(app.data).CHANCE_SIMS == DEFAULT_SIMS
    monkeypatch.setenv("ROLESCOPE_CHANCE_SIMS", "20")
    importlib.reload(app.data)  # back to what the other app tests set


def test_difference_forest_leaves_out_an_undefined_difference():
    """A row whose A − B is undefined (NaN) is not plotted: no marker at a number the table calls undefined."""
    diffs = pd.DataFrame({"method": ["V", "M"], "metric": ["x", "y"], "diff": [float("nan"), -0.1],
                          "lo": [None, None], "hi": [None, None]})
    trace = figures.difference_forest(diffs, "a", "b").data[0]
    assert list(trace.y) == ["M: y"] and list(trace.x) == [-0.1]


def test_compare_keeps_a_difference_the_comparison_calls_undefined(monkeypatch):
    """Compare's headline row takes A and B from the reports, but A − B from the method's comparison when that says
    the two are on no common footing (issue 43, item 9: Cardinal score read 0.168 beside 'A − B undefined')."""
    import math
    from types import SimpleNamespace

    from analysis.methods.base import Difference, Headline
    from app import data

    method = SimpleNamespace(name="values", label="Values", headlines=(Headline("values_cardinal", "Values: Cardinal score ↑"),))
    reports = {"A": {"models": {"a": {"headlines": {"values_cardinal": {"value": 0.5, "reason": None}}}}},
               "B": {"models": {"b": {"headlines": {"values_cardinal": {"value": 0.332, "reason": None}}}}}}
    monkeypatch.setattr(data, "present_methods", lambda ref: [method])
    monkeypatch.setattr(data, "report", lambda ref, name: reports[ref])
    undefined = Difference("Values", "Cardinal score", 0.5, 0.332, float("nan"),
                           note="A − B undefined: A is scored over 12 leaderboard columns, B over 9", key="values_cardinal")
    (row,) = data._headlines_first("A", "a", "B", "b", [undefined])
    assert (row.a, row.b) == (0.5, 0.332) and math.isnan(row.diff) and "A − B undefined" in row.note
    from analysis.methods.base import differences_frame

    frame = differences_frame([row])
    assert frame["diff"].isna().all()
    assert len(figures.difference_forest(frame, "a", "b").data[0].x) == 0


def test_an_undefined_difference_has_no_ci():
    """A Difference with an undefined side or an undefined A − B carries neither A − B nor a CI."""
    import math

    from analysis.methods.base import Difference

    d = Difference("M", "x", float("nan"), 0.3, 0.2, 0.1, 0.3)
    assert math.isnan(d.diff) and math.isnan(d.lo) and math.isnan(d.hi)
    assert math.isnan(Difference("M", "x", 0.5, 0.3, float("nan"), 0.1, 0.3).lo)


def test_a_keyed_comparison_row_is_the_headline_itself(fixture_store):
    """Compare takes a headline's A − B, CI and note from the comparison row keyed to it (``Difference.key``), never by
    matching labels or numbers: a method keys a row only when it is the headline on the units both reports average.
    On the fixture store (both models answered the same units) every method with a paired headline keys one, with
    the reports' very numbers; on units only one model answered, the row is not keyed."""
    import math

    from analysis import methods
    from analysis.methods.base import Side, headline
    from analysis.runs.store import Store

    a, b = "smollm2-greedy", "smollm2-t07"
    keyed = set()
    with Store(fixture_store, read_only=True) as store:
        for method in methods.all_methods():
            report = method.cached_report(store, n_boot=50)
            if a not in report["models"] or b not in report["models"]:
                continue
            for d in method.compare(Side(store, a, None, report), Side(store, b, None, report), n_boot=50):
                if d.key is None:
                    continue
                assert d.key in {h.key for h in method.headlines}, (method.name, d)
                va, vb = headline(report, a, d.key)["value"], headline(report, b, d.key)["value"]
                # (a report keeps 6 decimals of the per-unit numbers it averages: MBTI's per-subject consistency)
                assert math.isclose(d.a, va, abs_tol=1e-6) and math.isclose(d.b, vb, abs_tol=1e-6), (d, va, vb)
                keyed.add(d.key)
    assert {"values_cardinal", "values_rank_order", "mbti_consistency", "personagym_score", "trust_spearman",
            "trust_vs_human", "inventory_shaping", "inventory_alpha"} <= keyed


def test_a_comparison_on_fewer_units_than_a_headline_is_not_keyed_to_it():
    """Values: B answered one context fewer, so the rank-order row over the shared contexts is another number than A's
    headline: it stays a row of its own."""
    import numpy as np
    import pandas as pd

    from analysis.methods.values.compare import compare_values

    rng = np.random.default_rng(0)
    rows = [{"context": c, "persona_id": p, "persona": f"p{p}", "value": v, "score": rng.normal(), "ipsatised": 0.0,
             "instrument": "pvq", "model": "m"} for c in ("c1", "c2", "c3") for p in range(8) for v in ("Power", "Tradition", "Hedonism")]
    full = pd.DataFrame(rows)
    fewer = full[full["context"] != "c3"]
    rows_full = compare_values({}, {}, full, full.assign(score=full["score"] + rng.normal(size=len(full))), n_boot=20)
    rows_fewer = compare_values({}, {}, full, fewer, n_boot=20)
    assert [d.key for d in rows_full if d.metric == "Rank-order stability"] == ["values_rank_order"]
    assert [d.key for d in rows_fewer if d.metric == "Rank-order stability"] == [None]
