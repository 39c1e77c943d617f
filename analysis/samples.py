"""Every stored reply as one row of one table, for every method: the Samples view, its exports and a run's outcome.

A method declares how its answer tables become samples (``Method.samples``: store, run ids -> frame); this module
holds the shared columns, the filters, the A-vs-B pairing and the prompt × model matrix, as pure functions on that
frame; ``analysis.sample_export`` turns it into a file (with each sample's stored call and its run's labels).
Method-free: nothing here names a method.

Columns (``COLUMNS``):

- ``sample_id``: a short stable id of the sample (its source table and row), for links;
- ``method``, ``kind`` (which reply of the method: "answer", "grade", "belief" …), ``run_id``, ``model``;
- ``persona_id``, ``persona`` (a label), ``item`` (item, statement, question or attribute), ``context`` (context,
  testing, order, round …);
- ``prompt``: what identifies the question across models (the same persona, item, context and testing ask the
  same thing), so two models' replies pair on (method, kind, prompt);
- ``parsed`` (what the reader took, as text; None when invalid), ``valid``, ``reason`` (why invalid, or a judge's
  note), ``truncated`` and ``refusal`` (``pd.NA`` where the method does not record it);
- ``reply`` (the raw reply), ``cache_key`` (the stored call), ``scored`` (whether this kind feeds the method's
  metrics: a valid scored sample is something to score), ``table`` and ``key`` (the source row: its table and
  primary key as JSON).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

COLUMNS = ("sample_id", "method", "kind", "run_id", "model", "persona_id", "persona", "item", "context", "prompt",
           "parsed", "valid", "reason", "truncated", "refusal", "reply", "cache_key", "scored", "table", "key")
TEXT = tuple(c for c in COLUMNS if c not in ("valid", "truncated", "refusal", "scored"))
#: What a cell of the matrix and the A-vs-B view show for an invalid sample.
INVALID = "invalid"

Column = str | pd.Series | Callable[[pd.DataFrame], Any] | None


def empty() -> pd.DataFrame:
    return _typed(pd.DataFrame(columns=list(COLUMNS)))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    out = frame.reindex(columns=list(COLUMNS))
    for col in TEXT:
        out[col] = out[col].astype("string")
    for col in ("valid", "scored"):
        out[col] = out[col].fillna(False).astype(bool)
    for col in ("truncated", "refusal"):
        out[col] = out[col].astype("boolean")
    return out.reset_index(drop=True)


def _one_text(v: Any) -> Any:
    if v is None or (isinstance(v, float) and v != v) or v is pd.NA:
        return pd.NA
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _text(values: Any, index: pd.Index) -> pd.Series:
    """Values as nullable text, numbers without a spurious '.0' (3.0 -> '3').

    Text and integer columns convert at once; a float column converts its whole numbers as integers and maps only
    the rest; any other column maps each value (``_one_text``)."""
    series = values if isinstance(values, pd.Series) else pd.Series(values, index=index)
    dtype = series.dtype
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        return series.astype("string")
    if pd.api.types.is_integer_dtype(dtype):
        return series.astype("string")
    if pd.api.types.is_float_dtype(dtype):
        numbers = series.astype("float64")
        whole = numbers.notna() & (numbers.abs() < 2.0**53) & (numbers == numbers.round())
        out = pd.Series(pd.NA, index=series.index, dtype="string")
        out[whole] = numbers[whole].astype("int64").astype("string")
        rest = numbers.notna() & ~whole
        if rest.any():
            out[rest] = numbers[rest].map(_one_text).astype("string")
        return out
    if pd.api.types.is_object_dtype(dtype) and pd.api.types.infer_dtype(series, skipna=True) in ("string", "empty"):
        return series.where(series.notna(), None).astype("string")
    return series.map(_one_text).astype("string")


def _json_keys(rows: pd.DataFrame, key: Sequence[str]) -> list[str]:
    """``json.dumps({k: v ...})`` of each row's ``key`` columns, byte for byte, encoding each distinct value once."""
    if rows.empty:
        return []
    parts = []
    for i, k in enumerate(key):
        column = rows[k].astype(object)
        encoded = {v: json.dumps(_plain(v)) for v in pd.unique(column)} if column.notna().all() else None
        values = column.map(encoded) if encoded is not None else column.map(lambda v: json.dumps(_plain(v)))
        parts.append(("{" if i == 0 else ", ") + json.dumps(k) + ": " + values)
    joined = parts[0]
    for part in parts[1:]:
        joined = joined + part
    return (joined + "}").tolist()


