"""Import the IPIP-50 testings and the human IPIP-50 answers of Mei, Xie, Yuan & Jackson (2024), "A Turing test of
whether AI chatbots are behaviorally similar to humans", PNAS 121(9) e2313925121 (github yutxie/ChatGPT-Behavioral
@ 69ec557, MIT; the human answers are the Open Psychometrics IPIP-50 public data set):
``python -m analysis import chatgpt-behavioral PATH``.

The source's layout, as its repository holds it::

    data/bigfive_IPIP.tsv     the key: "<n><TAB><item text><TAB>…<TAB>(<factor><+|->)", items 1..50 (factor 1 Extraversion,
                              2 Agreeableness, 3 Conscientiousness, 4 Emotional Stability, 5 Intellect/Imagination)
    data/bigfive.tsv          "<column><TAB><question>": the 50 questions as the models were asked them (E1 … O10)
    data/bigfive_data.csv     people's answers (tab-separated): one row a person, columns E1 … O10 (1..5; 0 = unanswered)
    records/bigfive_<tag>_<date>.json   {"messages", "responses", "choices"} of one model

**Items.** IPIP item n has factor f = (n − 1) mod 5 + 1 and is the data set's column ``<letter of f><(n − 1) // 5 + 1>``
(item 1 = E1, 6 = E2, 2 = A1, 4 = N1 …); the question the models were asked is "I " + the item text with its first
letter in lower case (checked against ``bigfive.tsv`` when present: any mismatch refuses the import). Factor 4 is
Emotional Stability: RoleScope keys it as Neuroticism, so a "4+" item is reverse-keyed on N and a "4−" item is not;
on the other factors "−" is reverse-keyed. The **inventory** ``ipip-50`` is built from the key at import time, items in
the order the records ask them (E1..E10, N1..N10, A1..A10, C1..C10, O1..O10; ids = those column names); it is never
bundled. With ``text=False`` the items are named by number and column only and the options "1".."5".

**Testings.** A record's ``messages`` holds one conversation per item ([system, question, reply]); a conversation of the
system message alone ends a session. Each of the 30 sessions asks the 50 items in that fixed order, each item in a new
conversation (no history), at the API's default decoding. ``choices[s][i]`` is the authors' reading of session s's
answer to item i (1..5). RoleScope reads each reply itself: the bracketed ``[n]`` the prompt asks for (every distinct
``[d]`` in the reply; exactly one number 1..5 is valid, else invalid with the reason) and checks it against ``choices``
(the count that differ is in the plan's summary; on the published records it is 0). The model is the ``model`` the
API returned in ``responses`` (gpt-4-0314, gpt-3.5-turbo-0301), one run per record file; each session is one
**respondent** without a persona (persona id ``s01`` … ``s30``, ``administration`` = the session number), so the
inventory report's units for α and ω are the 30 sessions and its ``testings`` block (``testings``) compares them.

**Human norm.** ``bigfive_data.csv`` becomes ``plan["human_norm"]`` of each run (``human_norm``): per domain α, ω, mean,
SD and the exact distribution of people's domain scores, over the people who answered every item of the domain (0 or
any answer outside 1..5 is missing). On the published file: 19,719 rows, one of which answered no item, so 19,718 people
per domain. No person's answers are stored.

Every file is read and checked before anything is stored (a bad file: one ``InputError`` naming it, nothing stored);
a run's id hashes its record's bytes, the key, the questions and the human data, so importing twice stores nothing
twice.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import InputError, one_line
from analysis.importers.files import decode, parse_json, read_bytes
from analysis.methods.inventory import BIG_FIVE
from analysis.methods.inventory.human_norm import build_norm
from analysis.methods.inventory.inventory import Inventory, Item
from analysis.methods.inventory.personas import Persona
from analysis.methods.inventory.session import ANSWERS
from analysis.runs.store import Store
from analysis.samples import numbers_only_source

SOURCE = "yutxie/ChatGPT-Behavioral"
KIND = "chatgpt-behavioral"
CITATION = ("Mei, Xie, Yuan & Jackson (2024), A Turing test of whether AI chatbots are behaviorally similar to humans, "
            "PNAS 121(9) e2313925121; github yutxie/ChatGPT-Behavioral (MIT); human answers: Open Psychometrics IPIP-50")
IMPORT_COMMAND = "python -m analysis import chatgpt-behavioral PATH  (PATH: a clone of github yutxie/ChatGPT-Behavioral)"
ADMINISTRATION = "each item its own conversation (no history); the 50 items asked again in each of 30 sessions"
INVENTORY = "ipip-50"
N_ITEMS = 50
N_OPTIONS = 5
#: The key's factor number -> RoleScope's domain letter (factor 4, Emotional Stability, is keyed as Neuroticism).
FACTORS = {1: "E", 2: "A", 3: "C", 4: "N", 5: "O"}
#: The order the records (and the data set's columns) ask the domains in.
COLUMN_ORDER = ("E", "N", "A", "C", "O")
#: The authors' model switch (``extract.ipynb``'s ``switch_model``): used when a record's responses name no model.
MODELS = {"gpt4": "gpt-4-0314", "turbo": "gpt-3.5-turbo-0301", "gpt3": "text-davinci-003"}
_KEY = re.compile(r"^\((\d)([+-])\)$")
_RECORD = re.compile(r"^bigfive_(?P<tag>[A-Za-z0-9.-]+?)_\d{4}_\d\d_\d\d.*\.json$")
_BRACKET = re.compile(r"\[\s*(\d+)\s*\]")
_OPTION = re.compile(r"(\d)\s*=\s*([A-Za-z][A-Za-z ]*?)\s*(?:,|\.)")


@dataclass(frozen=True)
class KeyItem:
    """One IPIP-50 item of the key: its number, text, RoleScope domain, reverse flag and data-set column."""

    number: int
    text: str
    domain: str
    reverse: bool
    column: str

    @property
    def question(self) -> str:
        """The item as the models were asked it: "I " + its text with a lower-case first letter."""
        return f"I {self.text[:1].lower()}{self.text[1:]}"


def find_root(path: Path) -> Path:
    """The source's root: the folder holding ``data/bigfive_IPIP.tsv`` (``path`` itself or one of its parents)."""
    path = path.expanduser()
    if not path.exists():
        raise InputError(f"{path}: file not found")
    for folder in (path, *path.parents) if path.is_dir() else path.parents:
        if (folder / "data" / "bigfive_IPIP.tsv").is_file():
            return folder
    raise InputError(f"{path}: not a ChatGPT-Behavioral folder (no data/bigfive_IPIP.tsv here or above; give a clone "
                     "of github yutxie/ChatGPT-Behavioral)")


