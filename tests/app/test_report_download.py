"""The "Download report" button of the Overview, every method page and Compare: the report file
(``analysis.report_file``) of what the page shows, built only when clicked."""

from __future__ import annotations

import re

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager

from app.methods import views


@pytest.fixture
def deferred(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple]:
    """file name -> (the function that builds it, its MIME type), for each deferred download a page offers."""
    found: dict[str, tuple] = {}
    add = MediaFileManager.add_deferred

    def record(self, data_callable, mimetype, coordinates, file_name=None, **kw):
        found[file_name] = (data_callable, mimetype)
        return add(self, data_callable, mimetype, coordinates, file_name, **kw)

    monkeypatch.setattr(MediaFileManager, "add_deferred", record)
    return found


def _report_buttons(at) -> list:
    return [b for b in at.get("download_button") if b.label == "Download report"]


#: page URL -> the methods its report covers (None: every method)
COVERS = {"overview": None, **{p.url: v.name for v in views() for p in v.pages}}


@pytest.mark.parametrize("url", list(COVERS))
def test_the_overview_and_each_method_page_offer_the_report(url, app_on_fixture, deferred):
    at = app_on_fixture(url)
    assert not at.exception
    buttons = _report_buttons(at)
    assert len(buttons) == 1 and buttons[0].proto.deferred_file_id and not buttons[0].proto.url
    method = COVERS[url]
    assert f"rolescope-report-fixture-{(method or 'all').replace('_', '-')}.html" in deferred


def test_a_method_pages_report_holds_that_method_and_the_sidebars_models(app_on_fixture, deferred):
    at = app_on_fixture("mbti")
    build, mime = deferred["rolescope-report-fixture-mbti.html"]
    assert mime == "text/html"
    html = build().decode("utf-8")
    assert set(re.findall(r'data-key="([^"_]+)_', html)) == {"mbti"}
    assert set(re.findall(r'data-model="([^"]+)"', html)) == set(at.session_state["models"])
    assert 'class="plot"' in html  # the view's figures, drawn from the report


def test_compare_offers_the_report_of_its_two_models(app_on_fixture, deferred):
    at = app_on_fixture("compare")
    assert not at.exception
    assert len(_report_buttons(at)) == 1  # both models in one store: one file
    build, _ = deferred["rolescope-report-fixture-all.html"]
    models = set(re.findall(r'data-model="([^"]+)"', build().decode("utf-8")))
    assert len(models) == 2 and models <= set(at.session_state["models"])


def test_compare_puts_a_before_b_in_every_table(app_on_fixture):
    """Model A's column stands before B's, whichever name sorts first (the invalid-answers table pivots by model)."""
    at = app_on_fixture("compare")
    options = list(at.selectbox(key="a").options)
    last = max(options)  # the name that sorts last as A
    at.selectbox(key="a").set_value(last).run()
    assert not at.exception
    a, b = at.selectbox(key="a").value, at.selectbox(key="b").value
    name_a, name_b = a.split("::", 1)[1], b.split("::", 1)[1]
    assert name_a > name_b
    invalid = next(d.value for d in at.dataframe if "kind" in d.value.columns)
    assert list(invalid.columns) == ["method", "kind", name_a, name_b]
