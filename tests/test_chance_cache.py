"""Null draws and reports kept in the store they describe (``analysis.chance.cached_parts``,
``analysis.report_cache``): reused when nothing changed, recomputed when the design, the content or the code did, and
equal to what is computed without any cache."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from analysis import chance, methods, report_cache
from analysis.__main__ import main
from analysis.methods.values import VALUES
from analysis.methods.values import chance as vchance
from analysis.methods.values.importer import import_value_stability
from analysis.runs.store import Store
from tests.methods.values.test_importer import write_results
from tests.test_chance import answers_frame

KEYS = {("a", "pvq"): "a", ("b", "pvq"): "b"}


def small_answers(seed: int = 0):
    return answers_frame({str(i): VALUES[i % 10] for i in range(20)}, 12, ["a", "b"], seed=seed, invalid=0.1)


def counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every part the values nulls simulate (context parts by context and kind, stability by kind)."""
    calls: list[str] = []
    context, stability = vchance.context_draws, vchance.stability_draws

    def context_draws(design, index, kind, n_fast, n_slow, seed):
        calls.extend(f"{design[index].key}/{kind}/{part}" for part, n in (("fast", n_fast), ("slow", n_slow)) if n)
        return context(design, index, kind, n_fast, n_slow, seed)

    def stability_draws(design, kind, n_sims, seed):
        calls.append(f"stability/{kind}")
        return stability(design, kind, n_sims, seed)

    monkeypatch.setattr(vchance, "context_draws", context_draws)
    monkeypatch.setattr(vchance, "stability_draws", stability_draws)
    return calls


def test_cached_draws_are_reused_and_equal_the_uncached_bands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = small_answers()
    calls = counting(monkeypatch)
    fresh = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=4, slow_sims=2, workers=1)
    n_parts = len(calls)
    assert n_parts == 2 * (2 + 2 + 1)  # per null: 2 contexts x (circumplex, fits) + stability
    with Store(tmp_path / "s.db") as store:
        cold = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=4, slow_sims=2, store=store, workers=1)
        assert len(calls) == 2 * n_parts
        warm = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=4, slow_sims=2, store=store, workers=1)
        assert len(calls) == 2 * n_parts  # nothing simulated again
        # the dashboard's per-context fit bands read the same draws
        vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=4, slow_sims=2, store=store, fast=False, slow="b",
                             workers=1)
        assert len(calls) == 2 * n_parts
    assert fresh == cold == warm


def test_a_changed_design_or_code_version_recomputes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = small_answers()
    calls = counting(monkeypatch)
    with Store(tmp_path / "s.db") as store:
        vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=3, slow_sims=0, store=store, workers=1)
        calls.clear()
        changed = answers.copy()
        row = changed.index[(changed["context"] == "b") & (changed["valid"] == 1)][0]
        changed.loc[row, "valid"] = 0  # one answer of context b invalid: b's design and the stability design change
        vchance.model_chance(changed, {"contexts": {}}, KEYS, n_sims=3, slow_sims=0, store=store, workers=1)
        assert sorted(calls) == ["b/permutation/fast", "b/uniform/fast", "stability/permutation", "stability/uniform"]
        calls.clear()
        monkeypatch.setattr(chance, "CHANCE_VERSION", chance.CHANCE_VERSION + 1)
        vchance.model_chance(changed, {"contexts": {}}, KEYS, n_sims=3, slow_sims=0, store=store, workers=1)
        assert len(calls) == 6
        calls.clear()
        vchance.model_chance(changed, {"contexts": {}}, KEYS, n_sims=3, slow_sims=0, store=store, workers=1, seed=1)
        assert len(calls) == 6  # another seed: other draws


def test_parallel_draws_equal_serial_ones() -> None:
    answers = small_answers(seed=3)
    serial = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=3, slow_sims=2, workers=1)
    assert vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=3, slow_sims=2, workers=2) == serial


def test_a_read_only_store_is_never_written_its_draws_go_to_its_side_store(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Draws computed from a read-only store are kept in its side store (``analysis.runs.side_store``), so the second
    visit simulates nothing; the store's file is left byte-identical."""
    from analysis.runs.side_store import side_path

    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    answers = small_answers()
    Store(tmp_path / "s.db").close()
    before = (tmp_path / "s.db").read_bytes()
    calls = counting(monkeypatch)
    with Store(tmp_path / "s.db", read_only=True) as store:
        first = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=2, slow_sims=0, store=store, workers=1)
        again = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=2, slow_sims=0, store=store, workers=1)
    assert len(calls) == 2 * 3 and again == first
    assert (tmp_path / "s.db").read_bytes() == before
    assert side_path(tmp_path / "s.db").is_file()


def test_an_unwritable_cache_folder_computes_every_time_and_fails_nothing(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    answers = small_answers()
    Store(tmp_path / "s.db").close()
    calls = counting(monkeypatch)
    with Store(tmp_path / "s.db", read_only=True) as store:
        vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=2, slow_sims=0, store=store, workers=1)
        vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=2, slow_sims=0, store=store, workers=1)
    assert len(calls) == 2 * 2 * 3


# -- reports ------------------------------------------------------------------------------------------


