"""CLI glue for ``python -m analysis run|import`` (wired in ``analysis/__main__.py``; ``metrics`` reads the report,
``analysis.methods.mbti.report``).

- ``plan_from_args(args, spec)``: the plan dict for ``create_run``.
- ``import_files(store, paths)``: ``import chatgpt-mbti PATH...`` (see ``analysis.methods.mbti.importer``).
"""

from __future__ import annotations

import argparse
import sys
import json
from pathlib import Path
from typing import Any

from analysis.llm.specs import ModelSpec
from analysis.methods.mbti.importer import import_files
from analysis.methods.mbti.options import MbtiOptions
from analysis.methods.options import from_args
from analysis.methods.mbti.subjects import DEFAULT_SUBJECTS

__all__ = ["plan_from_args", "import_files"]


def plan_from_args(args: argparse.Namespace | MbtiOptions, spec: ModelSpec) -> dict[str, Any]:
    """The resolved plan (a dict for ``create_run``) from the ``run mbti`` options (parsed flags or the model)."""
    from analysis.methods.mbti.plan import build_mbti_plan

    args = args if isinstance(args, MbtiOptions) else from_args(MbtiOptions, args)
    plan = build_mbti_plan(
        spec, subjects=args.subjects if args.background is None or args.subjects != list(DEFAULT_SUBJECTS) else None,
        backgrounds=args.background, testings=args.testings, order=args.order, statements=args.statements,
        key=args.key, limit_statements=args.limit_statements, answer_mode=args.answer_mode, seed=args.seed,
        history=args.history, text_max_tokens=args.max_tokens, prefix_reuse=args.prefix_reuse,
        params={"temperature": args.temperature} if args.temperature is not None else None,
        answer_format=args.answer_format,
    )
    return plan.model_dump()


def import_command(kind: str, paths: list[Path], store_path: Path, as_json: bool) -> int:
    """``import chatgpt-mbti PATH...``: every file parsed before the store is opened (a refused import changes
    nothing); one line per run on stderr; ``--json``: the run ids."""
    from analysis.methods.mbti.importer import import_notes, parse_files, store_parsed
    from analysis.runs.store import Store

    parsed = parse_files(paths)
    with Store(store_path) as store:
        before = {r["run_id"] for r in store.query("SELECT run_id FROM runs")}
        run_ids = store_parsed(store, parsed)
    for p in parsed:
        state = "already in the store" if p.run_id in before else "imported"
        print(f"{state} {p.run_id}", file=sys.stderr)
    for note in import_notes(parsed):
        print(f"note: {note}", file=sys.stderr)
    if as_json:
        files = [{"path": str(p.path), "model": p.model, "run_id": p.run_id, "subjects": p.plan["subjects"],
                  "answers": p.plan["summary"]["answers"], "invalid": p.plan["summary"]["invalid"],
                  "new": p.run_id not in before, "note": p.plan.get("note")} for p in parsed]
        print(json.dumps({"run_ids": run_ids, "files": files}))
    return 0


def plans(args: argparse.Namespace | MbtiOptions, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    """``Method.plans``: one run."""
    return [("", plan_from_args(args, spec))]
