"""Which stored runs may be pooled for a metric: the one rule, for every method.

A run's **comparability signature** is its method plus every plan field that changes what is measured
(instrument or statements, population, answer mode, generation params, protocol options, endowment,
rounds, ...). Two runs may be pooled for a metric only when their signatures are equal; a metric is
computed per signature (a *configuration*) and never mixes two.

The signature is the plan minus two kinds of fields. Each method declares its *families* (``Family``: the
part of a method a metric reads, e.g. one per trust level) and their coverage fields in its own folder:

- execution fields, which change how a run was carried out but not its answers (``prefix_reuse``,
  retry counts);
- coverage fields, which say which *cells* of one design a run filled in (contexts, subjects, testings,
  personas ...). Runs differing only there fill different cells of the same design, so they pool; where
  two runs fill the same cell, the latest run's rows count (``latest_rows``).

Everything else belongs to the signature, so a plan field added later splits configurations until it
is declared harmless by its method: the safe default. Imported published files pool by (method, source, the design
the importer records: e.g. the same personas), as one published campaign of one model. Model identity is not in the signature: equal configuration ids
across models mean the same design, so their numbers are comparable.

A model's headline uses its latest configuration (the one holding its most recent run) unless the
caller chooses another by id.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analysis.errors import InputError

#: Fields that never change what is measured, in any method.
EXECUTION_FIELDS = frozenset({"prefix_reuse", "max_retries", "concurrency"})

def _always(plan: Mapping[str, Any]) -> bool:
    return True


def _nothing(plan: Mapping[str, Any]) -> frozenset[str]:
    return frozenset()


@dataclass(frozen=True)
class Family:
    """A part of a method that its metrics read as one design, declared by the method (``Method.families``).

    - ``coverage``: plan fields that say which cells of the design a run covers (they pool);
    - ``includes(plan)``: whether a run of the method belongs to this family (default: every run);
    - ``more_coverage(plan)``: fields that are coverage for this plan only (a campaign's instruments).
    """

    method: str
    name: str
    coverage: frozenset[str] = frozenset()
    includes: Callable[[Mapping[str, Any]], bool] = _always
    more_coverage: Callable[[Mapping[str, Any]], frozenset[str]] = _nothing


#: A choice of configuration: ids (or unique prefixes) for every model that has them, or a mapping model -> id.
Chosen = str | Iterable[str] | Mapping[str, str | Iterable[str]] | None

#: Plan values longer than this (as JSON) are shown in signatures as a digest, not verbatim.
_VERBATIM_CHARS = 120


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _shown(value: Any) -> Any:
    """A signature value as shown to users: short values verbatim, long ones as a digest with a size."""
    text = _canonical(value)
    if len(text) <= _VERBATIM_CHARS:
        return value
    size = f", {len(value)} entries" if isinstance(value, (list, dict)) else ""
    return f"sha256:{hashlib.sha256(text.encode()).hexdigest()[:12]}{size}"


def signature(family: Family, plan: Mapping[str, Any], model_spec: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The comparability signature of a run of ``family``'s method with ``plan``.

    Imported runs: ``{"method", "imported": True, "source"}`` plus what the importer says the file's design is
    (``plan["design"]``, e.g. the population's persona identities): files of one source pool only when their designs
    are equal. Native runs: the plan minus execution and coverage fields, long values replaced by digests
    (``_shown``), plus the generation params the model spec adds to every request (``model_params``; a model named
    alike but decoded otherwise is another configuration).
    """
    if plan.get("imported"):
        design = {k: _shown(v) for k, v in sorted((plan.get("design") or {}).items())}
        return {"method": family.method, "imported": True, "source": plan.get("source"), **design}
    skip = EXECUTION_FIELDS | family.coverage | family.more_coverage(plan)
    out = {k: _shown(v) for k, v in sorted(plan.items()) if k not in skip}
    out["method"] = family.method
    if model_spec is not None:
        out["model_params"] = _shown(model_spec.get("params") or {})
    return out


def signature_id(sig: Mapping[str, Any]) -> str:
    """A short stable id of a signature (12 hex digits of its SHA-256)."""
    return hashlib.sha256(_canonical(sig).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Configuration:
    """The runs of one model that share one signature, newest run last."""

    id: str
    method: str
    family: str
    model: str
    run_ids: tuple[str, ...]
    latest: float
    signature: dict[str, Any] = field(compare=False)

    def differs_from(self, other: Configuration) -> dict[str, Any]:
        """Signature fields whose value here differs from ``other``'s (this configuration's values)."""
        keys = sorted(set(self.signature) | set(other.signature))
        return {k: self.signature.get(k) for k in keys if self.signature.get(k) != other.signature.get(k)}


def configurations(runs: pd.DataFrame, family: Family) -> dict[str, list[Configuration]]:
    """Per model, its configurations of ``family``, newest first.

    ``runs`` has columns run_id, method, model, plan (dict or JSON text), created_at and optionally model_spec (one
    row per run, as in the store's ``runs`` table).
    """
    groups: dict[tuple[str, str], list[tuple[float, str]]] = {}
    sigs: dict[str, dict[str, Any]] = {}
    for row in runs[runs["method"] == family.method].itertuples(index=False):
        plan = json.loads(row.plan) if isinstance(row.plan, str) else dict(row.plan)
        if not family.includes(plan):
            continue
        spec = getattr(row, "model_spec", None)
        spec = json.loads(spec) if isinstance(spec, str) else spec
        sig = signature(family, plan, spec)
        key = signature_id(sig)
        sigs[key] = sig
        groups.setdefault((str(row.model), key), []).append((float(row.created_at), str(row.run_id)))
    out: dict[str, list[Configuration]] = {}
    for (model, key), members in groups.items():
        members.sort()
        out.setdefault(model, []).append(Configuration(key, family.method, family.name, model, tuple(r for _, r in members),
                                                       members[-1][0], sigs[key]))
    for configs in out.values():
        configs.sort(key=lambda c: (c.latest, c.id), reverse=True)
    return out


def configuration_of(runs: pd.DataFrame, families: Iterable[Family]) -> dict[str, str]:
    """run_id -> the id of the configuration it belongs to (for listings such as ``python -m analysis runs``)."""
    out: dict[str, str] = {}
    for family in families:
        for configs in configurations(runs, family).values():
            out.update({r: c.id for c in configs for r in c.run_ids})
    return out


def store_runs(store: Any) -> pd.DataFrame:
    """The store's runs with their plans and model specs (run_id, method, model, model_spec, plan, created_at)."""
    return store.frame("SELECT run_id, method, model, model_spec, plan, created_at FROM runs")


def choose(configs: Sequence[Configuration], chosen: str | Iterable[str] | None = None) -> Configuration:
    """The configuration a model's headline uses: one of ``chosen`` (ids; a unique prefix is enough) when the model
    has it, else its latest. ``configs`` is newest first, as ``configurations`` returns them."""
    if not configs:
        raise ValueError("choose: no configuration")
    wanted = [chosen] if isinstance(chosen, str) else list(chosen or [])
    for want in wanted:
        hits = [c for c in configs if c.id.startswith(want)]
        if len(hits) == 1:
            return hits[0]
    return configs[0]


def chosen_ids(chosen: Chosen) -> list[str]:
    """Every id named in a ``select`` choice (a str, several, or a mapping model -> id)."""
    if isinstance(chosen, Mapping):
        return [i for v in chosen.values() for i in chosen_ids(v)]
    return [chosen] if isinstance(chosen, str) else list(chosen or [])


def check_chosen(all_configs: Iterable[Configuration], chosen: Chosen, where: str) -> None:
    """InputError when a chosen id matches no configuration at all (a typo must not silently fall back)."""
    wanted = chosen_ids(chosen)
    ids = {c.id for c in all_configs}
    for want in wanted:
        if not any(i.startswith(want) for i in ids):
            raise InputError(f"--config {want}: no {where} configuration with that id (known: {', '.join(sorted(ids)) or 'none'})")


def describe(configs: Sequence[Configuration], used: Configuration) -> list[dict[str, Any]]:
    """The ``configurations`` entries of a metrics document: every configuration of a model, which one the headline
    uses, and how each differs from it."""
    return [{"id": c.id, "runs": list(c.run_ids), "latest": c.latest, "used": c.id == used.id,
             "differs": {} if c.id == used.id else c.differs_from(used),
             **({"signature": c.signature} if c.id == used.id else {})} for c in configs]


def latest_rows(frame: pd.DataFrame, keys: Sequence[str], order: Mapping[str, float]) -> pd.DataFrame:
    """Rows of ``frame`` whose run is the latest (by ``order``: run_id -> created_at, ties by run id) among the runs
    holding the same ``keys`` cell, so a re-run of a cell replaces it and is never pooled with it. Every row of the
    winning run for that cell is kept."""
    if frame.empty:
        return frame
    rank = {r: i for i, r in enumerate(sorted(order, key=lambda r: (order[r], r)))}
    when = frame["run_id"].map(lambda r: rank.get(r, -1)).astype(int)
    newest = when.groupby([frame[k] for k in keys], dropna=False, sort=False).transform("max")
    return frame[when == newest]


@dataclass(frozen=True)
class Selection:
    """Which configuration each model's metrics use, and every configuration found (see ``select``)."""

    family: str
    used: dict[str, Configuration]
    found: dict[str, list[Configuration]]
    order: dict[str, float]

    def run_ids(self, model: str | None = None) -> list[str]:
        """The runs of the used configuration of ``model`` (default: of every model)."""
        chosen = [self.used[model]] if model is not None else list(self.used.values())
        return [r for c in chosen for r in c.run_ids]

    def document(self, model: str) -> dict[str, Any]:
        """The metrics-document entries of one model: ``configuration`` (the id used) and ``configurations``."""
        used = self.used[model]
        return {"configuration": used.id, "configurations": describe(self.found[model], used)}


def select(store: Any, family: Family, *, model: str | None = None, config: Chosen = None,
           strict: bool = True) -> Selection:
    """Every model's configurations of ``family`` in ``store`` and the one its metrics use: the latest, or
    the one named in ``config``: ids or unique prefixes for every model that has them, or a mapping model -> ids (with
    ``strict``, an id no model has is an InputError)."""
    runs = store_runs(store)
    found = configurations(runs, family)
    if model is not None:
        found = {m: c for m, c in found.items() if m == model}
    per_model = isinstance(config, Mapping)
    if strict:
        check_chosen([c for cs in found.values() for c in cs], config, family.method)
    used = {m: choose(cs, config.get(m) if per_model else config) for m, cs in found.items()}
    order = {str(r): float(t) for r, t in zip(runs["run_id"], runs["created_at"])}
    return Selection(family.name, used, found, order)
