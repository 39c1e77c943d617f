"""CLI glue for ``python -m analysis run trust`` and ``metrics trust`` (wired in ``analysis/__main__.py``).

- ``plan_from_args(args, spec)``: the plan dict for ``create_run``.
- ``metrics_json(store, model, n_boot=1000)``: the ``metrics trust --json`` document::

    {"models": {NAME: {
        "population": {STRATEGY: {"attributes": {ATTR: {"spearman": x, "eta2_belief": x, "eta2_behaviour": x,
                                                        "abs_diff": x, ...CIs and rankings, "n_grouped": n,
                                                        "n_outside_levels": n, "outside_levels": {VALUE: n}}},
                                  "median_spearman": x, "median_abs_diff": x, "mae_eta2": x, ...CIs, "n_personas": n}},
        "conditioning": {COND: {"attributes": {ATTR: {"spearman_imposed": x, "spearman_original": x, "prior_spearman": x,
                                                      "target": x, "target_reached": b, "abs_diff": x, ...}},
                                "median_spearman_imposed": x, "median_spearman_original": x, "strategy": S,
                                "median_spearman_imposed_reached": x, "n_reached": n, "n_with_target": n,
                                "mae_eta2": x, "invalid_transfers": count entry (its games' replies), ...}},
        "individual": {"archetypes": {K: {"mae_by_round": [..], "mae": x, "mae_ci": [lo, hi], ...}},
                       "trajectories": {K: {PERSONA: [{"round", "forecast", "explanation", "sent", "returned", ...}]}}},
        "endowment": E, "endowments": {E: {STRATEGY: {"mean_spearman": x, "median_spearman": x, "median_abs_diff": x,
                                                      "mae_eta2": x, "attributes": {ATTR: {"spearman": x, "abs_diff": x}}}}},
        "counts": [count entry "invalid replies": every reply above, and every imported condition's],
        "invalid": {"beliefs": n, "transfers": n, "forecasts": n, "rounds": n}, "n_rows": {...}: planned answers;
        "invalid_replies": {...}, "n_replies": {...}: those a reply came for (not: rounds never played, failed calls);
        "invalid_reasons": {TABLE: {REASON: n}},
        "behaviour": {"n_personas": n, "mean_sent": x, "sent_counts": {"[d, d+1)": n}, "conditioning": C, "priors_in_prompt": n,
                      "attributes": {ATTR: {"means": {LEVEL: x}, "n": {LEVEL: n}, "eta2": x,
                                            "n_grouped": n, "n_outside_levels": n, "outside_levels": {VALUE: n}}}},
        "play": {K: {"mean_sent": [per round], "n": [per round], "n_personas": n}},
        "personas": {LEVEL: {"attribute_set": "paper"|"rolescope15", "source": "generated"|"genagents", "n": n, ...}},
        "imported": {CONFIG_ID: {"condition": C, "source": S, "endowment": E, "run_ids": [..], "used": b, "supports": text,
                                 "amount_sent": {"n", "valid", "mean": number, "sd": number, "distribution": {"[d, d+1)": n},
                                                 "n_fractional"},
                                 "amount_sent_reader": {...the same...},
                                 "reader_agreement": {CLASS: {"n": n, "examples": [persona ids], "label": text}},
                                 "invalid_replies": count entry (RoleScope's reading of the condition's replies),
                                 "shift_from_base": {"mean": number, "ci": [lo, hi], "n_pairs": n, ...} (not the base)}},
        "headlines": {"trust_spearman": number + strategy/note,
                      "trust_vs_human": number + {"ci": {"lo", "hi"}, "ci_units": "personas; humans", "unit",
                                                  "model_mean", "human_mean", "n_humans", "endowment", "scaled",
                                                  "source", "baseline_note", "note"}}}}}

  ``trust_vs_human`` (``analysis.methods.trust.versus_human``): the mean amount sent (on a $10 scale) of the model's
  unconditioned single-round games, or of an imported model's base condition, minus the human mean of Berg, Dickhaut
  & McCabe (1995), with a bootstrap CI over personas and humans resampled independently.

  ``imported`` (``analysis.methods.trust.imported``): one entry per imported configuration of the model (the
  agent-trust importer: one per condition of the source), from the source's own amounts and from RoleScope's reading
  of the replies; for a model whose used population configuration is an import, ``trust_spearman`` is null with the
  reason that the source elicited no beliefs apart from the game.

  ``behaviour``, ``play`` and ``invalid_reasons`` (``analysis.methods.trust.behaviour``) describe the play
  alone, so a model whose beliefs or forecasts never parse still has something to show.

  Which rows count: population and individual metrics each use one configuration per model
  (``analysis.runs.comparable``: the latest unless ``config`` names another; ``configuration`` and
  ``configurations`` list them per level); ``endowments`` lists the medians of the configurations
  that differ from it in the endowment alone (the ablation). Beliefs:
  per strategy and attribute the latest run's valid belief. Behaviour: the unconditioned valid
  transfers, one per persona (latest run). Conditioning: 'none' is the unconditioned behaviour
  against the conditioning strategy's own beliefs; 'self'/'weak'/'strong' come from the latest run
  of that conditioning (its stored priors and its transfers). Numbers that cannot be computed are
  null. Ctx+$ belief η² assumes groups of ``assumed_group_size`` (10) per level.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.trust.families import INDIVIDUAL, POPULATION
from analysis.methods.trust.options import TrustOptions
from analysis.methods.options import from_args
from analysis.persona_scores import persona_scores_doc, plan_descriptions
from analysis.runs import comparable
from analysis.runs.store import Store
from analysis.stats import json_number
from analysis.methods.base import counts, number
from analysis.methods.trust import chance as trust_chance
from analysis.methods.trust import CONDITIONINGS, DEFAULT_ENDOWMENT, STRATEGIES
from analysis.methods.trust.behaviour import invalid_reasons, play_by_round, population_behaviour
from analysis.methods.trust.personas import plan_levels
from analysis.methods.trust.consistency import Belief, belief_from_row, conditioning_consistency, population_consistency
from analysis.methods.trust.effects import ASSUMED_GROUP_SIZE
from analysis.methods.trust.forecasting import individual_consistency, trajectories
from analysis.methods.trust.imported import NO_BELIEFS, imported_entries, imported_rows, vs_human_imported
from analysis.methods.trust.versus_human import vs_human_entry
from analysis.methods.trust.tables import BELIEFS, FORECASTS, PRIORS, ROUNDS, TRANSFERS

__all__ = ["plan_from_args", "plans_from_args", "metrics_json", "import_command"]


def options_of(args: argparse.Namespace | TrustOptions) -> TrustOptions:
    return args if isinstance(args, TrustOptions) else from_args(TrustOptions, args)


def ablation_endowments(args: TrustOptions) -> list[int]:
    """The endowments of ``--endowments`` in run order (each once; $10 — the paper's headline — last), or []."""
    given = args.endowments
    if not given:
        return []
    if args.endowment != DEFAULT_ENDOWMENT:
        raise InputError("--endowments runs every listed endowment; drop --endowment")
    if len(set(given)) != len(given) or any(e < 1 for e in given):
        raise InputError(f"--endowments {given}: give distinct whole dollars >= 1, e.g. 10,44,100")
    return [e for e in given if e != DEFAULT_ENDOWMENT] + [e for e in given if e == DEFAULT_ENDOWMENT]


#: ``--paper-tables``: (run-id suffix, options) of each run, in run order. The unconditioned $10 run comes last, so
#: that it is the latest run of the headline configuration; belief requests repeat across the population runs and
#: are answered from the call cache.
PAPER_TABLE_RUNS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("individual", {"level": "individual"}),
    *((f"e{e}", {"endowment": e}) for e in (44, 100)),
    *((c, {"conditioning": c}) for c in ("self", "weak", "strong")),
    ("none", {}),
)


