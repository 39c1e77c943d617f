"""The construct pairs the analysis tests (``pairs.json``, or a file in that format named by ``$ROLESCOPE_CROSS_PAIRS``):
which constructs of two methods should correlate across personas (convergent) and which should not (discriminant),
with the predicted direction and, where bundled, the published human correlation and its source."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ValidationError

from analysis.errors import InputError
from analysis.importers.files import load_json

BUNDLED = Path(__file__).with_name("pairs.json")
ENV = "ROLESCOPE_CROSS_PAIRS"


class Pair(BaseModel):
    a: str  # "method:construct"
    b: str
    kind: Literal["convergent", "discriminant"]
    expected: float  # the predicted direction: +1, -1 or 0
    human_r: float | None = None
    source: str

    @property
    def label(self) -> str:
        return f"{self.a.split(':', 1)[1]} – {self.b.split(':', 1)[1]}"


class Pairs(BaseModel):
    about: str = ""
    sources: dict[str, str]
    pairs: list[Pair]


def load_pairs(path: str | Path | None = None) -> Pairs:
    """The pairs of ``path``, else of ``$ROLESCOPE_CROSS_PAIRS``, else the bundled file; a bad file is one line."""
    path = Path(path or os.environ.get(ENV) or BUNDLED)
    try:
        pairs = Pairs.model_validate(load_json(path))
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(f"pairs {path}: field '{'.'.join(map(str, err['loc']))}': {err['msg']}") from None
    unknown = sorted({p.source for p in pairs.pairs} - set(pairs.sources))
    if unknown:
        raise InputError(f"pairs {path}: source(s) {', '.join(unknown)} not under 'sources'")
    bad = [p.a for p in pairs.pairs if ":" not in p.a] + [p.b for p in pairs.pairs if ":" not in p.b]
    if bad:
        raise InputError(f"pairs {path}: '{bad[0]}' is not METHOD:CONSTRUCT")
    return pairs
