"""The app's side of the method registry: one folder per method under ``app/methods/``, each exporting ``VIEW``
(``app.methods.base.MethodView``). Found by folder, like ``analysis.methods``; shared pages loop over ``views()``."""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

from app.methods.base import MethodView

FOLDER = Path(__file__).resolve().parent


@cache
def views() -> tuple[MethodView, ...]:
    """Every method's view, in display order."""
    found = [importlib.import_module(f"{__name__}.{p.parent.name}").VIEW for p in FOLDER.glob("*/__init__.py")]
    return tuple(sorted(found, key=lambda v: (v.order, v.name)))


def view(name: str) -> MethodView:
    """The view of method ``name`` (KeyError when it has none)."""
    return {v.name: v for v in views()}[name]
