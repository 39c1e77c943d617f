"""The human baseline of the trust game, as published figures with their source (no file of anyone else's).

Berg, Dickhaut & McCabe (1995), "Trust, Reciprocity, and Social History", *Games and Economic Behavior* 10:122–142,
the no-history treatment: 32 senders, each endowed with $10, sent a mean of **$5.16**. The distribution of the 32
amounts, as summarised by econport ("man_tfr_experiments_summaries_bdm"): $10 × 5, $8 × 1, $7 × 3, $6 × 5, $5 × 6,
$4 × 2, $3 × 4, $2 × 2, $1 × 2, $0 × 2. Xie et al. (2024, agent-trust) compare LLMs against this human figure.

Check (``check_baseline``, run by the tests): the counts sum to 32 and the amounts to $165, so the distribution's
mean is 165 / 32 = $5.15625, which rounds to the stated $5.16. They agree, so the point estimate uses the
distribution's own mean (the bootstrap resamples the same 32 amounts, so point and CI rest on one set of numbers);
were they to disagree, ``point_mean`` would take the stated mean and the bootstrap the distribution, and say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class HumanBaseline:
    """A published human distribution of amounts sent in a one-shot trust game."""

    source: str
    treatment: str
    endowment: int
    n: int
    stated_mean: float
    #: dollars sent -> number of senders who sent it
    distribution: dict[int, int] = field(default_factory=dict)
    distribution_source: str = ""

    def amounts(self) -> np.ndarray:
        """The ``n`` amounts (dollars, ascending) the distribution lists."""
        return np.repeat(np.array(sorted(self.distribution), dtype=float),
                         [self.distribution[k] for k in sorted(self.distribution)])

    def distribution_agrees(self) -> bool:
        """The counts sum to ``n`` and their mean rounds (2 decimals) to the stated mean."""
        x = self.amounts()
        return x.size == self.n and round(float(x.mean()), 2) == round(self.stated_mean, 2)

    def point_mean(self) -> float:
        """The mean a difference is taken from: the distribution's (= Σ count·amount / n) when it agrees with the
        stated mean, else the stated mean (the bootstrap still resamples the distribution; ``note`` says so)."""
        return float(self.amounts().mean()) if self.distribution_agrees() else float(self.stated_mean)

    def note(self) -> str:
        """One sentence on which mean is used, and why."""
        x = self.amounts()
        if self.distribution_agrees():
            return (f"human mean ${x.mean():.5g} from the {x.size} amounts of the published distribution (the paper "
                    f"states ${self.stated_mean:.2f})")
        return (f"the published distribution ({x.size} senders, mean ${x.mean():.4g}) does not match the stated "
                f"{self.n} senders and mean ${self.stated_mean:.2f}: the point uses the stated mean, the bootstrap "
                "the distribution")

    def citation(self) -> str:
        return f"{self.source}, {self.treatment} treatment: {self.n} senders, mean ${self.stated_mean:.2f} of ${self.endowment}"


BERG_1995 = HumanBaseline(
    source="Berg, Dickhaut & McCabe (1995), Games and Economic Behavior 10:122–142",
    treatment="no-history",
    endowment=10,
    n=32,
    stated_mean=5.16,
    distribution={10: 5, 8: 1, 7: 3, 6: 5, 5: 6, 4: 2, 3: 4, 2: 2, 1: 2, 0: 2},
    distribution_source="econport, man_tfr_experiments_summaries_bdm (summary of Berg et al. 1995, no-history)",
)


def check_baseline(baseline: HumanBaseline = BERG_1995) -> dict[str, float | int | bool]:
    """What the published figures add up to: senders, total sent, the distribution's mean, and whether it agrees."""
    x = baseline.amounts()
    return {"n": int(x.size), "total": float(x.sum()), "mean": float(x.mean()), "agrees": baseline.distribution_agrees()}
