"""The PersonaGym part of a composite campaign's Run form (the cross-method campaign): its own options, by name."""

from __future__ import annotations

from typing import Any

from app import state


def options(container: Any) -> dict[str, Any]:
    """Draw PersonaGym's campaign options in ``container``; returns {option of ``PersonaGymOptions``: value}."""
    questions = state.number_input("PersonaGym: questions per task", 1, 10, 1, key="run_xm_personagym_questions",
                                   container=container)
    return {"questions_per_task": int(questions)}
