"""Loading inventories: five-factor-e's questions.json (the public-domain IPIP-NEO texts, read from
``../shared/anchors/ipip_neo``), RoleScope's JSON format, the bundled short form, and bad files (one clear line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.methods.inventory.inventory import ipip_keys, load_inventory, parse_inventory
from tests.methods.inventory import ANCHORS

needs_anchors = pytest.mark.skipif(not ANCHORS.is_dir(), reason="../shared/anchors/ipip_neo not present")


@needs_anchors
@pytest.mark.parametrize("n, reversed_", [(120, 55), (300, 148)])
def test_ipip_neo_from_five_factor_questions(n: int, reversed_: int) -> None:
    inv = load_inventory(ANCHORS / str(n) / "questions.json")
    assert (inv.name, len(inv.items), inv.norms) == (f"ipip-neo-{n}", n, f"ipip-neo-{n}")
    assert sum(i.reverse for i in inv.items) == reversed_  # five-factor-e's own count (reverse.py asserts it)
    assert {d: sum(i.domain == d for i in inv.items) for d in "OCEAN"} == {d: n // 5 for d in "OCEAN"}
    assert len(inv.facets) == 30 and all(sum(i.facet == f for i in inv.items) == n // 30 for f in inv.facets)
    assert inv.items[0].text == json.loads((ANCHORS / str(n) / "questions.json").read_text())["questions"][0]["text"]
    assert inv.options[0].lower() == "very inaccurate" and inv.n_options == 5


@needs_anchors
def test_the_key_is_five_factor_e_facet_layout() -> None:
    """Item 1 is N1 (Anxiety), 2 E1 (Friendliness), 3 O1 (Imagination), 4 A1 (Trust), 5 C1 (Self-efficacy), 6 N2
    (Anger); item 31 is N1 again (``Facet.score`` sums items j, j + 30, j + 60, j + 90 into facet column j)."""
    keys = ipip_keys(120)
    assert [keys[i][:2] for i in (1, 2, 3, 4, 5, 6, 31)] == [("N", "N1"), ("E", "E1"), ("O", "O1"), ("A", "A1"),
                                                             ("C", "C1"), ("N", "N2"), ("N", "N1")]
    inv = load_inventory("ipip-neo-120")
    assert (inv.facets["A1"].name, inv.facets["C1"].name) == ("Trust", "Self efficacy")


def test_the_bundled_short_form() -> None:
    inv = load_inventory("rolescope-mini")
    assert len(inv.items) == 20 and inv.norms is None
    assert {d: sum(i.domain == d for i in inv.items) for d in "OCEAN"} == dict.fromkeys("OCEAN", 4)
    assert [i.domain for i in inv.items[:5]] == ["E", "A", "C", "N", "O"]  # the first K items touch every domain
    limited = inv.limited(6)
    assert len(limited.items) == 6 and limited.norms is None


def test_a_rolescope_inventory_file(tmp_path: Path) -> None:
    path = tmp_path / "bfi.json"
    path.write_text(json.dumps({"name": "my-bfi", "options": ["Disagree", "Neutral", "Agree"],
                                "domains": {"E": "Extraversion"},
                                "items": [{"id": "1", "text": "Is talkative", "domain": "E"},
                                          {"id": "2", "text": "Is reserved", "domain": "E", "reverse": True}]}))
    inv = load_inventory(path)
    assert inv.keyed(inv.items[1], 1) == 3 and inv.keyed(inv.items[0], 1) == 1


@pytest.mark.parametrize("doc, message", [
    ({"name": "x", "options": ["a", "b"], "domains": {"E": "E"}, "items": [{"id": "1", "text": "t", "domain": "Q"}]},
     "domain 'Q' is not in domains"),
    ({"name": "x", "options": ["a"], "domains": {"E": "E"}, "items": [{"id": "1", "text": "t", "domain": "E"}]},
     "needs 2 to 9 response options"),
    ({"name": "x", "options": ["a", "b"], "domains": {"E": "E"}, "items": [{"id": "1", "text": "t"}]},
     "no item is keyed"),
    ({"questions": [{"id": 1, "text": "t"}], "select": []}, "five-factor-e keys IPIP-NEO-120 and IPIP-NEO-300 only"),
    ([1, 2], "expected a JSON object"),
])
def test_bad_inventories_say_what_and_where(doc, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        parse_inventory(doc, "inv.json")
    assert str(err.value).startswith("inv.json") and "\n" not in str(err.value)


def test_unreadable_and_missing_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_inventory(bad)
    with pytest.raises(InputError, match="not found"):
        load_inventory(tmp_path / "nowhere.json")
    monkeypatch.setenv("ROLESCOPE_IPIP_NEO", str(tmp_path))
    monkeypatch.setattr("analysis.methods.inventory.inventory.ANCHORS_COPY", tmp_path / "none")
    with pytest.raises(InputError, match="item texts are not on this machine"):
        load_inventory("ipip-neo-300")
