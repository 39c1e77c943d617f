"""The trust runs of the app fixture store (``tests/app/fixture_store.py``): beliefs about sex and age, 20 games,
weak-prior conditioning, 6-round games against 3 archetypes."""

from __future__ import annotations

import numpy as np

from analysis.llm.specs import parse_model_spec
from analysis.runs.store import Store

AGES = ["18-29", "30-44", "45-64", "65+"]
N_TRUST_PERSONAS = 20


def fixture_answers(store: Store, model: str, seed: int) -> None:
    """Beliefs (Ctx+Tr, NoCtx+Tr) about sex and age, one game per persona, weak-prior conditioning, 6-round games."""
    from analysis.methods.trust.tables import BELIEFS, PRIORS, ROUNDS, TRANSFERS

    rng = np.random.default_rng(seed)
    spec = parse_model_spec(model)
    pop, cond, ind = f"trust-pop-{model}", f"trust-weak-{model}", f"trust-ind-{model}"
    plans = {pop: {"level": "population"}, cond: {"level": "population", "conditioning": "weak"}, ind: {"level": "individual"}}
    for run_id, plan in plans.items():
        store.create_run(run_id, "trust", model, spec.public_dict(), {"method": "trust", "endowment": 10, **plan})
    beliefs = []
    for strategy in ("Ctx+Tr", "NoCtx+Tr"):
        beliefs += [
            {"run_id": pop, "model": model, "endowment": 10, "strategy": strategy, "attribute": "sex",
             "levels": ["Female", "Male"], "ranking": ["Female", "Male"], "effect_size": 0.1, "valid": 1,
             "raw": '{"ranking": ["Female", "Male"]}'},
            {"run_id": pop, "model": model, "endowment": 10, "strategy": strategy, "attribute": "age", "levels": AGES,
             "ranking": ["65+", "45-64", "30-44", "18-29"], "effect_size": 0.2, "valid": 1, "raw": "{}"},
        ]
    transfers = []
    for i in range(N_TRUST_PERSONAS):
        sex, age = ("Female", "Male")[i % 2], AGES[i % 4]
        sent = int(np.clip(round(5 + (1.5 if sex == "Female" else -1.5) + (i % 4) + rng.normal(0, 1 + 2 * seed % 3)), 0, 10))
        transfers.append({"run_id": pop, "model": model, "endowment": 10, "conditioning": "none", "persona_id": f"p{i}",
                          "attributes": {"sex": sex, "age": age}, "sent": sent, "valid": 1, "raw": f"I send ${sent}."})
        transfers.append({"run_id": cond, "model": model, "endowment": 10, "conditioning": "weak", "persona_id": f"p{i}",
                          "attributes": {"sex": sex, "age": age}, "sent": int(rng.integers(0, 11)), "valid": 1})
    store.upsert(BELIEFS.name, beliefs)
    store.upsert(TRANSFERS.name, transfers)
    store.upsert(PRIORS.name, [{"run_id": cond, "model": model, "endowment": 10, "conditioning": "weak", "strategy": "Ctx+Tr",
                                "attribute": "age", "original": ["65+", "45-64", "30-44", "18-29"],
                                "imposed": ["45-64", "65+", "30-44", "18-29"], "target": 0.8, "achieved": 0.8}])
    rounds = []
    for pid in ("a", "b", "c"):
        for k in (1, 3, 5):
            for r in range(1, 7):
                forecast = int(rng.integers(0, 11))
                rounds.append({"run_id": ind, "model": model, "endowment": 10, "persona_id": pid, "archetype": k, "round": r,
                               "forecast": forecast, "sent": int(np.clip(forecast + rng.integers(-3, 4), 0, 10)), "valid": 1})
    store.upsert(ROUNDS.name, rounds)
    for run_id in (pop, cond, ind):
        store.set_run_status(run_id, "completed")
