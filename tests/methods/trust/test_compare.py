"""Trust comparisons (analysis.methods.trust.compare): each A − B row with a bootstrap CI over the units both models
answered (paired), else an unpaired one that says so. Real data: camel-ai/agent-trust @ a3f14f0 (Xie et al. 2024,
Apache-2.0) and yutxie/ChatGPT-Behavioral @ 69ec557 (Mei et al. 2024, MIT), read from ``../shared/anchors`` (skipped
when absent)."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from analysis import methods
from analysis.methods.base import Side, headline
from analysis.runs.store import Store
from tests.methods.trust.fixture import fixture_answers

ANCHORS = Path(__file__).resolve().parents[4] / "shared" / "anchors"
AGENT_TRUST = ANCHORS / "agent_trust" / "agent_trust" / "No repeated res" / "res"
BEHAVIORAL = ANCHORS / "chatgpt_behavioral" / "records"
A, B = "smollm2-greedy", "smollm2-t07"
N_BOOT = 200


def test_trust_forecast_mae_mean_skips_undefined_archetypes():
    """Forecast MAE over shared archetypes: the mean of the defined ones ((2 + 4) / 2 = 3); none defined is undefined
    (NaN, drawn as "—"), with no numpy warning."""
    import math
    import warnings

    from analysis.methods.trust.compare import compare_trust

    a = {"individual": {"archetypes": {"1": {"mae": 2.0}, "3": {"mae": None}, "5": {"mae": 4.0}}}}
    b = {"individual": {"archetypes": {"1": {"mae": None}, "3": {"mae": None}, "5": {"mae": None}}}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (diff,) = compare_trust(a, b)
    assert diff.a == 3.0 and math.isnan(diff.b) and math.isnan(diff.diff)


def test_trust_median_spearman_on_the_attributes_both_have():
    """A has ρ for age 0.2, sex 0.4, religion 0.9; B for age 0.1, sex -0.3 (religion undefined) and region 0.5: both
    medians over age and sex only (A 0.3, B -0.1), the note saying the others are left out."""
    from analysis.methods.trust.compare import compare_trust

    def doc(rhos):
        return {"population": {"Ctx+Tr": {"median_spearman": 0.0,
                                           "attributes": {k: {"spearman": v} for k, v in rhos.items()}}}}

    (d,) = compare_trust(doc({"age": 0.2, "sex": 0.4, "religion": 0.9}),
                         doc({"age": 0.1, "sex": -0.3, "religion": None, "region": 0.5}))
    assert (round(d.a, 12), round(d.b, 12), round(d.diff, 12)) == (0.3, -0.1, 0.4)
    assert d.note == ("over the 2 attributes with a defined ρ on both sides (A has 3, B 4: the others are left out); "
                      "no CI: the per-unit rows were not given")


def more_games(store: Store, model: str, seed: int, personas: list[str]) -> None:
    """Six-round games against archetypes 1, 3, 5 for more personas of the fixture's individual run (enough for a CI)."""
    from analysis.methods.trust.tables import ROUNDS

    rng = np.random.default_rng(seed)
    rows = []
    for pid in personas:
        for k in (1, 3, 5):
            for r in range(1, 7):
                forecast = int(rng.integers(0, 11))
                rows.append({"run_id": f"trust-ind-{model}", "model": model, "endowment": 10, "persona_id": pid,
                             "archetype": k, "round": r, "forecast": forecast,
                             "sent": int(np.clip(forecast + rng.integers(-3, 4), 0, 10)), "valid": 1})
    store.upsert(ROUNDS.name, rows)


def two_models(path: Path, *, other_personas: bool = False) -> Path:
    """The trust fixture's answers of two models (20 personas' games, beliefs about sex and age, games against three
    archetypes, here by eight personas); ``other_personas``: B's personas renamed, so the two share none."""
    with Store(path) as store:
        for model, seed in ((A, 0), (B, 1)):
            fixture_answers(store, model, seed)
            more_games(store, model, seed, ["d", "e", "f", "g", "h"])
    if other_personas:
        with sqlite3.connect(path) as conn:
            for table in ("trust_transfers", "trust_rounds"):
                conn.execute(f"UPDATE {table} SET persona_id = 'other-' || persona_id WHERE model = ?", (B,))
    return path


