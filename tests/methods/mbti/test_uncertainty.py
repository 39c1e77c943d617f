"""Each subject's type with its uncertainty (a bootstrap over the statements) and the type gap of Men and Women
(``analysis.methods.mbti.uncertainty``): hand-built subjects, and the real ChatGPT-MBTI answers (github
Kali-Hac/ChatGPT-MBTI @ a50bac9, Rao et al. 2023, read from ``../shared/anchors/chatgpt_mbti``; skipped when absent)
against an independent numpy bootstrap."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.methods.mbti import POLES
from analysis.methods.mbti.answers import selected_answers
from analysis.methods.mbti.importer import parse_files, store_parsed
from analysis.methods.mbti.report import metrics_json
from analysis.methods.mbti.scoring import WEIGHTS, mean_scores, scores_by_testing
from analysis.methods.mbti.uncertainty import (
    MIN_STATEMENTS, chosen_answers, decided_headline, pair_gap, subject_uncertainty,
)
from analysis.runs.store import Store
from tests.methods.mbti import _ANCHORS

C, GC, PC, NCNW, PW, GW, W = range(7)  # option indices: weights +3 +2 +1 0 −1 −2 −3


def answers(rows: list[tuple[str, str, int, int]], subject: str = "Men", testings: int = 1) -> pd.DataFrame:
    """mbti_answers rows of one subject: (statement_id, dimension, direction, option index) per row, repeated in each
    of ``testings`` testings."""
    out = [("m", subject, "permuted", "r1", t, sid, dim, direction, option, 1)
           for t in range(testings) for sid, dim, direction, option in rows]
    return pd.DataFrame(out, columns=["model", "subject", "order_mode", "run_id", "testing", "statement_id", "dimension",
                                      "direction", "option_index", "valid"])


def test_a_score_at_the_cut_is_undecided() -> None:
    """Six E statements: +3, −3, +3, −3, 0, 0 (a reversed statement answered Correct weighs −3): X_E = 50 exactly;
    every resample is spread around 50, so the CI includes it and the letter is 'E/I' with the reason, never 'E'."""
    rows = [("1", "E", 1, C), ("2", "E", -1, C), ("3", "E", 1, C), ("4", "E", -1, C), ("5", "E", 1, NCNW),
            ("6", "E", -1, NCNW)]
    u = subject_uncertainty(answers(rows), n_boot=1000, seed=0)
    lo, hi = u["scores_ci"]["E"]
    assert lo < 50 < hi
    assert u["letters"]["E"] == {"letter": "E/I", "decided": False,
                                 "reason": f"95 % CI [{lo:.1f}, {hi:.1f}] includes 50, the cut between E and I"}
    assert u["type"].startswith("[E/I]") and u["n_decided"] == 0
    assert mean_scores(scores_by_testing(answers(rows)))["E"] == 50.0  # the report's type code would say "E"


def test_clear_scores_decide_their_letters() -> None:
    """E: six statements agreeing with E (+3, +2, +3, +2, +3, +1): X_E = 50 + 50·14/18 ≈ 88.9 and no resample gets near
    50 -> 'E'. N: six agreeing with S (−3 … −1) -> 'S'. T has three statements only -> 'T/F' (too few); J none -> 'X'."""
    rows = [("1", "E", 1, C), ("2", "E", 1, GC), ("3", "E", -1, W), ("4", "E", 1, GC), ("5", "E", 1, C), ("6", "E", 1, PC),
            *((str(10 + k), "N", 1, o) for k, o in enumerate((W, GW, W, PW, GW, W))),
            ("20", "T", 1, C), ("21", "T", 1, C), ("22", "T", 1, C)]
    u = subject_uncertainty(answers(rows), n_boot=1000, seed=0)
    assert u["letters"]["E"] == {"letter": "E", "decided": True, "reason": None} and u["scores_ci"]["E"][0] > 50
    assert u["letters"]["N"]["letter"] == "S" and u["scores_ci"]["N"][1] < 50
    assert u["letters"]["T"]["letter"] == "T/F" and f"needs ≥ {MIN_STATEMENTS}" in u["letters"]["T"]["reason"]
    assert u["letters"]["J"] == {"letter": "X", "decided": False, "reason": "no valid answer on this dimension"}
    assert u["type"] == "ES[T/F]X-X" and u["n_decided"] == 2 and not u["decidable"]
    assert decided_headline({"s": u}, 1000)["value"] is None  # T and J could decide nothing: left out, never 0
    full = subject_uncertainty(answers(rows[:12] + [(str(30 + k), d, 1, C) for d in "TJ" for k in range(5)]),
                               n_boot=500, seed=0)
    assert full["decidable"] and full["type"] == "ESTJ-X"
    assert decided_headline({"s": u, "t": full}, 500) | {} == {
        "value": 4.0, "reason": None, "coverage": {"n": 1, "of": 2, "unit": "subjects", "text": "1 of 2 subjects"},
        "note": "mean over 1 subject of the letters (of 4) whose 95 % CI over statements lies on one side of 50"}


def test_the_estimate_is_the_reports_score_over_several_testings() -> None:
    """The bootstrap scores each resample as the report does: the unresampled statistic is the mean over testings of
    the per-testing percentages (an invalid answer left out of its testing only)."""
    rows = answers([("1", "E", 1, C), ("2", "E", -1, PW), ("3", "E", 1, NCNW), ("4", "E", 1, GW), ("5", "E", -1, GC)],
                   testings=3)
    rows.loc[(rows["testing"] == 1) & (rows["statement_id"] == "1"), ["valid", "option_index"]] = [0, None]
    rows.loc[rows["testing"] == 2, "option_index"] = C
    from analysis.methods.mbti.uncertainty import resampled_scores, statement_sums

    _, sums, counts = statement_sums(rows, "E")
    assert resampled_scores(np.ones((1, 5)), sums, counts)[0] == pytest.approx(mean_scores(scores_by_testing(rows))["E"])


def test_pair_gap_by_hand() -> None:
    """Men all +3 and Women all −3 on the same six E statements: Δ = 100 − 0 = 100, CI [100, 100], letters E vs I."""
    stmts = [(str(k), "E", 1) for k in range(6)]
    men = answers([(*s, C) for s in stmts])
    women = answers([(*s, W) for s in stmts], subject="Women")
    gap = pair_gap(men, women, ("EXXX-X", "IXXX-X"), n_boot=200)
    e = gap["dimensions"]["E"]
    assert e["diff"]["value"] == 100.0 and e["ci"] == [100.0, 100.0] and e["letters"] == ["E", "I"]
    assert e["letters_differ"] and gap["n_letters_differ"] == 1
    assert gap["dimensions"]["N"]["diff"]["value"] is None


# -- the real published answers -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, pd.DataFrame]:
    if not _ANCHORS.is_dir():
        pytest.skip("../shared/anchors/chatgpt_mbti (Kali-Hac/ChatGPT-MBTI @ a50bac9) not present")
    path = tmp_path_factory.mktemp("mbti_unc") / "mbti.db"
    with Store(path) as store:
        for folder in ("ChatGPT", "GPT4", "InstructGPT"):
            store_parsed(store, parse_files(sorted((_ANCHORS / folder).glob("*.csv")), text=False))
        return metrics_json(store, n_boot=2000), selected_answers(store)


def _numpy_gap(rows: pd.DataFrame, dim: str, rng: np.random.Generator, n_boot: int) -> tuple[float, float, float]:
    """Men − Women on ``dim`` from the answer rows, by plain numpy: one testing each, so a subject's score is
    50 + 50·mean(s·w)/3 over its valid answers; the statements either answered resampled together."""
    def signed(subject: str) -> pd.Series:
        mine = rows[(rows["subject"] == subject) & (rows["dimension"] == dim) & (rows["valid"] == 1)]
        w = np.array(WEIGHTS)[mine["option_index"].astype(int)] * mine["direction"].astype(int).to_numpy()
        return pd.Series(w, index=mine["statement_id"].astype(str).to_numpy())

    both = pd.concat([signed("Men").rename("m"), signed("Women").rename("w")], axis=1, join="outer")
    m, w = both["m"].to_numpy(float), both["w"].to_numpy(float)  # NaN: not answered validly by that subject
    idx = rng.integers(0, len(both), (n_boot, len(both)))
    reps = 50 * (np.nanmean(m[idx], 1) - np.nanmean(w[idx], 1)) / 3
    lo, hi = np.percentile(reps, [2.5, 97.5])
    return 50 * (np.nanmean(m) - np.nanmean(w)) / 3, lo, hi


def test_men_women_gap_on_the_real_import(real: tuple[dict, pd.DataFrame]) -> None:
    """Each model's Men − Women per dimension is the difference of the report's own scores, its letters those of the
    report's types, and its CI that of an independent numpy bootstrap (another generator, 20 000 draws) within 3 points
    (a statement's weight moves a resample's score in steps of ~1.5 points, so percentiles are discrete). GPT4 scores Men T and Women F (T: 60.0 vs 41.7), a gap of 18.3 whose CI excludes 0."""
    doc, rows = real
    rng = np.random.default_rng(7)
    for model, mdoc in doc["models"].items():
        gap = mdoc["type_gaps"]["Men|Women"]
        men, women = mdoc["subjects"]["Men"], mdoc["subjects"]["Women"]
        mine = rows[rows["model"] == model]
        for k, dim in enumerate("ENTJA"):
            g = gap["dimensions"][dim]
            assert g["diff"]["value"] == pytest.approx(men["scores"][dim] - women["scores"][dim], abs=1e-5)
            pos = 5 if dim == "A" else k
            assert g["letters"] == [men["type"][pos], women["type"][pos]]
            est, lo, hi = _numpy_gap(mine, dim, rng, 20000)
            assert est == pytest.approx(g["diff"]["value"], abs=1e-9)
            assert g["ci"][0] == pytest.approx(lo, abs=3) and g["ci"][1] == pytest.approx(hi, abs=3)
    t = doc["models"]["GPT4"]["type_gaps"]["Men|Women"]["dimensions"]["T"]
    assert t["letters"] == ["T", "F"] and t["letters_differ"] and t["diff"]["value"] == pytest.approx(18.333333, abs=1e-5)
    assert t["ci"][0] > 0


def test_real_headlines(real: tuple[dict, pd.DataFrame]) -> None:
    """One testing per subject: consistency is undefined and says why in a sentence; the letters-decided headline is
    the mean over subjects of their decided letters, and every letter shown decided has a CI on one side of 50."""
    doc, rows = real
    for model, mdoc in doc["models"].items():
        heads = mdoc["headlines"]
        assert heads["mbti_consistency"]["value"] is None
        assert heads["mbti_consistency"]["reason"].startswith("this source (Kali-Hac/ChatGPT-MBTI) asked each subject "
                                                              "once; consistency needs two testings")
        assert all(s["uncertainty"]["decidable"] for s in mdoc["subjects"].values())
        decided = [s["uncertainty"]["n_decided"] for s in mdoc["subjects"].values()]
        assert len(decided) == 6 and heads["mbti_decided"]["value"] == pytest.approx(sum(decided) / 6)
        for subject, s in mdoc["subjects"].items():
            u = s["uncertainty"]
            for k, dim in enumerate("ENTJ"):
                lo, hi = u["scores_ci"][dim]
                assert lo <= s["scores"][dim] <= hi
                if u["letters"][dim]["decided"]:
                    assert (lo > 50 or hi < 50) and u["letters"][dim]["letter"] == s["type"][k]
                else:
                    assert lo <= 50 <= hi and u["letters"][dim]["letter"] == "/".join(POLES[dim])
                    assert f"[{u['letters'][dim]['letter']}]" in u["type"]
            assert len(chosen_answers(rows[rows["model"] == model], subject)) == 60


def test_alpha_over_testings_needs_two_testings_of_one_subject(real: tuple[dict, pd.DataFrame]) -> None:
    """Issue 57 item 3: the import tests each subject once (Men, Women, Doctors …): no α over testings, with the
    reason; two testings of one subject give it again."""
    from analysis.methods.mbti.chance import ONE_TESTING_EACH, model_reliability

    _, rows = real
    chatgpt = rows[rows["model"] == "ChatGPT"]
    alpha = model_reliability(chatgpt)["alpha"]
    assert all(a["alpha"] is None and a["reason"] == ONE_TESTING_EACH for a in alpha.values())
    items = [(f"s{k}", "E", 1 if k % 2 else -1, (k * 3) % 7) for k in range(8)]
    twice = answers(items, testings=2)
    twice.loc[twice["testing"] == 1, "option_index"] = (twice.loc[twice["testing"] == 1, "option_index"] + 1) % 7
    assert model_reliability(twice)["alpha"]["E"]["reason"] != ONE_TESTING_EACH


def test_a_type_does_not_change_with_the_bootstrap_size_a_page_asks_for(real, tmp_path) -> None:
    """The letters (and the letters-decided headline) are decided on ``TYPE_BOOT`` resamples whatever ``n_boot`` the
    report is asked for (the dashboard's tests ask 200, ``metrics --json`` 1,000): one number, one place."""
    doc, _ = real
    with Store(tmp_path / "mbti.db") as store:
        for folder in ("ChatGPT", "GPT4", "InstructGPT"):
            store_parsed(store, parse_files(sorted((_ANCHORS / folder).glob("*.csv")), text=False))
        small = metrics_json(store, n_boot=200)
    for model, mdoc in doc["models"].items():
        assert small["models"][model]["headlines"]["mbti_decided"] == mdoc["headlines"]["mbti_decided"]
        for subject, s in mdoc["subjects"].items():
            assert small["models"][model]["subjects"][subject]["uncertainty"] == s["uncertainty"]
