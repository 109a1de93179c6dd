"""The ``ratings:`` section of config.yaml.

Kept here (not in arena/config/) so the rating parameters live next to the formulas
they feed; declared like every section (``arena.core.settings``), so ``arena.config``
checks and words errors for these keys like any other.
"""

from __future__ import annotations

from pydantic.dataclasses import dataclass

from ..core.settings import SECTION, Section, setting
from .elo import Elo
from .skill import TrueSkill


@dataclass(frozen=True, config=SECTION)
class RatingsConfig(Section):
    """Parameters of both rating systems; changing one requires ``arena ratings rebuild --write``."""

    elo_k: float = setting(32.0, help="Elo points at stake per side in a game between equal sides", gt=0)
    elo_side_k: float = setting(4.0, help="learning rate of the Elo side-advantage terms; 0 = no side correction", ge=0)
    elo_initial: float = setting(1500.0, help="Elo rating of a new bot")
    trueskill_mu: float = setting(25.0, help="TrueSkill mean of a new bot")
    trueskill_sigma: float = setting(25.0 / 3, help="TrueSkill uncertainty of a new bot", gt=0)
    trueskill_beta: float = setting(25.0 / 6, help="TrueSkill performance noise: skill gap for ~76% win odds", gt=0)
    trueskill_tau: float = setting(25.0 / 300, help="TrueSkill drift added to sigma before each game", ge=0)
    trueskill_side_sigma: float = setting(25.0 / 6, help="TrueSkill prior uncertainty of a side-advantage term", gt=0)

    def systems(self) -> tuple[Elo, TrueSkill]:
        """The rating systems to pass to ``Store``."""
        return (
            Elo(k=self.elo_k, side_k=self.elo_side_k, initial=self.elo_initial),
            TrueSkill(
                mu=self.trueskill_mu,
                sigma=self.trueskill_sigma,
                beta=self.trueskill_beta,
                tau=self.trueskill_tau,
                side_sigma=self.trueskill_side_sigma,
            ),
        )
