"""A run's name, tags and note, kept in its store (table ``run_labels``), written through the store's scrubber.

Tags filter the run lists and the Samples view. They describe a run; they change no number: the report cache's
content signature leaves this table out (``analysis.report_cache``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from analysis.errors import InputError
from analysis.runs.store import Store, Table, register_table

LABELS = register_table(Table(
    "run_labels",
    (("run_id", "TEXT"), ("name", "TEXT"), ("tags", "TEXT"), ("note", "TEXT"), ("updated_at", "REAL")),
    ("run_id",),
    lambda row, run: label_rules(row),  # defined below: looked up when a row is checked
))
MAX_NAME, MAX_TAG, MAX_TAGS, MAX_NOTE = 120, 40, 20, 4000


def label_rules(row: Mapping[str, Any]) -> tuple[str, str] | None:
    """A label row from outside (a report file) within the limits ``set_label`` keeps: a name and tags without
    control characters, tags a JSON list (``analysis.runs.row_checks`` checks the types first)."""
    from analysis.errors import has_control

    if row["name"] is not None and (len(row["name"]) > MAX_NAME or has_control(row["name"])):
        return "name", f"longer than {MAX_NAME} characters or holds a control character"
    if row["note"] is not None and len(row["note"]) > MAX_NOTE:
        return "note", f"longer than {MAX_NOTE} characters"
    if row["tags"] is not None:
        try:
            tags = json.loads(row["tags"])
        except (ValueError, RecursionError):
            return "tags", "not a JSON list"
        if not isinstance(tags, list) or len(tags) > MAX_TAGS or \
                any(not isinstance(t, str) or len(t) > MAX_TAG or has_control(t) for t in tags):
            return "tags", f"not a list of at most {MAX_TAGS} tags of at most {MAX_TAG} characters each"
    return None


def parse_tags(text: str | Iterable[str]) -> list[str]:
    """Tags from comma-separated text (or a list): stripped, empty ones dropped, each once in first-seen order."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    out: list[str] = []
    for tag in (str(p).strip() for p in parts):
        if tag and tag not in out:
            out.append(tag)
    return out


def set_label(store: Store, run_id: str, *, name: str = "", tags: Sequence[str] = (), note: str = "") -> None:
    """Give ``run_id`` a name, tags and a note (replacing what it had); an unknown run or an oversized field is an
    ``InputError`` naming it, and nothing is written."""
    store.get_run(run_id)  # InputError when the run is not in the store
    tags = parse_tags(tags)
    for what, text, limit in (("name", name, MAX_NAME), ("note", note, MAX_NOTE),
                              *(("tag", t, MAX_TAG) for t in tags)):
        if len(text) > limit:
            raise InputError(f"run {run_id}: {what} '{text[:20]}…' is longer than {limit} characters")
    if len(tags) > MAX_TAGS:
        raise InputError(f"run {run_id}: {len(tags)} tags; at most {MAX_TAGS}")
    store.upsert(LABELS.name, [{"run_id": run_id, "name": name.strip() or None, "tags": json.dumps(tags),
                                "note": note.strip() or None, "updated_at": time.time()}])


def labels(store: Store) -> pd.DataFrame:
    """Every labelled run: ``run_id``, ``name``, ``tags`` (a list), ``note``."""
    frame = store.table(LABELS.name)[["run_id", "name", "tags", "note"]] if LABELS.name in store.table_names() else \
        pd.DataFrame(columns=["run_id", "name", "tags", "note"])
    frame["tags"] = frame["tags"].map(_tags)
    return frame.reset_index(drop=True)


def _tags(raw: Any) -> list[str]:
    try:
        return parse_tags(json.loads(raw)) if isinstance(raw, str) else []
    except ValueError:
        return []


def with_labels(runs: pd.DataFrame, labelled: pd.DataFrame) -> pd.DataFrame:
    """``runs`` (with a ``run_id`` column) with each run's ``name``, ``tags`` (a list, [] when none) and ``note``."""
    out = runs.drop(columns=[c for c in ("name", "tags", "note") if c in runs]).merge(labelled, on="run_id", how="left")
    out["tags"] = out["tags"].map(lambda t: t if isinstance(t, list) else [])
    return out


def tagged(runs: pd.DataFrame, tags: Sequence[str]) -> pd.DataFrame:
    """The runs (``with_labels``) carrying every tag in ``tags`` (all runs when none)."""
    wanted = set(tags)
    return runs[runs["tags"].map(lambda t: wanted <= set(t))] if wanted else runs


def all_tags(labelled: pd.DataFrame) -> list[str]:
    """Every tag in use, sorted."""
    return sorted({t for tags in labelled["tags"] for t in tags})
