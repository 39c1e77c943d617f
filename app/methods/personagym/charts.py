"""The PersonaGym figures built once per store state and selection (``app.charts``' conventions: hashable arguments,
shared cached objects that callers must not mutate)."""

from __future__ import annotations

import plotly.graph_objects as go

from app import data
from app import figures as shared
from app.charts import _memo
from app.methods.personagym import data as personagym_data
from app.methods.personagym import figures
from app.palette import model_colors
from app.stores import StoreRef

@_memo
def personagym_tasks(ref: StoreRef, models: tuple[str, ...], published: tuple[str, ...]) -> go.Figure:
    from analysis.methods.personagym.report_types import TASKS, series_name

    doc = personagym_data.personagym_doc(ref)
    colors = model_colors(data.models_in(ref))
    colors |= {series_name(doc, m): colors[m] for m in models if m in colors}
    series = {series_name(doc, m): doc["models"][m]["tasks"] for m in models}
    for k, name in enumerate(published):
        series[f"{name} (published)"] = personagym_data.personagym_published(ref).get(name, {}).get("tasks", {})
        colors[f"{name} (published)"] = ("#bab0ac", "#9d755d", "#eeca3b", "#72b7b2")[k % 4]
    fig = figures.task_scores(series, colors, TASKS)
    bands = [((data.chance(ref, "personagym").get(m) or {}).get("metrics") or {}).get(f"task/{t}", {}).get("uniform")
             for m in models for t in TASKS]
    bands = [b for b in bands if b and b.get("lo") is not None]
    widest = max(bands, key=lambda b: b["hi"] - b["lo"], default=None)
    return shared.chance_band(fig, widest, label="a task score under random grades (95 %)")

@_memo
def personagym_personas(ref: StoreRef, model: str) -> go.Figure:
    from analysis.methods.personagym.report_types import TASKS

    personas = personagym_data.personagym_doc(ref)["models"][model]["personas"]
    return figures.persona_task_scores({p: d.get("tasks") or {} for p, d in personas.items()}, TASKS)
