"""AppTest: a link names only uploads and bundled data. A path from the query string outside the upload folder and the
repository's data/ folder is not opened (one warning line, the field falls back to its default); the same path typed
into the field in this session is opened."""

from __future__ import annotations

from pathlib import Path

from app.links import WARNING, linkable
from tests.app.conftest import page_path

REPO = Path(__file__).resolve().parents[2]
GOOD_CSV = b"name,description,gender\nAda,A retired engineer who bakes bread.,F\nBo,A young farmer.,M\nCy,A nurse.,female\n"

#: The Run page's default values plan: 3 personas × 10 items × 2 contexts, and 3 conversation messages per persona.
DEFAULT_CALLS = 3 * 10 * 2 + 3 * 3


def _calls(at) -> int | None:
    metrics = {m.label: m.value for m in at.metric}
    return int(metrics["LLM calls"].replace(",", "")) if "LLM calls" in metrics else None


def _link_warnings(at) -> list[str]:
    return [w.value for w in at.warning if w.value.startswith(WARNING)]


def test_a_link_cannot_open_a_file_outside_uploads_and_bundled_data(app_on_fixture, tmp_path, monkeypatch):
    import analysis.methods.values.populations as populations

    read = []
    original = populations.read_population
    monkeypatch.setattr(populations, "read_population", lambda path: (read.append(str(path)), original(path))[1])
    outside = tmp_path / "people.csv"
    outside.write_bytes(GOOD_CSV)
    at = app_on_fixture("run", run_pop_src="path", run_pop_path=str(outside))
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert read == [] and _calls(at) is None  # not read, nothing planned
    assert len(_link_warnings(at)) == 1 and str(outside).replace("_", "\\_") in _link_warnings(at)[0]
    assert at.text_input(key="run_pop_path").value == ""
    assert at.query_params["run_pop_path"] in ("", [""])  # the link's value is gone from the URL

    at.text_input(key="run_pop_path").set_value(str(outside)).run()  # typed: the user's own act
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert read and _calls(at) == DEFAULT_CALLS and not _link_warnings(at)
    assert at.query_params["run_pop_path"] in (str(outside), [str(outside)])
    at.switch_page(page_path("overview")).run()
    at.switch_page(page_path("run")).run()  # back from another page: the typed path (now in the URL) is still opened
    assert _calls(at) == DEFAULT_CALLS and not _link_warnings(at) and at.text_input(key="run_pop_path").value == str(outside)


def test_a_link_to_bundled_data_or_an_upload_is_opened(app_on_fixture, tmp_path):
    bundled = REPO / "data/values/personas.json"
    at = app_on_fixture("run", run_pop_src="path", run_pop_path=str(bundled))
    assert not at.exception and not at.error and not _link_warnings(at)
    assert _calls(at) == DEFAULT_CALLS
    uploads = tmp_path / "uploads"
    uploads.mkdir()
    (uploads / "personas-abc.csv").write_bytes(GOOD_CSV)
    at = app_on_fixture("run", run_pop_src="path", run_pop_path=str(uploads / "personas-abc.csv"))
    assert not at.exception and not at.error and not _link_warnings(at) and _calls(at) == DEFAULT_CALLS
    # a path that climbs out of the data folder is outside it
    at = app_on_fixture("run", run_pop_src="path", run_pop_path=str(REPO / "data/../README.md"))
    assert len(_link_warnings(at)) == 1 and _calls(at) is None


def test_other_path_fields_of_the_run_form(app_on_fixture, tmp_path):
    """The instrument and the extra contexts (values), the persona file and the rubrics (PersonaGym)."""
    chunk = tmp_path / "chunk.jsonl"
    chunk.write_text('{"content": "hello"}\n' * 3)
    at = app_on_fixture("run", run_instrument=str(tmp_path), run_contexts_more=f"{chunk}, topics_a",
                        run_contexts=["no_conv"])
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert len(_link_warnings(at)) == 2
    assert at.text_input(key="run_instrument").value == "pvq" and at.text_input(key="run_contexts_more").value == "topics_a"
    at.text_input(key="run_instrument").set_value(str(tmp_path / "no-such-instrument")).run()
    assert len(at.error) == 1 and "no-such-instrument" in at.error[0].value  # typed: opened (and not found)

    people = tmp_path / "people.txt"
    people.write_text("A sailor who collects maps.\n")
    at = app_on_fixture("run", method="personagym", run_pg_pop_src="path", run_pg_pop_path=str(people),
                        run_pg_rubrics=str(tmp_path))
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert len(_link_warnings(at)) == 1 and _calls(at) is None
    at.segmented_control(key="run_pg_pop_src").set_value("bundled").run()  # the rubrics field shows: its link refused
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert len(_link_warnings(at)) == 1 and at.text_input(key="run_pg_rubrics").value == "" and _calls(at)


def test_linkable():
    assert linkable("") and linkable("pvq", ("pvq",)) and linkable(str(REPO / "data/values/personas.json"))
    assert linkable("data/values/personas.json") or Path.cwd() != REPO  # relative to the working directory
    assert linkable("hf://datasets/owner/name/file.json") and not linkable("hf://datasets/owner/name/../../x")
    assert not linkable("/etc/hostname") and not linkable("~/.ssh/id_rsa") and not linkable(str(REPO / "models.toml"))
    assert not linkable(str(REPO / "data") + "-other/x.json")


def test_every_file_field_of_every_run_form_takes_the_link_filter():
    """A text field of a run form that names a file or a path (its label says so) is declared with ``link_filter``: the
    red team found two without it (the inventory and cross-method files), which let a link make the server open any
    file and say whether it exists and what it holds."""
    import ast

    missing = []
    for form in sorted((REPO / "app/methods").glob("*/run_form.py")):
        for node in ast.walk(ast.parse(form.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "text_input"):
                continue
            label = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else ""
            if any(w in str(label).lower() for w in ("file", "path", "folder", "instrument", "context")) and \
                    "link_filter" not in {k.arg for k in node.keywords}:
                missing.append(f"{form.relative_to(REPO)}:{node.lineno} {label!r}")
    assert missing == []


def test_inventory_and_cross_method_file_fields_refuse_a_path_from_a_link(app_on_fixture):
    for method, query in (("inventory", {"run_inv_name": "a file…", "run_inv_path": "/etc/passwd"}),
                          ("cross_method", {"run_xm_source": "a file…", "run_xm_path": "/etc/passwd"})):
        at = app_on_fixture("run", method=method, **query)
        assert not at.exception, method
        shown = " ".join(e.value for e in [*at.error, *at.info, *at.warning, *at.caption])
        assert "not valid JSON" not in shown and "passwd:" not in shown, (method, shown)
        assert len(_link_warnings(at)) == 1, (method, shown)
