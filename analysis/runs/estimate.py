"""What a plan will cost before it starts: calls, tokens, money and time.

Two sources, the better one first:

- **measured**: the newest earlier run of the same model and method in a store (never another method's: their
  calls differ in length and count per unit). Its calls
  give tokens per call (``calls.tokens_in`` / ``tokens_out``, as the endpoint reported them) and its
  throughput: calls made / wall time, the wall time running from the first request sent
  (``created_at − latency_s`` of the earliest call) to the last reply stored. The throughput holds at that
  run's concurrency and load, which the estimate says.
- **modelled**: each method's own model of its plan (``Method.tokens``: prompt characters / ``CHARS_PER_TOKEN``
  as the run builds the prompts, replies at ``REPLY_FILL`` of their token limit), or the reason it has none (prompts
  that depend on replies not yet made). Time: for the embedded model at this machine's calibrated speed
  (``analysis.runs.calibration``: per-call overhead, prompt and generated tokens/s), else at assumed speeds said as
  such; for a remote model from the median latency of its past calls in the store (any method) at the run's
  concurrency, else at an assumed ``DEFAULT_LATENCY_S`` per call, said as such.

Calls already in the store's cache cost nothing; the estimate counts them as made (an upper bound).

Through a provider's batch API (``--via batch``) the same tokens cost ``ModelSpec.batch_price_factor`` of the live
price (OpenAI: half), and the plan goes as ``waves`` batches one after another (``Method.waves``: its longest chain of
calls that wait for one another), each taking up to the provider's completion window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from analysis.runs.store import Store

if TYPE_CHECKING:
    from analysis.runs.calibration import EmbeddedSpeed

CHARS_PER_TOKEN = 4.0
#: Share of a generation's max_tokens a reply is assumed to use (conversation turns, text answers).
REPLY_FILL = 0.6
EMBEDDED_PROMPT_TPS = 350.0
EMBEDDED_GEN_TPS = 130.0
#: Fewer calls than this measure start-up more than throughput.
MIN_MEASURED_CALLS = 5
#: A remote call's assumed latency when the store holds none of the model's calls (seconds).
DEFAULT_LATENCY_S = 2.0


@dataclass(frozen=True)
class Throughput:
    """What one earlier run of a model measured: calls it made, their wall time, tokens per call."""

    run_id: str
    method: str
    n_calls: int
    wall_s: float
    tokens_in_per_call: float
    tokens_out_per_call: float

    @property
    def calls_per_s(self) -> float:
        return self.n_calls / self.wall_s


@dataclass(frozen=True)
class RunEstimate:
    """Planned calls; tokens, cost and seconds when known (``None`` otherwise); what they are based on."""

    n_calls: int
    tokens_in: int | None
    tokens_out: int | None
    cost: float | None
    seconds: float | None
    basis: str
    #: Through the provider's batch API: the cost (None without a price) and the batches one after another.
    batch_cost: float | None = None
    waves: int | None = None

    @property
    def measured(self) -> bool:
        return self.basis.startswith("measured")


def measured_throughput(store: Store, model: str, method: str) -> Throughput | None:
    """The newest run of ``method`` by ``model`` in ``store`` with at least ``MIN_MEASURED_CALLS`` calls it made itself
    (cache hits excluded); ``None`` when there is none."""
    rows = store.frame(
        "SELECT r.run_id, r.method, COUNT(*) AS n, MIN(c.created_at - COALESCE(c.latency_s, 0)) AS t0, "
        "MAX(c.created_at) AS t1, AVG(c.tokens_in) AS tin, AVG(c.tokens_out) AS tout, MAX(c.created_at) AS newest "
        "FROM calls c JOIN runs r ON r.run_id = c.run_id WHERE c.model = ? AND r.method = ? "
        "GROUP BY r.run_id HAVING n >= ? ORDER BY newest DESC", [model, method, MIN_MEASURED_CALLS])
    if rows.empty:
        return None
    row = rows.iloc[0]
    wall = float(row["t1"]) - float(row["t0"])
    if not wall > 0:
        return None
    tin, tout = row["tin"], row["tout"]
    return Throughput(str(row["run_id"]), str(row["method"]), int(row["n"]), wall,
                      float(tin) if tin == tin and tin is not None else float("nan"),
                      float(tout) if tout == tout and tout is not None else float("nan"))


@dataclass(frozen=True)
class PastLatency:
    """The median latency of a model's past calls in a store (any method), over ``n_calls`` calls."""

    median_s: float
    n_calls: int


