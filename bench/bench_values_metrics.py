"""Time of the full values metric suite for one model x 9 contexts x 50 personas (target <= 3 s warm).

Prints the warm wall time of ``model_metrics`` (structure, separability, CFA, stability with
1000-resample bootstrap CIs) and the share of it spent in the CFA fits, measured in one run.
Run: ``.venv/bin/python bench/bench_values_metrics.py``
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.methods.values import VALUES, cfa  # noqa: E402
from analysis.methods.values.instruments import load_instrument  # noqa: E402
from analysis.methods.values.metrics import model_metrics  # noqa: E402
from analysis.methods.values.scores import item_matrix  # noqa: E402

CONTEXTS = [f"ctx_{i}" for i in range(9)]


def synthetic_answers(n_personas: int = 50, seed: int = 0) -> pd.DataFrame:
    """Personas with stable value profiles answering the bundled PVQ-style instrument in 9 contexts."""
    inst = load_instrument("pvq")
    rng = np.random.default_rng(seed)
    profile = rng.normal(size=(n_personas, len(VALUES)))
    value_idx = np.array([VALUES.index(i.value) for i in inst.items])
    rows = []
    for ctx in CONTEXTS:
        latent = profile[:, value_idx] + 0.8 * rng.normal(size=(n_personas, len(inst.items)))
        scores = np.clip(np.round(3.5 + 1.2 * latent), 1, 6)
        for p in range(n_personas):
            for j, item in enumerate(inst.items):
                rows.append((f"r-{ctx}", "bench", p, ctx, inst.name, item.id, item.value, "item", 0, scores[p, j], 1))
    return pd.DataFrame(rows, columns=["run_id", "model", "persona_id", "context", "instrument", "item_id", "value",
                                       "stage", "sample", "score", "valid"])


def main() -> None:
    answers = synthetic_answers()
    model_metrics(answers, n_boot=1000)  # warm-up: imports, BLAS, semopy
    t0 = time.perf_counter()
    model_metrics(answers, n_boot=1000)
    total = time.perf_counter() - t0
    item_values = dict(zip(answers["item_id"], answers["value"]))
    t0 = time.perf_counter()
    for ctx in CONTEXTS:
        cfa.fit_magnifying_glass_results(item_matrix(answers, context=ctx, instrument="pvq-rs"), item_values)
    cfa_time = time.perf_counter() - t0
    print("values metric suite: 1 model x 9 contexts x 50 personas x 40 items, 1000 bootstrap resamples")
    print(f"  full suite (warm): {total:.2f} s   target <= 3 s   -> {'OK' if total <= 3 else 'MISSED'}")
    print(f"  CFA fits:          {cfa_time:.2f} s   share {cfa_time / total:.0%}")


if __name__ == "__main__":
    main()
