"""A report file whose names hold HTML (issue 58): a model named ``GPT4<!--<script>`` made Chromium show one section
of two, no replies, no figures and no "Models and runs" (the first data block swallowed the page). Every name field
(model, run name, tag, note, persona, reply) of a store gets ``<!--``, ``<script``, ``]]>``, ``</script>`` and ``</``;
Chromium shows the same page as for the plain names, and ``import rolescope-report`` gives the names back byte for
byte."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from analysis.__main__ import main
from analysis.report_file.contents import decode_tables
from analysis.report_file.html import MANIFEST_ID, TABLES_ID, script_safe
from analysis.report_file.restore import KIND, block
from analysis.runs.labels import labels, set_label
from analysis.runs.store import Store
from tests.app.fixture_store import MODELS, build_fixture_store
from tests.browser.harness import CHROMIUM

#: What once ended a script element early or sent the HTML parser into its "escaped" states (no "-->" after them, which
#: would leave those states again); no comma (a tag), at most 40 characters (a tag's limit).
MARK = '<!--<script>]]></script></ & "q"'
#: A note that looks like the report's own tables block.
FAKE_BLOCK = f'<script type="application/gzip+base64" id="{TABLES_ID}">AAAA</script>'
HOSTILE_MODEL = f"GPT4{MARK}"
OPTIONS = ["--n-boot", "100", "--chance", "10"]
#: Text columns given the mark: persona names, replies, questions (the tables every method writes).
PERSONA_COLUMNS = ("persona",)
REPLY_COLUMNS = ("raw", "answer", "question", "explanation")


def _hostile(path: Path) -> None:
    """Every name field of the store at ``path`` holding the mark: the first model's name (every table's ``model``
    column and its runs' specs), persona names, replies, and one run's name, tag and note."""
    plain_model = MODELS[0]
    conn = sqlite3.connect(path)
    with conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            if "model" in columns:
                conn.execute(f'UPDATE "{table}" SET model = ? WHERE model = ?', (HOSTILE_MODEL, plain_model))
            for column in set(columns) & {*PERSONA_COLUMNS, *REPLY_COLUMNS}:
                conn.execute(f'UPDATE "{table}" SET "{column}" = "{column}" || ? WHERE "{column}" IS NOT NULL',
                             (f" {MARK}",))
        for run_id, spec in conn.execute("SELECT run_id, model_spec FROM runs WHERE model = ?", (HOSTILE_MODEL,)).fetchall():
            conn.execute("UPDATE runs SET model_spec = ? WHERE run_id = ?",
                         (json.dumps(json.loads(spec) | {"name": HOSTILE_MODEL}), run_id))
    conn.close()
    with Store(path) as store:
        runs = store.runs()
        run_id = runs[runs["model"] == HOSTILE_MODEL]["run_id"].iloc[0]
        set_label(store, run_id, name=f"run {MARK}", tags=[MARK, "plain"], note=f"note {MARK} {FAKE_BLOCK}")


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """The fixture store with plain names and with hostile ones, and each one's report file."""
    root = tmp_path_factory.mktemp("report-names")
    plain = build_fixture_store(root / "plain.db")
    hostile = Path(shutil.copy(plain, root / "hostile.db"))
    _hostile(hostile)
    written = {}
    for name, store in (("plain", plain), ("hostile", hostile)):
        out = root / f"{name}.html"
        assert main(["report", "--store", str(store), "--out", str(out), *OPTIONS]) == 0
        written[name] = (store, out)
    return written


def test_script_safe_escapes_what_html_reads_and_json_reads_back():
    doc = {"name": MARK + "\\<\u2028", "n": [1, 2.5, None]}
    text = script_safe(json.dumps(doc, ensure_ascii=False))
    assert not set(text) & set("<>&")
    assert json.loads(text) == doc


