"""One report per method, computed once: the pages, their chance bands and the CLI's ``metrics --chance`` read one
document (``Method.cached_report`` with ``chance``), never a second computation of the same report for the bands
(issue 59). Counted at the report cache: a method's report (kind ``<method>``) or a document of its chance bands
(``chance-<method>``) computed outside another method's report (the cross-method report reads the others' on its own
options) counts once for that method; a part computed on demand (``chance-values-fit``) is not a report, but a
report computed inside it is."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest

from analysis import methods, report_cache
from analysis.runs.store import Store
from tests.app.conftest import _bind, open_app, page_path

NAMES = [m.name for m in methods.all_methods()]


def _family(kind: str) -> str | None:
    """The method a cached document belongs to, or None."""
    name = kind.removeprefix("chance-").removesuffix("-fit")
    return name if name in NAMES else None


@pytest.fixture
def computed(monkeypatch: pytest.MonkeyPatch) -> Counter:
    """Per method, the reports (and chance documents) computed while the test runs."""
    counts: Counter = Counter()
    stack: list[str | None] = []
    real = report_cache.cached_report

    def spy(store, kind, options, compute, *, sources):
        def noted():
            family = _family(kind)
            inside_another = any(f is not None and f != family for f in stack)
            if family is not None and not inside_another and kind in (family, f"chance-{family}"):
                counts[family] += 1
            stack.append(family)
            try:
                return compute()
            finally:
                stack.pop()
        return real(store, kind, options, noted, sources=sources)

    monkeypatch.setattr(report_cache, "cached_report", spy)
    return counts


def _fresh(fixture_store: Path, tmp_path: Path) -> Path:
    """A copy of the fixture store with no report kept in it."""
    store = tmp_path / "store.db"
    shutil.copy(fixture_store, store)
    with Store(store) as s:
        s.clear(report_cache.REPORT_TABLE.name)
    return store


def test_a_visit_of_every_result_page_computes_each_report_once(fixture_store: Path, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch, computed: Counter) -> None:
    """The Overview (every method's headline cards and chance verdicts), then each method's pages (the Values Structure
    page draws a context's fit bands, computed on demand from the same report): each method's report once."""
    from app.methods import views

    _bind(monkeypatch, _fresh(fixture_store, tmp_path), tmp_path / "user.db", tmp_path / "cache")
    at = open_app()
    assert not at.exception
    for view in views():
        for page in view.pages:
            at.switch_page(page_path(page.url)).run()
            assert not at.exception, (page.url, at.exception[0].message)
    assert set(computed) == set(NAMES) and all(n == 1 for n in computed.values()), computed


@pytest.mark.parametrize("name", NAMES)
def test_metrics_with_chance_computes_the_report_once(name: str, fixture_store: Path, tmp_path: Path,
                                                      computed: Counter, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.__main__ import main

    store = _fresh(fixture_store, tmp_path)
    assert main(["metrics", name.replace("_", "-"), "--store", str(store), "--json", "--n-boot", "20",
                 "--chance", "20"]) == 0
    assert computed[name] == 1, computed


def test_the_results_table_reads_a_chance_band_for_every_headline_with_a_null(fixture_store: Path,
                                                                             tmp_path: Path) -> None:
    """The results table and the report file take each headline's band from ``Method.chance`` of the report, as the
    pages do: trust's Spearman (its band per strategy) and the inventory's α and shaping (per inventory) had none."""
    from analysis.results_table import results_table

    with Store(_fresh(fixture_store, tmp_path)) as store:
        table = results_table(store, n_boot=20, chance=20)
    nulls = {(m.name, h.key) for m in methods.all_methods() for h in m.headlines if h.null is not None}
    rows = [r for r in table.rows if (r.method, r.key) in nulls]
    assert {r.method for r in rows} == set(NAMES)
    assert all(r.chance is not None and r.no_verdict is None for r in rows), [
        (r.method, r.key, r.model, r.no_verdict) for r in rows if r.chance is None]
