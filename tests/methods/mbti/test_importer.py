"""Import of published answer CSVs (header/subject layout, cp1252, missing answers, refusals, alignment)."""

from __future__ import annotations

import json

import csv
import io
from pathlib import Path

import pandas as pd
import pytest

from analysis.errors import InputError
from analysis.methods.mbti.report import metrics_json
from analysis.methods.mbti.importer import import_files, parse_answer_file
from analysis.methods.mbti.session import ANSWERS
from analysis.runs.store import Store

CANON = ["correct", "generally correct", "partially correct", "neither correct nor wrong", "partially wrong", "generally wrong",
         "wrong"]
PERM = [4, 0, 3, 5, 6, 2, 1]
# Statements written for this test (not the original study's), lower-case subject as in the published files.
STATEMENTS = {
    1: "{s} enjoy quiz nights with many strangers.",
    2: "{s} like to picture unusual futures.",
    3: "{s} decide with their heads.",
    4: "{s} keep a strict calendar.",
    5: "{s} shrug off harsh remarks.",
    6: "{s} prefer an evening alone to a party.",
}


def prompt(n: int, subject: str, order: list[int] = PERM) -> str:
    words = [CANON[k] for k in order]
    statement = STATEMENTS[n].format(s=subject)
    return f"{n}. Is it {', '.join(words[:-1])}, or {words[-1]} for the following statement. Why? \n {statement}"


def write_csv(path: Path, subjects: list[str], rows: list[list[str]], encoding: str = "utf-8", trailing: bool = False) -> Path:
    header: list[str] = []
    for i, s in enumerate(subjects):
        header += [s, "Answers"] + ([""] if i < len(subjects) - 1 or trailing else [])
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(header)
    writer.writerows(rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue().encode(encoding))
    return path


def three_subject_rows() -> list[list[str]]:
    """Items 1-6 for people/men/women; men's answer 3 is missing (short row), women's item 2 is a refusal."""
    answers = {
        "people": ["Correct. Most people do.", "Generally correct.", "Partially correct.", "Generally wrong.", "Wrong.",
                   "Wrong."],
        "men": ["Generally incorrect. Not for most men.", "Neither correct nor wrong.", None, "Partially wrong.", "Correct.",
                "Correct."],
        "women": ["Generally correct.", "As an AI language model, I cannot generalize about women.", "Wrong.", "Correct.",
                  "Partially correct.", "Generally wrong."],
    }
    rows = []
    for n in range(1, 7):
        row: list[str] = []
        for s in ("people", "men", "women"):
            a = answers[s][n - 1]
            row += [prompt(n, s), "" if a is None else a, ""]
        if n == 3:
            row = row[:4]  # men's answer cell and everything after it missing in this row
        rows.append(row)
    return rows


def by_item(df, subject: str) -> dict[str, tuple]:
    sub = df[df["subject"] == subject]
    return {r.statement_id: (None if pd.isna(r.option) else r.option, r.valid, r.reason) for r in sub.itertuples()}


def test_utf8_file_alignment_survives_missing_and_refused_answers(tmp_path: Path) -> None:
    """Each answer lands on its own item number; a missing cell and a refusal are invalid and shift nothing."""
    path = write_csv(tmp_path / "ChatGPT" / "answer_people_men_women.csv", ["people", "men", "women"], three_subject_rows())
    with Store(tmp_path / "s.db") as store:
        [run_id] = import_files(store, [path])
        run = store.get_run(run_id)
        assert (run["status"], run["method"], run["model"]) == ("imported", "mbti", "ChatGPT")
        assert run["plan"]["encoding"] == "utf-8-sig" and run["plan"]["subjects"] == ["People", "Men", "Women"]
        df = store.table(ANSWERS.name, [run_id])
    assert len(df) == 3 * 60  # 6 items from the file + 54 "not in file" per subject
    men, women = by_item(df, "Men"), by_item(df, "Women")
    assert men["1"][:2] == ("Generally wrong", 1)
    assert men["2"][:2] == ("Neither correct nor wrong", 1)
    assert men["3"] == (None, 0, "missing answer cell")
    assert men["4"][:2] == ("Partially wrong", 1) and men["5"][:2] == ("Correct", 1) and men["6"][:2] == ("Correct", 1)
    assert women["2"] == (None, 0, "no option named")
    assert women["3"] == (None, 0, "missing answer cell")  # women's item 3 is in the short row: missing too
    assert women["4"][:2] == ("Correct", 1) and women["6"][:2] == ("Generally wrong", 1)
    assert men["7"] == (None, 0, "not in file")
    row = df[(df["subject"] == "Men") & (df["statement_id"] == "6")].iloc[0]
    assert (row["dimension"], row["direction"], row["order_mode"], row["testing"]) == ("E", -1, "permuted", 0)
    assert row["option_order"] == "[4, 0, 3, 5, 6, 2, 1]"
    assert row["statement"] == "men prefer an evening alone to a party."


