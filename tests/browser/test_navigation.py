"""Issue 60 item 1, navigation that behaves, in Chromium on the synthetic fixture store: a sidebar switch is one
history entry (the page's widgets publishing their values to the URL replace it), so Back returns to the previous
page in one press; a deep link naming a model the page does not have says so; every page is listed without
expanding the menu."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from app.nav import page as page_info
from app.nav import pages
from tests.browser.harness import (CHROMIUM, AppServer, chromium, fixture_store_env, goto, new_context, title, wait_idle,
                                   wait_title)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"{CHROMIUM} is missing: install Debian's browser with `apt-get install -y chromium` (as root)"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
NAV = '[data-testid="stSidebarNav"]'


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    app = AppServer(fixture_store_env(tmp_path_factory.mktemp("navigation")), ARTIFACTS / "navigation-server.log")
    app.start()
    yield app
    app.stop()


@pytest.fixture
def tab(server: AppServer) -> Iterator[Any]:
    with chromium() as browser:
        context = new_context(browser)
        try:
            yield context.new_page()
        finally:
            context.close()


def _switch(tab: Any, url: str) -> None:
    """Click page ``url``'s entry in the sidebar menu and wait for it to be drawn whole: its heading comes first, its
    widgets (which publish their values to the URL) after; going back before they have would race them."""
    info = page_info(url)
    tab.locator(NAV).locator(f'a[href$="/{url}"]').click()
    wait_title(tab, info.h1)
    wait_idle(tab)


def test_back_returns_to_the_previous_page_in_one_press(server: AppServer, tab: Any) -> None:
    goto(tab, f"{server.url}/")
    _switch(tab, "inventory")
    on_inventory = tab.evaluate("() => history.length")
    inventory_url = tab.url
    _switch(tab, "trust")
    assert tab.evaluate("() => history.length") == on_inventory + 1  # the visit, not one entry per widget
    assert urlsplit(tab.url).path == "/trust"
    tab.go_back()
    wait_title(tab, page_info("inventory").h1)
    assert urlsplit(tab.url).path == "/inventory"
    assert parse_qs(urlsplit(tab.url).query) == parse_qs(urlsplit(inventory_url).query)  # as it was left
    tab.go_forward()
    wait_title(tab, page_info("trust").h1)


def test_a_widget_change_replaces_the_url_in_place(server: AppServer, tab: Any) -> None:
    goto(tab, f"{server.url}/")
    _switch(tab, "leaderboard")
    before = tab.evaluate("() => history.length")
    assert "lb_table" not in parse_qs(urlsplit(tab.url).query) or parse_qs(urlsplit(tab.url).query)["lb_table"] == ["0"]
    tab.locator('[data-testid="stMain"]').get_by_text("Build the results table", exact=True).click()
    tab.locator('[data-testid="stMain"]').get_by_text("Results table for the paper").wait_for()
    wait_idle(tab)
    assert parse_qs(urlsplit(tab.url).query)["lb_table"] == ["1"]
    assert tab.evaluate("() => history.length") == before


def test_a_deep_link_to_a_model_the_page_does_not_have_says_so(server: AppServer, tab: Any) -> None:
    goto(tab, f"{server.url}/structure?model=gpt-4")
    assert title(tab) == page_info("structure").h1
    said = tab.locator('[data-testid="stMain"] [data-testid="stCaptionContainer"]').filter(has_text="Not here")
    assert said.count() >= 1
    assert "'gpt-4' (from the link)" in said.first.inner_text() and "instead" in said.first.inner_text()


def test_every_page_is_listed_without_expanding_the_menu(server: AppServer, tab: Any) -> None:
    goto(tab, f"{server.url}/")
    nav = tab.locator(NAV)
    assert nav.locator('[data-testid="stSidebarNavViewButton"]').count() == 0
    for info in pages():
        assert nav.locator(f'a[href$="/{info.url}"], a[href="{server.url}/"]').first.is_visible(), info.title
