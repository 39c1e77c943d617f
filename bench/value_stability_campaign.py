"""A synthetic Stick to Your Role! campaign in the reference's results.json format, for the values benches.

``write_campaign(root, models)`` writes, per model, the nine leaderboard files of flowersteam/value_stability
(``chunk_no_conv``, ``chunk_0`` .. ``chunk_4``, ``chunk_chess_0``, ``chunk_grammar_1``: PVQ-40; ``chunk_svs_no_conv``:
SVS) for 50 personas. Answers come from latent value profiles (each persona one profile, a model-specific noise
level per context, so a bench store has a circumplex, fitting CFAs and context-dependent stability), permuted
options as the reference writes them, and a few replies with no letter (invalid). ``campaign_store(path, models)``
imports them with ``python -m analysis import value-stability``, as a user would.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.methods.values.importer import PVQ40, SVS, InstrumentKey  # noqa: E402

PVQ_LABELS = ["chunk_no_conv", "chunk_0", "chunk_1", "chunk_2", "chunk_3", "chunk_4", "chunk_chess_0", "chunk_grammar_1"]
SVS_LABEL = "chunk_svs_no_conv"
LETTERS = "ABCDEFGHI"
STAMP = "2024_06_01_12_00_00"


def _value_index(inst: InstrumentKey) -> np.ndarray:
    """Per item, its value's column in a profile (10 = an unkeyed item, answered from noise alone)."""
    values = list(inst.key)
    return np.array([values.index(v) if (v := inst.value_of(j + 1)) else len(values) for j in range(inst.n_items)])


def _file(root: Path, engine: str, label: str, inst: InstrumentKey, profile: np.ndarray, noise: float,
          rng: np.random.Generator) -> None:
    n = len(profile)
    latent = np.column_stack([profile, np.zeros(n)])[:, _value_index(inst)] + noise * rng.normal(size=(n, inst.n_items))
    lo, hi = inst.scores[0], inst.scores[-1]
    scores = np.clip(np.round((lo + hi) / 2 + (hi - lo) / 4 * latent), lo, hi).astype(int)
    shuffle = random.Random(f"{engine}/{label}")
    answers, generations = [], []
    for p in range(n):
        ans, gens = [], []
        for j in range(inst.n_items):
            perm = list(range(inst.n_options))
            shuffle.shuffle(perm)  # letter position -> option position in the questionnaire's order
            letter = LETTERS[perm.index(scores[p, j] - lo)]
            ans.append([letter, int(scores[p, j])])
            gens.append("I would say it depends." if shuffle.random() < 0.01 else f"({letter})")
        answers.append({inst.subject: ans})
        generations.append({inst.subject: gens})
    args = {"engine": engine, "data_dir": "data/data_pvq" if inst is PVQ40 else "data/data_svs",
            "simulated_conversation_theme": None if "no_conv" in label else f"contexts/{label}.jsonl",
            "simulated_conversation_n_messages": 3, "permute_options_seed": f"leaderboard_{label}",
            "model_config_path": f"./models/leaderboard_configs/{engine}.json"}
    population = [{"name": f"Persona {i}", "description": f"Persona {i}, invented for a bench.", "gender": "MF"[i % 2]}
                  for i in range(n)]
    doc = {"args": args, "params": args, "metrics": {}, "pop_metrics": {}, "simulated_population": population,
           "answers": answers, "generations": generations}
    path = root / engine / f"{label}_{STAMP}" / "results.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


def write_campaign(root: Path, models: int = 1, personas: int = 50, seed: int = 0) -> list[Path]:
    """The nine results.json files of each of ``models`` synthetic models; returns the model folders."""
    rng = np.random.default_rng(seed)
    profile = rng.normal(size=(personas, 10))  # the personas' value profiles (the 10 values), shared by every model
    folders = []
    for m in range(models):
        engine = f"bench-model-{m:02d}"
        noise = 0.5 + 1.5 * m / max(models - 1, 1)  # models differ in how well they keep their personas
        for label in PVQ_LABELS:
            _file(root, engine, label, PVQ40, profile, noise * rng.uniform(0.8, 1.2), rng)
        _file(root, engine, SVS_LABEL, SVS, profile, noise, rng)
        folders.append(root / engine)
    return folders


def campaign_store(store: Path, models: int = 1, personas: int = 50) -> Path:
    """A store holding the imported campaign (built once: an existing store is returned as it is)."""
    if store.exists():
        return store
    files = store.parent / (store.stem + "-results")
    folders = write_campaign(files, models, personas)
    subprocess.run([sys.executable, "-m", "analysis", "import", "value-stability", *map(str, folders), "--store",
                    str(store)], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return store
