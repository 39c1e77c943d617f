"""What an MBTI plan can show is what the report's metric function computes on placeholder answers of its design."""

from __future__ import annotations

from analysis.llm.specs import parse_model_spec
from analysis.methods.mbti.can_show import can_show
from analysis.methods.mbti.plan import build_mbti_plan

SPEC = parse_model_spec("embedded")


def _shows(**options) -> dict[str, bool]:
    return {name: ok for name, ok, _ in can_show(build_mbti_plan(SPEC, limit_statements=10, **options).model_dump()).lines}


def test_each_line_follows_the_design():
    """One testing: no consistency (one testing is at distance 0 from its own mean); fixed and permuted testings:
    robustness; Men and Women: fairness (which needs each one's consistency, so two testings)."""
    assert _shows(subjects=["People"], testings=1, order="fixed") == {"consistency": False, "robustness": False,
                                                                      "fairness": False}
    assert _shows(subjects=["Men", "Women"], testings=1, order="both") == {"consistency": False, "robustness": True,
                                                                           "fairness": False}
    assert _shows(subjects=["Men", "Women"], testings=2, order="both") == {"consistency": True, "robustness": True,
                                                                           "fairness": True}