def test_no_data_block_holds_markup(reports):
    _, out = reports["hostile"]
    html = out.read_text(encoding="utf-8")
    blocks = re.findall(r'<script type="[^"]*" id="[^"]*">(.*?)</script>', html, re.S)
    assert len(blocks) == html.count('<script type="')
    assert blocks and all(not set(b) & set("<>&") for b in blocks)
    manifest = json.loads(block(html, MANIFEST_ID, "report"))
    assert HOSTILE_MODEL in {m["name"] for m in manifest["models"]}


def _page_facts(browser, out: Path) -> dict:
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(out.as_uri())
    page.wait_for_function("() => document.querySelectorAll('div.plot').length > 0 && [...document.querySelectorAll("
                           "'div.plot')].every(d => d.querySelector('.main-svg'))", timeout=60_000)
    facts = page.evaluate("""() => ({
        sections: [...document.querySelectorAll('body > section')].map(s => s.id),
        headings: [...document.querySelectorAll('body > section > h2')].filter(h => h.offsetParent).map(h => h.innerText),
        numbers: document.querySelectorAll('a.number').length,
        replies: document.querySelectorAll('article.sample').length,
        plots: document.querySelectorAll('div.plot').length,
        drawn: [...document.querySelectorAll('div.plot')].filter(d => d.querySelector('.main-svg')).length,
        modelRows: document.querySelectorAll('#manifest table tbody tr').length,
        blocks: document.querySelectorAll('script[type]').length,
        models: [...new Set([...document.querySelectorAll('a.number')].map(a => a.getAttribute('data-model')))],
        manifest: JSON.parse(document.getElementById('rolescope-manifest').textContent).models.map(m => m.name),
        text: document.body.textContent,  // the runs table is inside a closed <details>
    })""")
    page.close()
    return facts | {"errors": errors}


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing: apt-get install -y chromium")
def test_chromium_shows_the_whole_report_whatever_the_names(reports):
    from tests.browser.harness import chromium

    with chromium() as browser:
        plain = _page_facts(browser, reports["plain"][1])
        hostile = _page_facts(browser, reports["hostile"][1])
    assert plain["errors"] == hostile["errors"] == []
    assert plain["sections"][-1] == "manifest" and "Models and runs" in plain["headings"]
    for fact in ("sections", "headings", "numbers", "replies", "plots", "drawn", "modelRows", "blocks"):
        assert hostile[fact] == plain[fact], fact
    assert plain["replies"] > 0 and plain["drawn"] == plain["plots"] > 0
    assert sorted(hostile["models"]) == sorted([HOSTILE_MODEL, MODELS[1]])  # data-model attributes, exact
    assert HOSTILE_MODEL in hostile["manifest"]
    assert HOSTILE_MODEL in hostile["text"] and f"run {MARK}" in hostile["text"]  # shown as text, not markup


def _marked(store: Path, tables: list[str]) -> set[tuple[str, str, str, str]]:
    """Every (table, run, column, value) of ``tables`` whose text holds the mark."""
    found = set()
    with Store(store, read_only=True) as s:
        for table in tables:
            frame = s.table(table)
            for column in frame.columns:
                for run_id, value in zip(frame["run_id"], frame[column]):
                    if isinstance(value, str) and MARK in value:
                        found.add((table, run_id, column, value))
    return found


def test_import_gives_the_names_back_byte_for_byte(reports, tmp_path, capsys):
    store, out = reports["hostile"]
    tables = list(decode_tables(block(out.read_text(encoding="utf-8"), TABLES_ID, "report")))
    restored = tmp_path / "restored.db"
    assert main(["import", KIND, str(out), "--store", str(restored)]) == 0
    assert "imported" in capsys.readouterr().out
    before = _marked(store, tables)
    assert {c for _, _, c, _ in before} >= {"model", "persona", "raw", "answer", "name", "note"}
    assert _marked(restored, tables) == before
    with Store(store, read_only=True) as s, Store(restored, read_only=True) as r:
        given, back = labels(s).sort_values("run_id"), labels(r).sort_values("run_id")
    assert MARK in given["tags"].sum() and given.to_dict("records") == back.to_dict("records")
