"""Which runs may be pooled: the comparability signature and configurations (``analysis.runs.comparable``), on a
family declared here (each method's own families are tested in ``tests/methods/<m>/test_configurations.py``)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis.runs import comparable

FAMILY = comparable.Family("m", "m", frozenset({"contexts"}))
ODD = comparable.Family("m", "odd", includes=lambda plan: plan.get("seed", 0) % 2 == 1,
                        more_coverage=lambda plan: frozenset({"instrument"}) if plan.get("campaign") else frozenset())


def test_signature_keeps_what_is_measured_and_drops_execution_and_coverage() -> None:
    plan = {"answer_mode": "text", "params": {"temperature": 0.7}, "prefix_reuse": True,
            "contexts": [{"label": "no_conv"}], "personas": [{"id": i, "description": "x" * 40} for i in range(5)]}
    sig = comparable.signature(FAMILY, plan)
    assert set(sig) == {"method", "answer_mode", "params", "personas"} and sig["method"] == "m"  # contexts: coverage; prefix_reuse: execution
    assert sig["params"] == {"temperature": 0.7}  # short values verbatim
    assert sig["personas"].startswith("sha256:") and sig["personas"].endswith(", 5 entries")  # long ones as a digest
    same = comparable.signature(FAMILY, plan | {"prefix_reuse": False, "contexts": [{"label": "chess"}]})
    assert comparable.signature_id(same) == comparable.signature_id(sig)
    other = comparable.signature(FAMILY, plan | {"params": {"temperature": 0.0}})
    assert comparable.signature_id(other) != comparable.signature_id(sig)
    new_field = comparable.signature(FAMILY, plan | {"persona_prompt": "rich"})  # unknown fields split: the safe default
    assert comparable.signature_id(new_field) != comparable.signature_id(sig)


def test_latest_rows_keeps_whole_runs_per_cell_and_choose_prefers_latest() -> None:
    frame = pd.DataFrame({"run_id": ["old", "old", "new", "other"], "context": ["a", "a", "a", "b"], "x": [1, 2, 3, 4]})
    kept = comparable.latest_rows(frame, ["context"], {"old": 1.0, "new": 2.0, "other": 0.5})
    assert kept["x"].tolist() == [3, 4]
    runs = pd.DataFrame([{"run_id": r, "method": "m", "model": "m", "plan": json.dumps({"seed": s}), "created_at": t}
                         for r, s, t in (("r1", 0, 1.0), ("r2", 1, 2.0), ("r3", 0, 3.0))])
    configs = comparable.configurations(runs, FAMILY)["m"]
    assert [c.run_ids for c in configs] == [("r1", "r3"), ("r2",)]  # newest first; r1 and r3 share a signature
    assert comparable.choose(configs).run_ids == ("r1", "r3")
    assert comparable.choose(configs, configs[1].id[:6]).run_ids == ("r2",)
    assert configs[1].differs_from(configs[0]) == {"seed": 1}
    with pytest.raises(Exception, match="--config zzz"):
        comparable.check_chosen(configs, "zzz", "m")


def test_model_spec_params_split_configurations() -> None:
    """The params a model spec adds to every request are decoding: a model named alike, decoded otherwise, is another
    configuration; imported runs (no decoding of ours) are not split by it."""
    row = {"method": "m", "model": "m", "plan": json.dumps({"seed": 0})}
    runs = pd.DataFrame([row | {"run_id": "cold", "created_at": 1, "model_spec": json.dumps({"params": {"temperature": 0}})},
                         row | {"run_id": "warm", "created_at": 2, "model_spec": json.dumps({"params": {"temperature": 1}})}])
    configs = comparable.configurations(runs, FAMILY)["m"]
    assert [c.run_ids for c in configs] == [("warm",), ("cold",)]
    assert configs[1].differs_from(configs[0]) == {"model_params": {"temperature": 0}}
    imported = {"imported": True, "source": "x"}
    assert comparable.signature(FAMILY, imported, model_spec={"params": {"t": 1}}) == comparable.signature(FAMILY, imported)


def test_a_family_takes_its_runs_and_its_plan_dependent_coverage() -> None:
    """``includes`` picks the family's runs (imported ones too when it says so); ``more_coverage`` drops fields for
    one plan only (a campaign's instruments)."""
    runs = pd.DataFrame([{"run_id": r, "method": "m", "model": "x", "plan": json.dumps({"seed": s}), "created_at": t}
                         for r, s, t in (("even", 0, 1.0), ("odd", 1, 2.0))])
    assert [c.run_ids for c in comparable.configurations(runs, ODD)["x"]] == [("odd",)]
    campaign = {"seed": 1, "campaign": "c", "instrument": "a"}
    assert comparable.signature(ODD, campaign) == comparable.signature(ODD, campaign | {"instrument": "b"})
    assert comparable.signature(ODD, {"seed": 1, "instrument": "a"}) != comparable.signature(ODD, {"seed": 1, "instrument": "b"})
