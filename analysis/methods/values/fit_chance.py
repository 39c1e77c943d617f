"""The null bands of one model × context's separability and CFA fit, kept in the store beside the values report.

They are simulated per context on demand (~0.5 s per draw: a CFA fit each), so they are a document of their own, kept
as the report is (``analysis.report_cache``, kind ``chance-values-fit``); the bundled demo ships with every context's.
"""

from __future__ import annotations

from typing import Any

from analysis.methods.values.compare import values_fit_chance
from analysis.methods.values.method import METHOD
from analysis import report_cache

KIND = "chance-values-fit"


def cached_fit_chance(store: Any, model: str, key: str, n_sims: int, *, config: Any = None,
                      n_boot: int = 1000) -> dict[str, Any]:
    """``Method.part_chance``: ``{metric: {kind: summary}}`` for ``model`` × context ``key`` on the values report of
    these options, the one the pages read (``n_sims`` draws per null; it is read only when the bands are not kept
    yet)."""
    config = config or None  # as ``Method.cached_report`` keys it
    options = {"model": model, "key": key, "n_sims": n_sims, "config": config, "n_boot": n_boot}
    return report_cache.cached_report(
        store, KIND, options,
        lambda: values_fit_chance(store, METHOD.cached_report(store, config=config, n_boot=n_boot, chance=n_sims), model,
                                  key, n_sims, config=config),
        sources=METHOD.source_paths)