def plans_from_args(args: argparse.Namespace | TrustOptions, spec: ModelSpec) -> list[tuple[str, dict[str, Any]]]:
    """(run-id suffix, plan) for every run ``run trust`` makes: one, one per ``--endowments`` endowment, or every run of
    ``--paper-tables``."""
    args = options_of(args)
    if args.paper_tables:
        if args.level != "population" or args.conditioning != "none" or args.endowment != DEFAULT_ENDOWMENT or args.endowments:
            raise InputError("--paper-tables sets the level, the conditioning and the endowments; drop --level, "
                             "--conditioning, --endowment and --endowments")
        return [(suffix, plan_from_args(args.model_copy(update=options), spec)) for suffix, options in PAPER_TABLE_RUNS]
    endowments = ablation_endowments(args)
    if not endowments:
        return [("", plan_from_args(args, spec))]
    return [(f"e{e}", plan_from_args(args.model_copy(update={"endowment": e}), spec)) for e in endowments]


def plan_from_args(args: argparse.Namespace | TrustOptions, spec: ModelSpec) -> dict[str, Any]:
    """The resolved plan (a dict for ``create_run``) from the ``run trust`` options (parsed flags or the model)."""
    from analysis.methods.trust.plan import build_trust_plan

    args = options_of(args)
    tokens = {k: args.max_tokens for k in ("belief", "action", "forecast", "round")} if args.max_tokens is not None else None
    plan = build_trust_plan(
        spec, level=args.level, strategies=args.strategies, conditioning=args.conditioning, condition_on=args.condition_on,
        rounds=args.rounds, archetypes=args.archetypes, endowment=args.endowment, personas=args.personas, split=args.split,
        limit_personas=args.limit_personas, persona_ids=args.persona_ids, attributes=args.attributes,
        attribute_set=args.attribute_set, seed=args.seed,
        play_knows_archetype=args.play_knows_archetype, forecast=args.forecast, answer=args.answer, max_tokens=tokens, prefix_reuse=args.prefix_reuse,
        answer_format=args.answer_format,
        params={"temperature": args.temperature} if args.temperature is not None else None,
    )
    return plan.model_dump()


