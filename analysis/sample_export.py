"""The samples as a file a colleague can read on its own: every sample column (``analysis.samples.COLUMNS``) plus
what the model saw and how it was asked, from the stored call, and the run's name, tags and note.

Columns added, in this order (``CALL_COLUMNS`` then ``RUN_COLUMNS``), joined by ``cache_key`` from the store's
``calls`` table and by ``run_id`` from ``run_labels``; a sample without a stored call (an import keeps the reply only)
or a run without labels leaves them empty:

- ``call_model``: the model the call was sent as (the call record's model);
- ``messages``: the request's messages, JSON text (``[{"role": …, "content": …}, …]``), exactly as stored;
- ``params``: the request's generation parameters, JSON text of every one it held (``temperature``, ``top_p``,
  ``max_tokens``, ``seed``, ``logprobs``, ``top_logprobs``, ``stop`` …), exactly as stored;
- ``sample_index``: which repeated sample of the same request this is (0 for the first);
- ``finish_reason``, ``top_logprobs`` (JSON text: per generated token, token -> logprob), ``tokens_in``,
  ``tokens_out``, ``cached_tokens``, ``latency_s`` and ``cost`` (empty where the endpoint reported none);
- ``run_name``, ``run_tags`` (JSON text of the list) and ``run_note``.

Bytes go through the one export path (``analysis.runs.export.frame_bytes``): every text scrubbed of secrets, CSV
cells defused of formulas. Method-free.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.runs.export import ExportFormat, frame_bytes
from analysis.runs.labels import labels
from analysis.runs.store import Store
from analysis.samples import COLUMNS

#: Column -> dtype of what the export adds from the stored call.
CALL_COLUMNS = {"call_model": "string", "messages": "string", "params": "string", "sample_index": "Int64",
                "finish_reason": "string", "top_logprobs": "string", "tokens_in": "Int64", "tokens_out": "Int64",
                "cached_tokens": "Int64", "latency_s": "Float64", "cost": "Float64"}
#: Column -> dtype of what the export adds from the run's labels.
RUN_COLUMNS = {"run_name": "string", "run_tags": "string", "run_note": "string"}
EXPORT_COLUMNS = (*COLUMNS, *CALL_COLUMNS, *RUN_COLUMNS)
#: What is read of each stored call (``analysis.runs.store``'s ``calls`` table), named as exported.
_READ = ("cache_key", "model AS call_model", "request", "finish_reason", "logprobs", "tokens_in", "tokens_out",
         "cached_tokens", "latency_s", "cost")
#: Cache keys asked for in one query (SQLite's limit on bound parameters is far above).
_CHUNK = 500


def _json_text(value: Any) -> Any:
    """``value`` as readable JSON text (non-ASCII kept as is), or NA for a missing value."""
    return pd.NA if value is None else json.dumps(value, ensure_ascii=False)


def _request_parts(requests: pd.Series) -> pd.DataFrame:
    """The stored request JSON of each call split into ``messages`` and ``params`` (JSON text) and ``sample_index``."""
    docs = requests.map(json.loads)
    return pd.DataFrame({"messages": docs.map(lambda d: _json_text(d.get("messages"))),
                         "params": docs.map(lambda d: _json_text(d.get("params"))),
                         "sample_index": docs.map(lambda d: d.get("sample"))}, index=requests.index)


def stored_calls(store: Store, keys: Sequence[str]) -> pd.DataFrame:
    """The stored calls of ``keys`` (each once; keys with no stored call are left out): ``cache_key`` and every
    ``CALL_COLUMNS`` column."""
    wanted = list(dict.fromkeys(keys))
    parts = [store.frame(f"SELECT {', '.join(_READ)} FROM calls WHERE cache_key IN ({','.join('?' * len(chunk))})",
                         chunk)
             for chunk in (wanted[i:i + _CHUNK] for i in range(0, len(wanted), _CHUNK))]
    rows = pd.concat(parts, ignore_index=True) if parts else \
        pd.DataFrame(columns=[c.rpartition(" ")[2] for c in _READ])
    rows = rows.drop_duplicates("cache_key").reset_index(drop=True)
    rows = rows.join(_request_parts(rows["request"].astype(object)))
    rows["top_logprobs"] = rows["logprobs"].map(lambda t: _json_text(json.loads(t)) if isinstance(t, str) else pd.NA)
    return rows[["cache_key", *CALL_COLUMNS]].astype({"cache_key": "string", **CALL_COLUMNS})


def run_labels(store: Store) -> pd.DataFrame:
    """Every labelled run: ``run_id`` and ``RUN_COLUMNS`` (tags as JSON text of the list)."""
    found = labels(store)
    out = pd.DataFrame({"run_id": found["run_id"], "run_name": found["name"],
                        "run_tags": found["tags"].map(_json_text), "run_note": found["note"]})
    return out.astype({"run_id": "string", **RUN_COLUMNS})


def export_frame(store: Store, samples: pd.DataFrame) -> pd.DataFrame:
    """``samples`` (rows of ``analysis.samples.COLUMNS``, in their order) with their stored call's and their run's
    columns (``EXPORT_COLUMNS``); empty cells where a sample has no stored call or its run no labels."""
    rows = samples.reset_index(drop=True)
    calls = stored_calls(store, rows["cache_key"].dropna().astype(str).tolist())
    out = rows.merge(calls, on="cache_key", how="left").merge(run_labels(store), on="run_id", how="left")
    return out[list(EXPORT_COLUMNS)].astype({**CALL_COLUMNS, **RUN_COLUMNS})


def export_samples(store: Store, samples: pd.DataFrame, fmt: ExportFormat) -> bytes:
    """``export_frame`` as a CSV, JSON or Parquet file through the one export path (``frame_bytes``): every text
    scrubbed of secrets, CSV cells defused of formulas."""
    return frame_bytes(export_frame(store, samples), fmt)


def export_name(store_name: str, n: int, total: int, fmt: str) -> str:
    """The file name of an export of ``n`` of the store's ``total`` samples: the store, how many samples of how many,
    and that the calls and runs' labels are in (``samples-demo-120-of-9220-with-calls.csv``)."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", Path(store_name).stem).strip("-").lower() or "store"
    count = f"{n}" if n == total else f"{n}-of-{total}"
    return f"samples-{stem}-{count}-with-calls.{fmt}"
