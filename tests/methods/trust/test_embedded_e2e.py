"""End to end with the embedded model (tiny sizes): both levels through create_run/execute_run on a tmp store,
every unit stored (valid, or invalid with raw text and reason, never guessed), metrics as strict JSON, resume free."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.llm.specs import parse_model_spec
from analysis.methods import create_run, execute_run
from analysis.runs.store import Store
from analysis.methods.trust.cli import metrics_json
from analysis.methods.trust.plan import build_trust_plan
from analysis.methods.trust.personas import BY_KEY
from analysis.methods.trust.tables import BELIEFS, FORECASTS, ROUNDS, TRANSFERS

pytestmark = pytest.mark.slow


def test_embedded_population_level(tmp_path: Path) -> None:
    """1 attribute x 3 strategies + 2 personas = 5 calls: all rows stored; valid rows are consistent with their
    schema (ranking of both levels, amount in [0, 10]); invalid rows keep raw text and reason; re-execution is cached."""
    spec = parse_model_spec("embedded")
    with Store(tmp_path / "s.db") as store:
        plan = build_trust_plan(spec, personas=10, limit_personas=2, attributes=["sex"], attribute_set="rolescope15",
                                max_tokens={"belief": 80, "action": 40})
        run_id = create_run(store, "trust", spec, plan.model_dump())
        summary = execute_run(store, run_id, concurrency=2)
        assert (summary.status, summary.total, summary.done, summary.failed) == ("completed", 5, 5, 0)
        beliefs, transfers = store.table(BELIEFS.name, [run_id]), store.table(TRANSFERS.name, [run_id])
        assert sorted(beliefs["strategy"]) == ["Ctx+$", "Ctx+Tr", "NoCtx+Tr"] and len(transfers) == 2
        assert beliefs["raw"].notna().all() and transfers["raw"].notna().all() and beliefs["cache_key"].nunique() == 3
        for row in beliefs.itertuples():
            if row.valid:
                assert sorted(json.loads(row.ranking)) == sorted(BY_KEY["sex"].levels)
            else:
                assert row.reason and row.ranking is None
        for row in transfers.itertuples():
            assert (row.valid == 1 and 0 <= row.sent <= 10 and row.reason is None) or (row.valid == 0 and row.reason)
        again = execute_run(store, run_id)
        assert (again.cached, again.done) == (5, 5)
        doc = metrics_json(store, n_boot=50)
    json.dumps(doc, allow_nan=False)
    assert doc["models"]["embedded"]["invalid"]["transfers"] == int((transfers["valid"] == 0).sum())


def test_embedded_individual_level(tmp_path: Path) -> None:
    """1 persona x archetype T_3 x 2 rounds, each a per-round forecast then play (4 calls, top_k 0 accepted by the
    server): one row per round with its forecast (valid, or invalid with a reason) and its play, valid with the
    archetype's return and earnings, or invalid with a reason (later rounds 'not played')."""
    spec = parse_model_spec("embedded")
    with Store(tmp_path / "s.db") as store:
        plan = build_trust_plan(spec, level="individual", personas=10, limit_personas=1, archetypes=[3], rounds=2,
                                max_tokens={"forecast": 80, "round": 60})
        run_id = create_run(store, "trust", spec, plan.model_dump())
        summary = execute_run(store, run_id, concurrency=2)
        assert plan.params["top_k"] == 0
        assert (summary.status, summary.total, summary.done, summary.failed) == ("completed", 4, 4, 0)
        assert store.table(FORECASTS.name, [run_id]).empty  # per-round forecasts live on the round rows
        rounds = store.table(ROUNDS.name, [run_id]).sort_values("round")
        assert list(rounds["round"]) == [1, 2]
        first = rounds.iloc[0]
        assert first["forecast_raw"] and (first["forecast_valid"] == 1 or first["forecast_reason"])
        for row in rounds.itertuples():
            if row.valid:
                assert row.returned == min(3, 3 * row.sent) and row.earnings == 10 - row.sent + row.returned
            else:
                assert row.reason and (row.reason.startswith("not played") or row.raw)
        doc = metrics_json(store, n_boot=50)
    json.dumps(doc, allow_nan=False)
    assert list(doc["models"]["embedded"]["individual"]["archetypes"]) == ["3"]
