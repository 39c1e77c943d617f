"""A scale score needs valid answers to at least half of the scale's items (issue 43, item 4): a persona with nearly
every answer invalid is "not scored" on the scale, in the inventory report and in what it hands the cross-method
analysis, instead of a Neuroticism "of 5.0" read from one item."""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.methods.inventory.report import metrics_json
from analysis.methods.inventory.scoring import MIN_ITEM_SHARE, Sheets, persona_scores, scale_scores, under_coverage
from analysis.persona_scores import read_persona_scores
from analysis.runs.store import Store
from tests.methods.inventory.synthetic import build


def _sheets(X: np.ndarray) -> Sheets:
    n_p, n_o, n_i = X.shape
    domain = np.array(["N"] * n_i, dtype=object)
    return Sheets([f"p{k}" for k in range(n_p)], ["ascending", "descending"][:n_o], [f"i{k}" for k in range(n_i)],
                  domain, np.array([None] * n_i, dtype=object), X, X.copy(), X.copy(), 5, [{}] * n_p, ["N"] * n_p,
                  [30] * n_p)


def test_a_scale_needs_half_its_items_valid():
    nan = np.nan
    X = np.array([[[5, nan, nan, nan]],   # 1 of 4 valid: no score (it used to be 5.0)
                  [[4, 2, nan, nan]],     # 2 of 4: the mean of the two
                  [[nan, nan, nan, nan]],  # none: no score, and not "under coverage" (nothing answered)
                  [[1, 2, 3, 4]]])
    s = _sheets(X)
    scores = persona_scores(scale_scores(s))["N"]
    assert MIN_ITEM_SHARE == 0.5
    assert np.isnan(scores[0]) and scores[1] == 3.0 and np.isnan(scores[2]) and scores[3] == 2.5
    assert list(under_coverage(s)["N"]) == [True, False, False, False]


def test_one_covered_sheet_scores_the_persona():
    nan = np.nan
    s = _sheets(np.array([[[5, nan, nan, nan], [4, 4, 2, nan]]]))  # the descending sheet alone reaches half
    assert persona_scores(scale_scores(s))["N"][0] == np.mean([4, 4, 2])


def test_the_report_leaves_an_uncovered_persona_out_and_counts_it(tmp_path):
    path = build(tmp_path / "inv.db", seed=3)
    with Store(path) as store:
        answers = pd.DataFrame(store.query("SELECT * FROM inventory_answers WHERE model = 'plays' "
                                           "AND inventory = 'rolescope-mini'"))
        persona = sorted(answers["persona_id"].unique())[0]
        mine = answers[answers["persona_id"] == persona]
        keep = set(mine.groupby("domain")["item_id"].first())  # one valid item per domain, every other invalid
        store._conn.execute(  # an answer sheet with nearly every answer invalid
            f"UPDATE inventory_answers SET valid = 0, keyed = NULL, score = NULL WHERE model = 'plays' "
            f"AND inventory = 'rolescope-mini' AND persona_id = ? AND item_id NOT IN ({','.join('?' * len(keep))})",
            [persona, *keep])
        doc = metrics_json(store, "plays")["models"]["plays"]
    n = answers["persona_id"].nunique()
    for d, entry in doc["domains"].items():
        assert entry["n_personas"] == n - 1 and entry["n_under_coverage"] == 1, d
    frame, _ = read_persona_scores(doc["persona_scores"])
    row = frame[frame["persona_id"] == str(persona)]
    assert row[list("OCEAN")].isna().all(axis=None)
