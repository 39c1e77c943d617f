"""Import the reference PersonaGym files (github vsamuel2003/PersonaGym): question sets and published scores.

- Question file ``<persona description>.json`` = ``{task: [questions]}`` (tasks as in ``TASKS``;
  "Toxicity" means Toxicity Control). One run per file (model ``questions:<folder>``), one
  ``personagym_questions`` row per question (status ok, source ``import:<folder>``). A folder of
  such files can also be run directly: ``run personagym --questions FOLDER``.
- Published scores ``<date>_<model>/scores.json`` = ``{task: score, ..., "PersonaScore": x}``.
  One run per file (model = the folder name after the date), one ``personagym_published`` row per
  task plus a "PersonaScore" row that also holds the mean of the five task scores and whether the
  published PersonaScore matches it (``consistent``; tolerance ``PUBLISHED_TOLERANCE``). These are
  an external reference leaderboard: they never mix with scores computed from grades. A file
  without "PersonaScore" gets the mean of its tasks, with a note saying so. Files of the paper's six
  models are checked against its Table 1 (``data/personagym/paper_table1.json``); where they
  disagree the note says which number is the typo (``paper_disagreements``).

Folders are searched recursively for ``*.json``; files whose top level is not an object (such as
``environments.json`` and ``personas.json``) are skipped there, but a file named explicitly must be
a question or scores file. Every file is parsed before anything is written: a bad file raises
InputError naming the file and field, and nothing is imported. Each file is then stored in its own
transaction; run ids hash the file's bytes, so importing a file twice changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import InputError, one_line
from analysis.importers.files import decode, expand_paths, load_json, parse_json, read_bytes
from analysis.methods.personagym import TASKS, canonical_task
from analysis.methods.personagym.data import persona_key, read_question_file
from analysis.methods.personagym.metrics import published_consistency
from analysis.methods.personagym.tables import PUBLISHED, QUESTIONS
from analysis.runs.store import Store

SOURCE = "vsamuel2003/PersonaGym"
_DATED = re.compile(r"^(\d{8})_(.+)$")


@dataclass
class ParsedFile:
    path: Path
    run_id: str
    model: str
    plan: dict[str, Any]
    table: str
    rows: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    @property
    def model_spec(self) -> dict[str, Any]:
        return {"name": self.model, "backend": "imported", "model": self.model, "base_url": None, "params": {}, "source": SOURCE}


def _slug(text: str, n: int = 40) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:n].strip("-") or "x"


def parse_question_file(path: Path, content: bytes) -> ParsedFile:
    """A question file -> one imported run of question rows."""
    persona, questions = read_question_file(path, content)
    digest = hashlib.sha256(content).hexdigest()
    folder = one_line(path.resolve().parent.name) or "questions"  # names from files print on one line
    model = f"questions:{folder}"
    run_id = f"personagym-questions-{_slug(persona)}-{digest[:10]}"
    pid = persona_key(persona)
    rows = [{"run_id": run_id, "model": model, "persona_id": pid, "persona": persona, "task": task, "q_index": i,
             "question": q, "environments": None, "status": "ok", "source": f"import:{folder}"}
            for task, qs in questions.items() for i, q in enumerate(qs)]
    plan = {"method": "personagym", "imported": True, "kind": "questions", "source": SOURCE, "path": str(path.resolve()),
            "sha256": digest, "persona": persona, "tasks": {t: len(q) for t, q in questions.items()}}
    return ParsedFile(path, run_id, model, plan, QUESTIONS.name, rows)


def _number(value: Any, path: Path, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{path}: field '{key}': expected a number, got {json.dumps(value)}")
    if not 1 <= value <= 5:
        raise InputError(f"{path}: field '{key}': {value} is outside the score range 1-5")
    return float(value)


def parse_scores_file(path: Path, doc: dict[str, Any], digest: str) -> ParsedFile:
    """A published scores.json -> one imported run of ``personagym_published`` rows."""
    folder = one_line(path.resolve().parent.name)  # names from files print on one line
    m = _DATED.match(folder)
    date, model = (m.group(1), m.group(2)) if m else (None, folder or one_line(path.stem))
    tasks: dict[str, float] = {}
    published: float | None = None
    for key, value in doc.items():
        if re.sub(r"[\s_-]", "", key).lower() == "personascore":
            published = _number(value, path, key)
            continue
        task = canonical_task(key)
        if task is None:
            raise InputError(f"{path}: field '{key}': unknown task; tasks: {', '.join(TASKS)} and PersonaScore")
        if task in tasks:
            raise InputError(f"{path}: field '{key}': task {task} given twice")
        tasks[task] = _number(value, path, key)
    missing = [t for t in TASKS if t not in tasks]
    if missing:
        raise InputError(f"{path}: no score for {', '.join(missing)}")
    notes: list[str] = []
    mean, consistent = published_consistency(tasks, published if published is not None else math.nan)
    paper = paper_table1(model)
    if published is None:
        published, consistent = mean, True
        note = "no PersonaScore in the file: the mean of the task scores is shown"
    elif paper is not None and (typos := paper_disagreements(tasks, published, paper)):
        note = typos
        notes.append(f"{path}: {model}: {note}")
    elif not consistent:
        note = f"published PersonaScore {published:.2f} is not the mean of its five task scores ({mean:.2f})"
        notes.append(f"{path}: {model}: {note}")
    else:
        note = None
    run_id = f"personagym-scores-{_slug(model)}-{digest[:10]}"
    rows = [{"run_id": run_id, "model": model, "date": date, "task": t, "score": tasks[t], "source": str(path.resolve())}
            for t in TASKS]
    rows.append({"run_id": run_id, "model": model, "date": date, "task": "PersonaScore", "score": published,
                 "mean_of_tasks": mean, "consistent": int(consistent), "note": note, "source": str(path.resolve())})
    plan = {"method": "personagym", "imported": True, "kind": "published_scores", "source": SOURCE,
            "path": str(path.resolve()), "sha256": digest, "date": date, "consistent": consistent, "note": note}
    return ParsedFile(path, run_id, model, plan, PUBLISHED.name, rows, notes)


PAPER_TABLE1 = Path(__file__).resolve().parents[3] / "data/personagym/paper_table1.json"
#: Table 1 prints two decimals: a file value within this of the paper's agrees with it.
PAPER_TOLERANCE = 0.005


@dataclass(frozen=True)
class PaperScores:
    """One row of the paper's Table 1 (``data/personagym/paper_table1.json``, figures with their source)."""

    name: str
    tasks: dict[str, float]
    persona_score: float


