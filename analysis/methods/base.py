"""The method contract: every folder ``analysis/methods/<m>/`` exports one ``METHOD`` (a ``Method``) from its
``method.py``. Shared code (the CLI, the runner's callers, the app) reaches a method only through it, via the
registry (``analysis.methods``).

A method's **report** is the one metrics document for a store: ``{"models": {model: {...}}, ...}``, every number a
value or ``None`` with its reason. Pages, ``metrics --json`` and Compare read it; nothing recomputes a number from it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, create_model

from analysis.llm.specs import ModelSpec


class Session(Protocol):
    """One run's work: every call of its plan, each answer stored as it arrives."""

    async def run(self) -> None: ...


#: Below this share of replies read, a number that averages the read ones carries its bound (issue 56): unread replies
#: are no random sample (agent-trust's vicuna-7b: the 11 replies RoleScope cannot read average $4.83 by the authors'
#: reading, the 38 it reads $8.21), so a reader sees how far they could move it.
READ_SHARE_FLOOR = 0.9


def unread_bound(read: Sequence[float], n: int, low: float, high: float,
                 statistic: Callable[[np.ndarray], float] = np.mean) -> tuple[float, float] | None:
    """``(statistic with every unread reply at low, at high)`` over ``n`` replies of which ``read`` were read, when fewer
    than ``READ_SHARE_FLOOR`` of them were; else None. For a mean, the worst case the unread replies allow: Manski's
    bounds under no assumption on why a reply was not read (Manski 1989, "Anatomy of the selection problem")."""
    values = np.asarray([float(v) for v in read], dtype=float)
    missing = int(n) - values.size
    if n <= 0 or missing <= 0 or values.size / n >= READ_SHARE_FLOOR:
        return None
    return (float(statistic(np.concatenate([values, np.full(missing, float(low))]))),
            float(statistic(np.concatenate([values, np.full(missing, float(high))]))))


def number(x: Any, reason: str, *, n: int | None = None, of: int | None = None, unit: str = "",
           chance_reason: str | None = None, read: bool = False, bound: tuple[float, float] | None = None,
           bound_note: str = "") -> dict[str, Any]:
    """A report entry: ``{"value": x, "reason": None}`` when ``x`` is a finite number, else ``{"value": None,
    "reason": reason}`` (undefined is never 0). A number averaged over ``n`` of ``of`` units (``unit``: "subjects")
    carries its ``coverage`` ``{"n", "of", "unit", "text"}``, which every reader shows beside it when n < of
    (``coverage_text``). When its units are replies read (``read``: n of of replies could be read), it also carries
    ``read_share`` and, when given, its ``bound`` ``{"lo", "hi", "note"}`` (``unread_bound``: the number with every
    unread reply at each end of the scale, ``bound_note`` saying which); ``chance_reason`` says why the number can have
    no chance verdict."""
    if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x):
        out: dict[str, Any] = {"value": float(x), "reason": None}
    else:
        out = {"value": None, "reason": reason}
    if of is not None:
        k, total = int(n or 0), int(of)
        out["coverage"] = {"n": k, "of": total, "unit": unit, "text": f"{k} of {total} {unit}".strip()}
        if read:
            out["coverage"]["read_share"] = round(k / total, 4) if total else None
        if read and bound is not None and out["value"] is not None:
            out["coverage"]["bound"] = {"lo": float(min(bound)), "hi": float(max(bound)), "note": bound_note}
    if chance_reason:
        out["chance_reason"] = chance_reason
    return out


def coverage_text(entry: Mapping[str, Any] | None) -> str | None:
    """'mean over 7 of 8 subjects' when a headline entry averages a subset of its units, else None; with its bound
    when under ``READ_SHARE_FLOOR`` were read ('mean over 38 of 48 personas (79 % read; every unread one at $0 …
    at $10: −1.23 … 2.45)')."""
    cov = (entry or {}).get("coverage") or {}
    if entry is None or entry.get("value") is None or not cov or cov.get("n", 0) >= cov.get("of", 0):
        return None
    text = f"mean over {cov['text']}"
    if (b := cov.get("bound")) is not None:
        share = cov.get("read_share")
        text += (f" ({share:.0%} read" if share is not None else " (") + \
            f"; {b.get('note') or 'every unread one at each end of the scale'}: {b['lo']:.3g} … {b['hi']:.3g})"
    return text


