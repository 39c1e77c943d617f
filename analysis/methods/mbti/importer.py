"""Import the published answer CSVs of the original study (github Kali-Hac/ChatGPT-MBTI).

The format, as the reference query scripts write it:

- Folder = model: ``ChatGPT/``, ``GPT4/``, ``InstructGPT/``; one file = one independent testing
  of up to three subjects, e.g. ``answer_people_men_women.csv``.
- Header: ``subject1, Answers, '', subject2, Answers, '', subject3, Answers[, '']``.
- Then one row per statement; per subject three cells: the prompt
  (``"<n>. <instruction>\\n <statement>"``, the instruction listing the 7 options in that
  question's permuted order), the raw model answer, an empty cell.
- Some files are Windows-1252, not UTF-8.

Each file becomes one run (method ``mbti``, status ``imported``, testing 0, answer mode text) with
one ``mbti_answers`` row per subject x statement. Statements are identified by the number in
their prompt, never by row position, so a missing row, a missing answer or a refusal cannot shift
later answers; a prompt without a number takes its row's number from the other subjects' prompts,
else its position. The option order is read back from each instruction; the file's order mode is
"fixed" when every question lists Correct .. Wrong in order, else "permuted". Replies are parsed
with ``analysis.methods.mbti.parse`` (invalid ones kept with their raw text). Statements are keyed with
``CHATGPT_MBTI_KEY``; statements 1..60 missing from the file are stored as invalid ("not in file").

A file is imported whole or not at all (one transaction); every file is parsed before anything is
written, so a bad file raises InputError (naming the file and line) and nothing is imported. The
run id hashes the file's bytes: importing a file twice changes nothing.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.errors import InputError, one_line
from analysis.importers.files import csv_rows, expand_paths, read_bytes
from analysis.methods.mbti import OPTIONS
from analysis.methods.mbti.parse import listed_options, parse_correctness
from analysis.methods.mbti.prompts import CANONICAL
from analysis.methods.mbti.scoring import option_weight
from analysis.methods.mbti.session import ANSWERS
from analysis.methods.mbti.statements import CHATGPT_MBTI_KEY, signed_key
from analysis.runs.store import Store
from analysis.samples import numbers_only_source

SOURCE = "Kali-Hac/ChatGPT-MBTI"
#: Folders whose answers the reference asked without the conversation history (its ``Query_GPT.py`` sends each
#: statement alone), where the paper's protocol and RoleScope's runs keep the previous questions and answers.
NO_HISTORY = frozenset({"GPT4", "InstructGPT"})
NO_HISTORY_NOTE = ("asked without conversation history (the reference's Query_GPT.py sends each statement alone); "
                   "RoleScope's runs and the ChatGPT files keep the previous questions and answers")
N_ITEMS = 60
_NUMBER = re.compile(r"\s*(\d{1,3})\s*[.)]\s*")


@dataclass
class ParsedFile:
    path: Path
    run_id: str
    model: str
    model_spec: dict[str, Any]
    plan: dict[str, Any]
    rows: list[dict[str, Any]]


def decode(content: bytes, path: Path) -> tuple[str, str]:
    """Text and the encoding that read it: UTF-8 (BOM allowed), else Windows-1252."""
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return content.decode(encoding), encoding
        except UnicodeDecodeError:
            continue
    raise InputError(f"{path}: neither UTF-8 nor Windows-1252 text")


def _header_subjects(header: list[str], path: Path) -> list[tuple[str, int, int]]:
    """(subject, prompt column, answer column) for each 'X, Answers' pair of the header."""
    out = []
    for j, cell in enumerate(header):
        if cell.strip().lower() == "answers" and j >= 1 and header[j - 1].strip():
            name = header[j - 1].strip()
            out.append((name[:1].upper() + name[1:], j - 1, j))
    if not out:
        raise InputError(f"{path}: line 1: expected a header like 'people,Answers,,men,Answers,,women,Answers'")
    names = [s.lower() for s, _, _ in out]
    if len(set(names)) != len(names):
        raise InputError(f"{path}: line 1: a subject appears twice in the header")
    return out


def _split_prompt(prompt: str) -> tuple[int | None, str, str | None]:
    """(item number, instruction, statement) of a prompt cell."""
    m = _NUMBER.match(prompt)
    number = int(m.group(1)) if m else None
    body = prompt[m.end():] if m else prompt
    if "\n" in body:
        instruction, _, statement = body.partition("\n")
    elif "?" in body:
        instruction, _, statement = body.rpartition("?")
        instruction += "?"
    else:
        instruction, statement = body, ""
    statement = " ".join(statement.split())
    return number, instruction.strip(), statement or None


def parse_answer_file(path: Path, content: bytes, *, text: bool = True) -> ParsedFile:
    """One published answer CSV -> the rows of one imported run (see module docstring). ``text=False``: numbers only
    (the bundled demo): the replies and the statements' text are not stored, the parsed options are."""
    decoded, encoding = decode(content, path)
    table = csv_rows(csv.reader(io.StringIO(decoded, newline=""), strict=True), path)  # a cut-off quoted cell is an error
    if not table:
        raise InputError(f"{path}: empty file")
    subjects = _header_subjects(table[0], path)
    model = one_line(path.resolve().parent.name) or "unknown"  # a name from a file prints on one line
    digest = hashlib.sha256(content).hexdigest()
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{model}-{path.stem}").strip("-")
    run_id = f"chatgpt-mbti-{slug}-{digest[:10]}"
    key = signed_key(CHATGPT_MBTI_KEY, "key chatgpt-mbti")  # type: ignore[arg-type]

    rows: list[dict[str, Any]] = []
    seen: dict[str, set[int]] = {s: set() for s, _, _ in subjects}
    orders: list[list[int]] = []
    position = 0
    for line_no, row in enumerate(table[1:], 2):
        if not any(cell.strip() for cell in row):
            continue
        position += 1
        cells = [(s, row[p] if p < len(row) else "", row[a] if a < len(row) else None) for s, p, a in subjects]
        numbers = {n for _, prompt, _ in cells if (n := _split_prompt(prompt)[0]) is not None}
        if len(numbers) > 1:
            raise InputError(f"{path}: line {line_no}: the subjects' prompts carry different item numbers {sorted(numbers)}")
        row_number = numbers.pop() if numbers else position
        for subject, prompt, answer in cells:
            number, instruction, statement = _split_prompt(prompt)
            number = number if number is not None else row_number
            if number in seen[subject]:
                raise InputError(f"{path}: line {line_no}: item {number} appears twice for subject '{subject}'")
            seen[subject].add(number)
            listed = listed_options(instruction)
            order = listed if sorted(listed) == list(CANONICAL) else None
            if order is not None:
                orders.append(order)
            if answer is None:
                parsed_reason, parsed = "missing answer cell", None
            else:
                got = parse_correctness(answer, statement)
                parsed_reason, parsed = got.reason, got.option
            dim, direction = key.get(str(number), (None, 1))
            rows.append({
                "run_id": run_id, "model": model, "subject": subject, "order_mode": None, "testing": 0,
                "seq": number - 1, "statement_id": str(number), "dimension": dim, "direction": direction,
                "statement": statement, "perm_seed": None, "option_order": order, "mode": "text",
                "option": OPTIONS[parsed] if parsed is not None else None, "option_index": parsed,
                "weight": option_weight(parsed) if parsed is not None else None, "valid": int(parsed is not None),
                "reason": parsed_reason or None, "raw": answer if text else None,
                "source": "chatgpt-mbti" if text else numbers_only_source("chatgpt-mbti"),
            })
    if not rows:
        raise InputError(f"{path}: no statement rows after the header")
    for subject, numbers in seen.items():
        for number in sorted(set(range(1, N_ITEMS + 1)) - numbers):
            dim, direction = key[str(number)]
            rows.append({
                "run_id": run_id, "model": model, "subject": subject, "order_mode": None, "testing": 0, "seq": number - 1,
                "statement_id": str(number), "dimension": dim, "direction": direction, "mode": "text", "valid": 0,
                "reason": "not in file", "source": "chatgpt-mbti" if text else numbers_only_source("chatgpt-mbti"),
            })
    order_mode = "fixed" if orders and all(o == list(CANONICAL) for o in orders) else "permuted"
    for r in rows:
        r["order_mode"] = order_mode
    invalid = sum(1 for r in rows if not r["valid"])
    model_spec = {"name": model, "backend": "imported", "model": model, "base_url": None, "params": {}, "source": SOURCE}
    if not text:
        for r in rows:
            r["statement"] = None
    plan = {
        "method": "mbti", "imported": True, "source": SOURCE, "path": str(path.resolve()) if text else None,
        "text_bundled": text, "sha256": digest,
        "encoding": encoding, "subjects": [s for s, _, _ in subjects], "key": "chatgpt-mbti", "order_mode": order_mode,
        "answer_mode": "text", "testings": 1, "summary": {"answers": len(rows), "invalid": invalid},
    }
    if path.resolve().parent.name in NO_HISTORY:
        plan |= {"history": 0, "note": NO_HISTORY_NOTE}
    return ParsedFile(path, run_id, model, model_spec, plan, rows)


