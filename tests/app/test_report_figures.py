"""Figures for a paper: every method's ``figures`` hook on the fixture store's reports (one test over every method),
and ``python -m analysis figure`` writing SVG, PNG and PDF through kaleido (skipped without Debian's chromium)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import plotly.graph_objects as go
import pytest

from analysis.methods import all_methods

CHROMIUM = Path("/usr/bin/chromium")
MODELS = ["smollm2-greedy", "smollm2-t07"]


@pytest.mark.parametrize("method", all_methods(), ids=lambda m: m.name)
def test_each_method_draws_its_figures_from_its_report_alone(method, reports, monkeypatch):
    """The hook returns named figures, each a plotly Figure that draws data, from the report dict alone (no store and
    no cached read is touched, the report is not changed); for no model it draws nothing rather than empty charts."""
    import app.data

    def refuse(*args, **kwargs):
        raise AssertionError("a figures hook read the store")

    monkeypatch.setattr(app.data, "report", refuse)
    monkeypatch.setattr(app.data, "_store", refuse)
    assert method.figures is not None, f"{method.name} declares no figures hook"
    report = reports[method.name]
    before = json.dumps(report, sort_keys=True)
    found = method.figures(report, MODELS)
    assert found, f"{method.name}: no figure on the fixture store"
    for name, fig in found.items():
        assert isinstance(name, str) and name
        assert isinstance(fig, go.Figure), name
        assert fig.data, name
    assert json.dumps(report, sort_keys=True) == before
    assert method.figures(report, []) == {}


def test_has_data_leaves_out_an_empty_chart():
    from analysis.figures.style import drawn

    empty = go.Figure(go.Bar(x=["a", "b"], y=[None, None]))
    full = go.Figure(go.Bar(x=["a", "b"], y=[None, 1.0]))
    assert list(drawn({"empty": empty, "none": None, "full": full, "blank": go.Figure()})) == ["full"]


@pytest.fixture(scope="module")
def cli_store(fixture_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the fixture store for the CLI (which keeps the reports it computes in the store)."""
    path = tmp_path_factory.mktemp("figure-cli") / "store.db"
    shutil.copy(fixture_store, path)
    return path


def _figure(args: list[str], capsys) -> tuple[int, str]:
    from analysis.__main__ import main

    code = main(["figure", *args])
    return code, capsys.readouterr().err


def test_unknown_figure_is_one_line_with_the_names(cli_store, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    code, err = _figure(["mbti", "nope", "--store", str(cli_store), "--out", str(tmp_path / "f.svg")], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "unknown figure 'nope'" in err and "dimensions:People" in err
    assert not (tmp_path / "f.svg").exists()
    code, err = _figure(["mbti", "dimensions:People", "--store", str(cli_store), "--out", str(tmp_path / "f.eps")], capsys)
    assert code == 2 and err.count("\n") == 1 and ".eps" in err


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} missing: kaleido has no browser to draw with")
@pytest.mark.parametrize("suffix, magic", [("svg", (b"<svg", b"<?xml")), ("png", (b"\x89PNG\r\n\x1a\n",)),
                                           ("pdf", (b"%PDF",))])
def test_figure_is_written(suffix, magic, cli_store, tmp_path, capsys, monkeypatch):
    """One figure written in each format through kaleido and the system's chromium (found by the CLI itself)."""
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BROWSER_PATH", "")  # unset for analysis.figures.export, restored after the test
    out = tmp_path / f"fig.{suffix}"
    code, err = _figure(["personagym", "tasks", "--store", str(cli_store), "--models", MODELS[0], "--out", str(out),
                         "--scale", "2"], capsys)
    assert code == 0, err
    assert out.read_bytes().lstrip().startswith(magic)
