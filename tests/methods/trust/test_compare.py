"""Trust comparisons (analysis.methods.trust.compare)."""

from __future__ import annotations


def test_trust_forecast_mae_mean_skips_undefined_archetypes():
    """Forecast MAE over shared archetypes: the mean of the defined ones ((2 + 4) / 2 = 3); none defined is undefined
    (NaN, drawn as "—"), with no numpy warning."""
    import math
    import warnings

    from analysis.methods.trust.compare import compare_trust

    a = {"individual": {"archetypes": {"1": {"mae": 2.0}, "3": {"mae": None}, "5": {"mae": 4.0}}}}
    b = {"individual": {"archetypes": {"1": {"mae": None}, "3": {"mae": None}, "5": {"mae": None}}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (diff,) = compare_trust(a, b)
    assert diff.a == 3.0 and math.isnan(diff.b) and math.isnan(diff.diff)


def test_trust_median_spearman_on_the_attributes_both_have():
    """A has ρ for age 0.2, sex 0.4, religion 0.9; B for age 0.1, sex -0.3 (religion undefined) and region 0.5: both
    medians over age and sex only (A 0.3, B -0.1), the note saying the others are left out."""
    from analysis.methods.trust.compare import compare_trust

    def doc(rhos):
        return {"population": {"Ctx+Tr": {"median_spearman": 0.0,
                                           "attributes": {k: {"spearman": v} for k, v in rhos.items()}}}}

    (d,) = compare_trust(doc({"age": 0.2, "sex": 0.4, "religion": 0.9}),
                         doc({"age": 0.1, "sex": -0.3, "religion": None, "region": 0.5}))
    assert (round(d.a, 12), round(d.b, 12), round(d.diff, 12)) == (0.3, -0.1, 0.4)
    assert d.note == "over the 2 attributes with a defined ρ on both sides (A has 3, B 4: the others are left out)"
