"""A synthetic inventory store with known answers: personas shaped on one domain each, a model that plays the levels
(keyed answer = round(3 + (level − 5) / 2 + the persona's own lean + noise)) and one that answers at random, each
given RoleScope's short form and a second 10-item inventory (so MTMM has two methods)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from analysis.llm.specs import ModelSpec
from analysis.methods import create_run
from analysis.methods.inventory.inventory import Inventory, load_inventory
from analysis.methods.inventory.personas import Persona, design
from analysis.methods.inventory.session import ANSWERS, InventoryPlan, json_targets
from analysis.runs.store import Store

OTHER = Inventory.model_validate({
    "name": "mini-b", "options": ["Very inaccurate", "Moderately inaccurate", "Neither accurate nor inaccurate",
                                  "Moderately accurate", "Very accurate"],
    "domains": {"O": "Openness", "C": "Conscientiousness", "E": "Extraversion", "A": "Agreeableness", "N": "Neuroticism"},
    "items": [{"id": f"b{k}", "text": f"statement {k}", "domain": d, "reverse": k % 2 == 1}
              for k, d in enumerate("OCEANOCEAN")]})


def personas() -> list[Persona]:
    return design(levels=[1, 3, 5, 7, 9], biographies=2)


def answer_rows(model: str, run_id: str, inv: Inventory, people: list[Persona], rng: np.random.Generator, *,
                plays: bool, leans: dict[str, dict[str, float]], against: tuple[str, ...] = ()) -> list[dict]:
    """``against``: items the playing model answers as if they were not reverse-keyed (agreeing with a statement and
    with its opposite): after keying they run against their domain."""
    rows = []
    for p in people:
        for order in ("ascending", "descending"):
            for seq, it in enumerate(inv.items):
                if plays:
                    level = p.targets.get(it.domain)
                    base = 3 + ((level - 5) / 2 if level else 0) + leans[p.id][it.domain]
                    keyed = int(np.clip(np.round(base + rng.normal(0, 0.6)), 1, 5))
                    keyed = 6 - keyed if it.id in against else keyed
                else:
                    keyed = int(rng.integers(1, 6))
                score = 6 - keyed if it.reverse else keyed
                number = score if order == "ascending" else 6 - score
                rows.append({"run_id": run_id, "model": model, "inventory": inv.name, "persona_id": p.id,
                             "persona": p.description, "sex": p.sex, "age": p.age, "targets": json_targets(p.targets),
                             "order_mode": order, "seq": seq, "item_id": it.id, "domain": it.domain, "facet": it.facet,
                             "reverse": int(it.reverse), "item": it.text, "mode": "logprob", "number": number,
                             "option_index": score - 1, "option": inv.options[score - 1], "score": score,
                             "keyed": keyed, "valid": 1, "raw": str(number), "source": "run"})
    return rows


def build(path: Path, seed: int = 0, against: tuple[str, ...] = (), *, shaped: bool = True) -> Path:
    """``shaped=False``: the same 50 personas without their shaping targets (their scores then differ by their own
    leans only), as the paper's MTMM is measured."""
    rng = np.random.default_rng(seed)
    people = personas() if shaped else [p.model_copy(update={"targets": {}}) for p in personas()]
    leans = {p.id: {d: float(rng.normal(0, 0.5)) for d in "OCEAN"} for p in people}
    with Store(path) as store:
        for model, plays in (("plays", True), ("random", False)):
            spec = ModelSpec(name=model, backend="custom", model=model, base_url="http://127.0.0.1:9/v1")
            for inv in (load_inventory("rolescope-mini"), OTHER):
                run_id = f"{model}-{inv.name}"
                create_run(store, "inventory", spec, InventoryPlan(inventory=inv, personas=people).model_dump(), run_id)
                store.upsert(ANSWERS.name, answer_rows(model, run_id, inv, people, rng, plays=plays, leans=leans,
                                                               against=against))
                store.set_run_status(run_id, "completed")
    return path
