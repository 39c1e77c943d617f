"""The values part of the demo campaign (``analysis.demo``): the PVQ after each context, with prefix reuse."""

from __future__ import annotations

from typing import Any

from analysis.demo_config import DemoConfig, DemoPart, Size

SIZES: dict[Size, dict[str, Any]] = {
    "full": {"personas": 20, "items": None, "contexts": ["no_conv", "topics_a", "topics_b", "chess"],
             "campaign_items": None},
    # one persona, one conversation context (prefix reuse), short conversation messages
    "reduced": {"personas": 1, "items": 4, "contexts": ["no_conv", "topics_b"], "campaign_items": 2,
                "conversation_max_tokens": 40},
}


def _conversation(size: Size) -> dict[str, Any]:
    """The conversation settings of a size (the method's defaults unless the size sets them)."""
    return {k: SIZES[size][k] for k in ("conversation_max_tokens",) if k in SIZES[size]}


def plan(config: DemoConfig, size: Size) -> dict[str, Any]:
    from analysis.methods.values.plan import build_values_plan

    s = SIZES[size]
    return build_values_plan(config.spec(), contexts=s["contexts"], limit_personas=s["personas"],
                             limit_items=s["items"], answer_mode=config.answer_mode, seed=0,
                             prefix_reuse=True, **_conversation(size)).model_dump()


def svs_plan(config: DemoConfig, size: Size, svs: Any) -> dict[str, Any]:
    """no_conv on the SVS procedure (``demo build --svs PATH``: the instrument comes from the user, never bundled)."""
    from analysis.methods.values.plan import build_values_plan

    s = SIZES[size]
    return build_values_plan(config.spec(), contexts=["no_conv"], instrument=svs, limit_personas=s["personas"],
                             limit_items=s["items"], answer_mode=config.answer_mode, seed=0,
                             prefix_reuse=True).model_dump()


def campaign_settings(config: DemoConfig, size: Size) -> list[str]:
    """This method's options in the demo's cross-method campaign (``METHOD.FIELD=VALUE``)."""
    items = SIZES[size]["campaign_items"]
    return [f"values.answer_mode={config.answer_mode}", "values.prefix_reuse=true",
            *([f"values.limit_items={items}"] if items else [])]


def precompute(store: Any, n_sims: int, *, n_boot: int) -> None:
    """The separability and CFA fit nulls of every model × context the Structure page draws (beyond ``Method.chance``),
    kept in the store as the page asks for them (``analysis.methods.values.fit_chance``)."""
    from analysis.methods.values.fit_chance import cached_fit_chance
    from analysis.methods.values.method import METHOD

    report = METHOD.cached_report(store, n_boot=n_boot, chance=n_sims)
    for model, doc in sorted(report["models"].items()):
        for key in doc.get("contexts") or {}:
            cached_fit_chance(store, model, key, n_sims, n_boot=n_boot)


PARTS = (DemoPart("values", "values", plan), DemoPart("values-svs", "values", svs_plan, needs="svs"))
