"""A store whose reports were computed ahead (``analysis.demo.precompute_reports``: what ``demo build`` does for the
bundled demo before packing it) opens read-only on every result page without computing a report, a chance band or a
fit band: each is read from the store's own report table, the one cache."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analysis import report_cache
from tests.app.conftest import _bind, open_app, page_path


def _result_pages() -> list[str]:
    """Every page that reads reports: all but Run, Samples and Data (they read tables)."""
    from app.nav import TOOLS, pages

    return [p.url for p in pages() if p not in TOOLS[1:]]


def test_a_first_visit_of_a_precomputed_store_computes_nothing(fixture_store: Path, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from analysis.demo import finalize, precompute_reports
    from app import data

    store = tmp_path / "demo.db"
    shutil.copy(fixture_store, store)
    precompute_reports(store, data.CHANCE_SIMS, lambda line: None, n_boot=data.N_BOOT)
    finalize(store)
    before = store.read_bytes()
    _bind(monkeypatch, store, tmp_path / "user.db", tmp_path / "cache")  # an empty cache folder: no side store
    computed: list[str] = []
    real = report_cache.cached_report

    def spy(store, kind, options, compute, *, sources):
        def noted():
            computed.append(f"{kind} {options}")
            return compute()
        return real(store, kind, options, noted, sources=sources)

    monkeypatch.setattr(report_cache, "cached_report", spy)
    at = open_app()
    assert not at.exception
    for url in _result_pages():
        if url != "overview":
            at.switch_page(page_path(url)).run()
        assert not at.exception, (url, at.exception[0].message)
    assert computed == [], f"computed on a first visit: {computed}"
    assert store.read_bytes() == before
    assert not (tmp_path / "cache" / "derived").exists()


def test_without_precomputed_reports_a_first_visit_computes_them_once_into_the_side_store(
        fixture_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same pages on the store as it is (no report computed ahead): each document is computed on the first visit
    and kept in the side store, so a restarted app (a new session, Streamlit's memory cleared) computes nothing."""
    import streamlit as st

    store = tmp_path / "demo.db"
    shutil.copy(fixture_store, store)
    _bind(monkeypatch, store, tmp_path / "user.db", tmp_path / "cache")
    computed: list[str] = []
    real = report_cache.cached_report

    def spy(store, kind, options, compute, *, sources):
        def noted():
            computed.append(kind)
            return compute()
        return real(store, kind, options, noted, sources=sources)

    monkeypatch.setattr(report_cache, "cached_report", spy)
    open_app("mbti")
    assert "mbti" in computed and (tmp_path / "cache" / "derived").is_dir()
    first = len(computed)
    st.cache_data.clear()
    assert not open_app("mbti").exception
    assert len(computed) == first
