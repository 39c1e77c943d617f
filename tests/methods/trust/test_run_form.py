"""The trust game's Run page form: the plan it starts."""

from __future__ import annotations

from tests.app.run_form import OFFLINE, started_plan


def test_the_plan_holds_the_ticked_personas(app_on_fixture, tmp_path):
    """Ticked personas of the bank (in the URL) make the plan and their count is the Personas field's (disabled); the
    bank records them, as the Trust page reports."""
    from analysis.methods.trust.personas import generate_bank, select

    trust_ids = [p.id for p in select(generate_bank(250), "test")][2:5]
    at = app_on_fixture("run", method="trust", run_trust_pop_ids=",".join(trust_ids), run_trust_strategies="Ctx+Tr",
                        **OFFLINE)
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = at.number_input(key="run_trust_personas_ticked")
    assert (shown.label, shown.value, shown.disabled) == ("Personas", 3, True)
    trust_plan = started_plan(at, tmp_path)
    assert [p["id"] for p in trust_plan["personas"]] == trust_ids
    assert trust_plan["bank"]["n"] == 3 and trust_plan["bank"]["persona_ids"] == trust_ids  # what the Trust page reports
