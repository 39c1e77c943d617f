"""Shared page furniture: the sidebar (store and models), page headers, empty states, chart display."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from analysis import methods
from analysis.errors import RoleScopeError
from analysis.figures.palette import model_colors
from app import state
from app.markdown import plain
from app.stores import DEMO_LABEL, USER_LABEL, StoreRef, ref_for, store_choices

_CTX = "_page_context"
PLOT_CONFIG = {"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d"]}
#: What the camera button of a chart's toolbar downloads, as the sidebar's "Chart downloads" picks it: a PNG at 3x the
#: chart's size on screen (print resolution) or an SVG (vector). plotly.js has one image button (``toImage``, its format
#: set by ``toImageButtonOptions``), and a second button would need a JavaScript click handler, which Streamlit's JSON
#: ``config`` cannot carry; so one button, its format the user's pick (``python -m analysis figure`` writes PDF too).
DOWNLOADS = {"PNG": {"format": "png", "scale": 3}, "SVG": {"format": "svg", "scale": 1}}
_DOWNLOAD = "chart_download"


@dataclass(frozen=True)
class PageContext:
    """What every page reads: the selected store and the models picked in the sidebar."""

    ref: StoreRef
    label: str
    models: list[str]
    all_models: list[str] = field(default_factory=list)

    @property
    def colors(self) -> dict[str, str]:
        return model_colors(self.all_models)

    def pick(self, available: list[str]) -> list[str]:
        """The sidebar's models that have data for a method (keeps the sidebar's order)."""
        return [m for m in self.models if m in set(available)]


def store_ids() -> dict[str, tuple[str, str, bool]]:
    ids: dict[str, tuple[str, str, bool]] = {}
    for label, (path, read_only) in store_choices().items():
        key = "demo" if label == DEMO_LABEL else "user" if label == USER_LABEL else f"file-{label}"
        ids[key] = (label, str(path), read_only)
    return ids


def sidebar() -> PageContext | None:
    """Draw the shared sidebar; returns the page context (None when the store cannot be opened)."""
    from app import data

    ids = store_ids()
    side = st.sidebar
    key = state.selectbox("Store", list(ids), key="store", default="demo" if "demo" in ids else "user", container=side,
                          format_func=lambda k: ids[k][0],
                          help="The bundled demo is read-only; your runs and imports go to your store.")
    label, path, read_only = ids[key]
    try:
        ref = ref_for(path, read_only)
    except RoleScopeError as exc:
        st.error(plain(exc))
        st.session_state.pop(_CTX, None)
        return None
    side.caption(f"`{path}`" + (" · read-only" if read_only else ""))
    all_models = data.models_in(ref)
    models = state.multiselect("Models", all_models, key="models", container=side,
                               help="Models shown on every page (all by default).") if all_models else []
    if all_models and not models:
        side.warning("No model selected: showing all.")
        models = all_models
    ref = ref._replace(configs=configuration_picker(ref, side))
    side.radio("Chart downloads", list(DOWNLOADS), key=_DOWNLOAD, horizontal=True,
               help="What a chart's camera button (top right of the chart) downloads: PNG at 3x its size on screen "
                    "(print resolution) or SVG (vector, for a paper).")
    ctx = PageContext(ref, label, models, all_models)
    st.session_state[_CTX] = ctx
    return ctx


def _config_label(configs: list[Any], config_id: str) -> str:
    """'latest · 2 runs' or 'a1b2c3d4e5f6 · differs: params={...}, endowment=100' for the picker."""
    config = next(c for c in configs if c.id == config_id)
    runs = f"{len(config.run_ids)} run{'s' * (len(config.run_ids) != 1)}"
    if config is configs[0]:
        return f"latest ({config.id[:8]}) · {runs}"
    differs = ", ".join(f"{k}={v}" for k, v in config.differs_from(configs[0]).items())
    return f"{config.id[:8]} · {runs} · {differs}"


def configuration_picker(ref: StoreRef, side: Any) -> tuple[tuple[str, str, str], ...]:
    """Where a model has runs of several configurations (``analysis.runs.comparable``: runs that must not be pooled),
    let the user pick which one its metrics use (default: the latest). Returns the non-default picks as
    (method, model, id)."""
    from app import data

    found = data.configurations(ref)
    several = [(method, family, model, configs) for method, families in found.items() for family, models in families.items()
               for model, configs in models.items() if len(configs) > 1]
    if not several:
        return ()
    chosen: list[tuple[str, str, str]] = []
    box = side.expander(f"Configurations ({len(several)} with a choice)", expanded=False)
    box.caption("Runs of one model that differ in what they measure (population, instrument, decoding, protocol ...) are "
                "never pooled. Each model's metrics use its latest configuration unless you pick another.")
    for method, family, model, configs in several:
        where = methods.get(method).label + (f" {family}" if family != method else "")
        ids = [c.id for c in configs]
        pick = box.selectbox(f"{where}: {model}", ids, key=f"config-{ref.path}-{method}-{family}-{model}",
                             format_func=lambda i, cs=configs: _config_label(cs, i))
        if pick != ids[0]:
            chosen.append((method, model, pick))
    return tuple(sorted(chosen))


def context() -> PageContext:
    """The page context set by the sidebar in this script run (stops the page when there is none)."""
    ctx = st.session_state.get(_CTX)
    if ctx is None:
        st.stop()
    return ctx


def header(caption: str, *, report: tuple[str, ...] | None = None) -> None:
    """The line under the page's heading (the heading itself is ``PageInfo.heading``, drawn by ``app/main.py`` before
    the sidebar's reads and the page's own imports, so it paints first). With ``report``: beside it, the "Download
    report" button (``app.report_file``) for those methods (``()``: every method) and the models picked in the
    sidebar."""
    if report is None:
        st.caption(caption)
        return
    from app.report_file import download_button

    left, right = st.columns([6, 1], vertical_alignment="center")
    left.caption(caption)
    ctx = context()
    download_button(ctx.ref, models=ctx.models, methods=report or None, key="report-download", container=right)


def empty(message: str, hint: str | None = None) -> None:
    """A friendly empty state: what is missing and how to get it."""
    st.info(message + (f"\n\n{hint}" if hint else ""), icon="ℹ️")


def method_page(method: str, question: str, available: Callable[[StoreRef], list[str]], *, nothing: str, hint: str,
                headline_cards: bool = True, allow_empty: bool = False) -> tuple[PageContext, list[str]]:
    """The opening every method page shares: the question the page answers under its heading (with the "Download
    report" button of ``method``), the sidebar's models that have data (``available(ref)``: the models of the store
    with the method's answers), and the method's headline cards for them. Without such a model, an empty state (``nothing``: what the store lacks, e.g. "MBTI answers";
    ``hint``: how to get them) stops the page, unless ``allow_empty`` (a page that shows more than the store's models,
    such as published scores)."""
    ctx = context()
    header(question, report=(method,))
    have = available(ctx.ref)
    models = ctx.pick(have)
    if not models and not allow_empty:
        empty(f"No {nothing} in **{ctx.ref.name}**" + (" for the models picked in the sidebar." if have else "."), hint)
        st.stop()
    if headline_cards:
        headlines(ctx.ref, method, models)
    return ctx, models


def plot(fig: Any, key: str | None = None, *, select: bool = False) -> Any:
    """A chart at full width; with ``select`` a click selects a point and reruns the page: returns the selection
    event (kept by Streamlit under ``key`` across reruns while the figure is unchanged)."""
    config = plot_config(key)
    if select:
        return st.plotly_chart(fig, width="stretch", config=config, key=key, on_select="rerun",
                               selection_mode="points")
    st.plotly_chart(fig, width="stretch", config=config, key=key)
    return None


def plot_config(key: str | None = None) -> dict[str, Any]:
    """The charts' Plotly config: ``PLOT_CONFIG`` with the camera button downloading the sidebar's format
    (``DOWNLOADS``; default PNG at 3x), the file named after the chart (``rolescope-<key>``)."""
    image = DOWNLOADS.get(st.session_state.get(_DOWNLOAD), DOWNLOADS["PNG"])
    return PLOT_CONFIG | {"toImageButtonOptions": image | {"filename": f"rolescope-{key or 'chart'}"}}


def fmt(x: Any, digits: int = 3) -> str:
    """A number for prose and metrics: fixed digits, '—' when missing."""
    if x is None:
        return "—"
    try:
        value = float(x)
    except (TypeError, ValueError):
        return str(x)
    if not math.isfinite(value):
        return "—"
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text  # no "-0.000"


def ci_text(est: Any, lo: Any, hi: Any, digits: int = 2) -> str:
    """'0.94 [0.88, 0.95]' (or only the interval when ``est`` is None; only the estimate without bounds)."""
    if lo is None or hi is None or not all(map(math.isfinite, (float(lo), float(hi)))):
        return fmt(est, digits)
    interval = f"[{fmt(lo, digits)}, {fmt(hi, digits)}]"
    return interval if est is None else f"{fmt(est, digits)} {interval}"


TINY_MODEL_NOTE = (
    "The embedded model is **SmolLM2-135M-Instruct**, a 135M-parameter model: its answers are near chance, "
    "so its numbers only show that the pipeline works. Point a run at a real endpoint for meaningful results."
)


def model_notes(models: list[str], specs: dict[str, dict[str, Any]] | None = None, *, embedded: bool = True) -> None:
    """Warn when any shown model is the embedded 135M model (unless ``embedded`` is False: the page says it its own
    way), and for each shown model with runs imported from an edited report file (``analysis.runs.provenance``)."""
    from analysis.runs.provenance import edited_note

    specs = specs or {}
    if embedded and any(m == "embedded" or (specs.get(m) or {}).get("backend") == "embedded" for m in models):
        st.warning(TINY_MODEL_NOTE, icon="⚠️")
    for model in models:
        note = edited_note(specs.get(model))
        if note:
            st.error(f"**{plain(model)}**: {plain(note)}.", icon="⚠️")


# -- chance levels (``analysis.chance`` summaries: {"uniform": {...}, "permutation": {...}}) -------------
NULL_LABELS = {"uniform": "random answers", "permutation": "answers shuffled across personas"}


def chance_verdict(summaries: Any) -> str | None:
    """The verdict over every null (``analysis.chance.combined_verdict``)."""
    from analysis.chance import combined_verdict

    return combined_verdict(summaries)


def chance_text(summaries: Any, digits: int = 3) -> str:
    """'random answers: 0.289 [0.288, 0.291], p = 0.31; shuffled …' — or why there is no band."""
    parts = []
    for kind, s in (summaries or {}).items():
        if not s:
            continue
        if s.get("mean") is None:
            parts.append(f"{NULL_LABELS.get(kind, kind)}: {s.get('reason') or 'undefined on this design'}")
            continue
        p = f", p = {fmt(s['p'], 3)}" if s.get("p") is not None else ""
        if s.get("verdict") == "not enough draws":
            p += f" ({s.get('n_sims')} draws: not enough for a verdict)"
        parts.append(f"{NULL_LABELS.get(kind, kind)}: {ci_text(s['mean'], s['lo'], s['hi'], digits)}{p}")
    return "; ".join(parts) if parts else "no chance band (not computed)"


def vs_chance(summaries: Any) -> str:
    """A table cell: the largest p over the nulls and the verdict ('p = 0.010 · beyond chance'), '—' when undefined
    (``analysis.chance.vs_chance``)."""
    from analysis.chance import vs_chance as cell

    return cell(summaries)


def chance_caption(summaries: Any, digits: int = 3) -> None:
    """A caption under a metric: its chance band and verdict."""
    verdict = chance_verdict(summaries)
    mark = {"beyond chance": ":green[beyond chance]", "chance-like": ":orange[indistinguishable from chance]",
            "not enough draws for a verdict": "not enough draws for a verdict"}.get(verdict, "")
    st.caption(f"Chance (95 % band) — {chance_text(summaries, digits)}" + (f" · **{mark}**" if mark else ""))


def readers_caption(method: str) -> None:
    """Beside a method's invalid counts: how its reply readers read their hand-labelled corpora (read right, wrong
    values, missed answers; ``bench/bench_parsers.py``), so an invalid rate can be told from a reader's misses."""
    from analysis.reader_quality import caption

    text = caption(r.kind for r in methods.get(method).readers)
    if text:
        st.caption(text)


