"""The MBTI run of the app fixture store (``tests/app/fixture_store.py``): the bundled statements about People, Men
and Women, permuted and fixed order, 3 testings; a few answers invalid."""

from __future__ import annotations

import numpy as np

from analysis.llm.specs import parse_model_spec
from analysis.methods.mbti.session import ANSWERS as MBTI_ANSWERS
from analysis.methods.mbti.statements import load_statements
from analysis.runs.store import Store

SUBJECTS = ("People", "Men", "Women")
N_TESTINGS = 3


def fixture_answers(store: Store, model: str, seed: int) -> None:
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


def tiny_answers(store: Store) -> None:
    """One embedded run's worth of MBTI answers: People x 1 testing x 5 statements."""
    statements = load_statements("default").statements[:5]
    spec = parse_model_spec("embedded")
    store.create_run("m", "mbti", "embedded", spec.public_dict(), {"method": "mbti"})
    store.upsert(MBTI_ANSWERS.name, [
        {"run_id": "m", "model": "embedded", "subject": "People", "order_mode": "permuted", "testing": 0, "seq": k,
         "statement_id": st.id, "dimension": st.dimension, "direction": st.direction, "statement": st.text, "mode": "text",
         "option_index": k % 7, "weight": 3 - k % 7, "valid": 1, "raw": "Correct", "source": "run"}
        for k, st in enumerate(statements)])
    store.set_run_status("m", "completed")


def real_answers(store: Store) -> bool:
    """A real model's published answers in the fixture store (``tests/app/conftest.py``'s ``mixed_store``): ChatGPT-MBTI's
    GPT4 on People, Men and Women, imported numbers only; False when ``../shared/anchors`` is absent."""
    from analysis.methods.mbti.importer import parse_files, store_parsed
    from tests.methods.mbti import _ANCHORS

    if not _ANCHORS.is_dir():
        return False
    store_parsed(store, parse_files([_ANCHORS / "GPT4" / "answer_people_men_women.csv"], text=False))
    return True
