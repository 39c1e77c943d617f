"""Click-to-samples: a selection event -> its unit -> the unit's stored samples (pure), and each result page's panel
under a clicked chart (AppTest cannot click a plotly point: the test sends the selection the browser would send)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest
from streamlit.proto.WidgetStates_pb2 import WidgetState

from analysis.runs.store import Store
from app import samples
from tests.methods.mbti.fixture import N_TESTINGS
from tests.methods.personagym.fixture import PG_PERSONAS
from tests.methods.values.fixture import DRILL_RUN, N_PERSONAS


def event(*customdata: list[Any], curve: int = 3) -> dict[str, Any]:
    """A selection event as ``st.plotly_chart(on_select="rerun")`` returns it for clicked points."""
    points = [{"curve_number": curve, "point_number": k, "point_index": k, "x": 0.1 * k, "y": -0.2,
               "customdata": list(cd), "hovertext": "<b>Item</b>", "legendgroup": ""} for k, cd in enumerate(customdata)]
    return {"selection": {"points": points, "point_indices": [p["point_index"] for p in points], "box": [], "lasso": []}}


def click(at: Any, key: str, *customdata: list[Any]) -> Any:
    """Rerun ``at`` as if the chart ``key`` had these points clicked (the widget state the frontend sends)."""
    charts = [c for c in at.get("plotly_chart") if c.key == key]
    assert charts, f"no selectable chart {key!r} on the page"
    states = at._tree.get_widget_states()
    states.widgets.append(WidgetState(id=charts[0].proto.id, string_value=json.dumps(event(*customdata))))
    return at._run(states)


def captions(at: Any) -> list[str]:
    return [c.value for c in at.caption]


def markdown(at: Any) -> list[str]:
    return [m.value for m in at.markdown]


# -- pure: event -> unit -> samples ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def values_answers(fixture_store) -> pd.DataFrame:
    with Store(fixture_store, read_only=True) as store:
        return store.table("values_answers")


def test_units_of_a_selection_keep_order_and_skip_points_without_customdata():
    payload = event(["12"], ["3"], ["12"])
    payload["selection"]["points"].append({"curve_number": 11, "point_index": 0, "x": 0.0, "y": 0.0})  # a centroid
    assert samples.units(payload, ("item_id",)) == [{"item_id": "12"}, {"item_id": "3"}]
    assert samples.units({"selection": {"points": [{"customdata": 7}]}}, ("persona_id",)) == [{"persona_id": 7}]
    assert samples.units(None, ("item_id",)) == [] and samples.units({"selection": {"points": []}}, ("x",)) == []
    assert samples.units(event(["Ada", "Expected Action"]), ("persona", "task")) == [{"persona": "Ada", "task": "Expected Action"}]


def test_selected_item_gives_its_answers_across_personas(values_answers):
    """An item clicked on the circumplex: its answers of every persona in that run and context, nothing else."""
    here = values_answers[(values_answers["run_id"] == DRILL_RUN) & (values_answers["context"] == "no_conv")]
    rows = samples.selected_samples(event(["12"]), here, ("item_id",))
    assert len(rows) == N_PERSONAS and set(rows["item_id"].astype(str)) == {"12"}
    assert sorted(rows["persona_id"]) == list(range(N_PERSONAS))
    assert samples.selected_samples(event(), here, ("item_id",)).empty


def test_numbers_match_whatever_json_made_of_them(values_answers):
    """Persona 3 as 3, 3.0 or '3' (customdata went through JSON) picks the same rows; persona 30 is not persona 3."""
    here = values_answers[values_answers["run_id"] == DRILL_RUN]
    picked = [samples.rows_of(here, {"persona_id": v, "context": "chess"}) for v in (3, 3.0, "3")]
    assert len(picked[0]) == 40 and all(p.index.equals(picked[0].index) for p in picked)
    assert samples.rows_of(here, {"persona_id": 30}).empty
    assert samples.rows_of(here, {"no_such_column": 1}).empty


def test_invalid_reason_and_labels(values_answers):
    bad = values_answers[values_answers["valid"] == 0].iloc[0]
    good = values_answers[values_answers["valid"] == 1].iloc[0]
    assert samples.invalid_reason(bad) == "no option letter in the top logprobs" and samples.invalid_reason(good) is None
    assert samples.parsed(good)["letter"] == "B" and "letter" not in samples.parsed(bad)
    labels = samples.sample_labels(values_answers.loc[[bad.name, good.name]], ("persona", "context"))
    assert labels[bad.name].endswith(" · invalid") and labels[good.name] == f"persona {good['persona']} · context {good['context']}"
    assert samples.data_link("values_answers", values_answers.loc[[good.name]], context="chess") == {
        "table": "values_answers", "f_context": "chess", "run": good["run_id"]}


# -- the pages ---------------------------------------------------------------------------------------
def test_structure_item_click_opens_its_answers(app_on_fixture):
    """Before a click a one-line hint; clicking item 1 on the circumplex lists its 12 answers in no_conv and opens the
    first persona's: the prompt messages, the raw reply and the parsed answer; the panel stays on a later rerun."""
    at = app_on_fixture("structure", model="smollm2-greedy", context="no_conv")
    assert not at.exception and samples.HINT in captions(at)
    at = click(at, "circumplex", ["1"])
    assert not at.exception and samples.HINT not in captions(at)
    title = next(m for m in markdown(at) if m.startswith("**Item 1 · '"))
    assert title.endswith(f" · {N_PERSONAS} samples**")
    table = at.dataframe[0].value
    assert len(table) == N_PERSONAS and set(table["score"].dropna()) <= set(range(1, 7))
    texts = [t.value for t in at.text]
    assert "You are Amara Okafor." in texts and "Item 1: how much is this person like you?" in texts and "B" in texts
    assert json.loads(at.json[0].value)["letter"] == "B"
    at.toggle(key="loadings").set_value(True).run()  # another widget reruns the page: the selection is kept
    assert not at.exception and any(m.startswith("**Item 1 · '") for m in markdown(at))


