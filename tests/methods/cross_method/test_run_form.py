"""The cross-method Run form: each part method draws its own campaign options (its view's ``campaign_form``), and
what it chose reaches that part's plan; every option a form returns is one of its method's ``Options``."""

from __future__ import annotations

from analysis import methods
from app.methods import views
from tests.app.run_form import OFFLINE, started_plan


def test_each_part_method_sets_its_own_options(app_on_fixture, tmp_path) -> None:
    at = app_on_fixture("run", method="cross_method", run_xm_n="5", **OFFLINE)
    assert not at.exception
    at.multiselect(key="run_xm_methods").set_value(["values", "inventory", "trust"]).run()
    at.selectbox(key="run_xm_values_mode").set_value("text").run()
    at.number_input(key="run_xm_values_items").set_value(5).run()
    at.number_input(key="run_xm_inventory_items").set_value(7).run()
    at.number_input(key="run_xm_trust_rounds").set_value(2).run()
    assert not at.exception and not [n for n in at.number_input if n.key == "run_xm_personagym_questions"]
    plan = started_plan(at, tmp_path)
    parts = {p["method"]: p for p in plan["parts"]}
    assert set(parts) == {"values", "inventory", "trust"}
    assert parts["values"]["settings"] == {"answer_mode": "text", "limit_items": "5"}  # as --set gives them
    assert parts["inventory"]["settings"]["limit_items"] == "7" and parts["inventory"]["settings"]["order"] == "ascending"
    assert parts["trust"]["settings"] == {"rounds": "2"}
    assert len(parts["values"]["plan"]["instrument"]["items"]) == 5


def test_campaign_forms_belong_to_methods_that_take_shared_personas() -> None:
    """A view with a campaign form is a method whose runs a campaign can make (``Method.persona_plan``)."""
    with_form = {v.name for v in views() if v.campaign_form is not None}
    assert with_form == {m.name for m in methods.all_methods() if m.persona_plan is not None}
