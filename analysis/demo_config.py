"""What the demo campaign is made of, shared by ``analysis.demo`` and each method's ``demo.py``: a model
configuration (``DemoConfig``) and one part of the campaign (``DemoPart``: a run per configuration).

Each method keeps its part of the campaign in its own folder (``analysis/methods/<method>/demo.py``: its plans,
sizes and reply caps, as ``PARTS``); ``analysis.demo`` finds them through the registry and names no method.
"""

from __future__ import annotations

import re

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from analysis.llm.specs import ModelSpec, parse_model_spec

#: ``full``: the bundled demo; ``reduced``: the smallest campaign that still makes every call kind of every method
#: (CI builds it twice to check that two builds give identical tables).
Size = Literal["full", "reduced"]
SIZE_NAMES: tuple[Size, ...] = ("full", "reduced")


@dataclass(frozen=True)
class DemoConfig:
    """One model configuration of the campaign: a model spec, its answer mode and generation params."""

    name: str
    answer_mode: Literal["logprob", "text"]
    params: dict[str, Any]
    model: str = "embedded"
    #: Run only the parts whose method offers structured answers (``DemoPart.structured``).
    structured_only: bool = False
    #: Parts that offer structured answers (``--answer-format json``) get this format.
    answer_format: Literal["text", "json"] = "text"

    def covers(self, part: DemoPart) -> bool:
        return part.structured or not self.structured_only

    def run_id(self, part: str) -> str:
        """The fixed id of this configuration's run of ``part``: ``demo-<part>-<config name, made safe>``."""
        return f"demo-{part}-{re.sub(r'[^A-Za-z0-9._-]+', '-', self.name)}"

    def spec(self) -> ModelSpec:
        base = parse_model_spec(self.model)
        return base.model_copy(update={"name": self.name, "params": base.params | self.params})

    @property
    def embedded(self) -> bool:
        return self.model == "embedded"


@dataclass(frozen=True)
class DemoPart:
    """One part of the demo campaign: its ``name`` (run ids are ``demo-<name>-<config>``), the registered ``method``
    whose runs it makes, and ``plan(config, size)`` -> the stored plan. ``dated_first``: its runs are dated before every
    other run of the demo (a composite's parts are runs of the other methods, and each method's page opens on its
    model's newest configuration, which should stay that method's own part)."""

    name: str
    method: str
    plan: Callable[..., dict[str, Any]]
    dated_first: bool = False
    #: Its method offers structured answers (``--answer-format json``: the configuration's ``answer_format``).
    structured: bool = False
    #: A build argument the part needs (``demo build --svs PATH``): the part runs only when it is given, and its
    #: plan gets it as a keyword.
    needs: str | None = None
