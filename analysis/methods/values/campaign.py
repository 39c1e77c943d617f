"""The Stick to Your Role! leaderboard campaign in one command, from the user's copy of the reference.

Reference ``Leaderboard/run_scripts/run_stability_leaderboard.sh`` (flowersteam/value_stability): nine evaluations
of one model on the 50-person population ``personas/real_world_people/personas.json``, with ``n_msgs=3``:

====  =====================================================  ==========================================
 0    no_conv, PVQ-40                                        questions asked directly
 1-5  ``contexts/leaderboard_reddit_chunks/chunk_{0..4}``    a human user; persona i opens with line i
 6    chess ("1. e4")                                        interlocutors ``chunk_0/interlocutors.json``
 7    grammar                                                interlocutors ``chunk_1/interlocutors.json``
 8    no_conv, SVS                                           questions asked directly
====  =====================================================  ==========================================

RoleScope runs them as two runs of one configuration (the plan field ``campaign`` lets the PVQ run and the SVS
run pool, ``analysis.runs.comparable``): the PVQ run over contexts 0-7 and the SVS run on no_conv. The model's
leaderboard configuration (``models/leaderboard_configs/*.json``) answers with a chain of thought, so ``cot`` is the
campaign's default answer mode. The chess and grammar openings are read from the reference's
``simulate_conversation_utils.py`` when the copy has it (RoleScope's bundled openings otherwise, said in the
plan); the interlocutor files likewise (a seeded derangement otherwise).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from analysis.errors import InputError
from analysis.llm.specs import ModelSpec
from analysis.sources import is_hub_path

if TYPE_CHECKING:  # the plan types import the LLM client, which the leaderboard page (off_protocol) does not need
    from analysis.methods.values.questionnaire import ValuesAnswerMode, ValuesPlan

LEADERBOARD = "leaderboard"
POPULATION = "personas/real_world_people/personas.json"
CHUNKS = tuple(f"contexts/leaderboard_reddit_chunks/chunk_{i}.jsonl" for i in range(5))
INTERLOCUTORS = {"chess": "interlocutors/real_world_people/chunk_0/interlocutors.json",
                 "grammar": "interlocutors/real_world_people/chunk_1/interlocutors.json"}
OPENINGS_FILE = "simulate_conversation_utils.py"


@dataclass(frozen=True)
class Campaign:
    """The campaign's two plans and what came from where (one line per source, shown before the run)."""

    pvq: ValuesPlan
    svs: ValuesPlan
    sources: tuple[str, ...]

    def n_calls(self) -> int:
        return self.pvq.n_calls() + self.svs.n_calls()


def _join(root: str, rel: str) -> str:
    return f"{root.rstrip('/')}/{rel}"


def _exists(root: str, rel: str) -> bool:
    return is_hub_path(root) or Path(_join(root, rel)).exists()