def no_verdict_reason(entry: Mapping[str, Any] | None, summaries: Mapping[str, Any] | None) -> str | None:
    """Why a headline has no chance verdict (None when it has one): the report's own ``chance_reason``, else the
    headline being undefined, no band computed, or a band undefined on the design."""
    from analysis.chance import combined_verdict

    if combined_verdict(summaries) is not None:
        return None
    entry = entry or {}
    if entry.get("chance_reason"):
        return str(entry["chance_reason"])
    if entry.get("value") is None:
        return "the number itself is undefined"
    if not any(summaries.values() if summaries else ()):
        return "no chance band computed for it"
    return "the null band is undefined on this design"


#: Two models whose invalid shares differ by more than this (20 percentage points) are not ranked on equal footing.
INVALID_GAP = 0.20


def invalid_share_gaps(models: Mapping[str, Mapping[str, Any]], threshold: float = INVALID_GAP) -> list[dict[str, Any]]:
    """Per ``counts`` kind (invalid answers, refusals) where the models' shares differ by more than ``threshold``:
    ``{"kind", "shares": {model: rate}, "gap", "text"}`` (models with no replies of the kind are left out). ``models``
    is a report's ``models`` (each with its ``counts``): the Leaderboard page and ``leaderboard`` warn with it."""
    shares: dict[str, dict[str, float]] = {}
    for model, doc in models.items():
        for c in doc.get("counts") or []:
            if c.get("rate") is not None:
                shares.setdefault(c["kind"], {})[model] = float(c["rate"])
    out = []
    for kind, rates in shares.items():
        gap = max(rates.values()) - min(rates.values()) if len(rates) > 1 else 0.0
        if gap > threshold:
            listed = ", ".join(f"{m} {100 * r:.1f} %" for m, r in sorted(rates.items(), key=lambda kv: -kv[1]))
            out.append({"kind": kind, "shares": rates, "gap": gap,
                        "text": f"{kind}: {listed} — {100 * gap:.1f} points apart (more than {100 * threshold:.0f}): "
                                "their numbers rest on different subsets of the questions, so their ranks do not "
                                "compare like with like"})
    return out


@dataclass(frozen=True)
class Headline:
    """A number a method is summed up by on the Overview and Compare. The report holds it for every model at
    ``models[model]["headlines"][key]`` as a ``number`` entry; every reader shows that entry and nothing else."""

    key: str  # column name across methods, e.g. "mbti_consistency"
    label: str  # "MBTI: consistency ↑"
    higher_is_better: bool = True
    #: (a model's chance document, its headline entry) -> the null summary of this number, when it has one.
    null: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] | None = None
    #: a model's document -> the number's 95 % bootstrap CI as its report holds it ({"lo", "hi"}), when it holds one.
    ci: Callable[[Mapping[str, Any]], Mapping[str, Any] | None] | None = None


def headline(report: Mapping[str, Any], model: str, key: str) -> dict[str, Any]:
    """The headline entry ``key`` of ``model`` in ``report`` (undefined with a reason when the model is absent)."""
    doc = (report.get("models") or {}).get(model)
    if doc is None:
        return {"value": None, "reason": "no answers of this model"}
    return (doc.get("headlines") or {}).get(key) or {"value": None, "reason": "not in the report"}


def frame_doc(frame: pd.DataFrame) -> dict[str, Any]:
    """A frame in a report: ``{"columns", "data"}`` (row lists; NaN as null), read back by ``doc_frame``."""
    clean = frame.astype(object).where(frame.notna(), None)
    return {"columns": [str(c) for c in frame.columns], "data": [[_plain(v) for v in row] for row in clean.itertuples(index=False)]}


def doc_frame(doc: Mapping[str, Any] | None) -> pd.DataFrame | None:
    """The frame ``frame_doc`` stored (same columns in the same order; null as NaN in number columns), or None."""
    if doc is None:
        return None
    return pd.DataFrame(doc["data"], columns=doc["columns"]).infer_objects()


