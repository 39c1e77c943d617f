"""``import rolescope-report`` checks, then writes (issue 58, items 2-4): every row of a report file is checked against
the store's schema and its method's rules before the store is opened, and the file's seal against its data. One
broken rule refuses the whole file in one line (table, row, field, rule), exit 2, the store byte-identical or not
created; an edited file is refused, or imported with ``--accept-edited`` and marked on every page."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from analysis.__main__ import main
from analysis.model_order import store_specs
from analysis.report_file.contents import document_bytes, pack_bytes, seal, unpack
from analysis.report_file.html import MANIFEST_ID, REPORTS_ID, TABLES_ID, script_safe
from analysis.report_file.restore import KIND, block
from analysis.runs.provenance import EDITED, edited_note
from analysis.runs.store import Store
from tests.app.fixture_store import build_tiny_store

Tables = dict[str, dict[str, Any]]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report file of the tiny store (an MBTI run and a values run of the embedded model)."""
    root = tmp_path_factory.mktemp("report-checks")
    store = build_tiny_store(root / "tiny.db")
    out = root / "report.html"
    assert main(["report", "--store", str(store), "--out", str(out), "--n-boot", "0", "--chance", "0"]) == 0
    return out


def _replace_block(html: str, block_id: str, text: str) -> str:
    start = html.index(f'id="{block_id}">') + len(f'id="{block_id}">')
    return html[:start] + script_safe(text) + html[html.index("</script>", start):]


