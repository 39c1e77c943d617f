"""Prefix reuse on the embedded model: prompt tokens processed, wall time, and answer stability.

1. Full runs. One values questionnaire (default: 2 personas x topics_a x 40 PVQ items, 3 messages,
   logprob answers, conversations at temperature 0) runs with prefix reuse off (naive per-item
   prompts) and on, each in a fresh store so the call cache hides no work. Printed: prompt tokens
   actually processed (sum of tokens_in - cached_tokens), wall time, their off/on ratios, and
   "prefix misses": item calls that reused less than their persona-context's shared prefix
   (cached_tokens more than 30 below the group's best), i.e. requests whose order broke reuse.
2. Answer stability on identical prompts. The off run's item requests are replayed through
   LLMClient: twice with reuse on (all groups at once, as the session issues them) and once more
   with reuse off on a subset (baseline determinism). Printed per comparison: changed argmax
   answers / total and the largest |logprob difference| over the option letters of the first token.
   (The full runs' conversations cannot be compared: with reuse on, even greedy turns may differ.)
3. Interleaving (``--interleave-personas N``, 0 = skip): N personas x topics_a,topics_b x 6 items
   with reuse on, so conversation turns and items of many groups compete for the single slot;
   printed: prefix misses and processed tokens.

Run: ``.venv/bin/python bench/bench_prefix.py [--personas 2 --items 40 --context topics_a]``.
Other processes share the two cores, so wall times are indicative; token counts are not affected.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.llm.client import ChatRequest, LLMClient  # noqa: E402
from analysis.llm.options import LETTERS, option_from_logprobs  # noqa: E402
from analysis.llm.specs import parse_model_spec  # noqa: E402
from analysis.methods import create_run, execute_run  # noqa: E402
from analysis.runs.store import Store  # noqa: E402
from analysis.methods.values.plan import build_values_plan  # noqa: E402

N_OPTIONS = 6
MISS_MARGIN = 30  # tokens below the group's best reuse that count as a broken prefix


@dataclass
class RunStats:
    label: str
    wall_s: float
    calls: pd.DataFrame  # unit, tokens_in, cached_tokens, request (JSON), logprobs (JSON)
    conversations: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def items(self) -> pd.DataFrame:
        return self.calls[self.calls.unit.str.contains("/item")]

    @staticmethod
    def processed_of(df: pd.DataFrame) -> int:
        return int(df.tokens_in.sum() - df.cached_tokens.fillna(0).sum())

    def misses(self) -> int:
        items = self.items.assign(group=self.items.unit.str.rsplit("/", n=2).str[0])
        best = items.groupby("group").cached_tokens.transform("max")
        return int((items.cached_tokens < best - MISS_MARGIN).sum())

    def line(self) -> str:
        return (f"{self.label:12} processed {self.processed_of(self.calls):6d} of {int(self.calls.tokens_in.sum()):6d} prompt tokens "
                f"(items: {self.processed_of(self.items)} of {int(self.items.tokens_in.sum())}, {len(self.items)} item calls, "
                f"{self.misses()} prefix misses), wall {self.wall_s:6.1f}s")


def run_once(label: str, prefix_reuse: bool, personas: int, contexts: list[str], items: int, args: argparse.Namespace) -> RunStats:
    spec = parse_model_spec("embedded")
    plan = build_values_plan(spec, contexts=contexts, limit_personas=personas, limit_items=items,
                             messages=args.messages, prefix_reuse=prefix_reuse, params={"temperature": 0.0})
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
        run_id = create_run(store, "values", spec, plan.model_dump(), f"bench-{label}")
        started = time.perf_counter()
        summary = execute_run(store, run_id, concurrency=args.concurrency)
        wall = time.perf_counter() - started
        calls = store.frame(
            "SELECT rc.unit, c.tokens_in, c.cached_tokens, c.request, c.logprobs, c.created_at "
            "FROM run_calls rc JOIN calls c USING (cache_key) WHERE rc.run_id=? ORDER BY c.created_at", (run_id,))
        convs = store.table("values_conversations", [run_id])
    if summary.status != "completed":
        raise SystemExit(f"{label}: run ended {summary.status}")
    return RunStats(label, wall, calls, convs)


# -- replay of identical prompts --------------------------------------------------------------
def letter_logprobs(top: dict[str, float]) -> dict[str, float]:
    """Best logprob per option letter among the first token's top logprobs (as option_from_logprobs)."""
    best: dict[str, float] = {}
    for token, lp in top.items():
        s = token.strip().strip("().:*\"'")
        if len(s) == 1 and s in LETTERS[:N_OPTIONS]:
            best[s] = max(lp, best.get(s, float("-inf")))
    return best


async def _replay(requests: dict[str, ChatRequest], concurrency: int) -> dict[str, dict[str, float]]:
    client = LLMClient(parse_model_spec("embedded"))
    sem = asyncio.Semaphore(concurrency)

    async def one(unit: str, req: ChatRequest) -> tuple[str, dict[str, float]]:
        async with sem:
            reply = await client.complete(req)
        return unit, (reply.top_logprobs or [{}])[0]

    try:
        return dict(await asyncio.gather(*(one(u, r) for u, r in requests.items())))
    finally:
        await client.aclose()