def compared(path: Path, a: str = A, b: str = B) -> tuple[dict, list]:
    method = methods.get("trust")
    with Store(path, read_only=True) as store:
        report = method.report(store, n_boot=0)
        return report, method.compare(Side(store, a, None, report), Side(store, b, None, report), n_boot=N_BOOT)


def finite_ci(d) -> bool:
    return math.isfinite(d.lo) and math.isfinite(d.hi) and d.lo <= d.diff <= d.hi


def test_models_sharing_personas_get_a_paired_ci_on_every_row_at_the_reports_numbers(tmp_path) -> None:
    """Two models that played the same 20 personas (8 in the repeated games): each strategy's median Spearman, the
    forecast MAE and sent − human get a paired CI over those personas; A and B are the reports' numbers, A − B their
    difference (all units shared), and the headlines' rows are keyed to them."""
    report, rows = compared(two_models(tmp_path / "s.db"))
    by = {d.metric: d for d in rows}
    assert set(by) == {"Median Spearman belief vs behaviour (Ctx+Tr)", "Median Spearman belief vs behaviour (NoCtx+Tr)",
                       "Forecast MAE, mean over archetypes (lower is better)",
                       "Sent − human, $ of $10 (A − B: the difference of the amounts sent)"}
    doc = report["models"]
    for d in rows:
        assert finite_ci(d), d
        assert math.isclose(d.diff, d.a - d.b, abs_tol=2e-6), d
    for strategy in ("Ctx+Tr", "NoCtx+Tr"):
        d = by[f"Median Spearman belief vs behaviour ({strategy})"]
        assert "paired over 20 shared personas" in d.note
        assert (d.a, d.b) == (doc[A]["population"][strategy]["median_spearman"],
                              doc[B]["population"][strategy]["median_spearman"])
    mae = by["Forecast MAE, mean over archetypes (lower is better)"]
    assert mae.note == "paired over 8 shared personas"
    assert math.isclose(mae.a, np.mean([e["mae"] for e in doc[A]["individual"]["archetypes"].values()]), abs_tol=1e-6)
    keyed = {d.key: d for d in rows if d.key}
    assert set(keyed) == {"trust_spearman", "trust_vs_human"}
    for key, d in keyed.items():
        assert (d.a, d.b) == (headline(report, A, key)["value"], headline(report, B, key)["value"])
    assert keyed["trust_vs_human"].note == "paired over 20 shared personas"


def test_models_with_other_personas_are_not_paired_and_get_an_unpaired_ci(tmp_path) -> None:
    """B played other personas: every row says "not paired" and carries the unpaired CI (each side's personas resampled
    on their own) of the difference of the reports' numbers."""
    _, rows = compared(two_models(tmp_path / "s.db", other_personas=True))
    assert len(rows) == 4
    for d in rows:
        assert d.note.endswith("not paired (0 shared personas): unpaired CI over "
                               + ("8 personas of A and 8 personas of B" if "MAE" in d.metric else
                                  "20 personas of A and 20 personas of B")), d
        assert finite_ci(d) and math.isclose(d.diff, d.a - d.b, abs_tol=1e-12), d


def test_a_persona_invalid_on_one_side_pairs_the_others_and_the_row_is_not_the_headline(tmp_path) -> None:
    """A's game of persona p0 has no valid amount: sent − human is paired over the 19 personas valid on both sides,
    so it is not the headline (the reports average 19 and 20 personas)."""
    path = two_models(tmp_path / "s.db")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE trust_transfers SET valid = 0, sent = NULL WHERE model = ? AND persona_id = 'p0' "
                     "AND conditioning = 'none'", (A,))
    _, rows = compared(path)
    (d,) = [d for d in rows if d.metric.startswith("Sent − human")]
    assert d.note == "paired over 19 shared personas (A has 19, B 20)" and d.key is None and finite_ci(d)


