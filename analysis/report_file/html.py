"""A report file's HTML: one self-contained page (Plotly's JavaScript inlined once, no network) from a
``ReportContents``.

Every headline cell carries its exact value (``data-value``) and links to the replies behind it
(``#samples-<method>-<model>``); every reply shown has its own anchor (``#sample-<sample id>``). The machine-readable
parts sit in ``<script>`` elements a browser does not run: ``rolescope-manifest`` (JSON), ``rolescope-reports`` (the
reports as ``metrics --json`` prints them) and ``rolescope-tables`` (the store's result tables), both JSON packed as
gzip + base64 (``contents.pack``); ``python -m analysis import rolescope-report`` reads the tables back. Each figure's
Plotly JSON is embedded without its template, which is embedded once (``rolescope-plot-template``).
"""

from __future__ import annotations

import json
from html import escape
from typing import Any

from analysis.report_file.contents import MethodSection, ModelEntry, ReportContents, RunEntry, Sample, anchor

#: The ``id`` of each machine-readable block.
MANIFEST_ID, REPORTS_ID, TABLES_ID = "rolescope-manifest", "rolescope-reports", "rolescope-tables"
TEMPLATE_ID = "rolescope-plot-template"
PLOT_CONFIG = {"responsive": True, "displaylogo": False,
               "toImageButtonOptions": {"format": "svg", "filename": "rolescope-figure"}}

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1200px;
       padding: 1.5rem; color: #1f2430; line-height: 1.45; }
