"""AppTest: personas chosen, not counted — ticked ids in the URL, a persona file uploaded (refused as a whole with
every bad row named, nothing stored) or given by path, search and filters over the population."""

from __future__ import annotations

import json
import time

import pandas as pd

from analysis.runs.store import Store
from app.choose import filter_population
from app.markdown import plain
from tests.app.run_form import OFFLINE, started_plan

GOOD_CSV = b"name,description,gender\nAda,A retired engineer who bakes bread.,F\nBo,A young farmer.,M\nCy,A nurse.,female\n"
BAD_CSV = b"name,description,gender\nAda,A retired engineer.,F\nBo,A young farmer.,x\nCy,A nurse.,M\nDi,,\n"


def _calls(at) -> int:
    return int({m.label: m.value for m in at.metric}["LLM calls"].replace(",", ""))


def _uploads(tmp_path):
    folder = tmp_path / "uploads"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_ticked_personas_from_the_url_make_the_plan(app_on_fixture, tmp_path):
    """?run_pop_ids=0,3,5: those three personas (10 items each), their count shown in a disabled Personas field while
    the user's own N (4) waits for the untick, the ids kept in the URL."""
    at = app_on_fixture("run", run_pop_ids="0,3,5", run_personas="4", run_contexts="no_conv", **OFFLINE)
    assert not at.exception
    assert _calls(at) == 3 * 10
    shown = at.number_input(key="run_personas_ticked")
    assert (shown.label, shown.value, shown.disabled) == ("Personas", 3, True)
    assert at.query_params["run_pop_ids"] in ("0,3,5", ["0,3,5"])
    at.button(key="run_pop_none").click().run()
    assert _calls(at) == 4 * 10 and not at.number_input(key="run_personas").disabled  # back to the user's first N
    assert at.number_input(key="run_personas").value == 4
    at = app_on_fixture("run", run_pop_ids="0,3,5", run_personas="4", **OFFLINE)
    assert [p["id"] for p in started_plan(at, tmp_path)["personas"]] == [0, 3, 5]


def test_the_form_is_restored_from_the_url(app_on_fixture):
    at = app_on_fixture("run", method="values", run_personas="4", run_items="5", run_contexts=["no_conv", "topics_a"],
                        run_mode="text", run_instrument="pvq")
    assert not at.exception
    assert at.number_input(key="run_personas").value == 4 and at.selectbox(key="run_mode").value == "text"
    assert at.multiselect(key="run_contexts").value == ["no_conv", "topics_a"]
    shows = next(m.value for m in at.markdown if m.value.startswith("**This run can show**"))
    assert shows.startswith("**This run can show** (4 personas × 2 contexts × 5 items)")


def test_a_csv_upload_with_bad_rows_is_refused_whole(app_on_fixture, tmp_path):
    """Two bad rows (a gender 'x', an empty description and gender): one error naming both rows, no file kept, no plan,
    no run in the store."""
    at = app_on_fixture("run", run_pop_src="upload")
    at.file_uploader(key="run_pop_upload").set_value(("people.csv", BAD_CSV, "text/csv")).run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1, errors
    assert errors[0].startswith("people.csv: 2 bad rows; nothing was stored or run")
    assert "row 3 field 'gender'" in errors[0] and "row 5 field" in errors[0] and "row 2" not in errors[0]
    assert _uploads(tmp_path) == []
    assert "LLM calls" not in {m.label for m in at.metric} and "run_start" not in [b.key for b in at.button]
    with Store(tmp_path / "user.db") as store:
        assert store.runs().empty


def test_an_upload_with_an_empty_description_is_refused_whole(app_on_fixture, tmp_path):
    """A row with a name and a gender but no description (or only spaces) is a bad row like any other: one error naming
    it, no file kept, no plan."""
    empty = b"name,description,gender\nAda,A retired engineer.,F\nBo,,M\nCy,   ,F\n"
    at = app_on_fixture("run", run_pop_src="upload")
    at.file_uploader(key="run_pop_upload").set_value(("people.csv", empty, "text/csv")).run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("people.csv: 2 bad rows; nothing was stored or run"), errors
    assert "row 3 field 'description'" in errors[0] and "row 4 field 'description'" in errors[0]
    assert _uploads(tmp_path) == [] and "LLM calls" not in {m.label for m in at.metric}


def test_a_valid_upload_is_kept_and_its_personas_asked(app_on_fixture, tmp_path):
    at = app_on_fixture("run", run_pop_src="upload", run_contexts="no_conv")
    at.file_uploader(key="run_pop_upload").set_value(("people.csv", GOOD_CSV, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    kept = _uploads(tmp_path)
    assert len(kept) == 1 and kept[0].startswith("personas-") and kept[0].endswith(".csv")
    assert at.query_params["run_pop_file"] in (kept[0], [kept[0]])
    at.number_input(key="run_personas").set_value(3).run()
    assert _calls(at) == 3 * 10
    at.button(key="run_start").click().run()  # the embedded model: only the stored plan is checked here
    run_id = at.session_state["run_job"]
    with Store(tmp_path / "user.db", read_only=True) as store:
        plan = json.loads(store.frame("SELECT plan FROM runs WHERE run_id = ?", [run_id])["plan"].iloc[0])
    assert [p["name"] for p in plan["personas"]] == ["Ada", "Bo", "Cy"]
    assert [p["gender"] for p in plan["personas"]] == ["female", "male", "female"]
    from app.jobs import registry

    job = registry().get(run_id)
    job.cancel.set()
    deadline = time.monotonic() + 120
    while job.running and time.monotonic() < deadline:  # the next form's Start waits for no running job
        time.sleep(0.05)


def test_a_bad_path_gets_one_clear_line(app_on_fixture, tmp_path):
    """Typed paths (a link may name only uploads and bundled data: tests/app/test_link_paths.py)."""
    bad = tmp_path / "people.csv"
    bad.write_bytes(BAD_CSV)
    at = app_on_fixture("run", run_pop_src="path")
    at.text_input(key="run_pop_path").set_value(str(bad)).run()
    assert [e.value.split(":")[0] for e in at.error] == [plain(str(bad))]  # the file's text is escaped (ui.plain)
    at.text_input(key="run_pop_path").set_value(str(tmp_path / "missing.json")).run()
    assert any("file not found" in e.value for e in at.error) and not at.exception
    at = app_on_fixture("run")
    at.text_input(key="run_instrument").set_value(str(tmp_path / "no-such-instrument")).run()
    assert len(at.error) == 1 and not at.exception, ([e.value for e in at.error], [m.value for m in at.markdown][:8])


def test_search_and_filters():
    population = pd.DataFrame({"id": ["0", "1", "2", "3"], "name": ["Ada", "Bo", "Cy", "Di"],
                               "description": ["Bakes bread", "Farms", "Nurse who bakes", "Pilot"],
                               "gender": ["female", "male", "female", "female"]})
    pick = lambda q, g: list(filter_population(population, q, ("name", "description"), {"gender": g})["id"])  # noqa: E731
    assert pick("bake", []) == ["0", "2"]
    assert pick("BAKE", ["male"]) == []
    assert pick("", ["female"]) == ["0", "2", "3"]
    assert pick("  ", []) == ["0", "1", "2", "3"]
