"""Real-browser suite: the dashboard (``app/main.py``, as ``python -m app.launch`` starts it) on 127.0.0.1 driven by Debian Chromium through Playwright.

Visits every page (the first one by deep link on the fresh server), checks no exception box is shown and
restores a view from its URL (a tiny embedded-model run from the Run page: ``test_browser_embedded_run.py``).
Screenshots go to ``tests/browser/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.harness import (CHROMIUM, AppServer, browser_tab, exceptions, fixture_store_env, goto, repaint,
                                   title, wait_idle)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"{CHROMIUM} is missing: install Debian's browser with `apt-get install -y chromium` (as root)"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
PAGES = {"": "RoleScope", "leaderboard": "Leaderboard", "structure": "Value structure", "stability": "Stability",
         "mbti": "MBTI assessment", "trust": "Trust game", "personagym": "PersonaGym", "compare": "Compare two models",
         "run": "Run", "data": "Data"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    base = tmp_path_factory.mktemp("browser")
    env = fixture_store_env(base)
    app = AppServer(env, ARTIFACTS / "server.log")
    app.start()
    yield app
    app.stop()


@pytest.fixture(scope="module")
def page(server: AppServer) -> Iterator[Any]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with browser_tab((1400, 1000)) as tab:
        yield tab


def shot(page: Any, name: str) -> None:
    """A screenshot of the whole page (the viewport is stretched to the content's height)."""
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": 1400, "height": max(1000, min(int(height) + 40, 6000))})
    repaint(page)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


def test_deep_link_on_fresh_server_opens_the_page(server, page):
    """The first visit after start is a deep link: it shows the leaderboard itself, with the app's navigation."""
    goto(page, f"{server.url}/leaderboard")
    assert title(page) == "Leaderboard"
    assert page.locator('[data-testid="stSidebarNav"]').get_by_text("Compare two models").count() == 1
    assert exceptions(page) == []


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_renders_without_exception(server, page, path):
    """Each page shows its title, no exception box, and (for result pages) its charts; a screenshot is saved."""
    goto(page, f"{server.url}/{path}")
    assert title(page) == PAGES[path]
    assert exceptions(page) == []
    if path == "leaderboard":  # its charts are drawn on demand
        page.get_by_text("Charts: the ranking score").click()
        wait_idle(page)
    if path in ("leaderboard", "structure", "stability", "mbti", "trust", "personagym", "compare"):
        page.wait_for_selector(".js-plotly-plot", state="visible")
    shot(page, path or "overview")


def test_view_restores_from_url(server, page):
    """/structure?model=…&context=… opens that model and context."""
    goto(page, f"{server.url}/structure?model=smollm2-t07&context=topics_a")
    main = page.locator('[data-testid="stMain"]')
    assert main.get_by_label("Model", exact=True).input_value() == "smollm2-t07"
    assert main.get_by_label("Context", exact=True).input_value() == "topics_a"
    assert exceptions(page) == []


def test_clicking_an_item_on_the_circumplex_opens_its_samples(server, page):
    """A click on an item of the circumplex shows its answers under the chart: a panel titled with the item and the
    number of samples, the picked sample's parsed answer, and a link to the Data page; the hint is gone."""
    goto(page, f"{server.url}/structure?model=smollm2-greedy&context=no_conv")
    main = page.locator('[data-testid="stMain"]')
    main.get_by_text("Click a point to see its samples.").wait_for()
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for(state="visible")
    chart.scroll_into_view_if_needed()
    point = chart.locator(".scatterlayer .trace .points path").first  # the first value's first item
    point.wait_for(state="attached")
    box = point.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    panel = main.get_by_text(re.compile(r"^Item \d+ · '.+' · 12 samples$"))
    panel.wait_for()
    wait_idle(page)
    assert main.get_by_text("Click a point to see its samples.").count() == 0
    assert main.get_by_text("Parsed answer").count() == 1
    assert main.get_by_role("link", name="All samples on the Data page").count() == 1
    assert exceptions(page) == []
    shot(page, "structure-drill-down")
    main.get_by_role("link", name="All samples on the Data page").click()
    page.wait_for_url(re.compile(r"/data\?"))
    wait_idle(page)
    assert title(page) == "Data" and exceptions(page) == []
    assert main.get_by_label("Run", exact=True).input_value() == "values-smollm2-greedy"
    assert main.get_by_label("Context", exact=True).input_value() == "no_conv"