def _column(rows: pd.DataFrame, spec: Column, default: Any = pd.NA) -> pd.Series:
    if spec is None:
        return pd.Series(default, index=rows.index)
    if isinstance(spec, pd.Series):
        return spec
    if callable(spec):
        out = spec(rows)
        return out if isinstance(out, pd.Series) else pd.Series(out, index=rows.index)
    return rows[spec] if spec in rows else pd.Series(default, index=rows.index)


def is_one(column: str) -> Callable[[pd.DataFrame], pd.Series]:
    """A ``valid`` argument of ``build``: the rows whose ``column`` is 1 (the answer tables' 0/1/NULL flags)."""
    return lambda rows: pd.to_numeric(rows[column], errors="coerce") == 1


def flag(values: pd.Series) -> pd.Series:
    """A 0/1/NULL column as nullable booleans."""
    return pd.to_numeric(values, errors="coerce").map(lambda v: pd.NA if v != v else bool(v)).astype("boolean")


def build(rows: pd.DataFrame, *, method: str, kind: str, table: str, key: Sequence[str], persona_id: Column,
          item: Column, context: Column, parsed: Column, reply: Column, valid: Column, scored: bool,
          persona: Column = None, reason: Column = "reason", truncated: Column = None, refusal: Column = None,
          cache_key: Column = "cache_key", finish: pd.Series | None = None) -> pd.DataFrame:
    """Samples of one kind from a method's table rows: each field a column name, a function of the rows, a Series
    aligned with them, or None (not recorded). ``parsed`` is kept only where ``valid``; ``truncated`` defaults to the
    stored call's finish reason being "length" (``finish``: cache key -> finish reason, from ``finish_reasons``)."""
    if rows.empty:
        return empty()
    ok = _column(rows, valid).fillna(False).astype(bool)
    out = pd.DataFrame(index=rows.index)
    out["method"], out["kind"], out["run_id"], out["model"] = method, kind, rows["run_id"], rows["model"]
    out["persona_id"] = _text(_column(rows, persona_id), rows.index)
    out["persona"] = _text(_column(rows, persona), rows.index).fillna(out["persona_id"])
    out["item"] = _text(_column(rows, item), rows.index)
    out["context"] = _text(_column(rows, context), rows.index)
    out["parsed"] = _text(_column(rows, parsed), rows.index).where(ok, pd.NA)
    out["valid"] = ok
    out["reason"] = _text(_column(rows, reason), rows.index)
    keys = _text(_column(rows, cache_key), rows.index)
    out["cache_key"] = keys
    if truncated is None and finish is not None:
        out["truncated"] = keys.map(lambda k: pd.NA if k is pd.NA or k not in finish.index else finish[k] == "length")
    else:
        out["truncated"] = flag(_column(rows, truncated))
    out["refusal"] = flag(_column(rows, refusal))
    out["reply"] = _text(_column(rows, reply), rows.index)
    out["scored"] = scored
    out["table"] = table
    out["key"] = _json_keys(rows, key)
    out["sample_id"] = [hashlib.sha1(f"{table}|{kind}|{k}".encode()).hexdigest()[:12] for k in out["key"]]
    out["prompt"] = (kind + "|" + out["persona_id"].fillna("") + "|" + out["item"].fillna("") + "|"
                     + out["context"].fillna(""))
    return _typed(out)


#: The ``source`` of an imported row bundled without its reply ends with this (``<import kind> (numbers only)``).
NUMBERS_ONLY = " (numbers only)"
NOT_BUNDLED = ("text not bundled (the bundled demo keeps the numbers only); import the full source with: "
               "python -m analysis import {kind} PATH")


def numbers_only_source(kind: str) -> str:
    """The ``source`` an importer writes on rows it stores without the reply's text (someone else's)."""
    return kind + NUMBERS_ONLY


