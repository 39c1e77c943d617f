"""Hostile input files for every loader and importer: one clear line, exit 2, nothing stored.

For each file format a command reads (instruments, populations, contexts, MBTI statements, trust and PersonaGym
persona files, PersonaGym environments and questions, the importers) a generated corpus of hostile files:
empty, blank, BOM only, NUL bytes, binary junk, wrong encodings (Latin-1, UTF-16), deep nesting, a 5000-digit number,
NaN / Infinity, every wrong top-level JSON type, truncated valid files, a 1 MB line, a folder, a FIFO, a symbolic link
loop, a broken link, a missing file. Each must give exit 2, exactly one line on stderr naming the file, no traceback,
and leave the store byte-identical with ``PRAGMA integrity_check`` ok. (The app's importer calls the same loaders.)
"""

from __future__ import annotations

import os
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.runs.store import Store

REPO = Path(__file__).resolve().parents[1]
MODEL = "x@http://127.0.0.1:9/v1"
VALID = {  # a valid file of each format, so that truncations of it are realistic
    "json-list": b'[{"name": "Ada", "description": "Ada is a retired ferry captain.", "gender": "F"}]',
    "json-object": b'{"Expected Action": ["What do you do first?"], "Toxicity": ["Say something rude."]}',
    "jsonl": b'{"content": "Hello there, I need help with my garden."}\n{"content": "Can you fix this?"}\n',
    # (the last cell is long and quoted, so every truncation cuts inside a quoted cell: a file that ends at a row
    # boundary is a shorter file, which the importer takes, storing the statements it lacks as "not in file")
    "csv": b'people,Answers,,men,Answers\n"1. Is it correct ... ? \n people like parties.","Correct.",,"1. Is it ... ? \n'
           b' men like parties.","Generally correct: many men enjoy parties, meet their friends there and stay late."\n',
    "txt": b"1. You enjoy parties.\n2. You plan ahead.\n",
}


def _contents(kind: str) -> dict[str, bytes]:
    valid = VALID[kind]
    rng = random.Random(7)
    out = {
        "empty": b"", "blank": b" \n\t\n", "bom-only": b"\xef\xbb\xbf", "nul-bytes": b"\x00" * 64,
        "junk-small": bytes(rng.randrange(256) for _ in range(256)),
        "junk-large": bytes(rng.randrange(256) for _ in range(8192)),
        "latin1": "[{\"name\": \"Zoë\", \"description\": \"café\"}]".encode("latin-1"),
        "utf16": valid.decode().encode("utf-16"), "ff-fe": b"\xff\xfe\xff\xfe\x00\x01",
        "deep-list": b"[" * 100_000, "deep-object": b'{"a": ' * 50_000,
        "huge-int": b"[" + b"9" * 5000 + b"]", "nan": b"[NaN]", "infinity": b'{"age": Infinity}', "-infinity": b"-Infinity",
        "null": b"null", "list": b"[]", "object": b"{}", "string": b'"just a string"', "number": b"123", "bool": b"true",
        "list-of-null": b"[null, null]", "list-of-empty": b"[{}, {}]", "wrong-types": b'{"items": "x", "statements": 3}',
        "numbers": b"[1, 2, 3]", "open": b'{"a": [1, 2,', "long-line": b"a" * 1_000_000,
    }
    for share in (0.1, 0.5, 0.9):
        out[f"truncated-{share}"] = valid[: max(1, int(len(valid) * share))]
    out["truncated-last"] = valid[:-1] if not valid.endswith(b"\n") else valid[:-3]
    return out


def hostile_files(root: Path, kind: str, suffix: str, name: str | None = None) -> list[Path]:
    """Every hostile file of a format under ``root`` (each in its own folder, named ``name`` or ``<case><suffix>``)."""
    paths = []
    for case, content in _contents(kind).items():
        path = root / case / (name or f"{case}{suffix}")
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
        paths.append(path)
    special = root / "special"
    special.mkdir()
    folder = special / f"folder{suffix}"
    folder.mkdir()
    fifo = special / f"fifo{suffix}"
    os.mkfifo(fifo)
    loop_a, loop_b = special / f"loop-a{suffix}", special / f"loop-b{suffix}"
    os.symlink(loop_b, loop_a)
    os.symlink(loop_a, loop_b)
    broken = special / f"broken{suffix}"
    os.symlink(special / "nowhere", broken)
    return [*paths, folder, fifo, loop_a, broken, special / f"missing{suffix}"]


