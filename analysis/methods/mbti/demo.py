"""The MBTI part of the demo campaign (``analysis.demo``): every subject, both option orders, several testings."""

from __future__ import annotations

from typing import Any

from analysis.demo_config import DemoConfig, DemoPart, Size

SIZES: dict[Size, dict[str, Any]] = {
    "full": {"subjects": ["People", "Men", "Women", "Boys", "Girls", "Doctors", "Teachers", "Software engineers"],
             "testings": 5, "statements": 8},
    # fairness needs Men and Women, consistency two testings; both orders give robustness
    "reduced": {"subjects": ["Men", "Women"], "testings": 2, "statements": 2},
}
#: A 135M model rambles to any limit, and generated tokens are most of a build's time: a verdict comes first.
TEXT_TOKENS = 24


def plan(config: DemoConfig, size: Size) -> dict[str, Any]:
    from analysis.methods.mbti.plan import build_mbti_plan

    s = SIZES[size]
    # 8 statements (every dimension) fit the embedded history window (10): each call extends the previous call's
    # cached prefix
    return build_mbti_plan(config.spec(), subjects=s["subjects"], testings=s["testings"], order="both",
                           limit_statements=s["statements"], answer_mode=config.answer_mode, seed=0,
                           text_max_tokens=TEXT_TOKENS, prefix_reuse=True).model_dump()


PARTS = (DemoPart("mbti", "mbti", plan),)
