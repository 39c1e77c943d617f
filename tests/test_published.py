"""Bundled published figures: every file cites its source, and each table reproduces the paper's own summaries."""

from __future__ import annotations

import statistics

import pytest

from analysis import methods, published


@pytest.mark.parametrize("method", [m.name for m in methods.all_methods() if m.published is not None])
def test_every_file_cites_its_source(method):
    doc = published.load(method)
    assert len(doc["source"]) > 40
    rows = published.published_rows(method)
    assert len(rows) and rows["source"].str.len().min() > 40 and rows["value"].notna().all()


def test_trust_table3_medians_are_the_papers_median_rows():
    doc = published.load("trust")
    for strategy, attrs in doc["table3"]["strategies"].items():
        assert len(attrs) == 10  # nine attributes and the paper's 'Median' row
        for model in doc["models"].values():
            for metric in ("abs_diff", "spearman"):
                values = [attrs[a][model][metric] for a in attrs if a != "Median"]
                assert statistics.median(values) == pytest.approx(attrs["Median"][model][metric], abs=0.005), (strategy, model)


def test_trust_table4_unconditioned_row_is_table3_ctx_tr():
    # The paper's conditioning baseline uses Ctx+Tr beliefs: Table 4's 'Unconditioned' row equals Table 3's medians
    doc = published.load("trust")
    median = doc["table3"]["strategies"]["Ctx+Tr"]["Median"]
    for model, value in doc["table4"]["conditions"]["Unconditioned"].items():
        assert value == pytest.approx(median[model]["spearman"], abs=0.005)


def test_personagym_table1_persona_scores_are_the_task_means():
    # Table 1's PersonaScore is the mean of its five task scores for every model, to the two printed decimals
    # (the released scores.json of Claude 3 Haiku is the one that disagrees: see analysis.methods.personagym.importer)
    doc = published.load("personagym")
    for model, row in doc["models"].items():
        assert statistics.mean(row["scores"]) == pytest.approx(row["PersonaScore"], abs=0.005 + 0.005 / 5), model


def test_leaderboard_figures_are_in_range_and_named_as_published():
    doc = published.load("values")
    assert doc["models"]["Llama-3.3-70B-Instruct"] == {"ordinal": 0.782, "cardinal": 0.783, "rank_order": 0.81}
    for row in doc["models"].values():
        assert all(0 <= v <= 1 for v in row.values())
    assert any("own pool" in note for note in doc["notes"])
