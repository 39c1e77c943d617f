"""The bundled statements, the statement/key loaders, and the correctness-evaluated prompts."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from analysis.errors import InputError
from analysis.methods.mbti import DIMENSIONS, OPTIONS
from analysis.methods.mbti.prompts import letter_question, option_order, option_seed, text_question
from analysis.methods.mbti.statements import CHATGPT_MBTI_KEY, load_key, load_statements, signed_key


def test_bundled_set_is_balanced() -> None:
    """>= 10 statements per dimension, equal numbers in both directions, unique ids, second person."""
    st = load_statements("default")
    counts = Counter((s.dimension, s.direction) for s in st.statements)
    for dim in DIMENSIONS:
        assert counts[(dim, 1)] + counts[(dim, -1)] >= 10
        assert counts[(dim, 1)] == counts[(dim, -1)]
    assert len({s.id for s in st.statements}) == len(st.statements) == 60
    assert all(s.text.startswith(("You ", "Your ", "In ", "When ", "Small ", "Long ", "A ")) for s in st.statements)
    assert all(" you" in f" {s.text.lower()}" or "your" in s.text.lower() for s in st.statements)


def test_chatgpt_mbti_key_covers_items_1_to_60_once() -> None:
    """The original study's key: items 1..60 each keyed once; 12/11/12/13/12 per dimension; reversed items."""
    key = signed_key(CHATGPT_MBTI_KEY, "key")  # type: ignore[arg-type]
    assert sorted(map(int, key)) == list(range(1, 61))
    assert Counter(d for d, _ in key.values()) == {"E": 12, "N": 11, "T": 12, "J": 13, "A": 12}
    assert key["1"] == ("E", 1) and key["6"] == ("E", -1) and key["3"] == ("T", -1) and key["60"] == ("A", 1)
    reversed_per_dim = Counter(dim for dim, d in key.values() if d == -1)
    assert reversed_per_dim == {"E": 5, "N": 5, "T": 7, "J": 6, "A": 7}  # 30 of 60


def test_txt_statements_with_named_key(tmp_path: Path) -> None:
    """A numbered .txt file keyed with --key chatgpt-mbti: ids from the numbers, key applied by id."""
    lines = [f"{n}. You statement number {n}." for n in range(1, 61)]
    path = tmp_path / "sixty.txt"
    path.write_text("\n".join(lines) + "\n\n", encoding="utf-8")
    st = load_statements(path, key="chatgpt-mbti")
    assert len(st.statements) == 60 and st.statements[0].text == "You statement number 1."
    by_id = {s.id: s for s in st.statements}
    assert (by_id["6"].dimension, by_id["6"].direction) == ("E", -1)
    assert (by_id["59"].dimension, by_id["59"].direction) == ("J", -1)
    assert len(st.limited(5).statements) == 5


def test_csv_statements_with_own_key_columns(tmp_path: Path) -> None:
    """A CSV with id,text,dimension,direction (minus signs in any spelling) is keyed by its columns."""
    path = tmp_path / "s.csv"
    content = "id,text,dimension,direction\na,You like parties.,E/I,+\nb,You like quiet.,E,−\nc,You plan.,J/P,-1\n"
    path.write_text(content, encoding="utf-8")
    st = load_statements(path)
    assert [(s.id, s.dimension, s.direction) for s in st.statements] == [("a", "E", 1), ("b", "E", -1), ("c", "J", -1)]


def test_csv_without_key_needs_one(tmp_path: Path) -> None:
    """Unkeyed statements without --key are refused; a JSON signed key or a CSV key file keys them."""
    path = tmp_path / "s.csv"
    path.write_text("text\nYou like parties.\nYou like quiet.\n", encoding="utf-8")
    with pytest.raises(InputError, match="no statement is keyed"):
        load_statements(path)
    key_json = tmp_path / "k.json"
    key_json.write_text(json.dumps({"E/I": [1, -2]}), encoding="utf-8")
    assert [(s.dimension, s.direction) for s in load_statements(path, key_json).statements] == [("E", 1), ("E", -1)]
    key_csv = tmp_path / "k.csv"
    key_csv.write_text("id,dimension,direction\n2,A/T,+\n", encoding="utf-8")
    assert [(s.dimension, s.direction) for s in load_statements(path, key_csv).statements] == [(None, 1), ("A", 1)]


@pytest.mark.parametrize(("content", "message"), [
    ('{"statements": [{"id": "1", "text": "You x.", "dimension": "Q"}]}', "dimension 'Q'"),
    ('{"statements": [{"id": "1", "text": "You x.", "dimension": "E", "direction": "?"}]}', "direction '\\?'"),
    ('{"statements": [{"id": "1", "text": "You x.", "dimension": "I"}]}', "dimension 'I'"),
    ('{"statements": [{"id": "1", "text": "a", "dimension": "E"}, {"id": "1", "text": "b", "dimension": "E"}]}', "not unique"),
    ('{"statements": [{"id": "1", "text": "  ", "dimension": "E"}]}', "statements.0.text"),
    ("{not json", "invalid JSON"),
])
def test_bad_statement_files_name_the_problem(tmp_path: Path, content: str, message: str) -> None:
    """Malformed statement files raise InputError naming the file and field."""
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        load_statements(path)
    assert str(path) in str(err.value)


def test_bad_keys(tmp_path: Path) -> None:
    """Keys naming an item twice, zero, missing files or unknown statements are refused."""
    with pytest.raises(InputError, match="keyed twice"):
        signed_key({"E": [1], "N": [-1]}, "k")
    with pytest.raises(InputError, match="signed item number"):
        signed_key({"E": [0]}, "k")
    with pytest.raises(InputError, match="file not found"):
        load_key(tmp_path / "nope.json")
    with pytest.raises(InputError, match="not in the set"):
        load_statements("default", key="chatgpt-mbti").with_key({"999": ("E", 1)})


def test_permutations_are_seeded_and_fixed_is_canonical() -> None:
    """A permutation depends only on its seed; 'fixed' is Correct..Wrong; seeds differ across testings."""
    s1 = option_seed(0, "Men", "permuted", 0, "1")
    assert s1 == option_seed(0, "Men", "permuted", 0, "1")
    assert option_order("permuted", s1) == option_order("permuted", s1)
    assert sorted(option_order("permuted", s1)) == list(range(7))
    assert option_order("fixed", None) == list(range(7))
    orders = {tuple(option_order("permuted", option_seed(0, "Men", "permuted", t, "1"))) for t in range(15)}
    assert len(orders) >= 14  # 15 draws of 5040 orders: a repeat is possible but not two


def test_question_texts_list_every_option_in_display_order() -> None:
    """Text mode lists the 7 options in words in the given order and asks why; logprob mode letters them A-G."""
    order = [6, 0, 3, 5, 1, 4, 2]
    q = text_question("Men enjoy parties.", order)
    assert q.startswith("Is the following statement wrong, correct, neither correct nor wrong, generally wrong, "
                        "generally correct, partially wrong, or partially correct? Why?")
    assert q.endswith("Statement: Men enjoy parties.")
    lq = letter_question("Men enjoy parties.", order)
    assert "A. Wrong\nB. Correct\nC. Neither correct nor wrong" in lq and "G. Partially correct" in lq
    assert all(label in lq for label in OPTIONS)
