"""The report file (``python -m analysis report``, ``analysis.report_file``): one HTML file whose every headline is
the one of ``metrics --json``, whose numbers link to the replies behind them, which holds no secret, and which
``import rolescope-report`` reads back into a store giving the same ``metrics --json`` for every method."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import methods
from analysis.__main__ import REPORT_KIND, main
from analysis.llm.keys import REDACTED, register_secret
from analysis.report_file.contents import EVIDENCE_PER_MODEL, decode_tables, unpack
from analysis.errors import InputError
from analysis.report_file.html import MANIFEST_ID, REPORTS_ID, TABLES_ID
from analysis.report_file.restore import KIND, block
from analysis.runs.labels import set_label
from analysis.runs.store import Store
from tests.app.fixture_store import build_fixture_store
from tests.browser.harness import CHROMIUM

PLAIN_KEY = "correct-horse-battery-report-9"  # not key-shaped: known only because the process registered it
SHAPED_KEY = "sk-test-" + "Q" * 32
#: Fewer resamples and null draws than the defaults (1,000 and 100), the same for ``report`` and ``metrics``: the
#: numbers are compared, not judged, and the defaults would take a minute per store here.
OPTIONS = ["--n-boot", "200", "--chance", "20"]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_fixture_store(tmp_path_factory.mktemp("report-file") / "fixture.db")


@pytest.fixture(scope="module")
def written(built: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A copy of the fixture store with a labelled run and two secrets written past the scrubber, and its report."""
    root = tmp_path_factory.mktemp("report")
    store_path = Path(shutil.copy(built, root / "fixture.db"))
    register_secret(PLAIN_KEY)
    with Store(store_path) as store:
        run_id = store.runs()["run_id"].iloc[0]
        set_label(store, run_id, name="the labelled run", tags=["pilot"], note="a note")
    conn = sqlite3.connect(store_path)  # past the store's write-path scrubber, as another tool could have written it
    with conn:
        table = next(m.tables[0] for m in methods.all_methods() if m.tables[0] in {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")} and m.name != "cross_method")
        column = next(c for c in ("raw", "reply", "answer") if c in [r[1] for r in conn.execute(f"PRAGMA table_info({table})")])
        conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = (SELECT MIN(rowid) FROM "{table}")',
                     (f"my key is {PLAIN_KEY} and {SHAPED_KEY}",))
    conn.close()
    out = root / "report.html"
    assert main(["report", "--store", str(store_path), "--out", str(out), *OPTIONS]) == 0
    return store_path, out, out.read_text(encoding="utf-8")


def _metrics(store: Path, method: str, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["metrics", method, "--store", str(store), "--json", *OPTIONS]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_import_kind_is_the_restorers():
    assert REPORT_KIND == KIND


def test_every_headline_cell_is_the_one_of_metrics_json(written, capsys):
    store, _, html = written
    cells = re.findall(r'<a class="number" href="#([^"]+)" data-key="([^"]+)" data-model="([^"]+)" data-value="([^"]*)"',
                       html)
    present = {m.name for m in methods.all_methods() if m.tables[0] in Store(store, read_only=True).table_names()}
    assert {key.split("_")[0] for _, key, _, _ in cells} >= {"values", "mbti", "trust", "inventory"}
    docs = {m: _metrics(store, m, capsys) for m in present}
    checked = 0
    for _, key, model, value in cells:
        method = next(m.name for m in methods.all_methods() if key in {h.key for h in m.headlines})
        entry = docs[method]["models"][model]["headlines"][key]
        assert (float(value) if value else None) == entry["value"], (key, model)
        checked += 1
    expected = sum(len(d["models"]) * len(methods.get(m).headlines) for m, d in docs.items())
    assert checked == expected
    reports = unpack(block(html, REPORTS_ID, "report"))
    assert set(reports) == present
    for method, doc in docs.items():
        assert reports[method] == doc  # the embedded reports are metrics --json's documents


def test_each_number_links_to_the_replies_behind_it(written):
    _, _, html = written
    targets = set(re.findall(r'<a class="number" href="#([^"]+)"', html))
    ids = set(re.findall(r'<h4 id="([^"]+)"', html))
    assert targets and targets <= ids
    for target in targets:  # each section lists samples, each with its own anchor
        after = html[html.index(f'id="{target}"'):]
        assert re.match(r'[^<]*</h4><article class="sample" id="sample-[0-9a-f]{12}"', after.split(">", 1)[1])
    shown = re.findall(r'<h4 id="[^"]+">[^<]*?(\d[\d,]*) of the ([\d,]+) replies', html)
    assert all(int(n.replace(",", "")) == EVIDENCE_PER_MODEL for n, _ in shown)


def test_no_secret_leaves_in_the_report(written):
    _, out, html = written
    raw = out.read_bytes()
    assert PLAIN_KEY.encode() not in raw and SHAPED_KEY.encode() not in raw
    tables = decode_tables(block(html, TABLES_ID, "report"))
    text = "".join(frame.astype(str).to_csv() for frame in tables.values())
    assert PLAIN_KEY not in text and SHAPED_KEY not in text
    assert f"my key is {REDACTED} and {REDACTED}" in text  # the reply is there, its keys replaced


def test_the_manifest_names_runs_and_models_without_keys(written):
    store, _, html = written
    manifest = json.loads(block(html, MANIFEST_ID, "report").replace("<\\/", "</"))
    with Store(store, read_only=True) as s:
        assert {r["run_id"] for r in manifest["runs"]} == set(s.runs()["run_id"])
    labelled = [r for r in manifest["runs"] if r["name"] == "the labelled run"]
    assert labelled and labelled[0]["tags"] == ["pilot"] and labelled[0]["note"] == "a note"
    assert len(manifest["store_sha256"]) == 64
    assert (manifest["options"]["n_boot"], manifest["options"]["chance_sims"]) == (200, 20)
    for model in manifest["models"]:
        assert set(model) >= {"name", "backend", "host", "params", "tokens_in", "cost"}
        assert "api_key" not in json.dumps(model).lower() or "api_key_env" not in json.dumps(model)


def test_import_of_the_report_gives_the_same_metrics(written, tmp_path, capsys):
    store, out, _ = written
    restored = tmp_path / "restored.db"
    assert main(["import", KIND, str(out), "--store", str(restored)]) == 0
    assert "imported" in capsys.readouterr().out
    with Store(store, read_only=True) as s:
        present = [m.name for m in methods.all_methods() if m.has_data(
            {t: 1 for t in s.table_names() if len(s.frame(f'SELECT 1 FROM "{t}" LIMIT 1'))})]
    assert len(present) == len(methods.all_methods())
    for method in present:
        assert _metrics(restored, method, capsys) == _metrics(store, method, capsys), method
    assert main(["import", KIND, str(out), "--store", str(restored)]) == 0  # again: every run is there already
    assert "0 run(s) imported" in capsys.readouterr().out


def test_a_report_of_some_models_and_methods(written, tmp_path, capsys):
    store, _, _ = written
    with Store(store, read_only=True) as s:
        model = s.runs()["model"].iloc[0]
    out = tmp_path / "one.html"
    assert main(["report", "--store", str(store), "--out", str(out), "--models", model, "--methods", "mbti",
                 *OPTIONS]) == 0
    html = out.read_text(encoding="utf-8")
    assert set(re.findall(r'data-model="([^"]+)"', html)) == {model}
    assert set(re.findall(r'data-key="([^"_]+)_', html)) == {"mbti"}


@pytest.mark.parametrize("argv, says", [
    (["report", "--store", "{tmp}/missing.db", "--out", "{tmp}/r.html"], "file not found"),
    (["report", "--store", "{store}", "--out", "{tmp}/r.html", "--models", "nobody"], "no model nobody"),
    (["report", "--store", "{store}", "--out", "{tmp}/r.html", "--methods", "astrology"], "no method astrology"),
    (["report", "--store", "{store}", "--out", "{tmp}/nowhere/r.html"], "does not exist"),
    (["import", KIND, "{tmp}/not-a-report.html", "--store", "{tmp}/s.db"], "not a RoleScope report file"),
    (["import", KIND, "{tmp}/missing.html", "--store", "{tmp}/s.db"], "no such file"),
])
def test_bad_input_is_one_line_and_exit_2(argv, says, written, tmp_path, capsys):
    store, _, _ = written
    (tmp_path / "not-a-report.html").write_text("<html><body>hello</body></html>", encoding="utf-8")
    args = [a.format(tmp=tmp_path, store=store) for a in argv]
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and says in err, err


def test_a_damaged_table_block_is_named(written, tmp_path, capsys):
    _, out, html = written
    damaged = tmp_path / "damaged.html"
    start = html.index(f'id="{TABLES_ID}">') + len(f'id="{TABLES_ID}">')
    damaged.write_text(html[:start] + "!!!" + html[start + 3:], encoding="utf-8")
    capsys.readouterr()
    assert main(["import", KIND, str(damaged), "--store", str(tmp_path / "s.db")]) == 2
    assert "embedded tables are damaged" in capsys.readouterr().err
    assert not (tmp_path / "s.db").exists() or Store(tmp_path / "s.db", read_only=True).runs().empty


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is missing: apt-get install -y chromium")
def test_the_report_opens_offline_and_a_number_lands_on_its_samples(written):
    """Chromium opens the file from ``file://`` with the network off and every non-file request aborted: the figures
    draw, no request leaves the page, and a clicked number scrolls to the replies behind it."""
    from tests.browser.harness import chromium

    _, out, html = written
    left: list[str] = []
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        context.set_offline(True)
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file://")
                      else (left.append(route.request.url), route.abort()))
        page = context.new_page()
        page.on("request", lambda request: None if request.url.startswith(("file://", "data:", "blob:"))
                else left.append(request.url))
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(out.as_uri())
        page.wait_for_function("() => document.querySelectorAll('div.plot .main-svg').length > 0", timeout=60_000)
        assert page.locator("div.plot").count() == html.count('class="plot"') > 0
        number = page.locator("a.number").first
        target = number.get_attribute("href")
        number.click()
        assert page.evaluate("location.hash") == target
        landed = page.locator(target)
        assert landed.is_visible() and landed.evaluate("e => e.getBoundingClientRect().top") < 200
        first = page.locator(f"{target} + article.sample")
        assert first.count() == 1 and first.get_attribute("id").startswith("sample-")
        context.close()
    assert errors == []
    assert left == []


def test_a_headline_shows_the_ci_its_report_holds(written, capsys):
    """``Headline.ci``: the values rank-order stability's bootstrap CI, as ``metrics --json`` holds it."""
    store, _, html = written
    doc = _metrics(store, "values", capsys)
    shown = 0
    for model, entry in doc["models"].items():
        ci = entry.get("ci", {}).get("rank_order")
        if entry["headlines"]["values_rank_order"]["value"] is not None and ci and ci.get("lo") is not None:
            assert f"95 % CI [{ci['lo']:.3f}, {ci['hi']:.3f}]" in html, model
            shown += 1
    assert shown > 0


def test_the_demos_path_opens_its_archive(monkeypatch, tmp_path):
    """``--store data/demo/rolescope-demo.db`` on a checkout that holds only the archive opens the archive unpacked."""
    import analysis.demo_store as demo_store
    from analysis.__main__ import _existing

    shipped, unpacked, other = tmp_path / "rolescope-demo.db", tmp_path / "unpacked.db", tmp_path / "other.db"
    monkeypatch.setattr(demo_store, "DEMO_STORE", shipped)
    monkeypatch.setattr(demo_store, "bundled_demo_store", lambda: unpacked)
    assert _existing(shipped) == unpacked
    assert _existing(other) == other
    shipped.touch()
    assert _existing(shipped) == shipped  # a local build is used as it is


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.app.fixture_store import build_tiny_store

    return build_tiny_store(tmp_path_factory.mktemp("tiny") / "tiny.db")


def _report(store: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """``report`` in a process of its own: a write that blocks (a FIFO) fails the test on its timeout, not forever."""
    return subprocess.run([sys.executable, "-m", "analysis", "report", "--store", str(store), "--out", str(out),
                           "--n-boot", "0", "--chance", "0", *extra], cwd=Path(__file__).resolve().parents[1],
                          capture_output=True, text=True, timeout=180)


def _odd_paths(root: Path) -> dict[str, Path]:
    """A symbolic link to a file that must stay as it is, a dangling link, a FIFO and (where it may be made) a device."""
    victim = root / "victim.txt"
    victim.write_text("keep me")
    made = {"symlink": root / "link.html", "dangling symlink": root / "dangling.html", "fifo": root / "fifo.html"}
    made["symlink"].symlink_to(victim)
    made["dangling symlink"].symlink_to(root / "nowhere.html")
    os.mkfifo(made["fifo"])
    try:
        os.mknod(root / "device.html", stat.S_IFCHR | 0o600, os.makedev(1, 3))  # as /dev/null
        made["device"] = root / "device.html"
    except (PermissionError, OSError):
        pass
    return made


def test_report_out_refuses_links_fifos_and_devices_unless_forced(tiny: Path, tmp_path: Path):
    """Issue 58: ``--out`` followed a symbolic link and overwrote its target, and blocked on a FIFO. Now each is
    refused in one line, exit 2, before any work; ``--force`` replaces it (the link, never its target)."""
    made = _odd_paths(tmp_path)
    for what, path in made.items():
        done = _report(tiny, path)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, (what, done.stderr)
        assert str(path) in lines[0] and "--force" in lines[0], (what, lines)
    assert (tmp_path / "victim.txt").read_text() == "keep me" and made["symlink"].is_symlink()
    assert not (tmp_path / "nowhere.html").exists()
    for what, path in made.items():
        done = _report(tiny, path, "--force")
        assert done.returncode == 0, (what, done.stderr)
        info = path.lstat()
        assert stat.S_ISREG(info.st_mode) and "rolescope-manifest" in path.read_text(encoding="utf-8"), what
    assert (tmp_path / "victim.txt").read_text() == "keep me"
    assert not (tmp_path / "nowhere.html").exists()


def test_report_out_is_replaced_whole_with_the_usual_mode(tiny: Path, tmp_path: Path):
    """The report goes to a temporary file in the folder, renamed over ``--out``: an existing file is replaced (a hard
    link to it keeps the old text), nothing is left beside it, and the file gets the mode a new file gets."""
    out = tmp_path / "report.html"
    out.write_text("old report")
    os.link(out, tmp_path / "hard-link.html")
    umask = os.umask(0o022)
    try:
        assert main(["report", "--store", str(tiny), "--out", str(out), "--n-boot", "0", "--chance", "0"]) == 0
    finally:
        os.umask(umask)
    assert "rolescope-manifest" in out.read_text(encoding="utf-8")
    assert (tmp_path / "hard-link.html").read_text() == "old report"
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard-link.html", "report.html"]


def test_a_compression_bomb_in_the_tables_is_refused_at_the_cap(written, tmp_path, capsys, monkeypatch):
    """A packed block is decompressed only up to ``MAX_UNPACKED_BYTES``: a block that unpacks to one byte more is
    refused in one line (exit 2) having held at most the cap, and nothing is stored; one at the cap is read."""
    import base64
    import gzip

    from analysis.report_file import contents

    bomb = base64.b64encode(gzip.compress(b"[" + b" " * 4_000_000 + b"]", mtime=0)).decode("ascii")
    assert contents.unpack(bomb, max_bytes=4_000_002) == []  # exactly at the cap: read
    with pytest.raises(InputError, match="unpacks to more than 4,000,001 bytes"):
        contents.unpack(bomb, max_bytes=4_000_001)
    _, out, html = written
    start = html.index(f'id="{TABLES_ID}">') + len(f'id="{TABLES_ID}">')
    end = html.index("<", start)
    bombed = tmp_path / "bomb.html"
    bombed.write_text(html[:start] + bomb + html[end:], encoding="utf-8")
    monkeypatch.setattr(contents, "MAX_UNPACKED_BYTES", 1_000_000)
    capsys.readouterr()
    assert main(["import", KIND, str(bombed), "--store", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unpacks to more than 1,000,000 bytes" in err and str(bombed) in err
    assert not (tmp_path / "s.db").exists() or Store(tmp_path / "s.db", read_only=True).runs().empty