def replay(calls: pd.DataFrame, cache_prompt: bool, concurrency: int) -> dict[str, dict[str, float]]:
    """Re-send stored requests (same messages and params) with cache_prompt set; unit -> first-token top logprobs."""
    requests = {}
    for row in calls.itertuples():
        doc = json.loads(row.request)
        requests[row.unit] = ChatRequest.build(doc["messages"], doc["params"] | {"cache_prompt": cache_prompt}, doc["sample"])
    return asyncio.run(_replay(requests, concurrency))


def margin(letters: dict[str, float]) -> float:
    """Logprob gap between the chosen letter and the runner-up (inf when only one letter was seen)."""
    top = sorted(letters.values(), reverse=True)
    return top[0] - top[1] if len(top) > 1 else float("inf")


def compare(label: str, a: dict[str, dict[str, float]], b: dict[str, dict[str, float]]) -> str:
    """Changed argmax answers and letter orders; max |dlogprob| over all letters and the chosen one; argmax margins."""
    units = sorted(set(a) & set(b))
    changed = sum(option_from_logprobs(a[u], N_OPTIONS).index != option_from_logprobs(b[u], N_OPTIONS).index for u in units)
    diffs, chosen, differing, reranked = [], [], 0, 0
    for u in units:
        la, lb = letter_logprobs(a[u]), letter_logprobs(b[u])
        reranked += sorted(la, key=la.get) != sorted(lb, key=lb.get)
        d = [abs(la[k] - lb[k]) for k in set(la) & set(lb)]
        diffs += d
        differing += max(d, default=0.0) > 0 or set(la) != set(lb)
        best = max(la, key=la.get) if la else None
        if best in lb:
            chosen.append(abs(la[best] - lb[best]))
    margins = [margin(letter_logprobs(a[u])) for u in units]
    picked = pd.Series([LETTERS[i] if (i := option_from_logprobs(a[u], N_OPTIONS).index) is not None else "-" for u in units])
    shown = ", ".join(f"{k}x{v}" for k, v in picked.value_counts().sort_index().items())
    return (f"{label:26}: {changed}/{len(units)} argmax answers changed; {differing} items with any letter logprob changed, {reranked} with the order of the letters changed; "
            f"max |dlogprob| {max(diffs, default=0.0):.2e} over option letters, {max(chosen, default=0.0):.2e} on the chosen "
            f"letter; argmax margin min {min(margins, default=float('inf')):.2f}, median {sorted(margins)[len(margins) // 2] if margins else float('nan'):.2f}; "
            f"answers {shown}")


def stored_top(calls: pd.DataFrame) -> dict[str, dict[str, float]]:
    return {row.unit: json.loads(row.logprobs)[0] for row in calls.itertuples() if row.logprobs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--personas", type=int, default=2)
    ap.add_argument("--items", type=int, default=40)
    ap.add_argument("--context", default="topics_a")
    ap.add_argument("--messages", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--off-replay-items", type=int, default=20, help="item requests replayed with reuse off (baseline)")
    ap.add_argument("--interleave-personas", type=int, default=4)
    args = ap.parse_args()
    print(f"{args.personas} personas x {args.context} x {args.items} items, {args.messages} messages, "
          f"concurrency {args.concurrency}, load avg {os.getloadavg()[0]:.1f}", flush=True)

    off = run_once("off", False, args.personas, [args.context], args.items, args)
    print(off.line(), flush=True)
    on = run_once("on", True, args.personas, [args.context], args.items, args)
    print(on.line(), flush=True)
    print(f"ratio off/on: {off.processed_of(off.calls) / max(1, on.processed_of(on.calls)):.2f}x fewer prompt tokens "
          f"processed (items only {off.processed_of(off.items) / max(1, on.processed_of(on.items)):.2f}x), "
          f"{off.wall_s / on.wall_s:.2f}x less wall time", flush=True)
    turns_off = off.conversations.set_index(["persona_id", "context", "turn"]).content
    turns_on = on.conversations.set_index(["persona_id", "context", "turn"]).content
    print(f"conversation turns differing between the off and on runs (greedy): {int((turns_off != turns_on).sum())}/{len(turns_off)}")

    base = stored_top(off.items)
    on1 = replay(off.items, True, args.concurrency)
    on2 = replay(off.items, True, args.concurrency)
    subset = off.items.iloc[: args.off_replay_items]
    off2 = replay(subset, False, args.concurrency)
    print(f"replay of the off run's {len(base)} item prompts, load avg {os.getloadavg()[0]:.1f}:")
    print(compare("off (stored) vs off replay", base, off2))
    print(compare("off (stored) vs on", base, on1))
    print(compare("on vs on (repeat)", on1, on2))

    if args.interleave_personas:
        mixed = run_once(f"interleave{args.interleave_personas}", True, args.interleave_personas, ["topics_a", "topics_b"], 6, args)
        print(mixed.line())


if __name__ == "__main__":
    main()