def import_command(kind: str, paths: list[Path], store_path: Path, as_json: bool) -> int:
    """``import agent-trust|chatgpt-behavioral PATH...``: every file parsed before the store is opened (a refused
    import changes nothing); one line per run on stderr (``imported`` or ``already imported``) and a count of the files
    skipped; ``--json``: the run ids, per file (agent-trust) or run (chatgpt-behavioral) what was read (condition,
    model, run, personas, valid amounts of the source and of RoleScope's reader, whether it was new) and per skipped
    file why."""
    return prepare_import(kind, paths, as_json)(store_path)


BEHAVIORAL = "chatgpt-behavioral"


def prepare_import(kind: str, paths: list[Path], as_json: bool) -> Callable[[Path], int]:
    """``Method.prepare_import``: the files of ``kind`` read and checked (nothing stored); the function that stores."""
    from functools import partial

    if kind == BEHAVIORAL:
        from analysis.methods.trust.behavioral import build_runs, parse_paths as parse_behavioral

        parsed = parse_behavioral(paths)
        return partial(_store_behavioral, build_runs(parsed), parsed.skipped, as_json)
    from analysis.methods.trust.importer import parse_paths

    return partial(_store_agent_trust, parse_paths(paths), as_json)


def _store_behavioral(runs: list[Any], skipped: list[dict[str, str]], as_json: bool, store_path: Path) -> int:
    """Store ChatGPT-Behavioral's investor runs; one line per run and a count of skipped files on stderr."""
    import json
    import sys

    from analysis.methods.trust.behavioral import store_runs
    from analysis.runs.store import Store

    with Store(store_path) as store:
        new = store_runs(store, runs)
    for r in runs:
        s = r.plan["summary"]
        print(f"{'imported' if new[r.run_id] else 'already imported'} {r.run_id}: {r.model}, trust game investor "
              f"({r.condition}), {s['personas']} sessions ({s['source_valid']} with a highlighted amount)",
              file=sys.stderr)
    if skipped:
        print(f"skipped {len(skipped)} trust file(s) of banker sessions only (--json says which)", file=sys.stderr)
    if as_json:
        print(json.dumps({"method": "trust", "run_ids": list(new),
                          "read": [r.report() | {"stored": new[r.run_id]} for r in runs], "skipped": skipped}))
    return 0


def _store_agent_trust(parsed: Any, as_json: bool, store_path: Path) -> int:
    import json
    import sys

    from analysis.methods.trust.importer import store_parsed
    from analysis.runs.store import Store

    with Store(store_path) as store:
        new = store_parsed(store, parsed)
    for run_id, stored in new.items():
        print(f"{'imported' if stored else 'already imported'} {run_id}", file=sys.stderr)
    if parsed.skipped:
        print(f"skipped {len(parsed.skipped)} file(s) that are not trust-game results (--json says which and why)",
              file=sys.stderr)
    if as_json:
        print(json.dumps({"run_ids": list(new), "read": [p.report() | {"stored": new[p.run_id]} for p in parsed.files],
                          "skipped": parsed.skipped}))
    return 0


# -- metrics --------------------------------------------------------------------------------------
def _with_order(df: pd.DataFrame, order: dict[str, float]) -> pd.DataFrame:
    df = df.copy()
    df["_order"] = [(order.get(r, 0.0), r) for r in df["run_id"]] if len(df) else []
    return df


