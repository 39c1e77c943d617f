"""The PersonaGym run of the app fixture store (``tests/app/fixture_store.py``): three personas x five tasks x two
questions, graded 1-5 by one evaluator."""

from __future__ import annotations

import numpy as np

from analysis.llm.specs import parse_model_spec
from analysis.runs.store import Store

PG_PERSONAS = ("Ada, a retired ferry captain", "Bo, a night-shift nurse", "Cy, a beekeeper and poet")


def fixture_answers(store: Store, model: str, seed: int) -> None:
    """Three personas x five tasks x two questions, graded 1-5 by one evaluator."""
    from analysis.methods.personagym import TASKS
    from analysis.methods.personagym.tables import ANSWERS, GRADES, QUESTIONS

    rng = np.random.default_rng(seed)
    run_id = f"personagym-{model}"
    store.create_run(run_id, "personagym", model, parse_model_spec(model).public_dict(), {"method": "personagym"})
    questions, answers, grades = [], [], []
    for n, persona in enumerate(PG_PERSONAS):
        for task in TASKS:
            for q in range(2):
                key = {"run_id": run_id, "persona_id": f"pg{n}", "persona": persona, "task": task, "q_index": q}
                text = f"As {persona.split(',')[0]}, what would you do about task {task.lower()} #{q}?"
                questions.append(key | {"model": model, "question": text, "status": "ok"})
                answers.append(key | {"model": model, "question": text, "answer": f"I would think it over ({q}).", "status": "ok",
                                      "refusal": 0})
                grades.append(key | {"model": model, "evaluator": "embedded", "score": float(rng.integers(1, 6)), "status": "ok",
                                     "raw": "Therefore, the final score is 3"})
    store.upsert(QUESTIONS.name, questions)
    store.upsert(ANSWERS.name, answers)
    store.upsert(GRADES.name, grades)
    store.set_run_status(run_id, "completed")
