"""Import the published trust-game answers of Xie et al. 2024 (github camel-ai/agent-trust @ a3f14f0, Apache-2.0):
``python -m analysis import agent-trust PATH``.

The source's layout: ``agent_trust/No repeated res/<condition>_res/<model>_res/Trust_Game_<model>.json`` holding
``{"res": [amount per persona], "dialog": [[index, persona prompt, full reply], ...], "origin_prompt": [game name,
extraction instruction, game prompt]}``. The condition folder ``res`` is the base condition ("base"); the others
(``COT``, ``LLM_player``, ``more_trust_2``, ``male``, ``African American`` ...) are named by their folder.

Each ``Trust_Game_<model>.json`` becomes ONE trust run of that model (the name as the file writes it, e.g. ``gpt-4``):
status ``imported``, level population, the condition in the plan and in its comparability ``design`` (so runs of two
conditions are two configurations and never pool), one ``trust_transfers`` row per persona (``persona_id`` = the
dialog index) with

- the source's own extracted amount: ``source_amount`` (a number, else NULL), ``source_valid`` = 1 when it is a
  finite number in [0, endowment] (fractions allowed: the source wrote them), else 0 with ``source_reason`` (an amount
  above the endowment, "I don't know", NaN ...). Nothing is clipped.
- RoleScope's own reading of the reply with the ``trust-amount`` reader (``extract_amount(reply, endowment, None)``):
  ``sent`` / ``valid`` / ``reason`` / ``extraction``, as a native run stores them.

The endowment is the game prompt's "You will receive $N" (every file of the source says $10); without one, $10 (the
paper's) with a note. Text: ``text=True`` (the CLI) stores the replies (``raw``), the persona prompts (the plan's
``personas`` descriptions) and the game prompt. ``text=False`` (numbers only, for the bundled demo: the text is
someone else's) stores the amounts, validity, reasons and RoleScope's reading, but ``raw`` is NULL, each persona is
described as ``agent-trust persona <i>``, ``reply_note`` says "text not bundled: <the command>", and the plan says
the same (``text_bundled``: false, ``full_import``); a source amount that is text is then not quoted either.

Skipped (reported, never an error, when found in a folder): the other games of those folders (``Dictator_Game_*``,
``lottery_problem_*``, ``map_*_problem_*``: not the trust game), the prompt templates, and ``repeated res/`` (see
``REPEATED_REASON``). A file named explicitly must be a trust-game file.

Refused (``InputError`` naming the file, nothing stored): a folder without a trust-game file, malformed JSON, a
missing or non-list ``res``/``dialog``, ``res`` and ``dialog`` of different lengths, a dialog entry that is not
``[index, persona prompt, reply]`` or repeats an index, an amount that is neither a number nor text (an object, a
list, true/false, null), a file outside the ``<condition>_res/<model>_res/`` layout (its condition is unknown), and an
``origin_prompt`` naming another game. Every file is parsed before anything is stored; each file is then stored in
its own transaction. The run id hashes the file's bytes (and the text mode): importing twice stores nothing twice.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import InputError, one_line
from analysis.importers.files import check_regular_file, decode, parse_json, read_bytes
from analysis.methods.trust import DEFAULT_ENDOWMENT
from analysis.methods.trust.parse import extract_amount
from analysis.methods.trust.tables import TRANSFERS
from analysis.runs.store import Store

SOURCE = "camel-ai/agent-trust"
KIND = "agent-trust"
#: The condition of the source's ``res`` folder: the game without any manipulation.
BASE = "base"
#: The one command that imports the full source, text included (what numbers-only runs point to).
IMPORT_COMMAND = "python -m analysis import agent-trust PATH"
NOT_BUNDLED = f"text not bundled: {IMPORT_COMMAND}"
GAME = "Trust_Game"
_FILE = re.compile(r"^Trust_Game_(?P<model>.+)\.json$")
_ENDOWMENT = re.compile(r"receive\s+\$\s*(\d+)", re.IGNORECASE)
_DONT_KNOW = re.compile(r"^\s*i\s+don'?t\s+know\.?\s*$", re.IGNORECASE)
REPEATED_REASON = ("multi-round games between two LLM players (the model plays the Trustor and the Trustee; no fixed "
                   "Trustee archetype, no forecasts): RoleScope's individual level plays against archetypes returning "
                   "min($k, 3 × sent) and measures forecasts, so these rounds fit none of its tables cleanly")
_OTHER_GAMES = (("Dictator_Game_", "the dictator game, not the trust game"),
                ("lottery_problem_", "a lottery problem, not the trust game"),
                ("map_", "a minimum-acceptable-probability problem, not the trust game"))


class Constant(str):
    """A JSON ``NaN`` / ``Infinity`` / ``-Infinity`` as the source wrote it (the source's files hold one ``NaN``)."""


@dataclass
class ParsedFile:
    """One trust-game file, parsed: the run it becomes."""

    path: Path
    run_id: str
    model: str
    condition: str
    plan: dict[str, Any]
    rows: list[dict[str, Any]]

    @property
    def model_spec(self) -> dict[str, Any]:
        return {"name": self.model, "backend": "imported", "model": self.model, "base_url": None, "params": {},
                "source": SOURCE}

    def report(self) -> dict[str, Any]:
        """What ``--json`` says about this file."""
        return {"path": str(self.path), "condition": self.condition, "model": self.model, "run_id": self.run_id,
                **self.plan["summary"]}


@dataclass
class Parsed:
    """Every file of an import, parsed (nothing stored yet), and the files skipped with the reason."""

    files: list[ParsedFile] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)


