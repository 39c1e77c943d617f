"""AppTest: on an empty store (and no demo) every page renders a friendly empty state, never an exception."""

from __future__ import annotations

import pytest

from tests.app.conftest import PAGES, page_path


@pytest.mark.parametrize("page", PAGES)
def test_page_on_empty_store(app_on_empty, page):
    """No exception; pages that show results say what is missing and where to get it."""
    at = app_on_empty(page)
    assert not at.exception, [e.value for e in at.exception]
    assert at.title, "every page has a title"
    if page in ("overview", "leaderboard", "structure", "stability", "mbti", "compare"):
        text = " ".join(i.value for i in at.info)
        assert "Run" in text or "run" in text, text
    if page == "data":
        assert "No samples" in at.info[0].value
    if page == "run":
        assert at.button(key="run_start") is not None and not at.error


def test_store_picker_offers_user_store_only_without_demo(app_on_empty):
    """Without the bundled demo the sidebar offers 'Your store' and selects it."""
    at = app_on_empty()
    picker = at.sidebar.selectbox(key="store")
    assert picker.options == ["Your store"] and picker.value == "user"


@pytest.mark.parametrize("page", PAGES)
def test_page_on_a_tiny_single_context_store(tmp_path, cache_dir, monkeypatch, page):
    """With one model, one context, two personas and one MBTI testing every page renders without an exception."""
    import app.stores as stores
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import APP
    from tests.app.fixture_store import build_tiny_store

    monkeypatch.setattr(stores, "DEMO_STORE", build_tiny_store(tmp_path / "tiny.db"))
    monkeypatch.setattr(stores, "USER_STORE", tmp_path / "user.db")
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(cache_dir))
    at = AppTest.from_file(APP, default_timeout=300).run()
    if page != "overview":
        at.switch_page(page_path(page)).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title
