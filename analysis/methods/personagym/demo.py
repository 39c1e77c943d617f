"""The PersonaGym part of the demo campaign (``analysis.demo``): environments, questions, answers and rubric grades,
graded by the embedded model when the configuration is embedded (the reference grades with GPT-4o and Llama-3)."""

from __future__ import annotations

from typing import Any

from analysis.demo_config import DemoConfig, DemoPart, Size
from analysis.llm.specs import parse_model_spec
from analysis.sources import DATA_DIR

SIZES: dict[Size, dict[str, Any]] = {
    "full": {"personas": 5, "questions": 2, "answer_tokens": 160, "max_retries": 3,
             # the method's default is the reference's 3000 tokens for every call; the 135M model loops to any limit
             "limits": {"selection_max_tokens": 400, "question_max_tokens": 800, "examples_max_tokens": 400,
                        "grade_max_tokens": 200}},
    "reduced": {"personas": 1, "questions": 1, "answer_tokens": 40, "max_retries": 3,
                "limits": {"selection_max_tokens": 100, "question_max_tokens": 160, "examples_max_tokens": 80,
                           "grade_max_tokens": 50}},
}


def plan(config: DemoConfig, size: Size) -> dict[str, Any]:
    from analysis.methods.personagym.plan import build_personagym_plan

    s = SIZES[size]
    # the reduced campaign (the suite's build test) asks fixed questions: answers, score examples and grades on every
    # task, none of it hanging on whether a greedy 135M generator's environment pick parses (generation is tested on
    # its own: tests/methods/personagym/test_embedded_e2e.py, the Run page's browser test)
    fixed = DATA_DIR / "personagym" / "demo_questions" if size == "reduced" else None
    return build_personagym_plan(config.spec(), personas=s["personas"], questions=fixed, questions_per_task=s["questions"],
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