def skip_reason(path: Path) -> str | None:
    """Why a JSON file found in a folder is not imported (None: it is a trust-game file)."""
    if "repeated res" in path.parts and "No repeated res" not in path.parts:
        return REPEATED_REASON
    if _FILE.match(path.name):
        return None
    for prefix, why in _OTHER_GAMES:
        if path.name.startswith(prefix):
            return why
    if path.parent.name == "prompt":
        return "a prompt template of the source, not results"
    return f"not a {GAME}_<model>.json results file"


def expand(paths: Sequence[str | Path]) -> tuple[list[Path], list[dict[str, str]]]:
    """The trust-game files of ``paths`` (files, or folders searched recursively for ``*.json``) and the JSON files
    skipped there with the reason. A folder without a trust-game file, a missing path or an explicitly named file that
    is not one is an InputError naming it."""
    files: list[Path] = []
    skipped: list[dict[str, str]] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.json") if p.is_file())
            mine = [p for p in found if skip_reason(p) is None]
            if not mine:
                raise InputError(f"{path}: no {GAME}_<model>.json file in this folder ({len(found)} other JSON "
                                 "file(s): not the source's trust-game results)")
            files.extend(mine)
            skipped.extend({"path": str(p), "reason": why} for p in found if (why := skip_reason(p)) is not None)
        else:
            check_regular_file(path)
            why = skip_reason(path)
            if why is not None:
                raise InputError(f"{path}: {why}; expected a {GAME}_<model>.json file of camel-ai/agent-trust")
            files.append(path)
    unique: dict[Path, Path] = {}
    for f in files:
        unique.setdefault(f.resolve(), f)
    return list(unique.values()), skipped


def condition_of(path: Path) -> tuple[str, str]:
    """(condition, its folder) from the layout ``<condition>_res/<model>_res/Trust_Game_<model>.json``: folder ``res``
    is the base condition ("base")."""
    folder = path.resolve().parent.parent.name
    if folder == "res":
        return BASE, folder
    if folder.endswith("_res") and len(folder) > 4:
        return one_line(folder[:-4]), folder
    raise InputError(f"{path}: cannot tell the condition: expected the source's layout <condition>_res/<model>_res/"
                     f"{path.name} (the base condition's folder is res/)")


def source_amount(value: Any, endowment: int, text: bool) -> tuple[float | None, bool, str | None]:
    """(amount, valid, reason) of one ``res`` entry: valid when a finite number in [0, endowment]; text the source
    wrote instead of an amount is invalid (quoted only with ``text``). Another JSON type raises ValueError."""
    if isinstance(value, Constant):
        return None, False, f"the source stored {value}, not an amount"
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise ValueError(f"expected a number or the source's text, got {type(value).__name__ if value is not None else 'null'}")
    if isinstance(value, str):
        if _DONT_KNOW.match(value):
            return None, False, "the source's extraction answered \"I don't know\" (its fallback when no amount is found)"
        return None, False, "the source stored text, not an amount" + (f": {one_line(value)[:60]!r}" if text else "")
    amount = float(value)
    if not math.isfinite(amount):
        return None, False, f"the source stored {value}, not an amount"
    if amount < 0 or amount > endowment:
        return amount, False, f"the source's amount {amount:g} is outside [0, {endowment}]"
    return amount, True, None


def _dialog(path: Path, doc: dict[str, Any]) -> list[tuple[int, str, str]]:
    dialog = doc.get("dialog")
    if not isinstance(dialog, list):
        raise InputError(f"{path}: field 'dialog' is missing or not a list")
    out, seen = [], set()
    for i, entry in enumerate(dialog):
        ok = (isinstance(entry, list) and len(entry) >= 3 and isinstance(entry[0], int) and not isinstance(entry[0], bool)
              and isinstance(entry[1], str) and isinstance(entry[2], str))
        if not ok:
            raise InputError(f"{path}: dialog[{i}]: expected [index, persona prompt, reply]")
        if entry[0] in seen:
            raise InputError(f"{path}: dialog[{i}]: persona index {entry[0]} appears twice")
        seen.add(entry[0])
        out.append((entry[0], entry[1], entry[2]))
    return out


def _origin(path: Path, doc: dict[str, Any]) -> tuple[str | None, str | None]:
    """(extraction instruction, game prompt) of ``origin_prompt``; InputError when it names another game."""
    origin = doc.get("origin_prompt")
    if not isinstance(origin, list) or not origin:
        return None, None
    if isinstance(origin[0], str) and origin[0] != GAME:
        raise InputError(f"{path}: origin_prompt names the game '{one_line(origin[0])[:40]}', not {GAME}")
    texts = [o if isinstance(o, str) else None for o in origin[1:3]] + [None, None]
    return texts[0], texts[1]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:40] or "x"


