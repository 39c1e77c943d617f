"""Chance levels: where a metric falls in the distribution it takes under a null model of the same design.

A number alone misleads: a model that answers at random draws a near-perfect circumplex when MDS starts at
the theoretical points, and a Stress of 0.29 means nothing until one knows that random answers give 0.29 too.
Each method simulates its nulls on its *own* design (same personas, items, options, contexts and invalid
pattern; ``analysis.<method>.chance``) and hands the simulated values here, where they become a summary:

- ``band``: the central 95 % of the null draws (2.5th and 97.5th percentiles, linear interpolation);
- ``percentile``: the share of null draws the observed value beats, in the metric's good direction
  (draws equal to it count half): 0.5 = a typical chance result, 1.0 = better than every draw;
- ``p``: one-sided Monte-Carlo p-value of "no better than chance", ``(1 + #{draws at least as good}) / (1 + n)``
  (Davison & Hinkley 1997, eq. 4.11; never 0 with finitely many draws);
- ``verdict``: ``"beyond chance"`` when ``p < 0.05``, else ``"chance-like"``; None when undefined; ``"not enough
  draws"`` below ``MIN_VERDICT_SIMS`` defined draws (with 10 draws p ≥ 1/11 = 0.091: every model would read as
  chance-like); and no band at all when some draws were undefined (a null CFA fit that did not converge) and fewer
  than ``MIN_VERDICT_SIMS`` are left: the share that failed is reported instead.

Two null models are used throughout: ``uniform`` (every valid answer replaced by a uniformly random option)
and ``permutation`` (each item's valid answers shuffled across personas: marginals kept, any link between an
answer and the persona who gave it broken). Draws are seeded and cached in the store keyed by the design
(``cached_draws``), so a page shows its band at once the second time; a part of them is believed only when this user
sealed it and it is a bounded JSON object of lists of numbers (``analysis.cache_trust``), computed again otherwise.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from analysis.cache_trust import MAX_ENTRY_BYTES, read_sealed_object, seal
from analysis.runs.side_store import readable, writable
from analysis.runs.store import Store, Table, register_table

Better = Literal["higher", "lower"]
NULL_KINDS = ("uniform", "permutation")
ALPHA = 0.05
#: Defined null draws a verdict needs; fewer give a band and a p-value but no verdict.
MIN_VERDICT_SIMS = 100
#: Simulations per null model the dashboard and ``metrics --chance`` use by default (and the bundled demo caches).
DEFAULT_SIMS = 100
#: Bumped whenever a simulation changes what it draws: cached draws of another version are not reused.
CHANCE_VERSION = 2

NULL_TABLE = register_table(Table(
    "null_draws",
    [("design_key", "TEXT"), ("method", "TEXT"), ("draws", "BLOB"), ("n_sims", "INTEGER"), ("seed", "INTEGER"),
     ("mac", "TEXT")],
    ["design_key"],
))


@dataclass(frozen=True)
class NullSummary:
    """The observed value of a metric against its null distribution (see the module docstring)."""

    observed: float | None
    kind: str
    better: Better
    n_sims: int
    mean: float | None
    lo: float | None
    hi: float | None
    percentile: float | None
    p: float | None
    #: null draws in which the metric was undefined (a CFA fit that did not converge): not values of it
    failed: int = 0

    @property
    def reason(self) -> str | None:
        """Why there is no band although draws were made: too few of them defined."""
        if self.failed and self.lo is None:
            drawn = self.n_sims + self.failed
            return (f"{self.failed} of {drawn} null draws undefined ({self.failed / drawn:.0%}); a band needs "
                    f"{MIN_VERDICT_SIMS} defined draws")
        return None

    @property
    def verdict(self) -> str | None:
        if self.p is None:
            return None
        if self.n_sims < MIN_VERDICT_SIMS:
            return "not enough draws"
        return "beyond chance" if self.p < ALPHA else "chance-like"

    def to_dict(self) -> dict[str, Any]:
        return {"observed": self.observed, "kind": self.kind, "better": self.better, "n_sims": self.n_sims,
                "mean": self.mean, "lo": self.lo, "hi": self.hi, "percentile": self.percentile, "p": self.p,
                "verdict": self.verdict, "failed": self.failed, "reason": self.reason}


def combined_verdict(summaries: Mapping[str, Mapping[str, Any] | None] | None) -> str | None:
    """One verdict over the nulls of a metric (``{kind: summary dict}``): 'beyond chance' when every null's p < 0.05,
    'chance-like' when any null with enough draws says so, 'not enough draws for a verdict' when a null has too few
    (``MIN_VERDICT_SIMS``), None when undefined."""
    verdicts = [s.get("verdict") for s in (summaries or {}).values() if s]
    if not verdicts or None in verdicts:
        return None
    if "chance-like" in verdicts:
        return "chance-like"
    if "not enough draws" in verdicts:
        return "not enough draws for a verdict"
    return "beyond chance"


def vs_chance(summaries: Mapping[str, Mapping[str, Any] | None] | None) -> str:
    """A table cell: the largest p over the nulls and the verdict ('p = 0.010 · beyond chance'), '—' when undefined."""
    ps = [s.get("p") for s in (summaries or {}).values() if s]
    if not ps or None in ps:
        return "—"
    return f"p = {max(ps):.3f} · {combined_verdict(summaries)}"


def _finite(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def summarize(observed: float | None, draws: Sequence[float] | np.ndarray, *, better: Better, kind: str,
              level: float = 0.95) -> NullSummary:
    """Summary of ``observed`` against the null ``draws`` (non-finite draws are dropped: an undefined metric in a
    simulated data set is not a value of it). Undefined observed value or no finite draw → undefined position. When
    some draws were undefined and fewer than ``MIN_VERDICT_SIMS`` are left (on the demo 0–16 of 100 null CFA fits
    converge), there is no band, p or verdict: a band from the few draws that happened to fit would describe them,
    not the null; the summary says how many failed instead (``failed``, ``reason``)."""
    d = np.asarray(draws, dtype=float)
    drawn = len(d)
    d = d[np.isfinite(d)]
    obs = _finite(observed)
    failed = drawn - len(d)
    if len(d) == 0 or (failed and len(d) < MIN_VERDICT_SIMS):
        return NullSummary(obs, kind, better, int(len(d)), None, None, None, None, None, failed)
    lo, hi = np.percentile(d, [100 * (1 - level) / 2, 100 * (1 + level) / 2])
    percentile = p = None
    if obs is not None:
        sign = 1.0 if better == "higher" else -1.0
        beaten = np.sum(sign * d < sign * obs) + 0.5 * np.sum(d == obs)
        percentile = float(beaten / len(d))
        p = float((1 + np.sum(sign * d >= sign * obs)) / (1 + len(d)))
    return NullSummary(obs, kind, better, int(len(d)), float(d.mean()), float(lo), float(hi), percentile, p, failed)


def simulate(statistic: Callable[[np.random.Generator], Mapping[str, float]], n_sims: int, seed: int) -> dict[str, list[float]]:
    """Run ``statistic`` on ``n_sims`` independent seeded generators; return the draws per metric name.

    Simulation ``s`` uses ``np.random.default_rng([seed, s])``, so the first k draws are the same whatever
    ``n_sims`` is (a longer run extends a shorter one)."""
    out: dict[str, list[float]] = {}
    for s in range(n_sims):
        for name, value in statistic(np.random.default_rng([seed, s])).items():
            out.setdefault(name, []).append(float("nan") if value is None else float(value))
    return out


def design_key(method: str, design: Any) -> str:
    """A stable hash of everything a null simulation depends on (JSON-serialisable ``design``)."""
    text = json.dumps({"method": method, "version": CHANCE_VERSION, "design": design}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def cached_draws(store: Store | None, method: str, design: Any, n_sims: int, seed: int,
                 compute: Callable[[], dict[str, list[float]]]) -> dict[str, list[float]]:
    """``compute()`` unless the store holds draws for this design, ``n_sims`` and ``seed``; new draws are written
    back (into the side store of a read-only store: ``analysis.runs.side_store``). One part of ``cached_parts``."""
    return cached_parts(store, method, {"draws": (design, n_sims)}, seed,
                        lambda missing: [(lambda: {"draws": compute()},)])["draws"]


def cached_parts(store: Store | None, method: str, parts: Mapping[str, tuple[Any, int]], seed: int,
                 plan: Callable[[list[str]], list[tuple[Any, ...]]], *,
                 workers: int | None = None) -> dict[str, dict[str, list[float]]]:
    """Draws of several parts of a simulation (``parts``: name -> (design, n_sims)), each cached in ``store`` under
    its own key (``design_key``) as ``cached_draws`` does. ``plan(missing)`` gives the jobs that compute the parts
    the store lacks: picklable calls ``(function, *args)`` each returning ``{part name: {metric: draws}}`` (a job may
    compute several parts from the same simulated data sets). They run on ``workers`` processes
    (``analysis.parallel.run_parallel``); what they compute is written back (a read-only store's into its side store). Returns
    name -> draws (JSON-like: None for an undefined draw when read from the store)."""
    from analysis.parallel import run_parallel

    keys = {name: design_key(method, {"design": what, "n_sims": n, "seed": seed}) for name, (what, n) in parts.items()}
    out: dict[str, dict[str, list[float]]] = {}
    for source in readable(store) if store is not None and keys else ():
        if NULL_TABLE.name in source.table_names():
            out |= {name: draws for name, key in keys.items() if name not in out
                    and (draws := believed_draws(source, key)) is not None}
    missing = [name for name in parts if name not in out]
    computed: dict[str, dict[str, list[float]]] = {}
    for result in run_parallel(plan(missing), workers) if missing else []:
        computed |= {name: draws for name, draws in result.items() if name in missing}
    if computed and store is not None:
        _keep_draws(store, method, {keys[name]: (parts[name][1], draws) for name, draws in computed.items()}, seed)
    return out | computed


def believed_draws(source: Store, key: str) -> dict[str, list[float | None]] | None:
    """The draws ``source`` keeps under ``key`` when this user sealed them (``analysis.cache_trust.read_sealed``) and
    they are a JSON object of lists of numbers or None; None otherwise (they are simulated again)."""
    draws = read_sealed_object(source, NULL_TABLE.name, key)
    if draws is None or not all(
            isinstance(vs, list) and all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                                         for v in vs) for vs in draws.values()):
        return None
    return draws


def _keep_draws(store: Store, method: str, draws: Mapping[str, tuple[int, dict[str, list[float]]]], seed: int) -> None:
    """Write each part's draws (design key -> (n_sims, draws)) sealed, undefined draws as null; a part larger than
    ``MAX_ENTRY_BYTES`` is not kept (it would never be read back)."""
    rows = []
    for key, (n_sims, part) in draws.items():
        data = json.dumps({k: [None if v is None or not np.isfinite(v) else v for v in vs]
                           for k, vs in part.items()}).encode()
        if len(data) <= MAX_ENTRY_BYTES:
            rows.append({"design_key": key, "method": method, "n_sims": n_sims, "seed": seed, "draws": data,
                         "mac": seal(NULL_TABLE.name, key, data)})
    with writable(store) as target:
        if target is not None:
            target.upsert(NULL_TABLE.name, rows)


def as_floats(values: Sequence[float | None]) -> np.ndarray:
    """JSON draws (None = undefined) as a float array with NaN."""
    return np.array([np.nan if v is None else v for v in values], dtype=float)