def test_short_row_missing_women_cells(tmp_path: Path) -> None:
    """A row cut after men's prompt: men's and women's answers of that item are 'missing answer cell'."""
    path = write_csv(tmp_path / "ChatGPT" / "a.csv", ["people", "men", "women"], three_subject_rows())
    parsed = parse_answer_file(path, path.read_bytes())
    got = {(r["subject"], r["statement_id"]): r for r in parsed.rows}
    assert got[("Women", "3")]["reason"] == "missing answer cell" and got[("Women", "3")]["raw"] is None
    assert got[("People", "3")]["option"] == "Partially correct"


def test_missing_row_and_unnumbered_prompt_keep_alignment(tmp_path: Path) -> None:
    """Item 3's row absent: item 4 stays item 4. A prompt without its number takes the row's number."""
    answers = [(1, "Correct."), (2, "Wrong."), (4, "Generally correct."), (5, "Partially wrong.")]
    rows = [[prompt(n, "men"), a, ""] for n, a in answers]
    rows[2][0] = rows[2][0].split(". ", 1)[1]  # "Is it ..." without "4. " -> falls back to the row position (3) ...
    path = write_csv(tmp_path / "GPT4" / "answer_men.csv", ["men"], rows)
    parsed = parse_answer_file(path, path.read_bytes())
    got = {r["statement_id"]: r for r in parsed.rows}
    # ... and with no other subject to tell, it becomes item 3 (the position): documented fallback
    assert got["3"]["option"] == "Generally correct" and got["5"]["option"] == "Partially wrong"
    assert got["4"]["reason"] == "not in file"
    rows2 = [[prompt(n, "men"), a, "", prompt(n, "women"), a, ""] for n, a in answers[:3]]
    rows2[2][0] = rows2[2][0].split(". ", 1)[1]  # men's prompt unnumbered, women's says 4
    path2 = write_csv(tmp_path / "GPT4" / "answer_men_women.csv", ["men", "women"], rows2)
    got2 = {(r["subject"], r["statement_id"]): r for r in parse_answer_file(path2, path2.read_bytes()).rows}
    assert got2[("Men", "4")]["option"] == "Generally correct" and got2[("Men", "3")]["reason"] == "not in file"


def test_cp1252_file(tmp_path: Path) -> None:
    """A Windows-1252 file (curly apostrophe, accented letter) is read; its text survives."""
    rows = [[prompt(1, "people"), "Generally correct \u2013 people\u2019s caf\u00e9 habits vary.", ""]]
    path = write_csv(tmp_path / "InstructGPT" / "answer_people.csv", ["people"], rows, encoding="cp1252", trailing=True)
    with pytest.raises(UnicodeDecodeError):
        path.read_bytes().decode("utf-8")
    parsed = parse_answer_file(path, path.read_bytes())
    assert parsed.plan["encoding"] == "cp1252" and parsed.model == "InstructGPT"
    first = next(r for r in parsed.rows if r["statement_id"] == "1")
    assert first["raw"] == "Generally correct \u2013 people\u2019s caf\u00e9 habits vary."
    assert first["option"] == "Generally correct"


def test_fixed_order_file_is_fixed(tmp_path: Path) -> None:
    """When every instruction lists Correct..Wrong in order, the file's order mode is 'fixed'."""
    rows = [[prompt(n, "boys", list(range(7))), "Correct.", ""] for n in (1, 2)]
    path = write_csv(tmp_path / "ChatGPT" / "fixed.csv", ["boys"], rows)
    parsed = parse_answer_file(path, path.read_bytes())
    assert parsed.plan["order_mode"] == "fixed" and {r["order_mode"] for r in parsed.rows} == {"fixed"}


