"""A synthetic campaign with planted links across methods: each persona has five latent traits z (O, C, E, A, N,
independent standard normals) and every method's answers follow them with noise, as a model that plays the persona
consistently would answer.

- values (the bundled PVQ, no_conv): an item's answer is round(3.5 + 1.2 · latent of its value + noise), 1..6, with the
  value latents Benevolence, Tradition ← A; Universalism, Self-Direction ← O; Conformity, Security ← C; Stimulation ← E;
  Achievement ← (C + E)/√2; Hedonism, Power ← noise of their own;
- inventory (IPIP-NEO-120, the first 60 items, every facet twice, and A1 Trust whole): keyed answer
  round(3 + 0.9 · z[domain] + noise), 1..5;
- trust (individual level, archetypes 1, 3, 5, three rounds): the share sent is the logistic of 1.5 · z_A + noise.

``shuffle`` gives each method's answers to other personas (a seeded permutation per method): every link across methods
is broken, as chance would have it. ``drop`` leaves a method's rows of some personas out (never scored). The rows go
to the methods' own tables through parts of a real campaign plan (the plan ``run cross-method`` builds).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from analysis.llm.specs import ModelSpec
from analysis.methods import create_run
from analysis.methods.cross_method.options import CrossMethodOptions
from analysis.methods.cross_method.plan import build_plan
from analysis.methods.cross_method.session import PARTS, part_run_id
from analysis.runs.store import Store

TRAITS = "OCEAN"
VALUE_LATENT = {"Benevolence": {"A": 1.0}, "Tradition": {"A": 1.0}, "Universalism": {"O": 1.0},
                "Self-Direction": {"O": 1.0}, "Conformity": {"C": 1.0}, "Security": {"C": 1.0}, "Stimulation": {"E": 1.0},
                "Achievement": {"C": 2 ** -0.5, "E": 2 ** -0.5}}
SETTINGS = ["inventory.inventory=ipip-neo-120", "inventory.limit_items=60", "inventory.order=ascending",
            "trust.rounds=3", "trust.archetypes=1+3+5"]


def spec(model: str) -> ModelSpec:
    return ModelSpec(name=model, backend="custom", model=model, base_url="http://127.0.0.1:9/v1")


def personas_file(path: Path, n: int) -> Path:
    """``n`` personas with their own descriptions (more than the 40 bundled ones)."""
    rows = [{"id": f"s{i:03d}", "name": f"Person {i}", "description": f"Person {i} is a synthetic persona number {i}.",
             "sex": "FM"[i % 2], "age": 20 + i % 60} for i in range(n)]
    path.write_text(json.dumps(rows))
    return path


def build_campaign(store: Store, model: str, personas: str | Path, *, seed: int = 0, run_id: str | None = None,
                   shuffle: bool = False, drop: dict[str, list[str]] | None = None,
                   methods: tuple[str, ...] = ("values", "inventory", "trust"), reverse: tuple[str, ...] = ()) -> str:
    """A completed campaign of ``model`` in ``store`` (see the module docstring); returns its run id. ``reverse``: the
    methods whose part plans list the personas in reverse order (their own numbering then differs)."""
    settings = [s for s in SETTINGS if s.split(".", 1)[0] in methods]
    plan = build_plan(CrossMethodOptions(personas=str(personas), methods=list(methods), set=settings), spec(model))
    run_id = run_id or f"xm-{model}"
    create_run(store, "cross_method", spec(model), plan.model_dump(), run_id)
    rng = np.random.default_rng(seed)
    n = len(plan.personas)
    z = rng.normal(size=(n, len(TRAITS)))
    for seq, part in enumerate(plan.parts):
        if part.method in reverse:
            part.plan["personas"] = part.plan["personas"][::-1]
            z_part = z[::-1]
        else:
            z_part = z
        child = part_run_id(run_id, part.method)
        create_run(store, part.method, spec(model), part.plan, child)
        order = rng.permutation(n) if shuffle else np.arange(n)  # persona i answers as persona order[i]
        dropped = set((drop or {}).get(part.method, []))
        names = [p.get("name") or p.get("details", {}).get("name") or p.get("description") for p in part.plan["personas"]]
        gone = {p.name for p in plan.personas if p.id in dropped} | {p.description for p in plan.personas if p.id in dropped}
        keep = [i for i, name in enumerate(names) if name not in gone]
        WRITERS[part.method](store, model, child, part.plan, z_part[order], keep, np.random.default_rng([seed, seq]))
        store.upsert(PARTS.name, [{"run_id": run_id, "model": model, "method": part.method, "part_run_id": child,
                                   "seq": seq}])
        store.set_run_status(child, "completed")
    store.set_run_status(run_id, "completed")
    return run_id


def _values(store: Store, model: str, run_id: str, plan: dict, z: np.ndarray, keep: list[int],
            rng: np.random.Generator) -> None:
    from analysis.methods.values import VALUES
    from analysis.methods.values.instruments import Instrument
    from analysis.methods.values.questionnaire import ANSWERS

    inst = Instrument.model_validate(plan["instrument"])
    own = rng.normal(size=(len(z), 10))
    rows = []
    for i in keep:
        p = plan["personas"][i]
        for item in inst.items:
            weights = VALUE_LATENT.get(item.value)
            # a value no trait drives follows its own noise, by the value's index (hash() of a str varies by process)
            latent = (sum(w * z[i, TRAITS.index(t)] for t, w in weights.items()) if weights
                      else own[i, VALUES.index(item.value)])
            score = int(np.clip(np.round(3.5 + 1.2 * latent + rng.normal(0, 0.7)), 1, 6))
            rows.append({"run_id": run_id, "model": model, "persona_id": p["id"], "persona": p["name"],
                         "gender": p["gender"], "context": "no_conv", "instrument": inst.name, "item_id": item.id,
                         "value": item.value, "stage": "item", "sample": 0, "mode": "logprob", "valid": 1, "letter": "A",
                         "option_label": inst.options[score - 1].label, "score": score, "raw": "A"})
    store.upsert(ANSWERS.name, rows)


def _inventory(store: Store, model: str, run_id: str, plan: dict, z: np.ndarray, keep: list[int],
               rng: np.random.Generator) -> None:
    from analysis.methods.inventory.inventory import Inventory
    from analysis.methods.inventory.session import ANSWERS

    inv = Inventory.model_validate(plan["inventory"])
    rows = []
    for i in keep:
        p = plan["personas"][i]
        for seq, it in enumerate(inv.items):
            keyed = int(np.clip(np.round(3 + 0.9 * z[i, TRAITS.index(it.domain)] + rng.normal(0, 0.6)), 1, 5))
            score = 6 - keyed if it.reverse else keyed
            rows.append({"run_id": run_id, "model": model, "inventory": inv.name, "persona_id": p["id"],
                         "persona": p["description"], "sex": p["sex"], "age": p["age"], "targets": None,
                         "order_mode": "ascending", "seq": seq, "item_id": it.id, "domain": it.domain, "facet": it.facet,
                         "reverse": int(it.reverse), "item": it.text, "mode": "logprob", "number": score,
                         "option_index": score - 1, "option": inv.options[score - 1], "score": score, "keyed": keyed,
                         "valid": 1, "raw": str(score), "source": "run"})
    store.upsert(ANSWERS.name, rows)


def _trust(store: Store, model: str, run_id: str, plan: dict, z: np.ndarray, keep: list[int],
           rng: np.random.Generator) -> None:
    from analysis.methods.trust.tables import ROUNDS

    endowment = int(plan["endowment"])
    rows = []
    for i in keep:
        p = plan["personas"][i]
        for k in plan["archetypes"]:
            for r in range(1, int(plan["rounds"]) + 1):
                share = 1 / (1 + np.exp(-(1.5 * z[i, TRAITS.index("A")] + rng.normal(0, 0.5))))
                sent = int(np.round(endowment * share))
                rows.append({"run_id": run_id, "model": model, "endowment": endowment, "persona_id": p["id"],
                             "archetype": k, "round": r, "forecast": sent, "sent": sent, "valid": 1,
                             "raw": f"I send ${sent}."})
    store.upsert(ROUNDS.name, rows)


WRITERS = {"values": _values, "inventory": _inventory, "trust": _trust}