def table(data: Any, **kwargs: Any) -> Any:
    """``st.dataframe`` with every undefined cell shown as "—" (Streamlit's default prints the word "None")."""
    kwargs.setdefault("placeholder", "—")
    return st.dataframe(data, **kwargs)



#: A headline card's label (the model's full name is part of it) and its chance verdict wrap instead of being cut with an
#: ellipsis.
WRAP_METRIC_LABELS = ('<style>[data-testid="stMetricLabel"], [data-testid="stMetricLabel"] *, '
                      '[data-testid="stMetricDelta"], [data-testid="stMetricDelta"] * '
                      '{white-space: normal !important; overflow: visible !important; text-overflow: clip !important; '
                      'height: auto !important;}</style>')


#: A headline card's chance verdict, in words and a colour (never an emoji alone): text, the metric's delta colour.
CARD_VERDICTS = {"beyond chance": ("beyond chance", "green"), "chance-like": ("at chance", "orange"),
                 "not enough draws for a verdict": ("not enough draws for a chance verdict", "gray")}


def headline_label(label: str, model: str) -> str:
    """The label of one model's headline card: the headline's own label, then the model."""
    return f"{label} · {model}"


def headlines(ref: StoreRef, method: str, models: list[str]) -> None:
    """The method's headline numbers for ``models`` as its report holds them (the Overview and Compare show the same
    entries): one card per model and headline, "—" where undefined with the reason as its help."""
    from app import data

    long = data.headlines(ref)
    long = long[(long["method"] == method) & long["model"].isin(models)]
    order = {m: i for i, m in enumerate(models)}  # the sidebar's order: real models first
    long = long.sort_values("model", key=lambda m: m.map(order), kind="stable")
    st.html(WRAP_METRIC_LABELS)
    cells = st.columns(min(len(long), 4)) if len(long) else []
    bands = data.headline_chance(ref, method)
    for k, row in enumerate(long.itertuples()):
        why = f"Undefined: {row.reason}" if isinstance(row.reason, str) and row.reason else None
        verdict = CARD_VERDICTS.get(chance_verdict((bands.get(row.model) or {}).get(row.key)) or "") if not why else None
        cells[k % len(cells)].metric(headline_label(row.label, row.model), fmt(row.value, 3),
                                     delta=verdict[0] if verdict else None, delta_color=verdict[1] if verdict else "off",
                                     delta_arrow="off", help=why or (row.note if isinstance(row.note, str) else None))
        if why:  # the reason in a sentence under the "—", not only behind the help icon
            cells[k % len(cells)].caption(why)
        shown = [t for t in (row.coverage, row.note) if why is None and isinstance(t, str) and t]
        if shown:  # a mean over a subset says so wherever it is shown ("mean over 7 of 8 subjects")
            cells[k % len(cells)].caption(" · ".join(shown))
    if structured := structured_models(data.report(ref, method), models):
        st.caption(f"Structured answers (`answer_format=json`) for {', '.join(structured)}: every answer asked as a JSON "
                   "object the endpoint constrains to the options (a JSON schema), a configuration of its own, never "
                   "pooled with free-text runs; a reply that is no JSON is read as text and its reason says so.")


def structured_models(report: dict[str, Any], models: list[str]) -> list[str]:
    """The ``models`` whose shown configuration (the one their numbers use; for a method with families, any family's,
    e.g. the trust game's levels) asked for structured answers."""
    out = []
    for model in models:
        configs = ((report.get("models") or {}).get(model) or {}).get("configurations") or []
        lists = list(configs.values()) if isinstance(configs, dict) else [configs]
        used = [c for group in lists if isinstance(group, list) for c in group if isinstance(c, dict) and c.get("used")]
        if any((c.get("signature") or {}).get("answer_format") == "json" for c in used):
            out.append(model)
    return out
