"""PersonaGym data: environments, personas, task rubrics and question files.

Sources:

- environments: ``default`` = ``data/personagym/environments.json`` (RoleScope's own list), or a
  file: a JSON list of names, ``{"environments": [...]}``, or a ``.txt`` file with one name a line.
  Names must be unique (case-insensitive): the environment picker matches replies against them.
- personas: ``all`` (the bundled 60), a number N (a seeded sample of the bundled ones, kept in file
  order), or a file: a JSON list of descriptions, of ``{id?, description}`` (``persona`` is accepted
  for ``description``), or ``{"personas": [...]}``; a ``.txt`` file (one description a line); a
  question file or a folder of question files (the personas then come with fixed questions).
- question files (the reference benchmark's format): ``<persona description>.json`` holding
  ``{task: [question, ...]}``; task names as in ``TASKS`` or an alias ("Toxicity").
- rubrics: ``data/personagym/rubrics.json``: per task a title, a description, guidance for
  question writers, and criteria for the scores 1-5 (all RoleScope's wording); or a JSON file of
  that form; or a folder of rubric text files in the reference's form (``rubrics/<Task>.txt`` of
  github vsamuel2003/PersonaGym, "Toxicity.txt" for Toxicity Control): "Evaluation Task:", "Evaluation
  Task Description:", "Evaluation Criteria:" with "Score = k: ..." lines, and the fields {persona},
  {question}, {response}, {score_example}. Such a rubric is sent to the judges as written; its
  question guidance (the reference keeps it in code, not in the rubric) is the bundled one.
- the judge's system prompt: RoleScope's (``prompts.JUDGE_SYSTEM``) with the bundled rubrics or a rubrics
  JSON; with a rubric *folder*, the reference's own, read as written from the file the reference lays out
  beside it (``load_judge_system``): ``sys_prompt.txt`` in the folder itself if present, else
  ``prompts/rubric_grading/sys_prompt.txt`` next to the folder (the reference's ``code/run.py`` reads
  ``../prompts/rubric_grading/sys_prompt.txt`` and ``../rubrics/<task>.txt``). Neither present -> InputError
  naming both paths: a judge graded with the reference's rubrics but RoleScope's system prompt is neither
  configuration, so it is never chosen silently.
"""

from __future__ import annotations

import hashlib
import random
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from analysis.errors import InputError
from analysis.importers.files import decode, load_json, parse_json, read_bytes, read_csv_rows, read_text
from analysis.methods.personagym import SCORES, TASKS, canonical_task

REPO_ROOT = Path(__file__).resolve().parents[3]
DATA_DIR = REPO_ROOT / "data" / "personagym"
ENVIRONMENTS_FILE = DATA_DIR / "environments.json"
PERSONAS_FILE = DATA_DIR / "personas.json"
RUBRICS_FILE = DATA_DIR / "rubrics.json"
PAPER_TABLE1_FILE = DATA_DIR / "paper_table1.json"


