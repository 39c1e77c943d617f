"""Import the investor sessions of Mei, Xie, Yuan & Jackson (2024), "A Turing test of whether AI chatbots are
behaviorally similar to humans", PNAS 121(9) e2313925121 (github yutxie/ChatGPT-Behavioral @ 69ec557, MIT):
``python -m analysis import chatgpt-behavioral PATH`` (the same kind imports the source's IPIP-50 testings into the
inventory method).

The source's ``records/trust_*.json`` hold ``{"messages": [30 conversations], "responses": [the API's responses]}``.
A conversation opens with a system message ("You are a helpful assistant."), a greeting, then one or two game questions:
the **investor** question ("You are an Investor … You have $100 to invest … highlight the number with [] (such as
[$x])") and/or the **banker** (trustee) question for a given investment. The file name's code says which and in what
order (the authors' ``extract.ipynb`` reads them one by one): ``trust_1_<model>`` investor alone; ``trust_2/3/4_<model>``
banker alone after $10/$50/$100 invested; ``trust_<model>_12/13/14`` investor first, then banker; ``trust_<model>_21/31/
41`` banker first, then investor. Only the investor's decision is an amount sent, the one thing RoleScope's imported
trust tables hold, so files without an investor question (banker only) are skipped with the reason.

Each **condition** is what the investor question followed, read from the conversations themselves: ``investor`` (asked
alone, only the choice asked), ``investor, reason asked`` (asked first, "Please explain your choice." appended; the
banker question comes after the decision, so it cannot have moved it) and ``investor after banker $X, reason asked``.
One run per model × condition (the model the API returned in ``responses``: gpt-4-0314, gpt-3.5-turbo-0301,
text-davinci-003), status ``imported``, level population; its files' sessions pool (``trust_<model>_12``, ``_13`` and
``_14`` make 90 sessions of ``investor, reason asked``). Each session is one unit without persona text (persona id
``<file code>-s<k>``, e.g. ``12-s07``), one ``trust_transfers`` row with

- ``source_amount``: the amount the reply highlights as the prompt asks, ``[$x]``. The repository stores no extracted
  amount (its authors extracted one with gpt-3.5-turbo, ``extract.ipynb``, and published the figures, not the
  output), so this is RoleScope's reading of the source's own answer format: every ``[$x]`` of the reply, leaving out
  an amount that is exactly 3 × the first (the growth the prompt describes); exactly one amount left is valid when in
  [0, endowment], else invalid with the reason (none highlighted; several different amounts; above the endowment);
- ``sent`` / ``valid`` / ``reason``: RoleScope's ``trust-amount`` reader on the same reply, as for a native run.

The endowment is the question's "You have $N to invest" ($100 in every file). ``text=True`` stores the replies
(``raw``) and the investor question; ``text=False`` (numbers only, the bundled demo) stores neither (``reply_note``).
Refused (``InputError`` naming the file, nothing stored): malformed JSON, no ``messages`` list, a conversation that is
not a list of messages, an investor question without the assistant's reply or without an endowment, responses naming
several models, a folder without any ``trust_*.json``. The run id hashes its files' bytes: importing twice stores
nothing twice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from analysis.errors import InputError, one_line
from analysis.importers.files import check_regular_file, decode, parse_json, read_bytes
from analysis.methods.trust.parse import extract_amount
from analysis.methods.trust.tables import TRANSFERS
from analysis.runs.store import Store

SOURCE = "yutxie/ChatGPT-Behavioral"
KIND = "chatgpt-behavioral"
IMPORT_COMMAND = "python -m analysis import chatgpt-behavioral PATH"
NOT_BUNDLED = f"text not bundled: {IMPORT_COMMAND}"
GAME = "Trust_Game"
BASE = "investor"
#: Conditions that play the unmanipulated one-shot game, in the order a model's base condition is chosen from them.
BASE_RANK = {BASE: 1, f"{BASE}, reason asked": 2}
REASON_ASKED = "reason asked"
INVESTOR = "You are an Investor"
BANKER = "You are a Banker"
BANKER_ONLY = ("banker (trustee) sessions only: RoleScope's imported trust tables hold the investor's amount sent; the "
               "banker's returns are not imported")
_FILE = re.compile(r"^trust_(?:(?P<code1>\d+)_(?P<model1>[A-Za-z0-9.-]+)|(?P<model2>[A-Za-z][A-Za-z0-9.-]*?)_(?P<code2>\d+))_"
                   r"\d{4}_\d\d_\d\d.*\.json$")
_ENDOWMENT = re.compile(r"You have \$\s*(\d+)", re.IGNORECASE)
_INVESTED = re.compile(r"invested \$\s*(\d+)", re.IGNORECASE)
_HIGHLIGHT = re.compile(r"\[\s*\$\s*(\d+(?:\.\d+)?)\s*\]")


@dataclass
class Unit:
    """One investor session read: its unit id, condition, endowment, reply and the API's finish reason."""

    persona_id: str
    condition: str
    endowment: int
    reply: str
    finish_reason: str | None
    question: str


