"""PersonaGym's Run page form: the plan it starts."""

from __future__ import annotations

from tests.app.run_form import OFFLINE, started_plan


def test_the_plan_holds_the_ticked_personas_and_the_reference_defaults(app_on_fixture, tmp_path):
    """Ticked personas make the plan; its defaults are the reference's protocol, as on the command line; a rubrics
    folder typed into the form is opened."""
    from analysis.methods.personagym.data import load_personas

    pg_ids = [p.id for p in load_personas("all")][3:5]
    at = app_on_fixture("run", method="personagym", run_pg_pop_ids=",".join(pg_ids), **OFFLINE)
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = at.number_input(key="run_pg_personas_ticked")  # their count, not the first N's field
    assert (shown.label, shown.value, shown.disabled) == ("Personas", 2, True)
    plan = started_plan(at, tmp_path)
    assert [p["id"] for p in plan["personas"]] == pg_ids
    # the page's defaults are the reference's protocol, as on the command line
    assert plan["environments_per_persona"] is None and plan["answer_max_tokens"] == 3000
    assert plan["agent_params"] == {"temperature": 0.9, "top_p": 0.9} and plan["grade_without_examples"]
    at = app_on_fixture("run", method="personagym", run_pg_pop_ids=",".join(pg_ids), run_pg_envs="2",
                        **OFFLINE)
    at.text_input(key="run_pg_rubrics").set_value("/work/shared/anchors/personagym/rubrics").run()  # typed: a link
    assert not at.exception and not at.error, [e.value for e in at.error]  # may name only uploads and bundled data
    plan = started_plan(at, tmp_path)
    assert plan["environments_per_persona"] == 2 and plan["rubrics"]["Toxicity Control"]["source"].endswith("Toxicity.txt")