def past_latency(store: Store, model: str) -> PastLatency | None:
    """The median ``latency_s`` of ``model``'s calls in ``store`` that reached the endpoint (at least
    ``MIN_MEASURED_CALLS``), or None."""
    rows = store.frame("SELECT latency_s FROM calls WHERE model = ? AND latency_s > 0", [model])
    if len(rows) < MIN_MEASURED_CALLS:
        return None
    return PastLatency(float(rows["latency_s"].median()), len(rows))


def _modelled_seconds(spec: Any, n_calls: int, tokens: tuple[float, float] | None, speed: EmbeddedSpeed | None,
                      latency: PastLatency | None, concurrency: int) -> tuple[float | None, str]:
    """(seconds, what they rest on) without a measured run of the method."""
    if spec.backend == "embedded":
        if tokens is None:
            return None, ""
        if speed is not None:
            return speed.seconds(n_calls, *tokens), "time " + speed.basis()
        return (tokens[0] / EMBEDDED_PROMPT_TPS + tokens[1] / EMBEDDED_GEN_TPS,
                f"time at assumed speeds ({EMBEDDED_PROMPT_TPS:.0f} prompt, {EMBEDDED_GEN_TPS:.0f} generated tokens/s: "
                "this machine not calibrated yet)")
    lanes = max(1, concurrency)
    if latency is not None:
        return (n_calls * latency.median_s / lanes,
                f"time from the median latency of this model's {latency.n_calls} past calls ({latency.median_s:.2f} s) "
                f"at {lanes} concurrent")
    return (n_calls * DEFAULT_LATENCY_S / lanes,
            f"time at an assumed {DEFAULT_LATENCY_S:.0f} s per call at {lanes} concurrent (no past calls of this model)")


def estimate_run(method: str, modelled: tuple[float, float] | str, spec: Any, n_calls: int,
                 measured: Throughput | None = None, waves: int | None = None, *, speed: EmbeddedSpeed | None = None,
                 latency: PastLatency | None = None, concurrency: int = 1) -> RunEstimate:
    """Tokens per call and calls per second from ``measured`` (a run of the same method), else ``modelled`` (the
    method's model of its plan's tokens in and out, ``Method.tokens``; a string: why it has none); time without a
    measured run from ``speed`` (the embedded model's calibration, ``analysis.runs.calibration.EmbeddedSpeed``) or
    ``latency`` (a remote model's past calls) at ``concurrency``; cost from the spec's prices."""
    if measured is not None and measured.method != method:
        raise ValueError(f"a {measured.method} run cannot measure a {method} plan")
    tokens: tuple[float, float] | None = None
    basis = "modelled from prompt lengths"
    if measured is not None and measured.tokens_in_per_call == measured.tokens_in_per_call:
        tokens = (measured.tokens_in_per_call * n_calls, measured.tokens_out_per_call * n_calls)
    elif not isinstance(modelled, str):
        tokens = modelled
    else:
        basis = modelled  # why the method has no token model
    if measured is not None:
        seconds: float | None = n_calls / measured.calls_per_s
        basis = f"measured on run {measured.run_id} ({measured.n_calls} calls at {measured.calls_per_s:.2f} calls/s)"
    else:
        seconds, timed = _modelled_seconds(spec, n_calls, tokens, speed, latency, concurrency)
        basis = f"{basis}; {timed}" if timed else basis
    if tokens is None:
        return RunEstimate(n_calls, None, None, None, seconds, basis, waves=waves)
    tin, tout = (int(round(t)) for t in tokens)
    return RunEstimate(n_calls, tin, tout, spec.cost(tin, tout), seconds, basis, spec.batch_cost(tin, tout), waves)


def combine(parts: list[tuple[str, RunEstimate]]) -> RunEstimate:
    """A composite run's estimate (a campaign's, ``Method.parts``) from its parts' own, each based on its own method:
    calls add up; tokens, costs, seconds and waves (the parts run one after another) add up when every part has them,
    else they are unknown."""
    def total(values: list[float | int | None]) -> float | None:
        return None if any(v is None for v in values) else sum(values)  # type: ignore[arg-type]

    tin, tout = total([e.tokens_in for _, e in parts]), total([e.tokens_out for _, e in parts])
    basis = "per part: " + "; ".join(f"{method} {e.basis}" for method, e in parts)
    return RunEstimate(sum(e.n_calls for _, e in parts), None if tin is None else int(tin),
                       None if tout is None else int(tout), total([e.cost for _, e in parts]),
                       total([e.seconds for _, e in parts]), basis, total([e.batch_cost for _, e in parts]),
                       None if (w := total([e.waves for _, e in parts])) is None else int(w))
