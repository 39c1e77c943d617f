"""PersonaGym (Samuel et al. 2024, "PersonaGym: Evaluating Persona Agents and LLMs") on the shared engine.

Pipeline per persona: an LLM (the *generator*) picks relevant environments from a list, then writes
N questions per task set in them; the persona agent (the run's model) answers each question; the
generator writes one example response per score 1-5 for each question; one or more *evaluator*
models grade each answer with the task rubric and the examples, ending "Therefore, the final
score is N". Question score = mean over evaluators; task score = mean over questions; PersonaScore
= mean of the five task scores.

Modules: ``data`` (environments, personas, rubrics, question files), ``prompts``, ``parse`` (lists,
environment names, questions, score examples, grades, refusals), ``tables`` (one per stage, plus
published scores), ``session``/``method`` (runs), ``metrics`` (pure functions on the stage tables),
``importer`` (published questions and scores), ``cli``.
"""

from __future__ import annotations

# The five tasks, in the order the paper's tables list them by decision-theory branch.
TASKS: tuple[str, ...] = (
    "Expected Action", "Linguistic Habits", "Persona Consistency", "Toxicity Control", "Action Justification",
)
# Other spellings of task names met in files (the reference's question files say "Toxicity").
TASK_ALIASES: dict[str, str] = {"toxicity": "Toxicity Control"}
SCORES: tuple[int, ...] = (1, 2, 3, 4, 5)


def canonical_task(name: str) -> str | None:
    """The canonical task name for ``name`` (case/space-insensitive, aliases included), else None."""
    key = " ".join(str(name).split()).lower()
    for task in TASKS:
        if task.lower() == key:
            return task
    return TASK_ALIASES.get(key)


def task_slug(task: str) -> str:
    """'Expected Action' -> 'expected_action' (for unit names)."""
    return task.lower().replace(" ", "_")
