"""End to end with the embedded model: create_run/execute_run on a tmp store, rows checked, resume is free."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.llm.specs import parse_model_spec
from analysis.methods.mbti import OPTIONS
from analysis.methods.mbti.report import metrics_json
from analysis.methods.mbti.plan import build_mbti_plan
from analysis.methods.mbti.session import ANSWERS
from analysis.methods import create_run, execute_run
from analysis.runs.store import Store

pytestmark = pytest.mark.slow


def test_embedded_logprob_and_text_runs(tmp_path: Path) -> None:
    """2 subjects x 2 testings x 3 statements (logprob) and x 2 statements (text): every row stored and keyed;
    logprob answers are all valid letters mapped through their order; a re-execution is all cache hits."""
    spec = parse_model_spec("embedded")
    with Store(tmp_path / "s.db") as store:
        plan = build_mbti_plan(spec, subjects=["Men", "Women"], testings=2, limit_statements=3, answer_mode="logprob")
        run_id = create_run(store, "mbti", spec, plan.model_dump())
        summary = execute_run(store, run_id, concurrency=2)
        assert (summary.status, summary.total, summary.done, summary.failed) == ("completed", 12, 12, 0)
        df = store.table(ANSWERS.name, [run_id])
        assert len(df) == 12 and set(df["valid"]) == {1}
        assert {(r.subject, r.testing, r.statement_id) for r in df.itertuples()} == {
            (s, t, i) for s in ("Men", "Women") for t in (0, 1) for i in ("1", "2", "3")}
        for row in df.itertuples():
            order = json.loads(row.option_order)
            assert sorted(order) == list(range(7))
            assert row.option_index == order["ABCDEFG".index(row.letter)] and row.option == OPTIONS[row.option_index]
            assert row.logprob <= 0 and row.statement.startswith(row.subject)
        assert df["cache_key"].nunique() == 12
        again = execute_run(store, run_id)
        assert (again.cached, again.done) == (12, 12)

        text_plan = build_mbti_plan(spec, subjects=["Men", "Women"], testings=2, limit_statements=2, text_max_tokens=12)
        text_id = create_run(store, "mbti", spec, text_plan.model_dump())
        assert execute_run(store, text_id, concurrency=2).status == "completed"
        text = store.table(ANSWERS.name, [text_id])
        assert len(text) == 8 and text["raw"].notna().all() and set(text["mode"]) == {"text"}
        invalid = text[text["valid"] == 0]
        assert invalid["reason"].notna().all() and invalid["option"].isna().all()  # never a guessed option

        doc = metrics_json(store, "embedded")
        men = doc["models"]["embedded"]["subjects"]["Men"]
        # the text run is the latest configuration; the logprob run is another one, listed, never pooled with it
        # (the 135M model's text replies often name no option, so the text testings' consistency may be undefined)
        assert men["n_testings"] == 2 and (men["consistency"] is None or 0 < men["consistency"] <= 1)
        configs = doc["models"]["embedded"]["configurations"]
        assert [c["runs"] for c in configs] == [[text_id], [run_id]] and "answer_mode" in configs[1]["differs"]
        logprob = metrics_json(store, "embedded", config=configs[1]["id"])["models"]["embedded"]["subjects"]["Men"]
        assert logprob["n_testings"] == 2 and 0 < logprob["consistency"] <= 1  # every logprob answer is valid
        assert set(doc["models"]["embedded"]["fairness"]) == {"Men|Women", "Boys|Girls"}
