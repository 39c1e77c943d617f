"""CLI glue for ``python -m analysis run|metrics|import`` (wired in ``analysis/__main__.py``).

- ``add_run_arguments(parser)``: the ``run mbti`` options (``--model`` and ``--run-id`` only when
  the parser lacks them; ``--store`` and execution options are the caller's).
- ``plan_from_args(args, spec)``: the plan dict for ``create_run``.
- ``metrics_json(store, model)``: the ``metrics mbti --json`` document::

    {"models": {NAME: {"subjects": {SUBJ: {"scores": {"E": x, "N": x, "T": x, "J": x, "A": x},
                                           "type": "ENTJ-T", "consistency": x, "n_testings": n,
                                           "invalid": n}},
                       "robustness": {SUBJ: x},
                       "fairness": {"Men|Women": x, "Boys|Girls": x}}}}

  A subject's scores, type and consistency come from its permuted-order testings (the paper's
  unbiased prompts), or from its fixed-order ones when it has no permuted testing; ``invalid``
  counts the invalid answers of those testings. Only the runs of one configuration count (the latest
  unless ``config`` names another; ``analysis.runs.comparable``); each model's entry also carries
  ``configuration`` (the id used) and ``configurations`` (every one found, how each differs). ``robustness`` lists the subjects that have both
  orders. A fairness pair is null unless both of its subjects are present (names matched
  case-insensitively). Numbers that cannot be computed are null.
- ``import_files(store, paths)``: ``import chatgpt-mbti PATH...`` (see ``analysis.methods.mbti.importer``).
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import pandas as pd

from analysis.cli_types import non_negative_float, non_negative_int, positive_int
from analysis.cli_types import run_id as run_id_type
from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.base import counts, number
from analysis.methods.mbti import DIMENSIONS, role_of
from analysis.methods.mbti import chance as mbti_chance
from analysis.methods.mbti.importer import import_files
from analysis.methods.mbti.metrics import consistency, fairness, robustness
from analysis.methods.mbti.scoring import mean_scores, scores_by_testing, type_code
from analysis.methods.mbti.session import ANSWERS
from analysis.methods.mbti.subjects import DEFAULT_SUBJECTS, FAIRNESS_PAIRS, background_of
from analysis.runs import comparable
from analysis.runs.store import Store

__all__ = ["add_run_arguments", "plan_from_args", "metrics_json", "import_files"]


def _csv_list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``run mbti``."""
    existing = parser._option_string_actions  # noqa: SLF001 - only to avoid adding --model/--run-id twice
    if "--model" not in existing:
        parser.add_argument("--model", required=True, help="embedded | openai:<m> | hf:<m> | <m>@<url> | name in models.toml")
    parser.add_argument("--subjects", type=_csv_list, default=list(DEFAULT_SUBJECTS),
                        help="comma list of groups (default: %(default)s), e.g. Doctors,'Low-income people', or one "
                             "person as Name:she, Name:he or Name:they")
    parser.add_argument("--background", type=_csv_list, default=None,
                        help="background subjects (the paper's Table 4): comma list of income, age, education")
    parser.add_argument("--testings", type=positive_int, default=15,
                        help="independent testings per subject and order (default 15)")
    parser.add_argument("--order", choices=["permuted", "fixed", "both"], default="permuted",
                        help="option order: permuted per question (seeded), fixed Correct..Wrong, or both (robustness)")
    parser.add_argument("--statements", default="default", help="'default' (bundled) or a statements .json/.csv/.txt file")
    parser.add_argument("--key", help="key for the statements: chatgpt-mbti (the original 60) or a key .json/.csv file")
    parser.add_argument("--limit-statements", type=positive_int, help="ask only the first N statements")
    parser.add_argument("--answer-mode", choices=["text", "logprob"], default="text",
                        help="text: free reply to the options in words (default); logprob: one letter A-G")
    parser.add_argument("--seed", type=int, default=0, help="seed of the option permutations")
    parser.add_argument("--temperature", type=non_negative_float)
    parser.add_argument("--max-tokens", type=positive_int,
                        help="text mode: reply length limit (default: none, the model's own, as the reference); a reply "
                             "that hits it is flagged truncated")
    parser.add_argument("--history", type=non_negative_int,
                        help="keep only the last N exchanges in each conversation (default: all; embedded: 10)")
    parser.add_argument("--prefix-reuse", action="store_true", help="embedded: keep the shared prompt prefix in the KV cache")
    if "--run-id" not in existing:
        parser.add_argument("--run-id", type=run_id_type)


