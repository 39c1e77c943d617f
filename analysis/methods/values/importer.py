"""Import Stick to Your Role! ``results.json`` files (flowersteam/value_stability) into a store.

The reference format, as its ``evaluate.py`` writes it (read, not reused, here):

- One file per model x context: ``<context label>_<YYYY_mm_dd_HH_MM_SS>/results.json``; the label is
  the folder name before ``_202`` (leaderboard labels: ``chunk_no_conv``, ``chunk_0`` .. ``chunk_4``,
  ``chunk_chess_0``, ``chunk_grammar_1``, ``chunk_svs_no_conv``).
- ``args`` (and the same dict again as ``params``): ``engine`` (model name), ``data_dir``
  (``data/data_pvq`` or ``data/data_svs``), ``simulated_conversation_theme``, ``permute_options_seed``...
- ``simulated_population``: ``[{name, description, gender: "M"|"F"}]``.
- ``answers``: per persona ``{subject: [[letter, score], ...]}`` in item order; subject ``pvq_auto``
  (PVQ-40: 40 items, options A-F, score 1..6) or ``svs`` (57 items, options A-I, score -1..7).
  Options are permuted per persona x item; the score is the chosen option's position in the
  questionnaire's own order, so it is stored, the letter -> score map is not.
- ``generations``: the raw replies, same shape; ``lprobs``: per item, one number per option.
- The reference accepts a reply when ``"(X)"`` occurs in it (the alphabetically first such letter when
  several do) and otherwise stores a *random* letter with its score. Chain-of-thought models are
  parsed only after their single ``"Answer:"`` (cropped to 40 characters); none or several -> random.

What this importer does: each file becomes one run (method ``values``, status ``imported``) whose
rows go to ``values_answers`` like a native text-mode run. It re-parses every reply strictly: one
``(X)`` letter -> valid when it is the stored letter (then the stored score is used); no letter or
several letters -> invalid with the reason kept (never the reference's random fill-in); a letter that
differs from the stored one -> invalid and counted as a disagreement. Files written in logprob mode
(real numbers in ``lprobs``, the reply is the argmax token) are checked against the lprobs' argmax.
A file is imported whole or not at all (one transaction); a bad file gets one error naming the file
and the key. The run id hashes the label and the file's bytes, so importing twice changes nothing.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from analysis.errors import InputError, one_line
from analysis.importers.files import check_regular_file, decode, parse_json, read_bytes
from analysis.runs.store import Store
from analysis.methods.values.questionnaire import ANSWERS

SOURCE = "flowersteam/value_stability"
CHOICES = string.ascii_uppercase + string.ascii_lowercase  # the reference's option letters, in order
NO_LETTER = "no answer letter in reply; the reference substituted a random letter"
COT_REPLY_CHARS = 200  # a non-CoT reply is at most 10 tokens: a longer one means a chain-of-thought file
COT_RESPONSE_CHARS = 40  # the reference parses only this much after "Answer:"
_TEXT_MODE_LPROBS = (-100.0, -0.01)  # what the reference writes for parsed (or random) text answers
_LETTER = re.compile(r"\(([A-Za-z])\)")
_REFERENCE_ARGS = (
    "engine", "model_config_path", "data_dir", "experiment_name", "simulated_population_config",
    "simulated_conversation_theme", "simulated_conversation_n_messages", "interlocutors", "permute_options_seed",
    "eval_set", "cot",
)


@dataclass(frozen=True)
class InstrumentKey:
    """What the importer needs of a reference instrument: sizes, score scale, item -> value key (1-based)."""

    name: str
    subject: str
    n_items: int
    scores: tuple[int, ...]
    key: dict[str, tuple[int, ...]]
    list_sizes: tuple[int, ...] = ()

    @property
    def n_options(self) -> int:
        return len(self.scores)

    def value_of(self, item: int) -> str | None:
        return next((value for value, items in self.key.items() if item in items), None)

    def list_of(self, item: int) -> int | None:
        end = 0
        for list_no, size in enumerate(self.list_sizes, 1):
            end += size
            if item <= end:
                return list_no
        return None


# Item -> value keys of the reference's data_pvq/raw/values.json and data_svs/raw/values.json (public
# scoring keys: which item numbers measure which value; no item text).
PVQ40 = InstrumentKey("pvq-40", "pvq_auto", 40, (1, 2, 3, 4, 5, 6), {
    "Self-Direction": (1, 11, 22, 34), "Stimulation": (6, 15, 30), "Hedonism": (10, 26, 37),
    "Achievement": (4, 13, 24, 32), "Power": (2, 17, 39), "Security": (5, 14, 21, 31, 35),
    "Conformity": (7, 16, 28, 36), "Tradition": (9, 20, 25, 38), "Benevolence": (12, 18, 27, 33),
    "Universalism": (3, 8, 19, 23, 29, 40),
})
SVS = InstrumentKey("svs", "svs", 57, (-1, 0, 1, 2, 3, 4, 5, 6, 7), {
    "Self-Direction": (5, 16, 31, 41, 53), "Stimulation": (9, 25, 37), "Hedonism": (4, 50, 57),
    "Achievement": (34, 39, 43, 55), "Power": (3, 12, 27, 46), "Security": (8, 13, 15, 22, 56),
    "Conformity": (11, 20, 40, 47), "Tradition": (18, 32, 36, 44, 51), "Benevolence": (33, 45, 49, 52, 54),
    "Universalism": (1, 17, 24, 26, 29, 30, 35, 38),
}, list_sizes=(30, 27))
INSTRUMENTS = {k.subject: k for k in (PVQ40, SVS)}
_GENDERS = {"m": "male", "male": "male", "f": "female", "female": "female", "w": "female"}


@dataclass(frozen=True)
class ImportReport:
    """The outcome for one file: imported / already imported (same content) / failed with an error line."""

    path: str
    status: Literal["imported", "already imported", "failed"]
    run_id: str | None = None
    model: str | None = None
    context: str | None = None
    instrument: str | None = None
    n_personas: int = 0
    n_answers: int = 0
    n_invalid: int = 0
    n_no_letter: int = 0
    n_several: int = 0
    n_disagree: int = 0
    error: str | None = None

    def line(self) -> str:
        if self.status == "failed":
            return f"error: {self.error}"
        return (f"{self.status} {self.path} -> run {self.run_id} ({self.model}, {self.context}, {self.instrument}): "
                f"{self.n_personas} personas, {self.n_answers} answers, {self.n_invalid} invalid "
                f"({self.n_no_letter} without an answer letter, {self.n_several} with several, "
                f"{self.n_disagree} disagreeing with the stored letter)")

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ParsedResults:
    """One results.json turned into a run: ids, spec, plan and values_answers rows (not stored yet)."""

    report: ImportReport
    model_spec: dict[str, Any]
    plan: dict[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)


def parse_reply_letter(reply: object, n_options: int, *, cot: bool = False) -> tuple[str | None, str | None]:
    """The option letter a reply states as ``(X)``: ``(letter, None)``, or ``(None, reason)`` when none or several.

    Only letters of the question's options count and case matters, as in the reference (``(G)`` in a
    6-option question or ``(b)`` are not answers). ``cot``: parse only the text after the reply's single
    ``Answer:``, first 40 characters, as the reference does for chain-of-thought models.
    """
    if reply is None or not str(reply).strip():
        return None, "empty reply; the reference substituted a random letter"
    text = str(reply)
    if cot:
        tags = text.count("Answer:")
        if tags != 1:
            what = "no 'Answer:' tag" if tags == 0 else f"{tags} 'Answer:' tags"
            return None, f"{what} in a chain-of-thought reply; the reference substituted a random letter"
        text = text.split("Answer:", 1)[1][:COT_RESPONSE_CHARS]
    letters = CHOICES[:n_options]
    found = sorted({m for m in _LETTER.findall(text) if m in letters}, key=letters.index)
    if not found:
        return None, NO_LETTER
    if len(found) > 1:
        named = ", ".join(f"({x})" for x in found)
        return None, f"several answer letters in reply ({named}); the reference took the first in alphabetical order"
    return found[0], None


def context_label(path: Path) -> str:
    """The reference's context label: the results folder's name before ``_202`` (its timestamp)."""
    folder = path.parent.name
    return folder.split("_202")[0] or folder


# Reference labels that name a context RoleScope also has, so imported and native runs line up per context
# (the instrument column still tells PVQ from SVS). Topic, chess and grammar chunks are the reference's own.
NATIVE_CONTEXTS = {"chunk_no_conv": "no_conv", "chunk_svs_no_conv": "no_conv"}


class _Bad(Exception):
    """A malformed file: which key and why (turned into one InputError line naming the file)."""

    def __init__(self, key: str, reason: str):
        super().__init__(f"key '{key}': {reason}")


def _get(doc: dict[str, Any], key: str, kind: type, where: str | None = None) -> Any:
    where = where or key
    if key not in doc:
        raise _Bad(where, "missing")
    value = doc[key]
    if not isinstance(value, kind):
        raise _Bad(where, f"expected {'a list' if kind is list else 'an object'}, found {type(value).__name__}")
    return value


def _per_persona(doc: dict[str, Any], key: str, subject: str, n_personas: int, n_items: int,
                 required: bool = True) -> list[list[Any]] | None:
    """``doc[key][i][subject]`` for every persona, each a list of ``n_items`` entries."""
    if key not in doc and not required:
        return None
    entries = _get(doc, key, list)
    if len(entries) != n_personas:
        raise _Bad(key, f"{len(entries)} entries but simulated_population has {n_personas}")
    out = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _Bad(f"{key}[{i}]", f"expected an object {{subject: [...]}}, found {type(entry).__name__}")
        items = _get(entry, subject, list, f"{key}[{i}].{subject}")
        if len(items) != n_items:
            raise _Bad(f"{key}[{i}].{subject}", f"{len(items)} items; {INSTRUMENTS[subject].name} has {n_items}")
        out.append(items)
    return out


def _instrument(args: dict[str, Any], answers: list[Any]) -> InstrumentKey:
    data_dir = str(args.get("data_dir") or "")
    by_dir = SVS if "data_svs" in data_dir else PVQ40 if "data_pvq" in data_dir else None
    first = answers[0] if answers and isinstance(answers[0], dict) else {}
    subjects = [s for s in first if s in INSTRUMENTS]
    if by_dir is None:
        if len(subjects) != 1:
            raise _Bad("answers[0]", f"subjects {sorted(first)}; expected one of {sorted(INSTRUMENTS)}")
        return INSTRUMENTS[subjects[0]]
    if first and by_dir.subject not in first:
        raise _Bad("answers[0]", f"no '{by_dir.subject}' entry although data_dir '{data_dir}' means {by_dir.name}")
    return by_dir


def _persona(entry: object, i: int) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise _Bad(f"simulated_population[{i}]", f"expected an object {{name, description, gender}}, found {type(entry).__name__}")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _Bad(f"simulated_population[{i}].name", "missing or empty")
    gender = _GENDERS.get(str(entry.get("gender", "")).strip().lower())
    if gender is None:
        raise _Bad(f"simulated_population[{i}].gender", f"{entry.get('gender')!r} is not M/F")
    description = entry.get("description")
    return {"id": i, "name": name, "description": description if isinstance(description, str) else None, "gender": gender}


def _stored_answer(pair: object, inst: InstrumentKey, where: str) -> tuple[str, int]:
    if not isinstance(pair, (list, tuple)) or len(pair) != 2:
        raise _Bad(where, f"expected [letter, score], found {pair!r}")
    letter, score = pair
    if not isinstance(letter, str) or letter not in CHOICES[:inst.n_options]:
        raise _Bad(where, f"letter {letter!r} is not one of {CHOICES[:inst.n_options]}")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not float(score).is_integer() \
            or int(score) not in inst.scores:
        raise _Bad(where, f"score {score!r} is not one of {inst.name}'s {inst.scores[0]}..{inst.scores[-1]}")
    return letter, int(score)


def _logprob_row(lprobs: list[Any], n_options: int, where: str) -> list[float]:
    if not isinstance(lprobs, list) or len(lprobs) != n_options \
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in lprobs):
        raise _Bad(where, f"expected {n_options} numbers, found {str(lprobs)[:60]}")
    return [float(v) for v in lprobs]


def parse_results(path: Path, content: bytes) -> ParsedResults:
    """Validate one results.json and build its run (nothing is stored). Raises InputError naming file and key."""
    doc = parse_json(decode(content, path, ("utf-8",)), path)
    try:
        return _build(path, content, doc)
    except _Bad as exc:
        raise InputError(f"{path}: {exc}") from None


def _build(path: Path, content: bytes, doc: object) -> ParsedResults:
    if not isinstance(doc, dict):
        raise _Bad("(top level)", f"expected an object, found {type(doc).__name__}")
    args_key = "args" if "args" in doc or "params" not in doc else "params"
    if args_key not in doc:
        raise _Bad("args", "missing (and no 'params' either)")
    args = _get(doc, args_key, dict)
    engine = args.get("engine")
    if not isinstance(engine, str) or not engine.strip():
        raise _Bad(f"{args_key}.engine", "missing or empty (the model name)")
    if one_line(engine) != engine or engine != engine.strip():  # a newline would forge lines of the CLI's output
        raise _Bad(f"{args_key}.engine", "holds a newline, another control character or spaces at its ends")
    personas = [_persona(p, i) for i, p in enumerate(_get(doc, "simulated_population", list))]
    if not personas:
        raise _Bad("simulated_population", "empty")
    inst = _instrument(args, _get(doc, "answers", list))
    n, k = len(personas), inst.n_items
    answers = _per_persona(doc, "answers", inst.subject, n, k)
    generations = _per_persona(doc, "generations", inst.subject, n, k)
    lprobs = _per_persona(doc, "lprobs", inst.subject, n, k, required=False)
    for i, replies in enumerate(generations):
        for j, reply in enumerate(replies):
            if reply is not None and not isinstance(reply, str):
                raise _Bad(f"generations[{i}].{inst.subject}[{j}]", f"expected text, found {type(reply).__name__}")
    cot = bool(args.get("cot")) or any(len(r or "") > COT_REPLY_CHARS for replies in generations for r in replies)

    label = one_line(context_label(path))
    digest = hashlib.sha256(label.encode() + b"\0" + content).hexdigest()
    run_id = f"vs-{re.sub(r'[^A-Za-z0-9._-]+', '-', engine)}-{label}-{digest[:10]}"
    rows: list[dict[str, Any]] = []
    counts = {"n_invalid": 0, "n_no_letter": 0, "n_several": 0, "n_disagree": 0}
    modes: set[str] = set()
    for i, persona in enumerate(personas):
        for j in range(k):
            where = f"answers[{i}].{inst.subject}[{j}]"
            stored_letter, stored_score = _stored_answer(answers[i][j], inst, where)
            reply = generations[i][j]
            lp = _logprob_row(lprobs[i][j], inst.n_options, f"lprobs[{i}].{inst.subject}[{j}]") if lprobs else None
            if lp is not None and any(v not in _TEXT_MODE_LPROBS for v in lp):
                mode, letter, reason = "logprob", CHOICES[lp.index(max(lp))], None
            else:
                mode = "text"
                letter, reason = parse_reply_letter(reply, inst.n_options, cot=cot)
            if letter is not None and letter != stored_letter:
                source = "the stored lprobs' argmax is" if mode == "logprob" else "reply answers"
                letter, reason = None, f"{source} ({letter}) but the file stores {stored_letter}"
                counts["n_disagree"] += 1
            elif letter is None:
                counts["n_several" if reason.startswith("several answer") else "n_no_letter"] += 1
            counts["n_invalid"] += letter is None
            modes.add(mode)
            rows.append({
                "run_id": run_id, "model": engine, "persona_id": i, "persona": persona["name"], "gender": persona["gender"],
                "context": NATIVE_CONTEXTS.get(label, label), "instrument": inst.name, "item_id": str(j + 1),
                "value": inst.value_of(j + 1),
                "list_no": inst.list_of(j + 1), "stage": "item", "sample": 0, "letter": letter,
                "score": stored_score if letter is not None else None, "valid": int(letter is not None),
                "reason": reason, "mode": mode, "raw": reply,
            })

    report = ImportReport(str(path), "imported", run_id, engine, label, inst.name, n, len(rows), **counts)
    model_spec = {"name": engine, "backend": "imported", "model": engine, "base_url": None, "params": {},
                  "source": SOURCE, "model_config_path": args.get("model_config_path")}
    plan = {
        "method": "values", "imported": True, "source": SOURCE, "path": str(path.resolve()),
        "sha256": hashlib.sha256(content).hexdigest(), "context": NATIVE_CONTEXTS.get(label, label),
        "reference_context": label, "instrument": inst.name,
        "n_personas": n, "n_items": k, "answer_mode": "/".join(sorted(modes)), "cot": cot, "personas": personas,
        "reference_args": {a: args[a] for a in _REFERENCE_ARGS if a in args},
        # files pool only on the same personas, in the same order (persona_id is the position in this list): two
        # populations never pair by index (analysis.runs.comparable)
        "design": {"personas": [[p["name"], p.get("description"), p["gender"]] for p in personas]},
        "summary": {key.removeprefix("n_"): value for key, value in counts.items()} | {"answers": len(rows)},
    }
    return ParsedResults(report, model_spec, plan, rows)


def _expand(paths: Iterable[str | Path]) -> tuple[list[Path], list[ImportReport]]:
    """Files as given; folders -> every results.json below them. A path that is neither a folder nor a regular file
    (missing, a FIFO, a symlink loop, a broken link, a device) becomes a failed report saying which
    (``check_regular_file``)."""
    files: list[Path] = []
    failed: list[ImportReport] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(path.rglob("results.json"))
            if not found:
                failed.append(ImportReport(str(path), "failed", error=f"{path}: no results.json in this folder"))
        else:
            try:
                check_regular_file(path)
            except InputError as exc:
                failed.append(ImportReport(str(path), "failed", error=str(exc)))
                continue
            found = [path]
        for f in found:
            if f.resolve() not in seen:
                seen.add(f.resolve())
                files.append(f)
    return files, failed


def import_value_stability(store: Store, paths: Sequence[str | Path]) -> list[ImportReport]:
    """Import results.json files (or folders holding them): one run per good file; bad files get a failed report.

    Each file is stored in one transaction, so a bad file leaves nothing behind; good files are imported
    whatever the others do. A file already imported (same label and bytes) is reported, not duplicated.
    """
    parsed, reports = parse_value_stability(paths)
    return reports + store_parsed(store, parsed)


def parse_value_stability(paths: Sequence[str | Path]) -> tuple[list[ParsedResults], list[ImportReport]]:
    """Every results.json of ``paths`` parsed, nothing stored: the good ones, and a failed report per bad one."""
    files, reports = _expand(paths)
    parsed = []
    for path in files:
        try:
            parsed.append(parse_results(path, read_bytes(path)))
        except InputError as exc:
            reports.append(ImportReport(str(path), "failed", error=str(exc)))
    return parsed, reports


def store_parsed(store: Store, parsed: Sequence[ParsedResults]) -> list[ImportReport]:
    """Store parsed results, each in one transaction; a file already imported is reported, not duplicated."""
    reports = []
    for p in parsed:
        r = p.report
        created = store.import_run(r.run_id, "values", r.model, p.model_spec, p.plan, {ANSWERS.name: p.rows})
        reports.append(r if created else replace(r, status="already imported"))
    return reports
