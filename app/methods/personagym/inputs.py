"""What the Data page imports of PersonaGym: question files and published score files."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def import_files(store: Any, paths: list[Path]) -> tuple[bool, list[str]]:
    """PersonaGym question / score JSON files (the folder names the model)."""
    from analysis.methods.personagym.importer import import_files as load

    notes: list[str] = []
    run_ids = load(store, paths, notes)
    return True, [f"imported run {r}" for r in run_ids] + notes
