"""Import Lee et al.'s role-played PVQ-RR answers (github brucewlee/values @ fd32fd0; Bruce W. Lee, Yeongheon Lee &
Hyunsoo Cho 2024, "Discovering Latent Human Values: LLMs Show Consistent Value Bias During Role-play"; MIT).

The source's layout, as its repository holds it::

    benchmark/questions.jsonl                       the 57 PVQ-RR items: {statement, options (6), question_number (1-based)}
    runs/run_<n>_<seed>_<model>/prompts-response.jsonl
        one line per persona × item: {prompt, question_number, persona: {description, sex, age, …},
                                      response (the model's raw reply), response_parsed (the authors' letter A-F, or N)}

``run_25_<seed>`` holds 25 personas (seeds 1, 11, 21: 75 personas in all, the same for every model); ``run_5_<seed>``
asks the first 5 personas of the same seed again (15 in all), every item a new request as before.

What RoleScope makes of it (docs/imports.md, "Lee et al. values"):

- each **model** becomes one values run on the **PVQ-RR** (57 items, options A-F scored 1-6 in the order the prompt
  lists them, "Not like you at all" .. "Very much like you"), with two **contexts**: ``first_asking`` (the 75 personas
  of the ``run_25`` files) and ``second_asking`` (the 15 personas asked again): the Stability page's re-test;
- personas are numbered 0..74 by seed and position; a re-asked persona is matched to its first asking by its
  description (never by position), and a re-test persona missing from the first asking is an input error;
- items are keyed to the 10 basic values with the **authors' key** (``score.py``'s ``values_mapping_10``: humility's
  items 7, 38, 54 under Tradition, face's 9, 24, 49 under no value; ``AUTHORS_KEY``); their centring by the persona's
  mean over every answered item (MRAT) is RoleScope's ``ipsatised`` score;
- each raw reply is read by RoleScope's own values reader (``parse_option_text`` on the prompt's six labels): the
  answer stored is RoleScope's, never the authors' letter; the authors' letter is compared with it per answer
  (``reader_agreement``: both valid and equal, different, only one side readable, both unreadable; examples of each),
  recorded in the run's plan, where the report and the import's summary read it.

With ``text=False`` (the bundled demo) the replies, prompts and persona descriptions are left out: personas are named
by seed, position, sex and age only. Every file is read and checked before anything is stored (a bad file: one
``InputError`` naming it and the line); a run's id hashes its files' bytes, so importing twice stores nothing twice.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import InputError, one_line
from analysis.importers.files import decode, parse_json, read_bytes
from analysis.llm.options import parse_option_text
from analysis.methods.values.questionnaire import ANSWERS
from analysis.runs.store import Store

SOURCE = "brucewlee/values"
KIND = "lee-values"
CITATION = ("Lee, Lee & Cho (2024), Discovering Latent Human Values: LLMs Show Consistent Value Bias During Role-play; "
            "github brucewlee/values @ fd32fd0 (MIT)")
IMPORT_COMMAND = "python -m analysis import lee-values PATH  (PATH: a clone of github brucewlee/values)"
INSTRUMENT = "pvq-rr"
N_ITEMS = 57
LETTERS = "ABCDEF"
FIRST, SECOND = "first_asking", "second_asking"
#: The authors' item -> value key (``score.py``, ``values_mapping_10``; 1-based item numbers): 54 of the 57 items.
AUTHORS_KEY: dict[str, tuple[int, ...]] = {
    "Self-Direction": (1, 23, 39, 16, 30, 56), "Tradition": (18, 33, 40, 7, 38, 54),
    "Conformity": (15, 31, 42, 4, 22, 51), "Stimulation": (10, 28, 43), "Hedonism": (3, 36, 46),
    "Achievement": (17, 32, 48), "Universalism": (8, 21, 45, 5, 37, 52, 14, 34, 57),
    "Power": (6, 29, 41, 12, 20, 44), "Benevolence": (11, 25, 47, 19, 27, 55), "Security": (13, 26, 53, 2, 35, 50),
}
ITEM_VALUE = {item: value for value, items in AUTHORS_KEY.items() for item in items}
#: Model names as RoleScope shows them: the source's Bedrock id of Claude without its provider prefix and version tag.
MODEL_NAMES = {"anthropic.claude-3-sonnet-20240229-v1:0": "claude-3-sonnet-20240229"}
AGREEMENT = ("both_equal", "both_different", "only_source", "only_reader", "both_invalid")
AGREEMENT_LABELS = {"both_equal": "both read, same letter", "both_different": "both read, different letters",
                    "only_source": "only the authors' letter (RoleScope's reader: unreadable)",
                    "only_reader": "only RoleScope's reader (the authors' letter: N)",
                    "both_invalid": "unreadable to both"}
EXAMPLES = 5
_RUN = re.compile(r"^run_(?P<n>\d+)_(?P<seed>\d+)_(?P<model>.+)$")
_OPTION_LINE = re.compile(r"^\s*([A-F])\.\s*(.+?)\s*$")


@dataclass
class LeeAnswer:
    """One line of a source file, read."""

    persona_key: str
    item: int
    letter: str | None
    reason: str | None
    source_letter: str
    reply: str


@dataclass
class ModelImport:
    """One model's files read: its run (id, plan, rows) and how RoleScope's reading compares with the authors'."""

    model: str
    source_model: str
    files: list[str] = field(default_factory=list)
    run_id: str = ""
    plan: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        agree = self.plan.get("reader_agreement") or {}
        return {"model": self.model, "run_id": self.run_id, "files": len(self.files),
                "personas": self.plan.get("summary", {}).get("personas"), "answers": len(self.rows),
                "invalid": sum(1 for r in self.rows if not r["valid"]),
                "reader_agreement": {k: v["n"] for k, v in agree.items()}}

    def line(self) -> str:
        r = self.report()
        agree = ", ".join(f"{AGREEMENT_LABELS[k]} {n}" for k, n in r["reader_agreement"].items())
        return (f"{self.model}: run {self.run_id}: {r['personas']} personas, {r['answers']} answers, {r['invalid']} "
                f"unreadable to RoleScope's reader; against the authors' letters: {agree}")


