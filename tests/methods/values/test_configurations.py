"""Values runs of two populations are two configurations: listed both, never paired."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analysis.methods.values.instruments import load_instrument
from analysis.methods.values.questionnaire import ANSWERS as VALUES_ANSWERS
from analysis.runs.store import Store
from tests.configurations import check_two_configurations, metrics

def _values_rows(run_id: str, context: str, n: int, seed: int) -> list[dict]:
    inst = load_instrument("pvq")
    rng = np.random.default_rng(seed)
    return [{"run_id": run_id, "model": "m", "persona_id": p, "context": context, "instrument": inst.name, "item_id": item.id,
             "value": item.value, "stage": "item", "sample": 0, "score": int(rng.integers(1, 7)), "valid": 1}
            for p in range(n) for item in inst.items]


def test_values_runs_of_two_populations_are_not_paired(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Population A answered no_conv, population B (same persona ids, other people) topics_a: before, their contexts
    were paired by persona_id into a rank-order stability; now each population is its own configuration."""
    path = tmp_path / "v.db"
    with Store(path) as store:
        for run_id, people, context, seed in (("va", "A", "no_conv", 1), ("vb", "B", "topics_a", 2)):
            plan = {"method": "values", "personas": [{"id": i, "description": f"{people} person {i}"} for i in range(8)],
                    "contexts": [{"label": context}]}
            store.create_run(run_id, "values", "m", {"name": "m"}, plan)
            store.upsert(VALUES_ANSWERS.name, _values_rows(run_id, context, 8, seed))
    doc = metrics(path, "values", capsys)["models"]["m"]
    assert list(doc["contexts"]) == ["topics_a"] and doc["rank_order"] is None and doc["n_personas"] == 8
    older = check_two_configurations(doc, ["vb"], ["va"], "personas")
    chosen = metrics(path, "values", capsys, "--config", older["id"])["models"]["m"]
    assert list(chosen["contexts"]) == ["no_conv"] and chosen["configuration"] == older["id"]
