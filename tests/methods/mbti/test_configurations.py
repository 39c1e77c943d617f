"""MBTI configurations: testings of two statement sets never pool; a wrong --config is one line; `runs` names each run's configuration; imported files pool by source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.methods.mbti import DIMENSIONS
from analysis.methods.mbti.families import FAMILY
from analysis.methods.mbti.session import ANSWERS as MBTI_ANSWERS
from analysis.runs import comparable
from analysis.runs.store import Store
from tests.configurations import check_two_configurations, metrics

def _mbti_rows(run_id: str, option: int, testings: int) -> list[dict]:
    return [{"run_id": run_id, "model": "m", "subject": "Men", "order_mode": "permuted", "testing": t, "seq": i,
             "statement_id": str(i + 1), "dimension": d, "direction": 1, "option_index": option, "valid": 1, "mode": "text",
             "source": "run"} for t in range(testings) for i, d in enumerate(DIMENSIONS)]


def test_mbti_testings_of_two_statement_sets_are_not_pooled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, every testing of a model from every run counted: 2 + 3 testings with two statement sets."""
    path = tmp_path / "m.db"
    with Store(path) as store:
        for run_id, statements, option, n in (("m1", "set-a", 0, 2), ("m2", "set-b", 6, 3)):
            store.create_run(run_id, "mbti", "m", {}, {"method": "mbti", "statements": statements, "testings": n})
            store.upsert(MBTI_ANSWERS.name, _mbti_rows(run_id, option, n))
    doc = metrics(path, "mbti", capsys)["models"]["m"]
    men = doc["subjects"]["Men"]
    assert men["n_testings"] == 3 and men["scores"] == {d: 0.0 for d in DIMENSIONS}  # only set-b (all Wrong)
    older = check_two_configurations(doc, ["m2"], ["m1"], "statements")
    chosen = metrics(path, "mbti", capsys, "--config", older["id"])["models"]["m"]["subjects"]["Men"]
    assert chosen["n_testings"] == 2 and chosen["scores"] == {d: 100.0 for d in DIMENSIONS}


def test_unknown_configuration_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "m.db"
    with Store(path) as store:
        store.create_run("m1", "mbti", "m", {}, {"method": "mbti"})
        store.upsert(MBTI_ANSWERS.name, _mbti_rows("m1", 0, 1))
    assert main(["metrics", "mbti", "--store", str(path), "--json", "--config", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--config nope" in err


def test_runs_listing_names_each_runs_configuration(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.db"
    with Store(path) as store:
        for run_id, seed in (("a", 0), ("b", 0), ("c", 1)):
            store.create_run(run_id, "mbti", "m", {}, {"method": "mbti", "seed": seed})
    assert main(["runs", "--store", str(path), "--json"]) == 0
    config = {r["run_id"]: r["config"] for r in json.loads(capsys.readouterr().out)}
    assert config["a"] == config["b"] != config["c"] and len(config["c"]) == 12


def test_imported_files_pool_by_source() -> None:
    a = {"method": "mbti", "imported": True, "source": "chatgpt-mbti", "path": "/x/a.csv", "subjects": ["Men"]}
    b = a | {"path": "/x/b.csv", "subjects": ["Doctors"]}
    assert comparable.signature(FAMILY, a) == comparable.signature(FAMILY, b) == {
        "method": "mbti", "imported": True, "source": "chatgpt-mbti"}


def test_runs_of_different_testing_counts_are_different_configurations() -> None:
    """s_c depends on the number of testings, so it splits configurations; subjects and orders are cells."""
    base = {"method": "mbti", "statements": "default", "testings": 2, "subjects": ["Men"], "orders": ["permuted"]}
    same = comparable.signature(FAMILY, base | {"subjects": ["Women"], "orders": ["fixed"]})
    assert comparable.signature(FAMILY, base) == same
    assert comparable.signature(FAMILY, base) != comparable.signature(FAMILY, base | {"testings": 15})
