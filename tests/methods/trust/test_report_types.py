"""The trust report's type (``analysis.methods.trust.report_types``): a real report of the fixture's games is one, and
a report with a broken field is not."""

from __future__ import annotations

import copy

import pydantic
import pytest

from analysis.methods.trust.cli import report
from analysis.methods.trust.report_types import TrustReport
from analysis.runs.store import Store
from tests.methods.trust.fixture import fixture_answers

MODEL = "smollm2-greedy"  # a model of the app fixture store (a name models.toml knows)


def test_report_types_accept_the_report_and_catch_a_broken_field(tmp_path) -> None:
    store = Store(tmp_path / "trust.db")
    fixture_answers(store, MODEL, 0)
    doc = report(store, n_boot=20)
    mdoc = doc["models"][MODEL]
    assert mdoc["population"] and mdoc["conditioning"] and mdoc["individual"]["archetypes"]  # every section filled
    TrustReport.model_validate(doc)

    broken = copy.deepcopy(doc)
    broken["models"][MODEL]["population"]["Ctx+Tr"]["median_spearman"] = "x"
    with pytest.raises(pydantic.ValidationError, match="median_spearman"):
        TrustReport.model_validate(broken)
    broken = copy.deepcopy(doc)
    del broken["models"][MODEL]["individual"]["archetypes"]["1"]["mae_ci"]
    with pytest.raises(pydantic.ValidationError, match="mae_ci"):
        TrustReport.model_validate(broken)
