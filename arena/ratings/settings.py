"""The ``ratings:`` section of config.yaml, declared for ``arena.config``'s generic builder.

Kept here (not in arena/config.py) so the rating parameters live next to the formulas
they feed; the field metadata has the same keys as ``arena.config.limits`` so the
builder checks and words errors for these keys like any other. To enable it, the
integrator adds ``ratings: RatingsConfig = section(RatingsConfig, help=...)`` to Config.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .elo import Elo
from .skill import TrueSkill


def _meta(help: str, *, min: float | None = None, max: float | None = None,
          above: float | None = None) -> dict[str, Any]:
    return {"help": help, "min": min, "max": max, "above": above, "choices": None, "pattern": None,
            "nonempty": False, "form": None}


@dataclass(frozen=True)
class RatingsConfig:
    """Parameters of both rating systems; changing one requires ``arena ratings rebuild --write``."""

    elo_k: float = field(default=32.0, metadata=_meta(
        "Elo points at stake per side in a game between equal sides", above=0))
    elo_side_k: float = field(default=4.0, metadata=_meta(
        "learning rate of the Elo side-advantage terms; 0 = no side correction", min=0))
    elo_initial: float = field(default=1500.0, metadata=_meta("Elo rating of a new bot"))
    trueskill_mu: float = field(default=25.0, metadata=_meta("TrueSkill mean of a new bot"))
    trueskill_sigma: float = field(default=25.0 / 3, metadata=_meta("TrueSkill uncertainty of a new bot", above=0))
    trueskill_beta: float = field(default=25.0 / 6, metadata=_meta(
        "TrueSkill performance noise: skill gap for ~76% win odds", above=0))
    trueskill_tau: float = field(default=25.0 / 300, metadata=_meta(
        "TrueSkill drift added to sigma before each game", min=0))
    trueskill_side_sigma: float = field(default=25.0 / 6, metadata=_meta(
        "TrueSkill prior uncertainty of a side-advantage term", above=0))

    def systems(self) -> tuple[Elo, TrueSkill]:
        """The rating systems to pass to ``Store``."""
        return (
            Elo(k=self.elo_k, side_k=self.elo_side_k, initial=self.elo_initial),
            TrueSkill(mu=self.trueskill_mu, sigma=self.trueskill_sigma, beta=self.trueskill_beta,
                      tau=self.trueskill_tau, side_sigma=self.trueskill_side_sigma),
        )