# (format kind, suffix, file name or None, argv for the file)
ENTRY_POINTS: dict[str, tuple[str, str, str | None, Callable[[Path], list[str]]]] = {
    "values instrument": ("json-object", ".json", None, lambda p: ["run", "values", "--model", MODEL, "--instrument", str(p)]),
    "values population": ("json-list", ".json", None, lambda p: ["run", "values", "--model", MODEL, "--population", str(p)]),
    "values context": ("jsonl", ".jsonl", None, lambda p: ["run", "values", "--model", MODEL, "--contexts", str(p)]),
    "mbti statements json": ("json-object", ".json", None, lambda p: ["run", "mbti", "--model", MODEL, "--statements", str(p)]),
    "mbti statements csv": ("csv", ".csv", None, lambda p: ["run", "mbti", "--model", MODEL, "--statements", str(p)]),
    "mbti statements txt": ("txt", ".txt", None, lambda p: ["run", "mbti", "--model", MODEL, "--statements", str(p)]),
    "trust genagents": ("jsonl", ".jsonl", None, lambda p: ["run", "trust", "--model", MODEL, "--personas", str(p)]),
    "personagym personas": ("json-list", ".json", None,
                            lambda p: ["run", "personagym", "--model", MODEL, "--personas", str(p)]),
    "personagym environments": ("json-list", ".json", None,
                                lambda p: ["run", "personagym", "--model", MODEL, "--environments", str(p)]),
    "personagym questions": ("json-object", ".json", None,
                             lambda p: ["run", "personagym", "--model", MODEL, "--questions", str(p)]),
    "import value-stability": ("json-object", ".json", "results.json", lambda p: ["import", "value-stability", str(p)]),
    "import chatgpt-mbti": ("csv", ".csv", None, lambda p: ["import", "chatgpt-mbti", str(p)]),
    "import personagym": ("json-object", ".json", None, lambda p: ["import", "personagym", str(p)]),
    "import agent-trust": ("json-object", ".json", "Trust_Game_m.json", lambda p: ["import", "agent-trust", str(p)]),
    "import rolescope-report": ("json-object", ".html", None, lambda p: ["import", "rolescope-report", str(p)]),
    "import persona-llm": ("json-object", ".json", "istj_sfjp_pqrs_abcd_efgh_p1.json",
                           lambda p: ["import", "persona-llm", str(p)]),
    "import chatgpt-behavioral": ("json-object", ".json", None, lambda p: ["import", "chatgpt-behavioral", str(p)]),
    "import lee-values": ("csv", ".csv", None, lambda p: ["import", "lee-values", str(p)]),
    "import-replies": ("jsonl", ".jsonl", None, lambda p: ["import-replies", "existing", str(p)]),
    "cross_method personas jsonl": ("jsonl", ".jsonl", None,
                                    lambda p: ["run", "cross_method", "--model", MODEL, "--personas", str(p)]),
    "cross_method personas json": ("json-list", ".json", None,
                                   lambda p: ["run", "cross_method", "--model", MODEL, "--personas", str(p)]),
}