@dataclass
class Parsed:
    """Every file read (nothing stored): the units per (model, condition), the files per run, and files skipped."""

    units: dict[tuple[str, str], list[Unit]] = field(default_factory=dict)
    files: dict[tuple[str, str], list[tuple[Path, bytes]]] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)


def file_code(path: Path) -> tuple[str, str] | None:
    """(the source's code, its model tag) of a ``trust_*.json`` name, None for another name."""
    m = _FILE.match(path.name)
    if m is None:
        return None
    return (m.group("code1") or m.group("code2")), (m.group("model1") or m.group("model2"))


def expand(paths: Sequence[str | Path]) -> list[Path]:
    """The ``trust_*.json`` files of ``paths`` (files, or folders searched recursively); InputError for a missing
    path, a folder without one or a named file of another name."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            found = sorted(p for p in path.rglob("trust_*.json") if p.is_file() and file_code(p))
            if not found:
                raise InputError(f"{path}: no records/trust_*.json file (ChatGPT-Behavioral's trust-game sessions)")
            files.extend(found)
        else:
            check_regular_file(path)
            if file_code(path) is None:
                raise InputError(f"{path}: not a ChatGPT-Behavioral trust_<code>_<model>_<date>.json record")
            files.append(path)
    return list({f.resolve(): f for f in files}.values())


def condition_of(conversation: list[dict[str, Any]], at: int) -> str:
    """What the investor question at message ``at`` followed (module docstring)."""
    before = [m["content"] for m in conversation[:at] if m.get("role") == "user" and BANKER in m["content"]]
    asked = "Please explain" in conversation[at]["content"]
    if before:
        invested = _INVESTED.search(before[-1])
        name = f"investor after banker ${invested.group(1) if invested else '?'}"
    else:
        name = BASE
    return f"{name}, {REASON_ASKED}" if asked else name


def _messages(path: Path, conv: Any, k: int) -> list[dict[str, Any]]:
    if not isinstance(conv, list) or not all(isinstance(m, dict) and isinstance(m.get("content"), str) for m in conv):
        raise InputError(f"{path}: messages[{k}]: expected a list of {{role, content}} messages")
    return conv


def model_of(path: Path, responses: Any) -> str:
    """The one model the API returned in ``responses``."""
    if not isinstance(responses, list):
        raise InputError(f"{path}: field 'responses' is missing or not a list")
    names = {r.get("model") for conv in responses if isinstance(conv, list) for r in conv if isinstance(r, dict)}
    names.discard(None)
    if len(names) != 1:
        raise InputError(f"{path}: responses name {len(names)} models ({', '.join(sorted(map(str, names)))}); expected one")
    return one_line(str(names.pop()))


def read_file(path: Path, content: bytes) -> tuple[str, list[Unit]]:
    """(model, the investor units) of one record file (empty: no investor question)."""
    code, _ = file_code(path) or ("?", "?")
    doc = parse_json(decode(content, path), path)
    if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
        raise InputError(f"{path}: expected an object with a list 'messages' (and 'responses')")
    model = model_of(path, doc.get("responses"))
    responses = doc["responses"]
    units = []
    for k, raw in enumerate(doc["messages"]):
        conv = _messages(path, raw, k)
        at = next((i for i, m in enumerate(conv) if m.get("role") == "user" and INVESTOR in m["content"]), None)
        if at is None:
            continue
        if at + 1 >= len(conv) or conv[at + 1].get("role") != "assistant":
            raise InputError(f"{path}: messages[{k}]: the investor question has no reply after it")
        endowment = _ENDOWMENT.search(conv[at]["content"])
        if endowment is None:
            raise InputError(f"{path}: messages[{k}]: the investor question states no endowment ('You have $N')")
        turn = sum(1 for m in conv[:at + 1] if m.get("role") == "user") - 1
        finish = _finish(responses, k, turn)
        units.append(Unit(f"{code}-s{k + 1:02d}", condition_of(conv, at), int(endowment.group(1)),
                          conv[at + 1]["content"], finish, conv[at]["content"]))
    return model, units


def _finish(responses: list[Any], k: int, turn: int) -> str | None:
    try:
        value = responses[k][turn]["choices"][0].get("finish_reason")
    except (IndexError, KeyError, TypeError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def highlighted(reply: str, endowment: int) -> tuple[float | None, bool, str | None]:
    """(amount, valid, reason) of the ``[$x]`` the reply highlights (module docstring)."""
    found = [float(x) for x in _HIGHLIGHT.findall(reply or "")]
    if not found:
        return None, False, "no amount highlighted as [$x]"
    kept = sorted({x for x in found if x == found[0] or x != 3 * found[0]})
    if len(kept) > 1:
        return None, False, f"ambiguous: highlights {', '.join(f'${x:g}' for x in kept)}"
    if kept[0] > endowment:
        return kept[0], False, f"the highlighted ${kept[0]:g} is above the ${endowment} endowment"
    return kept[0], True, None


def parse_paths(paths: Sequence[str | Path]) -> Parsed:
    """Every trust record of ``paths`` read and checked, nothing stored; any bad file raises InputError."""
    out = Parsed()
    for path in expand(paths):
        content = read_bytes(path)
        model, units = read_file(path, content)
        if not units:
            out.skipped.append({"path": str(path), "reason": BANKER_ONLY})
            continue
        for unit in units:
            mine = out.units.setdefault((model, unit.condition), [])
            if any(u.persona_id == unit.persona_id for u in mine):  # a second file of the same code: its own ids
                unit.persona_id = f"{path.stem.split('_', 1)[1]}-{unit.persona_id.rsplit('-', 1)[1]}"
            mine.append(unit)
        for cond in dict.fromkeys(u.condition for u in units):
            out.files.setdefault((model, cond), []).append((path, content))
    if not out.units:
        raise InputError(f"{', '.join(map(str, paths))}: no investor session to import ({len(out.skipped)} file(s) of "
                         "banker sessions only)")
    return out


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-")[:40] or "x"


@dataclass
class Run:
    """One model × condition, ready to store."""

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
        return {"model": self.model, "condition": self.condition, "run_id": self.run_id, **self.plan["summary"]}


def build_run(model: str, condition: str, units: list[Unit], files: list[tuple[Path, bytes]], *, text: bool) -> Run:
    """The rows and plan of one model × condition (module docstring)."""
    digest = hashlib.sha256(b"".join(p.name.encode() + b"\0" + c for p, c in sorted(files))).hexdigest()
    run_id = f"{KIND}-trust-{_slug(condition)}-{_slug(model)}-{digest[:10]}" + ("" if text else "-numbers")
    endowment = units[0].endowment
    rows = []
    for u in units:
        amount, ok, why = highlighted(u.reply, u.endowment)
        got = extract_amount(u.reply, u.endowment, u.finish_reason)
        rows.append({"run_id": run_id, "model": model, "endowment": u.endowment, "conditioning": "none",
                     "persona_id": u.persona_id, "source": KIND, "split": None, "attributes": None, "sent": got.amount,
                     "extraction": got.how, "valid": int(got.valid), "reason": got.reason,
                     "raw": u.reply if text else None, "finish_reason": u.finish_reason, "cache_key": None,
                     "condition": condition, "source_amount": amount, "source_valid": int(ok), "source_reason": why,
                     "reply_note": None if text else NOT_BUNDLED})
    personas = [{"id": u.persona_id, "description": f"no persona: session {u.persona_id}"} for u in units]
    plan: dict[str, Any] = {
        "method": "trust", "imported": True, "source": SOURCE, "kind": KIND, "level": "population", "game": GAME,
        "condition": condition, "role": "investor", "endowment": endowment, "reader": "trust-amount",
        "source_files": [p.name for p, _ in files], "sha256": digest, "personas": personas,
        "summary": {"personas": len(rows), "source_valid": sum(r["source_valid"] for r in rows),
                    "reader_valid": sum(r["valid"] for r in rows)},
        "design": {"game": GAME, "condition": condition, "endowment": endowment, "personas": [p["id"] for p in personas],
                   # the plain investor game is this source's unmanipulated one-shot game, its base condition (1); asked
                   # with a reason (the game unchanged, an explanation asked, as agent-trust's base asks one) it is the
                   # base of a model that has no plain one (2)
                   **({"base": BASE_RANK[condition]} if condition in BASE_RANK else {})},
        "text_bundled": text,
        "note": "source_amount: the amount the reply highlights as [$x] (the source stores no extracted amount)",
    }
    if text:
        plan |= {"paths": [str(p.resolve()) for p, _ in files], "game_prompt": units[0].question}
    else:
        plan |= {"full_import": IMPORT_COMMAND}
        plan["note"] += f"; numbers only: the replies and the game prompt are not stored; {NOT_BUNDLED}"
    return Run(run_id, model, condition, plan, rows)


def build_runs(parsed: Parsed, *, text: bool = True) -> list[Run]:
    """One run per model × condition, the base condition last (each model's newest configuration: the one a page
    opens on), then the reason-asked one."""
    runs = [build_run(model, cond, units, parsed.files[(model, cond)], text=text)
            for (model, cond), units in parsed.units.items()]
    return sorted(runs, key=lambda r: (r.condition == BASE, r.condition == f"{BASE}, {REASON_ASKED}", r.run_id))


def store_runs(store: Store, runs: Sequence[Run]) -> dict[str, bool]:
    """Each run in its own transaction: run id -> whether it was new."""
    return {r.run_id: store.import_run(r.run_id, "trust", r.model, r.model_spec, r.plan, {TRANSFERS.name: r.rows})
            for r in runs}


def import_paths(store: Store, paths: Sequence[str | Path], *, text: bool = True) -> list[str]:
    """Import the investor sessions of ``paths``: every file read first (a bad one: InputError, nothing stored)."""
    return list(store_runs(store, build_runs(parse_paths(paths), text=text)))


def load_bundled(store: Store, path: Path) -> list[str]:
    """``BundledImport.load``: the investor sessions under ``path``, numbers only."""
    return import_paths(store, [path], text=False)
