"""Tests of the inventory method (personality inventories, Serapio-García et al. 2023)."""

from pathlib import Path

#: ``run inventory`` options of a small plan, for the contract test over every method (tests/test_method_contract.py).
CONTRACT_RUN = ["--inventory", "rolescope-mini", "--domains", "E", "--levels", "1,5,9", "--biographies", "1",
                "--limit-items", "10", "--answer-mode", "text"]

#: ``parse KIND`` lines read by hand: (input line, expected {valid, value}); the contract test runs them through the CLI.
PARSE_SAMPLES = {"inventory-option": [
    ({"reply": "4"}, (True, 3)),
    ({"reply": "4", "order": "descending"}, (True, 1)),
    ({"reply": "I would rate this a 2 (moderately inaccurate)."}, (True, 1)),
    ({"reply": "Very accurate."}, (True, 4)),
    ({"reply": "3 or 4"}, (False, None)),
]}

ANCHORS = Path(__file__).resolve().parents[3].parent / "shared" / "anchors" / "ipip_neo"


def fixture_answers(store, model: str, seed: int) -> None:
    """The app fixture store's inventory run of ``model`` (``tests/app/fixture_store.py``): RoleScope's short form
    given to 15 shaped personas (every domain at levels 1, 5 and 9) in both orders; answers that follow the levels
    with noise, a few unreadable."""
    import numpy as np

    from analysis.llm.specs import parse_model_spec
    from analysis.methods import create_run
    from analysis.methods.inventory.inventory import load_inventory
    from analysis.methods.inventory.personas import design
    from analysis.methods.inventory.session import ANSWERS, InventoryPlan
    from tests.methods.inventory.synthetic import answer_rows

    rng = np.random.default_rng(seed)
    people = design(levels=[1, 5, 9], biographies=1)
    inv = load_inventory("rolescope-mini")
    spec = parse_model_spec(model)  # the fixture's named configurations (models.toml)
    run_id = f"inventory-{model}"
    create_run(store, "inventory", spec, InventoryPlan(inventory=inv, personas=people).model_dump(), run_id)
    rows = answer_rows(model, run_id, inv, people, rng, plays=True,
                       leans={p.id: {d: float(rng.normal(0, 0.4)) for d in "OCEAN"} for p in people})
    for row in rows[::37]:  # a few replies the reader could not read: stored invalid with their text
        row.update(valid=0, reason="no number or option label found", raw="I am a nurse.", number=None,
                   option_index=None, option=None, score=None, keyed=None)
    store.upsert(ANSWERS.name, rows)
    store.set_run_status(run_id, "completed")


#: The seed offset of this method's answers in the app fixture store (``tests/app/fixture_store.py``: model k's seed is
#: k + FIXTURE_SEED; the store writes methods in this order).
FIXTURE_SEED = 51
