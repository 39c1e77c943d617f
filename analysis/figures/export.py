"""Static export of the dashboard's figures (SVG, PDF, PNG) through Plotly's ``write_image`` and kaleido, which draws
them in a headless Chrome driven by ``choreographer``. RoleScope never downloads a browser: when ``BROWSER_PATH`` is
unset, it points choreographer at Debian's ``/usr/bin/chromium``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from analysis.errors import RunFailure

#: Debian's Chromium, used when ``BROWSER_PATH`` names no other browser.
CHROMIUM = Path("/usr/bin/chromium")
#: The formats ``write`` takes, named by the output file's extension.
FORMATS = ("svg", "pdf", "png")


def use_system_chromium() -> None:
    """Set ``BROWSER_PATH`` (read by choreographer, kaleido's browser driver) to ``CHROMIUM`` when it is unset and
    ``CHROMIUM`` exists, so kaleido finds the system's browser rather than asking for one to be downloaded."""
    if not os.environ.get("BROWSER_PATH") and CHROMIUM.exists():
        os.environ["BROWSER_PATH"] = str(CHROMIUM)


def write(fig: Any, path: Path, *, scale: float = 1.0, width: int | None = None, height: int | None = None) -> None:
    """Write ``fig`` to ``path`` in the format its extension names (``FORMATS``): ``width`` and ``height`` in CSS
    pixels (default: the figure's layout, else Plotly's 700 × 500), ``scale`` multiplying them (a PNG's resolution).
    ``RunFailure`` when kaleido or its browser is missing."""
    import importlib.util

    import plotly.io as pio

    use_system_chromium()
    if importlib.util.find_spec("kaleido") is None:
        raise RunFailure("figure export needs kaleido (pip install -r requirements.txt)")
    try:
        pio.write_image(fig, path, format=path.suffix.lower().lstrip("."), scale=scale, width=width, height=height)
    except RuntimeError as exc:  # plotly's words for kaleido's ChromeNotFoundError
        where = os.environ.get("BROWSER_PATH") or "none found"
        raise RunFailure(f"figure export: no browser for kaleido (BROWSER_PATH: {where}; install chromium): "
                         f"{str(exc).strip().splitlines()[0]}") from None