def find_root(path: Path) -> Path:
    """The source's root: the folder holding ``runs/`` and ``benchmark/questions.jsonl`` (``path`` or a parent)."""
    path = path.expanduser()
    if not path.exists():
        raise InputError(f"{path}: file not found")
    for folder in (path, *path.parents) if path.is_dir() else path.parents:
        if (folder / "runs").is_dir() and (folder / "benchmark" / "questions.jsonl").is_file():
            return folder
    raise InputError(f"{path}: not a Lee et al. values folder (no runs/ and benchmark/questions.jsonl here or above; "
                     "give a clone of github brucewlee/values)")


def _jsonl(path: Path) -> list[tuple[int, Any]]:
    text = decode(read_bytes(path), path)
    return [(n, parse_json(line, Path(f"{path}: line {n}"))) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def read_items(root: Path) -> dict[int, dict[str, Any]]:
    """question_number -> {statement, options} from ``benchmark/questions.jsonl``; the 57 items, 6 options each."""
    path = root / "benchmark" / "questions.jsonl"
    items: dict[int, dict[str, Any]] = {}
    for n, doc in _jsonl(path):
        q = doc.get("question_number") if isinstance(doc, dict) else None
        options = doc.get("options") if isinstance(doc, dict) else None
        if not isinstance(q, int) or not isinstance(options, list) or len(options) != len(LETTERS):
            raise InputError(f"{path}: line {n}: expected {{statement, options: 6 labels, question_number}}")
        items[q] = {"statement": doc.get("statement"), "options": [str(o) for o in options]}
    if sorted(items) != list(range(1, N_ITEMS + 1)):
        raise InputError(f"{path}: items {min(items, default=0)}..{max(items, default=0)} ({len(items)}); the PVQ-RR has "
                         f"items 1..{N_ITEMS}")
    return items


def prompt_labels(prompt: str) -> list[str]:
    """The option labels a prompt shows, in letter order (its "A. …" .. "F. …" lines)."""
    found = {}
    for line in prompt.splitlines():
        m = _OPTION_LINE.match(line)
        if m and m.group(1) not in found:
            found[m.group(1)] = m.group(2)
    return [found[x] for x in LETTERS if x in found]


def read_answer(doc: Any, where: str, items: dict[int, dict[str, Any]]) -> LeeAnswer:
    """One source line -> RoleScope's reading of its reply beside the authors' letter (InputError when malformed)."""
    if not isinstance(doc, dict):
        raise InputError(f"{where}: expected an object")
    q, reply, parsed, persona = (doc.get(k) for k in ("question_number", "response", "response_parsed", "persona"))
    if not isinstance(q, int) or q not in items:
        raise InputError(f"{where}: question_number {q!r} is not an item 1..{N_ITEMS}")
    if not isinstance(reply, str) or not isinstance(parsed, str):
        raise InputError(f"{where}: expected a text 'response' and 'response_parsed'")
    if not isinstance(persona, dict) or not isinstance(persona.get("description"), str):
        raise InputError(f"{where}: expected a 'persona' with a text 'description'")
    labels = prompt_labels(str(doc.get("prompt") or "")) or items[q]["options"]
    if [label.strip().lower() for label in labels] != [o.strip().lower() for o in items[q]["options"]]:
        raise InputError(f"{where}: the prompt's options {labels} are not the item's {items[q]['options']} in order")
    read = parse_option_text(reply, labels)
    letter = LETTERS[read.index] if read.valid else None
    return LeeAnswer(persona["description"], q, letter, None if read.valid else (read.reason or "unreadable"),
                     parsed.strip(), reply)


def agreement_class(reader: str | None, source: str) -> str:
    """One answer's ``AGREEMENT`` class: RoleScope's letter against the authors' (``N``: the authors could not read)."""
    source_ok = source in LETTERS
    if reader is not None and source_ok:
        return "both_equal" if reader == source else "both_different"
    if source_ok:
        return "only_source"
    return "only_reader" if reader is not None else "both_invalid"


def reader_agreement(answers: Sequence[tuple[str, LeeAnswer]], *, text: bool) -> dict[str, Any]:
    """Per class: ``{n, label, examples: [{persona, item, source, reader, reply}], pairs: [["E→F", count], …]}`` over
    ``(persona name, answer)`` pairs; replies are given in the examples only with ``text`` (numbers-only: none)."""
    out: dict[str, Any] = {}
    classes = [(agreement_class(a.letter, a.source_letter), name, a) for name, a in answers]
    for cls in AGREEMENT:
        hits = [(name, a) for c, name, a in classes if c == cls]
        pairs = Counter(f"{a.source_letter}→{a.letter or '—'}" for _, a in hits)
        out[cls] = {"n": len(hits), "label": AGREEMENT_LABELS[cls],
                    # a list, most frequent first (a stored plan's objects are key-sorted)
                    "pairs": [[pair, n] for pair, n in pairs.most_common()] if cls != "both_equal" else [],
                    "examples": [] if cls == "both_equal" else [
                        {"persona": name, "item": a.item, "source": a.source_letter, "reader": a.letter,
                         "reason": a.reason, "reply": a.reply[:300] if text else None} for name, a in hits[:EXAMPLES]]}
    return out


def _persona_fields(persona: dict[str, Any]) -> tuple[str, int | None]:
    sex = str(persona.get("sex") or "").strip().lower()
    gender = {"male": "male", "female": "female"}.get(sex)
    if gender is None:
        raise InputError(f"persona sex {persona.get('sex')!r}: expected Male or Female")
    age = persona.get("age")
    return gender, age if isinstance(age, int) else None


def model_files(root: Path) -> dict[str, dict[tuple[int, int], Path]]:
    """source model name -> {(personas per file, seed): prompts-response.jsonl}."""
    out: dict[str, dict[tuple[int, int], Path]] = {}
    for folder in sorted((root / "runs").iterdir()):
        m = _RUN.match(folder.name)
        path = folder / "prompts-response.jsonl"
        if m and path.is_file():
            out.setdefault(m.group("model"), {})[(int(m.group("n")), int(m.group("seed")))] = path
    if not out:
        raise InputError(f"{root / 'runs'}: no run_<n>_<seed>_<model>/prompts-response.jsonl below it")
    return out


def read_model(source_model: str, files: dict[tuple[int, int], Path], items: dict[int, dict[str, Any]], *,
               text: bool = True) -> ModelImport:
    """One model's files -> its run (module docstring). The largest persona count per seed is the first asking; a
    smaller one of the same seed, its re-test."""
    model = MODEL_NAMES.get(source_model, one_line(source_model))
    result = ModelImport(model, source_model)
    digest = hashlib.sha256(repr(sorted(AUTHORS_KEY.items())).encode())
    seeds = sorted({seed for _, seed in files})
    personas: dict[str, dict[str, Any]] = {}  # description -> persona entry
    read: list[tuple[str, str, LeeAnswer]] = []  # (context, persona key, answer)
    for seed in seeds:
        sizes = sorted((n for n, s in files if s == seed), reverse=True)
        for rank, n in enumerate(sizes[:2]):
            path = files[(n, seed)]
            result.files.append(str(path))
            content = read_bytes(path)
            digest.update(path.parent.name.encode() + b"\0" + content)
            context = FIRST if rank == 0 else SECOND
            seen_here: dict[str, int] = {}
            for line, doc in _jsonl(path):
                answer = read_answer(doc, f"{path}: line {line}", items)
                key = answer.persona_key
                if key not in seen_here:
                    seen_here[key] = len(seen_here)
                if context == FIRST and key not in personas:
                    gender, age = _persona_fields(doc["persona"])
                    pid = len(personas)
                    name = f"Lee et al. persona {seed}-{seen_here[key] + 1} ({gender}, {age})"
                    personas[key] = {"id": pid, "name": name, "gender": gender, "age": age, "seed": seed,
                                     "description": key if text else None}
                elif context == SECOND and key not in personas:
                    raise InputError(f"{path}: line {line}: a re-asked persona that the first asking "
                                     f"(run_{sizes[0]}_{seed}) does not hold")
                read.append((context, key, answer))
    if not personas:
        raise InputError(f"{source_model}: no first asking (run_25_<seed>) among its files")
    counts = Counter((c, k, a.item) for c, k, a in read)
    twice = [k for k, v in counts.items() if v > 1]
    if twice:
        raise InputError(f"{source_model}: persona × item answered twice in one asking ({len(twice)} cases)")
    result.run_id = f"lee-values-{re.sub(r'[^A-Za-z0-9._-]+', '-', model)}-{digest.hexdigest()[:10]}"
    for context, key, a in read:
        p = personas[key]
        row = {"run_id": result.run_id, "model": model, "persona_id": p["id"], "persona": p["name"],
               "gender": p["gender"], "context": context, "instrument": INSTRUMENT, "item_id": str(a.item),
               "value": ITEM_VALUE.get(a.item), "list_no": None, "stage": "item", "sample": 0, "perm_seed": None,
               "option_order": None, "letter": a.letter, "valid": int(a.letter is not None), "reason": a.reason,
               "mode": "text", "logprob": None, "raw": a.reply if text else None, "cache_key": None,
               "option_label": items[a.item]["options"][LETTERS.index(a.letter)] if a.letter else None,
               "score": float(LETTERS.index(a.letter) + 1) if a.letter else None}
        result.rows.append(row)
    agreement = reader_agreement([(personas[k]["name"], a) for _, k, a in read], text=text)
    retest = sorted({personas[k]["id"] for c, k, _ in read if c == SECOND})
    first = {(k, a.item): a.reply for c, k, a in read if c == FIRST}
    again = [a.reply == first.get((k, a.item)) for c, k, a in read if c == SECOND]
    result.plan = {
        "method": "values", "imported": True, "source": SOURCE, "kind": KIND, "citation": CITATION,
        "source_model": source_model, "text_bundled": text,
        "text_note": None if text else f"the replies' text is not bundled; the full source: {IMPORT_COMMAND}",
        "path": str(Path(result.files[0]).parents[2].resolve()) if text else None,
        "instrument": INSTRUMENT, "contexts": [FIRST, SECOND] if retest else [FIRST],
        "key": "the authors' (score.py values_mapping_10): humility under Tradition, face unkeyed",
        "design": {"instrument": INSTRUMENT, "personas": f"lee-values-{len(personas)}", "key": "lee-2024-10-values",
                   "answers": "RoleScope's values reader on the raw replies"},
        "personas": [{k: v for k, v in p.items()} for p in personas.values()],
        "retest_personas": retest,
        "reader_agreement": agreement,
        "summary": {"personas": len(personas), "retest_personas": len(retest), "answers": len(result.rows),
                    "invalid": sum(1 for r in result.rows if not r["valid"])},
        # a re-test whose replies are the first asking's, byte for byte, measures the endpoint's determinism (or a
        # cache), not how stable the persona's values are: the report says so beside the stability figure
        "retest_identical_replies": {"n": sum(again), "of": len(again)},
    }
    return result


def parse_source(paths: Sequence[str | Path], *, text: bool = True) -> list[ModelImport]:
    """Every model of every source folder in ``paths`` read and checked, nothing stored."""
    out: list[ModelImport] = []
    for raw in paths:
        root = find_root(Path(raw))
        items = read_items(root)
        out.extend(read_model(model, files, items, text=text) for model, files in model_files(root).items())
    return out


def store_parsed(store: Store, parsed: Sequence[ModelImport]) -> list[tuple[ModelImport, bool]]:
    """Each model's run in its own transaction: (import, True when stored now, False when already imported)."""
    out = []
    for m in parsed:
        spec = {"name": m.model, "backend": "imported", "model": m.model, "base_url": None, "params": {},
                "source": SOURCE, "source_model": m.source_model}
        out.append((m, store.import_run(m.run_id, "values", m.model, spec, m.plan, {ANSWERS.name: m.rows})))
    return out


def import_source(store: Store, paths: Sequence[str | Path], *, text: bool = True) -> list[str]:
    """Import Lee et al. folders (module docstring): everything read first; a bad file stores nothing."""
    return [m.run_id for m, _ in store_parsed(store, parse_source(paths, text=text))]


def load_bundled(store: Store, path: Path) -> list[str]:
    """``BundledImport.load``: the source under ``path``, numbers only."""
    return import_source(store, [path], text=False)