def plan_from_args(args: argparse.Namespace, spec: ModelSpec) -> dict[str, Any]:
    """The resolved plan (a dict for ``create_run``) from parsed ``run mbti`` options."""
    from analysis.methods.mbti.method import build_mbti_plan

    plan = build_mbti_plan(
        spec, subjects=args.subjects if args.background is None or args.subjects != list(DEFAULT_SUBJECTS) else None,
        backgrounds=args.background, testings=args.testings, order=args.order, statements=args.statements,
        key=args.key, limit_statements=args.limit_statements, answer_mode=args.answer_mode, seed=args.seed,
        history=args.history, text_max_tokens=args.max_tokens, prefix_reuse=args.prefix_reuse,
        params={"temperature": args.temperature} if args.temperature is not None else None,
    )
    return plan.model_dump()


def _num(value: float) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else round(float(value), 6)


def _matrix(testings: pd.DataFrame) -> pd.DataFrame:
    return testings[list(DIMENSIONS)].astype(float)


def model_metrics(testings: pd.DataFrame) -> dict[str, Any]:
    """The per-model part of the metrics document from one model's ``scores_by_testing`` rows."""
    subjects: dict[str, Any] = {}
    robust: dict[str, float | None] = {}
    chosen_by_subject: dict[str, pd.DataFrame] = {}
    for subject in dict.fromkeys(testings["subject"]):
        mine = testings[testings["subject"] == subject]
        permuted, fixed = mine[mine["order_mode"] == "permuted"], mine[mine["order_mode"] == "fixed"]
        chosen = permuted if len(permuted) else fixed
        chosen_by_subject[subject.lower()] = chosen
        scores = mean_scores(chosen)
        subjects[subject] = {
            "scores": {d: _num(scores[d]) for d in DIMENSIONS},
            "type": type_code(scores),
            "role": role_of(type_code(scores)),
            "background": background_of(subject),
            "consistency": _num(consistency(_matrix(chosen))),
            "n_testings": int(len(chosen)),
            "invalid": int(chosen["n_invalid"].sum()),
            "truncated": int(chosen["n_truncated"].sum()) if "n_truncated" in chosen else 0,
        }
        if len(permuted) and len(fixed):
            robust[subject] = _num(robustness(_matrix(fixed), _matrix(permuted)))
    fair: dict[str, float | None] = {}
    for male, female in FAIRNESS_PAIRS:
        m, f = chosen_by_subject.get(male.lower()), chosen_by_subject.get(female.lower())
        fair[f"{male}|{female}"] = _num(fairness(_matrix(m), _matrix(f))) if m is not None and f is not None else None
    return {"subjects": subjects, "robustness": robust, "fairness": fair}


def selected_answers(store: Store, model: str | None = None, config: comparable.Chosen = None,
                     selection: comparable.Selection | None = None) -> pd.DataFrame:
    """``mbti_answers`` of each model's chosen configuration (``analysis.runs.comparable``: same statements, answer
    mode, decoding, history, seed ...), keeping within it the latest run of each subject × order × testing."""
    selection = selection or comparable.select(store, "mbti", model=model, config=config)
    answers = store.table(ANSWERS.name, run_ids=selection.run_ids())
    return comparable.latest_rows(answers, ["model", "subject", "order_mode", "testing"], selection.order)


def metrics_json(store: Store, model: str | None = None, config: comparable.Chosen = None, *,
                 chance: int = 0) -> dict[str, Any]:
    """The ``metrics mbti --json`` document for every model in the store (or only ``model``), each on one
    configuration (``configuration``: its id; ``configurations``: every one found, see ``analysis.runs.comparable``),
    with its ``reliability`` and, when ``chance`` > 0, its null bands (``analysis.methods.mbti.chance``)."""
    selection = comparable.select(store, "mbti", model=model, config=config)
    answers = selected_answers(store, selection=selection)
    if model is not None and answers.empty:
        raise InputError(f"no MBTI answers for model '{model}' in {store.path}")
    scores = scores_by_testing(answers)
    models = {}
    for name in dict.fromkeys(scores["model"]):
        mine = answers[answers["model"] == name]
        doc = model_metrics(scores[scores["model"] == name]) | selection.document(name)
        defined = [s["consistency"] for s in doc["subjects"].values() if s["consistency"] is not None]
        doc["headlines"] = {"mbti_consistency": number(sum(defined) / len(defined) if defined else None,
                                                       "no subject has a defined consistency (needs ≥ 2 scored testings)")}
        doc["counts"] = [counts("invalid answers", int((mine["valid"] != 1).sum()), len(mine))]
        doc["reliability"] = mbti_chance.model_reliability(mine)
        if chance > 0:
            doc["chance"] = mbti_chance.model_chance(mine, doc, n_sims=chance, store=store)
        models[name] = doc
    return {"models": models}
