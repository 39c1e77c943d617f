"""Export a store's tables to CSV, JSON or parquet files (one file per table)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from analysis.errors import InputError
from analysis.llm.keys import redact
from analysis.runs.store import Store

ExportFormat = Literal["csv", "json", "parquet"]


def export_store(store: Store, out_dir: str | Path, fmt: ExportFormat) -> list[Path]:
    """Write every table to ``out_dir/<table>.<fmt>``; text passes through ``redact``."""
    if fmt not in ("csv", "json", "parquet"):
        raise InputError(f"export format '{fmt}': use csv, json or parquet")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in sorted(store.table_names()):
        df = store.table(name)
        for col in df.columns[df.dtypes == object]:
            df[col] = df[col].map(lambda v: redact(v) if isinstance(v, str) else v)
        path = out / f"{name}.{fmt}"
        if fmt == "csv":
            df.to_csv(path, index=False)
        elif fmt == "json":
            df.to_json(path, orient="records", force_ascii=False, indent=1)
        else:
            df.to_parquet(path, index=False)
        written.append(path)
    return written
