"""The results table for a paper (issue 60 item 4): every headline of every method with answers in a store, per model
and the configuration its number uses, with its value (or "—" and the reason it is undefined), its 95 % CI and what
that CI resamples, its coverage (n of how many units, the share of replies read), its chance verdict (or why there is
none), the runs behind it and the code version; exported as CSV, Markdown or LaTeX (booktabs), with a caption naming
the store, the options, the sources of imported data and the comparators the numbers are measured against.

Nothing is recomputed: each row is the report file's headline cell (``analysis.report_file.contents.headline_cell``)
of the method's report as ``metrics --json`` prints it (``Method.cached_report``, 1,000 bootstrap resamples and 100
draws of each null model by default), beside the fields of the same report entry (its coverage, its units). So a
value here is the one of ``metrics METHOD --json`` with the same ``--n-boot`` and ``--chance``.

``results_table(store)`` gives a ``ResultsTable`` (pydantic); ``.frame()`` its rows as a DataFrame (numbers as floats,
undefined as NaN, so a page can sort it: an undefined number is never ranked), ``.to_csv()``, ``.to_markdown()``,
``.to_latex()`` its exports, ``read_csv`` reads the CSV back.
"""

from __future__ import annotations

import io
import json
import math
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import one_line
from analysis.report_file.contents import CHANCE_SIMS, N_BOOT, Frozen

#: What a number that is not there prints as, in Markdown and LaTeX (undefined is never 0).
DASH = "—"
#: The formats ``render`` (and ``python -m analysis table --format``) writes.
FORMATS = ("csv", "markdown", "latex")
#: The LaTeX label of the table (``\label``), unless another is given.
LABEL = "tab:rolescope-results"


class TableRow(Frozen):
    """One headline of one model as its method's report holds it."""

    method: str  # the method's name (``Method.name``)
    method_label: str  # its short label ("Values")
    key: str  # the headline's key (``Headline.key``)
    headline: str  # its label ("Values: Cardinal score ↑")
    model: str
    configuration: str | None  # the configuration the number uses ("population: 83ec…; individual: 83ec…")
    value: float | None
    reason: str | None  # why the value is undefined
    unit: str | None  # what the value is in, where its report entry says it ("$ of a $10 endowment")
    ci_lo: float | None
    ci_hi: float | None
    ci_unit: str | None  # what the CI is: "95 % bootstrap, 1000 resamples of personas; humans"
    n: int | None  # coverage: n of ``of`` ``n_unit``
    of: int | None
    n_unit: str | None
    coverage: str | None  # "mean over 7 of 8 subjects" (with its bound under 90 % read), when n < of
    read_share: float | None  # the share of replies read, where the number's units are replies read
    chance: str | None  # "p = 0.010 · beyond chance"
    no_verdict: str | None  # why there is no chance verdict
    note: str | None  # what the report says the number is of
    runs: list[str]  # the runs behind the number: its configuration's runs
    sources: list[str]  # where the imported ones among them come from


class Reference(Frozen):
    """A source of imported data: its repository or file (``source``, as its importer names it), its citations (those
    its runs' plans give), and the methods and models whose rows it gave."""

    source: str
    citations: list[str]
    methods: list[str]
    models: list[str]


