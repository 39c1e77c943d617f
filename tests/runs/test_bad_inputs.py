"""Bad input the CLI refuses with one line on stderr naming what is wrong, exit 2, no traceback, and nothing stored:
oversized CSV fields, malformed models.toml, hostile options, plans that cannot run, and the like."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis.__main__ import main

MODEL = "x@http://127.0.0.1:9/v1"  # nothing listens: every test here must fail before a call is made
BIG = "x" * 140_000  # longer than csv.field_size_limit() (131,072)


def refused(argv: list[str], capsys: pytest.CaptureFixture[str], *needles: str) -> str:
    """Run the CLI; assert exit 2, exactly one stderr line holding every needle, no traceback; return the line."""
    code = main(argv)
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code == 2, (code, err)
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, (needle, err)
    return err


def stored_runs(store: Path, capsys: pytest.CaptureFixture[str]) -> list[dict]:
    """The runs of ``store`` as ``runs --json`` lists them ([] when the store was never created)."""
    if not store.exists():
        return []
    assert main(["runs", "--store", str(store), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# -- 1. CSV fields over csv.field_size_limit() ------------------------------------------------------------------------

def _pvq_folder(root: Path, cell: str) -> Path:
    folder = root / "data_pvq"
    (folder / "test").mkdir(parents=True)
    (folder / "raw").mkdir()
    (folder / "raw/values.json").write_text("{}")
    for name in ("pvq_male_test.csv", "pvq_female_test.csv"):
        (folder / "test" / name).write_text(f'"{cell}",a,b,c,d,e,f,undef\n"{BIG}",a,b,c,d,e,f,undef\n')
    return folder / "test/pvq_male_test.csv"


CSV_ENTRIES = {
    "values population": (lambda p: f'name,description,gender\nAda,"short",F\nBob,"{BIG}",M\n',
                          lambda p: ["run", "values", "--model", MODEL, "--population", str(p)], "row 3 (line 3)"),
    "personagym personas": (lambda p: f'id,description\na,"short"\nb,"{BIG}"\n',
                            lambda p: ["run", "personagym", "--model", MODEL, "--personas", str(p)], "row 3 (line 3)"),
    "mbti statements": (lambda p: f'id,text\n1,"{BIG}"\n',
                        lambda p: ["run", "mbti", "--model", MODEL, "--statements", str(p)], "row 2 (line 2)"),
    "mbti key": (lambda p: f'id,dimension,direction\n1,"{BIG}",1\n',
                 lambda p: ["run", "mbti", "--model", MODEL, "--key", str(p)], "row 2 (line 2)"),
    "mbti header": (lambda p: f'id,"{BIG}"\n1,x\n',
                    lambda p: ["run", "mbti", "--model", MODEL, "--statements", str(p)], "row 1 (line 1)"),
    "import chatgpt-mbti": (lambda p: f'people,Answers\n"multi\nline",ok\n"{BIG}",x\n',
                            lambda p: ["import", "chatgpt-mbti", str(p)], "row 3 (line 4)"),
}


@pytest.mark.parametrize("entry", list(CSV_ENTRIES))
def test_csv_field_over_the_limit_names_file_and_row(entry: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    content, argv, where = CSV_ENTRIES[entry]
    path = tmp_path / "big.csv"
    path.write_text(content(path), encoding="utf-8")
    store = tmp_path / "s.db"
    refused([*argv(path), "--store", str(store)], capsys, str(path), where, "131,072")
    assert stored_runs(store, capsys) == []


def test_csv_field_over_the_limit_in_an_instrument_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    male = _pvq_folder(tmp_path, "You like parties.")
    store = tmp_path / "s.db"
    refused(["run", "values", "--model", MODEL, "--instrument", str(male.parents[1]), "--store", str(store)], capsys,
            str(male), "row 2 (line 2)", "131,072")
    assert stored_runs(store, capsys) == []
