"""Bad input the CLI refuses with one line on stderr naming what is wrong, exit 2, no traceback, and nothing stored:
oversized CSV fields, malformed models.toml, hostile options, plans that cannot run, and the like."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analysis import methods
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


# -- 2. models.toml types and URL ports -------------------------------------------------------------------------------

SPEC_LINE = 'spec = "m@http://127.0.0.1:9/v1"\n'
BAD_MODELS_TOML = {
    "timeout string": ('[models.bad]\n' + SPEC_LINE + 'timeout_s = "x"\n', "field 'timeout_s'"),
    "params number": ('[models.bad]\n' + SPEC_LINE + 'params = 3\n', "field 'params'"),
    "params number, no spec": ('[models.bad]\nbackend = "custom"\nmodel = "m"\nbase_url = "http://h/v1"\nparams = 3\n',
                               "field 'params'"),
    "table is a string": ('[models]\nbad = "openai:gpt-4o"\n', "[models.bad] must be a table"),
    "models is a string": ('models = "bad"\n', "'models' must be a table"),
    "spec is a number": ('[models.bad]\nspec = 3\n', "field 'spec'"),
    "base_url port 99999": ('[models.bad]\nbackend = "custom"\nmodel = "m"\nbase_url = "http://h:99999/v1"\n',
                            "field 'base_url'"),
    "spec port 99999": ('[models.bad]\nspec = "m@http://h:99999/v1"\n', "99999"),
    "base_url ftp": ('[models.bad]\nbackend = "custom"\nmodel = "m"\nbase_url = "ftp://h/v1"\n', "field 'base_url'"),
    "custom without base_url": ('[models.bad]\nbackend = "custom"\nmodel = "m"\n', "field 'base_url'"),
    "timeout 0": ('[models.bad]\n' + SPEC_LINE + 'timeout_s = 0\n', "field 'timeout_s'"),
    "timeout -1": ('[models.bad]\n' + SPEC_LINE + 'timeout_s = -1\n', "field 'timeout_s'"),
    "timeout inf": ('[models.bad]\n' + SPEC_LINE + 'timeout_s = inf\n', "field 'timeout_s'"),
    "negative price": ('[models.bad]\n' + SPEC_LINE + 'price_input_per_mtok = -1\n', "field 'price_input_per_mtok'"),
    "nan price": ('[models.bad]\n' + SPEC_LINE + 'price_output_per_mtok = nan\n', "field 'price_output_per_mtok'"),
    "nan temperature": ('[models.bad]\n' + SPEC_LINE + 'params = { temperature = nan }\n', "field 'params'"),
    "string temperature": ('[models.bad]\n' + SPEC_LINE + 'params = { temperature = "hot" }\n', "field 'params'"),
    "negative top logprobs": ('[models.bad]\n' + SPEC_LINE + 'max_top_logprobs = -1\n', "field 'max_top_logprobs'"),
}


@pytest.mark.parametrize("case", list(BAD_MODELS_TOML))
def test_bad_models_toml_is_one_line(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    toml, needle = BAD_MODELS_TOML[case]
    path = tmp_path / "models.toml"
    path.write_text(toml, encoding="utf-8")
    monkeypatch.setattr("analysis.llm.specs.DEFAULT_MODELS_FILE", path)
    store = tmp_path / "s.db"
    refused(["run", "mbti", "--model", "bad", "--store", str(store)], capsys, str(path), needle)
    refused(["models", "--json"], capsys, str(path), needle)
    assert stored_runs(store, capsys) == []


@pytest.mark.parametrize("spec, needle", [
    ("m@http://127.0.0.1:99999/v1", "99999"), ("m@http://127.0.0.1:0/v1", "port 0"),
    ("m@http://127.0.0.1:-1/v1", "-1"), ("m@http://127.0.0.1:x/v1", "127.0.0.1:x"),
])
def test_model_spec_port_out_of_range(spec: str, needle: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.db"
    refused(["run", "values", "--model", spec, "--store", str(store)], capsys, needle)
    assert stored_runs(store, capsys) == []


# -- 3. export --out that is not a folder -----------------------------------------------------------------------------

@pytest.fixture
def small_store(tmp_path: Path) -> Path:
    from analysis.runs.store import Store

    path = tmp_path / "small.db"
    with Store(path) as store:
        store.create_run("r1", "mbti", "m", {}, {"method": "mbti"})
    return path


def test_export_out_is_an_existing_file(small_store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    target = tmp_path / "tables.csv"
    target.write_text("keep me")
    refused(["export", "--store", str(small_store), "--format", "csv", "--out", str(target)], capsys,
            str(target), "is an existing file, expected a folder")
    assert target.read_text() == "keep me"
    under = target / "sub"
    refused(["export", "--store", str(small_store), "--format", "csv", "--out", str(under)], capsys,
            str(under), "is a file, not a folder")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    refused(["export", "--store", str(small_store), "--format", "json", "--out", str(fifo)], capsys, str(fifo), "a FIFO")
    loop = tmp_path / "loop"
    os.symlink(tmp_path / "loop2", loop)
    os.symlink(loop, tmp_path / "loop2")
    refused(["export", "--store", str(small_store), "--format", "json", "--out", str(loop)], capsys, str(loop),
            "symbolic link loop")
    folder = tmp_path / "new/out"  # a missing folder is still created
    assert main(["export", "--store", str(small_store), "--format", "csv", "--out", str(folder)]) == 0
    assert (folder / "runs.csv").is_file()


# -- 4. lone surrogates and invalid UTF-8 in imported JSON ------------------------------------------------------------

def _value_stability_file(root: Path, **changes: object) -> Path:
    from tests.methods.values.test_importer import write_results

    path, _ = write_results(root, "no_conv", n_personas=2)
    doc = json.loads(path.read_text())
    for key, value in changes.items():
        doc["simulated_population"][0][key] = value
    path.write_text(json.dumps(doc))  # ensure_ascii: "\ud800" is written as the JSON escape
    return path


@pytest.mark.parametrize("kind", ["personagym", "value-stability"])
@pytest.mark.parametrize("how", ["escape", "raw bytes"])
def test_import_with_a_lone_surrogate_names_the_file(kind: str, how: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    if kind == "personagym":
        path = tmp_path / "persona.json"
        path.write_text(json.dumps({"Expected Action": ["What now? \ud800"], "Toxicity": ["Say it."]}))
    else:
        path = _value_stability_file(tmp_path, name="Ada \ud800")
    if how == "raw bytes":  # the UTF-8 encoding of U+D800, which no UTF-8 decoder accepts
        path.write_bytes(path.read_bytes().replace(b"\\ud800", b"\xed\xa0\x80"))
        needle = "not UTF-8 text"
    else:
        needle = "\\ud800"
    store = tmp_path / "s.db"
    refused(["import", kind, str(path), "--store", str(store)], capsys, str(path), needle)
    assert stored_runs(store, capsys) == []


def test_valid_surrogate_pairs_still_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "persona.json"
    path.write_text(json.dumps({"Expected Action": ["What now? \U0001F600"], "Toxicity": ["Say it."]}))
    assert '\\ud83d\\ude00' in path.read_text()
    store = tmp_path / "s.db"
    assert main(["import", "personagym", str(path), "--store", str(store)]) == 0
    capsys.readouterr()
    assert len(stored_runs(store, capsys)) == 1


# -- 5. counts, temperatures, waits: no negative, zero or non-finite values that mean nothing -------------------------

ANY = methods.names()[0]  # every method's run options: tests/test_method_options.py, derived from its Options
BAD_OPTIONS = [
    (["metrics", ANY], "--n-boot", "-5"), (["metrics", ANY], "--n-boot", "1.5"),
    (["metrics", ANY], "--chance", "-1"), (["metrics", ANY], "--chance", "nan"),
    (["resume", "r1"], "--concurrency", "0"), (["resume", "r1"], "--concurrency", "-4"),
    (["resume", "r1"], "--max-attempts", "-1"), (["resume", "r1"], "--max-wait", "nan"),
    (["resume", "r1"], "--max-wait", "-1"),
    (["demo", "build"], "--chance", "-1"),
    (["demo", "build"], "--concurrency", "0"),
]


@pytest.mark.parametrize("command, option, value", BAD_OPTIONS,
                         ids=[f"{' '.join(c[:2])} {o} {v}" for c, o, v in BAD_OPTIONS])
def test_meaningless_numbers_are_refused_by_the_parser(command: list[str], option: str, value: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.db"
    argv = [*command, f"{option}={value}"] + (["--store", str(store)] if command[0] != "demo" else [])
    with pytest.raises(SystemExit) as exit_info:  # argparse exits before main's handlers
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert f"argument {option}" in err and value in err, err
    assert not store.exists()


def test_nan_is_never_sent_as_a_temperature(tmp_path: Path) -> None:
    from analysis.cli_types import non_negative_float

    for text in ("nan", "NaN", "inf", "-Infinity", "1e999"):
        with pytest.raises(Exception, match="finite"):
            non_negative_float(text)
    assert non_negative_float("0") == 0.0


# -- 6. plans that cannot run are refused before the run is created ---------------------------------------------------

def _pvq(tmp_path: Path, change) -> Path:
    doc = json.loads((Path(__file__).resolve().parents[2] / "data/values/instruments/pvq_rs.json").read_text())
    change(doc)
    path = tmp_path / "instrument.json"
    path.write_text(json.dumps(doc))
    return path


def _unkey(doc: dict) -> None:
    for item in doc["items"]:
        item["value"] = None


def _lines(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


VALUES_SMALL = ["--limit-personas", "1", "--limit-items", "1"]
UNRUNNABLE = {
    "context opening null": (lambda t: ["run", "values", "--model", MODEL, *VALUES_SMALL, "--contexts",
                                        str(_lines(t, "c.jsonl", '{"content": null}\n'))], "line 1: 'content' is null"),
    "context opening number": (lambda t: ["run", "values", "--model", MODEL, *VALUES_SMALL, "--contexts",
                                          str(_lines(t, "c.jsonl", '{"content": 42}\n'))], "'content' is a number"),
    "context opening empty": (lambda t: ["run", "values", "--model", MODEL, *VALUES_SMALL, "--contexts",
                                         str(_lines(t, "c.jsonl", '{"content": "  "}\n'))], "'content' is empty"),
    "context file empty": (lambda t: ["run", "values", "--model", MODEL, *VALUES_SMALL, "--contexts",
                                      str(_lines(t, "c.jsonl", ""))], "0 openings for 1 personas"),
    "no context": (lambda t: ["run", "values", "--model", MODEL, *VALUES_SMALL, "--contexts", ","], "--contexts"),
    "personas list empty": (lambda t: ["run", "values", "--model", MODEL, "--population",
                                       str(_lines(t, "p.json", "[]"))], "non-empty list"),
    "persona description empty": (lambda t: ["run", "values", "--model", MODEL, "--population", str(_lines(
        t, "p.json", '[{"name": "Ada", "description": " ", "gender": "F"}]'))], "field 'description'"),
    "persona description empty (csv)": (lambda t: ["run", "values", "--model", MODEL, "--population", str(_lines(
        t, "p.csv", 'name,description,gender\nAda,,F\n'))], "row 2 field 'description'"),
    "item text empty": (lambda t: ["run", "values", "--model", MODEL, "--instrument", str(_pvq(
        t, lambda d: d["items"][0].update(text={"male": "", "female": "She likes."})))], "items.0.text"),
    "item without text": (lambda t: ["run", "values", "--model", MODEL, "--instrument", str(_pvq(
        t, lambda d: d["items"][0].update(text={})))], "items.0.text"),
    "option label empty": (lambda t: ["run", "values", "--model", MODEL, "--instrument", str(_pvq(
        t, lambda d: d["options"][0].update(label="")))], "options.0.label"),
    "no scored items": (lambda t: ["run", "values", "--model", MODEL, "--instrument", str(_pvq(t, _unkey))],
                        "no item is keyed"),
    "no scored items after --limit-items": (lambda t: ["run", "values", "--model", MODEL, "--limit-items", "1",
                                                       "--instrument", str(_pvq(t, lambda d: d["items"][0].update(
                                                           value=None)))], "keyed to no value"),
    "mbti key id 0": (lambda t: ["run", "mbti", "--model", MODEL, "--key", str(_lines(t, "k.json", '{"E": [0, 1]}'))],
                      "'0'"),
    "mbti key id 999": (lambda t: ["run", "mbti", "--model", MODEL, "--key", str(_lines(t, "k.json", '{"E": [1, 999]}'))],
                        "['999']"),
    "mbti key rows id 0": (lambda t: ["run", "mbti", "--model", MODEL, "--key", str(_lines(
        t, "k.csv", "id,dimension,direction\n0,E,+\n"))], "['0']"),
    "mbti statement text empty": (lambda t: ["run", "mbti", "--model", MODEL, "--statements", str(_lines(
        t, "s.json", '[{"id": "1", "text": " ", "dimension": "E"}]'))], "statement text is empty"),
    "mbti no scored statements after limit": (lambda t: ["run", "mbti", "--model", MODEL, "--limit-statements", "1",
                                                         "--statements", str(_lines(t, "s.json", json.dumps([
                                                             {"id": "1", "text": "You plan.", "dimension": None},
                                                             {"id": "2", "text": "You talk.", "dimension": "E"}])))],
                                              "keeps no statement keyed"),
    "trust condition-on unknown": (lambda t: ["run", "trust", "--model", MODEL, "--condition-on", "nope"],
                                   "--condition-on: unknown strategy 'nope'"),
    "personagym no persona": (lambda t: ["run", "personagym", "--model", MODEL, "--personas",
                                         str(_lines(t, "p.txt", "\n# none\n"))], "no persona in this file"),
    "personagym persona description empty": (lambda t: ["run", "personagym", "--model", MODEL, "--personas",
                                                        str(_lines(t, "p.json", '["A pilot.", ""]'))],
                                             "field 'description' missing or empty"),
    "personagym rubric path": (lambda t: ["run", "personagym", "--model", MODEL, "--rubrics", str(t / "nowhere")],
                               "file not found"),
}


@pytest.mark.parametrize("case", list(UNRUNNABLE))
def test_unrunnable_plans_create_no_run(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, needle = UNRUNNABLE[case]
    store = tmp_path / "s.db"
    from analysis.runs.store import Store

    with Store(store) as s:  # an existing store: the refused run must not be added to it
        s.create_run("before", "mbti", "m", {}, {"method": "mbti"})
    refused([*argv(tmp_path), "--store", str(store), "--quiet"], capsys, needle)
    assert [r["run_id"] for r in stored_runs(store, capsys)] == ["before"]


# -- 7. very large plans need --yes -----------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, calls", [
    (["run", "values", "--model", MODEL, "--samples", "100"], "160,000 calls"),
    (["run", "mbti", "--model", MODEL, "--testings", "500"], "150,000 calls"),
    (["run", "trust", "--model", MODEL, "--level", "individual", "--rounds", "100", "--archetypes", ",".join(map(str, range(12)))],
     "120,000 calls"),
    (["run", "trust", "--model", MODEL, "--level", "individual", "--rounds", "100", "--archetypes", ",".join(map(str, range(6))),
      "--endowments", "10,44"], "120,000 calls in 2 runs"),
    (["run", "personagym", "--model", MODEL, "--evaluators", "j@http://127.0.0.1:9/v1", "--questions-per-task", "400"],
     "calls"),
])
def test_huge_plans_need_yes(argv: list[str], calls: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.db"
    refused([*argv, "--store", str(store)], capsys, calls, "more than 100,000", "--yes")
    assert not store.exists()


def test_yes_runs_a_plan_over_the_threshold(stub_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("analysis.__main__.CONFIRM_CALLS", 1)
    store = tmp_path / "s.db"
    argv = ["run", "mbti", "--model", "stub@" + stub_server.url, "--subjects", "Men", "--testings", "1",
            "--limit-statements", "2", "--store", str(store), "--quiet"]
    refused(argv, capsys, "makes 2 calls, more than 1")
    assert stored_runs(store, capsys) == []
    assert main([*argv, "--yes"]) == 1  # it ran: the stub's replies name no MBTI option, nothing to score (exit 1)
    assert "Nothing to score" in capsys.readouterr().err
    assert len(stored_runs(store, capsys)) == 1


# -- 8. import value-stability names what a path is -------------------------------------------------------------------

def test_import_value_stability_names_fifos_and_link_loops(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.json"
    os.symlink(tmp_path / "loop2.json", loop)
    os.symlink(loop, tmp_path / "loop2.json")
    broken = tmp_path / "broken.json"
    os.symlink(tmp_path / "nowhere.json", broken)
    store = tmp_path / "s.db"
    for path, needle in ((fifo, "is a FIFO, not a regular file"), (loop, "symbolic link loop"),
                         (broken, "broken symbolic link"), (tmp_path / "missing.json", "file not found")):
        err = refused(["import", "value-stability", str(path), "--store", str(store)], capsys, str(path), needle)
        if needle != "file not found":
            assert "file not found" not in err
    assert stored_runs(store, capsys) == []


# -- 9. control characters in run ids and imported model names --------------------------------------------------------

@pytest.mark.parametrize("bad", ["r1\nrun forged: completed", "r1\r", "\x1b[2Jr1", "r1\u2028x", "", "  ", " r1", "r" * 201])
@pytest.mark.parametrize("method", ["values", "mbti", "trust", "personagym"])
def test_run_id_with_control_characters_is_refused(method: str, bad: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.db"
    with pytest.raises(SystemExit) as exit_info:
        main(["run", method, "--model", MODEL, "--run-id", bad, "--store", str(store)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "argument --run-id" in err, err
    assert "\x1b" not in err and "\r" not in err and "\u2028" not in err
    assert not store.exists()


def test_model_spec_with_a_newline_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.db"
    refused(["run", "mbti", "--model", "m\nforged@http://127.0.0.1:9/v1", "--store", str(store)], capsys,
            "field 'name'", "control characters")
    assert not store.exists()


def test_imported_model_names_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A results.json 'engine' with control characters is refused (issue 47: a name nobody meant); a folder name
    (what the file system allows) is stored with them escaped: ``runs`` and the import lines show one line per run."""
    store = tmp_path / "s.db"
    path = _value_stability_file(tmp_path)
    doc = json.loads(path.read_text())
    doc["args"]["engine"] = doc["params"]["engine"] = "evil\nrun forged: completed\x1b[2J"
    path.write_text(json.dumps(doc))
    folder = tmp_path / "model\nforged"
    folder.mkdir()
    (folder / "persona.json").write_text(json.dumps({"Expected Action": ["What now?"], "Toxicity": ["Say it."]}))
    assert main(["import", "value-stability", str(path), "--store", str(store)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "key 'args.engine': holds a newline" in err and "\x1b" not in err, err
    assert main(["import", "personagym", str(folder / "persona.json"), "--store", str(store)]) == 0
    capsys.readouterr()
    models = sorted(r["model"] for r in stored_runs(store, capsys))
    assert models == ["questions:model\\nforged"]
    assert main(["runs", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 2 and "\x1b" not in out  # the header and one line per run


def test_error_lines_escape_control_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever reaches an error message (here a run id typed for resume) is printed on one line."""
    from analysis.runs.store import Store

    store = tmp_path / "s.db"
    with Store(store) as s:
        s.create_run("r1", "mbti", "m", {}, {"method": "mbti"})
    code = main(["resume", "nope\nforged line", "--store", str(store)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "nope\\nforged line" in err, err


# -- 10. import offers only the kinds it implements -------------------------------------------------------------------

def test_import_genagents_is_not_offered(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.__main__ import build_parser, import_kinds

    assert set(import_kinds()) == {"value-stability", "chatgpt-mbti", "personagym", "agent-trust", "persona-llm",
                                 "chatgpt-behavioral", "lee-values"}
    with pytest.raises(SystemExit) as exit_info:
        main(["import", "genagents", str(tmp_path / "agents.jsonl"), "--store", str(tmp_path / "s.db")])
    err = capsys.readouterr().err.strip()
    assert exit_info.value.code == 2 and len(err.splitlines()) == 1 and "invalid choice: 'genagents'" in err, err
    assert "not implemented" not in err
    import_help = next(a for a in build_parser()._subparsers._group_actions[0].choices["import"]._actions
                       if a.dest == "kind")
    assert "genagents" not in import_help.choices


# -- 12. two contexts with one name ----------------------------------------------------------------------------------

def test_two_context_files_with_one_name_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a" / "x.jsonl", tmp_path / "b" / "x.jsonl"
    for path, text in ((a, "Hello, I need help with my garden."), (b, "Can you fix my bike?")):
        path.parent.mkdir()
        path.write_text(json.dumps({"content": text}) + "\n")
    store = tmp_path / "s.db"
    refused(["run", "values", "--model", MODEL, *VALUES_SMALL, "--contexts", f"{a},{b}", "--store", str(store)],
            capsys, str(a), str(b), "context 'x'")
    assert stored_runs(store, capsys) == []
    bundled = tmp_path / "c" / "topics_a.jsonl"  # a file named as a bundled context
    bundled.parent.mkdir()
    bundled.write_text(json.dumps({"content": "Hi there."}) + "\n")
    refused(["run", "values", "--model", MODEL, *VALUES_SMALL, "--contexts", f"topics_a,{bundled}", "--store",
             str(store)], capsys, str(bundled), "context 'topics_a'")
    assert stored_runs(store, capsys) == []
