"""A campaign from the Run page on the stub server, in Debian Chromium: 6 bundled personas through values and the
inventory (10 items each, text answers); its outcome, then the Cross-method page: the MTMM heatmap, a clicked cell's
scatter and a persona's replies."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis.runs.store import Store
from tests.browser.harness import (CHROMIUM, AppServer, app_server, browser_tab, dismiss_runs, exceptions,
                                   fixture_store_env, goto, title, wait_idle)
from tests.stub_server import StubServer

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing: `apt-get install -y chromium`"),
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "browser/artifacts/cross-method"
ENDED = re.compile("Run completed|Nothing to score|Run failed|Run cancelled")


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer() as server:
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    env = fixture_store_env(tmp_path_factory.mktemp("browser-cross-method"), ROLESCOPE_CHANCE_SIMS="100")
    with app_server(env, ARTIFACTS / "server.log") as app:
        yield app


@pytest.fixture(scope="module")
def page(server: AppServer) -> Iterator[Any]:
    with browser_tab((1400, 1000)) as tab:
        yield tab


def test_a_campaign_from_the_run_page_then_its_matrix_and_a_cell(server, stub, page) -> None:
    params = {"method": "cross_method", "run_model": "other", "run_spec": f"stub-model@{stub.url}", "run_xm_n": "6",
              "run_xm_values_items": "10", "run_xm_values_mode": "text", "run_xm_inventory_items": "10",
              "run_xm_inventory_mode": "text", "run_concurrency": "2"}
    query = "&".join(f"{k}={v}" for k, v in params.items()) + "&run_xm_methods=values&run_xm_methods=inventory"
    goto(page, f"{server.url}/run?{query}")
    dismiss_runs(page)
    assert title(page) == "Run" and exceptions(page) == []
    main = page.locator('[data-testid="stMain"]')
    calls = main.locator('[data-testid="stMetric"]').filter(has_text="LLM calls").first.inner_text()
    # 6 personas × (10 values items + IPIP-NEO-120's first 10 and A1 Trust's 3 later items: the trust pair's facet whole)
    assert int(calls.splitlines()[-1].replace(",", "")) == 6 * (10 + 13)
    page.get_by_role("button", name="Start run").click()
    outcome = main.locator('[data-testid^="stAlertContent"]').filter(has_text=ENDED)
    outcome.first.wait_for(timeout=600_000)
    page.screenshot(path=str(ARTIFACTS / "finished.png"))
    with Store(server.env["ROLESCOPE_STORE"], read_only=True) as store:
        runs = store.runs().set_index("run_id")
        [campaign] = runs.index[runs["method"] == "cross_method"]
        answers = store.table("inventory_answers", [f"{campaign}-inventory"])
    assert runs.loc[campaign, "status"] == "completed" and len(answers) == 6 * 13
    assert "Run completed" in outcome.first.inner_text()
    page.get_by_role("button", name="Show the results").click()
    wait_idle(page)
    assert title(page) == "Cross-method validity"
    main.get_by_text("MTMM matrix").first.wait_for(timeout=300_000)
    wait_idle(page)
    assert exceptions(page) == []
    heatmap = main.locator(".js-plotly-plot").filter(has=page.locator(".colorbar")).first
    heatmap.wait_for()
    page.screenshot(path=str(ARTIFACTS / "matrix.png"))
    before = main.locator('[data-testid="stMarkdownContainer"]').filter(has_text=re.compile(r" × ")).first.inner_text()
    # a cell of the heatmap other than the first convergent pair the scatter starts on
    heatmap.scroll_into_view_if_needed()
    wait_idle(page)
    heatmap.locator(".scatterlayer .point").nth(3).click(force=True)
    wait_idle(page)
    after = main.locator('[data-testid="stMarkdownContainer"]').filter(has_text=re.compile(r" × ")).first.inner_text()
    assert after != before, (before, after)
    scatter = main.locator(".js-plotly-plot").filter(has=page.locator(".scatterlayer .textpoint")).first
    assert scatter.locator(".textpoint").count() == 6  # the 6 personas, each labelled
    page.screenshot(path=str(ARTIFACTS / "cell.png"))
    assert main.get_by_text(re.compile(r"x01 · Amara Okafor · \d+ samples")).count() >= 1
    assert exceptions(page) == []