def _expand(paths: Sequence[str | Path]) -> list[Path]:
    return expand_paths(paths, "*.csv", what=".csv file")


def parse_files(paths: Sequence[str | Path], *, text: bool = True) -> list[ParsedFile]:
    """Every answer CSV of ``paths`` (files or folders) parsed, nothing stored; any bad file raises InputError."""
    return [parse_answer_file(path, read_bytes(path), text=text) for path in _expand(paths)]


def store_parsed(store: Store, parsed: Sequence[ParsedFile]) -> list[str]:
    """Store parsed files, each in its own transaction; one run id per file (already imported ones included)."""
    for p in parsed:
        store.import_run(p.run_id, "mbti", p.model, p.model_spec, p.plan, {ANSWERS.name: p.rows})
    return [p.run_id for p in parsed]


def import_notes(parsed: Sequence[ParsedFile]) -> list[str]:
    """One line per imported file whose plan carries a note (answers asked without history)."""
    return [f"{p.path.name} ({p.model}): {p.plan['note']}" for p in parsed if p.plan.get("note")]


def import_files(store: Store, paths: Sequence[str | Path]) -> list[str]:
    """Import answer CSVs (or folders of them): every file parsed first (a bad one: InputError, nothing written)."""
    return store_parsed(store, parse_files(paths))


def load_bundled(store: Store, path: Path) -> list[str]:
    """``BundledImport.load``: the ChatGPT-MBTI answer files under ``path``, numbers only."""
    return store_parsed(store, parse_files([path], text=False))
