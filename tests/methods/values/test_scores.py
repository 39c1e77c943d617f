"""Item matrices, value scores and ipsatisation, checked against hand-computed numbers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.methods.values.scores import item_matrix, value_scores


def _row(persona: int, item: str, value: str | None, score: float | None, *, valid: int = 1, stage: str = "item",
         sample: int = 0, context: str = "c", model: str = "m", instrument: str = "pvq-40") -> dict:
    return {"run_id": "r", "model": model, "persona_id": persona, "persona": f"p{persona}", "gender": "female",
            "context": context, "instrument": instrument, "item_id": item, "value": value, "list_no": None,
            "stage": stage, "sample": sample, "score": score, "valid": valid}


def _answers() -> pd.DataFrame:
    """Persona 1: Power items 5, 3; Security 2; unkeyed item 6.  Persona 2: item 1 invalid (score ignored)."""
    return pd.DataFrame([
        _row(1, "1", "Power", 5), _row(1, "2", "Power", 3), _row(1, "3", "Security", 2), _row(1, "10", None, 6),
        _row(2, "1", "Power", 6, valid=0), _row(2, "2", "Power", 4), _row(2, "3", "Security", 1), _row(2, "10", None, 1),
    ])


def _get(scores: pd.DataFrame, persona: int, value: str, col: str) -> float:
    sel = scores[(scores["persona_id"] == persona) & (scores["value"] == value)]
    assert len(sel) == 1
    return float(sel[col].iloc[0])


def test_value_scores_and_ipsatisation_by_hand() -> None:
    """Value mean of keyed items; ipsatised = value mean − mean over ALL items incl. unkeyed (valid only)."""
    s = value_scores(_answers())
    # persona 1: Power (5+3)/2 = 4, Security 2, persona mean (5+3+2+6)/4 = 4
    assert _get(s, 1, "Power", "score") == pytest.approx(4.0, abs=1e-12)
    assert _get(s, 1, "Security", "score") == pytest.approx(2.0, abs=1e-12)
    assert _get(s, 1, "Power", "ipsatised") == pytest.approx(0.0, abs=1e-12)
    assert _get(s, 1, "Security", "ipsatised") == pytest.approx(-2.0, abs=1e-12)
    # persona 2: the invalid item 1 is dropped: Power 4, mean (4+1+1)/3 = 2
    assert _get(s, 2, "Power", "score") == pytest.approx(4.0, abs=1e-12)
    assert _get(s, 2, "Power", "ipsatised") == pytest.approx(2.0, abs=1e-12)
    assert _get(s, 2, "Security", "ipsatised") == pytest.approx(-1.0, abs=1e-12)
    assert list(s.columns) == ["model", "context", "instrument", "persona_id", "value", "score", "ipsatised"]
    assert list(s[s["persona_id"] == 1]["value"]) == ["Power", "Security"]  # VALUES order


def test_samples_are_averaged_and_all_invalid_value_is_nan() -> None:
    """Two samples of one item average; a value whose answers are all invalid has a NaN score but a row."""
    rows = pd.DataFrame([
        _row(1, "1", "Hedonism", 2, sample=0), _row(1, "1", "Hedonism", 4, sample=1),
        _row(1, "2", "Tradition", None, valid=0), _row(1, "3", None, 6),
    ])
    s = value_scores(rows)
    assert _get(s, 1, "Hedonism", "score") == pytest.approx(3.0, abs=1e-12)
    assert _get(s, 1, "Hedonism", "ipsatised") == pytest.approx(3.0 - (3.0 + 6.0) / 2, abs=1e-12)
    assert math.isnan(_get(s, 1, "Tradition", "score"))


def test_svs_stages_used_and_pick_rows_ignored() -> None:
    """svs_most/least/rest rows are ratings; svs_pick_* rows (which item was picked) are not."""
    rows = pd.DataFrame([
        _row(1, "pick_most_L1", "Power", None, stage="svs_pick_most", instrument="svs"),
        _row(1, "5", "Power", 7, stage="svs_most", instrument="svs"),
        _row(1, "6", "Power", 1, stage="svs_rest", instrument="svs"),
        _row(1, "7", "Security", -1, stage="svs_least", instrument="svs"),
    ])
    s = value_scores(rows)
    assert _get(s, 1, "Power", "score") == pytest.approx(4.0, abs=1e-12)
    assert _get(s, 1, "Power", "ipsatised") == pytest.approx(4.0 - 7.0 / 3.0, abs=1e-12)
    assert _get(s, 1, "Security", "ipsatised") == pytest.approx(-1.0 - 7.0 / 3.0, abs=1e-12)


def test_contexts_and_models_are_scored_separately() -> None:
    """The persona mean is taken within one model × context × instrument."""
    rows = pd.DataFrame([
        _row(1, "1", "Power", 6, context="a"), _row(1, "2", None, 2, context="a"),
        _row(1, "1", "Power", 1, context="b"), _row(1, "2", None, 5, context="b"),
        _row(1, "1", "Power", 3, context="a", model="m2"), _row(1, "2", None, 3, context="a", model="m2"),
    ])
    s = value_scores(rows).set_index(["model", "context"])
    assert s.loc[("m", "a"), "ipsatised"] == pytest.approx(2.0, abs=1e-12)
    assert s.loc[("m", "b"), "ipsatised"] == pytest.approx(-2.0, abs=1e-12)
    assert s.loc[("m2", "a"), "ipsatised"] == pytest.approx(0.0, abs=1e-12)


def test_item_matrix_order_invalid_and_model_filter() -> None:
    """Columns in numeric item order ('10' after '3'), NaN for invalid-only items, every persona kept."""
    rows = pd.concat([_answers(), pd.DataFrame([_row(3, "1", "Power", None, valid=0)])], ignore_index=True)
    m = item_matrix(rows, context="c", instrument="pvq-40")
    assert list(m.columns) == ["1", "2", "3", "10"]
    assert list(m.index) == [1, 2, 3]
    assert m.loc[1].tolist() == [5.0, 3.0, 2.0, 6.0]
    assert math.isnan(m.loc[2, "1"]) and m.loc[2, "2"] == 4.0
    assert m.loc[3].isna().all()
    custom = item_matrix(rows, context="c", instrument="pvq-40", item_order=["10", "3", "2", "1"])
    assert list(custom.columns) == ["10", "3", "2", "1"]
    two = pd.concat([rows, pd.DataFrame([_row(1, "1", "Power", 2, model="other")])], ignore_index=True)
    with pytest.raises(ValueError, match="several models"):
        item_matrix(two, context="c", instrument="pvq-40")
    assert item_matrix(two, model="other", context="c", instrument="pvq-40").loc[1, "1"] == 2.0


def test_item_matrix_averages_samples() -> None:
    """An item asked twice (samples 0 and 1) shows the mean of its valid answers."""
    rows = pd.DataFrame([_row(1, "1", "Power", 2, sample=0), _row(1, "1", "Power", 5, sample=1),
                         _row(1, "1", "Power", 6, sample=2, valid=0)])
    assert item_matrix(rows, context="c", instrument="pvq-40").loc[1, "1"] == pytest.approx(3.5, abs=1e-12)