def _plain(x: Any) -> Any:
    if hasattr(x, "item"):  # a numpy scalar
        x = x.item()
    return None if isinstance(x, float) and not math.isfinite(x) else x


@dataclass(frozen=True)
class Shows:
    """What a plan can show before it runs: its design in a few words, and per analysis whether it can be computed
    (and why not)."""

    design: str
    lines: tuple[tuple[str, bool, str], ...]  # (analysis, can it be computed, why not)
    #: analysis -> whether a model's report document shows it: the same test ``lines`` ran on the dry run's document,
    #: so a plan's promise can be checked against the report of its run (``tests/test_method_contract.py``).
    probes: Mapping[str, Callable[[Mapping[str, Any]], bool]] = field(default_factory=dict, compare=False)

    @property
    def nothing(self) -> bool:
        return not any(ok for _, ok, _ in self.lines)


def dry_run_shows(design: str, doc: Mapping[str, Any],
                  checks: Sequence[tuple[str, Callable[[Mapping[str, Any]], bool], str]],
                  promised: Mapping[str, bool] | None = None) -> Shows:
    """``Shows`` from a dry run: each check is (analysis, probe(model document) -> shown?, why not), applied to the
    document the report's metric functions computed on placeholder answers of the plan's design. ``promised``
    overrides a line that depends on other runs than this plan's (an ablation's)."""
    promised = promised or {}
    return Shows(design, tuple((name, bool(promised.get(name, probe(doc))), why) for name, probe, why in checks),
                 {name: probe for name, probe, _ in checks})


def counts(kind: str, count: int, n: int) -> dict[str, Any]:
    """A report's ``counts`` entry: of ``n`` replies of ``kind``'s family, ``count`` could not be used; their share
    ``rate`` with its 95 % Wilson score interval ``lo``, ``hi`` (Wilson 1927; ``statsmodels``
    ``proportion_confint(method="wilson")``), all None when ``n`` = 0."""
    if n <= 0:
        return {"kind": kind, "count": int(count), "n": 0, "rate": None, "lo": None, "hi": None}
    from statsmodels.stats.proportion import proportion_confint  # scipy: reports are computed, never at start-up

    lo, hi = proportion_confint(count, n, alpha=0.05, method="wilson")
    return {"kind": kind, "count": int(count), "n": int(n), "rate": count / n, "lo": float(lo), "hi": float(hi)}


@dataclass(frozen=True)
class Side:
    """One model of a comparison: its store, its name there, the configuration chosen for it and the method's report
    of that store."""

    store: Any
    model: str
    config: Any
    report: Mapping[str, Any]

    @property
    def doc(self) -> Mapping[str, Any]:
        return self.report["models"][self.model]


@dataclass(frozen=True)
class Reading:
    """What a reply reader made of one reply: a value, or invalid with the reason (``python -m analysis parse``)."""

    valid: bool
    value: Any = None
    reason: str | None = None


@dataclass(frozen=True)
class Reader:
    """A reply reader the runs use, callable on its own: ``read(reply, finish_reason, context) -> Reading``.
    ``context`` holds the fields named in ``needs`` (with ``defaults`` for those that may be left out)."""

    kind: str
    help: str
    read: Callable[[str, str | None, Mapping[str, Any]], Reading]
    needs: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    #: The context's fields as a pydantic model (``context_model``: the run's own types and bounds): ``parse`` checks
    #: a line's context with it before reading, and names the field and the rule it breaks. None: no context.
    context: Any = None


def context_model(name: str, source: type[BaseModel], *fields: str, **more: Any) -> type[BaseModel]:
    """A reader's context model: ``fields`` of ``source`` (a run's plan or options model) with their types, bounds and
    defaults, plus ``more`` (``name=(type, default or Field)``); other keys of a line are ignored."""
    taken = {f: (source.model_fields[f].annotation, source.model_fields[f]) for f in fields}
    return create_model(name, __config__=ConfigDict(extra="ignore"), **taken, **more)


