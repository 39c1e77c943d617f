"""The results table for a paper (``python -m analysis table``, ``analysis.results_table``; issue 60 item 4): every
number is the one of ``metrics --json`` with the same options, an undefined one is "—" with its reason (never 0), the
CSV reads back equal, and the LaTeX compiles (pdfLaTeX when it is installed; always checked with a LaTeX parser:
balanced groups and environments, booktabs rules, caption and label, every row as wide as the header), a model name
holding every LaTeX special character included."""

from __future__ import annotations

import io
import json
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from analysis import methods
from analysis.__main__ import main
from analysis.report_file.contents import headline_cell
from analysis.results_table import DASH, fmt, md_escape, read_csv, results_table, tex_escape
from analysis.runs.store import Store
from tests.app.fixture_store import add_real_models, build_fixture_store, build_tiny_store

#: Fewer resamples and null draws than the defaults (1,000 and 100), the same for ``table`` and ``metrics``: the
#: numbers are compared, not judged.
OPTIONS = ["--n-boot", "50", "--chance", "10"]
#: A model name holding every character LaTeX or Markdown reads, a newline, accents and a character pdfLaTeX has no
#: glyph for.
HOSTILE = 'we_ird %50 & #1 $x$ {a} ~b ^c \\d "q" <e|f> [g] --h `i\' é 中\nnext'
PDFLATEX = shutil.which("pdflatex")
DOCUMENT = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n%s\\end{document}\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture store, with the real models' published answers when the anchors copy is there."""
    path = build_fixture_store(tmp_path_factory.mktemp("results-table") / "fixture.db")
    add_real_models(path)
    return path


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One embedded run's worth of answers: every headline undefined."""
    return build_tiny_store(tmp_path_factory.mktemp("results-table-tiny") / "tiny.db")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MBTI answers of two models, one of them renamed ``HOSTILE`` past the store's checks (as another tool could)."""
    path = build_fixture_store(tmp_path_factory.mktemp("results-table-hostile") / "hostile.db", methods=("mbti",))
    conn = sqlite3.connect(path)
    with conn:
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall():
            if "model" in [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]:
                conn.execute(f'UPDATE "{table}" SET model = ? WHERE model = ?', (HOSTILE, "smollm2-t07"))
    conn.close()
    return path


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def _table(capsys: pytest.CaptureFixture[str], path: Path, form: str, *extra: str) -> str:
    return _cli(capsys, "table", "--store", str(path), "--format", form, *OPTIONS, *extra)


def _metrics(capsys: pytest.CaptureFixture[str], path: Path, method: str) -> dict:
    return json.loads(_cli(capsys, "metrics", method, "--store", str(path), "--json", *OPTIONS))


def _latex_rows(text: str) -> list[list[str]]:
    """The body rows of a LaTeX table: its cells, from the first ``\\midrule`` (under the header) to ``\\bottomrule``."""
    body = text.split("\\toprule", 1)[1].split("\\midrule", 1)[1].split("\\bottomrule", 1)[0]
    lines = [line for line in body.splitlines() if line.strip() and line.strip() != "\\midrule"]
    return [re.split(r"(?<!\\)&", line.removesuffix(" \\\\")) for line in lines]


def _untex(cell: str) -> str:
    """A value cell as text: its note mark dropped, a math minus as '-'."""
    return re.sub(r"\\textsuperscript\{[a-z]+\}", "", cell).replace("$-$", "-").strip()


def test_every_number_is_the_one_of_metrics_json(store, capsys):
    frame = read_csv(_table(capsys, store, "csv"))
    latex = _latex_rows(_table(capsys, store, "latex"))
    assert len(latex) == len(frame) > 0
    with Store(store, read_only=True) as s:
        present = [m for m in methods.all_methods() if m.has_data(s.table_sizes())]
    assert set(frame["method"]) == {m.name for m in present}
    for method in present:
        doc = _metrics(capsys, store, method.name)
        mine = frame[frame["method"] == method.name]
        assert sorted(mine["model"].unique()) == sorted(doc["models"])
        assert len(mine) == len(doc["models"]) * len(method.headlines)
        for i, row in mine.iterrows():
            h = next(h for h in method.headlines if h.key == row["key"])
            entry = doc["models"][row["model"]]["headlines"][h.key]
            cell = headline_cell(method, h, doc, row["model"])  # from the metrics --json document itself
            if entry["value"] is None:
                assert pd.isna(row["value"]) and row["reason"] == entry["reason"]
            else:
                assert abs(row["value"] - entry["value"]) <= 1e-12 and row["reason"] is None
            assert _untex(latex[i][3]) == (fmt(entry["value"]) if entry["value"] is not None else "---")
            assert latex[i][2].strip() == tex_escape(row["model"])
            if cell.ci is None:
                assert pd.isna(row["ci_lo"]) and pd.isna(row["ci_hi"]) and row["ci_unit"] is None
            else:
                assert (row["ci_lo"], row["ci_hi"]) == cell.ci
                assert _untex(latex[i][4]).replace("{[}", "[").replace("{]}", "]") == \
                    f"[{fmt(cell.ci[0])}, {fmt(cell.ci[1])}]"
                assert row["ci_unit"].startswith("95 % bootstrap, 50 resamples")
                if entry.get("ci_units"):
                    assert row["ci_unit"].endswith(f"of {entry['ci_units']}")
            cov = entry.get("coverage") or {}
            assert (None if pd.isna(row["n"]) else row["n"]) == cov.get("n")
            assert (None if pd.isna(row["of"]) else row["of"]) == cov.get("of")
            assert (None if pd.isna(row["read_share"]) else row["read_share"]) == cov.get("read_share")
            assert (row["chance"], row["no_verdict"]) == (cell.chance, cell.no_verdict)
            assert (row["chance"] is None) != (row["no_verdict"] is None)  # a verdict, or why there is none
            used = [c for group in ((lambda g: g.values() if isinstance(g, dict) else [g])(
                doc["models"][row["model"]].get("configurations") or [])) for c in group if c.get("used")]
            assert row["runs"] == list(dict.fromkeys(r for c in used for r in c["runs"]))


