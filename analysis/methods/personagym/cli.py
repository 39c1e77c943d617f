"""CLI glue for ``python -m analysis run|metrics|import personagym`` (wired in ``analysis/__main__.py``).

- ``plan_from_args(args, spec)``: the plan dict for ``create_run``.
- ``metrics_json(store, model)``: the ``metrics personagym --json`` document::

    {"models": {NAME: {"tasks": {TASK: x}, "persona_score": x, "n_graded": n, "invalid": n, "refusals": n,
                       "role_table": {"steps_out" | "in_character": {"declines": n, "answers": n}}, "truncated": n, "graded_incomplete_examples": n, "self_graded": {"value": bool, "roles": [s]},
                       "table1": {TASK | "PersonaScore": {"mean": x, "sd": x, "n_personas": n}},
                       "n_answers": n, "not_graded": n, "n_grades": n, "shortfall": n, "spread": {TASK: sd},
                       "evaluators": [EVAL], "by_evaluator": {EVAL: {"tasks": {TASK: x}, "persona_score": x}},
                       "personas": {PERSONA: {"id": s, "tasks": {TASK: x}, "persona_score": x, "n_graded": n,
                                              "invalid": n, "refusals": n, "truncated": n}}}},
     "published": {NAME: {"tasks": {TASK: x}, "persona_score": x, "mean_of_tasks": x, "consistent": bool,
                          "note": s, "date": "YYYYMMDD", "run_id": s}},
     "table1": {"models": {NAME: table1}, "spread": {TASK | "PersonaScore": x},
                "paper": {"source": s, "models": {MODEL: {TASK | "PersonaScore": {"mean": x, "sd": x}}}, "spread": {...}}},
     "figure4": {NAME: {"refusals": n, "n_answers": n}}}

  NAME is the agent model (the run's model). ``n_graded`` = answers with at least one valid grade
  (they make the scores); ``invalid`` = evaluator replies without a usable score; ``refusals`` =
  answers flagged as stepping out of the persona; ``role_table`` = the answers 2 × 2: steps out of the role or stays
  in character × declines what was asked or answers it (``metrics.role_table``); ``not_graded`` = answers with no valid grade;
  ``shortfall`` = question slots that could not be filled (shortfall or not asked); ``truncated`` = answers cut
  at the length limit; ``graded_incomplete_examples`` = answers graded with fewer than 5 score examples;
  ``self_graded`` = the judging roles the agent's own model played (evaluator, question generator); ``table1`` =
  the paper's Table 1 row (mean and SD over personas, ``metrics.table1_row``); ``figure4`` = the paper's Fig. 4
  (refusals per model). Scores are
  defined in ``analysis.methods.personagym.metrics``; a score that cannot be computed is null.
  ``published`` holds imported reference scores (``import personagym``), never mixed with ours.
- ``import_files(store, paths, notes=None)``: ``import personagym PATH...`` (see ``importer``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.base import counts, number
from analysis.methods.personagym import TASKS
from analysis.methods.personagym import chance as pg_chance
from analysis.methods.personagym.data import paper_table1
from analysis.methods.personagym.importer import import_files
from analysis.methods.personagym.metrics import (
    role_table,
    unread_grade_bound,
    KEYS,
    model_persona_score,
    model_spread,
    model_task_scores,
    persona_score,
    persona_task_scores,
    question_scores,
    table1_row,
    task_spread,
)
from analysis.methods.personagym.tables import ANSWERS, GRADES, PUBLISHED, QUESTIONS
from analysis.methods.personagym.families import FAMILY
from analysis.methods.personagym.options import PersonaGymOptions
from analysis.methods.options import from_args
from analysis.persona_scores import persona_scores_doc
from analysis.runs import comparable
from analysis.runs.store import Store

__all__ = ["plan_from_args", "metrics_json", "import_files"]


def plan_from_args(args: argparse.Namespace | PersonaGymOptions, spec: ModelSpec) -> dict[str, Any]:
    """The resolved plan (a dict for ``create_run``) from the ``run personagym`` options (parsed flags or the model)."""
    from analysis.methods.personagym.plan import build_personagym_plan, self_graded_roles
    from analysis.methods.personagym.session import plan_json

    args = args if isinstance(args, PersonaGymOptions) else from_args(PersonaGymOptions, args)
    params = {k: v for k, v in (("temperature", args.temperature), ("top_p", args.top_p)) if v is not None}
    plan = build_personagym_plan(
        spec, personas=args.personas, questions=args.questions, questions_per_task=args.questions_per_task,
        evaluators=args.evaluators, generator=args.generator, environments_per_persona=args.environments_per_persona,
        environments=args.environments, rubrics=args.rubrics, seed=args.seed, max_retries=args.max_retries,
        answer_max_tokens=args.max_tokens, grade_without_examples=not args.skip_incomplete_examples,
        examples_retries=args.examples_retries, params=params or None, persona_ids=args.persona_ids,
        limit_personas=args.limit_personas, answer_format=args.answer_format,
        **{f"{call}_max_tokens": args.call_max_tokens for call in ("selection", "question", "examples", "grade")},
    )
    roles = self_graded_roles(plan_json(plan), spec.public_dict())
    if roles:
        print(f"PersonaGym: self-graded — the agent {spec.name} is also the {' and the '.join(roles)} "
              "(give --evaluators / --generator to judge it with other models)", file=sys.stderr)
    return plan_json(plan)


def _num(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), 6)


def _tasks(by_persona: pd.DataFrame) -> tuple[dict[str, float | None], float | None]:
    tasks = model_task_scores(by_persona)
    return {t: _num(tasks[t]) for t in TASKS}, _num(model_persona_score(by_persona))


def _table1(row: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {k: {"mean": _num(v["mean"]), "sd": _num(v["sd"]), "n_personas": v["n_personas"]} for k, v in row.items()}


def _flag(frame: pd.DataFrame, column: str) -> pd.Series:
    values = frame[column] if column in frame else pd.Series(0, index=frame.index)
    return pd.to_numeric(values, errors="coerce").fillna(0).astype(int)


def _truncated(given: pd.DataFrame) -> pd.Series:
    """1 for an answer cut at the length limit: its flag, or (rows stored before the flag) finish_reason 'length'."""
    finish = given["finish_reason"] if "finish_reason" in given else pd.Series(None, index=given.index, dtype="string")
    return (_flag(given, "truncated").astype(bool) | (finish.astype("string") == "length").fillna(False)).astype(int)


def _persona_scores(personas: dict[str, Any]) -> dict[str, Any]:
    """Each persona's PersonaScore and five task scores (``analysis.persona_scores``), as ``personas`` holds them
    (the persona column of PersonaGym's tables is its description)."""
    constructs = {"persona_score": "PersonaScore", **{t: t for t in TASKS}}
    rows = [{"persona_id": d["id"] if isinstance(d["id"], str) else ",".join(map(str, d["id"])), "description": persona,
             "persona_score": d["persona_score"], **d["tasks"]} for persona, d in personas.items()]
    return persona_scores_doc(pd.DataFrame(rows, columns=["persona_id", "description", *constructs]), constructs)


def model_metrics(grades: pd.DataFrame, answers: pd.DataFrame, shortfall: int,
                  generators: list[str] | None = None, roles: list[str] | None = None) -> dict[str, Any]:
    """The per-model part of the metrics document from one agent model's grades and answers. Self-graded ``roles``
    come from the runs' plans when known; otherwise from the names in the data (the agent's name among the
    evaluators, or among ``generators``, the models that wrote its questions)."""
    scores = question_scores(grades)
    by_persona = persona_task_scores(scores)
    tasks, ps = _tasks(by_persona)
    given = answers[answers["status"] == "ok"]
    refused = _flag(given, "refusal")
    agent = str(given["model"].iloc[0]) if len(given) else (str(grades["model"].iloc[0]) if len(grades) else None)
    if roles is None:
        roles = (["evaluator"] if agent is not None and agent in set(grades["evaluator"]) else []) + (
            ["question generator"] if agent is not None and agent in (generators or []) else [])
    ok_grades = grades[grades["status"] == "ok"]
    incomplete = ok_grades[pd.to_numeric(ok_grades["n_examples"], errors="coerce") < 5] if "n_examples" in ok_grades \
        else ok_grades.iloc[0:0]
    by_evaluator = {}
    for ev in dict.fromkeys(grades["evaluator"]):
        ev_tasks, ev_ps = _tasks(persona_task_scores(question_scores(grades[grades["evaluator"] == ev])))
        by_evaluator[ev] = {"tasks": ev_tasks, "persona_score": ev_ps}
    personas: dict[str, Any] = {}
    for persona in dict.fromkeys(list(given["persona"]) + list(grades["persona"])):
        mine = by_persona[by_persona["persona"] == persona]
        p_tasks = {t: float(mine.loc[mine["task"] == t, "score"].iloc[0]) if (mine["task"] == t).any() else math.nan
                   for t in TASKS}
        p_grades = grades[grades["persona"] == persona]
        ids = list(dict.fromkeys(list(given.loc[given["persona"] == persona, "persona_id"]) + list(p_grades["persona_id"])))
        personas[persona] = {
            "id": ids[0] if len(ids) == 1 else ids,
            "tasks": {t: _num(v) for t, v in p_tasks.items()},
            "persona_score": _num(persona_score(p_tasks)),
            "n_graded": int((scores.loc[scores["persona"] == persona, "n_valid"] > 0).sum()),
            "invalid": int((p_grades["status"] == "invalid").sum()),
            "refusals": int(refused[given["persona"] == persona].sum()),
            "truncated": int(_truncated(given)[given["persona"] == persona].sum()),
        }
    spread = task_spread(by_persona)
    undefined = [t for t in TASKS if tasks[t] is None]
    why = (f"no valid grade for {', '.join(undefined)} (PersonaScore is the mean of all five tasks)" if undefined
           else "no persona has a valid grade on all five tasks (PersonaScore averages the personas scored on all five)")
    return {
        "headlines": {"personagym_score": number(
            ps, why, n=int((grades["status"] == "ok").sum()), of=int(grades["status"].isin(["ok", "invalid"]).sum()),
            unit="grades", read=True, bound=unread_grade_bound(grades), bound_note="every unread grade at 1 … at 5")},
        "counts": [counts("invalid grades", int((grades["status"] == "invalid").sum()),
                          int((grades["status"] == "invalid").sum() + (grades["status"] == "ok").sum())),
                   counts("refusals", int(refused.sum()), int(len(given)))],
        "tasks": tasks, "persona_score": ps,
        "n_graded": int((scores["n_valid"] > 0).sum()),
        "invalid": int((grades["status"] == "invalid").sum()),
        "refusals": int(refused.sum()),
        "role_table": role_table(refused, given["answer"] if "answer" in given else pd.Series("", index=given.index)),
        "truncated": int(_truncated(given).sum()),
        "graded_incomplete_examples": int(len(incomplete[KEYS].drop_duplicates())),
        "self_graded": {"value": bool(roles), "roles": roles},
        "table1": _table1(table1_row(by_persona)),
        "n_answers": int(len(given)),
        "not_graded": int(len(given) - (scores["n_valid"] > 0).sum()),
        "n_grades": int((grades["status"] == "ok").sum()),
        "shortfall": int(shortfall),
        "spread": {t: _num(spread[t]) for t in TASKS},
        "evaluators": list(by_evaluator),
        "by_evaluator": by_evaluator,
        "personas": personas,
        "persona_scores": _persona_scores(personas),
    }


def published_json(published: pd.DataFrame) -> dict[str, Any]:
    """Imported reference scores per model (the last imported file wins for a model imported twice)."""
    out: dict[str, Any] = {}
    for run_id, rows in published.groupby("run_id", sort=True):
        by_task = {r.task: r for r in rows.itertuples()}
        ps = by_task.get("PersonaScore")
        model = rows["model"].iloc[0]
        out[model] = {
            "tasks": {t: _num(by_task[t].score) if t in by_task else None for t in TASKS},
            "persona_score": _num(ps.score) if ps is not None else None,
            "mean_of_tasks": _num(ps.mean_of_tasks) if ps is not None else None,
            "consistent": bool(ps.consistent) if ps is not None and not pd.isna(ps.consistent) else None,
            "note": ps.note if ps is not None and isinstance(ps.note, str) else None,
            "date": rows["date"].iloc[0] if isinstance(rows["date"].iloc[0], str) else None,
            "run_id": run_id,
        }
    return out


def _plan_roles(store: Store, selection: comparable.Selection, model: str) -> list[str] | None:
    """The self-graded roles over the runs ``model``'s metrics use, from their plans (None when no run has a plan
    with personas, e.g. hand-built or imported runs)."""
    from analysis.methods.personagym.plan import self_graded_roles

    roles: dict[str, None] = {}
    known = False
    for run_id in (selection.run_ids(model) if model in selection.used else []):
        run = store.get_run(run_id)
        if isinstance(run.get("plan"), dict) and "personas" in run["plan"]:
            known = True
            roles.update(dict.fromkeys(self_graded_roles(run["plan"], run.get("model_spec") or {})))
    return list(roles) if known else None


def _table1_doc(models: dict[str, Any]) -> dict[str, Any]:
    """Table 1: our models' rows and their spread, the paper's rows and theirs."""
    ours = {m: d["table1"] for m, d in models.items()}
    paper = paper_table1()
    return {"models": ours, "spread": {k: _num(v) for k, v in model_spread(ours).items()},
            "paper": paper | {"spread": {k: _num(v) for k, v in model_spread(paper["models"]).items()}}}


def metrics_json(store: Store, model: str | None = None, config: comparable.Chosen = None, *,
                 chance: int = 0) -> dict[str, Any]:
    """The ``metrics personagym --json`` document for every agent model in the store (or only ``model``).

    Each model's grades and answers come from one configuration (``analysis.runs.comparable``: same environments,
    generator, evaluators, rubrics, decoding ...; the latest unless ``config`` names another), the latest run per
    persona within it; ``configuration`` / ``configurations`` say which. Published scores are listed apart."""
    selection = comparable.select(store, FAMILY, model=model, config=config)
    run_ids = selection.run_ids()
    cell = ["model", "persona_id"]
    grades = comparable.latest_rows(store.table(GRADES.name, run_ids=run_ids), cell, selection.order)
    answers = comparable.latest_rows(store.table(ANSWERS.name, run_ids=run_ids), cell, selection.order)
    questions = comparable.latest_rows(store.table(QUESTIONS.name, run_ids=run_ids), cell, selection.order)
    published = store.table(PUBLISHED.name)
    if model is not None:
        published = published[published["model"] == model]
        if answers.empty and grades.empty and published.empty:
            raise InputError(f"no PersonaGym results for model '{model}' in {store.path}")
    runs = store.runs()
    agent_of = dict(zip(runs["run_id"], runs["model"])) if len(runs) else {}
    missing = questions[questions["status"].isin(["shortfall", "not_asked"])]
    shortfall = missing["run_id"].map(agent_of).value_counts()
    models: dict[str, Any] = {}
    # an agent whose runs asked nothing (no environment picked) is listed too: scores undefined, its shortfall said
    for name in dict.fromkeys(list(answers["model"]) + list(grades["model"]) + list(missing["run_id"].map(agent_of))):
        mine = grades[grades["model"] == name]
        generated = questions[(questions["run_id"].map(agent_of) == name) & (questions["source"] == "run")]
        doc = model_metrics(mine, answers[answers["model"] == name], int(shortfall.get(name, 0)),
                            list(dict.fromkeys(generated["model"])), _plan_roles(store, selection, name)) \
            | selection.document(name)
        doc["judges"] = pg_chance.judge_agreement(mine)
        if chance > 0 and len(mine):
            doc["chance"] = pg_chance.model_chance(mine, doc, n_sims=chance, store=store)
        models[name] = doc
    return {"models": models, "published": published_json(published), "judges": pg_chance.ranking_without(grades),
            "table1": _table1_doc(models),
            "figure4": {m: {"refusals": d["refusals"], "n_answers": d["n_answers"]} for m, d in models.items()}}


def import_command(kind: str, paths: list[Path], store_path: Path, as_json: bool) -> int:
    """``import personagym PATH...``: every file parsed before the store is opened (a refused import changes
    nothing); one line per run and per warning on stderr; ``--json``: the run ids and warnings."""
    from analysis.errors import one_line
    from analysis.methods.personagym.importer import parse_files, store_parsed
    from analysis.runs.store import Store

    notes: list[str] = []
    parsed = parse_files(paths)
    with Store(store_path) as store:
        run_ids = store_parsed(store, parsed, notes)
    for run_id in run_ids:
        print(f"imported {run_id}", file=sys.stderr)
    for note in notes:
        print(f"warning: {one_line(note)}", file=sys.stderr)
    if as_json:
        print(json.dumps({"run_ids": run_ids, "warnings": notes}))
    return 0


def plans(args: argparse.Namespace | Any, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    """``Method.plans``: one run."""
    return [("", plan_from_args(args, spec))]


def report(store: Store, model: str | None = None, *, config: Any = None, n_boot: int = 1000,
           chance: int = 0) -> dict[str, Any]:
    """``Method.report``: ``metrics_json`` (``n_boot`` is not used: no PersonaGym number is bootstrapped)."""
    return metrics_json(store, model, config=config, chance=chance)


