"""Expanding the PATH... arguments of ``import``: files as given, folders searched recursively."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from analysis.errors import InputError


def expand_paths(paths: Sequence[str | Path], pattern: str, *, what: str,
                 accept: Callable[[Path], bool] = lambda p: True) -> list[Path]:
    """Files given directly, plus ``pattern`` matches below each folder; duplicates dropped, order kept.

    A folder without a match or a missing path is an InputError naming it (``what`` describes the files).
    """
    files: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            found = [p for p in sorted(path.rglob(pattern)) if p.is_file() and accept(p)]
            if not found:
                raise InputError(f"{path}: no {what} in this folder")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise InputError(f"{path}: file not found")
    unique: dict[Path, Path] = {}
    for f in files:
        unique.setdefault(f.resolve(), f)
    return list(unique.values())
