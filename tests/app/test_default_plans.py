"""Issue 60 item 3: the Run page's default plan of every method (its form as it first opens) yields the method's
headline: started from the page on the stub endpoint, its run's report (``metrics --json``) holds a number for a
headline of the method; and its "This run can show" line warns of nothing. A method whose default answers the stub
cannot give (``tests/methods/<m>/__init__.py``: ``STUB_QUERY``, the Run page's fields to change) changes only that."""

from __future__ import annotations

import importlib
import json

import pytest

from analysis import methods
from analysis.__main__ import main
from tests.app.test_run_page import _wait_for_job


@pytest.mark.parametrize("name", methods.names())
def test_the_default_plan_can_show_an_analysis(app_on_fixture, name: str) -> None:
    """``Method.can_show`` (the report's metric functions on placeholder answers of the plan's design) finds at least
    one analysis computable."""
    at = app_on_fixture("run", method=name)
    line = next(m.value for m in at.markdown if m.value.startswith("**This run can show**"))
    assert ":green[ok]" in line and not any("produces no metric" in w.value for w in at.warning), line


@pytest.mark.parametrize("name", methods.names())
def test_the_default_plan_yields_a_headline_on_the_stub(app_on_fixture, stub_server, tmp_path, monkeypatch,
                                                        name: str) -> None:
    tests_of = importlib.import_module(f"tests.methods.{name}")
    if getattr(tests_of, "STUB_CANNOT_ANSWER", None):
        pytest.skip(tests_of.STUB_CANNOT_ANSWER)
    at = app_on_fixture("run", method=name, **getattr(tests_of, "STUB_QUERY", {}))
    at.selectbox(key="run_model").set_value("other").run()
    at.text_input(key="run_spec").input(f"stub-model@{stub_server.url}").run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.button(key="run_start").click().run()
    _wait_for_job(at.session_state["run_job"], timeout=600)
    lines: list[str] = []
    monkeypatch.setattr("builtins.print", lambda *a, **k: lines.append(" ".join(map(str, a))))
    assert main(["metrics", name, "--store", str(tmp_path / "user.db"), "--json", "--n-boot", "20", "--chance", "0"]) == 0
    monkeypatch.undo()
    [doc] = (json.loads(lines[0])["models"] or {}).values()
    shown = {h.key: doc["headlines"][h.key] for h in methods.get(name).headlines}
    assert any(entry.get("value") is not None for entry in shown.values()), shown
