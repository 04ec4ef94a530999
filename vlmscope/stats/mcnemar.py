"""McNemar's test for two models graded right / not right on the same items.

Only the discordant items carry information: `only_a` items A got right and B did not,
`only_b` the reverse. Under "both models are equally likely to be right" each discordant item
is a fair coin, so the exact test is the two-sided binomial test of `only_a` out of
`only_a + only_b` at 1/2 (statsmodels' `mcnemar(exact=True)`): twice the smaller tail, capped
at 1. Exact at every count, it is conservative with few discordant items (its p-value is never
below its nominal level too often).
"""

from __future__ import annotations

from dataclasses import dataclass

METHOD = "McNemar's exact test (two-sided binomial on the discordant items)"


@dataclass(frozen=True)
class McNemar:
    only_a: int
    only_b: int
    p_value: float
    method: str = METHOD

    def to_json(self) -> dict[str, object]:
        return {
            "only_a": self.only_a,
            "only_b": self.only_b,
            "p_value": self.p_value,
            "method": self.method,
        }


def mcnemar(only_a: int, only_b: int) -> McNemar:
    """The exact McNemar test of the discordant counts (module doc); p = 1 with none."""
    if only_a < 0 or only_b < 0:
        raise ValueError(f"discordant counts must not be negative: {only_a}, {only_b}")
    n = only_a + only_b
    if n == 0:
        return McNemar(only_a, only_b, 1.0)
    from scipy.stats import binom  # here: commands start without scipy.stats

    p = min(1.0, 2.0 * float(binom.cdf(min(only_a, only_b), n, 0.5)))
    return McNemar(only_a, only_b, p)
