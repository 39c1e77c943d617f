"""An inventory as data: Likert items keyed to domains (and facets), reverse keys, response options, optional norms.

Formats read (``load_inventory``):

- **RoleScope inventory JSON** (documented in ``docs/methods/inventory.md``)::

      {"name": "bfi-44", "title": "...", "source": "...",
       "options": ["Disagree strongly", ..., "Agree strongly"],      # ascending: option i scores i + 1
       "domains": {"E": "Extraversion", ...},
       "facets": {"E1": {"name": "Friendliness", "domain": "E"}},   # optional
       "items": [{"id": "1", "text": "Is talkative", "domain": "E", "facet": null, "reverse": false}],
       "norms": null}                                               # or "ipip-neo-120" / "ipip-neo-300"

- **five-factor-e's** ``questions.json`` (``{"questions": [{id, text}], "select": [{id, text}]}``, 120 or 300 items):
  the IPIP-NEO item texts. Domains, facets and reverse keys are the package's (``ipipneo``): item n belongs to facet
  column (n − 1) mod 30, whose domain cycles N, E, O, A, C (``ipipneo.facet.Facet.b5create``), and it is reversed
  when listed in ``ipipneo.reverse.IPIP_NEO_ITEMS_REVERSED_{120,300}``; norms are Johnson's (2014) by sex and age.
- Either from the hub: ``hf://datasets/<owner>/<name>/<file>``.

Names: ``ipip-neo-120`` / ``ipip-neo-300`` are the public-domain item texts found in ``$ROLESCOPE_IPIP_NEO/<n>/
questions.json`` or in the shared anchors copy beside the repository (never downloaded); ``rolescope-mini`` is
RoleScope's own 20-item short form (``inventories/rolescope-mini.json``), authored here, without norms.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from analysis.errors import InputError
from analysis.sources import REPO_ROOT, existing_path, hub_file, is_hub_path, split_hub_path

HERE = Path(__file__).resolve().parent
BUNDLED = {"rolescope-mini": HERE / "inventories/rolescope-mini.json"}
IPIP = {"ipip-neo-120": 120, "ipip-neo-300": 300}
#: Where ``ipip-neo-120`` / ``-300`` are looked for when ``$ROLESCOPE_IPIP_NEO`` is not set: the shared anchors copy.
ANCHORS_COPY = REPO_ROOT.parent / "shared" / "anchors" / "ipip_neo"
NAMES = (*IPIP, *BUNDLED)
DEFAULT = "ipip-neo-120"
#: five-factor-e's facet columns cycle through the domains in this order (``Facet.b5create``).
IPIP_DOMAIN_CYCLE = ("N", "E", "O", "A", "C")


class Item(BaseModel):
    id: str
    text: str = Field(min_length=1)
    domain: str | None = Field(None, description="None: unkeyed (asked, never scored)")
    facet: str | None = None
    reverse: bool = False


class Facet(BaseModel):
    name: str
    domain: str


class Inventory(BaseModel):
    """A Likert inventory, resolved (a stored plan holds it whole, so a run never reads the file again)."""

    name: str
    title: str = ""
    source: str = ""
    options: list[str] = Field(description="Response labels, ascending: option i scores i + 1.")
    domains: dict[str, str]
    facets: dict[str, Facet] = Field(default_factory=dict)
    items: list[Item]
    norms: str | None = Field(None, description="ipip-neo-120 | ipip-neo-300: Johnson's norms via five-factor-e")

    @model_validator(mode="after")
    def _check(self) -> Inventory:
        if not 2 <= len(self.options) <= 9:
            raise ValueError(f"needs 2 to 9 response options (one digit each), has {len(self.options)}")
        ids = [i.id for i in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError(f"item ids repeat: {sorted({i for i in ids if ids.count(i) > 1})[:5]}")
        for item in self.items:
            if item.domain is not None and item.domain not in self.domains:
                raise ValueError(f"item {item.id}: domain '{item.domain}' is not in domains {list(self.domains)}")
            if item.facet is not None and item.facet not in self.facets:
                raise ValueError(f"item {item.id}: facet '{item.facet}' is not in facets")
        if not any(i.domain for i in self.items):
            raise ValueError("no item is keyed to a domain: nothing could be scored")
        if self.norms not in (None, *IPIP):
            raise ValueError(f"norms '{self.norms}': known norms are {', '.join(IPIP)}")
        return self

    @property
    def n_options(self) -> int:
        return len(self.options)

    def keyed(self, item: Item, score: float) -> float:
        """An answer's keyed score: reversed items count (k + 1) − score on a k-option scale."""
        return self.n_options + 1 - score if item.reverse else score

    def limited(self, k: int | None, whole_facets: Collection[str] = ()) -> Inventory:
        """The first ``k`` items (all when None), plus every later item of a facet in ``whole_facets``, in the
        inventory's order (a facet is the narrowest scale: 4 items in IPIP-NEO-120, of which its first 60 hold 2; a
        domain's first items already sample each of its facets). Norms need every item: a limited inventory keeps
        none."""
        if k is None or k >= len(self.items):
            return self
        whole = set(whole_facets)
        extra = [i for i in self.items[k:] if i.facet in whole]
        added = sorted({i.facet for i in extra if i.facet})
        name = f"{self.name} (first {k} items" + (f", all of {', '.join(added)})" if added else ")")
        return self.model_copy(update={"items": self.items[:k] + extra, "norms": None, "name": name})


