"""AppTest: the dashboard opens and the overview lists the runs of the selected store."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from analysis.llm.specs import parse_model_spec
from analysis.runs.runner import create_run
from analysis.runs.store import Store
from analysis.values.method import build_values_plan

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_overview_lists_runs_of_user_store(tmp_path, monkeypatch):
    """A run created in the user store shows up in the overview table with its method and status."""
    db = tmp_path / "user.db"
    spec = parse_model_spec("embedded")
    with Store(db) as store:
        run_id = create_run(store, "values", spec, build_values_plan(spec, limit_personas=1, limit_items=2).model_dump(), "r-overview")
    monkeypatch.setenv("ROLESCOPE_STORE", str(db))
    import app.stores as stores

    monkeypatch.setattr(stores, "USER_STORE", db)
    monkeypatch.setattr(stores, "DEMO_STORE", tmp_path / "missing.db")
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    assert at.title[0].value == "RoleScope"
    table = at.dataframe[0].value
    assert list(table["run_id"]) == [run_id]
    assert table["method"].iloc[0] == "values"
    assert "near chance" in at.info[0].value
