"""Elo for team games of uneven sizes, with a learnt side advantage.

The formula (every quantity is recomputed from the stored games by ``rebuild``):

* A group's strength is the **mean** of its players' ratings plus, in a normally ended
  game, its side's advantage term ``A[side]`` (an entity rated like a player, starting
  at 0). The mean, not the sum, so 6 players are not "stronger" than 4 by headcount.
* Between every two groups g, h: expected score ``E = 1 / (1 + 10 ** ((R_h - R_g) / 400))``,
  actual ``S`` = 1 (better rank), 0.5 (same rank) or 0. A group's surprise is
  ``d_g = mean over the other groups of (S - E)``.
* Stakes are equal per group and split among its members: each member of g moves by
  ``K * c * d_g / n_g`` with ``c = N / m`` (players per group on average). With two
  groups of five this is the textbook ``K * (S - E)``; with 6 against 4 each good player
  moves 5/6 and each evil player 5/4 of it. The changes sum to zero over all players, so
  uneven tables neither create nor destroy rating points (no inflation over time).
* The side terms are an Elo of the sides alone: ``A[g]`` moves by ``side_k * d'_g``
  where ``d'_g`` is the surprise computed from the side terms only (players left out).
  So ``A[evil] - A[good]`` tracks ``400 * log10(p / (1 - p))`` for evil's observed win
  rate p at that table size (roles are dealt at random, so the players' skills average
  out), and a player gains nothing in expectation from the side they were dealt. Had the
  side terms learnt from the full surprise ``d_g``, a bot always dealt evil would be
  indistinguishable from evil's advantage and could keep it as its own rating. Two
  equal bots dealt opposite sides therefore end equal (tested).

Abnormal ends (the rule: the offender loses, everyone else draws):

* forfeit: two groups, everyone else (rank 0) and the offender (rank 1), no side terms
  (the game never finished, so the sides' fortunes say nothing) and ``c = 1``: the
  offender takes one ordinary loss against a player of the others' mean rating,
  ``-K * E``; the others share the same points equally (``+K * E / (N - 1)`` each) and,
  being one group, none of them gains on another: that is the draw among themselves.
* aborted (nobody at fault): no change at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from typing import ClassVar

from .model import ABORTED, BOT, FORFEIT, SIDE, Change, Entity, Match, Rating, check_match, lookup


@dataclass(frozen=True)
class Elo:
    """Elo parameters; ``rate`` is a pure function of them, the ratings and the match."""

    k: float = 32.0
    """Points at stake per group in a game between two equal groups of the average size."""
    side_k: float = 4.0
    """Learning rate of the side advantage terms (one term per side and table size)."""
    initial: float = 1500.0
    scale: float = 400.0

    name: ClassVar[str] = "elo"

    def initial_rating(self, entity: Entity) -> Rating:
        return Rating(self.initial if entity[0] == BOT else 0.0, 0.0)

    def score(self, rating: Rating) -> float:
        """What the leaderboard sorts by."""
        return rating.mu

    def expected(self, strength: float, other: float) -> float:
        odds: float = 10.0 ** ((other - strength) / self.scale)  # typeshed: Any (a negative base gives complex)
        return 1.0 / (1.0 + odds)

    def rate(self, match: Match, current: Mapping[Entity, Rating]) -> tuple[Change, ...]:
        """The changes of every player (and side term) of ``match``; missing entities start fresh."""
        check_match(match)
        if match.kind == ABORTED:
            return ()

        get = lookup(current, self.initial_rating)
        groups = match.groups
        m = len(groups)
        use_sides = match.kind != FORFEIT
        strengths: list[float] = []
        for g in groups:
            s = sum(get((BOT, p)).mu for p in g.players) / len(g.players)
            if use_sides and g.side is not None:
                s += get((SIDE, g.side)).mu
            strengths.append(s)
        surprise: list[float] = []
        for i, g in enumerate(groups):
            total = 0.0
            for j, h in enumerate(groups):
                if i == j:
                    continue
                actual = 1.0 if g.rank < h.rank else 0.5 if g.rank == h.rank else 0.0
                total += actual - self.expected(strengths[i], strengths[j])
            surprise.append(total / (m - 1))
        n = sum(len(g.players) for g in groups)
        c = 1.0 if match.kind == FORFEIT else n / m
        changes: list[Change] = []
        for g, d in zip(groups, surprise):
            step = self.k * c * d / len(g.players)
            for p in g.players:
                before = get((BOT, p))
                changes.append(Change((BOT, p), before, Rating(before.mu + step, 0.0)))
        if use_sides:
            # The side terms learn from the sides' results alone (their expected scores
            # use the side terms only, not the players): a bot that is always dealt evil
            # must not be able to soak up evil's advantage, nor the other way round.
            sides = [get((SIDE, g.side)).mu if g.side is not None else 0.0 for g in groups]
            for i, g in enumerate(groups):
                if g.side is None:
                    continue
                total = 0.0
                for j, h in enumerate(groups):
                    if i != j:
                        actual = 1.0 if g.rank < h.rank else 0.5 if g.rank == h.rank else 0.0
                        total += actual - self.expected(sides[i], sides[j])
                before = get((SIDE, g.side))
                changes.append(Change((SIDE, g.side), before, Rating(before.mu + self.side_k * total / (m - 1), 0.0)))
        return tuple(changes)
