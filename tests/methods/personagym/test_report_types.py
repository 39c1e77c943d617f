"""The PersonaGym report's type (``analysis.methods.personagym.report_types``): a real report of the fixture's grades
is one, and a report with a broken field is not."""

from __future__ import annotations

import copy

import pydantic
import pytest

from analysis.methods.personagym.cli import report
from analysis.methods.personagym.report_types import PersonaGymReport
from analysis.runs.store import Store
from tests.methods.personagym.fixture import fixture_answers

MODEL = "smollm2-greedy"  # a model of the app fixture store (a name models.toml knows)


def test_report_types_accept_the_report_and_catch_a_broken_field(tmp_path) -> None:
    store = Store(tmp_path / "personagym.db")
    fixture_answers(store, MODEL, 0)
    doc = report(store)
    assert doc["models"][MODEL]["personas"] and doc["models"][MODEL]["persona_score"] is not None
    PersonaGymReport.model_validate(doc)

    broken = copy.deepcopy(doc)
    broken["models"][MODEL]["persona_score"] = "x"
    with pytest.raises(pydantic.ValidationError, match="persona_score"):
        PersonaGymReport.model_validate(broken)
    broken = copy.deepcopy(doc)
    del broken["models"][MODEL]["tasks"]["Toxicity Control"]  # a task-keyed section holds the five tasks
    with pytest.raises(pydantic.ValidationError, match="tasks"):
        PersonaGymReport.model_validate(broken)
    broken = copy.deepcopy(doc)
    del broken["figure4"][MODEL]["n_answers"]
    with pytest.raises(pydantic.ValidationError, match="n_answers"):
        PersonaGymReport.model_validate(broken)
