"""CLI glue for ``python -m analysis run|import`` (wired in ``analysis/__main__.py``; ``metrics`` reads the report,
``analysis.methods.mbti.report``).

- ``add_run_arguments(parser)``: the ``run mbti`` options (``--model`` and ``--run-id`` only when
  the parser lacks them; ``--store`` and execution options are the caller's).
- ``plan_from_args(args, spec)``: the plan dict for ``create_run``.
- ``import_files(store, paths)``: ``import chatgpt-mbti PATH...`` (see ``analysis.methods.mbti.importer``).
"""

from __future__ import annotations

import argparse
import sys
import json
from pathlib import Path
from typing import Any

from analysis.cli_types import csv_list, non_negative_float, non_negative_int, positive_int
from analysis.cli_types import run_id as run_id_type
from analysis.llm.specs import ModelSpec
from analysis.methods.mbti.importer import import_files
from analysis.methods.mbti.subjects import DEFAULT_SUBJECTS

__all__ = ["add_run_arguments", "plan_from_args", "import_files"]


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``run mbti``."""
    existing = parser._option_string_actions  # noqa: SLF001 - only to avoid adding --model/--run-id twice
    if "--model" not in existing:
        parser.add_argument("--model", required=True, help="embedded | openai:<m> | hf:<m> | <m>@<url> | name in models.toml")
    parser.add_argument("--subjects", type=csv_list, default=list(DEFAULT_SUBJECTS),
                        help="comma list of groups (default: %(default)s), e.g. Doctors,'Low-income people', or one "
                             "person as Name:she, Name:he or Name:they")
    parser.add_argument("--background", type=csv_list, default=None,
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


def import_command(kind: str, paths: list[Path], store_path: Path, as_json: bool) -> int:
    """``import chatgpt-mbti PATH...``: every file parsed before the store is opened (a refused import changes
    nothing); one line per run on stderr; ``--json``: the run ids."""
    from analysis.methods.mbti.importer import parse_files, store_parsed
    from analysis.runs.store import Store

    parsed = parse_files(paths)
    with Store(store_path) as store:
        run_ids = store_parsed(store, parsed)
    for run_id in run_ids:
        print(f"imported {run_id}", file=sys.stderr)
    if as_json:
        print(json.dumps({"run_ids": run_ids}))
    return 0