def imported_store(tmp_path: Path, labels: tuple[str, ...] = ("chunk_0", "chunk_1")) -> Path:
    path = tmp_path / "campaign.db"
    files = [write_results(tmp_path / "files", label, n_personas=8, seed=k)[0] for k, label in enumerate(labels)]
    with Store(path) as store:
        import_value_stability(store, files)
    return path




def test_report_is_kept_until_the_content_or_the_code_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = imported_store(tmp_path)
    values = methods.get("values")
    calls: list[int] = []

    def report(*args, **kwargs):
        calls.append(1)
        return values.report(*args, **kwargs)

    counted = dataclasses.replace(values, report=report)
    with Store(path) as store:
        first = counted.cached_report(store, n_boot=20)
        assert counted.cached_report(store, n_boot=20) == first and len(calls) == 1
        counted.cached_report(store, n_boot=30)  # other options: another report
        assert len(calls) == 2
        import_value_stability(store, [write_results(tmp_path / "more", "chunk_2", n_personas=8, seed=9)[0]])
        assert "chunk_2" in json.dumps(counted.cached_report(store, n_boot=20)) and len(calls) == 3
        monkeypatch.setattr(report_cache, "code_fingerprint", lambda sources: "changed")
        counted.cached_report(store, n_boot=20)
        assert len(calls) == 4
    with Store(path, read_only=True) as store:  # read: the report computed above for this code
        assert counted.cached_report(store, n_boot=20) and len(calls) == 4
    monkeypatch.setenv("ROLESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(report_cache, "code_fingerprint", lambda sources: "changed again")
    before = path.read_bytes()
    with Store(path, read_only=True) as store:  # computed once, then read from its side store; the file untouched
        counted.cached_report(store, n_boot=20)
        counted.cached_report(store, n_boot=20)
    assert len(calls) == 5 and path.read_bytes() == before


def test_deleting_a_run_changes_the_content_signature(tmp_path: Path) -> None:
    path = imported_store(tmp_path)
    with Store(path) as store:
        before = report_cache.content_signature(store)
        store.upsert(chance.NULL_TABLE.name, [{"design_key": "k", "method": "values", "draws": "{}", "n_sims": 1, "seed": 0}])
        assert report_cache.content_signature(store) == before  # caches are not content
        store.delete_run(store.runs()["run_id"].iloc[0])
        assert report_cache.content_signature(store) != before


def test_metrics_command_keeps_its_report_and_draws_in_the_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = imported_store(tmp_path)
    argv = ["metrics", "values", "--json", "--n-boot", "20", "--chance", "3", "--store", str(path)]
    assert main(argv) == 0
    first = capsys.readouterr().out
    with Store(path, read_only=True) as store:
        assert store.query_one("SELECT COUNT(*) AS n FROM report_cache")["n"] == 1
        assert store.query_one("SELECT COUNT(*) AS n FROM null_draws")["n"] > 0
        runs = len(store.runs())
    assert main(argv) == 0
    assert capsys.readouterr().out == first
    with Store(path, read_only=True) as store:
        assert len(store.runs()) == runs
    path.chmod(0o444)  # a store the user may not write is still reported, and left as it was
    try:
        assert main(argv[:-1] + [str(path)]) == 0 and capsys.readouterr().out == first
    finally:
        path.chmod(0o644)


def test_a_contexts_parts_are_the_same_computed_together_or_apart() -> None:
    """The circumplex and the fit nulls of a context come from the same simulated data sets, whether one job computes
    both (the report) or each is asked for alone (the dashboard's pages): the same draws either way."""
    answers = small_answers(seed=5)
    together = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=3, slow_sims=2, workers=1)
    fast = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=3, slow_sims=2, slow=False, workers=1)
    slow = vchance.model_chance(answers, {"contexts": {}}, KEYS, n_sims=3, slow_sims=2, fast=False, slow="a", workers=1)
    for key in ("a", "b"):
        assert together["contexts"][key]["stress"] == fast["contexts"][key]["stress"]
    assert together["contexts"]["a"]["cfi"] == slow["contexts"]["a"]["cfi"]
    assert together["contexts"]["a"]["separability"] == slow["contexts"]["a"]["separability"]


def test_a_data_file_in_the_method_folder_is_part_of_its_code(tmp_path: Path, monkeypatch) -> None:
    """The cross-method pairs live in ``pairs.json``: editing it must make every cached or shipped report stale, as an
    edit of its code does (it once left the shipped document on the old pair)."""
    root = tmp_path / "repo"
    folder = root / "analysis/methods/cross_method"
    folder.mkdir(parents=True)
    (folder / "report.py").write_text("x = 1\n")
    (folder / "pairs.json").write_text('{"pairs": []}')
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "report.cpython-311.pyc").write_bytes(b"\x00")
    monkeypatch.setattr(report_cache, "REPO_ROOT", root)
    sources = ("analysis/methods/cross_method",)
    report_cache.code_fingerprint.cache_clear()
    before = report_cache.code_fingerprint(sources)
    (folder / "__pycache__" / "report.cpython-311.pyc").write_bytes(b"\x01")  # a compiled file is no source
    report_cache.code_fingerprint.cache_clear()
    assert report_cache.code_fingerprint(sources) == before
    (folder / "pairs.json").write_text('{"pairs": [{"a": "x", "b": "y"}]}')
    report_cache.code_fingerprint.cache_clear()
    assert report_cache.code_fingerprint(sources) != before
    report_cache.code_fingerprint.cache_clear()
