"""Every page by a cold deep link: one server (started as ``scripts/start.sh`` starts it), and for each page of
``app.nav.pages()`` (the shared pages of ``pages/`` and every method's pages) a fresh browser context (no cookies,
storage, cache or Streamlit session) whose first request is that page's URL. The page itself must open: its URL kept,
its entry the current one in the navigation, a heading, no "Page not found" dialog and no exception box.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from app.methods.base import PageInfo
from app.nav import HOME, pages
from tests.browser.harness import CHROMIUM, AppServer, chromium, exceptions, fixture_store_env, goto, new_context, title

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"{CHROMIUM} is missing: install Debian's browser with `apt-get install -y chromium` (as root)"),
]

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
CURRENT = '[data-testid="stSidebarNavLink"][aria-current="page"]'  # the current page's entry in the menu


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    app = AppServer(fixture_store_env(tmp_path_factory.mktemp("deep-links")), ARTIFACTS / "deep-links-server.log")
    app.start()
    yield app
    app.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.mark.parametrize("info", pages(), ids=lambda info: info.url)
def test_a_cold_deep_link_opens_the_page(server: AppServer, browser: Any, info: PageInfo) -> None:
    path = "" if info.url == HOME else info.url  # the default page is served at the root
    context = new_context(browser, (1400, 1000))
    try:
        tab = context.new_page()
        goto(tab, f"{server.url}/{path}")
        assert urlparse(tab.url).path == f"/{path}"
        assert tab.locator('[role="dialog"]').filter(has_text="Page not found").count() == 0
        nav = tab.locator('[data-testid="stSidebarNav"]')
        if nav.locator(CURRENT).count() == 0:  # a page past the first few: the menu shows it after "View more"
            nav.locator('[data-testid="stSidebarNavViewButton"]').click()
        current = nav.locator(CURRENT).inner_text()
        assert current.strip().splitlines()[-1] == info.title  # after its icon's name
        assert title(tab) == info.h1  # drawn by the entry script, before the page runs
        assert exceptions(tab) == []
    finally:
        context.close()
