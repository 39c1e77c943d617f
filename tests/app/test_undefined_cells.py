"""Undefined is never shown as a number or as the word "None": every table on every page draws missing cells as "—"
and no text cell holds "None" / "nan"."""

from __future__ import annotations

import pytest

from tests.app.conftest import PAGES


@pytest.mark.parametrize("page", [p for p in PAGES if p not in ("run",)])
def test_no_page_prints_none(app_on_fixture, page):
    at = app_on_fixture(page)
    assert not at.exception
    for frame in at.dataframe:
        assert frame.proto.placeholder == "—"
        text = frame.value.select_dtypes(exclude="number").astype(str)
        assert not text.isin(["None", "nan", "NaN"]).any().any(), (page, text.columns.tolist())
    assert all(m.value not in ("None", "nan") for m in at.metric), page
