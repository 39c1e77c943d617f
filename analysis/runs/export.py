"""Export a store's tables to CSV, JSON or parquet files (one file per table), every text value scrubbed of secrets.

In CSV a text cell starting with =, +, -, @, a tab or a carriage return gets a leading single quote
(``neutralise_formulas``, after ``scrub_frame``), so that a spreadsheet does not run a model's reply as a formula.

``scrub_frame`` is the one scrubber every export path uses (the CLI ``export``, the app's zip of all tables and its
single-table download): it redacts (``analysis.llm.keys.redact``) every string value in every column, whatever the
column's dtype (object, pandas' ``StringDtype``, categorical), so no key that reached the store leaves it.
"""

from __future__ import annotations

import errno
import io
import stat
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from analysis.errors import InputError, RunFailure
from analysis.llm.keys import Scrubber
from analysis.runs.store import Store

ExportFormat = Literal["csv", "json", "parquet"]


def scrub_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every string value passed through ``redact`` (numeric columns untouched), the secrets
    in play looked up once for the whole frame (``Scrubber``), not once per cell."""
    scrubber = Scrubber()
    return _map_text(frame, lambda value: scrubber.text(value) if isinstance(value, str) else value)


def _map_text(frame: pd.DataFrame, fn: Any) -> pd.DataFrame:
    """A copy of ``frame`` with ``fn`` applied to every value of its non-numeric, non-boolean columns."""
    out = frame.copy()
    for col in out.columns:
        if pd.api.types.is_numeric_dtype(out[col]) or pd.api.types.is_bool_dtype(out[col]):
            continue
        if isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].astype(object)
        out[col] = out[col].map(fn)
    return out


#: What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"): =, +, -, @, tab, carriage return.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _defuse(value: Any) -> Any:
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def neutralise_formulas(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells that a spreadsheet would run as a formula (``FORMULA_STARTS``) start with
    a single quote, as OWASP recommends for CSV; numeric and boolean columns are untouched. For CSV only: JSON and
    parquet keep every value exact."""
    return _map_text(frame, _defuse)


def frame_bytes(frame: pd.DataFrame, fmt: ExportFormat) -> bytes:
    """One scrubbed table serialised as ``fmt`` (CSV: formulas neutralised too, ``neutralise_formulas``)."""
    if fmt not in ("csv", "json", "parquet"):
        raise InputError(f"export format '{fmt}': use csv, json or parquet")
    clean = scrub_frame(frame)
    if fmt == "csv":
        # CRLF rows (RFC 4180): Python 3.11's csv writer quotes a cell holding a line-terminator character, so a reply
        # with a bare "\r" no longer splits its row in two
        return neutralise_formulas(clean).to_csv(index=False, lineterminator="\r\n").encode("utf-8")
    if fmt == "json":
        return clean.to_json(orient="records", force_ascii=False, indent=1).encode("utf-8")
    buf = io.BytesIO()
    clean.to_parquet(buf, index=False)
    return buf.getvalue()


def export_store(store: Store, out_dir: str | Path, fmt: ExportFormat) -> list[Path]:
    """Write every table to ``out_dir/<table>.<fmt>`` (``frame_bytes``: text scrubbed of secrets), each through a
    temporary file renamed over its path (``write_atomically``): a symbolic link, FIFO or device there is replaced,
    never written through or waited on."""
    from analysis.importers.files import write_atomically

    if fmt not in ("csv", "json", "parquet"):
        raise InputError(f"export format '{fmt}': use csv, json or parquet")
    out = check_out_dir(out_dir)
    written = []
    for name in sorted(store.table_names()):
        path = out / f"{name}.{fmt}"
        try:
            if path.is_dir() and not path.is_symlink():
                raise IsADirectoryError(path)
            write_atomically(path, [frame_bytes(store.table(name), fmt)])
        except IsADirectoryError:
            raise InputError(f"export --out {out}: {path.name} is a folder there, not a file") from None
        except OSError as exc:
            raise RunFailure(f"export --out {out}: cannot write {path.name} ({exc.strerror})") from None
        written.append(path)
    return written


def check_out_dir(out_dir: str | Path) -> Path:
    """``out_dir`` as a folder to write into, created if missing; an existing file, FIFO, device, symlink loop or a
    path under a file is an InputError naming it."""
    out = Path(out_dir).expanduser()
    try:
        info = out.stat()
    except FileNotFoundError:
        if out.is_symlink():
            raise InputError(f"export --out {out}: broken symbolic link") from None
        info = None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError(f"export --out {out}: symbolic link loop") from None
        if exc.errno == errno.ENOTDIR:
            raise InputError(f"export --out {out}: a part of this path is a file, not a folder") from None
        raise InputError(f"export --out {out}: cannot use this path ({exc.strerror})") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            return out
        kind = ("an existing file" if stat.S_ISREG(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "a device")
        raise InputError(f"export --out {out}: is {kind}, expected a folder (the export writes one file per table "
                         "into it)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InputError(f"export --out {out}: a part of this path is a file, not a folder") from None
    except OSError as exc:
        raise InputError(f"export --out {out}: cannot create this folder ({exc.strerror})") from None
    return out
