"""CLI glue for ``python -m analysis run values`` (wired through the registry in ``analysis/__main__.py``).

- ``plans_from_args(args, spec)``: ``[(suffix, plan)]``: one plan, or the two runs (PVQ, SVS) of ``--campaign
  leaderboard``, whose sources and estimate are printed first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.options import from_args
from analysis.methods.values.options import ValuesOptions
from analysis.methods.values.plan import answer_mode_of, build_values_plan, protocol_of


def plans_from_args(args: argparse.Namespace | ValuesOptions, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    """(run-id suffix, plan) for every run ``run values`` makes: one, or a campaign's two."""
    args = args if isinstance(args, ValuesOptions) else from_args(ValuesOptions, args)
    protocol = protocol_of(args)
    if args.campaign:
        return _campaign_plans(args, spec, protocol)
    if args.reference:
        raise InputError("--reference goes with --campaign leaderboard")
    plan = build_values_plan(
        spec, population=args.population, contexts=args.contexts, instrument=args.instrument,
        limit_personas=args.limit_personas, persona_ids=args.persona_ids,
        limit_items=args.limit_items, answer_mode=answer_mode_of(args),
        **protocol,
    )
    return [("", plan.model_dump())]


def _campaign_plans(args: ValuesOptions, spec: ModelSpec, protocol: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``run values --campaign leaderboard``: its sources and estimate on stderr, then its two runs (PVQ, SVS)."""
    from analysis.methods.values.campaign import leaderboard_campaign
    from analysis.methods.values.tokens import plan_tokens
    from analysis.runs.estimate import estimate_run, measured_throughput
    from analysis.runs.store import Store

    if not args.reference:
        raise InputError("--campaign leaderboard needs --reference PATH (your clone of flowersteam/value_stability)")
    if (args.contexts != ["no_conv"] or args.instrument != "pvq" or args.population != "default" or args.limit_items
            or args.persona_ids):
        raise InputError("--campaign leaderboard sets the population, contexts and instruments; drop --population, "
                         "--contexts, --instrument, --limit-items and --persona-ids (--limit-personas runs a reduced "
                         "population)")
    campaign = leaderboard_campaign(spec, args.reference, answer_mode=answer_mode_of(args),
                                    limit_personas=args.limit_personas, **protocol)
    for line in campaign.sources:
        print(line, file=sys.stderr)
    measured = None
    if args.store is not None and args.store.exists():
        with Store(args.store, read_only=True) as store:
            measured = measured_throughput(store, spec.name, "values")
    for name, plan in (("PVQ", campaign.pvq), ("SVS", campaign.svs)):
        est = estimate_run("values", plan_tokens(plan), spec, plan.n_calls(), measured)
        tokens = f"~{est.tokens_in:,} tokens in, ~{est.tokens_out:,} out" if est.tokens_in is not None else "tokens unknown"
        time = f", ~{est.seconds / 60:.0f} min" if est.seconds is not None else ""
        print(f"{name}: {len(plan.personas)} personas x {len(plan.contexts)} contexts, {est.n_calls:,} calls, {tokens}"
              f"{time} ({est.basis})", file=sys.stderr)
    return [("pvq", campaign.pvq.model_dump()), ("svs", campaign.svs.model_dump())]


def import_command(kind: str, paths: list[Path], store_path: Path, as_json: bool) -> int:
    """``import value-stability PATH...``: one line per file on stderr (errors name the file and key); exit 2 if any
    file failed. Files are parsed before the store is opened; the parsed ones are stored. ``import lee-values PATH``:
    ``import_lee_command``."""
    if kind == "lee-values":
        return import_lee_command(paths, store_path, as_json)
    from analysis.errors import one_line
    from analysis.llm.keys import redact
    from analysis.methods.values.importer import parse_value_stability, store_parsed
    from analysis.runs.store import Store

    parsed, reports = parse_value_stability(paths)
    if parsed:
        with Store(store_path) as store:
            reports = reports + store_parsed(store, parsed)
    for report in reports:
        print(one_line(redact(report.line())), file=sys.stderr)
    if as_json:
        print(json.dumps([r.as_dict() for r in reports], indent=1))
    return 2 if any(r.status == "failed" for r in reports) else 0


def import_lee_command(paths: list[Path], store_path: Path, as_json: bool) -> int:
    """``import lee-values PATH...``: every file read and checked before the store opens (a bad one: InputError, exit
    2, nothing stored); one line per model on stderr (its run, and RoleScope's reading against the authors' letters)."""
    from analysis.methods.values.import_lee import parse_source, store_parsed
    from analysis.runs.store import Store

    parsed = parse_source(paths)
    with Store(store_path) as store:
        stored = store_parsed(store, parsed)
    for m, created in stored:
        print(("imported " if created else "already imported ") + m.line(), file=sys.stderr)
    if as_json:
        print(json.dumps([m.report() | {"status": "imported" if created else "already imported"}
                          for m, created in stored], indent=1))
    return 0
