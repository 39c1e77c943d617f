"""What a plan will cost before it starts: calls, tokens, money and time.

Two sources, the better one first:

- **measured**: the newest earlier run of the same model and method in a store (never another method's: their
  calls differ in length and count per unit). Its calls
  give tokens per call (``calls.tokens_in`` / ``tokens_out``, as the endpoint reported them) and its
  throughput: calls made / wall time, the wall time running from the first request sent
  (``created_at − latency_s`` of the earliest call) to the last reply stored. The throughput holds at that
  run's concurrency and load, which the estimate says.
- **modelled**: prompt characters / 4 for values and MBTI (the prompts are built as the run builds them),
  replies at 60 % of their token limit; time only for the embedded model, at its measured speed on these
  machines (~350 prompt and ~130 generated tokens/s on 2 threads). Trust and PersonaGym prompts depend
  on replies not yet made, so without a measurement their tokens and time are unknown (``None``).

Calls already in the store's cache cost nothing; the estimate counts them as made (an upper bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analysis.runs.store import Store

CHARS_PER_TOKEN = 4.0
#: Share of a generation's max_tokens a reply is assumed to use (conversation turns, text answers).
REPLY_FILL = 0.6
EMBEDDED_PROMPT_TPS = 350.0
EMBEDDED_GEN_TPS = 130.0
#: Fewer calls than this measure start-up more than throughput.
MIN_MEASURED_CALLS = 5


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


def modelled_tokens(method: str, plan: Any) -> tuple[float, float] | None:
    """(tokens in, tokens out) of a plan from its prompt lengths; ``None`` for methods whose prompts depend on
    replies (trust, PersonaGym) and for replies of unbounded length (MBTI text replies without ``--max-tokens``:
    the reference's protocol, where each reply's length also enters every later prompt)."""
    if method == "values":
        return _values_tokens(plan)
    if method == "mbti" and (plan.answer_mode == "logprob" or plan.text_max_tokens is not None):
        return _mbti_tokens(plan)
    return None


def _unmodelled_reason(method: str, plan: Any) -> str:
    if method == "mbti" and plan is not None and not isinstance(plan, dict):
        return "not modelled: replies have the model's own length (no --max-tokens); measured after a first run"
    return "not modelled for this method"


def estimate_run(method: str, plan: Any, spec: Any, n_calls: int, measured: Throughput | None = None) -> RunEstimate:
    """Tokens per call and calls per second from ``measured`` (a run of the same method), else from the
    prompt-length model; cost from the spec's prices."""
    if measured is not None and measured.method != method:
        raise ValueError(f"a {measured.method} run cannot measure a {method} plan")
    tokens: tuple[float, float] | None = None
    basis = "modelled from prompt lengths"
    if measured is not None and measured.tokens_in_per_call == measured.tokens_in_per_call:
        tokens = (measured.tokens_in_per_call * n_calls, measured.tokens_out_per_call * n_calls)
    elif plan is not None and not isinstance(plan, dict):
        tokens = modelled_tokens(method, plan)
    seconds = None
    if measured is not None:
        seconds = n_calls / measured.calls_per_s
        basis = f"measured on run {measured.run_id} ({measured.n_calls} calls at {measured.calls_per_s:.2f} calls/s)"
    elif tokens is not None and spec.backend == "embedded":
        seconds = tokens[0] / EMBEDDED_PROMPT_TPS + tokens[1] / EMBEDDED_GEN_TPS
    if tokens is None:
        return RunEstimate(n_calls, None, None, None, seconds, basis if measured else _unmodelled_reason(method, plan))
    tin, tout = (int(round(t)) for t in tokens)
    return RunEstimate(n_calls, tin, tout, spec.cost(tin, tout), seconds, basis)


def _tok(chars: float) -> float:
    return chars / CHARS_PER_TOKEN


def _values_tokens(plan: Any) -> tuple[float, float]:
    from analysis.methods.values import prompts

    inst = plan.instrument
    labels = [o.label for o in inst.options]
    out_per_item = {"logprob": 2, "text": REPLY_FILL * plan.text_max_tokens,
                    "cot": REPLY_FILL * plan.cot_max_tokens}[plan.answer_mode]
    tin = tout = 0.0
    for persona in plan.personas:
        system = len(prompts.persona_system(persona, plan.persona_prompt))
        for ctx in plan.contexts:
            conv = 0.0
            if ctx.kind != "no_conv":
                conv = len(ctx.opening_for(persona.id) or "")
                for t in range(1, plan.turns(ctx) + 1):
                    tin += _tok(system + conv)
                    reply = REPLY_FILL * plan.max_tokens("persona" if t % 2 == 1 else "interlocutor")
                    tout += reply
                    conv += reply * CHARS_PER_TOKEN
            for item in inst.items:
                q = len(prompts.item_question(inst, item, persona.gender, labels, plan.answer_mode))
                tin += plan.samples * _tok(system + conv + q)
                tout += plan.samples * out_per_item
    return tin, tout


def _mbti_tokens(plan: Any) -> tuple[float, float]:
    from analysis.methods.mbti.prompts import CANONICAL, letter_question, text_question

    ask = letter_question if plan.answer_mode == "logprob" else text_question
    q = [len(ask(s.text, list(CANONICAL))) for s in plan.statements.statements]
    out_tokens = 1 if plan.answer_mode == "logprob" else REPLY_FILL * plan.text_max_tokens
    tin = 0.0
    for seq, chars in enumerate(q):
        kept = seq if plan.history is None else min(seq, plan.history)
        history = sum(q[seq - kept:seq]) + kept * out_tokens * CHARS_PER_TOKEN
        tin += _tok(chars + history)
    per_testing_out = out_tokens * len(q)
    n = len(plan.subjects) * len(plan.orders) * plan.testings
    return tin * n, per_testing_out * n
