"""The PersonaGym part of the demo campaign (``analysis.demo``): environments, questions, answers and rubric grades,
graded by the embedded model when the configuration is embedded (the reference grades with GPT-4o and Llama-3)."""

from __future__ import annotations

from typing import Any

from analysis.demo_config import DemoConfig, DemoPart, Size
from analysis.llm.specs import parse_model_spec

SIZES: dict[Size, dict[str, Any]] = {
    "full": {"personas": 5, "questions": 2, "answer_tokens": 160, "max_retries": 3,
             # the method's default is the reference's 3000 tokens for every call; the 135M model loops to any limit
             "limits": {"selection_max_tokens": 400, "question_max_tokens": 800, "examples_max_tokens": 400,
                        "grade_max_tokens": 200}},
    # every call kind once per task, each cut short: a greedy 135M model runs on to any limit (the build test's time)
    "reduced": {"personas": 1, "questions": 1, "answer_tokens": 32, "max_retries": 3,
                "limits": {"selection_max_tokens": 80, "question_max_tokens": 80, "examples_max_tokens": 48,
                           "grade_max_tokens": 40}},
}


def plan(config: DemoConfig, size: Size) -> dict[str, Any]:
    from analysis.methods.personagym.plan import build_personagym_plan

    s = SIZES[size]
    return build_personagym_plan(config.spec(), personas=s["personas"], questions_per_task=s["questions"],
                                 evaluators=[parse_model_spec("embedded")] if config.embedded else None,
                                 grade_without_examples=True, seed=0, answer_max_tokens=s["answer_tokens"],
                                 max_retries=s["max_retries"],
                                 **s["limits"]).model_dump()


def campaign_settings(config: DemoConfig, size: Size) -> list[str]:
    """This method's options in the demo's cross-method campaign (``METHOD.FIELD=VALUE``)."""
    return ["personagym.questions_per_task=1", f"personagym.max_tokens={SIZES[size]['answer_tokens']}",
            f"personagym.call_max_tokens={SIZES[size]['limits']['selection_max_tokens']}",
            *(["personagym.evaluators=embedded"] if config.embedded else [])]


PARTS = (DemoPart("personagym", "personagym", plan),)