def paper_table1(model: str) -> PaperScores | None:
    """The Table 1 row of a published model, found by its evaluation folder name (``claude_3_haiku``)."""
    doc = json.loads(PAPER_TABLE1.read_text(encoding="utf-8"))
    for name, row in doc["models"].items():
        if row["folder"].lower() == model.lower():
            return PaperScores(name, {canonical_task(t): v for t, v in zip(doc["tasks"], row["scores"])}, row["PersonaScore"])
    return None


def paper_disagreements(tasks: dict[str, float], published: float, paper: PaperScores) -> str | None:
    """Where a scores.json disagrees with the paper's Table 1, which number is the typo, or None when they agree.

    A file value differing from Table 1 is named a typo when the paper is consistent with itself (its task scores
    average to its PersonaScore) and the file is not; e.g. Claude 3 Haiku's scores.json gives Persona Consistency
    4.47 where Table 1 gives 3.47, and only with 3.47 do the five tasks average to the published PersonaScore 3.64."""
    differ = {t: (v, paper.tasks[t]) for t, v in tasks.items() if abs(v - paper.tasks[t]) > PAPER_TOLERANCE}
    score_differs = abs(published - paper.persona_score) > PAPER_TOLERANCE
    if not differ and not score_differs:
        return None
    paper_mean, paper_consistent = published_consistency(paper.tasks, paper.persona_score)
    parts = [f"{t} {v:.2f} in scores.json, {p:.2f} in the paper's Table 1" for t, (v, p) in differ.items()]
    if score_differs:
        parts.append(f"PersonaScore {published:.2f} in scores.json, {paper.persona_score:.2f} in Table 1")
    file_mean = float(sum(tasks.values()) / len(tasks))
    if paper_consistent and not score_differs:
        return (f"typo in scores.json: {'; '.join(parts)}. The published PersonaScore {published:.2f} is right: the "
                f"paper's task scores average to it ({paper_mean:.2f}), the file's to {file_mean:.2f}")
    return f"scores.json disagrees with the paper ({paper.name}, Table 1): {'; '.join(parts)}"


def parse_file(path: Path, content: bytes) -> ParsedFile:
    """A question file or a scores file, told apart by a 'PersonaScore' field or the name scores.json."""
    doc = parse_json(decode(content, path), path)
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected a question file {{task: [questions]}} or a scores file {{task: score}}")
    scores = path.name.lower() == "scores.json" or any(re.sub(r"[\s_-]", "", k).lower() == "personascore" for k in doc)
    if scores:
        return parse_scores_file(path, doc, hashlib.sha256(content).hexdigest())
    return parse_question_file(path, content)


def _is_object_file(path: Path) -> bool:
    try:
        return isinstance(load_json(path), dict)
    except InputError:
        return True  # let parse_file report it


def _expand(paths: Sequence[str | Path]) -> list[Path]:
    return expand_paths(paths, "*.json", what="PersonaGym question or scores file (*.json)", accept=_is_object_file)


def import_files(store: Store, paths: Sequence[str | Path], notes: list[str] | None = None) -> list[str]:
    """Import question and scores files (or folders of them); one run id per file (already imported ones included).

    Every file is parsed first (any bad file: InputError, nothing written); then each file is stored
    in its own transaction. ``notes``, when given, receives one line per flagged file (a published
    PersonaScore that is not the mean of its tasks).
    """
    return store_parsed(store, parse_files(paths), notes)


def parse_files(paths: Sequence[str | Path]) -> list[ParsedFile]:
    """Every question or scores file of ``paths`` parsed, nothing stored; any bad file raises InputError."""
    return [parse_file(path, read_bytes(path)) for path in _expand(paths)]


def store_parsed(store: Store, parsed: Sequence[ParsedFile], notes: list[str] | None = None) -> list[str]:
    """Store parsed files, each in its own transaction; ``notes`` receives their flags."""
    for p in parsed:
        store.import_run(p.run_id, "personagym", p.model, p.model_spec, p.plan, {p.table: p.rows})
        if notes is not None:
            notes.extend(p.notes)
    return [p.run_id for p in parsed]
