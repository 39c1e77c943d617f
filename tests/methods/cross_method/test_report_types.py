"""The cross-method report's type (``analysis.methods.cross_method.report_types``): a real report of the fixture's
campaign (with chance draws) is one, and a report with a broken field is not."""

from __future__ import annotations

import copy

import pydantic
import pytest

from analysis.methods.cross_method.report import metrics_json
from analysis.methods.cross_method.report_types import CrossMethodReport
from analysis.runs.store import Store
from tests.methods.cross_method import fixture_answers

MODEL = "smollm2-greedy"  # a model of the app fixture store (a name models.toml knows)


def test_report_types_accept_the_report_and_catch_a_broken_field(tmp_path) -> None:
    store = Store(tmp_path / "cross.db")
    fixture_answers(store, MODEL, 0)
    doc = metrics_json(store, n_boot=20, chance=20)
    mdoc = doc["models"][MODEL]
    assert mdoc["convergent"]["value"] is not None and mdoc["families"] and mdoc["cells_chance"]
    CrossMethodReport.model_validate(doc)

    broken = copy.deepcopy(doc)
    broken["models"][MODEL]["convergent"]["value"] = "x"
    with pytest.raises(pydantic.ValidationError, match="convergent"):
        CrossMethodReport.model_validate(broken)
    broken = copy.deepcopy(doc)
    del broken["models"][MODEL]["pairs"][0]["reason"]
    with pytest.raises(pydantic.ValidationError, match="reason"):
        CrossMethodReport.model_validate(broken)
    broken = copy.deepcopy(doc)
    broken["models"][MODEL]["matrix"]["data"][0].pop()  # a row narrower than the matrix's columns
    with pytest.raises(pydantic.ValidationError, match="matrix"):
        CrossMethodReport.model_validate(broken)
