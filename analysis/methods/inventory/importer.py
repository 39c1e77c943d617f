"""Import PersonaLLM's published BFI-44 answers (github hjian42/PersonaLLM, Jiang et al., "PersonaLLM: Investigating
the Ability of Large Language Models to Express Personality Traits", NAACL Findings 2024; MIT).

The source's layout, as its repository holds it::

    prompts/bfi_scores.txt                       the key: "trait<TAB>reverse<TAB>question", one line per item (44)
    prompts/bfi_prompt.txt                       the prompt; its "1 for …, 2 for …" line names the five options
    outputs/<model>/temp0.7/bfi/<type>_p<k>.json {"persona_encoding": type, "iteration": k, "annotation": reply}

A **type** is one of 32 Big Five persona types, five four-letter codes joined by "_" (``extr``/``intr``,
``agre``/``anta``, ``cons``/``unco``, ``neur``/``emot``, ``open``/``clos``): the persona is told it is, e.g.,
extroverted, antagonistic, conscientious, emotionally stable and open to experience. ``_p1`` … ``_p10`` are the source's
ten iterations of each type (its ``iteration`` field): ten administrations of the same prompt at temperature 0.7.

What RoleScope makes of it:

- the **inventory** BFI-44 is built at import time from the key file read from the path (items 1..44 in the key's
  order, labelled (a)..(ar) as the prompt lists them; domain from the trait; reverse-keyed where the key says R); it is
  never bundled. With ``text=False`` the item texts are left out and items are named by number and label only;
- each **model** folder becomes one run of that model (model name as the source writes it), status ``imported``;
- each type × iteration is one **respondent** (persona id ``<type>-p<k>``): the authors score each file on its own, and
  their ``scores/*_all_scores.csv`` has one row per type, iteration and trait. Its shaping **targets** are the type's
  poles: level 7 on a domain for the high pole, 3 for the low one (the paper's nine-level scale, where an adjective
  without a qualifier is 7 or 3; only the order of the levels enters the shaping statistics);
- the source asks all 44 items in **one prompt** and the model answers them in one reply: the plan's design records
  ``administration: one prompt, all items``, so these runs are their own configuration and never pool with
  item-by-item runs. Each item's line of the reply (``(c) 4``) is stored as that item's answer. The line's label says
  which item it answers (never its position). A label given twice: the later line counts, as the authors' own scoring
  (the 44 lines after the first ``(a)``) also takes it. An item without a line, or whose line holds no number 1..5, is
  invalid with its reason;
- a file that is a Git LFS pointer (the repository keeps llama-2's answers in LFS) holds no answers: it is skipped and
  counted, with the reason; a folder where every file is one imports nothing for that model.

Every file is read and checked before anything is stored (a bad file: one ``InputError`` naming it, nothing stored);
a run's id hashes its files' bytes and the key, so importing twice stores nothing twice.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import InputError, one_line
from analysis.importers.files import decode, parse_json, read_bytes
from analysis.methods.inventory import BIG_FIVE
from analysis.methods.inventory.inventory import Inventory, Item
from analysis.methods.inventory.personas import Persona
from analysis.methods.inventory.session import ANSWERS, json_targets
from analysis.runs.store import Store
from analysis.samples import numbers_only_source

SOURCE = "hjian42/PersonaLLM"
KIND = "persona-llm"
CITATION = ("Jiang, Zhang, Cao, Breazeal, Roy & Kabbara (2024), PersonaLLM: Investigating the Ability of Large Language "
            "Models to Express Personality Traits, Findings of NAACL 2024; github hjian42/PersonaLLM (MIT)")
IMPORT_COMMAND = "python -m analysis import persona-llm PATH  (PATH: a clone of github hjian42/PersonaLLM)"
ADMINISTRATION = "one prompt, all items (the model answers every item in one reply)"
N_ITEMS = 44
N_OPTIONS = 5
HIGH, LOW = 7, 3
#: The source's type codes: per domain (high pole, low pole) and the adjectives its prompt gives the persona.
POLES: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "E": (("extr", "extroverted"), ("intr", "introverted")),
    "A": (("agre", "agreeable"), ("anta", "antagonistic")),
    "C": (("cons", "conscientious"), ("unco", "unconscientious")),
    "N": (("neur", "neurotic"), ("emot", "emotionally stable")),
    "O": (("open", "open to experience"), ("clos", "closed to experience")),
}
TYPE_ORDER = ("E", "A", "C", "N", "O")
_TRAITS = {name.lower(): code for code, name in BIG_FIVE.items()}
_FILE = re.compile(r"^(?P<type>[a-z]{4}(?:_[a-z]{4}){4})_p(?P<k>\d+)\.json$")
_LINE = re.compile(r"^\s*\(([a-z]{1,2})\)\s*(.*?)\s*$")
_OPTION = re.compile(r"(\d)\s+for\s+([^,.\n]+?)\s*(?:,|\.|$)")
LFS_MARK = b"version https://git-lfs.github.com/spec/"


def item_labels(n: int = N_ITEMS) -> list[str]:
    """The prompt's item labels in order: a..z, then aa, ab, … (the source's ``iter_all_strings``)."""
    letters = ("".join(t) for size in itertools.count(1) for t in itertools.product(string.ascii_lowercase, repeat=size))
    return list(itertools.islice(letters, n))


def type_targets(code: str) -> dict[str, int]:
    """A type code's shaping targets: domain -> 7 (high pole) or 3 (low pole); InputError for an unknown code."""
    parts = code.split("_")
    if len(parts) != 5:
        raise InputError(f"persona type '{code}': expected five codes joined by '_'")
    out = {}
    for domain, part in zip(TYPE_ORDER, parts):
        (high, _), (low, _) = POLES[domain]
        if part not in (high, low):
            raise InputError(f"persona type '{code}': '{part}' is not {high} or {low} ({BIG_FIVE[domain]})")
        out[domain] = HIGH if part == high else LOW
    return out