class Persona(BaseModel):
    """A persona: its description is what the agent plays. ``questions`` = fixed questions (no generation)."""

    id: str
    description: str
    questions: dict[str, list[str]] | None = Field(
        None, description="Fixed questions per task (from a question file); None = generate them.")

    @field_validator("description")
    @classmethod
    def _description(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("empty persona description")
        return value


class Rubric(BaseModel):
    """One task's rubric: what it judges, how to write its questions, and criteria per score 1-5."""

    task: str
    title: str
    description: str
    question_guidance: str
    criteria: dict[str, str]
    template: str | None = Field(
        None, description="A rubric file's full text with {persona}, {question}, {response} and {score_example} "
                          "fields (e.g. the reference's rubrics/*.txt): sent to the judges as written, fields filled.")
    source: str = Field("bundled", description="Where the rubric came from (bundled, or the file it was read from).")

    @field_validator("task")
    @classmethod
    def _task(cls, value: str) -> str:
        task = canonical_task(value)
        if task is None:
            raise ValueError(f"unknown task '{value}'; tasks: {', '.join(TASKS)}")
        return task

    @field_validator("criteria")
    @classmethod
    def _criteria(cls, value: dict[str, str]) -> dict[str, str]:
        if sorted(value) != [str(s) for s in SCORES] or not all(v.strip() for v in value.values()):
            raise ValueError("criteria must describe each score 1, 2, 3, 4, 5 (non-empty)")
        return {str(s): value[str(s)].strip() for s in SCORES}


def persona_key(description: str) -> str:
    """A stable id for a persona known only by its description: 'p' + 12 hex of sha1."""
    return "p" + hashlib.sha1(" ".join(description.split()).encode("utf-8")).hexdigest()[:12]


def _read_json(path: Path) -> Any:
    return load_json(path)


def _read_lines(path: Path) -> list[str]:
    text = read_text(path)
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def load_environments(source: str | Path = "default") -> list[str]:
    """The environment names (see module docstring)."""
    path = ENVIRONMENTS_FILE if str(source) in ("default", "bundled") else Path(source)
    if path.suffix.lower() == ".txt":
        names: Any = _read_lines(path)
    else:
        doc = _read_json(path)
        names = doc.get("environments") if isinstance(doc, dict) else doc
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise InputError(f"{path}: expected a non-empty list of environment names (strings)")
    names = [" ".join(n.split()) for n in names]
    seen: dict[str, str] = {}
    for name in names:
        if name.lower() in seen:
            raise InputError(f"{path}: environment '{name}' is listed twice")
        seen[name.lower()] = name
    return names


def read_question_file(path: Path, content: bytes | None = None) -> tuple[str, dict[str, list[str]]]:
    """(persona description from the file name, {canonical task: questions}) of one question file."""
    doc = parse_json(decode(content if content is not None else read_bytes(path), path), path)
    if not isinstance(doc, dict) or not doc:
        raise InputError(f"{path}: a question file holds {{task: [questions]}}")
    questions: dict[str, list[str]] = {}
    for key, value in doc.items():
        task = canonical_task(key)
        if task is None:
            raise InputError(f"{path}: field '{key}': unknown task; tasks: {', '.join(TASKS)} (or 'Toxicity')")
        if task in questions:
            raise InputError(f"{path}: field '{key}': task {task} given twice")
        if not isinstance(value, list) or not value or not all(isinstance(q, str) and q.strip() for q in value):
            raise InputError(f"{path}: field '{key}': expected a non-empty list of question strings")
        questions[task] = [" ".join(q.split()) for q in value]
    description = " ".join(path.stem.split())
    if not description:
        raise InputError(f"{path}: the file name (the persona description) is empty")
    return description, {t: questions[t] for t in TASKS if t in questions}


def question_files(folder: Path) -> list[Path]:
    """The ``*.json`` files of a folder (recursively), sorted."""
    return sorted(p for p in folder.rglob("*.json") if p.is_file())


def _personas_from_doc(doc: Any, path: Path) -> list[Persona]:
    items = doc.get("personas") if isinstance(doc, dict) else doc
    if not isinstance(items, list) or not items:
        raise InputError(f"{path}: expected a list of personas (strings or {{id, description}})")
    out = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            item = {"description": item}
        if not isinstance(item, dict):
            raise InputError(f"{path}: persona {i + 1}: expected a string or an object")
        description = item.get("description", item.get("persona"))
        if not isinstance(description, str) or not description.strip():
            raise InputError(f"{path}: persona {i + 1}: field 'description' missing or empty")
        out.append(Persona(id=str(item.get("id") or persona_key(description)), description=description))
    return out


def _personas_from_csv(path: Path) -> list[Persona]:
    """A CSV with a description column (an id column optional); every bad row is named, and any refuses the file."""
    rows = read_csv_rows(path, ("description",))
    errors = [f"row {i + 2}: field 'description' is empty" for i, row in enumerate(rows) if not row["description"]]
    if errors:
        raise InputError(f"{path}: {'; '.join(errors)}")
    return [Persona(id=row.get("id") or persona_key(row["description"]), description=" ".join(row["description"].split()))
            for row in rows]


def _personas_from_path(path: Path) -> list[Persona]:
    if path.is_dir():
        files = question_files(path)
        if not files:
            raise InputError(f"{path}: no question files (*.json) in this folder")
    elif not path.exists():
        raise InputError(f"{path}: file not found")
    elif path.suffix.lower() == ".txt":
        return [Persona(id=persona_key(line), description=line) for line in _read_lines(path)]
    elif path.suffix.lower() == ".csv":
        return _personas_from_csv(path)
    else:
        doc = _read_json(path)
        if not isinstance(doc, dict) or "personas" in doc:
            return _personas_from_doc(doc, path)
        files = [path]  # a dict without 'personas': a question file
    personas = []
    for file in files:
        description, questions = read_question_file(file)
        personas.append(Persona(id=persona_key(description), description=description, questions=questions))
    return personas


def load_personas(source: str | int | Path = "all", seed: int = 0) -> list[Persona]:
    """The personas of a run (see module docstring). Ids must be unique."""
    text = str(source).strip()
    if text.isdigit() or isinstance(source, int):
        n = int(text)
        bundled = _personas_from_path(PERSONAS_FILE)
        if not 1 <= n <= len(bundled):
            raise InputError(f"--personas {n}: choose 1..{len(bundled)} bundled personas, or give a file")
        chosen = sorted(random.Random(seed).sample(range(len(bundled)), n))
        personas = [bundled[i] for i in chosen]
    elif text in ("all", "default", "bundled"):
        personas = _personas_from_path(PERSONAS_FILE)
    else:
        personas = _personas_from_path(Path(text))
    if not personas:
        raise InputError(f"{source}: no persona in this file")
    ids = [p.id for p in personas]
    if len(set(ids)) != len(ids):
        dup = next(i for i in ids if ids.count(i) > 1)
        raise InputError(f"{source}: persona id '{dup}' appears twice")
    return personas


def sample_personas(personas: list[Persona], n: int | None, seed: int = 0) -> list[Persona]:
    """A seeded sample of n personas in their original order (all when n is None or too large)."""
    if n is None or n >= len(personas):
        return personas
    if n < 1:
        raise InputError("--personas must be >= 1")
    return [personas[i] for i in sorted(random.Random(seed).sample(range(len(personas)), n))]


_RUBRIC_FIELDS = ("{persona}", "{question}", "{response}", "{score_example}")
_SECTION = r"^\s*{}\s*:\s*$"


def _section(text: str, head: str, until: str, path: Path) -> str:
    m = re.search(_SECTION.format(re.escape(head)) + r"(.*?)" + _SECTION.format(re.escape(until)), text, re.S | re.M)
    if m is None or not m.group(1).strip():
        raise InputError(f"{path}: no '{head}:' section before '{until}:'")
    return " ".join(m.group(1).split())


def read_rubric_text(path: Path, task: str, guidance: str) -> Rubric:
    """One rubric file in the reference's form (see module docstring) -> Rubric (template = the file's text)."""
    text = read_text(path).replace("\r\n", "\n")
    missing = [f for f in _RUBRIC_FIELDS if f not in text]
    if missing:
        raise InputError(f"{path}: the rubric lacks the field(s) {', '.join(missing)}")
    title = _section(text, "Evaluation Task", "Evaluation Task Description", path)
    description = _section(text, "Evaluation Task Description", "Evaluation Criteria", path)
    block = text[re.search(_SECTION.format("Evaluation Criteria"), text, re.M).end():]
    block = re.split(r"^-{5,}\s*$", block, maxsplit=1, flags=re.M)[0]
    criteria = {m.group(1): " ".join(m.group(2).split())
                for m in re.finditer(r"^\s*Score\s*=\s*([1-5])\s*:\s*(.+?)(?=^\s*Score\s*=|\Z)", block, re.S | re.M)}
    try:
        return Rubric(task=task, title=title, description=description, question_guidance=guidance, criteria=criteria,
                      template=text, source=str(path))
    except ValidationError as exc:
        raise InputError(f"{path}: {exc.errors()[0]['msg']}") from None


def _rubric_files(folder: Path) -> dict[str, Path]:
    """{canonical task: file} of a folder's ``*.txt`` files named after a task (other files are ignored)."""
    found: dict[str, Path] = {}
    for path in sorted(folder.glob("*.txt")):
        task = canonical_task(path.stem)
        if task is None:
            continue
        if task in found:
            raise InputError(f"{folder}: two rubric files for {task} ({found[task].name}, {path.name})")
        found[task] = path
    return found


#: Where a rubric folder's judge system prompt is looked for, in this order: the folder itself, then the
#: reference's layout (``rubrics/`` and ``prompts/rubric_grading/sys_prompt.txt`` side by side).
JUDGE_SYSTEM_NAME = "sys_prompt.txt"
REFERENCE_JUDGE_SYSTEM = Path("prompts") / "rubric_grading" / JUDGE_SYSTEM_NAME


def judge_system_paths(folder: Path) -> list[Path]:
    """The files a rubric folder's judge system prompt is read from, first found wins (see module docstring)."""
    return [folder / JUDGE_SYSTEM_NAME, folder.resolve().parent / REFERENCE_JUDGE_SYSTEM]


def load_judge_system(source: str | Path = "default") -> tuple[str, str] | None:
    """(text, file) of the judge's system prompt that comes with a rubric folder (as written, line ends normalised);
    None for the bundled rubrics or a rubrics JSON (RoleScope's ``JUDGE_SYSTEM`` then). A folder without the file is
    an InputError naming the paths expected."""
    if str(source) in ("default", "bundled") or not Path(source).is_dir():
        return None
    candidates = judge_system_paths(Path(source))
    path = next((p for p in candidates if p.is_file()), None)
    if path is None:
        raise InputError(f"{source}: no judge system prompt for these rubrics: expected {candidates[1]} (the "
                         f"reference's layout) or {candidates[0]}")
    text = read_text(path).replace("\r\n", "\n")
    if not text.strip():
        raise InputError(f"{path}: the judge system prompt is empty")
    return text, str(path)


def load_rubrics(source: str | Path = "default") -> dict[str, Rubric]:
    """The rubrics of the five tasks, by canonical task name, in ``TASKS`` order (see module docstring)."""
    path = RUBRICS_FILE if str(source) in ("default", "bundled") else Path(source)
    if path.is_dir():
        files = _rubric_files(path)
        missing = [t for t in TASKS if t not in files]
        if missing:
            raise InputError(f"{path}: no rubric file for {', '.join(missing)} (expected <task>.txt, e.g. 'Expected Action.txt')")
        bundled = load_rubrics("default")
        return {t: read_rubric_text(files[t], t, bundled[t].question_guidance) for t in TASKS}
    doc = _read_json(path)
    items = doc.get("tasks") if isinstance(doc, dict) else doc
    if not isinstance(items, list):
        raise InputError(f"{path}: expected {{\"tasks\": [rubric, ...]}}")
    rubrics: dict[str, Rubric] = {}
    for i, item in enumerate(items):
        try:
            rubric = Rubric.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise InputError(f"{path}: rubric {i + 1} field '{'.'.join(map(str, first['loc']))}': {first['msg']}") from None
        if rubric.task in rubrics:
            raise InputError(f"{path}: task {rubric.task} has two rubrics")
        rubrics[rubric.task] = rubric
    missing = [t for t in TASKS if t not in rubrics]
    if missing:
        raise InputError(f"{path}: no rubric for {', '.join(missing)}")
    return {t: rubrics[t] for t in TASKS}


def paper_table1() -> dict[str, Any]:
    """The paper's Table 1 (bundled published numbers): ``{"source", "models": {model: {task | "PersonaScore":
    {"mean", "sd"}}}}``."""
    doc = _read_json(PAPER_TABLE1_FILE)
    models = {}
    for model, row in doc["models"].items():
        cells = {t: {"mean": m, "sd": sd} for t, m, sd in zip(doc["tasks"], row["scores"], row["sd"])}
        models[model] = {canonical_task(t) or t: cells[t] for t in cells} | {
            "PersonaScore": {"mean": row["PersonaScore"], "sd": row["PersonaScore_sd"]}}
    return {"source": doc["source"], "models": models}