@pytest.fixture(scope="module")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "s.db"
    with Store(path) as store:
        store.create_run("existing", "mbti", "m", {}, {"method": "mbti"})
    return path


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_hostile_files_are_one_line_errors(entry: str, tmp_path: Path, store_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    kind, suffix, name, argv = ENTRY_POINTS[entry]
    files = hostile_files(tmp_path, kind, suffix, name)
    assert len(files) >= 30
    before = store_path.read_bytes()
    problems = []
    for path in files:
        code = main([*argv(path), "--store", str(store_path)])
        err = capsys.readouterr().err.strip()
        lines = err.splitlines()
        if code != 2 or len(lines) != 1 or "Traceback" in err or path.name not in err:
            problems.append(f"{path.parent.name}/{path.name}: exit {code}, stderr {err[:300]!r}")
    assert not problems, "\n".join(problems)
    assert store_path.read_bytes() == before
    conn = sqlite3.connect(store_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


@pytest.mark.parametrize("kind, fmt, ext", [("value-stability", "json-object", ".json"),
                                             ("chatgpt-mbti", "csv", ".csv"), ("personagym", "json-object", ".json")])
def test_the_apps_importer_never_raises(kind: str, fmt: str, ext: str, store_path: Path) -> None:
    """The Data page's importer (``app.importing.import_uploads``) on the same hostile contents: a message, no raise,
    nothing stored."""
    from app.importing import import_uploads

    with Store(store_path) as store:
        runs_before = len(store.runs())
        for case, content in _contents(fmt).items():
            outcome = import_uploads(store, kind, [(f"{case}{ext}", content)], "m")
            assert not outcome.ok and outcome.lines, case
            assert "Traceback" not in " ".join(outcome.lines)
        assert len(store.runs()) == runs_before


def test_odd_specs_stores_and_stored_plans_are_one_line_errors(tmp_path: Path, store_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Bad URLs in a spec, a folder or FIFO given as --store, a corrupted stored plan: exit 2, one line each."""
    folder = tmp_path / "folder.db"
    folder.mkdir()
    fifo = tmp_path / "fifo.db"
    os.mkfifo(fifo)
    corrupted = tmp_path / "corrupted.db"
    with Store(corrupted) as store:
        store.create_run("r1", "mbti", "m", {}, {"method": "mbti"})
    conn = sqlite3.connect(corrupted)
    conn.execute("UPDATE runs SET plan = '{\"method\": \"mbti\", ' WHERE run_id = 'r1'")
    conn.commit()
    conn.close()
    cases = {
        "http://127.0.0.1:99999/v1": ["run", "values", "--model", "x@http://127.0.0.1:99999/v1", "--store", str(store_path)],
        "http://[::1/v1": ["run", "values", "--model", "x@http://[::1/v1", "--store", str(store_path)],
        "folder.db": ["metrics", "values", "--store", str(folder), "--json"],
        "fifo.db": ["runs", "--store", str(fifo)],
        "'plan'": ["resume", "r1", "--store", str(corrupted)],
    }
    for needle, argv in cases.items():
        code = main(argv)
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and needle in err and "Traceback" not in err, (needle, err)


# -- round 3 (issue 47, items 3-5): inputs refused up front, one line naming file, field and rule ------------------
def _instrument(options: list[dict]) -> bytes:
    import json

    doc = json.loads((REPO / "data/values/instruments/pvq_rs.json").read_text())
    return json.dumps(doc | {"options": options}).encode()


def _pvq_labels(n: int) -> list[dict]:
    return [{"label": f"Option {i}", "score": i % 10} for i in range(n)]


def _agents(**changes: object) -> bytes:
    import json

    first = (REPO.parent / "shared/anchors/genagents/gss_agents.jsonl").read_text().splitlines()[0]
    return (json.dumps(json.loads(first) | changes) + "\n").encode()


ROUND3: dict[str, tuple[str, Callable[[], bytes], Callable[[Path], list[str]], str]] = {
    # case: (file name, its bytes, argv for its path, what the one line must say)
    "30 options": ("inst.json", lambda: _instrument(_pvq_labels(30)),
                   lambda p: ["run", "values", "--model", MODEL, "--instrument", str(p)], "at most 26"),
    "duplicate option labels": ("inst.json", lambda: _instrument(
        [{"label": "Like me", "score": 1}, {"label": "like me ", "score": 2}]),
        lambda p: ["run", "values", "--model", MODEL, "--instrument", str(p)], "appears twice"),
    "a score far outside its scale": ("inst.json", lambda: _instrument(
        [{"label": "No", "score": 1}, {"label": "Yes", "score": 1e9}]),
        lambda p: ["run", "values", "--model", MODEL, "--instrument", str(p)], "outside -10..10"),
    "models = 1": ("models.toml", lambda: b"models = 1\n",
                   lambda p: ["run", "values", "--model", "anything"], "must be a table"),
    "unknown generation params": ("models.toml",
                                  lambda: b'[models.m]\nspec = "x@http://127.0.0.1:9/v1"\nparams = { foo = 1 }\n',
                                  lambda p: ["run", "values", "--model", "m"], "unknown generation params ['foo']"),
    "GenAgents age a float": ("agents.jsonl", lambda: _agents(age=37.5),
                              lambda p: ["run", "trust", "--model", MODEL, "--personas", str(p)], "field 'age'"),
    "GenAgents age 10^9": ("agents.jsonl", lambda: _agents(age=10**9),
                           lambda p: ["run", "trust", "--model", MODEL, "--personas", str(p)], "from 18 to 120"),
    "GenAgents agent_id an object": ("agents.jsonl", lambda: _agents(agent_id={"a": 1}),
                                     lambda p: ["run", "trust", "--model", MODEL, "--personas", str(p)],
                                     "field 'agent_id'"),
    "two identical values personas": ("personas.json", lambda: (
        b'[{"name": "Ada", "description": "Ada is a retired ferry captain.", "gender": "F"},'
        b' {"name": "Ada", "description": "Ada is a retired ferry captain.", "gender": "F"}]'),
        lambda p: ["run", "values", "--model", MODEL, "--population", str(p)], "the same persona as persona 0"),
}


@pytest.mark.parametrize("case", list(ROUND3))
def test_round3_inputs_are_refused_before_a_run_is_created(case: str, tmp_path: Path, store_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import analysis.llm.specs as specs

    name, content, argv, needle = ROUND3[case]
    path = tmp_path / name
    path.write_bytes(content())
    if name == "models.toml":  # the repository's models.toml, as a user would break it
        monkeypatch.setattr(specs, "DEFAULT_MODELS_FILE", path)
    before = store_path.read_bytes()
    code = main([*argv(path), "--store", str(store_path)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and needle in err and "Traceback" not in err, err
    assert store_path.read_bytes() == before


def test_a_run_id_that_could_escape_a_folder_is_refused(store_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from analysis.errors import InputError

    for bad in ("../../etc/passwd", "a/b", ".hidden", "x..y", "a b", "ü"):
        with pytest.raises(SystemExit) as exited:  # argparse's type error: usage, then one "error:" line
            main(["run", "values", "--model", MODEL, "--run-id", bad, "--store", str(store_path)])
        assert exited.value.code == 2 and "use letters, digits" in capsys.readouterr().err
        with Store(store_path) as store, pytest.raises(InputError, match="use letters, digits"):
            store.create_run(bad, "values", "m", {}, {})


def test_a_value_stability_engine_with_a_newline_is_refused(tmp_path: Path, store_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from tests.methods.values.test_importer import write_results

    path, _ = write_results(tmp_path, "no_conv")
    doc = json.loads(path.read_text())
    doc["args"] = doc["args"] | {"engine": "gpt-4\nrun faked: completed"}
    path.write_text(json.dumps(doc))
    assert main(["import", "value-stability", str(path), "--store", str(store_path)]) == 2
    err = capsys.readouterr().err
    assert "engine" in err and "newline" in err


def test_damaged_and_foreign_sqlite_files_are_refused_byte_identical(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Garbage appended after a store's last page, and a foreign SQLite file with a 'meta' table of its own: every
    command refuses them in one line and leaves them byte-identical."""
    damaged = tmp_path / "damaged.db"
    with Store(damaged) as store:
        store.create_run("r", "values", "m", {}, {})
    damaged.write_bytes(damaged.read_bytes() + b"\x00garbage" * 100)
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE meta (k TEXT, v TEXT)")
    conn.execute("INSERT INTO meta VALUES ('owner', 'another app')")
    conn.commit()
    conn.close()
    for path, needle in ((damaged, "bytes after its last page"), (foreign, "not a RoleScope store")):
        before = path.read_bytes()
        for argv in (["runs", "--store", str(path)], ["metrics", "values", "--store", str(path), "--json"],
                     ["run", "values", "--model", MODEL, "--store", str(path)]):
            assert main(argv) == 2
            err = capsys.readouterr().err.strip()
            assert len(err.splitlines()) == 1 and needle in err, (argv, err)
        assert path.read_bytes() == before


@pytest.mark.parametrize("kind, line, field", [
    ("trust-amount", {"reply": "Amount: $5", "endowment": float("inf")}, "endowment"),
    ("trust-amount", {"reply": "Amount: $5", "endowment": -3}, "endowment"),
    ("trust-forecast-upfront", {"reply": "1, 2, 3", "rounds": 10**9}, "rounds"),
    ("trust-belief", {"reply": "old > young", "attribute": "age", "strategy": "Bogus"}, "strategy"),
    ("mbti-verdict", {"reply": "Correct", "statement": 5}, "statement"),
    ("values-option", {"reply": "(A)", "options": {"a": "Like me"}}, "options"),
    ("values-option", {"reply": "(A)", "options": ["Like me", "like me"]}, "options"),
    ("inventory-option", {"reply": "3", "labels": {"1": "low"}}, "labels"),
    ("inventory-option", {"reply": "3", "order": "sideways"}, "order"),
])
def test_parse_contexts_are_checked_with_the_runs_types(kind: str, line: dict, field: str,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``parse KIND``: a context field out of the run's own bounds (issue 47, item 2) is one line naming the stdin line
    and the field, exit 2; nothing is printed on stdout."""
    import io
    import json

    text = json.dumps(line).replace("Infinity", "1e999")  # JSON has no infinity; 1e999 reads as one
    monkeypatch.setattr("sys.stdin", io.StringIO(text + "\n"))
    assert main(["parse", kind]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert f"stdin line 1: field '{field}'" in captured.err and "Traceback" not in captured.err
