"""Seeded random games of every game type, for tests that must see every kind of event and
line a game has: Werewolf deals each role in turn, with roles revealed on death and hidden."""

from __future__ import annotations

import random
from collections.abc import Iterator

from arena.core.game import Game
from arena.games import GAMES
from arena.games.werewolf.options import WerewolfOptions
from arena.games.werewolf.roles import REGISTRY
from arena.simulate import play_random

ALL_ROLES = ",".join(REGISTRY)
PLAIN = ("villager", "werewolf", "seer", "hunter")
TOGETHER = ("priest:1,silencer:1", "priest:1,piper:1")
"""Roles whose events need another's: a priest cleanses only what a charm or a silence did."""


def nicks(players: int) -> list[str]:
    return [f"p{i}" for i in range(players)]


def _played(game: Game, seed: int) -> Game:
    play_random(game, random.Random(seed))
    return game


def werewolf_games(seeds: int = 10) -> Iterator[Game]:
    """Each role dealt beside two wolves, a seer and a hunter at a table of nine, in ``seeds`` games, half of
    them with roles revealed on death; then the chaos preset."""
    deals = [f"{role}:1" for role in REGISTRY if role not in PLAIN] + list(TOGETHER)
    for deal in deals:
        for seed in range(seeds):
            options = WerewolfOptions(
                enabledRoles=ALL_ROLES,
                roleCounts=f"werewolf:2,{deal},seer:1,hunter:1",
                revealRolesOnDeath=seed % 2 == 0,
            )
            yield _played(GAMES["werewolf"](9, options, seed), seed)
    for seed in range(seeds):
        yield _played(GAMES["werewolf"](14, WerewolfOptions(preset="chaos"), seed), seed)


def games(name: str, count: int = 40) -> Iterator[Game]:
    """Played games of ``name``: Werewolf's cover every role, Avalon's every table size with
    every optional role and the Lancelots."""
    if name == "werewolf":
        yield from werewolf_games()
        return
    cls = GAMES[name]
    for seed in range(count):
        if name == "avalon":
            players = 5 + seed % 6
            lancelot = seed // 6 % 3 if players > 6 else 0
            options = cls.Options.from_mapping(
                {
                    "percival": True,
                    "morgana": True,
                    "mordred": players > 7 and (players > 9 or not lancelot),
                    "oberon": players > 9 and not lancelot,
                    "lancelot": lancelot,
                },
                game=name,
            )
        else:
            players, options = 7, cls.Options()
        yield _played(cls(players, options, seed), seed)
