"""A small synthetic store for the app tests, the browser suite and the app bench.

Two models (named like the demo's two embedded configurations) answer the bundled PVQ-style
instrument in three contexts (12 personas with fixed value profiles; ``smollm2-greedy`` keeps
its profiles, ``smollm2-t07`` blurs them), the bundled MBTI statements (People, Men, Women;
permuted and fixed order; 3 testings), a small trust game (beliefs about sex and age, 20 games,
weak-prior conditioning, 6-round games against 3 archetypes) and PersonaGym (3 personas x 5 tasks
x 2 graded questions). A few answers are invalid and a few have their call stored, so the
per-sample drill-down has full messages to show.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analysis.llm.client import ChatReply, ChatRequest
from analysis.llm.specs import parse_model_spec
from analysis.methods.mbti.session import ANSWERS as MBTI_ANSWERS
from analysis.methods.mbti.statements import load_statements
from analysis.runs.store import Store
from analysis.methods.values import VALUES
from analysis.methods.values.instruments import load_instrument
from analysis.methods.values.populations import load_population
from analysis.methods.values.questionnaire import ANSWERS as VALUES_ANSWERS

MODELS = {"smollm2-greedy": 0.3, "smollm2-t07": 3.0}  # model -> noise of the value profile per context
CONTEXTS = ("no_conv", "topics_a", "chess")
N_PERSONAS = 12
SUBJECTS = ("People", "Men", "Women")
N_TESTINGS = 3
DRILL_RUN = "values-smollm2-greedy"  # the run whose first answers have stored calls


def _values(store: Store, model: str, noise: float, seed: int) -> None:
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


def _mbti(store: Store, model: str, seed: int) -> None:
    statements = load_statements("default").statements
    spec = parse_model_spec(model)
    rng = np.random.default_rng(seed)
    run_id = f"mbti-{model}"
    store.create_run(run_id, "mbti", model, spec.public_dict(), {"method": "mbti"})
    rows = []
    for subject in SUBJECTS:
        for order in ("permuted", "fixed"):
            for t in range(N_TESTINGS):
                for seq, st in enumerate(statements):
                    option = int(rng.integers(0, 7))
                    valid = int(rng.random() > 0.03)
                    rows.append({"run_id": run_id, "model": model, "subject": subject, "order_mode": order, "testing": t,
                                 "seq": seq, "statement_id": st.id, "dimension": st.dimension, "direction": st.direction,
                                 "statement": st.text.replace("You ", f"{subject} "), "mode": "text",
                                 "option_index": option if valid else None, "weight": 3 - option if valid else None,
                                 "valid": valid, "raw": "Partially correct." if valid else "?", "source": "run",
                                 "reason": None if valid else "no option named"})
    store.upsert(MBTI_ANSWERS.name, rows)
    store.set_run_status(run_id, "completed", n_units=len(rows))


AGES = ["18-29", "30-44", "45-64", "65+"]
N_TRUST_PERSONAS = 20
PG_PERSONAS = ("Ada, a retired ferry captain", "Bo, a night-shift nurse", "Cy, a beekeeper and poet")


def _trust(store: Store, model: str, seed: int) -> None:
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


def _personagym(store: Store, model: str, seed: int) -> None:
    """Three personas x five tasks x two questions, graded 1-5 by one evaluator."""
    from analysis.methods.personagym import TASKS
    from analysis.methods.personagym.tables import ANSWERS, GRADES, QUESTIONS

    rng = np.random.default_rng(seed)
    run_id = f"personagym-{model}"
    store.create_run(run_id, "personagym", model, parse_model_spec(model).public_dict(), {"method": "personagym"})
    questions, answers, grades = [], [], []
    for n, persona in enumerate(PG_PERSONAS):
        for task in TASKS:
            for q in range(2):
                key = {"run_id": run_id, "persona_id": f"pg{n}", "persona": persona, "task": task, "q_index": q}
                text = f"As {persona.split(',')[0]}, what would you do about task {task.lower()} #{q}?"
                questions.append(key | {"model": model, "question": text, "status": "ok"})
                answers.append(key | {"model": model, "question": text, "answer": f"I would think it over ({q}).", "status": "ok",
                                      "refusal": 0})
                grades.append(key | {"model": model, "evaluator": "embedded", "score": float(rng.integers(1, 6)), "status": "ok",
                                     "raw": "Therefore, the final score is 3"})
    store.upsert(QUESTIONS.name, questions)
    store.upsert(ANSWERS.name, answers)
    store.upsert(GRADES.name, grades)
    store.set_run_status(run_id, "completed")


def build_fixture_store(path: str | Path, *, methods: tuple[str, ...] | None = None) -> Path:
    """Write the fixture store at ``path`` (a new file) and return its path: every registered method's answers
    (``methods`` only, when given). A method beyond the four here adds its own through its test package's
    ``fixture_answers(store, model, seed)`` (``tests/methods/<m>/__init__.py``)."""
    import importlib

    from analysis import methods as registry

    methods = tuple(registry.names()) if methods is None else methods
    path = Path(path)
    with Store(path) as store:
        for k, (model, noise) in enumerate(MODELS.items()):
            if "values" in methods:
                _values(store, model, noise, seed=k + 1)
            if "mbti" in methods:
                _mbti(store, model, seed=k + 11)
            if "trust" in methods:
                _trust(store, model, seed=k + 21)
            if "personagym" in methods:
                _personagym(store, model, seed=k + 31)
            for n, name in enumerate(m for m in methods if m not in ("values", "mbti", "trust", "personagym")):
                importlib.import_module(f"tests.methods.{name}").fixture_answers(store, model, seed=k + 41 + 10 * n)
    return path


if __name__ == "__main__":
    import sys

    print(build_fixture_store(sys.argv[1]))


def build_tiny_store(path: str | Path) -> Path:
    """One embedded run's worth of data: 2 personas x no_conv x 5 items, and People x 1 testing x 5 statements."""
    path = Path(path)
    inst = load_instrument("pvq")
    personas = load_population("default")[:2]
    statements = load_statements("default").statements[:5]
    spec = parse_model_spec("embedded")
    with Store(path) as store:
        store.create_run("v", "values", "embedded", spec.public_dict(), {"method": "values"})
        store.upsert(VALUES_ANSWERS.name, [
            {"run_id": "v", "model": "embedded", "persona_id": p.id, "persona": p.name, "gender": p.gender, "context": "no_conv",
             "instrument": inst.name, "item_id": item.id, "value": item.value, "stage": "item", "sample": 0, "mode": "logprob",
             "valid": 1, "score": 1 + (p.id + k) % 6, "letter": "A", "raw": "A"}
            for p in personas for k, item in enumerate(inst.items[:5])])
        store.set_run_status("v", "completed")
        store.create_run("m", "mbti", "embedded", spec.public_dict(), {"method": "mbti"})
        store.upsert(MBTI_ANSWERS.name, [
            {"run_id": "m", "model": "embedded", "subject": "People", "order_mode": "permuted", "testing": 0, "seq": k,
             "statement_id": st.id, "dimension": st.dimension, "direction": st.direction, "statement": st.text, "mode": "text",
             "option_index": k % 7, "weight": 3 - k % 7, "valid": 1, "raw": "Correct", "source": "run"}
            for k, st in enumerate(statements)])
        store.set_run_status("m", "completed")
    return path
