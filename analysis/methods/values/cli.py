"""CLI glue for ``python -m analysis run values`` (wired through the registry in ``analysis/__main__.py``).

- ``add_run_arguments(parser)``: the ``run values`` options (``--model``, ``--run-id``, ``--store`` and execution
  options are the caller's).
- ``plans_from_args(args, spec)``: ``[(suffix, plan)]``: one plan, or the two runs (PVQ, SVS) of ``--campaign
  leaderboard``, whose sources and estimate are printed first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from analysis.cli_types import csv_list, non_negative_float, positive_int
from analysis.errors import InputError
from analysis.llm.specs import ModelSpec


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``run values``."""
    parser.add_argument("--population", default="default", help="'default' or a personas.json path / hf:// path")
    parser.add_argument("--contexts", type=csv_list, default=["no_conv"], help="comma list: no_conv, topics_a, chess, ..., chunk .jsonl paths")
    parser.add_argument("--instrument", default="pvq", help="pvq (bundled) | svs | PATH (json or data_pvq/data_svs folder) | hf://datasets/...")
    parser.add_argument("--limit-personas", type=positive_int)
    parser.add_argument("--limit-items", type=positive_int)
    parser.add_argument("--messages", type=int, default=3,
                        help="messages generated after the opening: persona, interlocutor, persona... (odd; default 3, "
                             "the leaderboard's n_msgs); with --structure appended: length incl. the opening")
    parser.add_argument("--answer-mode", choices=["logprob", "text", "cot"],
                        help="logprob (default): the letter after '(' by logprobs; text: '(X)' in 10 tokens; cot: "
                             "reasoning, then 'Answer: (X)' in 2000 tokens (the leaderboard's configs; --campaign default)")
    parser.add_argument("--campaign", choices=["leaderboard"],
                        help="leaderboard: the nine evaluations of the Stick to Your Role! leaderboard (needs --reference)")
    parser.add_argument("--reference", metavar="PATH",
                        help="with --campaign: your clone of flowersteam/value_stability (or hf://datasets/... of its layout)")
    parser.add_argument("--samples", type=positive_int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--conversation-temperature", type=non_negative_float, default=0.7,
                        help="conversation turns (default 0.7)")
    parser.add_argument("--answer-temperature", type=non_negative_float, default=0.0, help="answers and SVS picks (default 0)")
    parser.add_argument("--conversation-max-tokens", type=positive_int, default=100, help="per conversation turn (default 100)")
    parser.add_argument("--structure", choices=["reference", "appended"], default="reference",
                        help="appended: RoleScope's earlier protocol (the question glued onto the last interlocutor turn)")
    parser.add_argument("--persona-prompt", choices=["reference", "in-character"], default="reference",
                        help="reference: 'You are {description}'; in-character: also asks to stay in character")
    parser.add_argument("--no-system-role", action="store_true",
                        help="for models without a system role: the persona prompt as a user message answered 'OK'")
    parser.add_argument("--svs-order", choices=["sequential", "parallel"], default="sequential",
                        help="SVS: rate the rest of a list one after another in one history (reference) or independently")
    parser.add_argument("--prefix-reuse", action="store_true",
                        help="embedded: reuse the KV cache of the shared prefix (persona + conversation) across items; "
                             "~4-5x fewer prompt tokens, same argmax answers in bench/bench_prefix.py, but logprobs and "
                             "greedy turns are not bit-identical, so off by default")


def plans_from_args(args: argparse.Namespace, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    from analysis.methods.values.method import build_values_plan

    protocol = dict(
        samples=args.samples, seed=args.seed, prefix_reuse=args.prefix_reuse, messages=args.messages,
        structure=args.structure, persona_prompt=args.persona_prompt, system_role=not args.no_system_role,
        svs_order=args.svs_order, conversation_temperature=args.conversation_temperature,
        answer_temperature=args.answer_temperature, conversation_max_tokens=args.conversation_max_tokens,
    )
    if args.campaign:
        return _campaign_plans(args, spec, protocol)
    if args.reference:
        raise InputError("--reference goes with --campaign leaderboard")
    plan = build_values_plan(
        spec, population=args.population, contexts=args.contexts, instrument=args.instrument,
        limit_personas=args.limit_personas, limit_items=args.limit_items, answer_mode=args.answer_mode or "logprob",
        **protocol,
    )
    return [("", plan.model_dump())]


def _campaign_plans(args: argparse.Namespace, spec: ModelSpec, protocol: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """``run values --campaign leaderboard``: its sources and estimate on stderr, then its two runs (PVQ, SVS)."""
    from analysis.methods.values.campaign import leaderboard_campaign
    from analysis.methods.values.tokens import plan_tokens
    from analysis.runs.estimate import estimate_run, measured_throughput
    from analysis.runs.store import Store

    if not args.reference:
        raise InputError("--campaign leaderboard needs --reference PATH (your clone of flowersteam/value_stability)")
    if args.contexts != ["no_conv"] or args.instrument != "pvq" or args.population != "default" or args.limit_items:
        raise InputError("--campaign leaderboard sets the population, contexts and instruments; drop --population, "
                         "--contexts, --instrument and --limit-items (--limit-personas runs a reduced population)")
    campaign = leaderboard_campaign(spec, args.reference, answer_mode=args.answer_mode or "cot",
                                    limit_personas=args.limit_personas, **protocol)
    for line in campaign.sources:
        print(line, file=sys.stderr)
    measured = None
    if args.store.exists():
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
    file failed. Files are parsed before the store is opened; the parsed ones are stored."""
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
