"""The values run of the app fixture store (``tests/app/fixture_store.py``): the bundled PVQ in three contexts, 12
personas with fixed value profiles (``smollm2-greedy`` keeps them, ``smollm2-t07`` blurs them); a few answers invalid,
and the first persona's no_conv answers of ``DRILL_RUN`` have their calls stored (the drill-down's full messages)."""

from __future__ import annotations

import numpy as np

from analysis.llm.client import ChatReply, ChatRequest
from analysis.llm.specs import parse_model_spec
from analysis.methods.values import VALUES
from analysis.methods.values.instruments import load_instrument
from analysis.methods.values.populations import load_population
from analysis.methods.values.questionnaire import ANSWERS as VALUES_ANSWERS
from analysis.runs.store import Store

NOISE = {"smollm2-greedy": 0.3, "smollm2-t07": 3.0}  # model -> noise of the value profile per context
CONTEXTS = ("no_conv", "topics_a", "chess")
N_PERSONAS = 12
DRILL_RUN = "values-smollm2-greedy"  # the run whose first answers have stored calls


def fixture_answers(store: Store, model: str, seed: int) -> None:
    noise = NOISE[model]
    inst = load_instrument("pvq")
    personas = load_population("default")[:N_PERSONAS]
    spec = parse_model_spec(model)
    rng = np.random.default_rng(seed)
    profile = np.random.default_rng(0).normal(size=(N_PERSONAS, len(VALUES)))
    run_id = f"values-{model}"
    store.create_run(run_id, "values", model, spec.public_dict(), {"method": "values", "contexts": list(CONTEXTS)})
    rows = []
    for ctx in CONTEXTS:
        for p in personas:
            for item in inst.items:
                latent = profile[p.id, VALUES.index(item.value)] + noise * rng.normal()
                score = int(np.clip(np.round(3.5 + 1.2 * latent), 1, 6))
                valid = int(rng.random() > 0.02)
                row = {"run_id": run_id, "model": model, "persona_id": p.id, "persona": p.name, "gender": p.gender,
                       "context": ctx, "instrument": inst.name, "item_id": item.id, "value": item.value, "stage": "item",
                       "sample": 0, "mode": "logprob", "valid": valid, "letter": "B" if valid else None,
                       "option_label": inst.options[score - 1].label if valid else None, "score": score if valid else None,
                       "raw": "B" if valid else "I am not sure.",
                       "reason": None if valid else "no option letter in the top logprobs"}
                rows.append(row)
    if run_id == DRILL_RUN:  # store the calls of the first persona's no_conv answers
        for row in rows[: len(inst.items)]:
            question = f"Item {row['item_id']}: how much is this person like you?"
            request = ChatRequest.build([{"role": "system", "content": f"You are {row['persona']}."},
                                         {"role": "user", "content": question}], {"max_tokens": 1, "temperature": 0.0})
            key = request.cache_key(spec.identity)
            reply = ChatReply(row["raw"], "stop", [{"B": -0.4, "C": -1.3}], tokens_in=60, tokens_out=1, latency_s=0.05)
            unit = f"{row['context']}/p{row['persona_id']}/item{row['item_id']}/s0"
            store.record_call(run_id, unit, key, model, request, reply)
            row["cache_key"] = key
    store.upsert(VALUES_ANSWERS.name, rows)
    store.set_run_status(run_id, "completed", n_units=len(rows))




def tiny_answers(store: Store) -> None:
    """One embedded run's worth of values answers: 2 personas x no_conv x 5 items."""
    inst = load_instrument("pvq")
    personas = load_population("default")[:2]
    spec = parse_model_spec("embedded")
    store.create_run("v", "values", "embedded", spec.public_dict(), {"method": "values"})
    store.upsert(VALUES_ANSWERS.name, [
        {"run_id": "v", "model": "embedded", "persona_id": p.id, "persona": p.name, "gender": p.gender, "context": "no_conv",
         "instrument": inst.name, "item_id": item.id, "value": item.value, "stage": "item", "sample": 0, "mode": "logprob",
         "valid": 1, "score": 1 + (p.id + k) % 6, "letter": "A", "raw": "A"}
        for p in personas for k, item in enumerate(inst.items[:5])])
    store.set_run_status("v", "completed")
