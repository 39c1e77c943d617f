"""AppTest: the Trust page draws Table 3's MAE, Table 4's achieved priors and reached medians, Tables 6–8's forecasts
next to play, and Table 9 from the
hand-built store of tests/methods/trust/test_tables.py (values worked by hand there)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.conftest import APP, _bind, page_path
from tests.methods.trust.test_tables import build_store


@pytest.fixture
def at(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    _bind(monkeypatch, build_store(tmp_path / "tables.db"), tmp_path / "user.db", cache_dir)
    at = AppTest.from_file(APP, default_timeout=300).run()
    return at.switch_page(page_path("trust")).run()


def test_tables_3_4_and_9_on_the_page(at: AppTest) -> None:
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Effect-size consistency") and "= 0.27" in c for c in captions)  # (134/117 − 0.35)/3
    assert any(c.startswith("Published (paper, Table 4") and "Self-Conditioned: Gemma 2 27B 0.00" in c for c in captions)
    frames = [d.value for d in at.dataframe]
    cond = next(f for f in frames if "target reached (attributes)" in f.columns).set_index("conditioning")
    assert cond.loc["weak", "target reached (attributes)"] == "1 of 3"
    assert cond.loc["weak", "median ρ with prompt prior, target reached"] == pytest.approx(-0.8)
    achieved = next(f for f in frames if "achieved ρ" in f.columns)
    achieved = achieved[achieved["conditioning"] == "weak"].set_index("attribute")
    assert achieved.loc["work_status", "achieved ρ"] == 0.8 and bool(achieved.loc["us_citizenship", "reached"]) is False
    trace = next(f for f in frames if "forecast explanation" in f.columns)  # Tables 6–8: T_1 first
    assert trace["forecast explanation"].tolist()[:2] == ["just started", "returned $1"]
    assert trace["forecast explanation"].iloc[2] == "— (no JSON object in the reply)"
    table9 = next(f for f in frames if list(f.columns) == ["$10", "$44", "$100"])
    assert table9.loc["Ctx+Tr"].tolist() == pytest.approx([-1 / 30, -1 / 30, 1 / 30], abs=1e-6)
    paper = next(f for f in frames if "model" in f.columns and "$44" in f.columns).set_index(["model", "strategy"])
    assert paper.loc[("Llama 3.1 8B Instruct", "Ctx+$"), "$100"] == 0.96  # the paper's Table 9
