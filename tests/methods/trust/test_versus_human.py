"""The trust game against the human baseline (``trust_vs_human``) and an imported condition's paired shift from the
base condition (``versus_human``): hand-worked examples, and on real published answers (camel-ai/agent-trust @ a3f14f0,
Xie et al. 2024, read from ``../shared/anchors/agent_trust``; skipped when absent) against an independent numpy
computation from the source's JSON. Human figures: Berg, Dickhaut & McCabe (1995), no-history treatment."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.methods.trust.cli import metrics_json, native_vs_human
from analysis.methods.trust.human import BERG_1995, HumanBaseline, check_baseline
from analysis.methods.trust.importer import import_paths
from analysis.methods.trust.versus_human import difference_from_human, paired_shift, scaled_to_ten, vs_human_entry
from analysis.runs.store import Store
from tests.methods.trust.test_importer import RESULTS, source_file

#: A baseline of four humans who all sent $5: its bootstrap is constant, so a CI can be worked by hand.
FIVES = HumanBaseline(source="hand-made", treatment="test", endowment=10, n=4, stated_mean=5.0, distribution={5: 4})


# -- the published figures -------------------------------------------------------------------------------------------
def test_berg_distribution_sums_to_32_senders_and_averages_5_16() -> None:
    """10×5 + 8 + 7×3 + 6×5 + 5×6 + 4×2 + 3×4 + 2×2 + 1×2 + 0×2 = 165 over 5+1+3+5+6+2+4+2+2+2 = 32 senders."""
    assert check_baseline() == {"n": 32, "total": 165.0, "mean": 165 / 32, "agrees": True}
    assert round(165 / 32, 2) == BERG_1995.stated_mean == 5.16
    assert BERG_1995.point_mean() == 165 / 32  # the distribution's mean: point and bootstrap rest on the same 32
    assert sorted(BERG_1995.amounts().tolist()) == sorted([10] * 5 + [8] + [7] * 3 + [6] * 5 + [5] * 6 + [4] * 2
                                                          + [3] * 4 + [2] * 2 + [1] * 2 + [0] * 2)


def test_a_distribution_that_disagrees_uses_the_stated_mean() -> None:
    off = HumanBaseline(source="s", treatment="t", endowment=10, n=3, stated_mean=4.0, distribution={10: 1, 0: 1})
    assert not off.distribution_agrees() and off.point_mean() == 4.0 and "does not match" in off.note()


# -- hand-worked --------------------------------------------------------------------------------------------------------
def test_difference_by_hand() -> None:
    """Personas sent $0 and $10: mean $5 − $5.15625 = −$0.15625; the same of a $20 endowment ($0, $20, $10) scaled."""
    assert difference_from_human([0, 10], 10, n_boot=0).estimate == pytest.approx(5 - 5.15625, abs=1e-12)
    assert scaled_to_ten([0, 20, 10], 20).tolist() == [0.0, 10.0, 5.0]
    assert difference_from_human([0, 20, 10], 20, n_boot=0).estimate == pytest.approx(-0.15625, abs=1e-12)


def test_ci_by_hand_against_constant_humans() -> None:
    """Humans all at $5. Two personas at $0 and $10: a resample's mean is $0, $5 or $10 with probability 1/4, 1/2,
    1/4, so the 2.5 and 97.5 percentiles of d* are −5 and +5. Personas all at $6: d* = 1 always, CI [1, 1]."""
    ci = difference_from_human([0, 10], 10, n_boot=4000, seed=3, baseline=FIVES)
    assert (ci.estimate, ci.lo, ci.hi) == (0.0, -5.0, 5.0)
    ci = difference_from_human([6] * 5, 10, n_boot=500, seed=3, baseline=FIVES)
    assert (ci.estimate, ci.lo, ci.hi) == (1.0, 1.0, 1.0)


def test_ci_resamples_humans_too() -> None:
    """Personas all at $6 against Berg's 32: the CI is the humans' alone, 6 − (their bootstrap), so it has width."""
    ci = difference_from_human([6] * 10, 10, n_boot=2000, seed=0)
    assert ci.estimate == pytest.approx(6 - 165 / 32)
    assert ci.lo < ci.estimate < ci.hi and ci.hi - ci.lo > 1.5  # SD 2.94 / √32 ≈ 0.52: width ≈ 2 $


def test_entry_of_a_scaled_endowment_says_so_and_covers_the_valid_personas() -> None:
    entry = vs_human_entry([0, 20, 10], 4, 20, "unconditioned games", n_boot=200)
    assert entry["value"] == pytest.approx(-0.15625) and entry["scaled"] is True and "scaled to $10" in entry["note"]
    assert entry["coverage"]["text"] == "3 of 4 personas" and entry["ci_units"] == "personas; humans"
    assert entry["ci"]["lo"] < entry["value"] < entry["ci"]["hi"]
    empty = vs_human_entry([], 4, 10, "unconditioned games", n_boot=200)
    assert empty["value"] is None and "no valid amount" in empty["reason"] and empty["ci"] is None


def test_native_runs_only_unconditioned_games_count() -> None:
    rows = pd.DataFrame({"conditioning": ["none", "none", "none", "self"], "endowment": [10, 10, 10, 10],
                         "valid": [1, 1, 0, 1], "sent": [4, 8, None, 0]})
    entry = native_vs_human(rows, 10, n_boot=0)
    assert entry["value"] == pytest.approx(6 - 165 / 32) and entry["coverage"]["text"] == "2 of 3 personas"
    only_self = native_vs_human(rows[rows["conditioning"] == "self"], 10, n_boot=0)
    assert only_self["value"] is None and "conditioned games (self)" in only_self["reason"]


def test_paired_shift_by_hand() -> None:
    """Personas 1–5 in both: differences 1, 2, 0, 0, 2 -> Δ = 1.0; persona 6 (base only) and 7 (condition only) are
    left out. A constant difference has the CI [c, c]; fewer than 5 shared personas have no CI."""
    base = pd.Series({"1": 5.0, "2": 5.0, "3": 5.0, "4": 5.0, "5": 5.0, "6": 4.0})
    cond = pd.Series({"1": 6.0, "2": 7.0, "3": 5.0, "4": 5.0, "5": 7.0, "7": 9.0})
    ci, n = paired_shift(base, cond, n_boot=1000, seed=0)
    assert n == 5 and ci.estimate == pytest.approx(1.0) and 0.0 <= ci.lo < 1.0 < ci.hi <= 2.0
    ci, n = paired_shift(base, base + 0.5, n_boot=300, seed=0)
    assert (n, ci.estimate, ci.lo, ci.hi) == (6, 0.5, 0.5, 0.5)
    ci, n = paired_shift(base.iloc[:3], cond.iloc[:3], n_boot=300, seed=0)
    assert n == 3 and ci.estimate == pytest.approx(1.0) and math.isnan(ci.lo) and math.isnan(ci.hi)


# -- real published answers -------------------------------------------------------------------------------------------
def _valid(path: Path) -> dict[int, float]:
    """Dialog index -> the source's amount, where it is a finite number in [0, 10] (independent of the importer)."""
    doc = json.loads(path.read_text())
    return {int(d[0]): float(v) for d, v in zip(doc["dialog"], doc["res"])
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= 10}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict:
    if not RESULTS.is_dir():
        pytest.skip("../shared/anchors/agent_trust (camel-ai/agent-trust @ a3f14f0) not present")
    path = tmp_path_factory.mktemp("vs_human") / "trust.db"
    with Store(path) as s:
        for condition in ("res", "COT_res", "female_res"):  # the base condition first: the latest (used) is female
            import_paths(s, [source_file(RESULTS, condition, "vicuna-7b-v1.3")], text=False)
        return metrics_json(s, n_boot=2000)["models"]["vicuna-7b-v1.3"]


