"""A tiny embedded-model values run driven from the Run page in Debian Chromium (the dashboard on the synthetic
fixture store, as ``test_browser.py``): started, polled to completion, stored, and the user's store shown on every page.
Its own file so that the rest of the browser suite runs in the suite's parallel phase (the model needs both cores).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from analysis.runs.store import Store
from tests.browser.harness import (CHROMIUM, RUN_TIMEOUT_MS, AppServer, browser_tab, exceptions, fixture_store_env, goto,
                                   wait_idle)
from tests.browser.test_browser import ARTIFACTS, PAGES, shot

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"{CHROMIUM} is missing: install Debian's browser with `apt-get install -y chromium` (as root)"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    base = tmp_path_factory.mktemp("browser-run")
    app = AppServer(fixture_store_env(base), ARTIFACTS / "server-run.log")
    app.start()
    yield app
    app.stop()


@pytest.fixture(scope="module")
def page(server: AppServer) -> Iterator[Any]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with browser_tab((1400, 1000)) as tab:
        yield tab


def _set_number(page: Any, label: str, value: int) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(str(value))
    box.press("Enter")
    wait_idle(page)


def test_run_page_completes_an_embedded_run(server, page):
    """1 persona x no_conv x 2 items on the embedded model: started from the page, polled to completion, stored."""
    goto(page, f"{server.url}/run?run_contexts=no_conv")
    _set_number(page, "Personas", 1)
    _set_number(page, "Items (0 = all)", 2)
    assert page.locator('[data-testid="stMetric"]').filter(has_text="LLM calls").inner_text().endswith("2")
    page.get_by_role("button", name="Start run").click()
    page.get_by_text("Current run").wait_for()
    shot(page, "run-progress")
    page.locator('[data-testid="stAlertContentSuccess"]').filter(has_text="Run completed").wait_for(timeout=RUN_TIMEOUT_MS)
    assert exceptions(page) == []
    shot(page, "run-completed")
    with Store(server.env["ROLESCOPE_STORE"], read_only=True) as store:
        runs = store.runs()
        answers = store.table("values_answers")
    assert list(runs["status"]) == ["completed"] and len(answers) == 2
    assert set(answers["model"]) == {"embedded"} and set(answers["context"]) == {"no_conv"}


def test_results_of_the_run_appear_in_the_users_store(server, page):
    """After the run, every page on the user's store renders (one persona: friendly notes, no exception)."""
    for path in PAGES:
        goto(page, f"{server.url}/{path}?store=user")
        assert exceptions(page) == [], path
    goto(page, f"{server.url}/?store=user")
    models = page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]').first
    assert "embedded" in models.inner_text() or page.get_by_text("135M parameters").count() >= 1
    shot(page, "overview-user-store")
