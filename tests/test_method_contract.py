"""The method contract, checked for every method the registry finds (``analysis.methods``), never by name.

Each method runs its small plan (``tests/methods/<m>/__init__.py``: ``CONTRACT_RUN``) through the CLI against the
stub server, once answering and once with every reply a word no reader can use (every answer invalid). Then:
- the plan makes calls and survives a JSON round trip;
- the report's keys and types (every headline a value or None with a reason; counts within their n);
- the default plan (no method option) makes calls; every method has a view whose pages exist;
- ``can_show`` for the run's plan agrees with its report (never shown unpromised; all promised when all usable);
- each headline is the same number in ``metrics --json``, on the Overview, on the method's page, on Compare and (for
  a method without its own board) on the Leaderboard;
- an undefined headline is None with its reason, and "—" on those pages;
- chance has one entry per model;
- every page renders on the one-model store and on the all-invalid store;
- no shared code names a method.
"""

from __future__ import annotations

import importlib
import json
import math
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("ROLESCOPE_N_BOOT", "200")
os.environ.setdefault("ROLESCOPE_CHANCE_SIMS", "20")

from streamlit.testing.v1 import AppTest  # noqa: E402
from analysis import methods  # noqa: E402
from analysis.__main__ import main  # noqa: E402
from analysis.runs.store import Store  # noqa: E402
from tests.app.conftest import PAGES, _bind, open_app  # noqa: E402
from tests.stub_server import FaultRule, StubServer  # noqa: E402

NAMES = methods.names()


def _run_all(path: Path, url: str) -> None:
    """Every method's contract run; each exits 0, or 1 when its outcome is "Nothing to score" (every reply unusable:
    the stub answers no MBTI verdict, and the ``invalid`` store's replies are nonsense)."""
    from analysis.run_outcome import run_outcome

    for name in NAMES:
        extra = importlib.import_module(f"tests.methods.{name}").CONTRACT_RUN
        run_id = f"contract-{name}"
        code = main(["run", name, "--model", f"stub@{url}", "--store", str(path), "--quiet", "--max-attempts", "1",
                     "--run-id", run_id, *extra])
        if code == 1:
            with Store(path, read_only=True) as store:
                ids = [r for r in store.runs()["run_id"] if str(r).startswith(run_id)]
                titles = [run_outcome(store, r).title for r in ids]
            assert titles and all(t.startswith("Nothing to score") for t in titles), f"run {name} exited 1: {titles}"
        else:
            assert code == 0, f"run {name} exited {code}"


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """``answered``: one model's small run of every method; ``invalid``: the same runs with every reply unusable."""
    root = tmp_path_factory.mktemp("contract")
    out = {"answered": root / "answered.db", "invalid": root / "invalid.db"}
    with StubServer(log_path=root / "calls.jsonl") as server:
        _run_all(out["answered"], server.url)
        server.configure([FaultRule(kind="nonsense", modulo=1, times=None)])
        _run_all(out["invalid"], server.url)
    yield out


def _own_run(runs, name: str) -> str:
    """The method's own contract run: its newest (a campaign run earlier may have made runs of it, as its parts)."""
    mine = runs[runs["method"] == name].sort_values("created_at")
    return str(mine["run_id"].iloc[-1])


@pytest.fixture(scope="module")
def model(stores: dict[str, Path]) -> str:
    """The one model's display name (the spec names its endpoint: stub@127.0.0.1:PORT)."""
    with Store(stores["answered"], read_only=True) as store:
        [name] = store.runs()["model"].unique()
    return str(name)


@pytest.fixture(scope="module")
def reports(stores: dict[str, Path]) -> dict[tuple[str, str], dict]:
    """``metrics METHOD --json`` of each store, as the CLI prints it."""
    out = {}
    for kind, path in stores.items():
        for name in NAMES:
            with pytest.MonkeyPatch.context() as mp:
                lines: list[str] = []
                mp.setattr("builtins.print", lambda *a, **k: lines.append(" ".join(map(str, a))))
                assert main(["metrics", name, "--store", str(path), "--json", "--n-boot", "50", "--chance", "0"]) == 0
            out[kind, name] = json.loads(lines[0])
    return out