def reference_openings(path: Path) -> dict[str, str]:
    """``opening_questions_for_themes`` of the reference's ``simulate_conversation_utils.py``: its string literals
    only (read with ``ast``, never executed)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not readable as Python ({exc})") from None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "opening_questions_for_themes"
                                                for t in node.targets) and isinstance(node.value, ast.Dict):
            return {k.value: v.value for k, v in zip(node.value.keys, node.value.values)
                    if isinstance(k, ast.Constant) and isinstance(v, ast.Constant) and isinstance(v.value, str)}
    raise InputError(f"{path}: no opening_questions_for_themes dictionary")


def leaderboard_campaign(spec: ModelSpec, reference: str | Path, *, answer_mode: ValuesAnswerMode = "cot",
                         limit_personas: int | None = None, seed: int = 0, prefix_reuse: bool = False,
                         **protocol: Any) -> Campaign:
    """The two plans of the leaderboard campaign from ``reference`` (a clone of flowersteam/value_stability or an
    ``hf://datasets/...`` copy of its layout). ``limit_personas`` runs the first N of the 50 (a reduced campaign)."""
    from analysis.methods.values.plan import build_values_plan

    root = str(reference)
    if not is_hub_path(root) and not Path(root).is_dir():
        raise InputError(f"--reference {root}: not a folder (give your clone of flowersteam/value_stability)")
    missing = [rel for rel in (POPULATION, *CHUNKS, "data/data_pvq", "data/data_svs") if not _exists(root, rel)]
    if missing:
        raise InputError(f"--reference {root}: {missing[0]} not found" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""))
    sources = [f"population: {_join(root, POPULATION)}", f"contexts: {_join(root, 'contexts/leaderboard_reddit_chunks')}/chunk_0..4"]
    openings = None
    if not is_hub_path(root) and (Path(root) / OPENINGS_FILE).is_file():
        openings = reference_openings(Path(root) / OPENINGS_FILE)
        sources.append(f"chess and grammar openings: {_join(root, OPENINGS_FILE)}")
    else:
        sources.append(f"chess and grammar openings: RoleScope's bundled ones ({OPENINGS_FILE} not in the reference copy)")
    interlocutors = {}
    for label, rel in INTERLOCUTORS.items():
        if _exists(root, rel):
            interlocutors[label] = _join(root, rel)
            sources.append(f"{label} interlocutors: {_join(root, rel)}")
        else:
            sources.append(f"{label} interlocutors: a seeded random derangement ({rel} not in the reference copy)")
    common: dict[str, Any] = dict(population=_join(root, POPULATION), limit_personas=limit_personas, answer_mode=answer_mode,
                                  seed=seed, prefix_reuse=prefix_reuse, campaign=LEADERBOARD, **protocol)
    pvq = build_values_plan(spec, contexts=["no_conv", *(_join(root, c) for c in CHUNKS), "chess", "grammar"],
                            instrument=_join(root, "data/data_pvq"), interlocutor_files=interlocutors,
                            shared_openings=openings, **common)
    svs = build_values_plan(spec, contexts=["no_conv"], instrument=_join(root, "data/data_svs"), **common)
    return Campaign(pvq, svs, tuple(sources))


N_CONTEXTS = 9  # PVQ: no_conv, 5 chunks, chess, grammar; SVS: no_conv
N_PERSONAS = 50


#: The protocol the published leaderboard's numbers come from (the campaign's defaults): a campaign run otherwise is
#: another experiment, whatever its name.
LEADERBOARD_PROTOCOL: dict[str, Any] = {
    "answer_mode": "cot", "messages": 3, "structure": "reference", "persona_prompt": "reference", "system_role": True,
    "svs_order": "sequential", "samples": 1, "conversation_temperature": 0.7, "answer_temperature": 0.0,
    "conversation_max_tokens": 100, "cot_max_tokens": 2000,
}


def _protocol_differences(sig: dict[str, Any]) -> list[str]:
    found = [f"{k} {sig[k]!r} (the leaderboard's: {v!r})" if k in sig else f"{k} not recorded (an older run)"
             for k, v in LEADERBOARD_PROTOCOL.items() if k not in sig or sig[k] != v]
    if sig.get("answer_format", "text") != "text":  # a text plan leaves its answer format unstated
        found.append(f"answer_format {sig['answer_format']!r} (the leaderboard's: free text)")
    return found


def off_protocol(model_doc: dict[str, Any]) -> str | None:
    """Why a model's values results (one ``metrics values`` model document) cannot stand beside the published
    leaderboard's numbers, or None when they can: its configuration must be a leaderboard campaign run on the
    leaderboard's protocol (``LEADERBOARD_PROTOCOL``: its whole signature, not the campaign's name), or imported
    reference results, covering the nine evaluations on the 50 personas."""
    used = next((c for c in model_doc.get("configurations") or [] if c.get("used")), {})
    sig = used.get("signature") or {}
    if not (sig.get("imported") or sig.get("campaign") == LEADERBOARD):
        return "not run as the leaderboard campaign (run values --campaign leaderboard)"
    if not sig.get("imported") and (differences := _protocol_differences(sig)):
        return "off the leaderboard's protocol: " + "; ".join(differences)
    n_ctx = len(model_doc.get("contexts") or {})
    if n_ctx != N_CONTEXTS:
        return f"{n_ctx} of the {N_CONTEXTS} evaluations"
    personas = model_doc.get("n_personas")
    if personas != N_PERSONAS:
        return f"{personas} personas, not {N_PERSONAS} (a reduced campaign)"
    return None