def type_description(code: str) -> str:
    """The persona as the type's adjectives (the design, in RoleScope's words): "PersonaLLM type extr_…: extroverted,
    agreeable, …"."""
    targets = type_targets(code)
    words = [POLES[d][0 if targets[d] == HIGH else 1][1] for d in TYPE_ORDER]
    return f"PersonaLLM persona type {code}: {', '.join(words[:-1])} and {words[-1]}"


def find_root(path: Path) -> Path:
    """The source's root: the folder holding ``prompts/bfi_scores.txt`` (``path`` itself or one of its parents)."""
    path = path.expanduser()
    if not path.exists():
        raise InputError(f"{path}: file not found")
    for folder in (path, *path.parents) if path.is_dir() else path.parents:
        if (folder / "prompts" / "bfi_scores.txt").is_file():
            return folder
    raise InputError(f"{path}: not a PersonaLLM folder (no prompts/bfi_scores.txt here or above; give a clone of "
                     "github hjian42/PersonaLLM)")


def read_options(root: Path) -> list[str]:
    """The five option labels from the prompt's "1 for …, 2 for …" line; "1".."5" when the prompt is absent."""
    prompt = root / "prompts" / "bfi_prompt.txt"
    if not prompt.is_file():
        return [str(k) for k in range(1, N_OPTIONS + 1)]
    found = dict(_OPTION.findall(decode(read_bytes(prompt), prompt)))
    labels = [found.get(str(k), "").strip() for k in range(1, N_OPTIONS + 1)]
    return labels if all(labels) else [str(k) for k in range(1, N_OPTIONS + 1)]


def build_inventory(root: Path, *, text: bool = True) -> Inventory:
    """BFI-44 from the source's key file (module docstring); ``text=False``: item texts left out."""
    key = root / "prompts" / "bfi_scores.txt"
    lines = [line for line in decode(read_bytes(key), key).splitlines() if line.strip()]
    if not lines or [c.strip().lower() for c in lines[0].split("\t")] != ["trait", "reverse", "question"]:
        raise InputError(f"{key}: line 1: expected the header 'trait<TAB>reverse<TAB>question'")
    labels = item_labels(len(lines) - 1)
    items = []
    for n, (line, label) in enumerate(zip(lines[1:], labels), 1):
        cells = line.split("\t")
        if len(cells) != 3 or cells[0].strip().lower() not in _TRAITS or cells[1].strip() not in ("N", "R"):
            raise InputError(f"{key}: line {n + 1}: expected '<Big Five trait><TAB>N or R<TAB>item text'")
        item_text = f"({label}) {cells[2].strip()}" if text else f"BFI-44 item {n} ({label})"
        items.append(Item(id=str(n), text=item_text, domain=_TRAITS[cells[0].strip().lower()],
                          reverse=cells[1].strip() == "R"))
    if len(items) != N_ITEMS:
        raise InputError(f"{key}: {len(items)} items; the BFI-44 key has {N_ITEMS}")
    return Inventory(name="bfi-44", title="BFI-44 (as PersonaLLM asks it)", options=read_options(root),
                     domains={d: BIG_FIVE[d] for d in TYPE_ORDER}, items=items,
                     source="Big Five Inventory (John & Srivastava 1999), keyed from PersonaLLM's prompts/bfi_scores.txt")