def column_of(number: int) -> tuple[int, str]:
    """(factor, data-set column) of IPIP-50 item ``number`` (module docstring)."""
    factor = (number - 1) % 5 + 1
    return factor, f"{FACTORS[factor]}{(number - 1) // 5 + 1}"


def read_key(root: Path) -> list[KeyItem]:
    """The 50 items of ``data/bigfive_IPIP.tsv``, keyed as the module docstring says; InputError naming the line."""
    path = root / "data" / "bigfive_IPIP.tsv"
    out = []
    for n, line in enumerate(decode(read_bytes(path), path).splitlines(), 1):
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split("\t")]
        m = _KEY.match(cells[-1]) if len(cells) >= 3 else None
        if m is None or not cells[0].isdigit() or not cells[1]:
            raise InputError(f"{path}: line {n}: expected '<number><TAB><item text><TAB>…<TAB>(<factor><+|->)'")
        number, factor, sign = int(cells[0]), int(m.group(1)), m.group(2)
        if not 1 <= number <= N_ITEMS or factor not in FACTORS or column_of(number)[0] != factor:
            raise InputError(f"{path}: line {n}: item {number} keyed to factor {factor}; the IPIP-50 cycles factors "
                             "1..5 (item n: (n − 1) mod 5 + 1)")
        domain = FACTORS[factor]
        reverse = (sign == "+") if domain == "N" else (sign == "-")
        out.append(KeyItem(number, cells[1], domain, reverse, column_of(number)[1]))
    if sorted(k.number for k in out) != list(range(1, N_ITEMS + 1)):
        raise InputError(f"{path}: {len(out)} items; the IPIP-50 key has items 1..{N_ITEMS} once each")
    return out


