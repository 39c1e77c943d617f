"""The PersonaGym figures built once per store state and selection (``app.charts``' conventions: hashable arguments,
shared cached objects that callers must not mutate)."""

from __future__ import annotations

import plotly.graph_objects as go

from analysis.figures import style as shared
from analysis.figures.palette import model_colors
from analysis.methods.personagym import figures
from app import data
from app.charts import _memo
from app.methods.personagym import data as personagym_data
from app.stores import StoreRef


@_memo
def personagym_tasks(ref: StoreRef, models: tuple[str, ...], published: tuple[str, ...]) -> go.Figure:
    from analysis.methods.personagym.report_types import TASKS

    scores = personagym_data.personagym_published(ref)
    fig = figures.tasks(personagym_data.personagym_doc(ref), list(models), model_colors(data.models_in(ref)),
                               {name: scores.get(name, {}).get("tasks", {}) for name in published})
    bands = [((data.chance(ref, "personagym").get(m) or {}).get("metrics") or {}).get(f"task/{t}", {}).get("uniform")
             for m in models for t in TASKS]
    bands = [b for b in bands if b and b.get("lo") is not None]
    widest = max(bands, key=lambda b: b["hi"] - b["lo"], default=None)
    return shared.chance_band(fig, widest, label="a task score under random grades (95 %)")

@_memo
def personagym_personas(ref: StoreRef, model: str) -> go.Figure:
    return figures.personas(personagym_data.personagym_doc(ref), model)