def test_the_runs_the_code_and_the_imported_sources_are_named(store, capsys):
    frame = read_csv(_table(capsys, store, "csv"))
    with Store(store, read_only=True) as s:
        runs = s.runs()
    known = set(runs["run_id"])
    assert all(row and set(row) <= known for row in frame["runs"])
    for row in frame.itertuples():
        mine = runs[runs["run_id"].isin(row.runs)]
        assert set(mine["method"]) == {row.method} and set(mine["model"]) == {row.model}
    from analysis import __version__

    assert set(frame["version"]) == {__version__}
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).parents[1], capture_output=True,
                            text=True).stdout.strip()
    assert set(frame["commit"]) == {commit or None}
    imported = runs[runs["status"] == "imported"]
    if len(imported):  # the real models' published answers: their source in their rows and in the caption
        with Store(store, read_only=True) as s:
            table = results_table(s, n_boot=50, chance=10)
        for row in table.rows:
            if set(row.runs) & set(imported["run_id"]):
                assert row.sources
        assert table.imported and all(ref.source in table.caption() for ref in table.imported)
        assert "Imported data:" in _table(capsys, store, "markdown").splitlines()[0]


def test_undefined_is_a_dash_with_its_reason_never_zero(tiny, capsys):
    frame = read_csv(_table(capsys, tiny, "csv"))
    undefined = frame[frame["value"].isna()]
    assert len(undefined) and undefined["reason"].map(bool).all()
    raw = pd.read_csv(io.StringIO(_table(capsys, tiny, "csv")), dtype=str, keep_default_na=False)
    assert (raw.loc[undefined.index, "value"] == "").all()  # empty, not 0 or "nan"
    markdown = _table(capsys, tiny, "markdown")
    for row in undefined.itertuples():
        line = next(line for line in markdown.splitlines() if f"| {md_escape(row.headline)} |" in line)
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        assert cells[4] == DASH and cells[5] == md_escape(row.reason)
    latex = _table(capsys, tiny, "latex")
    notes = dict(re.findall(r"\\textsuperscript\{([a-z]+)\}\\,(.*)\\par", latex))
    for cells, row in zip(_latex_rows(latex), frame.itertuples()):
        if pd.isna(row.value):
            mark = re.fullmatch(r"---\\textsuperscript\{([a-z]+)\}", cells[3].strip())
            assert mark and notes[mark.group(1)] == tex_escape(row.reason)
    with Store(tiny, read_only=True) as s:
        table = results_table(s, n_boot=50, chance=10)
    ordered = table.frame().sort_values("value")  # a page sorts it: the undefined ones last, never ranked as 0
    assert ordered["value"].dtype == "float64" and ordered["value"].isna().all()


def test_the_csv_reads_back_equal(store, tmp_path, capsys):
    with Store(store, read_only=True) as s:
        table = results_table(s, n_boot=50, chance=10)
    pd.testing.assert_frame_equal(read_csv(table.to_csv()), table.frame())
    out = tmp_path / "table.csv"
    capsys.readouterr()
    assert main(["table", "--store", str(store), "--format", "csv", "--out", str(out), *OPTIONS]) == 0
    assert out.read_text(encoding="utf-8") == table.to_csv()
    assert read_csv(out.read_text(encoding="utf-8"))["value"].tolist() == pytest.approx(
        table.frame()["value"].tolist(), nan_ok=True, abs=0)