def asked_order(key: Sequence[KeyItem]) -> list[KeyItem]:
    """The key's items in the order the records ask them: E1..E10, N1..N10, A1..A10, C1..C10, O1..O10."""
    by_column = {k.column: k for k in key}
    return [by_column[f"{d}{i}"] for d in COLUMN_ORDER for i in range(1, N_ITEMS // 5 + 1)]


def check_questions(root: Path, key: Sequence[KeyItem]) -> None:
    """``data/bigfive.tsv`` (when present) must ask each column's item as ``KeyItem.question`` says."""
    path = root / "data" / "bigfive.tsv"
    if not path.is_file():
        return
    asked = dict(line.split("\t", 1) for line in decode(read_bytes(path), path).splitlines() if "\t" in line)
    for k in key:
        if asked.get(k.column, "").strip() != k.question:
            raise InputError(f"{path}: column {k.column} asks {one_line(asked.get(k.column, '(nothing)'))[:60]!r}, not "
                             f"IPIP item {k.number} of the key")


def options_of(prompt: str | None) -> list[str]:
    """The five labels of the prompt's "1=Disagree, 2=…" scale; "1".."5" when they are not all there."""
    found = dict(_OPTION.findall(prompt or ""))
    labels = [found.get(str(k), "").strip() for k in range(1, N_OPTIONS + 1)]
    return labels if all(labels) else [str(k) for k in range(1, N_OPTIONS + 1)]


def build_inventory(key: Sequence[KeyItem], options: list[str], *, text: bool = True) -> Inventory:
    """IPIP-50 as the records ask it (module docstring); ``text=False``: no item text, options "1".."5"."""
    items = [Item(id=k.column, text=k.question if text else f"IPIP-50 item {k.number} ({k.column})", domain=k.domain,
                  reverse=k.reverse) for k in asked_order(key)]
    return Inventory(name=INVENTORY, title="IPIP-50 Big-Five markers (as Mei et al. 2024 ask them)",
                     options=options if text else [str(k) for k in range(1, N_OPTIONS + 1)],
                     domains={d: BIG_FIVE[d] for d in COLUMN_ORDER}, items=items,
                     source="IPIP Big-Five Factor Markers, 50 items (Goldberg 1992; ipip.ori.org), keyed from "
                            "ChatGPT-Behavioral's data/bigfive_IPIP.tsv")


def read_people(root: Path, key: Sequence[KeyItem]) -> tuple[pd.DataFrame, bytes]:
    """The human answers (``data/bigfive_data.csv``, tab-separated) with every key column, and the file's bytes."""
    path = root / "data" / "bigfive_data.csv"
    content = read_bytes(path)
    try:
        frame = pd.read_csv(io.StringIO(decode(content, path)), sep="\t", dtype=str)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"{path}: not a tab-separated table ({one_line(str(exc))[:80]})") from None
    missing = [k.column for k in asked_order(key) if k.column not in frame.columns]
    if missing:
        raise InputError(f"{path}: no column {', '.join(missing[:5])} (expected the IPIP-50 answers E1 … O10)")
    return frame, content


def human_norm(root: Path, key: Sequence[KeyItem]) -> tuple[dict[str, Any], bytes]:
    """``plan["human_norm"]`` (``analysis.methods.inventory.human_norm``) of the people's answers, and their bytes."""
    people, content = read_people(root, key)
    items = {d: [(k.column, k.reverse) for k in asked_order(key) if k.domain == d] for d in COLUMN_ORDER}
    norm = build_norm(people, items, N_OPTIONS, "Open Psychometrics IPIP-50 answers, as ChatGPT-Behavioral's "
                                                "data/bigfive_data.csv holds them")
    return norm, content


def read_answer(reply: str) -> tuple[int | None, str | None]:
    """(number, why invalid) of a reply that highlights its answer as ``[n]`` (module docstring)."""
    found = sorted({int(x) for x in _BRACKET.findall(reply or "")})
    if not found:
        return None, "no bracketed [n] in the reply"
    if len(found) > 1:
        return None, f"ambiguous: the reply highlights {', '.join(f'[{n}]' for n in found)}"
    if not 1 <= found[0] <= N_OPTIONS:
        return None, f"[{found[0]}] is outside 1..{N_OPTIONS}"
    return found[0], None


@dataclass
class Session:
    """One session of a record: per item (question, reply) in the order asked."""

    turns: list[tuple[str, str]] = field(default_factory=list)


def sessions_of(path: Path, messages: list[Any]) -> list[Session]:
    """The record's sessions (module docstring); InputError for a conversation that is neither an item nor an end."""
    out, current = [], Session()
    for i, conv in enumerate(messages):
        if not isinstance(conv, list) or not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in conv):
            raise InputError(f"{path}: messages[{i}]: expected a list of {{role, content}} messages")
        if len(conv) == 1:
            out.append(current)
            current = Session()
        elif len(conv) == 3 and [m.get("role") for m in conv[1:]] == ["user", "assistant"]:
            current.turns.append((conv[1]["content"], conv[2]["content"]))
        else:
            raise InputError(f"{path}: messages[{i}]: expected [system, question, reply] or a lone system message "
                             f"(a session's end), got {len(conv)} messages")
    if current.turns:
        out.append(current)
    return out


