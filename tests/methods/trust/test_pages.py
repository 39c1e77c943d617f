"""The trust-game page: population, conditioning and individual sections show the report's numbers."""

from __future__ import annotations

import json
import pytest

from analysis.runs.store import Store
from analysis.methods.trust.cli import metrics_json as trust_metrics
from tests.methods.trust.fixture import N_TRUST_PERSONAS


@pytest.fixture(scope="module")
def docs(fixture_store):
    with Store(fixture_store, read_only=True) as store:
        return trust_metrics(store, n_boot=200), None


def test_trust_population_matches_document(app_on_fixture, docs):
    """Median Spearman with its CI, personas, and per-attribute Spearman / η² equal the trust metrics document."""
    at = app_on_fixture("trust", model="smollm2-greedy", strategy="Ctx+Tr")
    assert not at.exception
    pop = docs[0]["models"]["smollm2-greedy"]["population"]["Ctx+Tr"]
    metrics = {m.label: m.value for m in at.metric}
    lo, hi = pop["median_spearman_ci"]
    assert metrics["Median Spearman ↑"] == f"{pop['median_spearman']:.2f} [{lo:.2f}, {hi:.2f}]"
    assert metrics["Personas who played"] == str(N_TRUST_PERSONAS)
    captions = [c.value for c in at.caption]
    assert sum(c.startswith("Chance (95 % band)") for c in captions) == 2
    assert any(c.startswith("Split-half reliability of behaviour") for c in captions)
    assert any(c.startswith("Personas — population: ") and "RoleScope's earlier 15 attributes" in c for c in captions)
    assert any(c.startswith("Published (paper, Table 3, Ctx+Tr") and "Llama 3.1 70B Instruct: ρ 0.50" in c for c in captions)
    table = at.dataframe[0].value.set_index("attribute")
    for attribute, row in pop["attributes"].items():
        assert table.loc[attribute, "Spearman ↑"] == pytest.approx(row["spearman"])
        assert table.loc[attribute, "η² behaviour"] == pytest.approx(row["eta2_behaviour"])
        assert table.loc[attribute, "belief ranking"] == " > ".join(row["belief_ranking"])
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in spec["data"]] == ["Spearman", "η² belief (stated)", "η² behaviour (played)"]


def test_trust_conditioning_and_individual(app_on_fixture, docs):
    """The conditioning table lists none and weak; the MAE table has archetypes 1, 3, 5 with the document's MAE."""
    at = app_on_fixture("trust", model="smollm2-t07")
    doc = docs[0]["models"]["smollm2-t07"]
    frames = [d.value for d in at.dataframe]
    cond = frames[1].set_index("conditioning")
    assert list(cond.index) == ["none", "weak"]
    weak = doc["conditioning"]["weak"]["median_spearman_imposed"]
    assert cond.loc["weak", "median ρ with prompt prior"] == pytest.approx(weak)
    mae = next(f for f in frames if "archetype k" in f.columns).set_index("archetype k")
    achieved = next(f for f in frames if "achieved ρ" in f.columns)  # Table 4: each prior's achieved ρ and target
    weak_rows = achieved[achieved["conditioning"] == "weak"].set_index("attribute")
    for attribute, row in doc["conditioning"]["weak"]["attributes"].items():
        assert weak_rows.loc[attribute, "achieved ρ"] == pytest.approx(row["prior_spearman"])
    assert list(mae.index) == [1, 3, 5]
    assert mae.loc[3, "MAE ↓"] == pytest.approx(doc["individual"]["archetypes"]["3"]["mae"])
    assert mae["vs chance"].str.contains("p = ").all()
    traces = doc["individual"]["trajectories"]
    trace = next(f for f in frames if "forecast explanation" in f.columns)  # Tables 6–8: forecasts next to play
    first = traces[sorted(traces, key=int)[0]]
    expected = first[sorted(first)[0]]
    assert trace["round"].tolist() == [r["round"] for r in expected]
    assert trace["sent $"].tolist() == [r["sent"] for r in expected]


def test_the_page_shows_how_its_readers_read_their_corpora(app_on_fixture):
    """Beside the invalid counts: each trust reader's shipped corpus figures (data/readers/measured.json)."""
    from analysis.reader_quality import published_measures

    at = app_on_fixture("trust", model="smollm2-greedy", strategy="Ctx+Tr")
    assert not at.exception
    shown = next(c.value for c in at.caption if c.value.startswith("Readers measured on hand-labelled replies"))
    amount = published_measures()["trust-amount"]
    assert (f"trust-amount: {amount['read_right']} of {amount['answerable']} answerable replies read, "
            f"{amount['wrong']} wrong values") in shown
