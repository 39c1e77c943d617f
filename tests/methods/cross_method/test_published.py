"""The published LLM figures beside the pairs (``analysis.methods.cross_method.published``, offered by each method's
``external_validity``): Conscientiousness with Achievement, Conformity and Security carry the paper's per-model r
(Serapio-García et al. 2025, figures_data @ c3fea44, the inventory's bundled file); every other pair none; ``human_r``
is left as it was."""

from __future__ import annotations

from analysis.methods.cross_method.pairs import load_pairs
from analysis.methods.cross_method.published import published_for
from analysis.methods.inventory.external_validity import LINKS as INVENTORY_LINKS
from analysis.methods.cross_method.report import metrics_json
from analysis.methods.inventory.published import domains
from analysis.runs.store import Store
from tests.methods.cross_method.synthetic import build_campaign

#: (values score, inventory score) as pairs.json orders them -> (domain code, scale code).
LINKS = {(other, f"inventory:{score}"): link for (score, other), link in INVENTORY_LINKS.items()}


def test_the_linked_pairs_are_bundled_pairs_and_carry_every_model():
    bundled = {(p.a, p.b) for p in load_pairs().pairs}
    assert set(LINKS) <= bundled
    for (a, b), (domain, scale) in LINKS.items():
        rows = published_for(a, b)
        figures = domains()["external"][domain]["models"]  # the file's model order
        assert [r["model_id"] for r in rows] == list(figures) and set(figures) == set(domains()["models"])
        assert [r["r"] for r in rows] == [row[scale] for row in figures.values()]
        assert rows == published_for(b, a)
        assert all(r["measures"].startswith("IPIP-NEO-300 Conscientiousness × PVQ-RR ") for r in rows)
        assert all("external_validity_CON.csv" in r["source"] and "c3fea44" in r["source"] for r in rows)
    assert published_for("values:Benevolence", "inventory:A") == []


def test_the_report_carries_them_per_pair_and_keeps_human_r_null(tmp_path):
    with Store(tmp_path / "xm.db") as store:
        build_campaign(store, "plays", "12", seed=5)
        doc = metrics_json(store, n_boot=0, chance=0)["models"]["plays"]
    by_pair = {(p["a"], p["b"]): p for p in doc["pairs"]}
    achievement = by_pair["values:Achievement", "inventory:C"]["published"]
    gpt4o = next(r for r in achievement if r["model_id"] == "gpt-4o")
    assert gpt4o["model"] == "GPT-4o" and gpt4o["r"] == domains()["external"]["CON"]["models"]["gpt-4o"]["ACHV"]
    for key, pair in by_pair.items():
        assert pair["human_r"] is None  # LLM figures are not human ones
        assert bool(pair["published"]) == (key in LINKS), key