def reply_or_note(rows: pd.DataFrame, raw: str = "raw", source: str = "source") -> pd.Series:
    """The raw reply, or, for an import bundled as numbers only, the note saying so and the command that imports the
    text."""
    replies = rows[raw].astype(object)
    if source not in rows:
        return replies
    marks = rows[source].astype("string")
    bare = replies.isna() & marks.str.endswith(NUMBERS_ONLY).fillna(False)
    notes = marks.str.removesuffix(NUMBERS_ONLY).map(lambda k: NOT_BUNDLED.format(kind=k), na_action="ignore")
    return replies.where(~bare, notes.astype(object))


def _plain(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    return None if isinstance(v, float) and v != v else v


def finish_reasons(store: Any, run_ids: Sequence[str] | None = None) -> pd.Series:
    """Cache key -> the stored call's finish reason (for the runs ``run_ids``, or every call)."""
    if run_ids is None:
        frame = store.frame("SELECT cache_key, finish_reason FROM calls")
    else:
        marks = ",".join("?" * len(run_ids))
        frame = store.frame(f"SELECT c.cache_key, c.finish_reason FROM calls c JOIN run_calls r ON r.cache_key = c.cache_key "
                            f"WHERE r.run_id IN ({marks})", list(run_ids))
    return frame.drop_duplicates("cache_key").set_index("cache_key")["finish_reason"]


def concat(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    frames = [f for f in frames if len(f)]
    return _typed(pd.concat(frames, ignore_index=True)) if frames else empty()


def store_samples(store: Any, run_ids: Sequence[str] | None = None, methods: Sequence[Any] | None = None) -> pd.DataFrame:
    """Every method's samples in ``store`` (``Method.samples``; only ``run_ids`` when given), one frame."""
    if methods is None:
        from analysis import methods as registry

        methods = registry.all_methods()
    from analysis.model_order import real_first, store_specs

    names = set(store.table_names())
    frame = concat(m.samples(store, run_ids) for m in methods
                   if m.samples is not None and any(t in names for t in m.tables))
    if frame.empty:
        return frame
    rank = {m: i for i, m in enumerate(real_first(frame["model"].dropna().unique(), store_specs(store)))}
    method_rank = {m: i for i, m in enumerate(frame["method"].unique())}
    keys = (frame["model"].map(rank).fillna(len(rank)).to_numpy(), frame["method"].map(method_rank).to_numpy())
    return frame.iloc[np.lexsort(keys)].reset_index(drop=True)  # each method's samples together, real models first


# -- filters (pure) ------------------------------------------------------------------------------------
FILTERS = ("method", "model", "run_id", "kind", "persona", "item", "context", "parsed", "reason")


def filter_samples(frame: pd.DataFrame, *, valid: bool | None = None, truncated: bool | None = None,
                   refusal: bool | None = None, search: str = "", **levels: Sequence[str]) -> pd.DataFrame:
    """The samples that match every filter given: ``valid``/``truncated``/``refusal`` True or False (None: any),
    ``search`` a case-insensitive substring of the reply, and per column of ``FILTERS`` the levels to keep (empty:
    any). ``parsed`` may hold ``INVALID`` for the invalid samples."""
    keep = pd.Series(True, index=frame.index)
    for column, wanted in (("valid", valid), ("truncated", truncated), ("refusal", refusal)):
        if wanted is not None:
            keep &= frame[column].fillna(False).astype(bool) == wanted
    for column, chosen in levels.items():
        if column not in FILTERS:
            raise ValueError(f"no filter on {column!r}; filters: {', '.join(FILTERS)}")
        if chosen:
            values = frame[column].fillna(INVALID) if column == "parsed" else frame[column]
            keep &= values.isin([str(c) for c in chosen]).fillna(False).astype(bool)
    if search.strip():
        keep &= frame["reply"].str.contains(search.strip(), case=False, regex=False).fillna(False).astype(bool)
    return frame[keep]


def sort_samples(frame: pd.DataFrame, column: str | None, descending: bool = False) -> pd.DataFrame:
    """Sorted by ``column`` (missing values last), stable; unsorted when None."""
    if not column:
        return frame
    return frame.sort_values(column, ascending=not descending, kind="stable", na_position="last")


def page_of(frame: pd.DataFrame, page: int, size: int) -> tuple[pd.DataFrame, int]:
    """Rows of 1-based page ``page`` (clamped) of ``size`` rows, and the number of pages (at least 1)."""
    pages = max(1, -(-len(frame) // size))
    page = min(max(1, page), pages)
    return frame.iloc[(page - 1) * size: page * size], pages


# -- two models ---------------------------------------------------------------------------------------
PAIR_KEY = ("method", "kind", "prompt")


def _answer(frame: pd.DataFrame) -> pd.Series:
    return frame["parsed"].where(frame["valid"], INVALID).fillna(INVALID)


def side_by_side(frame: pd.DataFrame, a: str, b: str, *, only_differ: bool = False) -> pd.DataFrame:
    """Model ``a``'s and ``b``'s replies to the same prompts (same method, kind, persona, item, context and testing;
    a prompt answered several times by a model pairs its first sample): per prompt its labels, then
    ``answer_a``/``answer_b`` (parsed, or "invalid"), ``reply_a``/``reply_b``, ``cache_key_a``/``_b`` and ``differ``
    (the answers are not equal). ``only_differ`` keeps the prompts where they differ."""
    labels = ["method", "kind", "prompt", "persona", "item", "context"]
    sides = []
    for model, suffix in ((a, "_a"), (b, "_b")):
        rows = frame[frame["model"] == model]
        rows = rows.assign(answer=_answer(rows)).drop_duplicates(list(PAIR_KEY))
        keep = rows[[*labels, "answer", "reply", "cache_key", "run_id"]]
        sides.append(keep.rename(columns={c: c + suffix for c in ("answer", "reply", "cache_key", "run_id")}))
    paired = sides[0].merge(sides[1].drop(columns=["persona", "item", "context"]), on=list(PAIR_KEY), how="inner")
    paired["differ"] = paired["answer_a"] != paired["answer_b"]
    if only_differ:
        paired = paired[paired["differ"]]
    return paired.reset_index(drop=True)


def agreement(paired: pd.DataFrame) -> dict[str, Any]:
    """Of the paired prompts: how many, how many differ, and how many each side left invalid."""
    return {"prompts": len(paired), "differ": int(paired["differ"].sum()) if len(paired) else 0,
            "invalid_a": int((paired["answer_a"] == INVALID).sum()) if len(paired) else 0,
            "invalid_b": int((paired["answer_b"] == INVALID).sum()) if len(paired) else 0}


def matrix(frame: pd.DataFrame, *, limit: int = 200) -> tuple[pd.DataFrame, int]:
    """promptfoo's matrix: one row per prompt (method, kind, persona, item, context), one column per model, each cell
    the model's parsed answer or "invalid" (empty where the model has no sample). The first ``limit`` prompts in
    stored order, and how many prompts there are."""
    rows = frame.assign(answer=_answer(frame)).drop_duplicates([*PAIR_KEY, "model"])
    index = ["method", "kind", "persona", "item", "context"]
    prompts = rows.drop_duplicates(list(PAIR_KEY))[[*PAIR_KEY, *index[2:]]]
    n = len(prompts)
    prompts = prompts.head(limit)
    cells = rows[rows["prompt"].isin(prompts["prompt"])].pivot_table(
        index=list(PAIR_KEY), columns="model", values="answer", aggfunc="first")
    table = prompts.merge(cells.reset_index(), on=list(PAIR_KEY), how="left").drop(columns=["prompt"])
    table.columns.name = None
    return table.reset_index(drop=True), n


#: What the one-persona view can hold fixed: the persona, the subject / item / question, or the context.
ACROSS = ("persona", "item", "context")


def across_runs(frame: pd.DataFrame, by: str, value: str) -> pd.DataFrame:
    """Inspect's one sample across runs: the samples whose ``by`` (one of ``ACROSS``) is ``value``, one row per
    prompt (method, kind and the other two labels), one column per model and run ("model · run id"), each cell the
    parsed answer or "invalid" (empty where that run has no sample of it)."""
    if by not in ACROSS:
        raise ValueError(f"across_runs: by is one of {', '.join(ACROSS)}, not {by!r}")
    mine = frame[frame[by] == value]
    index = ["method", "kind", *(c for c in ACROSS if c != by)]
    if mine.empty:
        return pd.DataFrame(columns=index)
    rows = mine.assign(answer=_answer(mine), column=mine["model"] + " · " + mine["run_id"])
    rows = rows.drop_duplicates([*PAIR_KEY, "column"])
    order = list(dict.fromkeys(rows.sort_values(["model", "run_id"], kind="stable")["column"]))
    table = rows.pivot_table(index=index, columns="column", values="answer", aggfunc="first", dropna=False,
                             sort=False, observed=True).reindex(columns=order)
    table = table.dropna(how="all").reset_index()
    table.columns.name = None
    return table


# -- a run's outcome ----------------------------------------------------------------------------------
def scorable(frame: pd.DataFrame) -> tuple[int, int]:
    """(scored samples, valid scored samples) of a run's samples: what its metrics could read."""
    scored = frame[frame["scored"]]
    return len(scored), int(scored["valid"].sum())


# -- samples against answers ------------------------------------------------------------------------------
STAGE, SECOND, NO_REPLY = "stage", "second", "no reply"


def against_answers(frame: pd.DataFrame, answer_rows: Mapping[str, int]) -> dict[str, Any]:
    """How the samples (``frame``: one per stored reply) add up to the answers (``answer_rows``: each answer table's
    row count, the answers a dashboard counts): ``{"samples": n, "answers": n, "parts": [{"method", "kind", "table",
    "n", "why"}]}`` with samples = answers + Σ n, each part one reason they differ:

    - ``STAGE``: replies stored in a table that holds no answers (a stage before any answer: a generator's questions);
    - ``SECOND``: replies stored on an answer row beside its first one (a round's forecast beside its decision): the
      kinds of the table other than its largest, when they make up the difference exactly; else the difference itself
      (``kind`` None);
    - ``NO_REPLY``: answer rows that gave no sample (``n`` negative)."""
    tally = frame.groupby(["table", "method", "kind"], sort=False).size() if len(frame) else pd.Series(dtype=int)
    parts: list[dict[str, Any]] = []
    for table in dict.fromkeys([*tally.index.get_level_values("table"), *answer_rows]):
        mine = tally[tally.index.get_level_values("table") == table].sort_values(ascending=False, kind="stable")
        kinds = [{"method": m, "kind": k, "table": table, "n": int(n)} for (_, m, k), n in mine.items()]
        if table not in answer_rows:
            parts += [p | {"why": STAGE} for p in kinds]
            continue
        extra = int(mine.sum()) - int(answer_rows[table])
        if extra > 0 and sum(p["n"] for p in kinds[1:]) == extra:
            parts += [p | {"why": SECOND} for p in kinds[1:]]
        elif extra:
            method = kinds[0]["method"] if kinds else None
            parts.append({"method": method, "kind": None, "table": table, "n": extra,
                          "why": SECOND if extra > 0 else NO_REPLY})
    return {"samples": int(len(frame)), "answers": int(sum(answer_rows.values())), "parts": parts}


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def against_answers_text(tally: Mapping[str, Any], label: Callable[[str], str] = str) -> str | None:
    """The sentence saying how ``against_answers``'s samples and answers differ ("72,280 samples (replies, …) behind
    71,691 answers: 589 more — …"), or None when they are the same count for the same rows. ``label``: a method's name
    as shown."""
    parts = tally["parts"]
    if not parts and tally["samples"] == tally["answers"]:
        return None

    def what(p: Mapping[str, Any]) -> str:
        return f"{abs(p['n']):,} {label(str(p['method']))} {p['kind'] or p['table']}"

    said = []
    if second := [what(p) for p in parts if p["why"] == SECOND]:
        said.append(_listed(second) + ", each stored on an answer row beside another reply (one answer, two replies)")
    if stage := [what(p) for p in parts if p["why"] == STAGE]:
        said.append(_listed(stage) + ", replies of stages that give no answer")
    if missing := [f"{-p['n']:,} answer row{'' if p['n'] == -1 else 's'} of {p['table']}" for p in parts
                   if p["why"] == NO_REPLY]:
        said.append(_listed(missing) + " that gave no sample")
    differ = tally["samples"] - tally["answers"]
    return (f"{tally['samples']:,} samples (replies, as the Samples page counts them) behind {tally['answers']:,} "
            f"answers: {abs(differ):,} {'more' if differ >= 0 else 'fewer'} — " + "; ".join(said) + ".")
