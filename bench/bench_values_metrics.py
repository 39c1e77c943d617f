"""The values report with its chance bands, cold and warm, against an earlier commit on the same stores.

Stores (``bench/value_stability_campaign.py``): a reference-format Stick to Your Role! campaign, 1 model x 9 contexts
(8 PVQ, 1 SVS) x 50 personas, imported with ``import value-stability``; and the same campaign for 20 models.
Per code version (this checkout, and ``--baseline REV`` in a temporary git worktree), each command runs in its own
process on a fresh copy of the store (cold: nothing cached in it) and then again on that copy (warm):

- ``metrics values --json --chance 0`` (cold);
- ``metrics values --json`` (default: 100 draws per null, CFA and separability included), cold and warm;
- ``leaderboard --json`` on the 20-model store, cold and warm (each row with its rank-order and ipsative stability
  bands, 100 draws per null; the baseline's leaderboard has no chance bands: its time is that of the report alone).

Wall time is the median over ``--repeats`` runs (the baseline's cold chance run: ``--baseline-repeats``, it takes
~10 min; the baseline keeps nothing in the store, so its warm runs are its cold ones); peak RSS is the child's
``ru_maxrss`` (with its workers). Every ratio is baseline / now, measured in this one run.
Also prints the warm wall time of ``model_metrics`` in-process (the old target: <= 3 s).
Run: ``.venv/bin/python bench/bench_values_metrics.py [--baseline 5222052] [--repeats 5] [--work DIR]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.methods.values import VALUES  # noqa: E402
from analysis.methods.values.instruments import load_instrument  # noqa: E402
from bench.value_stability_campaign import campaign_store  # noqa: E402

CONTEXTS = [f"ctx_{i}" for i in range(9)]
#: The commit before the chance bands were made fast (issue "a full report, chance bands included, in seconds").
BASELINE = "5222052"
TARGETS = {"chance 0, cold": 3.5, "chance 100, cold": 10.0, "chance 100, warm": 1.0,
           "20-model leaderboard, cold": 60.0, "20-model leaderboard, warm": 2.0}
RSS_TARGET_MIB = 250


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


def run(cwd: Path, args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``python -m analysis ARGS`` run in ``cwd``."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "analysis", *args], cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=os.environ | {"PYTHONPATH": str(cwd)})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{cwd}: analysis {' '.join(args)} failed: {proc.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def measure(cwd: Path, one: Path, twenty: Path, work: Path, repeats: int, slow_repeats: int,
            caches: bool) -> dict[str, tuple[float, float]]:
    """measure -> (median wall, max peak RSS) for one code version. ``caches``: whether this version keeps what it
    computed in the store (the baseline does not: its warm runs are its cold ones, not run twice)."""
    out: dict[str, list[tuple[float, float]]] = {}

    def fresh(store: Path) -> Path:
        copy = work / f"run-{store.name}"
        for suffix in ("", "-wal", "-shm"):
            Path(str(copy) + suffix).unlink(missing_ok=True)
        shutil.copy(store, copy)
        return copy

    def add(name: str, args: list[str], store: Path) -> None:
        out.setdefault(name, []).append(run(cwd, args + ["--store", str(store)]))

    for _ in range(repeats):
        add("chance 0, cold", ["metrics", "values", "--json", "--chance", "0"], fresh(one))
    for _ in range(slow_repeats):
        copy = fresh(one)
        add("chance 100, cold", ["metrics", "values", "--json"], copy)
        if caches:
            add("chance 100, warm", ["metrics", "values", "--json"], copy)
    board = ["leaderboard", "--json"] + (["--chance", "100"] if caches else [])
    copy = fresh(twenty)
    add("20-model leaderboard, cold", board, copy)
    if caches:
        add("20-model leaderboard, warm", board, copy)
    return {k: (statistics.median(w for w, _ in v), max(r for _, r in v)) for k, v in out.items()}


def in_process_suite() -> float:
    from analysis.methods.values.metrics import model_metrics

    answers = synthetic_answers()
    model_metrics(answers, n_boot=1000)  # warm-up: imports, BLAS
    t0 = time.perf_counter()
    model_metrics(answers, n_boot=1000)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE, help="the commit to compare with ('' = none)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--baseline-repeats", type=int, default=1, help="runs of the baseline's slow measures")
    ap.add_argument("--work", type=Path, help="keep the stores here (built once)")
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-values-"))
    work.mkdir(parents=True, exist_ok=True)
    one = campaign_store(work / "campaign-1.db", models=1)
    twenty = campaign_store(work / "campaign-20.db", models=20)
    now = measure(ROOT, one, twenty, work, args.repeats, args.repeats, True)
    base = {}
    if args.baseline:
        tree = work / "baseline"
        if not tree.exists():
            subprocess.run(["git", "worktree", "add", "--detach", str(tree), args.baseline], cwd=ROOT, check=True,
                           stdout=subprocess.DEVNULL)
        base = measure(tree, one, twenty, work, args.repeats, args.baseline_repeats, False)
        for name in ("chance 100, warm", "20-model leaderboard, warm"):  # it keeps nothing: a second run is a first
            base[name] = base[name.replace("warm", "cold")]
    print("values report, reference-format campaign (1 model x 9 contexts x 50 personas; leaderboard: 20 models); "
          f"1-min load {os.getloadavg()[0]:.1f}")
    print(f"{'measure':28} {'baseline':>10} {'now':>9} {'ratio':>7}  {'target':>8}  peak RSS (MiB)")
    for name, target in TARGETS.items():
        wall, rss = now[name]
        b = base.get(name)
        ratio = f"{b[0] / wall:6.1f}x" if b else "      —"
        before = f"{b[0]:9.2f}s" if b else "         —"
        ok = "OK" if wall <= target else "MISSED"
        print(f"{name:28} {before} {wall:8.2f}s {ratio}  <= {target:5.1f}s {ok:6}  {rss:6.0f}"
              + (f" (baseline {b[1]:.0f})" if b else ""))
    peak = max(r for name, (_, r) in now.items() if not name.startswith("20-model"))
    print(f"peak RSS of the 1-model report (every run above but the leaderboard's): {peak:.0f} MiB, target <= "
          f"{RSS_TARGET_MIB} -> {'OK' if peak <= RSS_TARGET_MIB else 'MISSED'}")
    if base:
        print("(the baseline keeps nothing in the store, so its warm runs are its cold ones; its leaderboard computes no "
              f"chance bands; its cold chance run is the median of {args.baseline_repeats})")
    print(f"in-process model_metrics (warm, 1000 bootstrap resamples): {in_process_suite():.2f} s   target <= 3 s")


if __name__ == "__main__":
    main()
