"""The report on a synthetic store with planted answers: shaping recovered beyond chance for the model that plays the
levels, chance-like for the one answering at random and for shuffled answers; MTMM across two inventories; the
CLI's ``metrics inventory --json`` document holds ``models.<name>.domains``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis.__main__ import main
from analysis.methods.base import doc_frame
from analysis.methods.inventory.report import metrics_json
from analysis.methods.inventory.session import ANSWERS
from analysis.runs.store import Store
from tests.methods.inventory import synthetic

SIMS = 100


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    return synthetic.build(tmp_path_factory.mktemp("inv") / "synthetic.db")


@pytest.fixture(scope="module")
def report(store_path):
    with Store(store_path) as store:
        return metrics_json(store, chance=SIMS)


def test_planted_shaping_is_recovered_beyond_chance(report) -> None:
    doc = report["models"]["plays"]
    assert doc["inventory"] == "rolescope-mini"
    for d, entry in doc["domains"].items():
        assert entry["shaping_rho"] > 0.8, d
        bands = doc["chance"]["rolescope-mini"][f"shaping/{d}"]
        assert {k: v["verdict"] for k, v in bands.items()} == {"uniform": "beyond chance", "permutation": "beyond chance"}
    assert doc["headlines"]["inventory_shaping"]["value"] == pytest.approx(
        np.mean([e["shaping_rho"] for e in doc["domains"].values()]))
    assert doc["headlines"]["inventory_alpha"]["value"] == pytest.approx(
        np.mean([e["alpha"] for e in doc["domains"].values()]))


def test_random_answers_sit_inside_their_chance_band(report) -> None:
    doc = report["models"]["random"]
    assert abs(doc["headlines"]["inventory_shaping"]["value"]) < 0.25  # mean of five ρ over 10 personas each
    band = doc["chance"]["rolescope-mini"]["shaping"]["uniform"]
    assert band["lo"] <= doc["headlines"]["inventory_shaping"]["value"] <= band["hi"]
    assert doc["chance"]["rolescope-mini"]["alpha"]["uniform"]["verdict"] == "chance-like"


def test_answers_shuffled_across_personas_come_out_at_chance(store_path, tmp_path) -> None:
    """The plays model's answers permuted across personas within each item and order, three times: shaping is gone.
    One shuffle's verdict is itself a draw from the null (beyond chance 5 % of the time), so three are read together:
    their mean shaping ρ is near 0 and at most one of them reads beyond chance (the planted answers: all three; two of
    three null draws beyond chance has probability 0.7 %)."""
    import shutil

    cols = ["number", "option_index", "option", "score", "keyed"]
    headlines, verdicts = [], []
    for seed in range(3):
        path = tmp_path / f"shuffled{seed}.db"
        shutil.copy(store_path, path)
        rng = np.random.default_rng(seed)
        with Store(path) as store:
            rows = store.table(ANSWERS.name)
            rows = rows[rows["model"] == "plays"].copy()
            for _, group in rows.groupby(["inventory", "order_mode", "item_id"]):
                rows.loc[group.index, cols] = group[cols].to_numpy()[rng.permutation(len(group))]
            store.upsert(ANSWERS.name, rows.to_dict("records"))
            doc = metrics_json(store, model="plays", chance=SIMS)["models"]["plays"]
        headlines.append(doc["headlines"]["inventory_shaping"]["value"])
        verdicts.append(doc["chance"]["rolescope-mini"]["shaping"]["permutation"]["verdict"])
    assert abs(np.mean(headlines)) < 0.15, headlines
    assert verdicts.count("beyond chance") <= 1, verdicts


def test_mtmm_across_the_two_inventories(report) -> None:
    plays, rnd = report["models"]["plays"]["mtmm"], report["models"]["random"]["mtmm"]
    assert plays["inventories"] == ["mini-b", "rolescope-mini"] or set(plays["inventories"]) == {"mini-b", "rolescope-mini"}
    assert plays["n_personas"] == 50 and plays["convergent"] > 0.7 and plays["discriminant"] > 0.3
    assert abs(rnd["convergent"]) < 0.3


def test_a_reverse_item_answered_unreversed_lowers_omega_and_is_named(report, store_path, tmp_path) -> None:
    """The playing model answers m11 ("I would rather spend an evening alone than with a group", reverse-keyed) as if
    it were not reversed: after keying it runs against Extraversion. ω (the key imposed) drops with α and the domain's
    keying diagnostic names m11; psych's default flip would have turned it round (its ω stays high). On the well-keyed
    store no item is named and ω is the flipped value."""
    from analysis.methods.inventory import psychometrics as pm
    from analysis.methods.inventory.scoring import sheets
    from analysis.reliability import omega_total

    path = synthetic.build(tmp_path / "against.db", against=("m11",))
    with Store(path) as store:
        doc = metrics_json(store, "plays")["models"]["plays"]
        rows = store.table(ANSWERS.name)
    good = report["models"]["plays"]["domains"]
    bad = doc["domains"]["E"]
    assert [k["item_id"] for k in bad["keying"]] == ["m11"] and bad["keying"][0]["loading"] < 0
    assert bad["keying"][0]["item"].startswith("I would rather spend an evening alone")
    s = sheets(rows[(rows["model"] == "plays") & (rows["inventory"] == "rolescope-mini")], 5)
    flipped = omega_total(pm.domain_items(s.X, s.domain == "E"))
    # E is shaped (single-trait design): its pooled coefficients are between shaping levels; the keying diagnostic
    # and psych's flip are about that pooled fit
    assert bad["omega_between"] < good["E"]["omega_between"] - 0.3 and bad["omega_between"] < flipped - 0.2
    assert bad["alpha_between"] < good["E"]["alpha_between"] - 0.3
    assert all(doc["domains"][d]["keying"] == [] for d in "OCAN")
    with Store(store_path) as store:
        rows = store.table(ANSWERS.name)
    s = sheets(rows[(rows["model"] == "plays") & (rows["inventory"] == "rolescope-mini")], 5)
    for d, entry in good.items():
        pooled = entry.get("omega_between", entry["omega"])
        assert entry["keying"] == [] and pooled == pytest.approx(omega_total(pm.domain_items(s.X, s.domain == d)), abs=1e-6), d


def test_undefined_numbers_say_why(report) -> None:
    doc = report["models"]["plays"]["inventories"]["rolescope-mini"]
    e = doc["domains"]["E"]
    assert e["percentile"] is None and "no norms" in e["percentile_reason"]
    assert doc["norms"] is None and doc["position"]["first"] is not None


def test_cli_metrics_json(store_path, capsys) -> None:
    assert main(["metrics", "inventory", "--store", str(store_path), "--json", "--chance", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    domains = doc["models"]["plays"]["domains"]
    assert set(domains) == set("OCEAN")
    for entry in domains.values():
        assert {"score", "percentile", "alpha", "omega"} <= set(entry)
        assert entry["percentile"] is None and entry["percentile_reason"]


def test_mtmm_has_chance_bands(report) -> None:
    plays, rnd = report["models"]["plays"]["mtmm"]["chance"], report["models"]["random"]["mtmm"]["chance"]
    assert {k: v["verdict"] for k, v in plays["convergent"].items()} == {"uniform": "beyond chance",
                                                                        "permutation": "beyond chance"}
    # shuffled personas: no convergence, whatever the answers
    assert abs(plays["convergent"]["permutation"]["mean"]) < 0.05 and abs(rnd["convergent"]["permutation"]["mean"]) < 0.05
    assert plays["convergent"]["permutation"]["hi"] < 0.2 and rnd["convergent"]["uniform"]["hi"] < 0.2


def test_mtmm_convergent_per_domain_are_the_matrix_entries(report) -> None:
    mt = report["models"]["plays"]["mtmm"]
    a, b = mt["inventories"]
    matrix = doc_frame(mt["matrix"]).set_index("scale")
    per = mt["convergent_domains"]
    assert set(per) == set("OCEAN") and all(v > 0.5 for v in per.values())
    assert sum(per.values()) / len(per) == pytest.approx(mt["convergent"])
    assert all(matrix.loc[f"{a} · {d}", f"{b} · {d}"] == pytest.approx(r) for d, r in per.items())
