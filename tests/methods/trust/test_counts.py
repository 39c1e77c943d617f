"""The trust report's invalid counts cover every condition its page shows: each imported condition of a source (not
only the one the model's headline configuration is), and each conditioning of the native games, per condition too."""

from __future__ import annotations

from pathlib import Path

from analysis.methods.trust.cli import metrics_json
from analysis.methods.trust.importer import import_paths
from analysis.methods.trust.labels import imported_rows
from analysis.methods.trust.tables import BELIEFS, PRIORS, TRANSFERS
from analysis.runs.store import Store
from tests.methods.trust.test_importer import write_game


def test_an_imported_condition_full_of_unread_replies_counts(tmp_path: Path) -> None:
    """Base: 4 replies, all read. Male: 5 replies, 4 of them unreadable. The model's invalid share is 4 of 9, not the
    base condition's 0 of 4; each condition carries its own count, and the page's table says it."""
    base = write_game(tmp_path / "src", condition="res", res=[1, 2, 3, 4])
    male = write_game(tmp_path / "src", condition="male_res", res=[5, "no idea", "no idea", "no idea", "no idea"])
    with Store(tmp_path / "s.db") as store:
        import_paths(store, [base, male])
        doc = metrics_json(store, n_boot=0)["models"]["m1"]
    assert [e["condition"] for e in doc["imported"].values() if e["used"]] == ["base"]
    [count] = doc["counts"]
    assert (count["kind"], count["count"], count["n"]) == ("invalid replies", 4, 9)
    by_condition = {e["condition"]: e["invalid_replies"] for e in doc["imported"].values()}
    assert {c: (e["count"], e["n"]) for c, e in by_condition.items()} == {"base": (0, 4), "male": (4, 5)}
    rows = {r["condition"]: r["invalid replies (RoleScope's reading)"] for r in imported_rows(doc["imported"])}
    assert rows == {"base": "0 of 4 (0.0 %)", "male": "4 of 5 (80.0 %)"}


def _transfer(run_id: str, pid: str, sex: str, sent: int | None, conditioning: str) -> dict:
    return {"run_id": run_id, "model": "m1", "endowment": 10, "conditioning": conditioning, "persona_id": pid,
            "attributes": {"sex": sex}, "sent": sent, "valid": int(sent is not None),
            "raw": f"I send ${sent}" if sent is not None else "I would rather not say"}


def test_each_conditioning_counts_its_own_invalid_transfers(tmp_path: Path) -> None:
    """Unconditioned games: 4 replies, 1 unreadable; weak-conditioned games: 4 replies, 3 unreadable."""
    with Store(tmp_path / "s.db") as store:
        for run_id, plan in {"rw": {"conditioning": "weak"}, "rn": {}}.items():
            store.create_run(run_id, "trust", "m1", {}, {"method": "trust", "level": "population", "endowment": 10,
                                                         **plan})
        store.upsert(BELIEFS.name, [{"run_id": "rn", "model": "m1", "endowment": 10, "strategy": "Ctx+Tr",
                                     "attribute": "sex", "levels": ["Female", "Male"], "ranking": ["Male", "Female"],
                                     "effect_size": 0.2, "valid": 1, "raw": "Male > Female"}])
        store.upsert(TRANSFERS.name, [
            *[_transfer("rn", f"p{i}", sex, sent, "none")
              for i, (sex, sent) in enumerate(zip(["Female", "Female", "Male", "Male"], [2, 4, 8, None]))],
            *[_transfer("rw", f"p{i}", sex, sent, "weak")
              for i, (sex, sent) in enumerate(zip(["Female", "Female", "Male", "Male"], [3, None, None, None]))],
        ])
        store.upsert(PRIORS.name, [{"run_id": "rw", "model": "m1", "endowment": 10, "conditioning": "weak",
                                    "strategy": "Ctx+Tr", "attribute": "sex", "original": ["Male", "Female"],
                                    "imposed": ["Female", "Male"], "target": 0.8, "achieved": -1.0}])
        doc = metrics_json(store, n_boot=0)["models"]["m1"]
    got = {c: (d["invalid_transfers"]["count"], d["invalid_transfers"]["n"]) for c, d in doc["conditioning"].items()}
    assert got == {"none": (1, 4), "weak": (3, 4)}
    assert (doc["counts"][0]["count"], doc["counts"][0]["n"]) == (4, 9)  # and the belief
