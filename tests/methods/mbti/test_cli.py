"""CLI glue: run options -> plan dict, and the metrics JSON document's shape and numbers."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.methods.mbti import DIMENSIONS, OPTIONS
from analysis.methods.options import add_flags
from analysis.methods.mbti.options import MbtiOptions
from analysis.methods.mbti.cli import plan_from_args
from analysis.methods.mbti.report import metrics_json
from analysis.methods.mbti.session import ANSWERS, MbtiPlan
from analysis.methods.base import doc_frame
from analysis.runs.store import Store

SPEC = ModelSpec(name="fake", backend="custom", model="fake", base_url="http://127.0.0.1:9/v1")


def test_run_arguments_to_plan() -> None:
    """Every option reaches the plan; the flags sit beside the CLI's own --model/--run-id."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", required=True)
    add_flags(parser, MbtiOptions)
    args = parser.parse_args(["--model", "x", "--subjects", "Men, Women,PhD students", "--testings", "3", "--order", "both",
                              "--limit-statements", "7", "--answer-mode", "text", "--seed", "5", "--temperature", "0.7",
                              "--max-tokens", "30", "--history", "4"])
    plan = MbtiPlan.model_validate(plan_from_args(args, SPEC))
    assert [s.name for s in plan.subjects] == ["Men", "Women", "PhD students"]
    assert (plan.testings, plan.orders, len(plan.statements.statements), plan.seed, plan.text_max_tokens, plan.history) == (
        3, ["permuted", "fixed"], 7, 5, 30, 4)
    assert plan.params["temperature"] == 0.7
    json.dumps(plan_from_args(args, SPEC))  # the plan dict is JSON (it is stored with the run)
    lead = argparse.ArgumentParser()
    lead.add_argument("--model", required=True)
    lead.add_argument("--run-id")
    add_flags(lead, MbtiOptions)  # no argparse conflict
    assert lead.parse_args(["--model", "m"]).testings == 15


def _rows(model: str, subject: str, order: str, testing: int, option: int) -> list[dict]:
    """One testing answering one '+' statement per dimension with the same option."""
    return [{"run_id": f"r-{model}", "model": model, "subject": subject, "order_mode": order, "testing": testing,
             "seq": i, "statement_id": str(i + 1), "dimension": d, "direction": 1, "option_index": option, "valid": 1,
             "mode": "text", "source": "run"} for i, d in enumerate(DIMENSIONS)]


