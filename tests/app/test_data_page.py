"""AppTest: the Data page's per-sample drill-down, runs, inputs and export; the upload importer's checks."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from analysis.errors import InputError
from analysis.runs.store import Store
from app.importing import MAX_FILE_MB, import_uploads, save_store_upload
from tests.methods.values.fixture import DRILL_RUN
from tests.methods.mbti.test_importer import three_subject_rows, write_csv


def _text(at) -> list[str]:
    return [t.value for t in at.text]


def test_sample_drill_down_shows_messages_reply_and_parsed_answer(app_on_fixture):
    """The first sample of the drill-down run shows every message sent, the raw reply and the parsed, valid answer."""
    at = app_on_fixture("data", run=DRILL_RUN)
    assert not at.exception
    assert at.selectbox(key="f_context").value == "no_conv" and at.selectbox(key="f_persona_id").value == 0
    texts = _text(at)
    assert "You are Amara Okafor." in texts  # the system message
    assert "Item 1: how much is this person like you?" in texts  # the question
    assert "B" in texts  # the raw reply
    parsed = json.loads(at.json[0].value)
    assert parsed["letter"] == "B" and parsed["valid"] == 1 and parsed["value"] == "Self-Direction"
    assert not at.error


def test_invalid_sample_is_flagged_with_its_reason(app_on_fixture, fixture_store):
    """An invalid answer opened from the URL shows its raw text and the reason it was not parsed."""
    with Store(fixture_store, read_only=True) as store:
        answers = store.table("values_answers")
    bad = answers[(answers["valid"] == 0) & (answers["run_id"] == "values-smollm2-t07")].iloc[0]
    at = app_on_fixture("data", run="values-smollm2-t07", f_persona_id=str(bad["persona_id"]), f_context=bad["context"],
                        sample=str(bad.name))
    assert not at.exception
    assert at.error[0].value == "Invalid: no option letter in the top logprobs"
    assert "I am not sure." in [t.value for t in at.text]


def test_runs_view_shows_spec_and_plan(app_on_fixture, fixture_store):
    """The runs view lists every run of the fixture store and shows the stored model spec (no key in it) of the
    selected run."""
    with Store(fixture_store, read_only=True) as store:
        n_runs = len(store.runs())
    at = app_on_fixture("data", view="runs", run="mbti-smollm2-t07")
    assert len(at.dataframe[0].value) == n_runs >= 12
    spec = json.loads(at.json[0].value)
    assert spec["backend"] == "embedded" and spec["params"] == {"temperature": 0.7}


def test_inputs_view_lists_bundled_data(app_on_fixture):
    """Personas (40), contexts (no_conv first), the 40-item instrument and the 60 MBTI statements are browsable."""
    at = app_on_fixture("data", view="inputs")
    frames = [d.value for d in at.dataframe]
    assert len(frames[0]) == 40 and frames[1]["context"].iloc[0] == "no_conv"
    assert len(frames[2]) == 40 and len(frames[3]) == 60


def test_export_zip_holds_every_table(app_on_fixture, fixture_store):
    """'Prepare a zip' exports every table as CSV; the answers file has all rows."""
    at = app_on_fixture("data", view="export")
    at.button(key="export_zip").click().run()
    name, blob = at.session_state["export_zip_bytes"]
    with zipfile.ZipFile(io.BytesIO(blob)) as zf:
        names = set(zf.namelist())
        assert {"runs.csv", "calls.csv", "values_answers.csv", "mbti_answers.csv"} <= names
        rows = zf.read("values_answers.csv").decode().strip().splitlines()
    with Store(fixture_store, read_only=True) as store:
        n_rows = store.query_one("SELECT COUNT(*) AS n FROM values_answers")["n"]
    assert n_rows >= 2 * 3 * 12 * 40 and len(rows) == 1 + n_rows and name.endswith("-csv.zip")


def test_import_rejects_bad_files_with_one_clear_line(tmp_path):
    """Too large, wrong extension, malformed content: one error naming the file each, nothing imported."""
    with Store(tmp_path / "s.db") as store:
        big = import_uploads(store, "chatgpt-mbti", [("big.csv", b"x" * (MAX_FILE_MB * 1024 * 1024 + 1))], "ChatGPT")
        assert not big.ok and big.lines[0].startswith("big.csv: 21.0 MB is over the 20 MB limit")
        ext = import_uploads(store, "value-stability", [("results.txt", b"{}")], "chunk_0")
        assert not ext.ok and ext.lines == ["results.txt: expected a .json file for Stick to Your Role! results.json"]
        bad = import_uploads(store, "value-stability", [("results.json", b"{not json")], "chunk_0")
        assert not bad.ok and len(bad.lines) == 1 and "results.json" in bad.lines[0] and "/tmp" not in bad.lines[0]
        empty = import_uploads(store, "chatgpt-mbti", [], "ChatGPT")
        assert not empty.ok and empty.lines == ["choose at least one file"]
        assert store.runs().empty


def test_import_mbti_csv_creates_one_run_named_by_the_model(tmp_path):
    """A valid ChatGPT-MBTI answer file becomes one imported run of the model typed in; importing twice changes nothing."""
    path = write_csv(tmp_path / "src" / "answers.csv", ["people", "men", "women"], three_subject_rows())
    with Store(tmp_path / "s.db") as store:
        first = import_uploads(store, "chatgpt-mbti", [("answers.csv", path.read_bytes())], "GPT4")
        again = import_uploads(store, "chatgpt-mbti", [("answers.csv", path.read_bytes())], "GPT4")
        runs = store.runs()
    assert first.ok and again.ok and len(runs) == 1
    assert runs["model"].iloc[0] == "GPT4" and runs["status"].iloc[0] == "imported"


def test_open_store_file_validates_it(tmp_path, fixture_store):
    """An uploaded store is kept when it opens read-only; a file that is not a store is refused and removed."""
    kept = save_store_upload(fixture_store.read_bytes(), "shared.db", tmp_path / "uploads")
    assert kept.exists() and kept.suffix == ".db"
    with pytest.raises(InputError, match="not a RoleScope store"):
        save_store_upload(b"hello, not sqlite" * 100, "bad.db", tmp_path / "uploads")
    assert [p.name for p in (tmp_path / "uploads").glob("*.db")] == [kept.name]


def test_other_methods_samples_are_browsable(app_on_fixture):
    """PersonaGym answers and trust rounds open in the drill-down with their parsed fields, without an exception."""
    at = app_on_fixture("data", table="personagym_answers")
    assert not at.exception
    assert json.loads(at.json[0].value)["status"] == "ok"
    assert "I would think it over (0)." in [t.value for t in at.text_area] + [t.value for t in at.text]
    at = app_on_fixture("data", table="trust_rounds")
    assert not at.exception
    parsed = json.loads(at.json[0].value)
    assert {"sent", "forecast", "valid"} <= set(parsed) and 0 <= parsed["sent"] <= 10


def test_delete_a_run_from_the_users_store(app_on_fixture, fixture_store, tmp_path):
    """On a writable store a run is deleted after an explicit confirmation; the demo offers no delete."""
    import shutil

    demo = app_on_fixture("data", view="runs")
    assert "delete_run" not in [b.key for b in demo.button]
    assert any("read-only" in c.value for c in demo.caption)
    shutil.copy(fixture_store, tmp_path / "user.db")  # the user store of this AppTest (conftest binds it here)
    at = app_on_fixture("data", view="runs", store="user", run=DRILL_RUN)
    assert not at.exception and at.selectbox(key="run").value == DRILL_RUN
    before = len(at.dataframe[0].value)
    button = at.button(key="delete_run")
    assert button.disabled  # not before the confirmation
    at.checkbox(key=f"delete_sure_{DRILL_RUN}").check().run()
    at.button(key="delete_run").click().run()
    assert not at.exception
    assert at.success[0].value.startswith(f"Deleted {DRILL_RUN}") and "cached calls are kept" in at.success[0].value
    assert len(at.dataframe[0].value) == before - 1 and DRILL_RUN not in set(at.dataframe[0].value["run_id"])
    with Store(tmp_path / "user.db", read_only=True) as store:
        assert DRILL_RUN not in set(store.runs()["run_id"]) and len(store.table("calls")) > 0


SURROGATE_JSON = b'{"Expected Action": ["\\ud800 What would you do?"]}'  # parses into a string no store can encode


def test_import_of_a_file_with_a_lone_surrogate_or_bad_utf8_is_one_line(tmp_path):
    with Store(tmp_path / "s.db") as store:
        for kind, name in (("personagym", "questions.json"), ("value-stability", "results.json")):
            out = import_uploads(store, kind, [(name, SURROGATE_JSON)], "m")
            line = out.lines[0] if len(out.lines) == 1 else ""
            assert not out.ok and name in line and "lone surrogate" in line and "\n" not in line, out
            out = import_uploads(store, kind, [(name, b'{"a": "caf\xe9"}')], "m")
            assert not out.ok and out.lines == [f"{name}: not UTF-8 text (byte 10)"], out
        assert store.runs().empty


def test_the_data_page_names_a_file_it_cannot_import_or_open(app_on_fixture, tmp_path):
    """On the Data page: a JSON upload with a lone surrogate, and a store file whose text is not UTF-8, each give one
    error line naming the file, no exception, nothing imported or opened."""
    import sqlite3

    from analysis.llm.specs import parse_model_spec

    at = app_on_fixture("data", view="import")
    at.selectbox(key="import_kind").set_value("personagym").run()
    at.text_input(key="import_folder").set_value("gpt").run()
    at.file_uploader(key="import_files").set_value([("questions.json", SURROGATE_JSON, "application/json")]).run()
    at.button(key="import_go").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(at.error) == 1 and "questions.json" in at.error[0].value and "lone surrogate" in at.error[0].value, [
        e.value for e in at.error]
    with Store(tmp_path / "user.db", read_only=True) as store:
        assert store.runs().empty

    bad = tmp_path / "shared.db"
    with Store(bad) as store:
        store.create_run("r1", "values", "embedded", parse_model_spec("embedded").public_dict(), {"method": "values"})
    with sqlite3.connect(bad) as con:
        con.execute("UPDATE runs SET model = CAST(x'6162eda080' AS TEXT)")  # an encoded lone surrogate: not UTF-8
    con.close()
    at.file_uploader(key="store_upload").set_value([("shared.db", bad.read_bytes(), "application/octet-stream")]).run()
    at.button(key="store_open").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert len(at.error) == 1 and at.error[0].value.startswith("shared.db: table runs, column model holds text that is "
                                                               "not UTF-8 (byte 2)"), [e.value for e in at.error]
    assert at.session_state["store"] != "file-shared.db" and not list((tmp_path / "uploads").glob("*.db"))