class ResultsTable(Frozen):
    """Every headline of a store, per model and configuration (``results_table``), and what the caption says."""

    rows: list[TableRow]
    store: str  # the store file's name
    version: str  # RoleScope's version
    commit: str | None  # the git commit of the code
    n_boot: int
    chance_sims: int
    imported: list[Reference]
    comparators: list[str]  # sources the numbers are measured against (a human baseline), as the reports cite them

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame of ``COLUMNS`` (numbers as floats, undefined as NaN; counts as Int64; runs and
        sources as lists), with the code version in every row."""
        rows = [{**r.model_dump(), "version": self.version, "commit": self.commit} for r in self.rows]
        frame = pd.DataFrame(rows, columns=list(COLUMNS))
        for column, kind in COLUMNS.items():
            frame[column] = _typed(frame[column], kind)
        return frame

    def caption(self) -> str:
        """The caption (plain text): what the numbers are, the options, the code, the imported data's sources and
        the comparators."""
        commit = f", commit {self.commit[:12]}" if self.commit else ""
        text = (f"Headline numbers of {self.store} per model and configuration, as metrics --json gives them "
                f"({self.n_boot:,} bootstrap resamples, {self.chance_sims:,} draws of each null model; RoleScope "
                f"{self.version}{commit}). Undefined numbers are {DASH} with the reason, never 0; chance: the largest p "
                "over the null models and the verdict.")
        if self.imported:
            text += " Imported data: " + "; ".join(
                r.source + (f" ({'; '.join(r.citations)})" if r.citations else "") + f" for {', '.join(r.models)}"
                for r in self.imported) + "."
        if self.comparators:
            text += " Comparators: " + "; ".join(self.comparators) + "."
        return text

    def to_csv(self) -> str:
        """The frame as CSV: undefined numbers empty (their reason in ``reason``), full precision (``read_csv`` reads
        it back equal), runs and sources as JSON lists."""
        frame = self.frame()
        for column in ("runs", "sources"):
            frame[column] = frame[column].map(lambda v: json.dumps(list(v), ensure_ascii=False))
        return frame.to_csv(index=False, lineterminator="\n")

    def to_markdown(self, digits: int = 3) -> str:
        """A GitHub table, the caption above it: every cell on one line, Markdown's specials escaped; an undefined
        value is "—" with its reason in the next column."""
        header = ["Method", "Headline", "Model", "Configuration", "Value", "Reason", "95 % CI", "CI units", "Unit",
                  "n", "Read", "Chance", "No verdict", "Runs", "Sources"]
        body = [[r.method_label, r.headline, r.model, r.configuration, fmt(r.value, digits), r.reason,
                 ci_text(r.ci_lo, r.ci_hi, digits), r.ci_unit, r.unit, _n_text(r), share_text(r.read_share),
                 r.chance or DASH, r.no_verdict, ", ".join(r.runs), "; ".join(r.sources)] for r in self.rows]
        lines = [f"**Table.** {md_escape(self.caption())}", "", _pipe_row(header),
                 "|" + "|".join(" ---: " if h in ("Value", "Read") else " --- " for h in header) + "|"]
        lines += [_pipe_row(row) for row in body]
        return "\n".join(lines) + "\n"

    def to_latex(self, digits: int = 3, label: str = LABEL) -> str:
        """A ``table`` float with a booktabs ``tabular`` (``\\toprule``, ``\\midrule`` between methods,
        ``\\bottomrule``), its ``\\caption`` and ``\\label``; every text escaped (``tex_escape``). Why a value or a
        verdict is undefined, units, what a CI resamples and a mean's coverage are notes under the table, each cell
        pointing to its note by a letter; the configuration and runs of each row by R1, R2, … Needs
        ``\\usepackage{booktabs}`` only."""
        notes = _Notes()
        wrap = "\\raggedright "  # in a p{} cell: ragged, not justified (never in the last column: it redefines \\)
        lines = [f"% RoleScope results table ({tex_comment(self.store)}; RoleScope {tex_comment(self.version)}"
                 f"{', commit ' + tex_comment(self.commit) if self.commit else ''}); needs \\usepackage{{booktabs}}",
                 "\\begin{table}[htbp]", "\\centering",
                 f"\\caption[RoleScope headline results]{{{tex_escape(self.caption())}}}",
                 f"\\label{{{tex_label(label)}}}", "\\scriptsize", "\\setlength{\\tabcolsep}{3pt}",
                 "\\begin{tabular}{@{}lp{2.4cm}lrllrp{2.2cm}l@{}}", "\\toprule",
                 "Method & Headline & Model & Value & 95\\,\\% CI & $n$ & Read & Chance & Runs \\\\"]
        previous = None
        for r in self.rows:
            if r.method != previous:
                lines.append("\\midrule")
            value = (tex_number(fmt(r.value, digits)) + notes.mark(r.unit)) if r.value is not None \
                else "---" + notes.mark(r.reason)
            ci = tex_number(ci_text(r.ci_lo, r.ci_hi, digits)).replace("[", "{[}").replace("]", "{]}")
            short = r.headline.removeprefix(f"{r.method_label}: ")  # the method is the first column's
            cells = [tex_escape(r.method_label) if r.method != previous else "", wrap + tex_escape(short),
                     tex_escape(r.model), value, (ci + notes.mark(r.ci_unit)) if ci else "",
                     (f"{r.n}/{r.of}" + notes.mark(f"n counts {r.n_unit}" if r.n_unit else None) + notes.mark(r.coverage))
                     if r.n is not None and r.of is not None else "", tex_escape(share_text(r.read_share)),
                     wrap + (tex_escape(r.chance) if r.chance else "---" + notes.mark(r.no_verdict)),
                     notes.runs(r)]
            lines.append(" & ".join(cells) + " \\\\")
            previous = r.method
        lines += ["\\bottomrule", "\\end{tabular}"]
        if notes.lines:
            lines += ["", "\\smallskip", "\\begin{minipage}{\\linewidth}\\scriptsize\\raggedright", *notes.lines,
                      "\\end{minipage}"]
        lines.append("\\end{table}")
        return "\n".join(lines) + "\n"


#: The frame's columns and their kinds: text, float, int, list (``ResultsTable.frame``, ``read_csv``).
COLUMNS = {"method": "text", "method_label": "text", "key": "text", "headline": "text", "model": "text",
           "configuration": "text", "value": "float", "reason": "text", "unit": "text", "ci_lo": "float",
           "ci_hi": "float", "ci_unit": "text", "n": "int", "of": "int", "n_unit": "text", "coverage": "text",
           "read_share": "float", "chance": "text", "no_verdict": "text", "note": "text", "runs": "list",
           "sources": "list", "version": "text", "commit": "text"}


def _typed(column: pd.Series, kind: str) -> pd.Series:
    if kind == "float":
        return pd.to_numeric(column, errors="raise").astype("float64")
    if kind == "int":
        return column.astype("Int64")
    if kind == "list":
        return column.map(list).astype(object)
    return column.astype(object).where(column.notna(), None)


def read_csv(text: str) -> pd.DataFrame:
    """``ResultsTable.to_csv``'s text read back: the frame ``ResultsTable.frame`` gave, every cell as it was (an empty
    cell is a missing value, never 0 or the text "nan")."""
    raw = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in raw.columns]
    if missing:
        from analysis.errors import InputError

        raise InputError(f"results table CSV: no column {', '.join(missing)}")
    read = {"text": str, "float": float, "int": int, "list": json.loads}
    out = {column: [None if v == "" else read[kind](v) for v in raw[column].tolist()] for column, kind in COLUMNS.items()}
    out = {column: [[] if v is None else v for v in cells] if COLUMNS[column] == "list" else cells
           for column, cells in out.items()}
    return pd.DataFrame({column: _typed(pd.Series(cells, dtype=object), COLUMNS[column])
                         for column, cells in out.items()}, columns=list(COLUMNS))


def results_table(store: Any, *, models: Sequence[str] | None = None, methods: Sequence[str] | None = None,
                  configs: Mapping[str, Any] | None = None, n_boot: int = N_BOOT,
                  chance: int = CHANCE_SIMS) -> ResultsTable:
    """Every headline of the store's methods with answers (or ``methods``), per model (or ``models``: real ones
    first, as the report file lists them), from each method's report as ``metrics --json`` gives it with these
    options (``n_boot`` bootstrap resamples, ``chance`` draws of each null model; ``configs``: method -> the
    configurations chosen instead of each model's latest, ``Method.cached_report``'s ``config``, as a page picks
    them). ``InputError`` for a method or model the store does not know."""
    from analysis.llm.keys import Scrubber
    from analysis.methods.base import headline
    from analysis.model_order import store_specs
    from analysis.report_file.contents import (check_models, chosen_methods, code_commit, code_version,
                                               headline_cell, scrubbed, shown_models)

    present = chosen_methods(store, methods, "table")
    all_runs = store.runs().sort_values("created_at", kind="stable")
    chosen = check_models(store, all_runs, models, "table")
    specs = store_specs(store)
    imported = _imported(store)
    rows, comparators = [], []
    for method in present:
        doc = method.cached_report(store, config=(configs or {}).get(method.name), n_boot=n_boot, chance=chance)
        for h in method.headlines:
            for model in shown_models(doc, chosen, specs):
                cell = headline_cell(method, h, doc, model)
                mine = doc["models"].get(model) or {}
                entry = headline(doc, model, h.key)  # the entry the cell was read from: its units and coverage
                cov = entry.get("coverage") or {}
                runs = _used_runs(mine.get("configurations")) or all_runs.loc[
                    (all_runs["method"] == method.name) & (all_runs["model"] == model), "run_id"].tolist()
                if isinstance(entry.get("source"), str) and entry["source"] not in comparators:
                    comparators.append(entry["source"])
                rows.append(TableRow(
                    method=method.name, method_label=method.label, key=h.key, headline=cell.label, model=model,
                    configuration=_configuration(mine.get("configuration")), value=cell.value, reason=cell.reason,
                    unit=_text(entry.get("unit")), ci_lo=cell.ci[0] if cell.ci else None,
                    ci_hi=cell.ci[1] if cell.ci else None,
                    ci_unit=_ci_unit(entry, n_boot) if cell.ci else None, n=cov.get("n"), of=cov.get("of"),
                    n_unit=cov.get("unit"), coverage=cell.coverage, read_share=cov.get("read_share"),
                    chance=cell.chance, no_verdict=cell.no_verdict, note=_text(entry.get("note")), runs=runs,
                    sources=list(dict.fromkeys(imported[r][0] for r in runs if r in imported))))
    references: dict[str, dict[str, dict[str, None]]] = {}  # source -> its citations, methods, models (ordered sets)
    for row in rows:
        for run in (r for r in row.runs if r in imported):
            _, source, citation = imported[run]
            gave = references.setdefault(source, {"citations": {}, "methods": {}, "models": {}})
            gave["methods"][row.method] = gave["models"][row.model] = None
            if citation:
                gave["citations"][citation] = None
    table = ResultsTable(rows=rows, store=Path(store.path).name, version=code_version(), commit=code_commit(),
                         n_boot=n_boot, chance_sims=chance, comparators=comparators,
                         imported=[Reference(source=source, **{k: list(v) for k, v in gave.items()})
                                   for source, gave in references.items()])
    return ResultsTable.model_validate(scrubbed(table.model_dump(), Scrubber()))


def render(table: ResultsTable, form: str, *, digits: int = 3, label: str = LABEL) -> str:
    """``table`` in one of ``FORMATS``."""
    if form == "csv":
        return table.to_csv()
    if form == "markdown":
        return table.to_markdown(digits)
    if form == "latex":
        return table.to_latex(digits, label)
    raise ValueError(f"format {form!r}: one of {', '.join(FORMATS)}")


def _imported(store: Any) -> dict[str, tuple[str, str, str | None]]:
    """run id -> (its reference's text, source, citation) for every run holding imported data (``imported`` runs,
    or a plan marked ``imported``): the ``source`` and ``citation`` its importer wrote into its plan."""
    out = {}
    for run_id, status, plan in store.frame("SELECT run_id, status, plan FROM runs").itertuples(index=False):
        try:
            doc = json.loads(plan) if isinstance(plan, str) else {}
        except ValueError:
            doc = {}
        doc = doc if isinstance(doc, dict) else {}
        if status != "imported" and doc.get("imported") is not True:
            continue
        source = _text(doc.get("source")) or "source not recorded"
        citation = _text(doc.get("citation"))
        out[str(run_id)] = (source + (f" ({citation})" if citation else ""), source, citation)
    return out


def _used_runs(configurations: Any) -> list[str]:
    """The runs of the configuration(s) a model's number uses: the ``used`` entries of its report's
    ``configurations`` (a list, or one per family)."""
    groups = configurations.values() if isinstance(configurations, Mapping) else [configurations]
    runs = [str(r) for group in groups if isinstance(group, list) for c in group
            if isinstance(c, Mapping) and c.get("used") for r in c.get("runs") or []]
    return list(dict.fromkeys(runs))


def _configuration(value: Any) -> str | None:
    """A report's ``configuration``: an id, or one per family ("population: 83ec…; individual: 2b86…")."""
    if isinstance(value, Mapping):
        return "; ".join(f"{family}: {cid}" for family, cid in value.items()) or None
    return _text(value)


