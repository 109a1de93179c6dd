"""TrueSkill for team games of uneven sizes, with a learnt side advantage.

The ``trueskill`` package (pure Python, deterministic) defines the numbers, with its own
environment object, never the package's global one. A match of two teams with different
ranks (every normally ended Avalon game, every forfeit) is computed by ``twoteam``, which
follows the package's schedule on plain floats and gives its results bit for bit in a
fraction of the time; every other match is the package's.

* Team performance in TrueSkill is the weighted **sum** of its players' performances, so
  an evenly rated 6-vs-4 Avalon table would look like a foregone conclusion (match
  quality 0.1; an evil win would swing ratings by ~5 mu). Each player gets the weight
  ``c / n_g`` with ``c = N / m`` (players per group on average): a team's skill is then
  ``c`` times its players' *mean* skill, whatever its size, and with two teams of five
  the weights are exactly 1 (plain TrueSkill).
* Side advantage: each group of a normally ended game also holds a virtual player, its
  side term (one per side and table size, prior ``N(side_mu, side_sigma^2)``, weight 1).
  Players are rated with the side terms as fixed team members; the side terms are then
  rated from the same game with every player replaced by a known average player (see
  ``_rate_sides``), so they learn evil's advantage from the sides' results alone and
  players' ratings are not pushed by the side they were dealt.
* forfeit (the abnormal-end rule): two teams, everyone else (rank 0) against the
  offender (rank 1), no side terms; weights ``1 / (N - 1)`` for the others and 1 for
  the offender (``c = 1``): the offender loses one game against an "average other";
  the others, one team, draw among themselves (no relative change between them).
* aborted: no change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from collections.abc import Mapping
from typing import Any, ClassVar

import trueskill

from .model import ABORTED, BOT, FORFEIT, SIDE, Change, Entity, Match, Rating, check_match, lookup
from .twoteam import Pair, TwoTeams


@dataclass(frozen=True)
class TrueSkill:
    """TrueSkill parameters (the package's defaults) plus the side terms' prior."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.0
    """Avalon has no draws; ties between groups (two losers of a jester) are still accepted."""
    side_mu: float = 0.0
    side_sigma: float = 25.0 / 6
    env: Any = field(init=False, repr=False, compare=False)
    two_teams: TwoTeams = field(init=False, repr=False, compare=False)

    name: ClassVar[str] = "trueskill"

    def __post_init__(self) -> None:
        env = trueskill.TrueSkill(
            mu=self.mu,
            sigma=self.sigma,
            beta=self.beta,
            tau=self.tau,
            draw_probability=self.draw_probability,
            backend=None,
        )
        object.__setattr__(self, "env", env)
        object.__setattr__(self, "two_teams", TwoTeams(env))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its parameters: a worker process builds the package's environment
        again (its functions are closures, which do not pickle)."""
        return type(self), tuple(getattr(self, f.name) for f in fields(self) if f.init)

    def initial_rating(self, entity: Entity) -> Rating:
        if entity[0] == BOT:
            return Rating(self.mu, self.sigma)
        return Rating(self.side_mu, self.side_sigma)

    def score(self, rating: Rating) -> float:
        """The conservative estimate ``mu - 3 sigma`` the leaderboard sorts by."""
        return rating.mu - 3.0 * rating.sigma

    def rate(self, match: Match, current: Mapping[Entity, Rating]) -> tuple[Change, ...]:
        """The changes of every player (and side term) of ``match``; missing entities start fresh."""
        check_match(match)
        if match.kind == ABORTED:
            return ()

        get = lookup(current, self.initial_rating)
        groups = match.groups
        n = sum(len(g.players) for g in groups)
        use_sides = match.kind != FORFEIT
        c = 1.0 if match.kind == FORFEIT else n / len(groups)
        teams: list[list[Entity]] = []
        weights: list[list[float]] = []
        for g in groups:
            members: list[Entity] = [(BOT, p) for p in g.players]
            w = [c / len(g.players)] * len(g.players)
            if use_sides and g.side is not None:
                members.append((SIDE, g.side))
                w.append(1.0)
            teams.append(members)
            weights.append(w)
        before = [[get(e) for e in team] for team in teams]
        ranks = [g.rank for g in groups]
        rated = self._rate([[(r.mu, r.sigma) for r in team] for team in before], weights, ranks)
        changes: list[Change] = []
        for team, olds, news in zip(teams, before, rated):
            for entity, old, (mu, sigma) in zip(team, olds, news):
                if entity[0] == BOT:
                    changes.append(Change(entity, old, Rating(mu, sigma)))
        if use_sides:
            changes += self._rate_sides(groups, teams, before, weights, ranks)
        return tuple(changes)

    def _rate_sides(
        self,
        groups: Any,
        teams: list[list[Entity]],
        before: list[list[Rating]],
        weights: list[list[float]],
        ranks: list[int],
    ) -> list[Change]:
        """The side terms learn from the same game with every player replaced by a known
        average player (``mu``, sigma ~0): the sides' results alone move them.

        Had they learnt from the real game, a bot always dealt evil and evil's advantage
        would explain the same results, and the bot could keep the advantage as its own
        skill. The table (weights, team sizes) is the real one so the advantage is learnt
        on the scale on which it is applied.
        """
        # The n known players of a group, each of weight c/n, add c*mu to its performance
        # and c^2 beta^2 / n to its variance: so does one known player of weight c/sqrt(n)
        # and mean mu*sqrt(n). Two players per group instead of eleven: half the time.
        teams_: list[list[Pair]] = []
        weights_: list[list[float]] = []
        for team, olds, w in zip(teams, before, weights):
            n = sum(1 for e in team if e[0] == BOT)
            root = math.sqrt(n)
            members = [(self.mu * root, 1e-6)]
            ws = [w[0] * root]
            for e, r, wi in zip(team, olds, w):
                if e[0] == SIDE:
                    members.append((r.mu, r.sigma))
                    ws.append(wi)
            teams_.append(members)
            weights_.append(ws)
        rated = self._rate(teams_, weights_, ranks)
        changes: list[Change] = []
        for team, olds, news in zip(teams, before, rated):
            sides = [(e, r) for e, r in zip(team, olds) if e[0] == SIDE]
            for (entity, old), (mu, sigma) in zip(sides, news[1:]):
                changes.append(Change(entity, old, Rating(mu, sigma)))
        return changes

    def _rate(self, teams: list[list[Pair]], weights: list[list[float]], ranks: list[int]) -> list[list[Pair]]:
        """The package's ``rate`` of these teams, as (mean, deviation) pairs: by ``twoteam``
        when it covers the match (two teams, different ranks), else by the package."""
        fast = self.two_teams.rate(teams, weights, ranks)
        if fast is not None:
            return fast
        rated = self.env.rate([[trueskill.Rating(mu, sigma) for mu, sigma in team] for team in teams], ranks, weights)
        return [[(float(r.mu), float(r.sigma)) for r in team] for team in rated]
