"""What a trust plan can show is what the report's metric function computes on placeholder rows of its design."""

from __future__ import annotations

from analysis.__main__ import build_parser
from analysis.llm.specs import parse_model_spec
from analysis.methods.trust.can_show import can_show
from analysis.methods.trust.cli import plans_from_args

SPEC = parse_model_spec("embedded")


def _shows(*flags: str) -> dict[str, bool]:
    [(_, plan)] = plans_from_args(build_parser().parse_args(["run", "trust", "--model", "embedded", *flags]), SPEC)
    return {name: ok for name, ok, _ in can_show(plan).lines}


def test_population_lines_follow_the_number_of_personas():
    """ρ needs two personas (two levels played); split-half reliability four; the ablation other runs."""
    assert _shows("--limit-personas", "1") == {"belief–behaviour Spearman ρ per attribute": False,
                                               "split-half reliability of behaviour": False,
                                               "the endowment ablation (Table 9)": False}
    three = _shows("--limit-personas", "3")
    assert three["belief–behaviour Spearman ρ per attribute"] and not three["split-half reliability of behaviour"]
    assert _shows("--limit-personas", "4")["split-half reliability of behaviour"]


def test_individual_lines_follow_the_rounds():
    assert _shows("--level", "individual", "--limit-personas", "1", "--rounds", "1") == {
        "forecast error per archetype": True, "forecasts vs actions over rounds": False}
    assert _shows("--level", "individual", "--limit-personas", "1", "--rounds", "2")["forecasts vs actions over rounds"]


def test_the_reason_is_the_metric_functions_own():
    [(_, plan)] = plans_from_args(build_parser().parse_args(["run", "trust", "--model", "embedded", "--limit-personas",
                                                             "3"]), SPEC)
    reasons = {name: why for name, _, why in can_show(plan).lines}
    assert reasons["split-half reliability of behaviour"] == "needs ≥ 4 personas with a valid transfer, has 3"
