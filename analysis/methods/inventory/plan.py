"""Building an inventory plan from the run options (``run inventory`` and the Run page share it)."""

from __future__ import annotations

import argparse
from collections.abc import Collection
from typing import Any

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.inventory.inventory import load_inventory
from analysis.methods.inventory.options import InventoryOptions
from analysis.methods.inventory.personas import Persona, design
from analysis.methods.inventory.session import InventoryPlan
from analysis.methods.options import from_args


def build_plan(options: InventoryOptions, spec: ModelSpec, personas: list[Persona] | None = None,
               whole_facets: Collection[str] = ()) -> InventoryPlan:
    """Resolve every source now, so the stored plan is self-contained. ``personas``: these instead of the shaping
    design's (a cross-method campaign's); ``whole_facets``: facets whose every item is asked under ``limit_items``."""
    inventory = load_inventory(options.inventory).limited(options.limit_items, whole_facets)
    if not any(i.domain for i in inventory.items):
        raise InputError(f"--limit-items {options.limit_items} keeps no scored item")
    if options.answer_format == "json" and options.answer_mode == "logprob":
        raise InputError("--answer-format json asks for a JSON reply; --answer-mode logprob reads one token's logprobs "
                         "(use --answer-mode text)")
    if options.answer_mode == "logprob" and spec.max_top_logprobs < inventory.n_options:
        raise InputError(f"model {spec.name} returns at most {spec.max_top_logprobs} top logprobs; use --answer-mode text")
    if personas is None:
        personas = design(shaping=options.shaping == "single", domains=options.domains, levels=options.levels,
                          biographies=options.biographies, limit=options.personas, ids=options.persona_ids)
    if not personas:
        raise InputError("the persona design is empty")
    params = dict(spec.params)
    if options.temperature is not None:
        params["temperature"] = options.temperature
    return InventoryPlan(
        inventory=inventory, personas=personas,
        orders=["ascending", "descending"] if options.order == "both" else [options.order],
        answer_mode=options.answer_mode, shaping=options.shaping == "single", params=params,
        top_logprobs=min(200, spec.max_top_logprobs), text_max_tokens=options.max_tokens,
        prefix_reuse=options.prefix_reuse, answer_format=options.answer_format)


def plan_from_args(args: argparse.Namespace | InventoryOptions, spec: ModelSpec) -> dict[str, Any]:
    """The resolved plan (a dict for ``create_run``) from parsed flags or the options model."""
    options = args if isinstance(args, InventoryOptions) else from_args(InventoryOptions, args)
    return build_plan(options, spec).model_dump()


def plans(args: argparse.Namespace | InventoryOptions, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    """``Method.plans``: one run."""
    return [("", plan_from_args(args, spec))]