def edited(report: Path, out: Path, change: Callable[[Tables], None], *, reseal: bool = True,
           manifest: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """A copy of ``report`` with ``change`` made to its tables (``{table: {"columns", "data"}}``), re-sealed (the
    manifest's seal and runs made to match, so the rows' own rules are what is tested) unless ``reseal`` is False."""
    html = report.read_text(encoding="utf-8")
    tables = unpack(block(html, TABLES_ID, "report"))
    change(tables)
    raw = json.dumps(tables, ensure_ascii=False).encode("utf-8")  # NaN written as a hostile file would
    doc = json.loads(block(html, MANIFEST_ID, "report"))
    if reseal:
        doc["tables_sha256"] = seal(raw)
        runs = tables["runs"]
        rows = [dict(zip(runs["columns"], row)) for row in runs["data"]]
        listed = {r["run_id"]: r for r in doc["runs"]}
        doc["runs"] = [{**listed.get(r["run_id"], next(iter(listed.values()))), "run_id": r["run_id"],
                        "method": r["method"], "model": r["model"]} for r in rows]
    if manifest is not None:
        manifest(doc)
    html = _replace_block(html, TABLES_ID, pack_bytes(raw))
    html = _replace_block(html, MANIFEST_ID, json.dumps(doc))
    out.write_text(html, encoding="utf-8")
    return out


def rows(tables: Tables, name: str) -> list[dict[str, Any]]:
    return [dict(zip(tables[name]["columns"], r)) for r in tables[name]["data"]]


def set_cell(tables: Tables, name: str, column: str, value: Any, row: int = 0) -> None:
    tables[name]["data"][row][tables[name]["columns"].index(column)] = value


def _import(path: Path, store: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["import", KIND, str(path), "--store", str(store), *extra])
    return code, capsys.readouterr().err.strip()


def _digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def _other_run_model(t: Tables) -> None:
    """The values run's answers named as another model's."""
    for r in t["values_answers"]["data"]:
        r[t["values_answers"]["columns"].index("model")] = "gpt-4"


def _second_run_bad(t: Tables) -> None:
    """The second run's plan is not JSON (the first is fine)."""
    set_cell(t, "runs", "plan", "{not json", row=1)


BAD_ROWS = {
    "a string score": (lambda t: set_cell(t, "values_answers", "score", "5"), "values_answers", "score"),
    "a score past the PVQ's 6": (lambda t: set_cell(t, "values_answers", "score", 9.0), "values_answers",
                                 "outside the instrument's scale 1..6"),
    "a score of 1e308": (lambda t: set_cell(t, "values_answers", "score", 1e308), "values_answers", "score"),
    "a model_spec that is not JSON": (lambda t: set_cell(t, "runs", "model_spec", "not json"), "runs",
                                      "model_spec: not JSON"),
    "a plan that is a JSON list": (lambda t: set_cell(t, "runs", "plan", "[]"), "runs", "plan: not a JSON object"),
    "a created_at of 'yesterday'": (lambda t: set_cell(t, "runs", "created_at", "yesterday"), "runs", "created_at"),
    "a null model": (lambda t: set_cell(t, "runs", "model", None), "runs", "model"),
    "a model name with an escape and a newline": (lambda t: set_cell(t, "runs", "model", "gpt\x1b[2J\nfake"),
                                                  "runs", "control character"),
    "answers of another model than their run's": (_other_run_model, "values_answers", "not its run's model"),
    "an unknown table": (lambda t: t.update(evil={"columns": ["run_id"], "data": [["m"]]}), "'evil'",
                         "not a result table"),
    "an unknown column": (lambda t: (t["mbti_answers"]["columns"].append("x"),
                                     [r.append(1) for r in t["mbti_answers"]["data"]]), "mbti_answers",
                          "not a column"),
    "an MBTI weight not its option's": (lambda t: set_cell(t, "mbti_answers", "weight", -3), "mbti_answers", "weight"),
    "a row of a run not in the file": (lambda t: set_cell(t, "mbti_answers", "run_id", "elsewhere"), "mbti_answers",
                                       "not a run of this file"),
    "a NaN score": (lambda t: set_cell(t, "values_answers", "score", float("nan")), "tables are damaged",
                    "NaN is not a JSON number"),
    "the second of two runs bad": (_second_run_bad, "runs, row 2", "plan: not JSON"),
    "a run id with a path in it": (lambda t: (set_cell(t, "runs", "run_id", "../x")), "runs", "run id"),
    "a method RoleScope has not": (lambda t: set_cell(t, "runs", "method", "astrology"), "runs", "not a method"),
    "a tag with a control character": (lambda t: t.update(run_labels={
        "columns": ["run_id", "name", "tags", "note", "updated_at"], "data": [["m", "n", '["a\\u001b[2J"]', None, 1.0]]}),
        "run_labels", "tags"),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_one_bad_row_refuses_the_file_and_writes_nothing(case, report, tmp_path, capsys):
    """Each row the fourth hostile round imported (issue 58, item 2) is refused in one line naming table, row and
    field, exit 2; a new store is not created and an existing one stays byte-identical."""
    change, where, rule = BAD_ROWS[case]
    bad = edited(report, tmp_path / "bad.html", change)
    fresh = tmp_path / "new.db"
    code, err = _import(bad, fresh, capsys)
    assert code == 2 and len(err.splitlines()) == 1, (case, err)
    assert where in err and rule in err and "nothing imported" in err, (case, err)
    assert "\x1b" not in err, case
    assert not fresh.exists() and not list(tmp_path.glob("new.db*")), case
    existing = Path(shutil.copy(report.parent / "tiny.db", tmp_path / "existing.db"))
    before = _digest(existing)
    code, _ = _import(bad, existing, capsys)
    assert code == 2 and _digest(existing) == before, case


def test_the_unedited_file_imports_every_row(report, tmp_path, capsys):
    """The checks pass the file ``report`` wrote (the control for every refusal above): both runs come back."""
    code, err = _import(report, tmp_path / "back.db", capsys)
    assert code == 0, err
    with Store(tmp_path / "back.db", read_only=True) as store:
        assert sorted(store.runs()["run_id"]) == ["m", "v"]
        assert store.table_sizes()["values_answers"] == 10 and store.table_sizes()["mbti_answers"] == 5
        assert not any(EDITED in spec for spec in store_specs(store).values())


def test_the_seal_is_the_tables_and_reports_sha256(report):
    html = report.read_text(encoding="utf-8")
    manifest = json.loads(block(html, MANIFEST_ID, "report"))
    assert manifest["tables_sha256"] == seal(document_bytes(unpack(block(html, TABLES_ID, "report"))))
    assert manifest["reports_sha256"] == seal(document_bytes(unpack(block(html, REPORTS_ID, "report"))))


def _raise_score(t: Tables) -> None:
    """Every values score raised by one, kept on the scale (6 stays 6): an edit the rows' rules cannot see."""
    column = t["values_answers"]["columns"].index("score")
    for r in t["values_answers"]["data"]:
        r[column] = min(6.0, r[column] + 1) if r[column] is not None else None


def test_an_edited_report_is_refused_without_the_flag(report, tmp_path, capsys):
    """Issue 58, item 3: scores edited in the file, seal untouched: refused in one line naming the flag; with
    ``--accept-edited`` imported, each of its models marked as from an edited report."""
    forged = edited(report, tmp_path / "forged.html", _raise_score, reseal=False)
    target = tmp_path / "store.db"
    code, err = _import(forged, target, capsys)
    assert code == 2 and len(err.splitlines()) == 1 and "do not match its seal" in err and "--accept-edited" in err
    assert not target.exists()
    code, err = _import(forged, target, capsys, "--accept-edited")
    assert code == 0, err
    with Store(target, read_only=True) as store:
        specs = store_specs(store)
    assert all(EDITED in specs[m] for m in specs) and "forged.html" in edited_note(specs["embedded"])


def test_an_edited_manifest_or_reports_block_is_refused(report, tmp_path, capsys):
    """The manifest's runs must be the tables' runs; the reports block is sealed too."""
    renamed = edited(report, tmp_path / "renamed.html", lambda t: None,
                     manifest=lambda m: m["runs"][0].update(model="gpt-4"))
    code, err = _import(renamed, tmp_path / "a.db", capsys)
    assert code == 2 and "the manifest's runs are not the runs table's" in err and "--accept-edited" in err
    assert _import(renamed, tmp_path / "a.db", capsys, "--accept-edited")[0] == 0  # then imported, marked
    with Store(tmp_path / "a.db", read_only=True) as store:
        assert all(EDITED in spec for spec in store_specs(store).values())
    html = report.read_text(encoding="utf-8")
    reports = unpack(block(html, REPORTS_ID, "report"))
    reports[next(iter(reports))]["edited"] = True
    (tmp_path / "reports.html").write_text(_replace_block(html, REPORTS_ID, pack_bytes(document_bytes(reports))),
                                           encoding="utf-8")
    code, err = _import(tmp_path / "reports.html", tmp_path / "b.db", capsys)
    assert code == 2 and "embedded reports do not match its seal" in err


def test_a_file_without_a_seal_needs_the_flag(report, tmp_path, capsys):
    """A report written before the seal (no ``tables_sha256``) is refused without ``--accept-edited``."""
    unsealed = edited(report, tmp_path / "old.html", lambda t: None, manifest=lambda m: m.pop("tables_sha256"))
    code, err = _import(unsealed, tmp_path / "a.db", capsys)
    assert code == 2 and "carries no seal" in err
    assert _import(unsealed, tmp_path / "a.db", capsys, "--accept-edited")[0] == 0


def test_accept_edited_still_checks_every_row(report, tmp_path, capsys):
    """The flag vouches for nothing: a score past the scale is refused with it too."""
    bad = edited(report, tmp_path / "bad.html", lambda t: set_cell(t, "values_answers", "score", 9.0), reseal=False)
    code, err = _import(bad, tmp_path / "a.db", capsys, "--accept-edited")
    assert code == 2 and "outside the instrument's scale" in err and not (tmp_path / "a.db").exists()


def test_the_edited_mark_is_on_the_pages_and_in_a_new_report(report, tmp_path, capsys):
    """Every page showing a model's numbers says it came from an edited report (``ui.model_notes``), as does a
    report file made from the store."""
    from streamlit.testing.v1 import AppTest

    forged = edited(report, tmp_path / "forged.html", _raise_score, reseal=False)
    target = tmp_path / "store.db"
    assert _import(forged, target, capsys, "--accept-edited")[0] == 0
    again = tmp_path / "again.html"
    assert main(["report", "--store", str(target), "--out", str(again), "--n-boot", "0", "--chance", "0"]) == 0
    text = again.read_text(encoding="utf-8")
    assert "edited report file" in text and "forged.html" in text

    def page(note, store):  # noqa: ANN001 - AppTest runs its body as a script
        from analysis.model_order import store_specs
        from analysis.runs.store import Store
        from app import ui

        with Store(store, read_only=True) as s:
            ui.model_notes(["embedded"], store_specs(s), embedded=False)

    at = AppTest.from_function(page, args=(None, str(target))).run()
    assert any("edited report file" in e.value and "forged.html" in e.value for e in at.error)
    Store(tmp_path / "clean.db").close()
    at = AppTest.from_function(page, args=(None, str(tmp_path / "clean.db"))).run()
    assert not at.error


def test_a_refused_file_among_good_ones_imports_none(report, tmp_path, capsys):
    """Two files, the second bad: nothing of the first is stored either (every file is checked first)."""
    bad = edited(report, tmp_path / "bad.html", lambda t: set_cell(t, "values_answers", "score", "x"))
    target = tmp_path / "s.db"
    capsys.readouterr()
    assert main(["import", KIND, str(report), str(bad), "--store", str(target)]) == 2
    assert not target.exists()
    assert re.search(r"bad\.html: table values_answers, row 1, score", capsys.readouterr().err)


@pytest.mark.parametrize("method, rule", [("inventory", "lists no inventory options"),
                                          ("cross_method", "is not a campaign plan")])
def test_a_plan_the_report_cannot_read_is_refused(method, rule, tmp_path_factory, capsys):
    """A JSON-object plan that lacks what the method's report reads (an inventory's options, a campaign's personas)
    made every later ``metrics`` fail (KeyError, exit 1); now the import refuses it."""
    from tests.app.fixture_store import build_fixture_store

    root = tmp_path_factory.mktemp(f"plan-{method}")
    store = build_fixture_store(root / "s.db", methods=(method,))
    out = root / "report.html"
    assert main(["report", "--store", str(store), "--out", str(out), "--n-boot", "0", "--chance", "0"]) == 0
    assert _import(out, root / "fine.db", capsys)[0] == 0  # the control: the file as written imports
    bad = edited(out, root / "bad.html", lambda t: [set_cell(t, "runs", "plan", "{}", row=i)
                                                     for i in range(len(t["runs"]["data"]))])
    code, err = _import(bad, root / "back.db", capsys)
    assert code == 2 and rule in err and not (root / "back.db").exists()
