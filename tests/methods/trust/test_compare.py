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