@pytest.fixture(scope="module")
def agent_trust_compare(tmp_path_factory) -> tuple[dict, list]:
    if not AGENT_TRUST.is_dir():
        pytest.skip("../shared/anchors/agent_trust not present")
    from analysis.methods.trust.importer import import_paths

    path = tmp_path_factory.mktemp("agent-trust") / "s.db"
    with Store(path) as store:
        import_paths(store, [AGENT_TRUST / f"{m}_res" / f"Trust_Game_{m}.json" for m in ("gpt-4", "gpt-3.5-turbo-0613")])
    return compared(path, "gpt-4", "gpt-3.5-turbo-0613")


def test_gpt4_and_gpt35_on_the_imported_agent_trust_play_get_a_paired_ci_on_every_row(agent_trust_compare) -> None:
    """The done-when check of issue 57 (item 6): both models answered the same 53 personas of agent-trust's base
    condition, so every A − B row (the amount sent by the source's extraction and by RoleScope's reading, sent − human)
    has a finite paired CI over them; A and B are the reports' numbers."""
    report, rows = agent_trust_compare
    assert [d.metric for d in rows] == ["Amount sent, mean $ (base, the source's extraction)",
                                        "Amount sent, mean $ (base, RoleScope's reading)",
                                        "Sent − human, $ of $10 (A − B: the difference of the amounts sent)"]
    doc = report["models"]
    for d in rows:
        assert finite_ci(d) and "paired over 53 shared personas" in d.note, d
    source, reader, vs_human = rows
    entry = {m: next(iter(doc[m]["imported"].values())) for m in ("gpt-4", "gpt-3.5-turbo-0613")}
    assert (source.a, source.b) == (entry["gpt-4"]["amount_sent"]["mean"]["value"],
                                    entry["gpt-3.5-turbo-0613"]["amount_sent"]["mean"]["value"])
    assert (reader.a, reader.b) == (entry["gpt-4"]["amount_sent_reader"]["mean"]["value"],
                                    entry["gpt-3.5-turbo-0613"]["amount_sent_reader"]["mean"]["value"])
    assert vs_human.key == "trust_vs_human" and math.isclose(vs_human.diff, source.diff, abs_tol=1e-12)
    assert (vs_human.a, vs_human.b) == (headline(report, "gpt-4", "trust_vs_human")["value"],
                                        headline(report, "gpt-3.5-turbo-0613", "trust_vs_human")["value"])
    assert math.isclose(source.diff, source.a - source.b, abs_tol=1e-12)


def test_chatgpt_behavioral_sessions_are_never_paired(tmp_path) -> None:
    """ChatGPT-Behavioral asks one prompt 30 times a file (no persona): gpt-4-0314's session 12-s01 is not
    gpt-3.5-turbo-0301's, so the same session ids do not pair them; the CI is the unpaired one and the note says why."""
    if not BEHAVIORAL.is_dir():
        pytest.skip("../shared/anchors/chatgpt_behavioral not present")
    from analysis.methods.trust.behavioral import build_runs, parse_paths, store_runs

    files = [next(BEHAVIORAL.glob(f"trust_{m}_12_*.json")) for m in ("gpt4", "turbo")]
    with Store(tmp_path / "s.db") as store:
        store_runs(store, build_runs(parse_paths(files)))
    _, rows = compared(tmp_path / "s.db", "gpt-4-0314", "gpt-3.5-turbo-0301")
    (source,) = [d for d in rows if d.metric.endswith("the source's extraction)")]
    assert source.note.startswith("published play, imported; not paired (0 shared sessions): unpaired CI over ")
    assert source.note.endswith("no session of one model is one of the other's") and finite_ci(source)
