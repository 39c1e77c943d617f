"""The leaderboard campaign on the embedded model, reduced population: calls and tokens per persona, prefix reuse.

Runs ``leaderboard_campaign`` (the nine evaluations, reference conversation structure: n_msgs = 3 generated
messages after the opening, each item a new user message) for ``--personas`` personas of the reference
population with prefix reuse on, in a fresh store, and prints per persona:

- calls by kind (conversation turns, PVQ items, SVS items and picks) and tokens in / out;
- prompt tokens processed (Σ tokens_in − cached_tokens) against the prompt tokens sent (Σ tokens_in): the
  prefix-reuse saving under this structure (every item of a persona-context shares persona prompt + conversation;
  the SVS items share a growing history);
- the full campaign (50 personas) extrapolated: calls, tokens, and hours at a given endpoint throughput.

Run: ``.venv/bin/python bench/bench_campaign.py --reference ../shared/anchors/stick_to_your_role [--personas 2]``;
``--store PATH`` keeps the store, so that an interrupted bench resumes where it stopped (finished calls come from the
store's cache; token counts are those of the calls when they were made).
Default answer mode ``logprob`` (2 tokens per answer): ``cot`` answers run to hundreds of tokens each, hours on this
CPU. Other processes share the two cores: wall times are indicative, token counts are not affected.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.llm.specs import parse_model_spec  # noqa: E402
from analysis.methods import create_run, execute_run  # noqa: E402
from analysis.runs.store import Store  # noqa: E402
from analysis.methods.values.campaign import N_PERSONAS, leaderboard_campaign  # noqa: E402


def _kind(unit: str, run_id: str) -> str:
    """Call kind from its unit name (``ctx/pN/turnT``, ``ctx/pN/itemID/sS``, ``ctx/pN/svsL/pick_most/sS``)."""
    if "/turn" in unit:
        return "turns"
    if "/pick_" in unit:
        return "SVS picks"
    return "SVS items" if run_id == "svs" else "PVQ items"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reference", required=True, help="a copy of flowersteam/value_stability's layout")
    ap.add_argument("--personas", type=int, default=2)
    ap.add_argument("--answer-mode", default="logprob", choices=["logprob", "text", "cot"])
    ap.add_argument("--calls-per-s", type=float, default=5.0, help="endpoint throughput for the full-campaign line")
    ap.add_argument("--store", type=Path, help="keep the store here and resume from it (default: a temporary one)")
    args = ap.parse_args()
    spec = parse_model_spec("embedded", models_file=None)
    campaign = leaderboard_campaign(spec, args.reference, limit_personas=args.personas, answer_mode=args.answer_mode,
                                    prefix_reuse=True)
    with tempfile.TemporaryDirectory() as tmp, Store(args.store or Path(tmp) / "bench.db") as store:
        t0 = time.perf_counter()
        for name, plan in (("pvq", campaign.pvq), ("svs", campaign.svs)):
            if store.query_one("SELECT run_id FROM runs WHERE run_id=?", (name,)) is None:
                create_run(store, "values", spec, plan.model_dump(), name)
            execute_run(store, name, concurrency=2)
        wall = time.perf_counter() - t0
        calls = store.frame("SELECT r.unit, r.run_id, c.tokens_in, c.tokens_out, c.cached_tokens FROM run_calls r "
                            "JOIN calls c ON c.cache_key = r.cache_key")
    calls["kind"] = [_kind(u, run) for u, run in zip(calls.unit, calls.run_id)]
    n = args.personas
    print(f"leaderboard campaign, {n} personas, answer mode {args.answer_mode}, prefix reuse on: {len(calls)} calls, "
          f"{wall:.0f} s wall")
    print(f"{'kind':<12}{'calls/persona':>14}{'tokens in/persona':>19}{'tokens out/persona':>20}")
    for kind, g in calls.groupby("kind"):
        print(f"{kind:<12}{len(g) / n:>14.1f}{g.tokens_in.sum() / n:>19,.0f}{g.tokens_out.sum() / n:>20,.0f}")
    failed = store.frame("SELECT run_id, unit, error FROM call_failures")
    planned = campaign.n_calls()
    if len(failed) or len(calls) < planned:
        # a failed conversation turn leaves its context's later turns and items unasked: they are in neither table
        print(f"{planned - len(calls):,} of {planned:,} planned calls not made: {len(failed)} failed")
        for kind, g in failed.assign(kind=[_kind(u, r) for u, r in zip(failed.unit, failed.run_id)]).groupby("kind"):
            print(f"  {kind}: {len(g)} failed, e.g. {g.unit.iloc[0]}: {str(g.error.iloc[0])[:200]}")
    sent, processed = calls.tokens_in.sum(), (calls.tokens_in - calls.cached_tokens).sum()
    print(f"{'all':<12}{len(calls) / n:>14.1f}{sent / n:>19,.0f}{calls.tokens_out.sum() / n:>20,.0f}")
    print(f"prompt tokens sent {sent:,}, processed {processed:,}: prefix reuse saves {sent / max(1, processed):.1f}x")
    full_calls = len(calls) / n * N_PERSONAS
    print(f"full campaign ({N_PERSONAS} personas): {full_calls:,.0f} calls, {sent / n * N_PERSONAS:,.0f} prompt tokens, "
          f"{calls.tokens_out.sum() / n * N_PERSONAS:,.0f} generated; at {args.calls_per_s:g} calls/s "
          f"{full_calls / args.calls_per_s / 3600:.1f} h")


if __name__ == "__main__":
    main()
