"""A function named by an import string, imported on its first call.

A method declares its functions this way (``analysis/methods/<m>/method.py``, ``app/methods/<m>/__init__.py``): the
registry, the CLI's parser and the dashboard's navigation are built without importing a method's metrics (scipy,
scikit-learn, semopy) or pages (plotly), and a declaration holds no wrapper around them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Hook:
    """A function named ``"package.module:function"``, imported when first called."""

    target: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def resolve(self) -> Any:
        """The function itself (``ImportError`` / ``AttributeError`` when the name is wrong)."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)
