"""AppTest fixtures: the synthetic fixture store, an empty store, and an app bound to either."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

# Fewer bootstrap resamples keep the app tests quick (read by app.data at import).
os.environ.setdefault("ROLESCOPE_N_BOOT", "200")
os.environ.setdefault("ROLESCOPE_CHANCE_SIMS", "20")  # chance bands: enough draws to draw a band

from streamlit.testing.v1 import AppTest  # noqa: E402

from tests.app.fixture_store import build_fixture_store  # noqa: E402

APP = str(Path(__file__).resolve().parents[2] / "app" / "main.py")


def _page_urls() -> tuple[str, ...]:
    from app.nav import pages

    return tuple(p.url for p in pages())


#: Every page's URL path, shared pages and each method's (``app.nav.pages``).
PAGES = _page_urls()


@pytest.fixture(scope="session")
def fixture_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The synthetic two-model store (every method's fixture answers: ``tests.app.fixture_store``), built once per
    session."""
    return build_fixture_store(tmp_path_factory.mktemp("app-store") / "fixture.db")


@pytest.fixture(scope="session")
def reports(fixture_store: Path) -> dict[str, dict]:
    """Every method's report of the fixture store, as a plain JSON document (nothing but the dict reaches a view's
    ``figures`` hook)."""
    import json

    from analysis import methods
    from analysis.runs.store import Store

    with Store(fixture_store, read_only=True) as store:
        return {m.name: json.loads(json.dumps(m.cached_report(store, n_boot=50))) for m in methods.all_methods()}


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("app-cache")


def _bind(monkeypatch: pytest.MonkeyPatch, demo: Path, user: Path, cache: Path) -> None:
    import app.stores as stores

    monkeypatch.setattr(stores, "DEMO_STORE", demo)
    monkeypatch.setattr(stores, "USER_STORE", user)
    monkeypatch.setattr(stores, "UPLOAD_DIR", user.parent / "uploads")
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(cache))


@pytest.fixture
def app_on_fixture(fixture_store: Path, cache_dir: Path, tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    """An AppTest whose demo store is the fixture store and whose user store is a new file."""
    _bind(monkeypatch, fixture_store, tmp_path / "user.db", cache_dir)
    return open_app


def page_path(url: str) -> str:
    """The script of the page with URL path ``url`` (absolute, as ``AppTest.switch_page`` takes it: it resolves a
    relative path against the entry script's folder)."""
    from app.nav import page

    return page(url).script


def open_app(page: str | None = None, **query: str | list[str]) -> AppTest:
    """The app run once with these URL parameters, then switched to ``page`` (on the stores bound by the caller)."""
    at = AppTest.from_file(APP, default_timeout=300)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    if page and page != "overview":
        at.switch_page(page_path(page)).run()
    return at


@pytest.fixture
def app_on_empty(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., AppTest]:
    """An AppTest with no demo store and an empty user store."""
    _bind(monkeypatch, tmp_path / "no-demo.db", tmp_path / "empty.db", cache_dir)

    def make(page: str | None = None) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=300).run()
        if page and page != "overview":
            at.switch_page(page_path(page)).run()
        return at

    return make


@pytest.fixture
def mixed_store(fixture_store: Path, tmp_path: Path) -> Path:
    """The fixture store plus the published answers of real models that methods' fixtures offer (imported numbers only:
    ``tests.app.fixture_store.add_real_models``)."""
    import shutil

    from tests.app.fixture_store import add_real_models

    store_path = tmp_path / "mixed.db"
    shutil.copy(fixture_store, store_path)
    if not add_real_models(store_path):
        pytest.skip("../shared/anchors not present: no real model's answers to add")
    return store_path