h1 { margin-bottom: .2rem; } h2 { border-bottom: 1px solid #ccd; padding-bottom: .2rem; margin-top: 2.5rem; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-size: .92rem; }
th, td { border: 1px solid #d8dbe3; padding: .3rem .5rem; vertical-align: top; text-align: left; }
th { background: #f3f4f8; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.muted, .why { color: #5b6170; font-size: .85rem; } .undefined { color: #7a5a00; }
.warning { background: #fff4d6; border: 1px solid #e8c766; padding: .5rem .8rem; border-radius: 4px; }
.sample { border: 1px solid #d8dbe3; border-radius: 4px; padding: .5rem .8rem; margin: .5rem 0; }
.sample:target { outline: 3px solid #4a7bd0; }
.sample pre { white-space: pre-wrap; word-break: break-word; background: #f7f7fa; padding: .4rem; margin: .3rem 0 0; }
.invalid { color: #a02b2b; } .valid { color: #236b35; }
nav ul { columns: 2; } code { font-size: .9em; }
"""


def _text(value: Any) -> str:
    return "—" if value is None else escape(str(value))


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


#: What a block embedded in a ``<script>`` element writes instead of ``<``, ``>`` and ``&``: JSON's own escapes, so the
#: block reads back as the same document, and no name (``</script>``, ``<!--``, ``<script``, ``]]>``) can end the
#: element early or make the HTML parser swallow the rest of the page.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def script_safe(text: str) -> str:
    """JSON (or base64) text with every ``<``, ``>`` and ``&`` written as its ``\\u`` escape: safe inside a ``<script>``
    element whatever its strings hold, and the same JSON document when parsed (base64 holds none of the three)."""
    return text.translate(_SCRIPT_SAFE)


def _json_block(block_id: str, payload: Any, kind: str = "application/json") -> str:
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, allow_nan=False)
    return f'<script type="{escape(kind)}" id="{escape(block_id)}">{script_safe(text)}</script>'


def _table(head: list[str], rows: list[list[str]], cls: str = "") -> str:
    if not rows:
        return '<p class="muted">None.</p>'
    th = "".join(f"<th>{h}</th>" for h in head)
    body = "".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>'


def _td(value: Any, num: bool = False) -> str:
    return f'<td class="num">{value}</td>' if num else f"<td>{value}</td>"


def _models(models: list[ModelEntry]) -> str:
    rows = []
    for m in models:
        tokens = "—" if m.tokens_in is None else f"{m.tokens_in:,} in · {m.tokens_out:,} out"
        cost = f"${m.cost:,.4f}" if m.cost is not None else ("—" if m.priced else "not priced")
        warn = f'<div class="warning">{escape(m.warning)}</div>' if m.warning else ""
        rows.append([_td(escape(m.name) + warn), _td(escape(m.backend)), _td(f"<code>{escape(m.model_id)}</code>"),
                     _td(_text(m.host)), _td(f"<code>{escape(json.dumps(m.params, sort_keys=True))}</code>"),
                     _td(tokens, True), _td(cost, True)])
    return _table(["model", "backend", "model id", "endpoint host", "generation parameters", "tokens", "cost"], rows)


def _runs(runs: list[RunEntry]) -> str:
    rows = [[_td(f"<code>{escape(r.run_id)}</code>"), _td(escape(r.method)), _td(escape(r.model)), _td(escape(r.status)),
             _td(_text(r.created)), _td(_text(r.finished)), _td(f"{r.n_calls:,}", True), _td(f"{r.n_failed:,}", True),
             _td(_text(r.name)), _td(escape(", ".join(r.tags)) or "—"), _td(_text(r.note))] for r in runs]
    return _table(["run", "method", "model", "status", "created", "finished", "calls", "failed", "name", "tags", "note"],
                  rows)


def _headlines(section: MethodSection) -> str:
    labels = list(dict.fromkeys(c.label for c in section.headlines))
    models = list(dict.fromkeys(c.model for c in section.headlines))
    cells = {(c.model, c.label): c for c in section.headlines}
    rows = []
    for model in models:
        row = [_td(escape(model))]
        for label in labels:
            c = cells[(model, label)]
            value = repr(c.value) if c.value is not None else ""
            shown = (f'<a class="number" href="#{c.anchor}" data-key="{escape(c.key)}" data-model="{escape(model)}" '
                     f'data-value="{value}">{_number(c.value)}</a>')
            notes = []
            if c.value is None:
                notes.append(f'<span class="undefined">undefined: {escape(c.reason or "")}</span>')
            if c.coverage:
                notes.append(escape(c.coverage))
            if c.ci is not None:
                notes.append(f"95 % CI [{_number(c.ci[0])}, {_number(c.ci[1])}]")
            if c.band is not None:
                notes.append(f"chance band [{_number(c.band[0])}, {_number(c.band[1])}]")
            notes.append(escape(c.chance) if c.chance else f"no chance verdict: {escape(c.no_verdict or '')}")
            row.append(_td(shown + "".join(f'<div class="why">{n}</div>' for n in notes)))
        rows.append(row)
    return _table(["model", *[escape(label) for label in labels]], rows, "headlines")


def _counts(section: MethodSection) -> str:
    rows = [[_td(escape(c["model"])), _td(escape(c["kind"])), _td(f'{c["count"]:,} of {c["n"]:,}', True),
             _td("—" if c.get("rate") is None else f'{c["rate"]:.1%} [{c["lo"]:.1%}, {c["hi"]:.1%}]', True)]
            for c in section.counts]
    return _table(["model", "replies", "left out", "share [95 % Wilson]"], rows)


def _published(section: MethodSection) -> str:
    """Published figures as model × metric, each source cited once below the table."""
    sources = list(dict.fromkeys(str(p["source"]) for p in section.published))
    metrics = list(dict.fromkeys(str(p["metric"]) for p in section.published))
    cells: dict[str, dict[str, str]] = {}
    for p in section.published:
        note = sources.index(str(p["source"])) + 1
        cells.setdefault(str(p["model"]), {})[str(p["metric"])] = f'{_number(p.get("value"))}<sup>{note}</sup>'
    rows = [[_td(escape(model)), *(_td(row.get(m, "—"), True) for m in metrics)] for model, row in cells.items()]
    cited = "".join(f"<li>{escape(s)}</li>" for s in sources)
    return _table(["model (published)", *map(escape, metrics)], rows) + f'<ol class="muted">{cited}</ol>'


def _design(section: MethodSection) -> str:
    parts = []
    for title, values in section.design.items():
        items = "".join(f"<li>{escape(v)}</li>" for v in values[:500])
        more = f'<p class="muted">… and {len(values) - 500:,} more.</p>' if len(values) > 500 else ""
        parts.append(f"<details><summary>{len(values):,} {escape(title)}</summary><ul>{items}</ul>{more}</details>")
    return "".join(parts) or '<p class="muted">No design recorded.</p>'


def _sample(s: Sample) -> str:
    status = (f'<span class="valid">valid</span> · read as <b>{_text(s.parsed)}</b>' if s.valid
              else f'<span class="invalid">invalid</span>: {_text(s.reason)}')
    where = " · ".join(escape(v) for v in (s.kind, s.persona, s.item, s.context) if v)
    note = f'<div class="why">{escape(s.reason)}</div>' if s.valid and s.reason else ""
    return (f'<article class="sample" id="sample-{escape(s.sample_id)}"><div><a href="#sample-{escape(s.sample_id)}">'
            f'#{escape(s.sample_id)}</a> · {where}</div><div>{status}</div>{note}<pre>{_text(s.reply)}</pre></article>')


def _evidence(section: MethodSection) -> str:
    models = list(dict.fromkeys([c.model for c in section.headlines] + [s.model for s in section.evidence]))
    parts = []
    for model in models:
        mine = [s for s in section.evidence if s.model == model]
        total = section.evidence_totals.get(model, 0)
        shown = (f"all {total:,} replies behind its numbers" if len(mine) >= total else
                 f"{len(mine):,} of the {total:,} replies behind its numbers (a seeded random sample)")
        parts.append(f'<h4 id="{anchor("samples", section.name, model)}">{escape(model)}: {shown}</h4>')
        parts.extend(_sample(s) for s in mine)
    return "".join(parts)


def _figures(section: MethodSection, specs: dict[str, str]) -> str:
    parts = []
    for name, spec in specs.items():
        fid = anchor("figure", section.name, name)
        parts.append(f'<figure><div id="{fid}" class="plot"></div><figcaption class="muted">{escape(name)}</figcaption>'
                     f'</figure>{_json_block(fid + "-data", spec)}')
    return "".join(parts)


def _section(section: MethodSection, specs: dict[str, str]) -> str:
    figures = _figures(section, specs)
    return (f'<section id="{anchor("method", section.name)}"><h2>{escape(section.label)}</h2>'
            f"<h3>Headlines</h3>{_headlines(section)}"
            '<p class="muted">Each number links to the replies behind it. "—": undefined, with its reason; an '
            "undefined number is never ranked or averaged.</p>"
            f"<h3>Replies left out</h3>{_counts(section)}"
            + (f"<h3>Figures</h3>{figures}" if figures else "")
            + (f"<h3>Published figures (comparators, never pooled)</h3>{_published(section)}" if section.published else "")
            + f"<h3>Design</h3>{_design(section)}<h3>Evidence</h3>{_evidence(section)}</section>")


PLOTS = """
var template = JSON.parse(document.getElementById('%s').textContent);
document.querySelectorAll('div.plot').forEach(function (div) {
  var spec = JSON.parse(document.getElementById(div.id + '-data').textContent);
  var layout = spec.layout || {};
  layout.template = template;
  Plotly.newPlot(div, spec.data, layout, %s);
});
"""


def _without_templates(contents: ReportContents) -> tuple[dict[str, dict[str, str]], Any]:
    """Each figure's JSON without its layout template, and the template (the figures share Plotly's default)."""
    template, figures = None, {}
    for section in contents.methods:
        figures[section.name] = {}
        for name, spec in section.figures.items():
            doc = json.loads(spec)
            template = doc.get("layout", {}).pop("template", template)
            figures[section.name][name] = json.dumps(doc, ensure_ascii=False)
    return figures, template


def _results(doc: dict[str, Any] | None) -> str:
    """The results table for the paper (``analysis.results_table``): every headline per model and configuration, its
    caption, and the table as Markdown and LaTeX to copy (nothing when the contents hold none)."""
    from analysis.results_table import ResultsTable, ci_text, fmt, share_text

    if doc is None:
        return ""
    table = ResultsTable.model_validate(doc)
    rows = [[_td(escape(r.method_label)), _td(escape(r.headline)), _td(escape(r.model)),
             _td(_text(r.configuration)),
             _td(fmt(r.value) if r.value is not None else f'<span class="undefined">—</span> '
                 f'<span class="why">{_text(r.reason)}</span>', num=r.value is not None),
             _td(escape(ci_text(r.ci_lo, r.ci_hi)) + (f' <span class="why">{escape(r.ci_unit)}</span>'
                                                       if r.ci_unit else ""), num=True),
             _td(f"{r.n:,} of {r.of:,} {escape(r.n_unit or '')}" if r.n is not None and r.of is not None else "—"),
             _td(escape(share_text(r.read_share)), num=True), _td(_text(r.chance or r.no_verdict)),
             _td(escape(", ".join(r.runs)))] for r in table.rows]
    head = ["Method", "Headline", "Model", "Configuration", "Value", "95 % CI", "n", "Read", "Chance", "Runs"]
    return (f'<section id="results"><h2>Results table</h2><p class="muted">{escape(table.caption())}</p>'
            f"{_table(head, rows)}"
            f"<details><summary>As Markdown</summary><pre>{escape(table.to_markdown())}</pre></details>"
            f"<details><summary>As LaTeX (booktabs)</summary><pre>{escape(table.to_latex())}</pre></details>"
            "</section>")


def render(contents: ReportContents, plotly_js: str) -> str:
    """The report file's HTML text."""
    m = contents.manifest
    nav = "".join(f'<li><a href="#{anchor("method", s.name)}">{escape(s.label)}</a></li>' for s in contents.methods)
    warned = {}
    for x in m.models:
        if x.warning:
            warned.setdefault(x.warning, []).append(x.name)
    warnings = "".join(f'<p class="warning"><b>{escape(", ".join(names))}</b>: {escape(text)}</p>'
                       for text, names in warned.items())
    has_figures = any(s.figures for s in contents.methods)
    specs, template = _without_templates(contents)
    return "".join([
        '<!doctype html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>RoleScope report · {escape(m.store)}</title><style>{STYLE}</style>",
        f"<script>{plotly_js}</script>" if has_figures else "",
        "</head><body>",
        f'<header><h1>RoleScope report</h1><p class="muted">Store <code>{escape(m.store)}</code> (sha256 '
        f"<code>{m.store_sha256[:16]}…</code>) · RoleScope {escape(m.rolescope_version)}"
        f"{' · commit <code>' + escape(m.commit[:12]) + '</code>' if m.commit else ''} · written {escape(m.created)} · "
        f"{m.options['n_boot']:,} bootstrap resamples, {m.options['chance_sims']:,} draws per null model.</p>"
        f"{warnings}</header>",
        "<nav><h2>Contents</h2><ul>" + ('<li><a href="#results">Results table</a></li>' if contents.results else "")
        + f"{nav}"
        "<li><a href=\"#manifest\">Models and runs</a></li></ul></nav>",
        _results(contents.results),
        *(_section(s, specs[s.name]) for s in contents.methods),
        f'<section id="manifest"><h2>Models and runs</h2>{_models(m.models)}'
        f"<details><summary>{len(m.runs):,} runs</summary>{_runs(m.runs)}</details></section>",
        _json_block(MANIFEST_ID, m.model_dump()),
        _json_block(REPORTS_ID, contents.reports, "application/gzip+base64"),
        _json_block(TABLES_ID, contents.tables, "application/gzip+base64"),
        _json_block(TEMPLATE_ID, template or {}) if has_figures else "",
        f"<script>{PLOTS % (TEMPLATE_ID, script_safe(json.dumps(PLOT_CONFIG)))}</script>" if has_figures else "",
        "</body></html>",
    ])
