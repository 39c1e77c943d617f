"""The PersonaGym tables: one per pipeline stage (one row per finished unit), plus published scores.

``status`` says what a row holds:

- ok          the call was made and its reply parsed (a grade with a score, a usable list, ...)
- invalid     the call was made but its reply could not be used (raw text and reason kept)
- failed      the call failed after all retries (reason = the error); resume asks it again
- not_asked   the call was not made because something it needs is missing (reason says what)
- shortfall   (questions) fewer valid questions than asked for after every generation attempt

Environment, question-generation and score-example attempts each have their own row (``attempt``
0, 1, ...); a question's ``attempt`` is the generation attempt it came from. A grade's
``n_examples`` is the number of score examples the evaluator was shown (< 5: graded with an incomplete
set and the rubric's criteria). An answer's ``truncated`` is 1 when the reply stopped at the length limit.
"""

from __future__ import annotations

from analysis.runs.store import Table, register_table
from analysis.methods.personagym import row_rules

_RUN = (("run_id", "TEXT"), ("model", "TEXT"))
_PERSONA = (("persona_id", "TEXT"), ("persona", "TEXT"))
_CALL = (("status", "TEXT"), ("raw", "TEXT"), ("reason", "TEXT"), ("cache_key", "TEXT"))

ENVIRONMENTS = register_table(Table(
    "personagym_environments",
    _RUN + _PERSONA + (("attempt", "INTEGER"), ("selected", "TEXT"), ("n_selected", "INTEGER"), ("unknown", "TEXT"),
                       ("n_unknown", "INTEGER"), ("n_duplicates", "INTEGER"), ("n_extra", "INTEGER"), ("form", "TEXT"))
    + _CALL,
    ("run_id", "persona_id", "attempt"),
    row_rules.generated_rules, own_model=False,
))

GENERATIONS = register_table(Table(
    "personagym_generations",
    _RUN + _PERSONA + (("task", "TEXT"), ("attempt", "INTEGER"), ("n_asked", "INTEGER"), ("n_parsed", "INTEGER"),
                       ("n_new", "INTEGER"), ("rejected", "TEXT"), ("form", "TEXT")) + _CALL,
    ("run_id", "persona_id", "task", "attempt"),
    row_rules.generated_rules, own_model=False,
))

QUESTIONS = register_table(Table(
    "personagym_questions",
    _RUN + _PERSONA + (("task", "TEXT"), ("q_index", "INTEGER"), ("question", "TEXT"), ("environments", "TEXT"),
                       ("attempt", "INTEGER"), ("status", "TEXT"), ("reason", "TEXT"), ("source", "TEXT")),
    ("run_id", "persona_id", "task", "q_index"),
    row_rules.generated_rules, own_model=False,
))

ANSWERS = register_table(Table(
    "personagym_answers",
    _RUN + _PERSONA + (("task", "TEXT"), ("q_index", "INTEGER"), ("question", "TEXT"), ("answer", "TEXT"),
                       ("finish_reason", "TEXT"), ("refusal", "INTEGER"), ("refusal_marker", "TEXT"), ("truncated", "INTEGER"),
                       ("status", "TEXT"), ("reason", "TEXT"), ("cache_key", "TEXT")),
    ("run_id", "persona_id", "task", "q_index"),
    row_rules.answer_rules,
))

EXAMPLES = register_table(Table(
    "personagym_examples",
    _RUN + _PERSONA + (("task", "TEXT"), ("q_index", "INTEGER"), ("attempt", "INTEGER"), ("examples", "TEXT"),
                       ("n_examples", "INTEGER")) + _CALL,
    ("run_id", "persona_id", "task", "q_index", "attempt"),
    row_rules.generated_rules, own_model=False,
))

GRADES = register_table(Table(
    "personagym_grades",
    _RUN + (("evaluator", "TEXT"),) + _PERSONA + (("task", "TEXT"), ("q_index", "INTEGER"), ("score", "REAL"),
                                                  ("n_examples", "INTEGER")) + _CALL,
    ("run_id", "persona_id", "task", "q_index", "evaluator"),
    row_rules.grade_rules,
))

# Published scores (an external reference leaderboard): one row per task plus one "PersonaScore" row,
# which also holds the mean of the file's task scores and whether the published value matches it.
PUBLISHED = register_table(Table(
    "personagym_published",
    (("run_id", "TEXT"), ("model", "TEXT"), ("date", "TEXT"), ("task", "TEXT"), ("score", "REAL"),
     ("mean_of_tasks", "REAL"), ("consistent", "INTEGER"), ("note", "TEXT"), ("source", "TEXT")),
    ("run_id", "task"),
    row_rules.published_rules,
))