@dataclass(frozen=True)
class Published:
    """A method's figures published for real models (``analysis.published``): the bundled ``file`` under ``data/``
    and ``rows(document)``, its long rows (model, metric, value, better, source)."""

    file: str
    rows: Callable[[Mapping[str, Any]], list[dict[str, Any]]]


@dataclass(frozen=True)
class BundledImport:
    """A public source of real models' answers that the bundled demo imports, numbers only (``demo build``): its
    import ``kind``, its ``folder`` under the anchors copy (``../shared/anchors``) and ``load(store, path)`` -> run ids,
    which stores the parsed answers, amounts and scores but none of the source's text (replies, prompts, items)."""

    kind: str
    folder: str
    load: Callable[[Any, Any], list[str]]


@dataclass(frozen=True)
class Method:
    """Everything shared code knows of a method. Each field is the method's own function; see a method's
    ``method.py`` for its formulas and sources."""

    name: str  # the CLI's METHOD and the runs table's method
    title: str  # "Values (Stick to Your Role!)"
    label: str  # short, for table cells: "Values"
    order: int  # position in menus and tables
    #: Store tables holding the method's answers (a store "has" the method when one has rows).
    tables: tuple[str, ...]
    #: Shared modules (paths from the repository root) its report depends on, besides its own folder.
    sources: tuple[str, ...]
    help: str  # one line for ``run --help``
    #: The method's run options (``analysis.methods.options.Options``): defaults, bounds, help; the ``run`` flags are
    #: derived from it (``--model``, ``--run-id``, ``--store`` are shared).
    options: type
    #: (parsed ``run`` options, ModelSpec) -> [(run-id suffix, plan)]: one run, or several (an ablation, a campaign).
    plans: Callable[[Any, ModelSpec], list[tuple[str, dict[str, Any]]]]
    n_calls: Callable[[dict[str, Any]], int]
    #: plan -> (tokens in, tokens out) modelled from its prompts, or why it cannot be (``analysis.runs.estimate``).
    tokens: Callable[[dict[str, Any]], tuple[float, float] | str]
    session: Callable[..., Session]  # (plan, executor, store, run_id, spec) -> Session
    #: plan -> the waves a batch execution of it takes when every reply reads: its longest chain of calls that wait
    #: for one another (``analysis.runs.waves``); the Run page and ``--via batch`` say it.
    waves: Callable[[dict[str, Any]], int]
    #: (store, model=None, *, config=None, n_boot=..., chance=0) -> the report (see the module docstring); every
    #: model's document holds ``headlines`` (one ``number`` entry per ``Headline``) and ``counts``.
    report: Callable[..., dict[str, Any]]
    #: (store, n_sims, *, config=None, report=None) -> {model: the null bands the pages show}.
    chance: Callable[..., dict[str, Any]]
    #: (plan, number of runs per model) -> Shows: what the plan's answers can produce.
    can_show: Callable[[dict[str, Any], int], Shows]
    #: (Side A, Side B, *, n_boot) -> [Difference]: the two models' numbers with paired CIs where both answered the
    #: same units (Compare shows each headline as the reports hold it and takes the CI that estimates it).
    compare: Callable[..., list[Difference]]
    #: Its report's pydantic type (``analysis.methods.report_model.Report``'s subclass in its ``report_types.py``,
    #: named as a ``Hook``): every report is checked against it before it is kept. None: the shared part only.
    report_model: Any = None
    #: (store, model=None, *, config=None) -> the answer rows its report reads, for the samples panels under its
    #: figures (read, never scored, by a page). None: its pages show no answers beside a figure.
    answers: Callable[..., pd.DataFrame] | None = None
    #: (store, model, part, n_sims, *, config, n_boot) -> the null bands of one part of a model's report that its
    #: pages draw on demand, kept beside the report (values: one context's separability and CFA fit bands, a CFA fit
    #: per draw). None: every band is in ``chance``.
    part_chance: Callable[..., dict[str, Any]] | None = None
    #: (Side A, Side B) -> {name: frame document (``frame_doc``)}: where the two models differ most (items, personas,
    #: statements) on the units both answered, the tables Compare shows under the method's headlines. None: none.
    gaps: Callable[[Side, Side], dict[str, Any]] | None = None
    headlines: tuple[Headline, ...] = field(default=())
    #: The parts of the method its metrics read as one design, with the plan fields that pool
    #: (``analysis.runs.comparable.Family``); the configuration picker and ``runs`` list them.
    families: tuple[Any, ...] = ()
    published: Published | None = None
    #: Its reply readers by kind (``python -m analysis parse KIND``), the very functions its sessions call.
    readers: tuple[Reader, ...] = ()
    #: (store, *, n_boot, chance) -> the method's leaderboard document over every model of the store, read from its
    #: report (``python -m analysis leaderboard``), with its ``invalid_gaps`` (``invalid_share_gaps`` of the report).
    leaderboard: Callable[..., dict[str, Any]] | None = None
    #: Kinds of published result files the method imports (``python -m analysis import KIND``), and the import:
    #: (kind, paths, store path, --json) -> exit code, one line per file or run on stderr.
    importers: tuple[str, ...] = ()
    run_import: Callable[[str, list[Any], Any, bool], int] | None = None
    #: (kind, paths, --json) -> a function of the store path that stores and returns the exit code: every file read
    #: and checked first, nothing stored. A kind that several methods import (one source holding answers of each) is
    #: prepared by every one of them before any of them stores, so a refused file stores nothing in any method.
    #: None: the kind is imported by ``run_import`` alone (then no other method may import it).
    prepare_import: Callable[[str, list[Any], bool], Callable[[Any], int]] | None = None
    #: Sources of real models' answers the bundled demo imports, numbers only (``BundledImport``).
    bundled_imports: tuple[BundledImport, ...] = ()
    #: (store, run ids or None) -> every stored reply of the method as rows of ``analysis.samples.COLUMNS`` (the
    #: Samples view, its exports, a run's outcome).
    samples: Callable[..., pd.DataFrame] | None = None
    #: (its ``options`` model, personas [``analysis.persona_scores.CampaignPersona``], ModelSpec, constructs) -> a plan
    #: that gives exactly these personas the method's protocol: a part of a cross-method campaign. ``constructs``: the
    #: method's scores the campaign's pairs name; a plan that asks a subset of its items (``limit_items``) still asks
    #: every item they rest on. Its report then holds each model's ``persona_scores`` (``analysis.persona_scores``).
    #: None: the method takes no shared persona set.
    persona_plan: Callable[[Any, list[Any], ModelSpec, frozenset[str]], dict[str, Any]] | None = None
    #: plan -> [(method, plan)]: the runs of other methods a composite plan (a campaign) makes, so that each part's
    #: cost is estimated from its own method. None: the plan is one run of this method.
    parts: Callable[[dict[str, Any]], list[tuple[str, dict[str, Any]]]] | None = None
    #: (this method's score, the other method's score as "method:score") -> the published per-model r of the two
    #: [{"model", "model_id", "r", "measures", "source"}], [] when none is bundled: LLM figures a cross-method pair shows
    #: beside its own r (never pooled). None: the method bundles no such figures.
    external_validity: Callable[[str, str], list[dict[str, Any]]] | None = None
    #: (report, models) -> its main charts for a paper, ``{name: plotly Figure}`` in reading order, drawn from its report
    #: alone with the builders its pages use (``analysis/methods/<m>/figures.py``); a chart with no data for these
    #: models is left out. ``python -m analysis figure`` writes one; the report file embeds them. None: no figures.
    figures: Callable[[Mapping[str, Any], list[str]], dict[str, Any]] | None = None

    @property
    def source_paths(self) -> tuple[str, ...]:
        """What its report depends on (``analysis.report_cache.code_fingerprint``): its folder and ``sources``."""
        return (f"analysis/methods/{self.name}", *self.sources)

    def has_data(self, table_sizes: Mapping[str, int]) -> bool:
        """Whether a store with these table sizes holds any of this method's answers."""
        return any(table_sizes.get(t, 0) > 0 for t in self.tables)

    def cached_report(self, store: Any, model: str | None = None, *, config: Any = None, n_boot: int = 1000,
                      chance: int = 0) -> dict[str, Any]:
        """``report`` with these options, kept in the store (``analysis.report_cache``): read when the store's content
        and the method's code are those it was computed on, computed otherwise, checked against the shared typed part
        of every report (``analysis.methods.report_model``: its headlines and counts) and written (in a writable store,
        else its side store)."""
        from analysis.methods.report_model import checked
        from analysis.report_cache import cached_report

        options = {"model": model, "config": config, "n_boot": n_boot, "chance": chance}
        keys = tuple(h.key for h in self.headlines)
        typed = self.report_model.resolve() if self.report_model is not None else None
        return cached_report(store, self.name, options,
                             lambda: checked(self.report(store, model, config=config, n_boot=n_boot, chance=chance), keys,
                                             *([typed] if typed else [])),
                             sources=self.source_paths)

    def cached_chance(self, store: Any, n_sims: int, *, config: Any = None, n_boot: int = 1000) -> dict[str, Any]:
        """``chance`` on the report ``cached_report`` gives for these options, kept beside it (the same cache, kind
        ``chance-<method>``): {model: the null bands its pages show}."""
        from analysis.report_cache import cached_report

        options = {"config": config, "n_boot": n_boot, "n_sims": n_sims}
        return cached_report(store, f"chance-{self.name}", options,
                             lambda: self.chance(store, n_sims, config=config,
                                                 report=self.cached_report(store, config=config, n_boot=n_boot)),
                             sources=self.source_paths)

    def build_session(self, plan: dict[str, Any], executor: Any, store: Any, run_id: str, spec: ModelSpec) -> Session:
        return self.session(plan, executor, store, run_id, spec)