def check_choices(path: Path, choices: Any, n_sessions: int) -> list[list[int]]:
    """The authors' ``choices``: ``n_sessions`` lists of N_ITEMS numbers 1..5; InputError naming the first bad one."""
    if not isinstance(choices, list) or len(choices) != n_sessions:
        got = len(choices) if isinstance(choices, list) else type(choices).__name__
        raise InputError(f"{path}: 'choices' must list one row per session ({n_sessions}), got {got}")
    for s, row in enumerate(choices):
        if not isinstance(row, list) or len(row) != N_ITEMS:
            raise InputError(f"{path}: choices[{s}]: expected {N_ITEMS} numbers")
        for i, v in enumerate(row):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= N_OPTIONS:
                raise InputError(f"{path}: choices[{s}][{i}]: {one_line(repr(v))[:20]} is not a number 1..{N_OPTIONS}")
    return choices


def model_of(path: Path, responses: Any, tag: str) -> str:
    """The model the API returned in ``responses`` (one name), else the authors' name for the file's tag."""
    names = {r[0].get("model") for r in responses if isinstance(r, list) and r and isinstance(r[0], dict)} - {None}
    if len(names) > 1:
        raise InputError(f"{path}: responses name several models ({', '.join(sorted(map(str, names)))})")
    name = next(iter(names), None) or MODELS.get(tag)
    if not isinstance(name, str) or not name:
        raise InputError(f"{path}: no model named in its responses and unknown file tag '{tag}'")
    return one_line(name)


@dataclass
class RecordImport:
    """One record file read: its run (id, plan, rows)."""

    path: Path
    model: str
    run_id: str
    plan: dict[str, Any]
    rows: list[dict[str, Any]]

    def report(self) -> dict[str, Any]:
        return {"path": str(self.path), "model": self.model, "run_id": self.run_id, **self.plan["summary"]}


def record_files(root: Path) -> list[Path]:
    """``records/bigfive_*.json`` under the source's root (at least one)."""
    found = sorted(p for p in (root / "records").glob("bigfive_*.json") if p.is_file())
    if not found:
        raise InputError(f"{root}: no records/bigfive_<model>_<date>.json file (the IPIP-50 testings)")
    return found


def _rows(model: str, inventory: Inventory, sessions: list[Session], personas: list[Persona],
          text: bool) -> list[dict[str, Any]]:
    rows = []
    for s, (session, persona) in enumerate(zip(sessions, personas), 1):
        for seq, (item, (_, reply)) in enumerate(zip(inventory.items, session.turns)):
            number, why = read_answer(reply)
            row = {"model": model, "inventory": inventory.name, "persona_id": persona.id, "persona": persona.description,
                   "sex": None, "age": None, "targets": None, "order_mode": "ascending", "seq": seq,
                   "item_id": item.id, "domain": item.domain, "facet": None, "reverse": int(item.reverse),
                   "item": item.text, "mode": "text", "raw": reply if text else None, "valid": int(number is not None),
                   "reason": why, "truncated": None, "source": KIND if text else numbers_only_source(KIND),
                   "administration": s, "persona_type": None}
            if number is not None:
                row |= {"number": number, "option_index": number - 1, "option": inventory.options[number - 1],
                        "score": float(number), "keyed": float(inventory.keyed(item, number))}
            rows.append(row)
    return rows


