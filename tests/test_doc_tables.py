"""Tables of numbers in the docs are generated from the bundled demo's reports (``analysis.doc_tables``), never
copied: a doc table that is not what ``metrics --json`` gives today fails here. Changed source: a reader, importer or
metric change moves a number in a report (e.g. issue 56's reader reading two more vicuna replies), the generated block
no longer matches, and this test fails until ``python -m analysis docs`` rewrites it;
``test_a_changed_number_is_found`` shows it on one block."""

from __future__ import annotations

import pytest

from analysis.demo_store import DEMO_ARCHIVE, bundled_demo_store
from analysis.doc_tables import BLOCK, DOCS, render, stale_docs, table
from analysis.runs.store import Store


@pytest.mark.skipif(not DEMO_ARCHIVE.exists(), reason="no bundled demo archive in this checkout")
def test_every_generated_doc_table_is_todays() -> None:
    with Store(bundled_demo_store(), read_only=True) as store:
        stale = stale_docs(store)
    assert not stale, f"generated tables differ from the reports in {sorted(map(str, stale))}: python -m analysis docs"


def test_the_docs_have_generated_tables_of_every_import_they_give_numbers_for() -> None:
    names = {m.group("name") for path in DOCS.rglob("*.md") for m in BLOCK.finditer(path.read_text(encoding="utf-8"))}
    assert {"trust.agent_trust_readers", "inventory.persona_llm_shaping_d", "values.lee_values_structure",
            "values.lee_values_readers", "cross_method.demo_summary"} <= names


def test_a_changed_number_is_found() -> None:
    doc = "text\n<!-- generated: trust.agent_trust_readers -->\n| old |\n<!-- /generated -->\nmore\n"
    report = {"models": {"m": {"imported": {"c": {
        "condition": "base", "source": "camel-ai/agent-trust",
        "amount_sent": {"n": 2, "valid": 2, "mean": {"value": 5.0}, "sd": {"value": 1.0}},
        "amount_sent_reader": {"n": 2, "valid": 1, "mean": {"value": 4.0}, "sd": {"value": None}},
        "reader_agreement": {c: {"n": k} for k, c in enumerate(("both_equal", "both_different", "only_source",
                                                                 "only_reader", "both_invalid"))}}}}}}
    new = render(doc, lambda method: report)
    assert new != doc and "| m | 2/2 | 5.00 (1.00) | 1/2 | 4.00 (—) | 0 | 1 | 2 | 3 | 4 |" in new
    assert render(new, lambda method: report) == new  # idempotent: a block rendered is today's
    assert new.startswith("text\n") and new.endswith("<!-- /generated -->\nmore\n")


def test_table_by_hand() -> None:
    assert table(["a", "b"], [["1", "2"]]) == "| a | b |\n|---|---|\n| 1 | 2 |"