def test_stability_persona_click_opens_its_answers_per_context(app_on_fixture):
    """A persona's bar on the ipsative chart: its answers, one context at a time (40 items each); a point of the
    profiles chart: that persona's answers to that value's items in that context."""
    at = app_on_fixture("stability", model="smollm2-greedy")
    assert not at.exception and captions(at).count(samples.HINT) == 2
    at = click(at, "ipsative", [0])
    assert not at.exception and captions(at).count(samples.HINT) == 1
    names = [m for m in markdown(at) if m.endswith(" samples**")]
    assert names == [f"**Amara Okafor · {3 * 40} samples**"]
    table = at.dataframe[-1].value
    assert len(table) == 40 and set(table["context_key"]) == {"chess"}  # the page's first context
    assert "You are Amara Okafor." not in [t.value for t in at.text]  # no stored call in chess
    at.button_group(key="ipsative-context_key-Amara Okafor").set_value("no_conv").run()
    table = at.dataframe[-1].value
    assert not at.exception and len(table) == 40 and set(table["context_key"]) == {"no_conv"}
    assert "You are Amara Okafor." in [t.value for t in at.text]  # the stored call of persona 0 in no_conv
    at = click(at, "profiles", [0, "chess", "Power"])
    assert not at.exception
    title = next(m for m in markdown(at) if m.startswith("**Amara Okafor · Power · chess · "))
    table = next(d.value for d in at.dataframe if "value" in d.value and set(d.value["value"]) == {"Power"})
    assert title == f"**Amara Okafor · Power · chess · {len(table)} samples**" and set(table["context_key"]) == {"chess"}