@pytest.mark.parametrize("name", NAMES)
def test_the_plan_makes_calls_and_survives_json(stores: dict[str, Path], name: str) -> None:
    method = methods.get(name)
    with Store(stores["answered"], read_only=True) as store:
        runs = store.runs()
        run_id = _own_run(runs, name)
        run = store.get_run(run_id)
    assert run["status"] == "completed"
    n = method.n_calls(run["plan"])
    assert n > 0 and method.n_calls(json.loads(json.dumps(run["plan"]))) == n == run["n_units"]


@pytest.mark.parametrize("name", NAMES)
def test_the_default_plan_makes_calls(name: str) -> None:
    """``run METHOD`` with no method option: the published protocol's plan, which makes calls and counts them the same
    after a JSON round trip."""
    from analysis.__main__ import build_parser
    from analysis.llm.specs import parse_model_spec

    method = methods.get(name)
    plans = method.plans(build_parser().parse_args(["run", name, "--model", "embedded"]), parse_model_spec("embedded"))
    assert plans
    for _, plan in plans:
        n = method.n_calls(plan)
        assert n > 0 and method.n_calls(json.loads(json.dumps(plan))) == n


@pytest.mark.parametrize("name", NAMES)
def test_the_declaration_names_functions_that_exist(name: str) -> None:
    """``method.py`` is a declaration: every callable of its ``Method`` (and of its published figures and bundled
    imports) is a ``Hook`` naming a function of the method's own folder, and each one imports; of its view too."""
    import dataclasses

    from analysis.hooks import Hook
    from app.methods import view

    method = methods.get(name)
    hooks = {f.name: getattr(method, f.name) for f in dataclasses.fields(method) if callable(getattr(method, f.name))
             and not isinstance(getattr(method, f.name), type)}
    hooks |= {f"bundled_imports[{i}]": b.load for i, b in enumerate(method.bundled_imports)}
    assert {"plans", "n_calls", "tokens", "session", "report", "chance", "can_show", "compare"} <= hooks.keys()
    if method.published:  # declared beside its figures (``published.py``): a function of the folder, or a Hook to one
        rows = method.published.rows
        where = rows.target if isinstance(rows, Hook) else f"{rows.__module__}:{rows.__name__}"
        assert where.startswith(f"analysis.methods.{name}."), where
    for field, hook in hooks.items():
        assert isinstance(hook, Hook), f"{name}.{field} is {hook!r}, not a Hook"
        assert hook.target.startswith(f"analysis.methods.{name}."), f"{name}.{field} -> {hook.target}"
        assert callable(hook.resolve()), f"{name}.{field} -> {hook.target}"
    mine = view(name)
    for f in dataclasses.fields(mine):
        if isinstance(getattr(mine, f.name), Hook):
            assert getattr(mine, f.name).target.startswith(f"app.methods.{name}.") and callable(getattr(mine, f.name).resolve())


@pytest.mark.parametrize("name", NAMES)
def test_every_method_has_a_view_with_pages(name: str) -> None:
    """The app's registry finds a view for every method; its pages exist, its home is a page of the navigation, and it
    says in its own summary what the method is (the Overview lists it)."""
    from app.methods import view, views
    from app.nav import pages

    assert sorted(v.name for v in views()) == sorted(NAMES)
    mine = view(name)
    assert mine.summary.strip(), f"{name}'s view has no summary"
    assert all(Path(p.script).is_file() for p in mine.pages)
    assert mine.home_url in {p.url for p in pages()}


@pytest.mark.parametrize("kind", ["answered", "invalid"])
@pytest.mark.parametrize("name", NAMES)
def test_can_show_agrees_with_the_report(stores: dict[str, Path], reports: dict, model: str, name: str, kind: str) -> None:
    """What ``can_show`` promised for the run's plan is what the report (so every page) then shows: nothing shown that
    was not promised, and, when every reply was usable, everything promised is shown."""
    method = methods.get(name)
    with Store(stores[kind], read_only=True) as store:
        runs = store.runs()
        run_id = _own_run(runs, name)
        plan = store.get_run(run_id)["plan"]
    doc = reports[kind, name]["models"][model]
    usable = all(c["count"] == 0 and c["n"] > 0 for c in doc["counts"])  # replies came, and every one was usable
    shows = method.can_show(plan, 1)
    assert set(shows.probes) == {line for line, _, _ in shows.lines}
    for line, promised, _ in shows.lines:
        shown = shows.probes[line](doc)
        assert promised or not shown, f"{name}: '{line}' shown but not promised"
        if usable:
            assert shown == promised, f"{name}: '{line}' promised {promised}, shown {shown}"


