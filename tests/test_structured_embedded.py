"""Structured answers end to end on the embedded model (issue 56): ``run values|mbti|inventory --answer-format json``
through the CLI, each reply constrained by the llama.cpp grammar the JSON schema compiles to, read from its JSON field
(no text fallback); each method's stub tests show json and text runs are two configurations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.store import Store

pytestmark = pytest.mark.slow

RUNS = {
    "values": ["--limit-items", "3", "--limit-personas", "1"],
    "mbti": ["--subjects", "Men", "--testings", "1", "--limit-statements", "3"],
    "inventory": ["--answer-mode", "text", "--limit-items", "3", "--biographies", "1", "--domains", "E",
                  "--levels", "9"],
}


@pytest.mark.parametrize("method", sorted(RUNS))
def test_a_structured_run_on_the_embedded_model(method: str, tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    base = ["run", method, "--model", "embedded", "--store", str(store), "--quiet", "--yes", *RUNS[method]]
    assert main([*base, "--answer-format", "json"]) == 0
    with Store(store, read_only=True) as s:
        [run_id] = list(s.runs()["run_id"])
        run = s.get_run(run_id)
        assert run["plan"]["answer_format"] == "json" and run["status"] == "completed"
        rows = s.table(f"{method}_answers", [run_id])
    assert len(rows) and set(rows["valid"]) == {1}  # the grammar leaves nothing to guess
    for raw in rows["raw"]:
        assert isinstance(json.loads(raw)["answer"], (str, int))  # every reply one JSON object with its answer
    assert rows["reason"].isna().all()  # read from the JSON field, never the text fallback
