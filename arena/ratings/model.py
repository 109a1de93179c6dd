"""The shared vocabulary of the rating systems: who played, in which groups, how it ended.

Everything here is plain immutable data so a rating update is a pure function of
(current ratings, match, parameters): the store can recompute every stored value
bit for bit (``rebuild``), and no clock or random source ever enters the math.

An outcome is a *ranking of groups*, not "side A beat side B", so a game with a third
party that wins alone (a Werewolf jester) is representable: ``jester`` rank 0, ``village``
and ``wolves`` both rank 1. Sides that win equally often are not assumed: each group may
carry a ``side`` key, an entity whose rating is the side's advantage, learnt from results
like a player (see ``elo`` and ``skill``).
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Mapping, Sequence
from typing import Literal

BOT: Literal["bot"] = "bot"
SIDE: Literal["side"] = "side"

EntityKind = Literal["bot", "side"]
Entity = tuple[str, str]
"""``("bot", nick)`` or ``("side", side key)``: what carries a rating."""

RANKED: Literal["ranked"] = "ranked"
FORFEIT: Literal["forfeit"] = "forfeit"
ABORTED: Literal["aborted"] = "aborted"
MatchKind = Literal["ranked", "forfeit", "aborted"]

# Per-player results as the store records them.
WIN, LOSS, DRAW = "win", "loss", "draw"
RESULTS = (WIN, LOSS, DRAW, FORFEIT, ABORTED)


def side_key(side: str, players: int) -> str:
    """The key of a side's advantage term: the side *at one table size*.

    Balance depends on the table: Avalon gives evil 2 of 5 seats but 4 of 10, and the
    number of fails needed changes with the count, so one term per (side, player count)
    keeps a 5-player advantage from being applied to 10-player games.
    """
    return f"{side}/{players}"


@dataclass(frozen=True)
class Rating:
    """A rating: Elo uses ``mu`` only (``sigma`` is 0); TrueSkill uses both."""

    mu: float
    sigma: float = 0.0


@dataclass(frozen=True)
class Group:
    """Players who share a result: a side's team, or one party of a forfeited game.

    ``rank`` 0 is best; equal ranks are a draw between those groups. ``side`` names the
    advantage entity of this group (``side_key``) or is None when sides did not matter
    (a forfeited game ended before the sides' fortunes said anything).
    """

    players: tuple[str, ...]
    rank: int
    side: str | None = None


@dataclass(frozen=True)
class Match:
    """One finished game as the rating systems see it."""

    kind: MatchKind
    groups: tuple[Group, ...]
    offender: str | None = None

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for g in self.groups for p in g.players)

    def entities(self) -> tuple[Entity, ...]:
        """Every entity whose rating this match reads (players, then side terms)."""
        out: list[Entity] = [(BOT, p) for p in self.players]
        out += [(SIDE, g.side) for g in self.groups if g.side is not None and self.kind == RANKED]
        return tuple(out)

    def result_of(self, player: str) -> str:
        """win / loss / draw / forfeit / aborted for one player, as the store records it."""
        if self.kind == ABORTED:
            return ABORTED
        if self.kind == FORFEIT:
            return FORFEIT if player == self.offender else DRAW
        ranks = {g.rank for g in self.groups}
        mine = next(g.rank for g in self.groups if player in g.players)
        if len(ranks) == 1:
            return DRAW
        return WIN if mine == min(ranks) else LOSS


def ranked(sides: Mapping[str, str], ranks: Mapping[str, int], players: int | None = None) -> Match:
    """A normally ended game: ``sides`` maps each player to their (final) side, ``ranks``
    each side to its rank (0 best). Side advantage keys use ``players`` (default: the count)."""
    n = len(sides) if players is None else players
    by_side: dict[str, list[str]] = {}
    for player, s in sides.items():
        by_side.setdefault(s, []).append(player)
    missing = set(by_side) - set(ranks)
    if missing:
        raise ValueError(f"no rank for side(s) {sorted(missing)}")
    groups = tuple(Group(tuple(ps), ranks[s], side_key(s, n)) for s, ps in by_side.items())
    if len(groups) < 2:
        raise ValueError("a ranked match needs at least two groups")
    return Match(RANKED, groups)


def forfeit(players: Sequence[str], offender: str) -> Match:
    """The abnormal-end rule: the offender loses, everyone else draws.

    Two groups: everyone else (rank 0, one group, so nobody gains on anyone else from
    a game that never finished) and the offender (rank 1). Sides play no part.
    """
    if offender not in players:
        raise ValueError(f"offender {offender!r} did not play")
    others = tuple(p for p in players if p != offender)
    if not others:
        raise ValueError("a forfeit needs at least one other player")
    return Match(FORFEIT, (Group(others, 0), Group((offender,), 1)), offender)


def aborted(players: Sequence[str]) -> Match:
    """A game stopped without anyone at fault (operator !stop, server loss): no rating moves."""
    return Match(ABORTED, (Group(tuple(players), 0),))


@dataclass(frozen=True)
class Change:
    """One entity's rating before and after one match."""

    entity: Entity
    before: Rating
    after: Rating

    @property
    def delta(self) -> float:
        return self.after.mu - self.before.mu


def lookup(current: Mapping[Entity, Rating], initial: Callable[[Entity], Rating]) -> Callable[[Entity], Rating]:
    """A rating system's view of the stored ratings: an entity never rated starts fresh."""

    def get(entity: Entity) -> Rating:
        rating = current.get(entity)
        return initial(entity) if rating is None else rating

    return get


def check_match(match: Match) -> None:
    """Refuse a match a rating system cannot read (a player twice, an empty group)."""
    seen: set[str] = set()
    for g in match.groups:
        if not g.players:
            raise ValueError("empty group")
        for p in g.players:
            if p in seen:
                raise ValueError(f"player {p!r} appears twice in one match")
            seen.add(p)