@pytest.mark.parametrize("kind", ["answered", "invalid"])
@pytest.mark.parametrize("name", NAMES)
def test_the_report_keys_and_types(reports: dict, model: str, name: str, kind: str) -> None:
    """Every model: one entry per declared headline, a finite float or None with a non-empty reason; counts
    0 <= count <= n. The whole document is JSON without NaN and is its method's typed report (``report_types``)."""
    method, report = methods.get(name), reports[kind, name]
    json.dumps(report, allow_nan=False)
    assert method.report_model is not None, f"{name} declares no report type"
    method.report_model.resolve().model_validate(report)  # its own pydantic type (report_types.py) takes it
    models = report["models"]
    assert kind == "invalid" or set(models) == {model}
    for doc in models.values():
        assert set(doc["headlines"]) == {h.key for h in method.headlines}
        for entry in doc["headlines"].values():
            if entry["value"] is None:
                assert isinstance(entry["reason"], str) and entry["reason"]
            else:
                assert isinstance(entry["value"], float) and math.isfinite(entry["value"]) and entry["reason"] is None
        assert doc["counts"] and all(0 <= c["count"] <= c["n"] and c["kind"] for c in doc["counts"])
        if kind == "invalid":
            assert all(c["count"] == c["n"] for c in doc["counts"]), doc["counts"]


def test_the_all_invalid_store_leaves_headlines_undefined(reports: dict) -> None:
    """Replies that say nothing give no number: every headline of every model is None with its reason."""
    entries = [e for name in NAMES for d in reports["invalid", name]["models"].values() for e in d["headlines"].values()]
    assert entries and all(e["value"] is None and e["reason"] for e in entries)


@pytest.mark.parametrize("name", NAMES)
def test_chance_has_one_entry_per_model(stores: dict[str, Path], reports: dict, name: str) -> None:
    with Store(stores["answered"], read_only=True) as store:
        bands = methods.get(name).cached_chance(store, 3, n_boot=0)
    assert set(bands) == set(reports["answered", name]["models"])
    assert all(b is None or isinstance(b, dict) for b in bands.values())