@dataclass(frozen=True)
class ReadSheet:
    """One reply read: item label -> (number or None, the item's line or None, why invalid or None)."""

    answers: dict[str, tuple[int | None, str | None, str | None]]


def read_reply(reply: str, labels: Sequence[str], n_options: int = N_OPTIONS) -> ReadSheet:
    """Each item's line of a reply that answers the items as ``(label) number`` lines (module docstring)."""
    lines: dict[str, str] = {}
    for line in reply.splitlines():
        m = _LINE.match(line)
        if m and m.group(1) in labels:
            lines[m.group(1)] = line.strip()  # a label given twice: the later line counts
    out: dict[str, tuple[int | None, str | None, str | None]] = {}
    for label in labels:
        line = lines.get(label)
        if line is None:
            out[label] = (None, None, f"no line for item ({label}) in the reply")
            continue
        value = _LINE.match(line).group(2)  # type: ignore[union-attr]
        number = re.fullmatch(r"(\d+)\.?", value)
        if number is None:
            out[label] = (None, line, f"item ({label}): '{value[:40]}' is not a number 1..{n_options}")
        elif not 1 <= int(number.group(1)) <= n_options:
            out[label] = (None, line, f"item ({label}): {number.group(1)} is outside 1..{n_options}")
        else:
            out[label] = (int(number.group(1)), line, None)
    return ReadSheet(out)


@dataclass
class ModelImport:
    """One model folder read: its run (id, plan, rows) or nothing, and the files skipped with why."""

    model: str
    folder: Path
    files: int = 0
    run_id: str | None = None
    plan: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        reasons: dict[str, int] = {}
        for _, why in self.skipped:
            reasons[why] = reasons.get(why, 0) + 1
        return {"model": self.model, "folder": str(self.folder), "files": self.files, "run_id": self.run_id,
                "sheets": len({r["persona_id"] for r in self.rows}), "answers": len(self.rows),
                "invalid": sum(1 for r in self.rows if not r["valid"]), "skipped": len(self.skipped),
                "skipped_why": reasons}


def model_folders(root: Path) -> list[Path]:
    """``outputs/<model>/**/bfi`` folders under the source's root, one per model."""
    outputs = root / "outputs"
    if not outputs.is_dir():
        raise InputError(f"{root}: no outputs/ folder (the PersonaLLM answers live in outputs/<model>/temp0.7/bfi/)")
    found = sorted(p for p in outputs.rglob("bfi") if p.is_dir())
    if not found:
        raise InputError(f"{outputs}: no bfi/ answer folder below it")
    return found


def _model_name(root: Path, folder: Path) -> str:
    return one_line(folder.relative_to(root / "outputs").parts[0]) or "unknown"


