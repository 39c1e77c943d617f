"""The demo's metric documents shipped with it (``app.documents``, ``app.cache.shipped_document``): served without
computing when store, kind, extra key and code all match; refused (computed as usual) when any differs; and the
committed file current for the committed demo and the current code."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from analysis.demo_store import DEMO_ARCHIVE, bundled_demo_store
from analysis.runs.store import Store
from app import cache
from app.documents import PAGES, write
from app.stores import signature

REGENERATE = "regenerate it: .venv/bin/python -m app.documents"


def _never() -> dict:
    raise AssertionError("computed although a shipped document matches")


@pytest.fixture
def shipped(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "docs.json.gz"
    write({"signature": "3:12.5:40", "documents": {
        "values|n_boot=1000": {"code": cache.code_fingerprint("values"), "doc": {"models": {"m": 0.5}}}}}, path)
    monkeypatch.setattr(cache, "SHIPPED", path)
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    cache.load_shipped.cache_clear()
    yield path
    cache.load_shipped.cache_clear()


def test_a_matching_shipped_document_is_served_without_computing(shipped, tmp_path):
    doc = cache.cached_json("values", str(tmp_path / "demo.db"), "3:12.5:40", _never, "n_boot=1000")
    assert doc == {"models": {"m": 0.5}}
    assert len(list((tmp_path / "cache").glob("values-*.json"))) == 1  # and kept in the cache folder from then on


@pytest.mark.parametrize("change", ["signature", "extra", "kind", "code"])
def test_any_difference_computes_instead(shipped, tmp_path, monkeypatch, change):
    sig, extra, kind = "3:12.5:40", "n_boot=1000", "values"
    if change == "signature":
        sig = "4:12.5:41"  # another store, or the demo after a rebuild
    elif change == "extra":
        extra = "n_boot=200"
    elif change == "kind":
        kind = "columns"
    else:
        real = cache.code_fingerprint
        monkeypatch.setattr(cache, "code_fingerprint", lambda k: "edited" if k == "values" else real(k))
    assert cache.cached_json(kind, str(tmp_path / "demo.db"), sig, lambda: {"fresh": 1}, extra) == {"fresh": 1}


def test_the_file_is_deterministic(tmp_path):
    doc = {"signature": "s", "documents": {"b|": {"code": "c", "doc": [1, 2]}, "a|": {"code": "c", "doc": {"z": 1, "y": 2}}}}
    write(doc, tmp_path / "one.gz")
    write(json.loads(json.dumps(doc)), tmp_path / "two.gz")
    assert (tmp_path / "one.gz").read_bytes() == (tmp_path / "two.gz").read_bytes()


@pytest.mark.skipif(not DEMO_ARCHIVE.exists(), reason="no bundled demo archive in this checkout")
def test_the_shipped_documents_are_current():
    """Built from the committed demo by the current code: same store signature, every kind's code fingerprint equal."""
    with gzip.open(cache.SHIPPED, "rt", encoding="utf-8") as fh:
        shipped = json.load(fh)
    with Store(bundled_demo_store(), read_only=True) as store:
        assert shipped["signature"] == signature(store), f"{cache.SHIPPED.name} is for another demo store; {REGENERATE}"
    kinds = {key.split("|", 1)[0] for key in shipped["documents"]}
    assert {"values", "columns", "mbti", "trust", "personagym", "chance-values"} <= kinds
    stale = sorted(k for k in kinds if any(e["code"] != cache.code_fingerprint(k) for key, e in shipped["documents"].items()
                                           if key.split("|", 1)[0] == k))
    assert not stale, f"{cache.SHIPPED.name} is stale for {stale} (their analysis code changed); {REGENERATE}"


@pytest.mark.skipif(not DEMO_ARCHIVE.exists(), reason="no bundled demo archive in this checkout")
def test_a_first_visit_computes_no_document(tmp_path, monkeypatch):
    """Every result page on the bundled demo with an empty cache folder: each document comes from the shipped file."""
    import app.stores as stores
    from app.documents import render_pages

    monkeypatch.delenv("ROLESCOPE_N_BOOT", raising=False)
    monkeypatch.delenv("ROLESCOPE_CHANCE_SIMS", raising=False)
    monkeypatch.setattr(stores, "DEMO_STORE", bundled_demo_store())
    monkeypatch.setattr(stores, "USER_STORE", tmp_path / "user.db")
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("app.data.N_BOOT", 1000)
    monkeypatch.setattr("app.data.CHANCE_SIMS", 100)
    computed: list[str] = []
    real = cache.cached_json

    def spy(kind, store_path, sig, compute, extra=""):
        def noted():
            computed.append(f"{kind}|{extra}")
            return compute()
        return real(kind, store_path, sig, noted, extra)

    monkeypatch.setattr(cache, "cached_json", spy)
    monkeypatch.setattr("app.data.cached_json", spy)
    render_pages(PAGES)
    assert computed == [], f"computed on a first visit: {computed}; {REGENERATE}"
