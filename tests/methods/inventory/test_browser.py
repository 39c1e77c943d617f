"""A tiny inventory run from the Run page on the embedded model, in Debian Chromium: 3 shaped personas × 10 items of
RoleScope's short form × both orders; its outcome, then the Inventories page with its chance verdicts (100 draws per
null, enough for a verdict)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis.runs.store import Store
from tests.browser.harness import (CHROMIUM, AppServer, browser_tab, dismiss_runs, exceptions, fixture_store_env, goto,
                                   title, wait_idle, wait_title)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing: `apt-get install -y chromium`"),
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "browser/artifacts/inventory"
ENDED = re.compile("Run completed|Nothing to score|Run failed|Run cancelled")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    env = fixture_store_env(tmp_path_factory.mktemp("browser-inventory"), ROLESCOPE_CHANCE_SIMS="100")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    app = AppServer(env, ARTIFACTS / "server.log")
    app.start()
    yield app
    app.stop()


@pytest.fixture(scope="module")
def page(server: AppServer) -> Iterator[Any]:
    with browser_tab((1400, 1000)) as tab:
        yield tab


def test_a_tiny_inventory_from_the_run_page(server, page) -> None:
    goto(page, f"{server.url}/run?method=inventory&run_inv_name=rolescope-mini")
    dismiss_runs(page)
    assert title(page) == "Run" and exceptions(page) == []
    main = page.locator('[data-testid="stMain"]')
    personas = main.locator('[data-testid="stMetric"]').filter(has_text="Personas").first.inner_text()
    assert personas.splitlines()[-1] == "3"  # E at levels 1, 5 and 9, one biography
    calls = main.locator('[data-testid="stMetric"]').filter(has_text="LLM calls").first.inner_text()
    assert int(calls.splitlines()[-1].replace(",", "")) == 3 * 10 * 2
    page.get_by_role("button", name="Start run").click()
    outcome = main.locator('[data-testid^="stAlertContent"]').filter(has_text=ENDED)
    outcome.first.wait_for(timeout=900_000)
    page.screenshot(path=str(ARTIFACTS / "finished.png"))
    with Store(server.env["ROLESCOPE_STORE"], read_only=True) as store:
        run = store.runs().query("method == 'inventory'").iloc[0]
        answers = store.table("inventory_answers", [run["run_id"]])
    assert run["status"] == "completed" and len(answers) == 60
    assert "Run completed" in outcome.first.inner_text()
    page.get_by_role("button", name="Show the results").click()
    wait_title(page, "Personality inventories")
    assert title(page) == "Personality inventories"
    main.get_by_text("Shaping ρ, mean over domains").first.wait_for(timeout=300_000)
    wait_idle(page)
    assert exceptions(page) == []
    text = main.inner_text()
    # each headline with its chance band: random answers and answers shuffled across personas, p and verdict
    bands = [line for line in text.splitlines() if line.startswith("Chance (95 % band)")]
    assert len(bands) >= 2 and all("random answers" in b for b in bands), text
    assert re.search(r"beyond chance|indistinguishable from chance|undefined on this design", " ".join(bands)), bands
    assert "Position bias" in text and "The first number was given in" in text
    page.screenshot(path=str(ARTIFACTS / "page.png"), full_page=True)