def test_import_is_idempotent_and_scores(tmp_path: Path) -> None:
    """Importing a file twice adds nothing; its E score follows the key (item 1 +, item 6 -)."""
    path = write_csv(tmp_path / "ChatGPT" / "answer_people_men_women.csv", ["people", "men", "women"], three_subject_rows())
    with Store(tmp_path / "s.db") as store:
        first = import_files(store, [path])
        second = import_files(store, [tmp_path / "ChatGPT"])  # a folder works too
        assert first == second and len(store.table(ANSWERS.name)) == 180 and len(store.runs()) == 1
        doc = metrics_json(store)
    people = doc["models"]["ChatGPT"]["subjects"]["People"]
    # people: item 1 (E+) Correct -> +3; item 6 (E-) Wrong -> +3 => E = 100.
    # men: item 1 Generally wrong -> -2; item 6 Correct -> -3 => E = 50 - 50*5/6
    assert people["scores"]["E"] == 100.0
    assert doc["models"]["ChatGPT"]["subjects"]["Men"]["scores"]["E"] == pytest.approx(50 - 50 * 5 / 6, abs=1e-6)
    assert people["n_testings"] == 1 and people["consistency"] is None and people["invalid"] == 54  # one testing


def test_bad_file_imports_nothing(tmp_path: Path) -> None:
    """A bad file among good ones raises InputError naming it and its line; nothing is written."""
    good = write_csv(tmp_path / "ChatGPT" / "good.csv", ["people"], [[prompt(1, "people"), "Correct.", ""]])
    bad = tmp_path / "ChatGPT" / "bad.csv"
    bad.write_text("foo,bar\n1,2\n", encoding="utf-8")
    with Store(tmp_path / "s.db") as store:
        with pytest.raises(InputError, match=r"bad\.csv: line 1: expected a header"):
            import_files(store, [good, bad])
        assert len(store.runs()) == 0 and len(store.table(ANSWERS.name)) == 0
        with pytest.raises(InputError, match="file not found"):
            import_files(store, [tmp_path / "nope.csv"])


def test_duplicate_item_is_refused(tmp_path: Path) -> None:
    """The same item number twice for a subject is an error naming the line."""
    rows = [[prompt(1, "men"), "Correct.", ""], [prompt(1, "men"), "Wrong.", ""]]
    path = write_csv(tmp_path / "ChatGPT" / "dup.csv", ["men"], rows)
    with pytest.raises(InputError, match=r"dup\.csv: line 3: item 1 appears twice"):
        parse_answer_file(path, path.read_bytes())


def test_gpt4_and_instructgpt_files_are_noted_as_asked_without_history() -> None:
    """The reference asked GPT-4 and InstructGPT each statement alone (Query_GPT.py): their imported runs say so in the
    plan (history 0) and the import prints the note; the ChatGPT files carry none."""
    from analysis.methods.mbti.importer import import_notes, parse_files

    anchors = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "chatgpt_mbti"
    if not anchors.is_dir():
        pytest.skip("../shared/anchors/chatgpt_mbti not present")
    gpt4 = parse_files([anchors / "GPT4" / "answer_people_men_women.csv"])
    chatgpt = parse_files([anchors / "ChatGPT" / "answer_people_men_women.csv"])
    assert gpt4[0].plan["history"] == 0 and "without conversation history" in gpt4[0].plan["note"]
    assert "note" not in chatgpt[0].plan and import_notes(chatgpt) == []


def test_import_prints_the_history_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.__main__ import main

    anchors = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "chatgpt_mbti"
    if not anchors.is_dir():
        pytest.skip("../shared/anchors/chatgpt_mbti not present")
    code = main(["import", "chatgpt-mbti", str(anchors / "InstructGPT" / "answer_people_men_women.csv"),
                 "--store", str(tmp_path / "s.db")])
    err = capsys.readouterr().err
    assert code == 0 and "note: answer_people_men_women.csv (InstructGPT): asked without conversation history" in err


def test_import_json_says_what_was_read_and_twice_stores_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.__main__ import main

    anchors = Path(__file__).resolve().parents[4] / "shared" / "anchors" / "chatgpt_mbti"
    if not anchors.is_dir():
        pytest.skip("../shared/anchors/chatgpt_mbti not present")
    args = ["import", "chatgpt-mbti", str(anchors / "GPT4"), "--store", str(tmp_path / "s.db"), "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert len(first["files"]) == 2 and all(f["new"] and f["model"] == "GPT4" for f in first["files"])
    assert sum(f["answers"] for f in first["files"]) == 2 * 3 * 60
    assert main(args) == 0
    out = capsys.readouterr()
    assert not any(f["new"] for f in json.loads(out.out)["files"]) and out.err.count("already in the store") == 2