def _latest_beliefs(beliefs: pd.DataFrame, strategy: str, assumed_group_size: int) -> dict[str, Belief]:
    rows = beliefs[(beliefs["strategy"] == strategy) & (beliefs["valid"] == 1)].sort_values("_order")
    rows = rows.drop_duplicates("attribute", keep="last")
    return {r["attribute"]: belief_from_row(r, assumed_group_size) for r in rows.to_dict("records")}


def _main_endowment(*frames: pd.DataFrame) -> int | None:
    present = [f["endowment"].dropna() for f in frames if len(f)]
    values = pd.concat(present, ignore_index=True) if present else pd.Series(dtype=float)
    if values.empty:
        return None
    if (values == DEFAULT_ENDOWMENT).any():
        return DEFAULT_ENDOWMENT
    return int(values.value_counts().index[0])


def _conditioning(beliefs: pd.DataFrame, transfers: pd.DataFrame, priors: pd.DataFrame, *, n_boot: int, seed: int,
                  assumed_group_size: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    strategy = str(priors["strategy"].iloc[0]) if len(priors) else "Ctx+Tr"
    plain = transfers[transfers["conditioning"] == "none"]
    own = _latest_beliefs(beliefs, strategy, assumed_group_size)
    eta2 = {a: b.eta2 for a, b in own.items()}
    if len(plain) and own:
        baseline = pd.DataFrame([{"attribute": a, "original": list(b.ranking), "imposed": list(b.ranking), "achieved": 1.0,
                                  "target": None} for a, b in own.items()])
        out["none"] = {"strategy": strategy, **conditioning_consistency(baseline, plain, n_boot=n_boot, seed=seed,
                                                                        belief_eta2=eta2),
                       "invalid_transfers": invalid_replies([_replied(plain)], "invalid transfers")}
    for cond in CONDITIONINGS[1:]:
        mine = transfers[transfers["conditioning"] == cond]
        if mine.empty:
            continue
        run_id = mine.sort_values("_order")["run_id"].iloc[-1]
        run_priors = priors[priors["run_id"] == run_id]
        played = mine[mine["run_id"] == run_id]
        doc = conditioning_consistency(run_priors, played, n_boot=n_boot, seed=seed, belief_eta2=eta2)
        out[cond] = {"strategy": str(run_priors["strategy"].iloc[0]) if len(run_priors) else strategy, "run_id": run_id,
                     **doc, "invalid_transfers": invalid_replies([_replied(played)], "invalid transfers")}
    return out


def endowment_summary(doc: dict[str, Any]) -> dict[str, Any]:
    """One strategy at one endowment (Table 9): mean and median ρ over attributes (undefined ρ left out), median |Δη²|,
    MAE of η², and ρ / |Δη²| per attribute."""
    rhos = [d["spearman"] for d in doc["attributes"].values() if d["spearman"] is not None]
    return {"mean_spearman": json_number(float(np.mean(rhos))) if rhos else None, "n_attributes_defined": len(rhos),
            "median_spearman": doc["median_spearman"], "median_abs_diff": doc["median_abs_diff"],
            "mae_eta2": doc.get("mae_eta2"), "n_personas": doc.get("n_personas"),
            "attributes": {a: {"spearman": d["spearman"], "abs_diff": d["abs_diff"]} for a, d in doc["attributes"].items()}}


def model_metrics(beliefs: pd.DataFrame, transfers: pd.DataFrame, priors: pd.DataFrame, rounds: pd.DataFrame,
                  forecasts: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0,
                  assumed_group_size: int = ASSUMED_GROUP_SIZE, endowment: int | None = None, chance: int = 0,
                  store: Store | None = None, levels: dict[str, tuple[str, ...]] | None = None,
                  imported: Sequence[pd.DataFrame] = ()) -> dict[str, Any]:
    """The per-model part of the metrics document from that model's rows (each with an ``_order`` column).

    ``chance`` > 0: each headline strategy gets ``chance`` (null bands, ``analysis.methods.trust.chance``) and every
    strategy its split-half ``reliability``; the individual level gets ``chance`` per archetype.

    ``endowment``: the endowment of the headline configuration (default: 10 when present, else the most frequent);
    rows at other endowments feed only the ``endowments`` ablation.

    ``levels``: attribute -> levels of the configuration's attribute set and split (``personas.plan_levels``), for the
    behaviour summary: values outside them are left out of that attribute and counted.

    ``imported``: the transfer rows of the model's other imported configurations (conditions of a source besides the
    one these rows are of, ``imported.imported_rows``): the page and the shifts from base read them, so ``counts``
    counts their replies too (one per persona: an import stores a reply, or its number, for each)."""
    endowment = endowment if endowment is not None else _main_endowment(beliefs, transfers)
    population: dict[str, Any] = {}
    endowments: dict[str, Any] = {}
    for e in sorted({int(v) for v in pd.concat([beliefs["endowment"], transfers["endowment"]]).dropna()}):
        b_e = beliefs[beliefs["endowment"] == e]
        t_e = transfers[(transfers["endowment"] == e) & (transfers["conditioning"] == "none")]
        for strategy in STRATEGIES:
            mine = _latest_beliefs(b_e, strategy, assumed_group_size)
            if not mine or t_e.empty:
                continue
            boot = n_boot if e == endowment else 0
            doc = population_consistency(mine, t_e, n_boot=boot, seed=seed)
            endowments.setdefault(str(e), {})[strategy] = endowment_summary(doc)
            if e == endowment:
                doc["reliability"] = trust_chance.split_half(mine, t_e, seed=seed)
                if chance > 0:
                    doc["chance"] = trust_chance.strategy_chance(mine, t_e, doc, e, n_sims=chance, seed=seed, store=store)
                population[strategy] = doc
    conditioning: dict[str, Any] = {}
    if endowment is not None:
        conditioning = _conditioning(beliefs[beliefs["endowment"] == endowment], transfers[transfers["endowment"] == endowment],
                                     priors[priors["endowment"] == endowment], n_boot=n_boot, seed=seed,
                                     assumed_group_size=assumed_group_size)
    individual = individual_consistency(rounds, n_boot=n_boot, seed=seed) if len(rounds) else {"archetypes": {}}
    individual["trajectories"] = trajectories(rounds, forecasts)
    if chance > 0 and len(rounds):
        played = int(rounds["endowment"].dropna().iloc[0]) if rounds["endowment"].notna().any() else DEFAULT_ENDOWMENT
        individual["chance"] = trust_chance.individual_chance(rounds, individual, played, n_sims=chance, seed=seed,
                                                              store=store)
    tables = reply_rows(beliefs, transfers, forecasts, rounds)
    replied = {name: _replied(df) for name, df in tables.items()}
    return {"headlines": {"trust_spearman": headline_spearman(population),
                          "trust_vs_human": native_vs_human(transfers, endowment, n_boot=n_boot, seed=seed)},
            "counts": [invalid_replies([*replied.values(), *imported])],
            "population": population, "conditioning": conditioning, "individual": individual, "endowment": endowment,
            "endowments": endowments, "invalid": {name: int((df["valid"] == 0).sum()) for name, df in tables.items()},
            "n_rows": {name: int(len(df)) for name, df in tables.items()},
            "invalid_replies": {name: int((df["valid"] == 0).sum()) for name, df in replied.items()},
            "n_replies": {name: int(len(df)) for name, df in replied.items()}, "invalid_reasons": invalid_reasons(tables),
            "behaviour": _behaviour(transfers[transfers["endowment"] == endowment], priors, levels), "play": play_by_round(rounds)}


def _replied(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows a reply came for: its text stored (``raw``), or a note that an import stored its number only."""
    cols = [c for c in ("raw", "reply_note") if c in rows]
    return rows[rows[cols].notna().any(axis=1)] if cols else rows.iloc[0:0]


def invalid_replies(frames: Iterable[pd.DataFrame], kind: str = "invalid replies") -> dict[str, Any]:
    """The ``counts`` entry of the replies in ``frames`` (each already cut to the rows a reply came for): how many
    the reader left invalid (``valid`` = 0), of all of them."""
    frames = list(frames)
    return counts(kind, sum(int((df["valid"] == 0).sum()) for df in frames), sum(len(df) for df in frames))


def native_vs_human(transfers: pd.DataFrame, endowment: int | None, *, n_boot: int, seed: int = 0) -> dict[str, Any]:
    """``trust_vs_human`` of a model's own runs: its unconditioned single-round games at the headline endowment (one
    per persona, the latest run) against the human baseline (``versus_human``); a conditioned game is not the base
    game (its role prompt carries beliefs), so with none unconditioned the number is undefined and says so."""
    if endowment is None or transfers.empty:
        return number(None, "no single-round game (population level): the human baseline is a one-shot game's "
                            "amount sent") | {"ci": None}
    plain = transfers[(transfers["conditioning"] == "none") & (transfers["endowment"] == endowment)]
    if plain.empty:
        conditioned = ", ".join(sorted(set(map(str, transfers["conditioning"].dropna()))))
        return number(None, f"only conditioned games ({conditioned}): their role prompts carry beliefs, so they are not "
                            "the unmanipulated one-shot game the human baseline played; run the population level with "
                            "--conditioning none") | {"ci": None}
    ok = plain[(plain["valid"] == 1) & plain["sent"].notna()]
    return vs_human_entry(pd.to_numeric(ok["sent"]).astype(float).tolist(), len(plain), int(endowment),
                          "unconditioned games", n_boot=n_boot, seed=seed)


#: The strategy the headline reads when it has a defined median Spearman (the paper's main elicitation).
HEADLINE_STRATEGY = "Ctx+Tr"


def headline_spearman(population: dict[str, Any]) -> dict[str, Any]:
    """Median Spearman(belief, behaviour) over attributes (the paper's Fig. 2), for ``HEADLINE_STRATEGY`` when it is
    defined, else the first strategy (in ``STRATEGIES`` order) that is."""
    if not population:
        return number(None, "no belief–behaviour pairs: the population level was not run, or no belief reply was valid")
    defined = [s for s in STRATEGIES if s in population and population[s].get("median_spearman") is not None]
    if not defined:
        return number(None, "no attribute has a defined Spearman ρ (too few valid beliefs, or constant behaviour)")
    strategy = HEADLINE_STRATEGY if HEADLINE_STRATEGY in defined else defined[0]
    attributes = population[strategy].get("attributes") or {}
    undefined = [a for a, d in attributes.items() if d.get("spearman") is None]
    note = f"{strategy}: median over {len(attributes) - len(undefined)} of {len(attributes)} attributes"
    if undefined:
        one_level = [a for a in undefined if (attributes[a].get("n_levels_compared") or 0) < 2]
        note += (f"; ρ undefined for {', '.join(undefined)}"
                 + (" (fewer than two levels with behaviour: e.g. every persona of the bank shares one level)"
                    if one_level else ""))
    return number(population[strategy]["median_spearman"], "") | {"strategy": strategy, "note": note}


def reply_rows(beliefs: pd.DataFrame, transfers: pd.DataFrame, forecasts: pd.DataFrame,
               rounds: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per kind of answer, one row per planned answer with ``valid``, ``reason`` and ``raw`` (null when no reply came:
    a round not played after an invalid one, a failed call) and ``reply_note`` (set where a reply came but its text was
    not stored: imported numbers only). Per-round forecasts live on the round rows (their ``forecast_*`` columns, null
    when the round was not played); they count as forecasts."""
    cols = ["valid", "reason", "raw", "reply_note"]
    out = {name: df.reindex(columns=cols) for name, df in
           {"beliefs": beliefs, "transfers": transfers, "forecasts": forecasts, "rounds": rounds}.items()}
    if "forecast_valid" in rounds:
        asked = rounds[rounds["forecast_valid"].notna()]
        per_round = asked[["forecast_valid", "forecast_reason", "forecast_raw"]].set_axis(cols[:3], axis=1)
        per_round = per_round.assign(reply_note=None)
        if len(per_round):  # (concatenating an empty frame is deprecated in pandas)
            frames = [df for df in (out["forecasts"], per_round) if len(df)]
            out["forecasts"] = pd.concat(frames, ignore_index=True)
    return out


def _behaviour(transfers: pd.DataFrame, priors: pd.DataFrame, levels: dict[str, tuple[str, ...]] | None = None
               ) -> dict[str, Any]:
    """``population_behaviour`` of the unconditioned games, else of the latest conditioned run's games, saying which
    conditioning and how many priors its role prompts actually carried (none when no belief parsed)."""
    plain = transfers[transfers["conditioning"] == "none"]
    if len(plain) or transfers.empty:
        return population_behaviour(plain, levels) | {"conditioning": "none", "priors_in_prompt": 0}
    run_id = transfers.sort_values("_order")["run_id"].iloc[-1]
    mine = transfers[transfers["run_id"] == run_id]
    carried = priors[(priors["run_id"] == run_id) & priors["imposed"].notna()] if len(priors) else priors
    return population_behaviour(mine, levels) | {"conditioning": str(mine["conditioning"].iloc[0]),
                                         "priors_in_prompt": int(len(carried))}


def persona_source(signature: dict[str, Any]) -> dict[str, Any]:
    """Where a configuration's personas come from: the attribute set (plans before the choice: rolescope15) and the
    bank (source 'generated' — the offline default — or 'genagents' with its path, size, seed, split, n), and how a
    GenAgents bank was sampled and described (``persona_form``, when the plan says). An imported configuration: its
    source and condition (the personas are the source's own)."""
    if signature.get("imported"):
        return {"imported": True, "source": signature.get("source"), "condition": signature.get("condition")}
    bank = signature.get("bank") if isinstance(signature.get("bank"), dict) else {}
    form = {"persona_form": signature["persona_form"]} if signature.get("persona_form") else {}
    return {"attribute_set": signature.get("attribute_set", "rolescope15"), **bank, **form}


def _endowment_siblings(configs: list[comparable.Configuration], used: comparable.Configuration) -> list[str]:
    """Runs of the configurations that differ from ``used`` in the endowment alone (the endowment ablation)."""
    return [r for c in configs if c.id != used.id and set(c.differs_from(used)) == {"endowment"} for r in c.run_ids]


def persona_transfers(rounds: pd.DataFrame, descriptions: dict[str, str]) -> dict[str, Any]:
    """Each persona's own transfers at the individual level (``analysis.persona_scores``): ``mean_transfer``, the
    mean share of the endowment sent over every valid round against every trustee archetype, and
    ``first_transfer``, the mean share sent in round 1 (before any return was seen: Berg et al. 1995's one-shot
    measure of trust)."""
    constructs = {"mean_transfer": "Mean transfer (share of the endowment)",
                  "first_transfer": "First-round transfer (share of the endowment)"}
    if rounds.empty:
        return persona_scores_doc(pd.DataFrame(columns=["persona_id", "description", *constructs]), constructs)
    valid = rounds[(rounds["valid"] == 1) & rounds["sent"].notna()].copy()
    valid["share"] = pd.to_numeric(valid["sent"]) / pd.to_numeric(valid["endowment"])
    ids = list(dict.fromkeys(rounds["persona_id"].astype(str)))
    mean = valid.groupby(valid["persona_id"].astype(str))["share"].mean()
    first = valid[valid["round"] == 1].groupby(valid["persona_id"].astype(str))["share"].mean()
    frame = pd.DataFrame({"persona_id": ids, "mean_transfer": mean.reindex(ids).to_numpy(),
                          "first_transfer": first.reindex(ids).to_numpy(),
                          "description": [descriptions.get(p) for p in ids]})
    return persona_scores_doc(frame, constructs)


#: The cell a row answers, per table: of several runs' rows of one cell, the latest run's counts.
CELLS = {BELIEFS.name: ["strategy", "attribute", "endowment"], TRANSFERS.name: ["persona_id", "conditioning", "endowment"],
         PRIORS.name: ["attribute", "conditioning", "endowment"], ROUNDS.name: ["persona_id", "archetype", "round"],
         FORECASTS.name: ["persona_id", "archetype"]}


@dataclass(frozen=True)
class ModelRows:
    """The rows a model's report reads: its used configurations, their runs, each table's rows (latest run per cell,
    with ``_order``), the imported configurations (``imported.imported_rows``) and the headline endowment (the
    population configuration's, None when it names none)."""

    used_pop: comparable.Configuration | None
    used_ind: comparable.Configuration | None
    pop_runs: list[str]
    ind_runs: list[str]
    tables: dict[str, pd.DataFrame]
    imported: dict[str, tuple[comparable.Configuration, pd.DataFrame]]
    endowment: int | None


def model_rows(store: Store, pop: comparable.Selection, ind: comparable.Selection, name: str) -> ModelRows:
    """``ModelRows`` of model ``name`` under the population and individual selections (``metrics_json``)."""
    order = pop.order
    used_pop, used_ind = pop.used.get(name), ind.used.get(name)
    pop_runs = [*used_pop.run_ids, *_endowment_siblings(pop.found[name], used_pop)] if used_pop else []
    ind_runs = list(used_ind.run_ids) if used_ind else []
    mine = {}
    for table, runs in ((BELIEFS, pop_runs), (TRANSFERS, pop_runs), (PRIORS, pop_runs), (ROUNDS, ind_runs),
                        (FORECASTS, ind_runs)):
        rows = store.table(table.name, run_ids=runs)
        rows = comparable.latest_rows(rows, CELLS[table.name], order) if len(rows) else rows
        mine[table.name] = _with_order(rows, order)
    endowment = int(used_pop.signature["endowment"]) if used_pop and "endowment" in used_pop.signature else None
    return ModelRows(used_pop, used_ind, pop_runs, ind_runs, mine,
                     imported_rows(store, pop.found.get(name, []), order), endowment)


def side_rows(store: Store, model: str, config: comparable.Chosen = None) -> ModelRows:
    """``ModelRows`` of one model as its report (``metrics_json`` with this ``config``) selects them."""
    pop = comparable.select(store, POPULATION, model=model, config=config, strict=False)
    ind = comparable.select(store, INDIVIDUAL, model=model, config=config, strict=False)
    return model_rows(store, pop, ind, model)


def headline_endowment(rows: ModelRows) -> int | None:
    """The endowment of a model's headline configuration, as ``model_metrics`` takes it: the population
    configuration's, else $10 when its rows have it, else their most frequent."""
    t = rows.tables
    return rows.endowment if rows.endowment is not None else _main_endowment(t[BELIEFS.name], t[TRANSFERS.name])


def population_inputs(rows: ModelRows, strategy: str,
                      assumed_group_size: int = ASSUMED_GROUP_SIZE) -> tuple[dict[str, Belief], pd.DataFrame]:
    """What ``population[strategy]`` of a model's report is computed from (``model_metrics``): the strategy's latest
    valid belief per attribute and the unconditioned games, both at the headline endowment."""
    e = headline_endowment(rows)
    beliefs, transfers = rows.tables[BELIEFS.name], rows.tables[TRANSFERS.name]
    plain = transfers[(transfers["endowment"] == e) & (transfers["conditioning"] == "none")]
    return _latest_beliefs(beliefs[beliefs["endowment"] == e], strategy, assumed_group_size), plain


def metrics_json(store: Store, model: str | None = None, *, n_boot: int = 1000, seed: int = 0,
                 assumed_group_size: int = ASSUMED_GROUP_SIZE, config: comparable.Chosen = None,
                 chance: int = 0) -> dict[str, Any]:
    """The ``metrics trust --json`` document for every model in the store (or only ``model``).

    Population and individual metrics each use one configuration per model (``analysis.runs.comparable``: same
    persona bank, personas, decoding, endowment, rounds ...; the latest unless ``config`` names another); within it
    the latest run of each cell counts. The endowment ablation adds the configurations that differ in the endowment
    alone. ``configuration`` / ``configurations`` say, per level, which was used and what else was found."""
    pop = comparable.select(store, POPULATION, model=model, config=config, strict=False)
    ind = comparable.select(store, INDIVIDUAL, model=model, config=config, strict=False)
    comparable.check_chosen([c for sel in (pop, ind) for cs in sel.found.values() for c in cs], config, "trust")
    names = list(dict.fromkeys([*pop.used, *ind.used]))
    if model is not None and model not in names:
        raise InputError(f"no trust results for model '{model}' in {store.path}")
    models = {}
    for name in names:
        chosen = model_rows(store, pop, ind, name)
        used_pop, mine, ind_runs, found = chosen.used_pop, chosen.tables, chosen.ind_runs, chosen.imported
        endowment = chosen.endowment
        doc = model_metrics(mine[BELIEFS.name], mine[TRANSFERS.name], mine[PRIORS.name], mine[ROUNDS.name],
                            mine[FORECASTS.name], n_boot=n_boot, seed=seed, assumed_group_size=assumed_group_size,
                            endowment=endowment, chance=chance, store=store,
                            levels=plan_levels(used_pop.signature) if used_pop else None,
                            imported=[rows for cid, (_, rows) in found.items() if used_pop is None or cid != used_pop.id])
        doc["persona_scores"] = persona_transfers(mine[ROUNDS.name], plan_descriptions(
            store.get_run(r)["plan"] for r in ind_runs))
        doc["configuration"] = {level: sel.used[name].id for level, sel in (("population", pop), ("individual", ind))
                                if name in sel.used}
        doc["configurations"] = {level: comparable.describe(sel.found[name], sel.used[name])
                                 for level, sel in (("population", pop), ("individual", ind)) if name in sel.used}
        doc["personas"] = {level: persona_source(sel.used[name].signature)
                           for level, sel in (("population", pop), ("individual", ind)) if name in sel.used}
        doc["imported"] = imported_entries(found, used_pop, n_boot=n_boot, seed=seed)
        if used_pop is not None and used_pop.signature.get("imported"):
            doc["headlines"]["trust_vs_human"] = vs_human_imported(found, n_boot=n_boot, seed=seed)
            doc["headlines"]["trust_spearman"] = number(None, NO_BELIEFS.format(
                source=used_pop.signature.get("source"), condition=used_pop.signature.get("condition")))
        models[name] = doc
    return {"models": models}


def report(store: Store, model: str | None = None, *, config: comparable.Chosen = None, n_boot: int = 1000,
           chance: int = 0) -> dict[str, Any]:
    """``Method.report``: ``metrics_json``."""
    return metrics_json(store, model, n_boot=n_boot, config=config, chance=chance)