def _ci_unit(entry: Mapping[str, Any], n_boot: int) -> str:
    """What a headline's CI is (``Headline.ci``: a 95 % bootstrap CI of ``n_boot`` resamples), and what it resamples
    where the report entry says it (``ci_units``)."""
    units = _text(entry.get("ci_units"))
    return f"95 % bootstrap, {n_boot} resamples" + (f" of {units}" if units else "")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def fmt(x: float | None, digits: int = 3) -> str:
    """A number as the Markdown and LaTeX tables print it (``digits`` decimals), "—" when undefined."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return DASH
    return f"{x:.{digits}f}"


def ci_text(lo: float | None, hi: float | None, digits: int = 3) -> str:
    """"[lo, hi]", or "" without a CI."""
    return "" if lo is None or hi is None else f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"


def share_text(share: float | None) -> str:
    """A read share as a percentage ("79 %"), "" where the number's units are not replies read."""
    return "" if share is None else f"{100 * share:.0f} %"


def _n_text(row: TableRow) -> str:
    if row.n is None or row.of is None:
        return ""
    return f"{row.n} of {row.of} {row.n_unit or ''}".strip()


# -- Markdown --------------------------------------------------------------------------------------------------------
_MD_SPECIALS = set("\\`*_[]<>|~$")


def md_escape(text: str | None) -> str:
    """``text`` for a Markdown table cell: on one line (``one_line``), every character Markdown reads (``*``, ``_``,
    ``|``, ``<``, ``$``, …) backslash-escaped."""
    return "".join(f"\\{c}" if c in _MD_SPECIALS else c for c in one_line(text or ""))


