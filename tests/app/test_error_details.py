"""The browser never sees an exception's text or traceback: .streamlit/config.toml sets client.showErrorDetails to
"none" (Streamlit shows a generic message; the details go to the server log only)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from streamlit import config
from streamlit.testing.v1 import AppTest

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit/config.toml"


def _raises() -> None:
    raise ValueError("secret detail /srv/rolescope/rolescope.db")


def test_no_exception_text_or_traceback_reaches_the_browser():
    setting = tomllib.loads(CONFIG.read_text(encoding="utf-8"))["client"]["showErrorDetails"]
    assert setting == "none"
    before = config.get_option("client.showErrorDetails")
    config.set_option("client.showErrorDetails", setting)
    try:
        at = AppTest.from_function(_raises).run()
    finally:
        config.set_option("client.showErrorDetails", before)
    assert len(at.exception) == 1
    shown = at.exception[0]
    assert "secret detail" not in shown.message and "ValueError" not in shown.message and not shown.stack_trace