def parse_trust_file(path: Path, content: bytes, *, text: bool = True) -> ParsedFile:
    """One ``Trust_Game_<model>.json`` -> the rows and plan of one imported run (see the module docstring)."""
    match = _FILE.match(path.name)
    if not match:
        raise InputError(f"{path}: not a {GAME}_<model>.json file")
    model = one_line(match.group("model")) or "unknown"
    doc = parse_json(decode(content, path), path, constants=Constant)
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected a JSON object with 'res' and 'dialog'")
    res = doc.get("res")
    if not isinstance(res, list):
        raise InputError(f"{path}: field 'res' is missing or not a list")
    dialog = _dialog(path, doc)
    if len(res) != len(dialog):
        raise InputError(f"{path}: 'res' holds {len(res)} amounts but 'dialog' {len(dialog)} entries")
    if not res:
        raise InputError(f"{path}: no personas ('res' and 'dialog' are empty)")
    instruction, game_prompt = _origin(path, doc)
    condition, folder = condition_of(path)
    found = _ENDOWMENT.search(game_prompt or "")
    endowment = int(found.group(1)) if found else DEFAULT_ENDOWMENT
    digest = hashlib.sha256(content).hexdigest()
    run_id = f"agent-trust-{_slug(condition)}-{_slug(model)}-{digest[:10]}" + ("" if text else "-numbers")
    rows, personas = [], []
    for i, (value, (index, persona, reply)) in enumerate(zip(res, dialog)):
        try:
            amount, ok, why = source_amount(value, endowment, text)
        except ValueError as exc:
            raise InputError(f"{path}: res[{i}]: {exc}") from None
        got = extract_amount(reply, endowment, None)
        pid = str(index)
        personas.append({"id": pid, "description": persona if text else f"agent-trust persona {pid}"})
        rows.append({
            "run_id": run_id, "model": model, "endowment": endowment, "conditioning": "none", "persona_id": pid,
            "source": KIND, "split": None, "attributes": None, "sent": got.amount, "extraction": got.how,
            "valid": int(got.valid), "reason": got.reason, "raw": reply if text else None, "finish_reason": None,
            "cache_key": None, "condition": condition, "source_amount": amount, "source_valid": int(ok),
            "source_reason": why, "reply_note": None if text else NOT_BUNDLED,
        })
    summary = {"personas": len(rows), "source_valid": sum(r["source_valid"] for r in rows),
               "reader_valid": sum(r["valid"] for r in rows)}
    source_file = "/".join(path.resolve().parts[-3:])
    plan: dict[str, Any] = {
        "method": "trust", "imported": True, "source": SOURCE, "kind": KIND, "level": "population", "game": GAME,
        "condition": condition, "source_folder": folder, "source_file": source_file, "sha256": digest,
        "endowment": endowment, "reader": "trust-amount", "personas": personas, "summary": summary,
        "design": {"game": GAME, "condition": condition, "endowment": endowment, "personas": [p["id"] for p in personas]},
        "text_bundled": text,
    }
    notes = [] if found else [f"the game prompt states no endowment: ${DEFAULT_ENDOWMENT} assumed (the paper's)"]
    if text:
        plan |= {"path": str(path.resolve()), "game_prompt": game_prompt, "extraction_instruction": instruction}
    else:
        plan |= {"full_import": IMPORT_COMMAND}
        notes.append(f"numbers only: the replies and persona prompts are not stored; {NOT_BUNDLED}")
    if notes:
        plan["note"] = "; ".join(notes)
    return ParsedFile(path, run_id, model, condition, plan, rows)


def parse_paths(paths: Sequence[str | Path], *, text: bool = True) -> Parsed:
    """Every trust-game file of ``paths`` parsed, nothing stored; any bad file or folder raises InputError."""
    files, skipped = expand(paths)
    return Parsed([parse_trust_file(p, read_bytes(p), text=text) for p in files], skipped)


def store_parsed(store: Store, parsed: Parsed) -> dict[str, bool]:
    """Store each parsed file in its own transaction: run id -> whether it was new (False: imported before, nothing
    written). The base condition is stored last, so that it is each model's newest configuration: the one a page opens
    on."""
    files = sorted(parsed.files, key=lambda p: p.condition == BASE)
    return {p.run_id: store.import_run(p.run_id, "trust", p.model, p.model_spec, p.plan, {TRANSFERS.name: p.rows})
            for p in files}


def import_paths(store: Store, paths: Sequence[str | Path], *, text: bool = True) -> list[str]:
    """Import trust-game files (or folders of them): every file parsed first (a bad one: InputError, nothing stored);
    the run ids."""
    return list(store_parsed(store, parse_paths(paths, text=text)))


def load_bundled(store: Store, path: Path) -> list[str]:
    """``BundledImport.load``: the agent-trust records under ``path``, numbers only."""
    return import_paths(store, [path], text=False)
