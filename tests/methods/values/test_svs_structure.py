"""Structure metrics of an SVS context: computed on its 46 keyed items (the 11 unkeyed ones carry no value), as the
reference does, and equal to the reference's numbers.

Before, the unkeyed items reached the MDS with value NaN and every structure metric of an SVS context was missing
("unknown values [nan]"). The campaign is a reference-format results file (``write_results``: 40 personas, seeded
answers) imported as the reference's results are; the reference value is the leaderboard's call on the keyed items,
run with scikit-learn 1.6.1 in a throwaway venv (``python3 -m venv /tmp/sk16 && /tmp/sk16/bin/pip install
scikit-learn==1.6.1``):

    R = spearmanr(X).correlation                  # X: persona x keyed item scores (46 columns, instrument order)
    mds = MDS(n_components=2, metric=False, normalized_stress=True).fit(R, init=init)   # init: each item's value point
    # -> X.sum() 5375.0, stress 0.2991369240419599, n_iter 3,
    #    items 0, 20, 45: [[0.09172124394192821, 0.2236010555537754], [-0.00017839045386465046, 0.4656194670752667],
    #                      [-0.7614364757429479, -0.1501918371655187]]
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analysis.methods.values.importer import import_value_stability
from analysis.runs.store import Store
from analysis.methods.values.metrics import context_structure, latest_answers, values_metrics
from analysis.methods.values.scores import item_matrix
from tests.methods.values.test_importer import write_results

SK16_SVS = (5375.0, 0.2991369240419599, 3, [[0.09172124394192821, 0.2236010555537754],
                                            [-0.00017839045386465046, 0.4656194670752667],
                                            [-0.7614364757429479, -0.1501918371655187]])


@pytest.fixture(scope="module")
def svs_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("svs")
    path, _ = write_results(root, "no_conv", instrument="svs", n_personas=40, seed=11)
    with Store(root / "s.db") as store:
        import_value_stability(store, [path])
    return root / "s.db"


def test_svs_context_has_every_structure_metric(svs_store: Path) -> None:
    with Store(svs_store, read_only=True) as store:
        doc = values_metrics(store, n_boot=0)
    (ctx,) = next(iter(doc["models"].values()))["contexts"].values()
    assert ctx["error"] is None
    for key in ("stress", "separability", "order_distance"):
        assert ctx[key] is not None, key
    # the four CFA models are fitted on all 40 personas' keyed items; one that fails (on these seeded answers
    # Self-enhancement: Achievement–Power correlate beyond 1) leaves the context's mean fit undefined with its reason
    fits = ctx["cfa"].values()
    assert all(f["n"] == 40 for f in fits) and sum(f["converged"] for f in fits) >= 3
    for key in ("cfi", "srmr", "rmsea"):
        assert (ctx[key] is None) == (not all(f["converged"] for f in fits)), key
    assert ctx["cfa_reason"] is None or ctx["cfa_reason"].startswith("Self-enhancement did not fit: latent correlation")


def test_svs_stress_matches_the_reference_on_the_46_keyed_items(svs_store: Path) -> None:
    with Store(svs_store, read_only=True) as store:
        answers = latest_answers(store)
    context, instrument = answers["context"].iloc[0], answers["instrument"].iloc[0]
    matrix = item_matrix(answers, context=context, instrument=instrument)
    assert matrix.shape == (40, 57)
    result = context_structure(answers, context, instrument, with_separability=False)
    layout = result.circumplex.layout
    total, stress, n_iter, coords = SK16_SVS
    assert len(layout) == 46 and matrix[list(layout["item_id"])].to_numpy().sum() == total
    assert result.circumplex.stress == pytest.approx(stress, abs=1e-8)
    assert result.circumplex.n_iter == n_iter
    np.testing.assert_allclose(layout.loc[[0, 20, 45], ["x", "y"]].to_numpy(), coords, atol=1e-8)