def read_model(root: Path, folder: Path, inventory: Inventory, *, text: bool = True) -> ModelImport:
    """One model's answer files -> the rows of its run (module docstring); a malformed file raises InputError."""
    model = _model_name(root, folder)
    result = ModelImport(model, folder)
    labels = item_labels(len(inventory.items))
    digest = hashlib.sha256()
    digest.update(inventory.model_dump_json().encode())
    personas: list[Persona] = []
    files = sorted(folder.glob("*.json"), key=lambda p: p.name)
    for path in files:
        result.files += 1
        m = _FILE.match(path.name)
        if m is None:
            result.skipped.append((path.name, "not a <type>_p<k>.json answer file"))
            continue
        content = read_bytes(path)
        if content.startswith(LFS_MARK):
            result.skipped.append((path.name, "a Git LFS pointer, not the answers (the repository keeps them in LFS: "
                                              "`git lfs pull` in the clone fetches them)"))
            continue
        doc = parse_json(decode(content, path), path)
        if not isinstance(doc, dict) or not isinstance(doc.get("annotation"), str):
            raise InputError(f"{path}: expected an object with a text 'annotation' (the model's reply)")
        code, iteration = m.group("type"), int(m.group("k"))
        if doc.get("persona_encoding", code) != code or str(doc.get("iteration", iteration)) != str(iteration):
            raise InputError(f"{path}: its persona_encoding/iteration ({doc.get('persona_encoding')}, "
                             f"{doc.get('iteration')}) disagree with the file name")
        try:
            targets = type_targets(code)
        except InputError as exc:
            raise InputError(f"{path}: {exc}") from None
        digest.update(path.name.encode() + b"\0" + content)
        pid = f"{code}-p{iteration}"
        persona = Persona(id=pid, description=type_description(code), targets=targets)
        personas.append(persona)
        sheet = read_reply(doc["annotation"], labels, inventory.n_options)
        for seq, (item, label) in enumerate(zip(inventory.items, labels)):
            number, line, why = sheet.answers[label]
            row = {"model": model, "inventory": inventory.name, "persona_id": pid, "persona": persona.description,
                   "sex": persona.sex, "age": persona.age, "targets": json_targets(targets), "order_mode": "ascending",
                   "seq": seq, "item_id": item.id, "domain": item.domain, "facet": None, "reverse": int(item.reverse),
                   "item": item.text, "mode": "text", "raw": line if text else None, "valid": int(number is not None),
                   "reason": why, "truncated": None, "source": KIND if text else numbers_only_source(KIND),
                   "administration": iteration, "persona_type": code}
            if number is not None:
                row |= {"number": number, "option_index": number - 1, "option": inventory.options[number - 1],
                        "score": float(number), "keyed": float(inventory.keyed(item, number))}
            result.rows.append(row)
    if not personas:
        return result
    result.run_id = f"persona-llm-{re.sub(r'[^A-Za-z0-9._-]+', '-', model)}-{digest.hexdigest()[:10]}"
    for row in result.rows:
        row["run_id"] = result.run_id
    invalid = sum(1 for r in result.rows if not r["valid"])
    result.plan = {
        "method": "inventory", "imported": True, "source": SOURCE, "citation": CITATION, "kind": KIND,
        "path": str(folder.resolve()) if text else None, "text_bundled": text,
        "text_note": None if text else f"the replies' text is not bundled; the full source: {IMPORT_COMMAND}",
        "design": {"inventory": inventory.name, "administration": ADMINISTRATION, "personas": "persona-llm-32-types",
                   "temperature": 0.7, "orders": ["ascending"]},
        "inventory": inventory.model_dump(), "personas": [p.model_dump() for p in personas],
        "orders": ["ascending"], "answer_mode": "text", "administration": ADMINISTRATION,
        "params": {"temperature": 0.7}, "shaping": True,
        "summary": {"sheets": len(personas), "answers": len(result.rows), "invalid": invalid,
                    "skipped_files": len(result.skipped)},
    }
    return result


def parse_source(paths: Sequence[str | Path], *, text: bool = True) -> list[ModelImport]:
    """Every model of every PersonaLLM folder in ``paths`` read and checked, nothing stored."""
    out: list[ModelImport] = []
    for raw in paths:
        root = find_root(Path(raw))
        inventory = build_inventory(root, text=text)
        out.extend(read_model(root, folder, inventory, text=text) for folder in model_folders(root))
    if not any(m.run_id for m in out):
        skipped = sum(len(m.skipped) for m in out)
        raise InputError(f"{', '.join(map(str, paths))}: no PersonaLLM answers to import ({skipped} files skipped: "
                         + "; ".join(sorted({why for m in out for _, why in m.skipped}))[:300] + ")")
    return out


def store_parsed(store: Store, parsed: Sequence[ModelImport]) -> list[str]:
    """Each model's run in its own transaction; the run ids (already imported ones included)."""
    ids = []
    for m in parsed:
        if m.run_id is None:
            continue
        spec = {"name": m.model, "backend": "imported", "model": m.model, "base_url": None,
                "params": {"temperature": 0.7}, "source": SOURCE}
        store.import_run(m.run_id, "inventory", m.model, spec, m.plan, {ANSWERS.name: m.rows})
        ids.append(m.run_id)
    return ids


def import_source(store: Store, paths: Sequence[str | Path], *, text: bool = True) -> list[str]:
    """Import PersonaLLM folders (module docstring): everything read first; a bad file stores nothing."""
    return store_parsed(store, parse_source(paths, text=text))


def load_bundled(store: Store, path: Path) -> list[str]:
    """``BundledImport.load``: the PersonaLLM records under ``path``, numbers only."""
    return import_source(store, [path], text=False)