def test_mbti_statement_click_opens_its_answers_for_the_subject(app_on_fixture, fixture_store):
    """A statement's bar: its answers over the testings for the chosen subject and option order, invalid ones flagged."""
    from analysis.methods.mbti.answers import selected_answers

    with Store(fixture_store, read_only=True) as store:
        answers = selected_answers(store, "smollm2-t07").reset_index(drop=True)  # as app.data.mbti_answers reads them
    mine = answers[(answers["subject"] == "Men") & (answers["order_mode"] == "fixed")]
    bad = mine[mine["valid"] == 0].iloc[0]
    at = app_on_fixture("mbti", model="smollm2-t07", subject="Men", order="fixed")
    assert not at.exception and samples.HINT in captions(at)
    at = click(at, "dist", [bad["statement_id"]])
    assert not at.exception and samples.HINT not in captions(at)
    assert any(m.startswith(f"**Statement {bad['statement_id']} · 'Men ") and m.endswith(f" · {N_TESTINGS} samples**")
               for m in markdown(at))
    table = next(d.value for d in at.dataframe if "testing" in d.value)
    assert list(table["testing"]) == list(range(N_TESTINGS))
    assert list(table["valid"]) == list(mine[mine["statement_id"] == bad["statement_id"]].sort_values("testing")["valid"])
    picker = next(s for s in at.selectbox if s.key.startswith("dist-sample-"))
    assert picker.options[int(bad["testing"])].endswith(" · invalid")
    picker.set_value(bad.name).run()
    assert "Invalid: no option named" in [e.value for e in at.error] and "?" in [t.value for t in at.text]


def test_personagym_click_opens_questions_replies_and_grades(app_on_fixture):
    """A persona × task bar: that persona's questions of the task with the agent's reply and the judge's grade and
    rationale; the click also picks the persona for the per-persona section."""
    from analysis.methods.personagym import TASKS

    persona, task = PG_PERSONAS[1], TASKS[2]
    at = app_on_fixture("personagym", model="smollm2-greedy")
    assert not at.exception and samples.HINT in captions(at) and at.selectbox(key="persona").value == PG_PERSONAS[0]
    at = click(at, "persona_tasks", [persona, task])
    assert not at.exception and samples.HINT not in captions(at)
    assert f"**{persona} · {task} · 2 samples**" in markdown(at)
    across = [p for p in at.get("page_link") if "across models" in p.proto.label]  # issue 60: a point's persona
    assert len(across) == 1 and "samples" in across[0].proto.page                    # opens in the one-persona view
    table = next(d.value for d in at.dataframe if "grade_status" in d.value)
    assert list(table["q_index"]) == [0, 1] and set(table["evaluator"]) == {"embedded"}
    assert table["question"].iloc[0] == f"As Bo, what would you do about task {task.lower()} #0?"
    assert "**Judge embedded: " + str(int(table["score"].iloc[0])) + "**" in markdown(at)
    assert "Therefore, the final score is 3" in [t.value for t in at.text]
    assert "I would think it over (0)." in [t.value for t in at.text]  # the agent's reply (no stored call)
    assert at.selectbox(key="persona").value == persona
    at.selectbox(key="persona").set_value(PG_PERSONAS[2]).run()  # the kept click does not override a later choice
    assert not at.exception and at.selectbox(key="persona").value == PG_PERSONAS[2]
    assert f"**{persona} · {task} · 2 samples**" in markdown(at)


def _panel_of_sixty() -> None:
    import pandas as pd

    from app import samples

    rows = pd.DataFrame({"run_id": "r1", "item_id": "7", "persona_id": range(60), "valid": [int(i % 10 != 3) for i in range(60)],
                         "reason": [None if i % 10 != 3 else "no option letter" for i in range(60)], "raw": "B"})
    samples.panel(None, rows, "Item 7", key="k", columns=("persona_id", "valid", "raw"), labels=("persona_id",))  # type: ignore[arg-type]


def test_panel_caps_the_list_and_counts_every_sample():
    """60 samples: the title counts 60, the table lists the first 50, the caption says so and counts all 6 invalid."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_panel_of_sixty).run()
    assert not at.exception
    assert "**Item 7 · 60 samples**" in markdown(at)
    assert len(at.dataframe[0].value) == 50 and list(at.dataframe[0].value.columns) == ["persona_id", "valid", "raw"]
    assert "The first 50 of 60 samples · 6 invalid (the Data page has them all)." in captions(at)
    assert at.selectbox[0].options[0] == "persona 0" and at.selectbox[0].options[3] == "persona 3 · invalid"
