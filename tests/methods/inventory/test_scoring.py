"""Scoring against five-factor-e's own numbers on its own example answers (``../shared/anchors/ipip_neo``: the
package's ``answers.json`` files), through the whole path: answers stored as a run, the report's percentiles."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from analysis.llm.specs import ModelSpec
from analysis.methods import create_run
from analysis.methods.inventory.inventory import load_inventory
from analysis.methods.inventory.personas import Persona
from analysis.methods.inventory.report import metrics_json
from analysis.methods.inventory.scoring import QUARTILE_Z, norm_band
from analysis.methods.inventory.session import ANSWERS, InventoryPlan
from analysis.runs.store import Store
from tests.methods.inventory import ANCHORS

pytestmark = pytest.mark.skipif(not ANCHORS.is_dir(), reason="../shared/anchors/ipip_neo not present")
SPEC = ModelSpec(name="m", backend="custom", model="m", base_url="http://127.0.0.1:9/v1")
EXAMPLES = [("120", "answers.json", "M", 40), ("120", "test/answers-1.json", "F", 25), ("300", "answers.json", "N", 61)]


def package_result(n: int, answers: dict, sex: str, age: int) -> dict[str, float]:
    from ipipneo import IpipNeo

    result = IpipNeo(question=n).compute(sex=sex, age=age, answers=copy.deepcopy(answers))
    out = {}
    for entry in result["person"]["result"]["personalities"]:
        (doc,) = entry.values()
        letter = next(k for k in doc if len(k) == 1)
        out[letter] = doc[letter]
    return out


def store_sheet(tmp_path, n: int, answers: dict, sex: str, age: int) -> Store:
    inv = load_inventory(ANCHORS / str(n) / "questions.json")
    persona = Persona(id="p1", description="someone", sex=sex, age=age)
    store = Store(tmp_path / "s.db")
    create_run(store, "inventory", SPEC, InventoryPlan(inventory=inv, personas=[persona], orders=["ascending"]).model_dump(), "r1")
    chosen = {int(a["id_question"]): int(a["id_select"]) for a in answers["answers"]}
    rows = [{"run_id": "r1", "model": "m", "inventory": inv.name, "persona_id": "p1", "persona": "someone", "sex": sex,
             "age": age, "targets": None, "order_mode": "ascending", "seq": s, "item_id": it.id, "domain": it.domain,
             "facet": it.facet, "reverse": int(it.reverse), "item": it.text, "mode": "text", "valid": 1,
             "number": chosen[int(it.id)], "option_index": chosen[int(it.id)] - 1, "score": chosen[int(it.id)],
             "keyed": inv.keyed(it, chosen[int(it.id)])} for s, it in enumerate(inv.items)]
    store.upsert(ANSWERS.name, rows)
    return store


@pytest.mark.parametrize("n, file, sex, age", EXAMPLES)
def test_report_percentiles_are_five_factor_e_s(tmp_path, n: str, file: str, sex: str, age: int) -> None:
    answers = json.loads((ANCHORS / n / file).read_text())
    expected = package_result(int(n), answers, sex, age)
    with store_sheet(tmp_path, int(n), answers, sex, age) as store:
        doc = metrics_json(store)["models"]["m"]
    assert doc["inventory"] == f"ipip-neo-{n}"
    for d, pct in expected.items():
        assert doc["domains"][d]["percentile"] == pytest.approx(pct, abs=1e-12)


@pytest.mark.parametrize("n, file, sex, age", EXAMPLES[:2])
def test_domain_scores_are_the_package_s_reversed_sums(tmp_path, n: str, file: str, sex: str, age: int) -> None:
    """Our keyed mean × items per domain = five-factor-e's domain sum after its own reversal (``ReverseScored120``,
    ``Facet.score``, ``Facet.domain``): the keys agree."""
    from ipipneo.facet import Facet
    from ipipneo.model import QuestionNumber
    from ipipneo.reverse import ReverseScored120

    answers = json.loads((ANCHORS / n / file).read_text())
    reversed_ = ReverseScored120(copy.deepcopy(answers))
    ordered = [a["id_select"] for a in sorted(reversed_["answers"], key=lambda a: a["id_question"])]
    facet = Facet(QuestionNumber.IPIP_120)
    sums = facet.domain(facet.score(ordered))
    with store_sheet(tmp_path, int(n), answers, sex, age) as store:
        doc = metrics_json(store)["models"]["m"]
    for d in "OCEAN":
        assert doc["domains"][d]["score"] * 24 == pytest.approx(sums[d], abs=1e-9)


def test_norm_band_is_johnsons_quartiles() -> None:
    """Norm(F, 34, 120)'s extraversion mean and SD (``ns[2]``, ``ns[7]``) ± 0.6745 SD, per item (24)."""
    from ipipneo.norm import Norm

    ns = Norm(sex="F", age=34, nquestion=120)["ns"]
    lo, hi = norm_band("ipip-neo-120", "F", 34)["E"]
    assert (lo, hi) == pytest.approx(((ns[2] - QUARTILE_Z * ns[7]) / 24, (ns[2] + QUARTILE_Z * ns[7]) / 24))
    assert QUARTILE_Z == pytest.approx(__import__("scipy.stats").stats.norm.ppf(0.75), abs=1e-15)
    assert np.all([lo < hi for lo, hi in norm_band("ipip-neo-300", "M", 70).values()])
