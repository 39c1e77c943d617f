"""``run inventory`` and ``metrics inventory`` from the command line: bad input is one line naming what and where,
exit 2, and nothing is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.store import Store


def run(args: list[str], capsys) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    (json.dumps({"name": "x", "options": ["a", "b"], "domains": {"E": "E"}, "items": [{"id": "1", "text": "t",
                                                                                        "domain": "Z"}]}),
     "domain 'Z' is not in domains"),
])
def test_a_bad_inventory_file_is_one_line(tmp_path: Path, capsys, content: str, message: str) -> None:
    bad = tmp_path / "inv.json"
    bad.write_text(content)
    store = tmp_path / "s.db"
    code, out, err = run(["run", "inventory", "--model", "embedded", "--inventory", str(bad), "--store", str(store)], capsys)
    assert code == 2 and out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and str(bad) in lines[0]
    assert not store.exists() or Store(store, read_only=True).runs().empty


def test_options_out_of_the_design(tmp_path: Path, capsys) -> None:
    code, _, err = run(["run", "inventory", "--model", "embedded", "--inventory", "rolescope-mini", "--levels", "10",
                        "--store", str(tmp_path / "s.db")], capsys)
    assert code == 2 and "--levels" in err and len(err.strip().splitlines()) == 1


def test_metrics_of_a_model_without_answers(tmp_path: Path, capsys) -> None:
    Store(tmp_path / "s.db").close()
    code, out, err = run(["metrics", "inventory", "--store", str(tmp_path / "s.db"), "--model", "nobody", "--json"], capsys)
    assert code == 2 and out == "" and "no inventory answers for model 'nobody'" in err