def read_record(path: Path, key: Sequence[KeyItem], norm: dict[str, Any], digest_base: bytes, *,
                text: bool = True) -> RecordImport:
    """One record file -> the rows and plan of one imported run (module docstring)."""
    m = _RECORD.match(path.name)
    if m is None:
        raise InputError(f"{path}: not a records/bigfive_<model>_<date>.json file")
    content = read_bytes(path)
    doc = parse_json(decode(content, path), path)
    if not isinstance(doc, dict) or not all(isinstance(doc.get(f), list) for f in ("messages", "responses")):
        raise InputError(f"{path}: expected an object with lists 'messages', 'responses' and 'choices'")
    sessions = sessions_of(path, doc["messages"])
    choices = check_choices(path, doc.get("choices"), len(sessions))
    order = asked_order(key)
    for s, session in enumerate(sessions):
        if len(session.turns) != N_ITEMS:
            raise InputError(f"{path}: session {s + 1} asks {len(session.turns)} items, not {N_ITEMS}")
        for i, ((question, _), k) in enumerate(zip(session.turns, order)):
            if question.splitlines()[-1].strip() != k.question:
                raise InputError(f"{path}: session {s + 1}, item {i + 1}: the question is not IPIP item {k.number} "
                                 f"({k.column}), which the records ask at this position")
    model = model_of(path, doc["responses"], m.group("tag"))
    inventory = build_inventory(key, options_of(sessions[0].turns[0][0] if sessions else None), text=text)
    personas = [Persona(id=f"s{s:02d}", description=f"no persona: the model as itself, session {s} of {len(sessions)}")
                for s in range(1, len(sessions) + 1)]
    rows = _rows(model, inventory, sessions, personas, text)
    digest = hashlib.sha256(digest_base + inventory.model_dump_json().encode() + b"\0" + content).hexdigest()
    run_id = f"{KIND}-ipip50-{re.sub(r'[^A-Za-z0-9._-]+', '-', model)}-{digest[:10]}"
    for row in rows:
        row["run_id"] = run_id
    differ = sum(1 for r in rows if r.get("number") != choices[r["administration"] - 1][r["seq"]])
    plan = {
        "method": "inventory", "imported": True, "source": SOURCE, "citation": CITATION, "kind": KIND,
        "path": str(path.resolve()) if text else None, "text_bundled": text,
        "text_note": None if text else f"the replies' and items' text is not bundled; the full source: {IMPORT_COMMAND}",
        "design": {"inventory": INVENTORY, "administration": ADMINISTRATION, "personas": "no persona: repeated sessions",
                   "orders": ["ascending"]},
        "inventory": inventory.model_dump(), "personas": [p.model_dump() for p in personas],
        "orders": ["ascending"], "answer_mode": "text", "administration": ADMINISTRATION, "params": {},
        "shaping": False, "human_norm": norm,
        "summary": {"sessions": len(sessions), "answers": len(rows), "invalid": sum(1 for r in rows if not r["valid"]),
                    "differ_from_choices": differ},
    }
    return RecordImport(path, model, run_id, plan, rows)


def parse_source(paths: Sequence[str | Path], *, text: bool = True) -> list[RecordImport]:
    """Every IPIP-50 record of every ChatGPT-Behavioral folder in ``paths`` read and checked, nothing stored."""
    out: list[RecordImport] = []
    for raw in paths:
        root = find_root(Path(raw))
        key = read_key(root)
        check_questions(root, key)
        norm, people = human_norm(root, key)
        base = hashlib.sha256(read_bytes(root / "data" / "bigfive_IPIP.tsv") + b"\0" + people).digest()
        out.extend(read_record(p, key, norm, base, text=text) for p in record_files(root))
    return out


def store_parsed(store: Store, parsed: Sequence[RecordImport]) -> dict[str, bool]:
    """Each record's run in its own transaction: run id -> whether it was new."""
    out = {}
    for r in parsed:
        spec = {"name": r.model, "backend": "imported", "model": r.model, "base_url": None, "params": {},
                "source": SOURCE}
        out[r.run_id] = store.import_run(r.run_id, "inventory", r.model, spec, r.plan, {ANSWERS.name: r.rows})
    return out


def import_source(store: Store, paths: Sequence[str | Path], *, text: bool = True) -> list[str]:
    """Import ChatGPT-Behavioral's IPIP-50 records (module docstring): everything read first; a bad file stores
    nothing."""
    return list(store_parsed(store, parse_source(paths, text=text)))


def load_bundled(store: Store, path: Path) -> list[str]:
    """``BundledImport.load``: the IPIP-50 records under ``path`` and the human norm, numbers only."""
    return import_source(store, [path], text=False)
