"""AppTest: the Trust page for a model whose beliefs and forecasts never parse shows the play alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analysis.llm.specs import parse_model_spec
from analysis.runs.store import Store
from analysis.methods.trust.tables import BELIEFS, PRIORS, ROUNDS, TRANSFERS
from tests.app.conftest import APP, _bind, page_path

MODEL = "embedded"


def _store(path: Path) -> Path:
    spec = parse_model_spec(MODEL)
    with Store(path) as store:
        for run_id, level in (("pop", "population"), ("ind", "individual")):
            store.create_run(run_id, "trust", MODEL, spec.public_dict(), {"method": "trust", "level": level})
        store.upsert(BELIEFS.name, [
            {"run_id": "pop", "model": MODEL, "endowment": 10, "strategy": "Ctx+Tr", "attribute": a, "valid": 0,
             "reason": "no JSON object in the reply", "raw": "Sure!"} for a in ("sex", "age")])
        # Female sends 8 and 6, Male 2 and 4 (η²_sex = 0.8 by hand), one reply out of range
        sends = [("Female", 8), ("Male", 2), ("Female", 6), ("Male", 4), ("Male", None)]
        store.upsert(TRANSFERS.name, [
            {"run_id": "pop", "model": MODEL, "endowment": 10, "conditioning": "self", "persona_id": f"p{i}",
             "attributes": json.dumps({"sex": sex}), "sent": sent, "valid": int(sent is not None),
             "reason": None if sent is not None else "'$16' is outside [0, 10]", "raw": "I send"}
            for i, (sex, sent) in enumerate(sends)])
        # self-conditioning with no parsed belief: the role prompts carried nothing
        store.upsert(PRIORS.name, [{"run_id": "pop", "model": MODEL, "endowment": 10, "conditioning": "self",
                                    "strategy": "Ctx+Tr", "attribute": a, "reason": "no valid Ctx+Tr belief"}
                                   for a in ("sex", "age")])
        store.upsert(ROUNDS.name, [
            {"run_id": "ind", "model": MODEL, "endowment": 10, "persona_id": "p0", "archetype": 3, "round": r,
             "forecast": None, "sent": 5, "valid": 1} for r in (1, 2)])
        for run_id in ("pop", "ind"):
            store.set_run_status(run_id, "completed")
    return path


@pytest.fixture
def at(tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    _bind(monkeypatch, _store(tmp_path / "tiny-trust.db"), tmp_path / "user.db", cache_dir)
    at = AppTest.from_file(APP, default_timeout=300).run()
    return at.switch_page(page_path("trust")).run()


def test_behaviour_only_views(at: AppTest):
    assert not at.exception
    infos = [i.value for i in at.info]
    assert any(i.startswith("No valid beliefs for this model (2 unparseable)")
               and "from the `self`-conditioned games, whose role prompts carried no belief" in i for i in infos)
    assert any("put no prior into the role prompts" in i for i in infos)  # the conditioning tab
    assert any(i.startswith("No round has both a valid forecast and a valid send") for i in infos)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Personas with a valid send"] == "4"
    assert metrics["Mean sent"] == "$5.00"
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    behaviour = next(s for s in specs if any(a.get("text") == "Amount sent ($)" for a in s["layout"].get("annotations", [])))
    play = next(s for s in specs if s["data"] and s["data"][0].get("name", "").startswith("Trustee returns"))
    assert behaviour["data"][1]["x"] == ["sex"] and behaviour["data"][1]["y"] == pytest.approx([0.8], abs=1e-6)
    bins = dict(zip(behaviour["data"][0]["x"], behaviour["data"][0]["y"]))  # every $1 bin [d, d+1), and the endowment
    assert list(bins) == [f"[{d}, {d + 1})" for d in range(10)] + ["10"]
    assert {b: n for b, n in bins.items() if n} == {"[2, 3)": 1, "[4, 5)": 1, "[6, 7)": 1, "[8, 9)": 1}
    assert play["data"][0]["y"] == [5.0, 5.0]
    reasons = at.dataframe[0].value
    assert set(zip(reasons["table"], reasons["reason"], reasons["replies"])) == {
        ("beliefs", "no JSON object in the reply", 2), ("transfers", "'…' is outside [0, 10]", 1)}
