"""Small statistics for win rates."""

from __future__ import annotations

import math

Z95 = 1.959963984540054
"""The two-sided 95% normal quantile."""


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion.

    Chosen over the textbook ``p ± z·sqrt(p(1-p)/n)`` because bots often have few games
    and extreme rates (0 of 3 wins): Wilson stays inside [0, 1] and is not zero-width
    at 0% or 100%. With no trials, nothing is known: (0, 1).
    """
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} not within 0..{trials}")
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials)) / denom
    # Exact ends where the rate is 0% or 100% (the formula gives ~1e-17 there).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)