def _check_latex(text: str) -> None:
    """What a LaTeX parser can check without TeX: every group and environment closed in order (a strict parse), one
    table holding one tabular with the booktabs rules, its caption and label, no row end read with an optional
    argument, and every body row with as many cells as the header."""
    from pylatexenc.latexwalker import LatexEnvironmentNode, LatexMacroNode, LatexWalker

    nodes, _, _ = LatexWalker(text, tolerant_parsing=False).get_latex_nodes()

    def walk(items):
        for node in items or []:
            yield node
            yield from walk(getattr(node, "nodelist", None))
            for arg in getattr(getattr(node, "nodeargd", None), "argnlist", None) or []:
                yield from walk([arg] if arg is not None else [])

    found = list(walk(nodes))
    envs = [n.environmentname for n in found if isinstance(n, LatexEnvironmentNode)]
    assert envs.count("table") == 1 and envs.count("tabular") == 1
    tabular = next(n for n in found if isinstance(n, LatexEnvironmentNode) and n.environmentname == "tabular")
    inside = [n.macroname for n in walk(tabular.nodelist) if isinstance(n, LatexMacroNode)]
    assert inside.count("toprule") == 1 and inside.count("bottomrule") == 1 and inside.count("midrule") >= 1
    macros = [n for n in found if isinstance(n, LatexMacroNode)]
    assert {"caption", "label"} <= {m.macroname for m in macros}
    assert all(m.nodeargd.argnlist[1] is None for m in macros if m.macroname == "\\")  # no "\\[...]"
    rows = _latex_rows(text)
    header = re.split(r"(?<!\\)&", text.split("\\toprule", 1)[1].split("\\midrule", 1)[0])
    assert rows and all(len(cells) == len(header) for cells in rows)


def _compile(text: str, folder: Path) -> None:
    (folder / "doc.tex").write_text(DOCUMENT % text, encoding="utf-8")
    done = subprocess.run([PDFLATEX, "-halt-on-error", "-interaction=nonstopmode", "-no-shell-escape", "doc.tex"],
                          cwd=folder, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    assert (folder / "doc.pdf").stat().st_size > 0


def test_the_latex_parses(store, hostile, capsys):
    _check_latex(_table(capsys, store, "latex"))
    _check_latex(_table(capsys, hostile, "latex"))


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (the LaTeX is checked by a parser instead)")
def test_the_latex_compiles(store, tmp_path, capsys):
    _compile(_table(capsys, store, "latex", "--label", "tab:my results_1"), tmp_path)
    assert "\\newlabel{tab:my-results-1}" in (tmp_path / "doc.aux").read_text(encoding="utf-8")


@pytest.mark.skipif(PDFLATEX is None, reason="pdflatex is not installed (the LaTeX is checked by a parser instead)")
def test_a_hostile_model_name_compiles(hostile, tmp_path, capsys):
    _compile(_table(capsys, hostile, "latex"), tmp_path)


def test_a_hostile_model_name_stays_in_its_cell(hostile, capsys):
    latex = _table(capsys, hostile, "latex")
    assert tex_escape(HOSTILE) in latex and "{[}U+4E2D{]}" in tex_escape(HOSTILE)
    assert any(cells[2].strip() == tex_escape(HOSTILE) for cells in _latex_rows(latex))
    markdown = _table(capsys, hostile, "markdown")
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    widths = {len(re.split(r"(?<!\\)\|", line)) for line in lines}
    assert len(widths) == 1 and sum("we\\_ird" in line for line in lines) == 2  # two MBTI headlines
    frame = read_csv(_table(capsys, hostile, "csv"))
    assert HOSTILE in set(frame["model"])


def test_choices_and_bad_input(store, tmp_path, capsys):
    frame = read_csv(_table(capsys, store, "csv", "--methods", "mbti", "--models", "smollm2-t07"))
    assert set(frame["method"]) == {"mbti"} and set(frame["model"]) == {"smollm2-t07"}
    for argv, message in ((["--methods", "nope"], "table --methods: no method nope"),
                          (["--models", "nope"], "table --models: no model nope"),
                          (["--out", str(tmp_path / "no-such-folder" / "t.tex")], "does not exist"),
                          (["--out", str(tmp_path)], "is a folder")):
        capsys.readouterr()
        assert main(["table", "--store", str(store), *OPTIONS, *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
    assert main(["table", "--store", str(tmp_path / "none.db")]) == 2


def test_the_report_file_embeds_the_table(tiny, tmp_path, capsys):
    """The report file holds the results table: one row per headline and model, each value as the table gives it
    (undefined: "—" with its reason), with its caption and the table as Markdown and LaTeX."""
    import html as html_lib
    import re

    from analysis.results_table import results_table
    from analysis.runs.store import Store

    out = tmp_path / "report.html"
    assert main(["report", "--store", str(tiny), "--out", str(out), "--n-boot", "0", "--chance", "0"]) == 0
    text = out.read_text(encoding="utf-8")
    section = text[text.index('<section id="results">'):text.index("</section>", text.index('<section id="results">'))]
    with Store(tiny, read_only=True) as store:
        table = results_table(store, n_boot=0, chance=0)
    body = section[section.index("<tbody>"):section.index("</tbody>")]
    assert body.count("<tr>") == len(table.rows) > 0
    for row in table.rows:
        assert html_lib.escape(row.headline) in body and html_lib.escape(row.reason or "") in body
    assert "As LaTeX (booktabs)" in section and "\\toprule" in html_lib.unescape(section)
    assert html_lib.escape(table.caption()) in section
    assert re.search(r'href="#results"', text)
