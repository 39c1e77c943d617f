"""Cost of the chance bands for one model x 9 contexts x 50 personas x 40 items (``analysis.methods.values.chance``).

Prints, measured in one run, the wall time of the values null simulations as the dashboard runs them —
circumplex and stability nulls of every context (100 draws per null model, both nulls), and the CFA/separability
nulls of one context (10 draws per null) — cold (simulated, draws written to the store) and cached (draws read
from the store, only the summaries computed), and their ratio.
Run: ``.venv/bin/python bench/bench_chance.py``
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.chance import DEFAULT_SIMS  # noqa: E402
from analysis.runs.store import Store  # noqa: E402
from analysis.methods.values.chance import model_chance  # noqa: E402
from analysis.methods.values.metrics import _context_keys, model_metrics  # noqa: E402
from bench.bench_values_metrics import synthetic_answers  # noqa: E402


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    answers = synthetic_answers()
    answers["option_order"] = "[1, 2, 3, 4, 5, 6]"
    doc = model_metrics(answers, n_boot=0)
    keys = _context_keys(answers)
    one = next(iter(keys.values()))
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
        def fast() -> None:
            model_chance(answers, doc, keys, n_sims=DEFAULT_SIMS, store=store, slow=False)

        def fit() -> None:
            model_chance(answers, doc, keys, n_sims=DEFAULT_SIMS, store=store, fast=False, slow=one)

        cold_fast, cold_fit = timed(fast), timed(fit)
        warm_fast, warm_fit = timed(fast), timed(fit)
    print(f"chance bands: 1 model x 9 contexts x 50 personas x 40 items, {DEFAULT_SIMS} draws per null (x2 nulls)")
    print(f"  circumplex + stability nulls, all contexts: cold {cold_fast:6.2f} s   cached {warm_fast:5.2f} s   "
          f"ratio {cold_fast / warm_fast:5.0f}x")
    print(f"  CFA + separability nulls, one context:      cold {cold_fit:6.2f} s   cached {warm_fit:5.2f} s   "
          f"ratio {cold_fit / warm_fit:5.0f}x")


if __name__ == "__main__":
    main()