@pytest.fixture
def app(stores: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """An AppTest factory on one of the stores as the bundled store, with a copy as the user's store."""
    def make(kind: str, page: str | None = None, **query: str) -> AppTest:
        user = tmp_path / f"{kind}-user.db"
        if not user.exists():
            shutil.copy(stores[kind], user)
        _bind(monkeypatch, stores[kind], user, tmp_path / "cache")
        at = open_app(page, **query)
        assert not at.exception, [e.value for e in at.exception]
        return at

    return make


def _shown(value: float | None) -> str:
    from app.ui import fmt

    return fmt(value, 3)


@pytest.mark.parametrize("kind", ["answered", "invalid"])
def test_every_headline_is_the_same_number_on_every_page(app, reports: dict, model: str, kind: str) -> None:
    """The report's entry, on the Overview (the headline table), on the method's page (its headline cards) and on
    Compare (A and B, here the same model in two stores): equal, or "—" with the reason, everywhere."""
    from app.methods import view
    from app.ui import headline_label

    overview = app(kind)
    labels = {h.label for name in NAMES for h in methods.get(name).headlines}
    table = next(d.value for d in overview.dataframe if "model" in d.value.columns and labels & set(d.value.columns))
    table = table.set_index("model")  # the headline table comes first; the chance verdicts follow
    captions = " ".join(c.value for c in overview.caption)
    compare = app(kind, "compare", a=f"demo::{model}", b=f"user::{model}")
    diffs = compare.dataframe[0].value.set_index("metric") if compare.dataframe else None
    board = app(kind, "leaderboard").dataframe
    for name in NAMES:
        method = methods.get(name)
        models = reports[kind, name]["models"]
        if not models:
            continue
        cards = {m.label: m for m in app(kind, view(name).home_url).metric}
        for h in method.headlines:
            entry = models[model]["headlines"][h.key]
            card = cards[headline_label(h.label, model)]
            assert card.value == _shown(entry["value"]), (name, h.key)
            row = diffs.loc[h.label]
            a = row.iloc[[i for i, c in enumerate(diffs.columns) if c.startswith(model)][0]]
            if entry["value"] is None:
                assert math.isnan(table.loc[model, h.label]) and math.isnan(a)
                assert entry["reason"] in captions and entry["reason"] in card.help and entry["reason"] in row["note"]
            else:
                assert table.loc[model, h.label] == entry["value"] == a
            if view(name).leaderboard is None:  # ranked by its headlines on the Leaderboard
                ranked = next(d.value for d in board if h.label in d.value.columns).set_index("model")
                value, rank = ranked.loc[model, h.label], ranked.loc[model, "#"]
                assert math.isnan(value) if entry["value"] is None else value == entry["value"]
                if h == method.headlines[0]:  # the ranking headline: undefined is never ranked
                    assert (rank == "—") == (entry["value"] is None), (name, rank)


@pytest.mark.parametrize("kind", ["answered", "invalid"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders(app, kind: str, page: str) -> None:
    at = app(kind, page)
    assert at.title


def test_shared_code_names_no_method() -> None:
    """Outside a method's folders no code names it: no string equal to a method's name, no import of its package
    (the demo campaign included: each method's part of it is its own ``demo.py``; the app fixture store's answers
    included: each method's are its test package's ``fixture_answers``)."""
    import ast

    repo = Path(__file__).resolve().parents[1]
    shared = [p for p in [*repo.glob("analysis/**/*.py"), *repo.glob("app/**/*.py"), *repo.glob("pages/*.py")]
              if "methods" not in p.relative_to(repo).parts[:-2]]
    # the shared test fixtures too: each method's fixture answers live in its test package (tests/methods/<m>/)
    shared += [repo / "tests" / f for f in ("app/fixture_store.py", "app/conftest.py", "stub_server.py", "conftest.py",
                                            "browser/harness.py")]
    packages = tuple(f"{root}.methods.{name}" for root in ("analysis", "app", "tests") for name in NAMES)
    found = []
    for path in shared:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in NAMES:
                found.append(f"{path.relative_to(repo)}:{node.lineno} {node.value!r}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(packages):
                found.append(f"{path.relative_to(repo)}:{node.lineno} import {node.module}")
    assert shared and found == []


#: A method's app modules that build plans or read inputs (not a report): they may import its plan and input modules.
PLAN_AND_INPUT_MODULES = ("run_form.py", "campaign_form.py", "inputs.py")


#: What a page may import from a method's analysis folder: the report's types and reads, and its figures (pure
#: functions of the report: ``figures``, and the builders they draw with, ``plots``). None of them computes a number.
PAGE_FACING = ("report_types", "reads", "figures", "plots")


def test_page_modules_import_only_report_types() -> None:
    """A page module (``pages/``, ``app/`` and every module of a method's view but its run form and inputs view) imports
    from inside a method's analysis folder nothing but that method's ``PAGE_FACING`` modules (inline imports included):
    pages format and draw the report; they compute nothing."""
    import ast

    repo = Path(__file__).resolve().parents[1]
    modules = [p for p in [*repo.glob("app/**/*.py"), *repo.glob("pages/*.py")] if p.name not in PLAN_AND_INPUT_MODULES]
    inside = tuple(f"analysis.methods.{name}" for name in NAMES)
    found = []
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in inside:  # from analysis.methods.<m> import figures
                names = [f"{node.module}.{a.name}" for a in node.names]
            else:
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else (
                    [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for module in names:
                if module.startswith(inside) and module.rsplit(".", 1)[-1] not in PAGE_FACING:
                    found.append(f"{path.relative_to(repo)}:{node.lineno} {module}")
    assert len(modules) > 50 and found == []


def test_shared_pages_name_no_method_in_their_prose() -> None:
    """The shared pages (``pages/``) and the app's shared modules speak of methods only through the registry: no
    string in them names a method by its label or title (or the paper a title names in parentheses); a method's own
    words are its view's and headlines'."""
    import ast
    import re

    repo = Path(__file__).resolve().parents[1]
    words = set()
    for method in methods.all_methods():
        for text in (method.title, method.label):
            words |= {w.strip() for w in re.split(r"[()]", text) if w.strip()}
    shared = [*repo.glob("pages/*.py"), *[p for p in repo.glob("app/*.py")]]
    found = [f"{path.relative_to(repo)}:{node.lineno} {word!r}"
             for path in shared for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             for word in words if re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", node.value)]
    assert len(words) >= 10 and len(shared) >= 10 and found == []