def ipip_keys(n: int) -> dict[int, tuple[str, str, bool]]:
    """five-factor-e's key of IPIP-NEO-``n``: item number -> (domain, facet code, reversed)."""
    from ipipneo.reverse import IPIP_NEO_ITEMS_REVERSED_120, IPIP_NEO_ITEMS_REVERSED_300

    reversed_ = set(IPIP_NEO_ITEMS_REVERSED_120 if n == 120 else IPIP_NEO_ITEMS_REVERSED_300)
    keys = {}
    for number in range(1, n + 1):
        column = (number - 1) % 30
        domain = IPIP_DOMAIN_CYCLE[column % 5]
        keys[number] = (domain, f"{domain}{column // 5 + 1}", number in reversed_)
    return keys


@cache
def ipip_facet_names() -> dict[str, str]:
    """Facet code (``O1`` …) -> its name as five-factor-e reports it (``imagination`` …), read from the package's own
    result on a neutral answer sheet."""
    from ipipneo import IpipNeo

    result = IpipNeo(question=120).compute(
        sex="N", age=30, answers={"answers": [{"id_question": i, "id_select": 3} for i in range(1, 121)]})
    names = {}
    for entry in result["person"]["result"]["personalities"]:
        (domain_doc,) = entry.values()
        letter = next(k for k in domain_doc if len(k) == 1)
        for trait in domain_doc["traits"]:
            name = next(k for k in trait if k not in ("trait", "score"))
            names[f"{letter}{trait['trait']}"] = name.replace("_", " ").capitalize()
    return names


def from_five_factor_questions(doc: dict[str, Any], where: str) -> Inventory:
    """An IPIP-NEO inventory from five-factor-e's ``questions.json`` document (keys from the package)."""
    questions, select = doc.get("questions"), doc.get("select")
    if not isinstance(questions, list) or not isinstance(select, list):
        raise InputError(f"{where}: expected {{'questions': [...], 'select': [...]}} (five-factor-e's questions.json)")
    n = len(questions)
    if n not in (120, 300):
        raise InputError(f"{where}: {n} questions; five-factor-e keys IPIP-NEO-120 and IPIP-NEO-300 only")
    keys = ipip_keys(n)
    names = ipip_facet_names()
    try:
        numbers = [int(q["id"]) for q in questions]
        items = [Item(id=str(int(q["id"])), text=str(q["text"]).strip(), domain=keys[int(q["id"])][0],
                      facet=keys[int(q["id"])][1], reverse=keys[int(q["id"])][2]) for q in questions]
        options = [str(s["text"]).strip() for s in sorted(select, key=lambda s: int(s["id"]))]
    except (KeyError, TypeError, ValueError, ValidationError) as exc:
        raise InputError(f"{where}: question or option without id/text ({type(exc).__name__}: {exc})") from None
    if sorted(numbers) != list(range(1, n + 1)):
        raise InputError(f"{where}: question ids must be 1..{n}")
    from analysis.methods.inventory import BIG_FIVE

    return Inventory(name=f"ipip-neo-{n}", title=f"IPIP-NEO-{n}", norms=f"ipip-neo-{n}",
                     source="IPIP-NEO (Goldberg 1999; Johnson 2014), public domain; keys and norms: five-factor-e",
                     options=options, domains=dict(BIG_FIVE),
                     facets={code: Facet(name=names.get(code, code), domain=code[0]) for code in sorted({k[1] for k in keys.values()})},
                     items=sorted(items, key=lambda i: int(i.id)))


def parse_inventory(doc: Any, where: str) -> Inventory:
    """An inventory from a parsed JSON document of either format; errors name the file and the field."""
    if isinstance(doc, dict) and "questions" in doc and "items" not in doc:
        return from_five_factor_questions(doc, where)
    if not isinstance(doc, dict):
        raise InputError(f"{where}: expected a JSON object (RoleScope inventory or five-factor-e questions.json)")
    try:
        return Inventory.model_validate(doc)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "inventory"
        raise InputError(f"{where}: {field}: {err['msg']}") from None


def ipip_path(n: int) -> Path | None:
    """The ``questions.json`` of IPIP-NEO-``n`` on this machine: ``$ROLESCOPE_IPIP_NEO/<n>/`` or the anchors copy."""
    for root in (os.environ.get("ROLESCOPE_IPIP_NEO"), ANCHORS_COPY):
        if root and (Path(root) / str(n) / "questions.json").is_file():
            return Path(root) / str(n) / "questions.json"
    return None


def available() -> dict[str, bool]:
    """Every named inventory and whether it can be loaded here."""
    return {**{name: ipip_path(n) is not None for name, n in IPIP.items()}, **{n: p.is_file() for n, p in BUNDLED.items()}}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None


def load_inventory(source: str | Path = DEFAULT) -> Inventory:
    """The inventory named, at a path, or on the hub (see the module docstring)."""
    text = str(source)
    if text in IPIP:
        path = ipip_path(IPIP[text])
        if path is None:
            raise InputError(f"inventory {text}: its item texts are not on this machine; give --inventory PATH to "
                             f"five-factor-e's {IPIP[text]}/questions.json or set ROLESCOPE_IPIP_NEO to its folder")
        return parse_inventory(_read_json(path), str(path))
    if text in BUNDLED:
        return parse_inventory(_read_json(BUNDLED[text]), text)
    if is_hub_path(text):
        repo, file = split_hub_path(text)
        return parse_inventory(_read_json(hub_file(repo, file)), text)
    path = existing_path(text, "inventory")
    if path.is_dir():
        path = path / "questions.json"
        if not path.is_file():
            raise InputError(f"inventory {source}: a folder without questions.json")
    return parse_inventory(_read_json(path), str(path))