@dataclass(frozen=True)
class Difference:
    """One headline number for models A and B, and the difference A − B with its CI (when paired). An undefined side
    makes A − B undefined, and an undefined A − B has no CI: both are NaN, never shown, plotted or ranked (the note
    says why). ``key``: the headline (``Headline.key``) this row is, computed on the very units the two reports
    average (the method's comparison decides): Compare shows its A − B, CI and note on that headline's row."""

    method: str
    metric: str
    a: float
    b: float
    diff: float
    lo: float = float("nan")
    hi: float = float("nan")
    note: str = ""
    key: str | None = None

    def __post_init__(self) -> None:
        nan = float("nan")
        if not (math.isfinite(self.a) and math.isfinite(self.b)):
            object.__setattr__(self, "diff", nan)
        if not math.isfinite(self.diff):
            object.__setattr__(self, "lo", nan)
            object.__setattr__(self, "hi", nan)


#: Fewer shared units (personas, testings) than this and a paired bootstrap CI is undefined: with 2 or 3 units the
#: resamples take a handful of distinct values and the percentile interval says nothing.
MIN_PAIRED_UNITS = 5


def too_few_units(n: int, what: str) -> str | None:
    """Why a paired CI over ``n`` shared ``what`` is undefined, or None when there are enough."""
    return None if n >= MIN_PAIRED_UNITS else f"CI undefined: {n} shared {what}, a paired CI needs ≥ {MIN_PAIRED_UNITS}"


def difference(method: str, metric: str, a: Any, b: Any, ci: Any = None, note: str = "",
               key: str | None = None) -> Difference:
    """A row of Compare: A, B (undefined as NaN) and A − B, with the paired bootstrap CI ``ci`` (``analysis.stats.CI``)
    when there is one; ``key``: the headline it is (``Difference.key``)."""
    a, b = (float("nan") if x is None else float(x) for x in (a, b))
    if ci is None:
        return Difference(method, metric, a, b, a - b, note=note or "no CI (not bootstrapped)", key=key)
    return Difference(method, metric, a, b, ci.estimate, ci.lo, ci.hi, note, key)


def differences_frame(diffs: list[Difference]) -> pd.DataFrame:
    cols = ["method", "metric", "a", "b", "diff", "lo", "hi", "note"]
    return pd.DataFrame([d.__dict__ for d in diffs], columns=cols)