def _pipe_row(cells: Sequence[str | None]) -> str:
    return "| " + " | ".join(md_escape(c) for c in cells) + " |"


# -- LaTeX -----------------------------------------------------------------------------------------------------------
_TEX_SPECIALS = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
                 "%": r"\%", "_": r"\_", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                 "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "[": "{[}", "]": "{]}",
                 '"': r"{\ttfamily\char34}", "`": r"\textasciigrave{}", "'": r"\textquotesingle{}"}
#: Non-ASCII characters RoleScope's labels, units and reasons use, as pdfLaTeX sets them with no package.
_TEX_UNICODE = {"↑": r"$\uparrow$", "↓": r"$\downarrow$", "→": r"$\rightarrow$", "←": r"$\leftarrow$",
                "−": "$-$", "×": r"$\times$", "≥": r"$\geq$", "≤": r"$\leq$", "±": r"$\pm$", "≈": r"$\approx$",
                "≠": r"$\neq$", "∞": r"$\infty$", "·": r"$\cdot$", "—": "---", "–": "--", "…": r"\dots{}",
                "‘": "`", "’": "'", "“": "``", "”": "''", "²": r"$^2$", "³": r"$^3$", "°": r"$^\circ$",
                "µ": r"$\mu$", "\u00a0": "~", "§": r"\S{}", "¶": r"\P{}", "£": r"\pounds{}", "ß": r"\ss{}",
                "æ": r"\ae{}", "Æ": r"\AE{}", "ø": r"\o{}", "Ø": r"\O{}", "œ": r"\oe{}", "Œ": r"\OE{}",
                "ł": r"\l{}", "Ł": r"\L{}", "ı": r"\i{}", "¡": r"\textexclamdown{}", "¿": r"\textquestiondown{}"}
_GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma tau upsilon phi chi "
          "psi omega").split()
_GREEK_CAPITALS = {"Gamma", "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega"}
#: Combining accents -> the LaTeX accent command that puts them on a letter.
_ACCENTS = {"\u0301": "'", "\u0300": "`", "\u0302": "^", "\u0308": '"', "\u0303": "~", "\u0304": "=", "\u0307": ".",
            "\u030b": "H", "\u030c": "v", "\u0306": "u", "\u030a": "r", "\u0327": "c"}


def _tex_char(c: str) -> str:
    if c in _TEX_SPECIALS:
        return _TEX_SPECIALS[c]
    if c in _TEX_UNICODE:
        return _TEX_UNICODE[c]
    if c.isascii():
        return c
    name = unicodedata.name(c, "")
    if name.startswith("GREEK SMALL LETTER ") and name[19:].lower() in _GREEK:
        return f"$\\{name[19:].lower()}$"
    if name.startswith("GREEK CAPITAL LETTER ") and name[21:].capitalize() in _GREEK_CAPITALS:
        return f"$\\{name[21:].capitalize()}$"
    base, *marks = unicodedata.normalize("NFD", c)
    if base.isascii() and base.isalpha() and marks and all(m in _ACCENTS for m in marks):
        out = "\\i" if base == "i" else "\\j" if base == "j" else base
        for m in marks:
            out = f"\\{_ACCENTS[m]}{{{out}}}"
        return out
    return f"{{[}}U+{ord(c):04X}{{]}}"  # a character pdfLaTeX cannot set without a package: its code point


