"""Each inventory statistic on the design's unit (issue 57): reliability within persona type in a shaped design, the
shaping d on unit means with CIs resampling units, and Compare's paired CIs over the shared units."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.methods.base import Side
from analysis.methods.inventory import psychometrics as pm
from analysis.methods.inventory.design import persona_types, shaped_types, unit_indices, within_types
from analysis.methods.inventory.measures import reliability, statistics
from analysis.methods.inventory.paired import alpha_resampler, shaping_resampler, weighted_alpha
from analysis.methods.inventory.report import inventory_doc
from analysis.methods.inventory.scoring import Sheets
from analysis.methods.inventory.shaping import shaping_effect, weighted_d
from analysis.methods.resampled import Resampler, resampled_difference
from analysis.reliability import cronbach_alpha

RNG = np.random.default_rng(57)


def typed_sheets(n_types: int = 8, repeats: int = 6, n_items: int = 6, *, spread: float = 2.0,
                 distinct: bool = False) -> Sheets:
    """``n_types`` persona types (E high or low, alternating) × ``repeats`` personas each, one order; the type's
    target shifts every E answer by ``spread``; within a type answers are noise around a persona factor. Types
    share their target set (E high or E low) unless ``distinct`` (then each also has its own O level, as
    PersonaLLM's types differ on every domain)."""
    personas, targets, units, rows = [], [], [], []
    for t in range(n_types):
        level = 7 if t % 2 == 0 else 3
        for r in range(repeats):
            personas.append(f"t{t}-p{r}")
            targets.append({"E": level, "O": t} if distinct else {"E": level})
            units.append(f"t{t}")
            trait = RNG.normal()
            rows.append(np.clip(np.round(3 + (spread if level == 7 else -spread) / 2 + 0.6 * trait
                                         + RNG.normal(0, 0.8, n_items)), 1, 5))
    X = np.array(rows, dtype=float)[:, None, :]
    domain = np.array(["E"] * n_items, dtype=object)
    return Sheets(personas, ["ascending"], [f"i{k}" for k in range(n_items)], domain,
                  np.array([None] * n_items, dtype=object), X, X.copy(), X.copy(), 5, targets, ["N"] * len(personas),
                  [30] * len(personas), units)


def answers_of(s: Sheets) -> pd.DataFrame:
    """The answer rows ``inventory_doc`` reads besides the arrays (item texts, answer mode, persona's testings)."""
    return pd.DataFrame({"item_id": s.items[0], "item": s.items[0], "mode": "text", "persona_id": s.personas,
                         "persona_type": s.units or None, "administration": None})


def test_a_shaped_design_gives_alpha_within_type_and_labels_the_pooled_one_between():
    s = typed_sheets()
    assert shaped_types(s, "E") and len(set(persona_types(s, "E"))) == 2  # two shaping levels: E high, E low
    doc = inventory_doc(s, "toy", answers_of(s))["domains"]["E"]
    by_hand = [cronbach_alpha(pm.domain_items(s.X[[p for p, t in enumerate(s.targets) if t == {"E": level}]],
                                              s.domain == "E")) for level in (7, 3)]
    assert doc["alpha_within"]["by_type"] == {"7": pytest.approx(by_hand[0], abs=1e-12),
                                             "3": pytest.approx(by_hand[1], abs=1e-12)}
    assert doc["alpha"] == pytest.approx(np.median(by_hand), abs=1e-12)
    assert doc["alpha_between"] == pytest.approx(cronbach_alpha(pm.domain_items(s.X, s.domain == "E")), abs=1e-12)
    assert doc["alpha_between"] > doc["alpha"]
    assert doc["alpha_between_unit"] == "between shaping levels, inflated by shaping"
    centred = pm.domain_items(s.X, s.domain == "E")
    centred = centred - centred.groupby(np.array(persona_types(s, "E"))).transform("mean")
    assert doc["alpha_within"]["pooled"] == pytest.approx(cronbach_alpha(centred), abs=1e-12)


def test_an_unshaped_design_keeps_the_pooled_coefficient():
    s = typed_sheets()
    s = Sheets(**{**s.__dict__, "targets": [{}] * len(s.personas), "units": None})
    doc = inventory_doc(s, "toy", answers_of(s))["domains"]["E"]
    assert "alpha_within" not in doc and "alpha_between" not in doc
    assert doc["alpha"] == pytest.approx(cronbach_alpha(pm.domain_items(s.X, s.domain == "E")), abs=1e-12)
    assert doc["alpha_unit"] == "answer sheets (unshaped personas)"


def test_within_types_says_why_when_no_type_has_a_value():
    s = typed_sheets(n_types=2, repeats=2)  # two sheets per type: α needs three
    summary = within_types(s, "E", lambda rows: pm.alpha(pm.domain_items(s.X[rows], s.domain == "E")))
    assert summary["median"] is None and summary["n_types"] == 0 and summary["of_types"] == 2
    assert summary["reason"].startswith("undefined within every type: ")
    value, why, _ = reliability(s, s.X, "E", "alpha")
    assert np.isnan(value) and why == summary["reason"]


def test_d_is_on_unit_means_and_its_ci_resamples_units():
    s = typed_sheets()
    levels = np.array([t["E"] for t in s.targets], dtype=float)
    score = s.X[:, 0, :].mean(axis=1)
    entry = shaping_effect(s, levels, score, n_boot=500)
    means = pd.Series(score).groupby(np.array(s.units)).mean()
    high = means[[u for u in means.index if int(u[1:]) % 2 == 0]].to_numpy()
    low = means[[u for u in means.index if int(u[1:]) % 2 == 1]].to_numpy()
    pooled = np.sqrt(((len(high) - 1) * high.var(ddof=1) + (len(low) - 1) * low.var(ddof=1)) / (len(high) + len(low) - 2))
    assert entry["shaping_d"] == pytest.approx((high.mean() - low.mean()) / pooled, abs=1e-12)
    assert (entry["shaping_n_high"], entry["shaping_n_low"]) == (4, 4)
    assert entry["shaping_d_sheets"] == pytest.approx(pm.shaping_d(levels, score)[0], abs=1e-12)
    assert entry["shaping_d_sheets_n_high"] == 24
    assert entry["shaping_d_ci_unit"] == "bootstrap over 8 persona types"
    for key in ("shaping_d", "shaping_d_sheets", "shaping_rho"):
        assert entry[f"{key}_lo"] < entry.get(key, pm.shaping(levels, {"E": score}, "E")["rho"][0]) < entry[f"{key}_hi"]
    # repeats are not independent: the analytic sheet-level CI (as if 48 sheets were 48 units) is narrower
    lo, hi = pm.shaping_d_ci(entry["shaping_d_sheets"], 24, 24)
    assert hi - lo < entry["shaping_d_sheets_hi"] - entry["shaping_d_sheets_lo"]


def test_without_repeats_d_keeps_its_analytic_ci():
    s = typed_sheets()
    s = Sheets(**{**s.__dict__, "units": None})
    levels = np.array([t["E"] for t in s.targets], dtype=float)
    score = s.X[:, 0, :].mean(axis=1)
    entry = shaping_effect(s, levels, score)
    assert "shaping_d_sheets" not in entry and entry["shaping_d_unit"] == "personas (24 high, 24 low)"
    assert (entry["shaping_d_lo"], entry["shaping_d_hi"]) == pm.shaping_d_ci(entry["shaping_d"], 24, 24)


def test_weighted_d_is_d_of_the_expanded_sample():
    values = RNG.normal(size=10)
    high = np.arange(10) < 5
    w = RNG.integers(0, 3, size=(4, 10)).astype(float)
    w[:, [0, 1, 5, 6]] = 1
    for row, got in zip(w, weighted_d(values, high, w)):
        expanded, groups = np.repeat(values, row.astype(int)), np.repeat(high, row.astype(int))
        assert got == pytest.approx(pm.shaping_d(np.where(groups, 7.0, 3.0), expanded)[0], abs=1e-12)


def test_unit_indices_stay_within_their_stratum():
    strata = np.array([0, 0, 1, 1, 1, 2])
    idx = unit_indices(strata, 200, 1)
    assert (strata[idx] == strata[None, :]).all()


def test_weighted_alpha_is_pingouins_alpha_of_the_expanded_rows_with_missing_answers():
    X = RNG.integers(1, 6, size=(12, 4)).astype(float)
    X[:, 1] = np.clip(X[:, 0] + RNG.integers(-1, 2, 12), 1, 5)
    X[2, 3] = X[7, 0] = np.nan
    w = RNG.integers(0, 3, size=(5, 12)).astype(float)
    defined = 0
    for row, got in zip(w, weighted_alpha(X, w)):
        expected = cronbach_alpha(pd.DataFrame(np.repeat(X, row.astype(int), axis=0)))
        assert got == pytest.approx(expected, abs=1e-12, nan_ok=True)
        defined += np.isfinite(expected)
    assert defined >= 3


def test_the_resamplers_give_the_reports_headlines_on_every_unit_once():
    """Typed with repeats (PersonaLLM's), shaped by level, the same without repeats, and unshaped."""
    level = typed_sheets()
    for s in (typed_sheets(distinct=True), level, Sheets(**{**level.__dict__, "units": None}),
              Sheets(**{**level.__dict__, "targets": [{}] * 48, "units": None})):
        doc = inventory_doc(s, "toy", answers_of(s))
        stats = statistics(s, with_omega=False)
        ones = np.ones((1, len(alpha_resampler(s, doc).ids)))
        assert alpha_resampler(s, doc).statistic(ones)[0] == pytest.approx(stats["alpha"][0], abs=1e-12)
        if s.units is not None:
            shaping = shaping_resampler(s)
            assert shaping.statistic(np.ones((1, len(shaping.ids))))[0] == pytest.approx(stats["shaping"][0], abs=1e-12)


def _mean_resampler(ids: list[str], values: np.ndarray, noun: str = "personas") -> Resampler:
    return Resampler(ids, noun, lambda W: (W * values).sum(axis=1) / W.sum(axis=1))


def test_a_difference_is_paired_on_shared_units_and_unpaired_otherwise():
    ids = [f"p{k}" for k in range(30)]
    base = RNG.normal(0, 5, 30)  # a large between-persona spread both models share
    a, b = _mean_resampler(ids, base + 1.0), _mean_resampler(ids, base + RNG.normal(0, 0.1, 30))
    paired = resampled_difference("m", "mean", a, b, float((base + 1).mean()), 0.0, key="k", n_boot=500)
    assert paired.note == "paired over 30 shared personas" and paired.key == "k"
    assert paired.hi - paired.lo < 0.5  # the shared spread cancels
    other = _mean_resampler([f"q{k}" for k in range(30)], base)
    unpaired = resampled_difference("m", "mean", a, other, 1.0, 0.0, key="k", n_boot=500)
    assert unpaired.note.startswith("not paired (0 shared personas)") and unpaired.diff == 1.0
    assert unpaired.hi - unpaired.lo > 2  # the spread does not cancel
    types = _mean_resampler(ids, base, noun="persona types")
    assert resampled_difference("m", "mean", a, types, 1.0, 0.0, n_boot=50).note.startswith("not paired (different units)")


def test_compare_pairs_two_models_on_their_shared_persona_types(monkeypatch):
    """Both headlines of two models that answered the same typed personas carry a paired CI over the types."""
    import analysis.methods.inventory.compare as cmp

    sheets = {"A": typed_sheets(distinct=True), "B": typed_sheets(spread=1.0, distinct=True)}
    docs = {}
    for name, s in sheets.items():
        inv = inventory_doc(s, "toy", answers_of(s))
        head = statistics(s, with_omega=False)
        docs[name] = {"inventory": "toy", "inventories": {"toy": inv}, "domains": inv["domains"],
                      "headlines": {"inventory_shaping": {"value": head["shaping"][0]},
                                    "inventory_alpha": {"value": head["alpha"][0]}},
                      "figures": {"profiles": None}}
    monkeypatch.setattr(cmp, "main_sheets", lambda side: sheets[side.model])
    report = {"models": docs}
    rows = cmp.compare_inventory(Side(None, "A", None, report), Side(None, "B", None, report), n_boot=300)
    assert [r.key for r in rows] == ["inventory_shaping", "inventory_alpha"]
    for r in rows:
        assert np.isfinite(r.lo) and np.isfinite(r.hi) and r.note == "paired over 8 shared persona types"
        assert r.lo <= r.diff <= r.hi