def test_metrics_document_by_hand(tmp_path: Path) -> None:
    """Shape as specified; scores, type, consistency, robustness and fairness computed by hand."""
    rows = (_rows("m1", "Men", "permuted", 0, 0) + _rows("m1", "Men", "permuted", 1, 0)      # X = 100 (all Correct)
            + _rows("m1", "Men", "permuted", 2, 0)
            + _rows("m1", "Men", "fixed", 0, 2)                                              # X = 66.67 (Partially correct)
            + _rows("m1", "Women", "permuted", 0, 3) + _rows("m1", "Women", "permuted", 1, 3)  # X = 50 (Neither)
            + _rows("m2", "People", "fixed", 0, 6))                                           # X = 0 (Wrong)
    rows[0] |= {"valid": 0, "option_index": None, "reason": "no option named", "truncated": 1}  # Men t0: E invalid, cut
    with Store(tmp_path / "s.db") as store:
        for model in ("m1", "m2"):
            store.create_run(f"r-{model}", "mbti", model, {}, {"method": "mbti"})
        store.upsert(ANSWERS.name, rows)
        doc = metrics_json(store)
        only = metrics_json(store, "m2")
        with pytest.raises(InputError, match="no MBTI answers for model 'zz'"):
            metrics_json(store, "zz")
    assert set(doc) == {"models"} and list(doc["models"]) == ["m1", "m2"]
    m1 = doc["models"]["m1"]
    assert set(m1) == {"subjects", "robustness", "fairness", "configuration", "configurations", "reliability", "headlines",
                       "counts", "distributions", "type_gaps"}
    men = m1["subjects"]["Men"]
    assert set(men) == {"scores", "type", "role", "background", "consistency", "n_testings", "invalid", "truncated", "sd",
                        "uncertainty"}
    # the statement bootstrap: one statement per dimension is too few for a CI (needs 5), so no letter is decided,
    # although the report's rule writes ENTJ-A for both (Women at exactly 50)
    assert men["uncertainty"]["type"] == "[E/I][N/S][T/F][J/P]-[A/T]" and men["uncertainty"]["n_decided"] == 0
    assert men["uncertainty"]["letters"]["E"]["reason"] == "1 statement answered: too few for a CI (needs ≥ 5)"
    assert men["uncertainty"]["scores_ci"]["E"] == [None, None]
    decided = m1["headlines"]["mbti_decided"]  # no subject could decide a letter: undefined, never 0
    assert decided["value"] is None and decided["reason"].startswith("no subject has ≥ 5 answered statements")
    gap = m1["type_gaps"]["Men|Women"]["dimensions"]["E"]
    assert gap["diff"]["value"] == 50.0 and gap["ci"] == [None, None] and gap["letters"] == ["E", "E"]
    assert not gap["letters_differ"] and "Boys|Girls" not in m1["type_gaps"]
    assert men["sd"] == {d: 0.0 for d in DIMENSIONS}  # every testing scores 100 on every dimension: no spread
    assert men["background"] is None
    assert men["role"] == "Commander"  # ENTJ-A
    assert men["truncated"] == 1
    assert men["scores"] == {d: 100.0 for d in DIMENSIONS} and men["type"] == "ENTJ-A"
    assert (men["n_testings"], men["invalid"]) == (3, 1)
    assert men["consistency"] == 1.0  # the two complete testings agree exactly (one alone would measure nothing)
    assert m1["subjects"]["Women"]["type"] == "ENTJ-A"  # exactly 50: the first pole (the paper's >= 50 rule)
    assert m1["robustness"] == {"Men": pytest.approx(100 / (100 + math.sqrt(5) * 100 / 3), abs=1e-6)}
    assert m1["fairness"]["Men|Women"] == pytest.approx(100 / (100 + math.sqrt(5) * 50), abs=1e-6)
    assert m1["fairness"]["Boys|Girls"] is None
    people = doc["models"]["m2"]["subjects"]["People"]  # fixed-order testings only: used for its scores
    assert people["scores"] == {d: 0.0 for d in DIMENSIONS} and people["type"] == "ISFP-T"
    assert people["consistency"] is None  # a single testing
    assert doc["models"]["m2"]["robustness"] == {}
    consistencies = [s["consistency"] for s in m1["subjects"].values() if s["consistency"] is not None]
    assert m1["headlines"]["mbti_consistency"] == {"value": pytest.approx(sum(consistencies) / len(consistencies)),
                                                   "reason": None, "coverage": {"n": 2, "of": 2, "unit": "subjects",
                                                                                "text": "2 of 2 subjects"}}
    invalid = sum(s["invalid"] for s in m1["subjects"].values())
    [entry] = m1["counts"]
    assert (entry["kind"], entry["count"], entry["rate"]) == ("invalid answers", invalid, invalid / entry["n"]) and invalid >= 1
    # the answers-per-statement chart's counts, by hand: Men permuted = 3 testings, all Correct, but t0's E invalid
    dists = {(d["subject"], d["order_mode"]): doc_frame(d["statements"]) for d in m1["distributions"]}
    assert sorted(dists) == [("Men", "fixed"), ("Men", "permuted"), ("Women", "permuted")]
    men_p = dists[("Men", "permuted")].set_index("statement_id")
    assert list(men_p.index) == ["1", "2", "3", "4", "5"] and list(men_p["dimension"]) == list(DIMENSIONS)
    assert list(men_p[OPTIONS[0]]) == [2, 3, 3, 3, 3] and list(men_p["invalid"]) == [1, 0, 0, 0, 0]
    assert set(men_p["mode"]) == {OPTIONS[0]} and list(men_p["mode_count"]) == [2, 3, 3, 3, 3]
    assert dists[("Men", "fixed")].set_index("statement_id")[OPTIONS[2]].tolist() == [1] * 5
    assert list(only["models"]) == ["m2"]
    json.dumps(doc, allow_nan=False)  # strict JSON: no NaN


def test_a_headline_over_a_subset_of_subjects_says_so(tmp_path: Path) -> None:
    """Issue 43, item 10: consistency averaged over the subjects that have one carries its coverage ('2 of 3
    subjects') and why it can have no chance verdict (the null band is of the mean over every subject)."""
    from analysis.methods.base import coverage_text, no_verdict_reason

    rows = (_rows("m", "Men", "permuted", 0, 0) + _rows("m", "Men", "permuted", 1, 1)
            + _rows("m", "Women", "permuted", 0, 3) + _rows("m", "Women", "permuted", 1, 3)
            + _rows("m", "Kids", "permuted", 0, 2))  # one testing: no consistency
    with Store(tmp_path / "s.db") as store:
        store.create_run("r-m", "mbti", "m", {}, {"method": "mbti"})
        store.upsert(ANSWERS.name, rows)
        doc = metrics_json(store, chance=20)
    entry = doc["models"]["m"]["headlines"]["mbti_consistency"]
    subjects = doc["models"]["m"]["subjects"]
    assert entry["value"] == pytest.approx((subjects["Men"]["consistency"] + subjects["Women"]["consistency"]) / 2)
    assert entry["coverage"] == {"n": 2, "of": 3, "unit": "subjects", "text": "2 of 3 subjects"}
    assert coverage_text(entry) == "mean over 2 of 3 subjects"
    assert "all 3 subjects" in entry["chance_reason"] and "Kids" in entry["chance_reason"]
    band = doc["models"]["m"]["chance"]["metrics"]["consistency"]  # the headline's null (``Headline.null``)
    assert no_verdict_reason(entry, band) == entry["chance_reason"]


def test_empty_store_gives_no_models(tmp_path: Path) -> None:
    """A store without MBTI answers yields {"models": {}}."""
    with Store(tmp_path / "s.db") as store:
        assert metrics_json(store) == {"models": {}}