def tex_escape(text: str | None) -> str:
    """``text`` as LaTeX text that pdfLaTeX sets as written with no package but booktabs: on one line
    (``one_line``); LaTeX's specials (``\\ { } $ & # % _ ~ ^``) and the characters its fonts or ligatures change
    (``< > | " ` '``, ``--``, ``[ ]``) escaped; Greek letters, arrows and dashes as their commands; accented Latin
    letters as accent commands; any other character as its code point ("[U+4E2D]")."""
    line = one_line(text or "")
    out = []
    for i, c in enumerate(line):
        out.append("-{}" if c == "-" and line[i + 1:i + 2] == "-" else _tex_char(c))
    return "".join(out)


def tex_number(text: str) -> str:
    """A formatted number (or "[lo, hi]") in LaTeX: a minus sign as math minus."""
    return text.replace("-", "$-$")


def tex_comment(text: str) -> str:
    """``text`` for a LaTeX comment line: one line, nothing that ends the comment."""
    return one_line(text).replace("\r", " ")


def tex_label(label: str) -> str:
    """A ``\\label`` key: characters other than letters, digits and ``:-.`` replaced by ``-``."""
    return "".join(c if c.isascii() and (c.isalnum() or c in ":-.") else "-" for c in label) or LABEL


class _Notes:
    """The notes under a LaTeX table: each distinct text once, pointed to by a letter (a, b, …); then each distinct
    configuration and its runs once, as R1, R2, …"""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._runs: dict[tuple[Any, ...], str] = {}
        self._text_lines: list[str] = []
        self._run_lines: list[str] = []

    @property
    def lines(self) -> list[str]:
        return self._text_lines + self._run_lines

    def mark(self, text: str | None) -> str:
        """A superscript letter pointing to ``text``'s note ("" for no text)."""
        if not text:
            return ""
        if text not in self._texts:
            self._texts[text] = letter = _letters(len(self._texts))
            self._text_lines.append(f"\\textsuperscript{{{letter}}}\\,{tex_escape(text)}\\par")
        return f"\\textsuperscript{{{self._texts[text]}}}"

    def runs(self, row: TableRow) -> str:
        """"R1" naming the row's configuration and runs in a note (with the sources of the imported ones), "" for
        none."""
        if not row.runs and not row.configuration:
            return ""
        key = (row.configuration, tuple(row.runs))
        if key not in self._runs:
            self._runs[key] = name = f"R{len(self._runs) + 1}"
            parts = [f"configuration {row.configuration}" if row.configuration else "",
                     f"runs {', '.join(row.runs)}" if row.runs else "",
                     f"imported: {'; '.join(row.sources)}" if row.sources else ""]
            self._run_lines.append(f"{name}:~{tex_escape('; '.join(p for p in parts if p))}\\par")
        return self._runs[key]


def _letters(k: int) -> str:
    """a, b, …, z, aa, ab, …"""
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(97 + r) + out
    return out

