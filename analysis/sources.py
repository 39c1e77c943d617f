"""Resolving where data comes from: a bundled name, a local path, or ``hf://datasets/<repo>/<path>``.

Hub files are fetched with ``huggingface_hub.hf_hub_download`` (cached by the hub library); on these
machines nothing is downloaded at run time, so tests replace the download function.
"""

from __future__ import annotations

from pathlib import Path

from analysis.errors import InputError

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "data"
HF_PREFIX = "hf://datasets/"


def is_hub_path(source: str) -> bool:
    return source.startswith(HF_PREFIX)


def split_hub_path(source: str) -> tuple[str, str]:
    """``hf://datasets/owner/name/some/dir`` -> (``owner/name``, ``some/dir``)."""
    rest = source.removeprefix(HF_PREFIX).strip("/")
    parts = rest.split("/")
    if len(parts) < 2 or not all(parts[:2]):
        raise InputError(f"{source}: expected hf://datasets/<owner>/<name>[/<path>]")
    return "/".join(parts[:2]), "/".join(parts[2:])


def hub_file(repo_id: str, filename: str) -> Path:
    """Download (or reuse the hub cache of) one dataset file; errors name the file."""
    try:
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(repo_id=repo_id, filename=filename, repo_type="dataset"))
    except Exception as exc:  # network, 404, offline mode: all mean "cannot get this file"
        raise InputError(f"hf://datasets/{repo_id}/{filename}: cannot fetch ({type(exc).__name__}: {exc})") from None


def existing_path(source: str | Path, what: str) -> Path:
    path = Path(source).expanduser()
    if not path.exists():
        raise InputError(f"{what} {path}: file or folder not found")
    return path
