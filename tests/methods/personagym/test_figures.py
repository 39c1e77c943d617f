"""The PersonaGym page's figures drawn from report frames."""

from __future__ import annotations

import pandas as pd

from analysis.methods.personagym.plots import refusal_bars


def test_refusals_are_rates_on_a_fixed_axis_labelled_with_counts():
    """One refusal in 27 answers is a short bar (1/27 of the axis), labelled '1 of 27'; a model without answers is left
    out (its share is undefined, never 0)."""
    frame = pd.DataFrame({"model": ["a", "b", "c"], "refusals": [1, 0, 0], "n_answers": [27, 10, 0],
                          "share": [1 / 27, 0.0, None]})
    fig = refusal_bars(frame)
    bar = fig.data[0]
    assert list(bar.y) == ["b", "a"] and list(bar.x) == [0.0, 1 / 27]
    assert list(bar.text) == ["0 of 10", "1 of 27"]
    assert tuple(fig.layout.xaxis.range) == (0, 1)