def test_real_model_difference_against_numpy(imported: dict) -> None:
    """vicuna-7b-v1.3, base condition: 48 of 53 amounts in [0, 10] (the others above $10 or not numbers); the report's
    difference is numpy's mean of those minus 165/32, whichever condition the page uses (here female, the latest)."""
    x = np.array(list(_valid(source_file(RESULTS, "res", "vicuna-7b-v1.3")).values()))
    entry = imported["headlines"]["trust_vs_human"]
    assert x.size == 48 and entry["coverage"]["text"] == "48 of 53 personas"
    assert entry["value"] == pytest.approx(x.mean() - 165 / 32, abs=1e-9)
    # an independent bootstrap (another generator, another seed, 20 000 draws) and the normal approximation
    rng = np.random.default_rng(20240601)
    h = np.repeat([10, 8, 7, 6, 5, 4, 3, 2, 1, 0], [5, 1, 3, 5, 6, 2, 4, 2, 2, 2]).astype(float)
    reps = rng.choice(x, (20000, x.size)).mean(1) - rng.choice(h, (20000, h.size)).mean(1)
    lo, hi = np.percentile(reps, [2.5, 97.5])
    assert entry["ci"]["lo"] == pytest.approx(lo, abs=0.12) and entry["ci"]["hi"] == pytest.approx(hi, abs=0.12)
    se = math.sqrt(x.var(ddof=1) / x.size + h.var(ddof=1) / h.size)
    assert entry["ci"]["lo"] == pytest.approx(entry["value"] - 1.96 * se, abs=0.25)
    assert entry["ci"]["hi"] == pytest.approx(entry["value"] + 1.96 * se, abs=0.25)


def test_real_condition_shift_is_the_paired_mean(imported: dict) -> None:
    base = _valid(source_file(RESULTS, "res", "vicuna-7b-v1.3"))
    for folder, condition in (("COT_res", "COT"), ("female_res", "female")):
        cond = _valid(source_file(RESULTS, folder, "vicuna-7b-v1.3"))
        shared = sorted(set(base) & set(cond))
        [entry] = [e for e in imported["imported"].values() if e["condition"] == condition]
        shift = entry["shift_from_base"]
        assert shift["n_pairs"] == len(shared)
        assert shift["mean"]["value"] == pytest.approx(np.mean([cond[i] - base[i] for i in shared]), abs=1e-9)
        assert shift["ci"][0] < shift["mean"]["value"] < shift["ci"][1]
    [base_entry] = [e for e in imported["imported"].values() if e["condition"] == "base"]
    assert base_entry.get("shift_from_base") is None


def test_spearman_reason_says_why_in_a_sentence(imported: dict) -> None:
    entry = imported["headlines"]["trust_spearman"]
    assert entry["value"] is None
    assert entry["reason"].startswith("camel-ai/agent-trust published amounts sent, not beliefs; the belief–behaviour "
                                      "ρ needs both")


def test_no_base_import_leaves_the_headline_undefined(tmp_path: Path) -> None:
    if not RESULTS.is_dir():
        pytest.skip("../shared/anchors/agent_trust not present")
    with Store(tmp_path / "t.db") as s:
        import_paths(s, [source_file(RESULTS, "COT_res", "gpt-4")], text=False)
        doc = metrics_json(s, n_boot=50)["models"]["gpt-4"]
    entry = doc["headlines"]["trust_vs_human"]
    assert entry["value"] is None and "no base-condition import" in entry["reason"] and "COT" in entry["reason"]
    [cot] = doc["imported"].values()
    assert cot["shift_from_base"]["mean"]["value"] is None
